//! A global allocator that counts the heap bytes live at any moment: the memory benchmark's
//! measuring instrument. A binary installs it with `#[global_allocator]`; the library only
//! defines it, so the criterion benchmarks keep the system allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// The system allocator, counting the bytes asked for (not the allocator's own overhead per
/// block, which depends on the allocator and is the same for every crate measured).
#[derive(Debug)]
pub struct CountingAlloc {
    live: AtomicI64,
    allocations: AtomicU64,
}

impl CountingAlloc {
    /// A counter at zero.
    pub const fn new() -> Self {
        CountingAlloc {
            live: AtomicI64::new(0),
            allocations: AtomicU64::new(0),
        }
    }

    /// What is live now, and how many allocations were ever made.
    pub fn now(&self) -> Usage {
        Usage {
            live_bytes: self.live.load(Ordering::SeqCst),
            allocations: self.allocations.load(Ordering::SeqCst),
        }
    }

    fn grew(&self, bytes: usize) {
        // A block never exceeds `isize::MAX` bytes, so it fits an `i64`.
        self.live.fetch_add(bytes as i64, Ordering::Relaxed);
        self.allocations.fetch_add(1, Ordering::Relaxed);
    }

    fn shrank(&self, bytes: usize) {
        self.live.fetch_sub(bytes as i64, Ordering::Relaxed);
    }
}

impl Default for CountingAlloc {
    fn default() -> Self {
        Self::new()
    }
}

/// A reading of the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Heap bytes allocated and not yet freed.
    pub live_bytes: i64,
    /// Allocations made since the start (frees do not lower it).
    pub allocations: u64,
}

impl Usage {
    /// What `self` holds beyond `before`, per one of `n` series.
    pub fn per_series_since(self, before: Usage, n: usize) -> PerSeries {
        let n = n.max(1) as f64;
        PerSeries {
            bytes: (self.live_bytes - before.live_bytes) as f64 / n,
            allocations: (self.allocations - before.allocations) as f64 / n,
        }
    }
}

/// Heap bytes and allocations per series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerSeries {
    /// Live heap bytes per series.
    pub bytes: f64,
    /// Allocations made per series (including those freed again).
    pub allocations: f64,
}

// SAFETY: every call is forwarded to `System` with the caller's arguments, so `System`'s
// guarantees hold; the counters are atomics and never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            self.grew(layout.size());
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        if !block.is_null() {
            self.grew(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: `block` was allocated by this allocator (so by `System`) with `layout`.
        unsafe { System.dealloc(block, layout) };
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; `new_size` is the caller's, checked by it.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            self.shrank(layout.size());
            self.grew(new_size);
        }
        moved
    }
}
