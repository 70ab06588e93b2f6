//! Points in the joins-and-leaves code where a test can stop a thread, to force an
//! interleaving instead of hoping for it (a deadlock shows in every run, not in one of many).
//!
//! Each point is a call to [`reached`], which does nothing outside the crate's unit tests. A
//! unit test sets, for its own thread, what happens when that thread reaches a point
//! (`on_reaching`): typically, tell another thread and wait for it.

/// A point a thread reaches in the joins-and-leaves code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TestPoint {
    /// A join, past the engine table's check for a present entry, is about to resolve the new
    /// engine's series (which takes the joins-and-leaves lock).
    JoinAboutToResolve,
    /// `resolve_for_engine`, holding the joins-and-leaves lock, is about to check that its
    /// engine is still present.
    ResolveAboutToCheckPresence,
}

/// Runs what the current thread's test set for `point`, if anything (unit tests only).
#[inline(always)]
pub(crate) fn reached(point: TestPoint) {
    #[cfg(test)]
    hooks::run(point);
    #[cfg(not(test))]
    let _ = point;
}

#[cfg(test)]
pub(crate) use hooks::on_reaching;

#[cfg(test)]
mod hooks {
    use std::cell::RefCell;

    use super::TestPoint;

    type Hook = Box<dyn FnOnce()>;

    thread_local! {
        static HOOKS: RefCell<Vec<(TestPoint, Hook)>> = const { RefCell::new(Vec::new()) };
    }

    /// Runs `hook` the next time the current thread reaches `point` (once).
    pub(crate) fn on_reaching(point: TestPoint, hook: impl FnOnce() + 'static) {
        HOOKS.with(|hooks| hooks.borrow_mut().push((point, Box::new(hook))));
    }

    pub(super) fn run(point: TestPoint) {
        let hook = HOOKS.with(|hooks| {
            let mut hooks = hooks.borrow_mut();
            let at = hooks.iter().position(|(p, _)| *p == point)?;
            Some(hooks.remove(at).1)
        });
        if let Some(hook) = hook {
            hook();
        }
    }
}
