//! The counting global allocator of this binary: how many allocations a thread made, and how
//! many bytes it holds, so a test can show that a record path allocates nothing or that memory
//! stops growing. Counts are per thread: the harness and the tests running beside one another
//! allocate concurrently, and a process-wide count made the checks fail at random.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static LIVE_BYTES: Cell<isize> = const { Cell::new(0) };
}

struct Counting;

/// Counts an allocation (`new` of them) and a change of the bytes held. `try_with`: a thread
/// being torn down has no cells left, and its allocations are not counted rather than a panic.
fn count(new: u64, bytes: isize) {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + new));
    let _ = LIVE_BYTES.try_with(|b| b.set(b.get() + bytes));
}

// SAFETY: every method forwards to the system allocator with the arguments it was given, so
// the `GlobalAlloc` contract is `System`'s; the counting only touches thread-local cells and
// never allocates (the cells are `const`-initialised, so first use allocates nothing either).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(1, layout.size() as isize);
        // SAFETY: the caller's layout, which meets `alloc`'s requirements.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(0, -(layout.size() as isize));
        // SAFETY: `ptr` was allocated by `System` (every allocation goes through it) with
        // `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(1, new_size as isize - layout.size() as isize);
        // SAFETY: the caller's arguments, which meet `realloc`'s requirements.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// How many allocations (and reallocations) this thread made while running `f`.
pub fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// The bytes this thread's allocations hold now (allocated minus freed by it).
pub fn live_bytes() -> isize {
    LIVE_BYTES.with(Cell::get)
}
