//! [`OtlpExporter`]: the thread that pushes the registry on an interval, retries, and
//! flushes on shutdown.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc as std_mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};

use super::config::OtlpConfig;
use super::encode::OtlpEncoder;
use super::error::OtlpError;
use super::metrics::{FailureReason, OtlpHandles};
use super::transport::{Outcome, Transport};
use crate::Registry;

/// The first retry waits about this long; each further one twice as long as the one before,
/// up to [`MAX_BACKOFF`], each with a random part so that many processes do not retry in step.
pub const INITIAL_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between two tries of one export (a `Retry-After` may ask for longer).
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

enum Command {
    Flush(std_mpsc::Sender<Result<(), OtlpError>>),
    Shutdown(std_mpsc::Sender<Result<(), OtlpError>>),
}

/// Pushes a registry to an OTLP/HTTP collector every interval, from a thread of its own.
///
/// Started by [`OtlpConfig::start`]. Recording never meets the exporter: an export reads
/// the registry as a scrape does, on the exporter's thread, and a scrape never blocks
/// recording.
///
/// **Nothing recorded is lost while the collector is away.** Every point is cumulative (a
/// counter's total since its start time, a histogram's buckets since then), so a newer
/// snapshot holds everything an older one held. The exporter therefore keeps at most one
/// unsent snapshot: a failed export is retried with exponential backoff (429, 502, 503, 504,
/// connection errors and timeouts; other statuses are not retried) until the next export is
/// due, which then sends a fresh snapshot in its place (counted in
/// `metric_handles_otlp_superseded_snapshots_total`). Memory stays at one encoded request
/// however long the outage, and the first export that gets through carries every count.
/// What a gap loses is resolution in time: the collector has no point for the exports that
/// failed. A series removed from the registry during an outage loses what it recorded since
/// the last export that got through.
///
/// Dropping the exporter shuts it down as [`shutdown`](Self::shutdown) does.
pub struct OtlpExporter {
    commands: mpsc::UnboundedSender<Command>,
    thread: Option<JoinHandle<()>>,
    queued: Arc<AtomicUsize>,
    endpoint: String,
}

impl fmt::Debug for OtlpExporter {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("OtlpExporter")
            .field("endpoint", &self.endpoint)
            .field("queued_bytes", &self.queued_bytes())
            .finish_non_exhaustive()
    }
}

impl OtlpConfig {
    /// Starts pushing `registry` with this configuration: the first export after one
    /// interval, then every interval. Logs each of [`warnings`](Self::warnings) (the
    /// environment's malformed variables) with `tracing`.
    ///
    /// # Errors
    ///
    /// [`OtlpError::Endpoint`], [`OtlpError::Https`] or [`OtlpError::Header`] for a
    /// configuration that cannot be sent, [`OtlpError::Start`] when the thread cannot start.
    pub fn start(self, registry: Arc<Registry>) -> Result<OtlpExporter, OtlpError> {
        for warning in self.warnings() {
            tracing::warn!(target: "metric_handles::otlp", "{warning}");
        }
        let transport = Transport::new(&self)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(OtlpError::Start)?;
        let (commands, receiver) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let worker = Worker {
            registry,
            encoder: OtlpEncoder::new(&self),
            transport,
            handles: self.metrics.clone(),
            interval: self.interval.max(Duration::from_millis(1)),
            timeout: self.timeout,
            pending: None,
            hold_until: None,
            failing: false,
            queued: Arc::clone(&queued),
        };
        let thread = std::thread::Builder::new()
            .name("otlp-exporter".to_owned())
            .spawn(move || runtime.block_on(worker.run(receiver)))
            .map_err(OtlpError::Start)?;
        Ok(OtlpExporter {
            commands,
            thread: Some(thread),
            queued,
            endpoint: self.endpoint,
        })
    }
}

impl OtlpExporter {
    /// Exports now and waits for the outcome: a fresh snapshot, retried as an interval's
    /// export is until the timeout has passed. Blocks the calling thread (from async code,
    /// call it in `spawn_blocking`).
    ///
    /// # Errors
    ///
    /// [`OtlpError::Export`] with the last try's reason, or [`OtlpError::Stopped`].
    pub fn force_flush(&self) -> Result<(), OtlpError> {
        self.call(Command::Flush)
    }

