//! Per-operation CPU time of the per-token ITL record, measured with the thread's own CPU
//! clock (`/proc/thread-self/schedstat`: nanoseconds on a CPU) instead of the wall clock, so
//! that figures stay meaningful on a machine shared with other work, where criterion's wall
//! times are inflated by every time slice spent waiting. Rounds alternate between the
//! implementations; the median round is printed. Linux only.
//!
//! Usage: cpu-time [ITERATIONS_PER_ROUND [ID]] (default 20,000,000, every implementation;
//! with an ID, only that one, e.g. to profile it), from
//! `cargo run --release --manifest-path benches/Cargo.toml --bin cpu-time`.

use metric_handles_benches::itl::{Histograms, IDS};

const ROUNDS: usize = 7;

/// Nanoseconds this thread has spent on a CPU.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn main() {
    let iterations: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000_000);
    let only = std::env::args().nth(2);
    let histograms = Histograms::new();
    let mut rounds: Vec<Vec<f64>> = vec![Vec::new(); IDS.len()];
    for _ in 0..ROUNDS {
        for (id, times) in IDS.iter().zip(&mut rounds) {
            if only.as_deref().is_some_and(|only| only != *id) {
                continue;
            }
            let (Some(start), ()) = (cpu_ns(), histograms.record(id, iterations)) else {
                eprintln!("cpu-time: /proc/thread-self/schedstat is not readable");
                std::process::exit(2);
            };
            let end = cpu_ns().unwrap_or(start);
            times.push((end - start) as f64 / iterations as f64);
        }
    }
    let local = median(&mut rounds[0]);
    println!(
        "itl_record_1t, CPU time per record, median of {ROUNDS} alternated rounds of {iterations}:"
    );
    for (id, times) in IDS.iter().zip(&mut rounds) {
        if times.is_empty() {
            continue;
        }
        let m = median(times);
        println!("{id:<18} {m:>7.2} ns   local / this = {:.2}", local / m);
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}
