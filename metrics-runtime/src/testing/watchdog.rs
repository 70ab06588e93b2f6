//! [`assert_finishes`]: a limit on how long a scenario may take, so that a deadlock fails a test
//! instead of hanging the run.

/// Runs `scenario` on a thread of its own and fails the test if it has not finished within
/// `limit`: a deadlock fails instead of hanging the run (its threads are left behind).
///
/// ```
/// use std::time::Duration;
///
/// let counter = metric_handles::Counter::<u64>::default();
/// let recorder = counter.clone();
/// metric_handles::testing::assert_finishes(Duration::from_secs(10), move || {
///     recorder.inc();
/// });
/// assert_eq!(counter.get(), 1);
/// ```
pub fn assert_finishes(limit: std::time::Duration, scenario: impl FnOnce() + Send + 'static) {
    use std::sync::mpsc::{channel, RecvTimeoutError};

    let (done, finished) = channel();
    std::thread::spawn(move || {
        scenario();
        let _ = done.send(());
    });
    match finished.recv_timeout(limit) {
        Ok(()) => {}
        Err(RecvTimeoutError::Timeout) => panic!("deadlock: not finished after {limit:?}"),
        Err(RecvTimeoutError::Disconnected) => panic!("the scenario panicked"),
    }
}
