//! A simulated LLM serving frontend exporting vLLM's metric set through metric-handles.
//!
//! E engine cores (threads, no GPU) schedule requests with a KV-block budget, prefill and
//! decode them, hit the prefix cache, get preempted, decode speculatively and see clients
//! abort; engines join and leave mid-run. The frontend records every step's `SchedulerStats`
//! and follows every request with a `RequestMetricsTracker`, and serves `/metrics`.
//!
//! ```text
//! cargo run --release --example frontend                  # serve on 127.0.0.1:9400 until Ctrl-C
//! cargo run --release --example frontend -- --help
//! cargo run --release --example frontend -- --print-metrics --requests 100 --speed 50
//! ```

mod cli;
mod clock;
mod engine_sim;
mod frontend;
mod kv_cache;
mod plan;
mod recorders;
mod report;
mod rng;
mod server;
mod sim;
mod workload;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use metric_handles::ExpositionFormat;
use prometheus_client::registry::Registry;

use crate::cli::Args;
use crate::recorders::{StatsLogger, VllmMetrics, VllmMetricsConfig};
use crate::sim::Simulation;

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
        },
    );
    let registry = Arc::new(registry);
    let logger = StatsLogger::new(&metrics, Duration::from_secs_f64(args.log_interval));
    spawn_stats_logger(logger, args.log_interval);

    let sim = Simulation::new(args.clone(), metrics);
    if args.print_metrics {
        return print_metrics(&args, &sim, &registry);
    }
    serve(&args, sim, registry)
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

fn print_metrics(args: &Args, sim: &Arc<Simulation>, registry: &Registry) -> ExitCode {
    let _ = sim.start().join();
    if let Err(message) = write_report(args, sim) {
        eprintln!("error: {message}");
        return ExitCode::FAILURE;
    }
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

fn serve(args: &Args, sim: Arc<Simulation>, registry: Arc<Registry>) -> ExitCode {
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
    let code = runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(args.listen).await {
            Ok(listener) => listener,
            Err(e) => {
                eprintln!("error: cannot listen on {}: {e} (try --listen 127.0.0.1:0)", args.listen);
                return ExitCode::FAILURE;
            }
        };
        let addr = listener.local_addr().unwrap_or(args.listen);
        // Tests read this line to find the port when started with --listen 127.0.0.1:0.
        println!("serving metrics on http://{addr}/metrics");
        let _ = std::io::stdout().flush();
        tracing::info!(
            engines = args.engines,
            concurrency = args.concurrency,
            speed = args.speed,
            "simulated frontend started; Ctrl-C to stop"
        );
        let server = tokio::spawn(async move {
            axum::serve(listener, server::router(registry)).await
        });

        let workload = sim.start();
        let finished = {
            let sim = sim.clone();
            let args = args.clone();
            tokio::task::spawn_blocking(move || {
                let _ = workload.join();
                let result = write_report(&args, &sim);
                if result.is_ok() && args.requests > 0 {
                    println!("workload complete: {} requests; still serving /metrics until Ctrl-C", args.requests);
                    let _ = std::io::stdout().flush();
                }
                result
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
                // The workload is done; keep serving the final values until Ctrl-C.
                let _ = tokio::signal::ctrl_c().await;
                ExitCode::SUCCESS
            }
        }
    });
    // Do not wait for the workload to drain: requests in flight are abandoned, as when a real
    // frontend is stopped.
    runtime.shutdown_background();
    code
}