    /// A last export (as [`force_flush`](Self::force_flush)), then the thread stops. Blocks
    /// until it has. Later calls return [`OtlpError::Stopped`].
    ///
    /// # Errors
    ///
    /// What the last export returned.
    pub fn shutdown(&mut self) -> Result<(), OtlpError> {
        let result = self.call(Command::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        result
    }

    /// The size of the encoded snapshot waiting to be sent, 0 when none is: never more than
    /// one request's.
    pub fn queued_bytes(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }

    fn call(
        &self,
        command: fn(std_mpsc::Sender<Result<(), OtlpError>>) -> Command,
    ) -> Result<(), OtlpError> {
        let (reply, answer) = std_mpsc::channel();
        self.commands
            .send(command(reply))
            .map_err(|_| OtlpError::Stopped)?;
        answer.recv().unwrap_or(Err(OtlpError::Stopped))
    }
}

impl Drop for OtlpExporter {
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.shutdown();
        }
    }
}

/// An encoded snapshot not yet accepted.
struct Pending {
    body: Vec<u8>,
    data_points: u64,
    attempts: u32,
    retry_at: Instant,
}

struct Worker {
    registry: Arc<Registry>,
    encoder: OtlpEncoder,
    transport: Transport,
    handles: Option<OtlpHandles>,
    interval: Duration,
    timeout: Duration,
    pending: Option<Pending>,
    /// No request before this (the collector's `Retry-After`), whichever snapshot is pending,
    /// and the failure that asked for it.
    hold_until: Option<(Instant, FailureReason)>,
    /// Whether the last try failed: the first failure of a run is logged as a warning, the
    /// recovery as information, the tries between at debug level.
    failing: bool,
    queued: Arc<AtomicUsize>,
}

