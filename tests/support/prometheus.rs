//! A real Prometheus server for the end-to-end tests: started on a free loopback port with a
//! one-second scrape interval, and its HTTP API (instant queries, targets, target metadata).

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::demo::{http_get, url_encode, ChildGuard};
use super::external_tool;

/// `true` when `prometheus` and `promtool` are present; otherwise skips (or fails under
/// `.ci/run`).
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

/// One scrape job: `target`'s `metrics_path`, labelled `job="name"`.
pub struct ScrapeJob {
    pub name: &'static str,
    pub target: SocketAddr,
    pub metrics_path: &'static str,
}

/// Starts Prometheus in `dir` scraping every job once a second; returns it, once ready, and
/// its web address. Its log is `dir/prometheus.log`.
pub fn start(dir: &Path, jobs: &[ScrapeJob]) -> (ChildGuard, SocketAddr) {
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
    let web = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port");
    let log = std::fs::File::create(dir.join("prometheus.log")).expect("create log file");
    let child = Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address={web}"))
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

/// The `data` of a successful API answer at `path` (`None` on any failure, so callers can
/// poll).
pub fn api_data(prometheus: SocketAddr, path: &str) -> Option<serde_json::Value> {
    let response = http_get(prometheus, path, None).ok()?;
    let json: serde_json::Value = serde_json::from_str(&response.body).ok()?;
    (response.status == 200 && json["status"] == "success").then(|| json["data"].clone())
}

/// One instant query: the result vector as `(labels, value)` pairs.
pub fn query(prometheus: SocketAddr, promql: &str) -> Option<Vec<(serde_json::Value, f64)>> {
    let data = api_data(
        prometheus,
        &format!("/api/v1/query?query={}", url_encode(promql)),
    )?;
    data["result"]
        .as_array()?
        .iter()
        .map(|r| {
            let value = r["value"][1].as_str()?.parse::<f64>().ok()?;
            Some((r["metric"].clone(), value))
        })
        .collect()
}

/// `(family, type)` of every family the target of `job` last reported.
pub fn target_metadata(prometheus: SocketAddr, job: &str) -> Option<Vec<(String, String)>> {
    let selector = url_encode(&format!("{{job=\"{job}\"}}"));
    let data = api_data(
        prometheus,
        &format!("/api/v1/targets/metadata?match_target={selector}"),
    )?;
    let mut metadata: Vec<(String, String)> = data
        .as_array()?
        .iter()
        .map(|m| {
            let field = |key: &str| m[key].as_str().unwrap_or_default().to_owned();
            (field("metric"), field("type"))
        })
        .collect();
    metadata.sort();
    Some(metadata)
}
