//! A simulated LLM serving frontend exporting vLLM's metric set through metric-handles.
//!
//! E engine cores (threads, no GPU) schedule requests with a KV-block budget, prefill and
//! decode them, hit the prefix cache, get preempted, decode speculatively and see clients
//! abort; engines join and leave mid-run. The frontend serves an OpenAI-compatible API
//! (`/v1/completions`, streamed or not, `/v1/models`, `/health`) and `/metrics`; its built-in
//! clients send their requests over real HTTP. It records every step's `SchedulerStats`, follows
//! every request with a `RequestMetricsTracker`, and counts HTTP requests by route.
//!
//! What a frontend author copies is at the top level: registration (`main.rs`), recording
//! (`frontend.rs`: scheduler stats and iteration tokens per engine output batch; `session.rs`:
//! one `RequestMetricsTracker` per request; `lora.rs`: LoRA adapters in flight) and serving
//! (`routes.rs`, `openai.rs`, `server.rs`: the API, `/metrics` and the HTTP layer). `sim/` is
//! the stand-in for real engines and clients: engine cores, KV cache, connectors, request
//! plans, the built-in load clients and the report they keep.
//!
//! ```text
//! cargo run --release --example frontend                  # serve on 127.0.0.1:9400 until Ctrl-C
//! cargo run --release --example frontend -- --help
//! cargo run --release --example frontend -- --print-metrics --requests 100 --speed 50
//! ```

mod cli;
mod frontend;
mod lora;
mod openai;
mod routes;
mod server;
mod session;
mod sim;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use metric_handles::histogram::NativeConfig;
use metric_handles::http::layer::HttpMetricsLayer;
use metric_handles::http::HttpMetrics;
use metric_handles::process::ProcessCollector;
use metric_handles::serve::{MetricsHandler, ScrapeMetrics};
use metric_handles::ExpositionFormat;
use metric_handles::Registry;

use crate::cli::Args;
use crate::routes::AppState;
use crate::sim::Simulation;
use metric_handles::vllm::{StatsLogger, VllmMetrics, VllmMetricsConfig};

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(message) = args.validate() {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();

    let mut registry = Registry::default();
    let metrics = VllmMetrics::register(
        &mut registry,
        VllmMetricsConfig {
            model_name: args.model_name.clone(),
            num_speculative_tokens: args.spec_decode_tokens as usize,
            max_model_len: args.max_model_len,
            show_hidden_metrics_for_version: args.show_hidden_metrics_for_version.clone(),
            native_latency_histograms: args.native_histograms.then(NativeConfig::default),
        },
    );
    let http_metrics = HttpMetricsLayer::new(HttpMetrics::register(&mut registry));
    let scrape_metrics = ScrapeMetrics::register(&mut registry);
    // The process's own figures (CPU time, memory, descriptors, threads, start time), which
    // vLLM's Python server exports too (through prometheus_client's process collector).
    ProcessCollector::register(&mut registry);
    let registry = Arc::new(registry);
    let metrics_handler = MetricsHandler::new(registry.clone()).with_metrics(&scrape_metrics);
    let logger = StatsLogger::new(&metrics, Duration::from_secs_f64(args.log_interval));
    spawn_stats_logger(logger, args.log_interval);

    let sim = Simulation::new(args.clone(), metrics);
    let state = Arc::new(AppState {
        registry,
        sim,
        started: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        body_read_timeout: Duration::from_secs_f64(args.body_read_timeout),
    });
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: starting the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(run(&args, state, http_metrics, metrics_handler));
    // Do not wait for the workload to drain: requests in flight are abandoned, as when a real
    // frontend is stopped.
    runtime.shutdown_background();
    code
}

/// vLLM's periodic stats line, on stderr.
fn spawn_stats_logger(mut logger: StatsLogger, interval: f64) {
    let interval = Duration::from_secs_f64(interval);
    let _ = std::thread::Builder::new()
        .name("stats-logger".into())
        .spawn(move || {
            // `StatsLogger::new` took the baseline; the first line covers the first interval.
            loop {
                std::thread::sleep(interval);
                logger.log(Instant::now());
            }
        });
}

fn write_report(args: &Args, sim: &Simulation) -> Result<(), String> {
    let Some(path) = &args.report else {
        return Ok(());
    };
    // Write then rename, so a reader polling for the file never sees half of it.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, sim.report_json())
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("writing the report to {}: {e}", path.display()))
}

fn print_exposition(registry: &Registry) -> ExitCode {
    match ExpositionFormat::PrometheusText.encode(registry) {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(_) => {
            eprintln!("error: encoding the exposition failed");
            ExitCode::FAILURE
        }
    }
}

/// The address the built-in clients connect to: the server's, on loopback when it listens on
/// every interface.
fn client_target(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => (Ipv4Addr::LOCALHOST, addr.port()).into(),
        IpAddr::V6(ip) if ip.is_unspecified() => (Ipv6Addr::LOCALHOST, addr.port()).into(),
        _ => addr,
    }
}

async fn run(
    args: &Args,
    state: Arc<AppState>,
    http_metrics: HttpMetricsLayer,
    metrics_handler: MetricsHandler,
) -> ExitCode {
    // --print-metrics serves only its own clients, on a free loopback port.
    let listen = if args.print_metrics {
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0))
    } else {
        args.listen
    };
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("error: cannot listen on {listen}: {e} (try --listen 127.0.0.1:0)");
            return ExitCode::FAILURE;
        }
    };
    let addr = listener.local_addr().unwrap_or(listen);
    let limits = server::Limits {
        header_read_timeout: Duration::from_secs_f64(args.header_read_timeout),
        write_stall_timeout: Duration::from_secs_f64(args.write_stall_timeout),
        max_connections: args.max_connections as usize,
    }
    // Each built-in client holds one socket of its own besides its server-side connection.
    .within_fd_limit(u64::from(args.concurrency));
    let sim = state.sim.clone();
    let registry = state.registry.clone();
    let server = tokio::spawn(server::serve(
        listener,
        routes::router(state, http_metrics, &metrics_handler),
        limits,
    ));
    sim.start_engines();
    if !args.print_metrics {
        // Tests read this line to find the port when started with --listen 127.0.0.1:0.
        println!("serving metrics on http://{addr}/metrics");
        let _ = std::io::stdout().flush();
        tracing::info!(
            engines = args.engines,
            concurrency = args.concurrency,
            speed = args.speed,
            "simulated frontend started (OpenAI API on http://{addr}/v1); Ctrl-C to stop"
        );
    }
    let workload = sim.start_clients(client_target(addr));
    let finished = {
        let sim = sim.clone();
        let args = args.clone();
        tokio::task::spawn_blocking(move || {
            let _ = workload.join();
            write_report(&args, &sim)
        })
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {
            tracing::info!("stopping");
            sim.stop();
            ExitCode::SUCCESS
        }
        result = server => {
            eprintln!("error: the HTTP server stopped: {result:?}");
            ExitCode::FAILURE
        }
        result = async { finished.await.unwrap_or_else(|e| Err(e.to_string())) }, if args.requests > 0 => {
            if let Err(message) = result {
                eprintln!("error: {message}");
                return ExitCode::FAILURE;
            }
            if args.print_metrics {
                return print_exposition(&registry);
            }
            println!("workload complete: {} requests; still serving /metrics until Ctrl-C", args.requests);
            let _ = std::io::stdout().flush();
            // The workload is done; keep serving the final values until Ctrl-C.
            let _ = tokio::signal::ctrl_c().await;
            ExitCode::SUCCESS
        }
    }
}
