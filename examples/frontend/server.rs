//! The HTTP server: hyper's HTTP/1.1 connection driver with a timer, so no connection can hold
//! the server's memory or descriptors for long without doing its part.
//!
//! * A request's headers must arrive within `--header-read-timeout`; hyper starts that clock
//!   when it begins waiting for a request head, so an idle keep-alive connection is closed after
//!   the same time (`axum::serve` sets no timer, and without one hyper applies neither).
//! * Headers are read into a buffer of at most [`MAX_HEAD_BYTES`]; a larger head is a 431.
//! * A connection that accepts no byte of its response for `--write-stall-timeout` is closed
//!   ([`StallGuard`]), so a client that never reads cannot pin an encoded response.
//! * At most `--max-connections` connections are open, and always fewer than the descriptor
//!   limit allows (with a reserve for the rest of the process). At the limit, a new connection
//!   closes the oldest connection with no request in progress (a stalled or idle one); when
//!   every connection is busy, the new one gets a 503 and is closed. A closed connection
//!   counts until its descriptor is, and the accept loop waits for that: a flood of new
//!   connections cannot run the process out of descriptors, which would fail every accept.
//! * When many connections have closed (an attack or a burst is over), freed heap pages go back
//!   to the system ([`return_freed_memory`]): glibc keeps them otherwise, and the process would
//!   stay at its peak size for good.

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::Router;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::Sleep;
use tower::ServiceExt;

use crate::frontend::lock;

/// Largest request head (request line and headers) a connection may send.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Descriptors kept free for everything but connections (the listener, the runtime's epoll and
/// wake-up descriptors, stdio, report files).
const RESERVED_FDS: u64 = 32;

/// What bounds the connections.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub header_read_timeout: Duration,
    pub write_stall_timeout: Duration,
    pub max_connections: usize,
}

impl Limits {
    /// `max_connections` lowered, when needed, to what the descriptor limit leaves room for
    /// once `other_fds` descriptors the process needs besides (its own clients' sockets) and a
    /// fixed reserve are set aside.
    pub fn within_fd_limit(mut self, other_fds: u64) -> Self {
        if let Some(fds) = fd_limit() {
            let room = fds.saturating_sub(RESERVED_FDS + other_fds).max(1);
            self.max_connections = self.max_connections.min(room as usize);
        }
        self
    }
}

/// The soft `RLIMIT_NOFILE`, when the platform has one.
fn fd_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `&mut limit` is a valid, aligned `rlimit` that outlives the call, and
    // `getrlimit` only writes one `rlimit` through it; `RLIMIT_NOFILE` is a valid resource.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (rc == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// One open connection, as the accept loop sees it.
struct Entry {
    /// Requests whose response has not been fully written (or dropped).
    in_flight: Arc<AtomicUsize>,
    close: Arc<Notify>,
    /// Told to close, not yet closed: it still holds its descriptor.
    closing: bool,
}

/// Every connection whose descriptor is open, until its task has dropped it.
#[derive(Default)]
struct Connections {
    next_id: u64,
    open: BTreeMap<u64, Entry>,
}

