//! A real Prometheus server for the end-to-end tests: started on a free port with a scrape
//! configuration of the test's jobs, and its HTTP API polled until what a test waits for is
//! stored.

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::demo::{http_get, url_encode, ChildGuard};
use super::external_tool;

/// `true` when the tools are present; otherwise skips (or fails under `.ci/run`).
pub fn tools_or_skip(test: &str) -> bool {
    let missing: Vec<&str> = ["prometheus", "promtool"]
        .into_iter()
        .filter(|tool| !external_tool::runs(tool, &["--version"]))
        .collect();
    external_tool::available_or_skip(
        missing.is_empty(),
        test,
        &missing.join(" and "),
        "Debian package prometheus",
    )
}

pub fn free_loopback_port() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local addr")
}

/// Polls `f` every 250 ms until it returns `Some`, at most `timeout`.
pub fn wait_for<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// One instant query; the result vector as `(labels, value)` pairs (`None` on any failure,
/// so callers can poll).
pub fn query(prometheus: SocketAddr, promql: &str) -> Option<Vec<(serde_json::Value, f64)>> {
    instant_query(prometheus, &format!("query={}", url_encode(promql)))
}

/// [`query`] evaluated at `time` (Unix seconds), so two servers can be asked about the same
/// instant.
pub fn query_at(
    prometheus: SocketAddr,
    promql: &str,
    time: f64,
) -> Option<Vec<(serde_json::Value, f64)>> {
    instant_query(
        prometheus,
        &format!("query={}&time={time:.3}", url_encode(promql)),
    )
}

fn instant_query(prometheus: SocketAddr, params: &str) -> Option<Vec<(serde_json::Value, f64)>> {
    let data = api_data(prometheus, &format!("/api/v1/query?{params}"))?;
    data["result"]
        .as_array()?
        .iter()
        .map(|r| {
            let value = r["value"][1].as_str()?.parse::<f64>().ok()?;
            Some((r["metric"].clone(), value))
        })
        .collect()
}

/// One scrape job of [`start_prometheus`]: `target`'s `metrics_path`, labelled `job="name"`.
pub struct ScrapeJob {
    pub name: &'static str,
    pub target: SocketAddr,
    pub metrics_path: &'static str,
}

/// Starts Prometheus scraping every job once a second; returns it, once ready, and its web
/// address.
pub fn start_prometheus(dir: &Path, jobs: &[ScrapeJob]) -> (ChildGuard, SocketAddr) {
    start_prometheus_with(dir, jobs, &[])
}

/// [`start_prometheus`] with extra command-line flags (`--enable-feature=...`).
pub fn start_prometheus_with(
    dir: &Path,
    jobs: &[ScrapeJob],
    flags: &[&str],
) -> (ChildGuard, SocketAddr) {
    let config = dir.join("prometheus.yml");
    let mut yaml = String::from(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
         scrape_configs:\n",
    );
    for job in jobs {
        yaml.push_str(&format!(
            "  - job_name: {}\n    metrics_path: {}\n    static_configs:\n      - targets: ['{}']\n",
            job.name, job.metrics_path, job.target
        ));
    }
    std::fs::write(&config, yaml).expect("write prometheus.yml");
    let web = free_loopback_port();
    let log = std::fs::File::create(dir.join("prometheus.log")).expect("create log file");
    let child = Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address={web}"))
        .args(flags)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start prometheus");
    let prometheus = ChildGuard::new("prometheus", child);
    wait_for("Prometheus to be ready", Duration::from_secs(30), || {
        http_get(web, "/-/ready", None)
            .ok()
            .filter(|r| r.status == 200)
    });
    (prometheus, web)
}

/// One `/api/v1/...` call's `data` (`None` on any failure, so callers can poll).
pub fn api_data(prometheus: SocketAddr, path: &str) -> Option<serde_json::Value> {
    let response = http_get(prometheus, path, None).ok()?;
    let json: serde_json::Value = serde_json::from_str(&response.body).ok()?;
    (response.status == 200 && json["status"] == "success").then(|| json["data"].clone())
}
