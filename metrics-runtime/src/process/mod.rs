//! The process collector: CPU, memory, file descriptors, threads and start time of the
//! running process, read from Linux's `/proc` at each scrape.
//!
//! The families carry client_golang's names, units and help texts (its
//! `prometheus/process_collector.go`), which the Python client and vLLM's Python server export
//! too, so dashboards built on them work unchanged; `process_threads` is the Rust `prometheus`
//! crate's:
//!
//! | family | type | from |
//! |---|---|---|
//! | `process_cpu_seconds_total` | counter | `stat` fields 14 and 15 (user and system time) |
//! | `process_resident_memory_bytes` | gauge | `stat` field 24 times the page size |
//! | `process_virtual_memory_bytes` | gauge | `stat` field 23 |
//! | `process_open_fds` | gauge | the entries of `fd/` |
//! | `process_max_fds` | gauge | the soft `Max open files` limit of `limits` |
//! | `process_start_time_seconds` | gauge | `stat` field 22 after the `btime` of `/proc/stat` |
//! | `process_threads` | gauge | `stat` field 20 |
//!
//! Each file is read once per scrape. A file that is missing or a field that does not parse
//! (another kernel, another system than Linux, an `unlimited` limit) leaves that family out of
//! the scrape; it never fails the scrape and never panics.
//!
//! ```
//! use metric_handles::process::ProcessCollector;
//! use metric_handles::{ExpositionFormat, Registry};
//!
//! let mut registry = Registry::default();
//! ProcessCollector::register(&mut registry);
//! let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
//! # #[cfg(target_os = "linux")]
//! assert!(text.contains("# TYPE process_cpu_seconds_total counter"));
//! ```

mod procfs;

use std::fmt;
use std::path::Path;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Unit;

use crate::registry::{RegistrationError, Registry};
use procfs::ProcDir;

/// A collector of the running process's figures (see the [module](self) documentation).
#[derive(Clone, Debug, Default)]
pub struct ProcessCollector {
    dir: ProcDir,
}

/// One scrape's figures, in the families' units; `None` where `/proc` had no readable value.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Figures {
    cpu_seconds: Option<f64>,
    resident_bytes: Option<u64>,
    virtual_bytes: Option<u64>,
    open_fds: Option<u64>,
    max_fds: Option<u64>,
    start_time_seconds: Option<f64>,
    threads: Option<u64>,
}

impl ProcessCollector {
    /// The collector of this process (`/proc/self`).
    pub fn new() -> Self {
        Self::default()
    }

    /// The collector of process `pid`, as mounted under `proc_root` (`/proc` on Linux):
    /// another process's figures, or a copy of `/proc` in a test.
    pub fn for_process(proc_root: impl AsRef<Path>, pid: u32) -> Self {
        ProcessCollector {
            dir: ProcDir::new(proc_root.as_ref(), &pid.to_string()),
        }
    }

    /// Registers the collector of this process in `registry` (under its prefix and const
    /// labels, like any family).
    ///
    /// # Panics
    ///
    /// If a `process_*` name is taken (the collector registered twice, say);
    /// [`try_register`](Self::try_register) returns the error instead.
    #[track_caller]
    pub fn register(registry: &mut Registry) {
        registry.register_collector(Box::new(ProcessCollector::new()));
    }

    /// [`register`](Self::register), returning a clash instead of panicking.
    pub fn try_register(registry: &mut Registry) -> Result<(), RegistrationError> {
        registry.try_register_collector(Box::new(ProcessCollector::new()))
    }

    /// Reads every figure once.
    fn read(&self) -> Figures {
        let stat = self.dir.stat();
        let auxv = self.dir.auxv();
        let ticks = auxv.ticks_per_second;
        let per_second = |t: u64| ticks.map(|hz| t as f64 / hz as f64);
        Figures {
            cpu_seconds: stat.cpu_ticks.and_then(per_second),
            resident_bytes: stat
                .resident_pages
                .zip(auxv.page_size)
                .and_then(|(pages, size)| pages.checked_mul(size)),
            virtual_bytes: stat.virtual_bytes,
            open_fds: self.dir.open_fds(),
            max_fds: self.dir.max_open_files(),
            start_time_seconds: stat
                .start_ticks
                .and_then(per_second)
                .zip(self.dir.boot_time())
                .map(|(after_boot, boot)| boot as f64 + after_boot),
            threads: stat.threads,
        }
    }
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let figures = self.read();
        if let Some(seconds) = figures.cpu_seconds {
            let counter = ConstCounter::new(seconds);
            let metric = encoder.encode_descriptor(
                "process_cpu",
                "Total user and system CPU time spent in seconds.",
                Some(&Unit::Seconds),
                counter.metric_type(),
            )?;
            counter.encode(metric)?;
        }
        let gauges: [(&str, &str, Option<Unit>, Option<f64>); 6] = [
            (
                "process_resident_memory",
                "Resident memory size in bytes.",
                Some(Unit::Bytes),
                figures.resident_bytes.map(|b| b as f64),
            ),
            (
                "process_virtual_memory",
                "Virtual memory size in bytes.",
                Some(Unit::Bytes),
                figures.virtual_bytes.map(|b| b as f64),
            ),
            (
                "process_open_fds",
                "Number of open file descriptors.",
                None,
                figures.open_fds.map(|n| n as f64),
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors.",
                None,
                figures.max_fds.map(|n| n as f64),
            ),
            (
                "process_start_time",
                "Start time of the process since unix epoch in seconds.",
                Some(Unit::Seconds),
                figures.start_time_seconds,
            ),
            (
                "process_threads",
                "Number of OS threads in the process.",
                None,
                figures.threads.map(|n| n as f64),
            ),
        ];
        for (name, help, unit, value) in gauges {
            let Some(value) = value else { continue };
            let gauge = ConstGauge::new(value);
            let metric =
                encoder.encode_descriptor(name, help, unit.as_ref(), gauge.metric_type())?;
            gauge.encode(metric)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ExpositionFormat;

    #[test]
    fn a_process_without_proc_files_exports_no_family_and_the_scrape_succeeds() {
        let mut registry = Registry::default();
        registry.register_collector(Box::new(ProcessCollector::for_process(
            "/nonexistent-proc",
            1,
        )));
        assert_eq!(
            ExpositionFormat::PrometheusText.encode(&registry).unwrap(),
            ""
        );
        assert_eq!(
            ExpositionFormat::OpenMetrics.encode(&registry).unwrap(),
            "# EOF\n"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_every_figure() {
        let figures = ProcessCollector::new().read();
        assert!(figures.cpu_seconds.is_some_and(|s| s >= 0.0));
        assert!(figures.resident_bytes.is_some_and(|b| b > 0));
        assert!(figures.virtual_bytes >= figures.resident_bytes);
        assert!(figures.open_fds.is_some_and(|n| n >= 3));
        assert!(figures.threads.is_some_and(|n| n >= 1));
        assert!(figures.start_time_seconds.is_some_and(|s| s > 1.0e9));
    }

    #[test]
    fn registering_twice_is_refused() {
        let mut registry = Registry::default();
        ProcessCollector::register(&mut registry);
        #[cfg(target_os = "linux")]
        assert!(ProcessCollector::try_register(&mut registry)
            .unwrap_err()
            .to_string()
            .contains("process_cpu_seconds"));
    }
}