impl Connections {
    /// Tells the oldest connection with no request in progress to close; `false` when all
    /// are busy (or already closing). It stays counted until its task ends.
    fn evict_oldest_idle(&mut self) -> bool {
        let victim = self
            .open
            .values_mut()
            .find(|e| !e.closing && e.in_flight.load(Ordering::Acquire) == 0);
        match victim {
            Some(entry) => {
                entry.closing = true;
                entry.close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Waits until the connections holding a descriptor (evicted ones included, until their
/// tasks have closed them) are within `max`, so that accepting cannot run out of descriptors.
async fn wait_for_room(connections: &Mutex<Connections>, closed: &Notify, max: usize) {
    loop {
        // Registered before the check, so a close in between is not missed.
        let notified = closed.notified();
        if lock(connections).open.len() <= max {
            return;
        }
        notified.await;
    }
}

/// Accepts connections until the listener fails for good; each connection runs on its own task.
pub async fn serve(listener: TcpListener, router: Router, limits: Limits) -> io::Result<()> {
    let connections = Arc::new(Mutex::new(Connections::default()));
    // Told whenever a connection's task has ended and its descriptor is closed.
    let closed = Arc::new(Notify::new());
    tokio::spawn(return_freed_memory(connections.clone()));
    tracing::info!(
        max_connections = limits.max_connections,
        header_read_timeout = ?limits.header_read_timeout,
        write_stall_timeout = ?limits.write_stall_timeout,
        "HTTP connection limits"
    );
    loop {
        // An evicted connection keeps its descriptor until its task has run: accepting on
        // before it did would go past the descriptor limit under a flood of new connections,
        // and every accept would then fail (a scrape waiting behind them too).
        wait_for_room(&connections, &closed, limits.max_connections).await;
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) if is_transient(&e) => {
                // Out of descriptors or a connection reset before it was accepted: wait for a
                // connection to close (at most 50 ms) instead of spinning.
                tracing::warn!("accept failed: {e}");
                let _ = tokio::time::timeout(Duration::from_millis(50), closed.notified()).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        let admitted = {
            let mut conns = lock(&connections);
            conns.open.len() < limits.max_connections || conns.evict_oldest_idle()
        };
        if !admitted {
            tokio::spawn(refuse(stream));
            continue;
        }
        let in_flight = Arc::new(AtomicUsize::new(0));
        let close = Arc::new(Notify::new());
        let id = {
            let mut conns = lock(&connections);
            let id = conns.next_id;
            conns.next_id += 1;
            conns.open.insert(
                id,
                Entry {
                    in_flight: in_flight.clone(),
                    close: close.clone(),
                    closing: false,
                },
            );
            id
        };
        let connections = connections.clone();
        let closed = closed.clone();
        let router = router.clone();
        tokio::spawn(async move {
            // Takes the stream: its descriptor is closed when this returns.
            serve_connection(stream, peer, router, limits, in_flight, close).await;
            lock(&connections).open.remove(&id);
            closed.notify_waiters();
        });
    }
}

/// Connections that must have closed since the last peak before freed memory is returned.
const TRIM_AFTER_CLOSED: usize = 64;

/// Once a second: when the open connections fell by [`TRIM_AFTER_CLOSED`] or more from their
/// peak, asks the allocator to give its free pages back to the system (glibc's `malloc_trim`;
/// other allocators return memory on their own). Connection buffers are tens of KiB each, and
/// glibc keeps freed ones in its per-thread arenas: after 4,000 stalled connections closed, the
/// server stayed at 122 MiB (baseline 14 MiB) without this, and went back to 18 MiB with it.
async fn return_freed_memory(connections: Arc<Mutex<Connections>>) {
    let mut peak = 0;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        let open = lock(&connections).open.len();
        peak = peak.max(open);
        if peak - open >= TRIM_AFTER_CLOSED {
            trim_heap();
            peak = open;
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim_heap() {
    // SAFETY: `malloc_trim` takes no pointer and has no precondition: it only returns to the
    // system memory glibc's allocator holds free, under each arena's own lock, so it is sound
    // from any thread, while other threads allocate.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim_heap() {}

fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    ) || matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// Every connection is busy: say so and close.
async fn refuse(mut stream: TcpStream) {
    let reply = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n\
                  content-length: 29\r\nconnection: close\r\n\r\ntoo many connections, retry\r\n";
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(reply)).await;
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    limits: Limits,
    in_flight: Arc<AtomicUsize>,
    close: Arc<Notify>,
) {
    let _ = stream.set_nodelay(true);
    let io = TokioIo::new(StallGuard::new(stream, limits.write_stall_timeout));
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let guard = InFlight::enter(in_flight.clone());
        let router = router.clone();
        async move {
            let response = router.oneshot(request.map(Body::new)).await;
            response.map(|r| {
                r.map(|body| {
                    Body::new(TrackedBody {
                        body,
                        _guard: guard,
                    })
                })
            })
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(MAX_HEAD_BYTES)
        .serve_connection(io, service);
    tokio::select! {
        result = conn => {
            if let Err(e) = result {
                tracing::debug!(%peer, "connection closed: {e}");
            }
        }
        () = close.notified() => {
            tracing::debug!(%peer, "connection closed to make room for a new one");
        }
    }
}

/// Counts a request as in progress until its response body is written or dropped.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn enter(counter: Arc<AtomicUsize>) -> Self {
        counter.fetch_add(1, Ordering::AcqRel);
        InFlight(counter)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that keeps its request counted as in progress.
struct TrackedBody {
    body: Body,
    _guard: InFlight,
}

impl hyper::body::Body for TrackedBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A socket whose writes fail once the peer has accepted no byte for `limit`.
pub struct StallGuard {
    stream: TcpStream,
    limit: Duration,
    /// Armed while a write is blocked; reset (not reallocated) for each blocked write.
    deadline: Pin<Box<Sleep>>,
    armed: bool,
}

impl StallGuard {
    fn new(stream: TcpStream, limit: Duration) -> Self {
        StallGuard {
            stream,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
            armed: false,
        }
    }

    /// Called when a write made no progress: starts the clock, or fails once it ran out.
    fn poll_stalled(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        if !self.armed {
            self.armed = true;
            let at = tokio::time::Instant::now() + self.limit;
            self.deadline.as_mut().reset(at);
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(
                io::ErrorKind::TimedOut,
                "the peer accepted no response byte within the write-stall timeout",
            )),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progressed<T>(
        &mut self,
        result: Poll<io::Result<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<T>> {
        match result {
            Poll::Ready(r) => {
                self.armed = false;
                Poll::Ready(r)
            }
            Poll::Pending => self.poll_stalled(cx).map(Err),
        }
    }
}

impl AsyncRead for StallGuard {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for StallGuard {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.progressed(result, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.progressed(result, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.stream).poll_flush(cx);
        self.progressed(result, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.progressed(result, cx)
    }
}
