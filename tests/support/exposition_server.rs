//! A registry served over real HTTP on a loopback port, for the tests a real Prometheus scrapes.
//!
//! Each format has its own path and a fixed `Content-Type` ([`TEXT_PATH`], [`OPENMETRICS_PATH`],
//! and `PROTOBUF_PATH` with the `protobuf` feature),
//! whatever the scraper's `Accept` header asks for: Prometheus prefers OpenMetrics, so a
//! negotiating `/metrics` would never let it read the classic text. The `Accept` headers the
//! scraper sent are kept, for the test to check what negotiation would have picked.
//!
//! One request per connection (the server closes it after the response), handled one at a time
//! on a thread of its own, which dropping the server stops.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use metric_handles::ExpositionFormat;
use metric_handles::Registry;

/// Serves the Prometheus text format 0.0.4.
pub const TEXT_PATH: &str = "/metrics/text";
/// Serves OpenMetrics text 1.0.0.
pub const OPENMETRICS_PATH: &str = "/metrics/openmetrics";
/// Serves the Prometheus protobuf format.
pub const PROTOBUF_PATH: &str = "/metrics/protobuf";

/// The server; dropping it stops the thread and closes the port.
pub struct ExpositionServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    seen: Arc<Seen>,
    thread: Option<JoinHandle<()>>,
}

/// The negotiation headers of every request so far, in order (requests without one left out).
#[derive(Default)]
struct Seen {
    accept: Mutex<Vec<String>>,
    accept_encoding: Mutex<Vec<String>>,
}

impl ExpositionServer {
    /// Serves `registry` on a free loopback port.
    pub fn start(registry: Registry) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local addr");
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Seen::default());
        let thread = {
            let (stop, seen) = (Arc::clone(&stop), Arc::clone(&seen));
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    // A connection that fails or sends garbage is the client's problem: the
                    // scraper reports it, and the test reads that report.
                    if let Ok(stream) = stream {
                        let _ = respond(stream, &registry, &seen);
                    }
                }
            })
        };
        ExpositionServer {
            addr,
            stop,
            seen,
            thread: Some(thread),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The `Accept` header of every request so far, in order (requests without one are left out).
    pub fn accept_headers(&self) -> Vec<String> {
        self.seen.accept.lock().expect("not poisoned").clone()
    }

    /// The `Accept-Encoding` header of every request so far, in order.
    pub fn accept_encoding_headers(&self) -> Vec<String> {
        self.seen
            .accept_encoding
            .lock()
            .expect("not poisoned")
            .clone()
    }
}

impl Drop for ExpositionServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the blocked `accept`, which then sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads one request's head and answers it: the registry in the path's format, or 404.
fn respond(mut stream: TcpStream, registry: &Registry, seen: &Seen) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let head = read_head(&mut stream)?;
    let mut lines = head.split("\r\n");
    let path = lines
        .next()
        .and_then(|request_line| request_line.split(' ').nth(1))
        .unwrap_or("");
    for (name, value) in lines.filter_map(|line| line.split_once(':')) {
        let list = match name.trim().to_ascii_lowercase().as_str() {
            "accept" => &seen.accept,
            "accept-encoding" => &seen.accept_encoding,
            _ => continue,
        };
        list.lock()
            .expect("not poisoned")
            .push(value.trim().to_owned());
    }
    let format = match path {
        TEXT_PATH => Some(ExpositionFormat::PrometheusText),
        OPENMETRICS_PATH => Some(ExpositionFormat::OpenMetrics),
        PROTOBUF_PATH => Some(ExpositionFormat::PrometheusProtobuf),
        _ => None,
    };
    let mut body = Vec::new();
    let (status, content_type) = match format {
        Some(format) => {
            format
                .encode_into(registry, &mut body)
                .expect("the registry encodes");
            ("200 OK", format.content_type())
        }
        None => ("404 Not Found", "text/plain"),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)?;
    stream.flush()
}

/// The request line and headers, up to the blank line (a GET has no body to read).
fn read_head(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf)?;
        if n == 0 || head.len() > 64 * 1024 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        head.extend_from_slice(&buf[..n]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}
