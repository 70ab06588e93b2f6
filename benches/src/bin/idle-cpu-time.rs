//! Per-record CPU time on a `Dynamic` counter family with and without an idle timeout,
//! measured with the thread's own CPU clock (`/proc/thread-self/schedstat`) in alternated
//! rounds, so that the figures stay meaningful on a machine shared with other work and no
//! implementation gains from running first. The median round is printed, with each pair's
//! ratio (with the timeout over without). Linux only.
//!
//! Usage: idle-cpu-time [ITERATIONS_PER_ROUND] (default 20,000,000), from
//! `cargo run --release --manifest-path benches/Cargo.toml --bin idle-cpu-time`.

use metric_handles_benches::idle::{IdleFamilies, IDS};

const ROUNDS: usize = 9;

/// Nanoseconds this thread has spent on a CPU.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000_000);
    let families = IdleFamilies::new();
    let mut rounds: Vec<Vec<f64>> = vec![Vec::new(); IDS.len()];
    for round in 0..ROUNDS {
        // Each pair in both orders, turn about.
        let mut order: Vec<usize> = (0..IDS.len()).collect();
        if round % 2 == 1 {
            order.swap(0, 1);
            order.swap(2, 3);
        }
        for i in order {
            let (Some(start), ()) = (cpu_ns(), families.record(IDS[i], iterations)) else {
                eprintln!("idle-cpu-time: /proc/thread-self/schedstat is not readable");
                std::process::exit(2);
            };
            let end = cpu_ns().unwrap_or(start);
            rounds[i].push((end - start) as f64 / iterations as f64);
        }
    }
    println!("idle_expiry_1t, CPU time per record, median of {ROUNDS} alternated rounds of {iterations}:");
    let medians: Vec<f64> = rounds.iter_mut().map(|times| median(times)).collect();
    for pair in [0, 2] {
        let (without, with) = (medians[pair], medians[pair + 1]);
        println!(
            "{:<22} {without:>7.2} ns   {:<22} {with:>7.2} ns   ratio {:.3}x",
            IDS[pair],
            IDS[pair + 1],
            with / without
        );
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}
