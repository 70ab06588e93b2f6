//! Helpers for the tests that run the `frontend` example: building and starting it, a
//! minimal HTTP client, a parser for the text exposition, and a process guard.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Builds the example once per test process (a no-op when `cargo test` already built it) and
/// returns its path, as cargo reports it, so a custom target directory or profile is honoured.
pub fn frontend_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args([
            "build",
            "--quiet",
            "--example",
            "frontend",
            "--message-format=json",
        ])
        .args(["--manifest-path", manifest])
        .stderr(Stdio::inherit());
        if !cfg!(debug_assertions) {
            cmd.arg("--release");
        }
        let out = cmd.output().expect("run cargo build --example frontend");
        assert!(
            out.status.success(),
            "cargo build --example frontend failed"
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|msg| msg["target"]["name"] == "frontend")
            .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
            .expect("cargo reported no executable for the frontend example")
    })
    .clone()
}

/// Flags that switch every source of randomness off: each request then generates exactly
/// `--max-tokens` tokens and finishes with `length`, on engines that never sleep.
pub const ZERO_RATES: &[&str] = &[
    "--abort-rate=0",
    "--preemption-rate=0",
    "--prefix-cache-hit-rate=0",
    "--spec-decode-tokens=0",
    "--stop-rate=0",
    "--error-rate=0",
    "--churn-interval=0",
    "--sleep-interval=0",
];

/// Runs `frontend --print-metrics ARGS` to completion (bounded) and returns its output.
pub fn print_metrics(args: &[&str]) -> Output {
    let mut child = Command::new(frontend_binary())
        .arg("--print-metrics")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the frontend example");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let guard = ChildGuard::new("frontend", child);
    // One reader per pipe: neither can fill up and stall the child while the other is read.
    let (err_tx, err_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut err = Vec::new();
        let _ = stderr.read_to_end(&mut err);
        let _ = err_tx.send(err);
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        let _ = tx.send(out);
    });
    let stdout = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("frontend --print-metrics did not finish within 120 s");
    let stderr = err_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("frontend stderr did not close");
    let status = guard.wait(Duration::from_secs(10));
    assert!(
        status.success(),
        "frontend {args:?} failed: {status}\n{}",
        String::from_utf8_lossy(&stderr)
    );
    Output {
        status,
        stdout,
        stderr,
    }
}

/// Kills and reaps the process when dropped, so no test leaves one behind, even on panic.
pub struct ChildGuard {
    name: &'static str,
    child: Option<Child>,
}

impl ChildGuard {
    pub fn new(name: &'static str, child: Child) -> Self {
        ChildGuard {
            name,
            child: Some(child),
        }
    }

    pub fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("child present until dropped")
    }

    /// Waits (bounded) for the process to exit on its own; kills it past the deadline.
    pub fn wait(mut self, timeout: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + timeout;
        let mut child = self.child.take().expect("child present");
        loop {
            if let Some(status) = child.try_wait().expect("wait for child") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{} did not exit within {timeout:?}", self.name);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts the frontend serving on a free loopback port; returns the guard and the address it
/// printed. Its stdout lines keep flowing into the returned receiver.
pub fn serve_frontend(args: &[&str]) -> (ChildGuard, SocketAddr, mpsc::Receiver<String>) {
    let mut cmd = Command::new(frontend_binary());
    cmd.args(["--listen", "127.0.0.1:0"]).args(args);
    serve(cmd)
}

/// [`serve_frontend`] under a soft limit of `fds` open file descriptors (`RLIMIT_NOFILE`, set by
/// the shell's `ulimit -n` before it execs the frontend).
pub fn serve_frontend_with_fd_limit(
    fds: u32,
    args: &[&str],
) -> (ChildGuard, SocketAddr, mpsc::Receiver<String>) {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &format!("ulimit -n {fds} && exec \"$0\" \"$@\"")])
        .arg(frontend_binary())
        .args(["--listen", "127.0.0.1:0"])
        .args(args);
    serve(cmd)
}