impl Worker {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        let mut next_export = Instant::now() + self.interval;
        loop {
            let wake = self
                .pending
                .as_ref()
                .map_or(next_export, |p| p.retry_at.min(next_export));
            tokio::select! {
                () = sleep_until(wake) => {
                    let now = Instant::now();
                    if now >= next_export {
                        self.snapshot(now);
                        // Exports missed while a request was slow are skipped, not bunched.
                        while next_export <= now {
                            next_export += self.interval;
                        }
                    }
                    if self.pending.as_ref().is_some_and(|p| p.retry_at <= now) {
                        let _ = self.attempt().await;
                    }
                }
                command = commands.recv() => match command {
                    Some(Command::Flush(reply)) => {
                        let _ = reply.send(self.flush().await);
                    }
                    Some(Command::Shutdown(reply)) => {
                        let _ = reply.send(self.flush().await);
                        return;
                    }
                    None => {
                        let _ = self.flush().await;
                        return;
                    }
                },
            }
        }
    }

    /// Encodes the registry as it is now, replacing any unsent snapshot.
    fn snapshot(&mut self, now: Instant) {
        let mut body = match self.pending.take() {
            Some(old) => {
                if let Some(h) = &self.handles {
                    h.superseded.inc();
                }
                old.body
            }
            None => Vec::new(),
        };
        body.clear();
        match self.encoder.encode_into(&self.registry, &mut body) {
            Ok(stats) => {
                self.queued.store(body.len(), Ordering::Relaxed);
                self.pending = Some(Pending {
                    body,
                    data_points: stats.data_points,
                    attempts: 0,
                    retry_at: self.hold_until.map_or(now, |(h, _)| h.max(now)),
                });
            }
            Err(_) => {
                self.queued.store(0, Ordering::Relaxed);
                self.count_failure(FailureReason::Encoding, "the registry failed to encode");
            }
        }
    }

    /// Sends the pending snapshot once; on a retried failure, schedules the next try.
    async fn attempt(&mut self) -> Result<(), OtlpError> {
        let Some(pending) = self.pending.as_mut() else {
            return Ok(());
        };
        match self.transport.send(&pending.body).await {
            Outcome::Accepted => {
                let data_points = pending.data_points;
                self.pending = None;
                self.queued.store(0, Ordering::Relaxed);
                self.hold_until = None;
                if let Some(h) = &self.handles {
                    h.exports.inc();
                    h.data_points.inc_by(data_points);
                    let seconds = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0.0, |d| d.as_secs_f64());
                    h.last_success.set(seconds);
                }
                if self.failing {
                    tracing::info!(target: "metric_handles::otlp", "OTLP export succeeded again");
                    self.failing = false;
                }
                Ok(())
            }
            Outcome::Failed {
                reason,
                retry_after,
                detail,
            } => {
                self.count_failure(reason, &detail);
                if reason.is_retried() {
                    let now = Instant::now();
                    if let Some(pending) = self.pending.as_mut() {
                        pending.attempts += 1;
                        let wait = backoff(pending.attempts);
                        pending.retry_at = now + retry_after.map_or(wait, |after| after.max(wait));
                    }
                    self.hold_until = retry_after.map(|after| (now + after, reason));
                } else {
                    // The collector will not take this payload; the next export sends anew.
                    self.pending = None;
                    self.queued.store(0, Ordering::Relaxed);
                }
                Err(OtlpError::Export { reason, detail })
            }
        }
    }

    /// A fresh snapshot, tried until it is accepted, refused for good, or the timeout passes.
    async fn flush(&mut self) -> Result<(), OtlpError> {
        let deadline = Instant::now() + self.timeout;
        self.snapshot(Instant::now());
        if self.pending.is_none() {
            return Err(OtlpError::Export {
                reason: FailureReason::Encoding,
                detail: "the registry failed to encode".to_owned(),
            });
        }
        loop {
            // A collector's `Retry-After` holds for a flush too, within its deadline.
            if let Some(retry_at) = self.pending.as_ref().map(|p| p.retry_at) {
                if retry_at >= deadline {
                    return Err(OtlpError::Export {
                        reason: self
                            .hold_until
                            .map_or(FailureReason::Unavailable, |(_, r)| r),
                        detail: "the collector's Retry-After ends past the flush's timeout"
                            .to_owned(),
                    });
                }
                sleep_until(retry_at).await;
            }
            match self.attempt().await {
                Ok(()) => return Ok(()),
                Err(error) => {
                    let Some(retry_at) = self.pending.as_ref().map(|p| p.retry_at) else {
                        return Err(error);
                    };
                    if retry_at >= deadline {
                        return Err(error);
                    }
                }
            }
        }
    }

    fn count_failure(&mut self, reason: FailureReason, detail: &str) {
        if let Some(h) = &self.handles {
            h.failures.get(reason).inc();
        }
        if self.failing {
            tracing::debug!(target: "metric_handles::otlp", ?reason, "OTLP export failed again: {detail}");
        } else {
            tracing::warn!(target: "metric_handles::otlp", ?reason, "OTLP export failed: {detail}");
            self.failing = true;
        }
    }
}

/// The wait before try `attempts + 1`: [`INITIAL_BACKOFF`] doubled per failed try up to
/// [`MAX_BACKOFF`], of which a random half (from the clock's nanoseconds: no random number
/// generator needed for this) is taken off.
fn backoff(attempts: u32) -> Duration {
    let full = INITIAL_BACKOFF
        .saturating_mul(1 << attempts.saturating_sub(1).min(16))
        .min(MAX_BACKOFF);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let jitter = f64::from(nanos % 1000) / 2000.0; // [0, 0.5)
    full.mul_f64(1.0 - jitter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_initial_wait_up_to_the_maximum_with_jitter_below_half() {
        for attempts in 1..40 {
            let full = INITIAL_BACKOFF
                .saturating_mul(1 << (attempts - 1).min(16))
                .min(MAX_BACKOFF);
            let wait = backoff(attempts);
            assert!(
                wait <= full && wait > full / 2,
                "{attempts}: {wait:?} of {full:?}"
            );
        }
        assert!(backoff(30) > MAX_BACKOFF / 2);
    }
}