fn serve(mut cmd: Command) -> (ChildGuard, SocketAddr, mpsc::Receiver<String>) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the frontend example");
    let stdout = child.stdout.take().expect("piped stdout");
    let guard = ChildGuard::new("frontend", child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the frontend printed no URL within 30 s");
    let addr = line
        .strip_prefix("serving metrics on http://")
        .and_then(|rest| rest.strip_suffix("/metrics"))
        .and_then(|addr| addr.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line from the frontend: {line:?}"));
    (guard, addr, rx)
}

/// A response of [`http_get`].
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A plain HTTP/1.0 GET (no chunked encoding, the server closes the connection), with
/// timeouts. Enough for loopback tests, without an HTTP client's compile time.
pub fn http_get(addr: SocketAddr, path: &str, accept: Option<&str>) -> std::io::Result<Response> {
    let headers: Vec<(&str, &str)> = accept.map(|a| ("Accept", a)).into_iter().collect();
    let raw = http_request(addr, "GET", path, &headers)?;
    Ok(Response {
        status: raw.status,
        headers: raw.headers,
        body: String::from_utf8_lossy(&raw.body).into_owned(),
    })
}

/// A response whose body is kept as bytes (a gzip body, say).
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// An HTTP/1.0 request with `method` and `headers`, as [`http_get`] sends it.
pub fn http_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<RawResponse> {
    let timeout = Duration::from_secs(10);
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let mut request = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, "no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let body = raw[end + 4..].to_vec();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, "bad status line"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Ok(RawResponse {
        status,
        headers,
        body,
    })
}

/// Percent-encodes a query-string value.
pub fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// One sample line of a text exposition.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// The samples of a text exposition (Prometheus 0.0.4 or OpenMetrics), comments skipped.
pub fn parse_exposition(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect("sample has a value");
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => (name, parse_labels(rest.trim_end_matches('}'))),
                None => (series, BTreeMap::new()),
            };
            Sample {
                name: name.to_owned(),
                labels,
                value: value.parse().unwrap_or(f64::NAN),
            }
        })
        .collect()
}

fn parse_labels(s: &str) -> BTreeMap<String, String> {
    // Label values in these tests never contain `",`; a full unescaper is not needed.
    s.split("\",")
        .filter(|kv| !kv.is_empty())
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.trim_matches('"').to_owned()))
        .collect()
}

/// Query helpers over parsed samples.
pub trait Samples {
    /// The sum of `name` over the samples whose labels include every `(key, value)` of `filter`;
    /// panics when there is no such sample, so a missing metric is never read as 0.
    fn sum(&self, name: &str, filter: &[(&str, &str)]) -> f64;
    /// Every distinct value of label `key` on samples of `name`.
    fn label_values(&self, name: &str, key: &str) -> Vec<String>;
}

impl Samples for [Sample] {
    fn sum(&self, name: &str, filter: &[(&str, &str)]) -> f64 {
        let matching: Vec<&Sample> = self
            .iter()
            .filter(|s| s.name == name)
            .filter(|s| {
                filter
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
            })
            .collect();
        assert!(
            !matching.is_empty(),
            "no sample {name} with labels {filter:?} in the exposition"
        );
        matching.iter().map(|s| s.value).sum()
    }

    fn label_values(&self, name: &str, key: &str) -> Vec<String> {
        let mut values: Vec<String> = self
            .iter()
            .filter(|s| s.name == name)
            .filter_map(|s| s.labels.get(key).cloned())
            .collect();
        values.sort();
        values.dedup();
        values
    }
}

/// A workload report written by `frontend --report FILE`.
pub fn read_report(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("reading the report {}: {e}", path.display()));
    serde_json::from_str(&text).expect("the report is JSON")
}

/// A fresh directory under the target's tmp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = base.join(format!("{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
