//! vLLM's KV-connector families (NIXL, Mooncake store), registered as plug-in families.
//!
//! vLLM declares them with its connectors (`NixlPromMetrics` in
//! `vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py`,
//! `MooncakeStorePromMetrics` in `.../mooncake/store/metrics.py`) and its Rust frontend records
//! them from the `kv_connector_stats` of each `SchedulerStats`
//! (`rust/src/engine-core-client/src/metrics.rs`). Here they are described by
//! [`runtime_families!`](crate::runtime_families) (one field per family, from which [`NIXL_DESCRIPTORS`],
//! [`MOONCAKE_DESCRIPTORS`] and the registration follow) and registered in
//! [`RuntimeFamilies`], the way a third-party connector declares and registers its own: the same
//! macro, the same cached handles.

use std::sync::{Arc, OnceLock};

use crate::descriptor::{LabelAxis, MetricDescriptor};
use crate::family::{RuntimeFamilies, RuntimeFamily};
use crate::vllm::buckets::{
    MOONCAKE_OPERATION_TIME_BUCKETS, NIXL_BYTES_BUCKETS, NIXL_DESCRIPTORS_BUCKETS,
    NIXL_POST_TIME_BUCKETS, NIXL_XFER_TIME_BUCKETS,
};
use crate::vllm::engines::OverflowedEngines;
use crate::vllm::labels::EngineLabels;
use crate::vllm::types::connector_stats::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
use crate::vllm::values::non_negative;
use crate::{Buckets, Counter, Histogram, LabelEnum};

crate::__runtime_families! {
    register: claimed;
    /// The seven NIXL families: per engine, exported (at 0) from the engine's first sight.
    pub(crate) struct NixlFamilies<EngineLabels> {
        xfer_time: Histogram = (
            "vllm:nixl_xfer_time_seconds",
            "transfer_duration",
            "Histogram of transfer duration for NIXL KV Cache transfers",
        )
        .buckets(Buckets::Explicit(NIXL_XFER_TIME_BUCKETS))
        .with_computed(
            "Observes each `transfer_duration` of each `NixlStats` in `kv_connector_stats.nixl` \
            (negative values record 0). Registered through the plug-in family API; exported at \
            0 from the engine's first sight, as in vLLM.",
        ),
        post_time: Histogram = (
            "vllm:nixl_post_time_seconds",
            "post_duration",
            "Histogram of transfer post time for NIXL KV Cache transfers",
        )
        .buckets(Buckets::Explicit(NIXL_POST_TIME_BUCKETS))
        .with_computed(
            "Observes each `post_duration` of each `NixlStats` (negative values record 0).",
        ),
        bytes: Histogram = (
            "vllm:nixl_bytes_transferred",
            "bytes_transferred",
            "Histogram of bytes transferred per NIXL KV Cache transfers",
        )
        .buckets(Buckets::Explicit(NIXL_BYTES_BUCKETS))
        .with_computed("Observes each `bytes_transferred` of each `NixlStats`."),
        // vLLM's help text has the double space (two string literals joined in its source).
        descriptors: Histogram = (
            "vllm:nixl_num_descriptors",
            "num_descriptors",
            "Histogram of number of descriptors per NIXL  KV Cache transfers",
        )
        .buckets(Buckets::Explicit(NIXL_DESCRIPTORS_BUCKETS))
        .with_computed("Observes each `num_descriptors` of each `NixlStats`."),
        failed_transfers: Counter = (
            "vllm:nixl_num_failed_transfers",
            "num_failed_transfers",
            "Number of failed NIXL KV Cache transfers",
        )
        .with_computed(
            "Increased by every element of `num_failed_transfers` of each `NixlStats` \
            (saturating).",
        ),
        failed_notifications: Counter = (
            "vllm:nixl_num_failed_notifications",
            "num_failed_notifications",
            "Number of failed NIXL KV Cache notifications",
        )
        .with_computed(
            "Increased by every element of `num_failed_notifications` of each `NixlStats` \
            (saturating).",
        ),
        kv_expired_reqs: Counter = (
            "vllm:nixl_num_kv_expired_reqs",
            "num_kv_expired_reqs",
            "Number of requests that had their KV expire. NOTE: This metric is tracked on the P \
            instance",
        )
        .with_computed(
            "Increased by every element of `num_kv_expired_reqs` of each `NixlStats` \
            (saturating).",
        ),
    }
}

/// The seven NIXL families: per engine, exported (at 0) from the engine's first sight.
pub const NIXL_DESCRIPTORS: &[MetricDescriptor] = NixlFamilies::DESCRIPTORS;

/// The extra label keys of the Mooncake-store families.
pub const MOONCAKE_LABEL_KEYS: &[&str] = &["operation", "status"];

/// The Mooncake-store families' axis: their series are created by record, per
/// `operation` x `status` pair.
const MOONCAKE_AXIS: LabelAxis = LabelAxis::Dynamic {
    keys: MOONCAKE_LABEL_KEYS,
};

crate::__runtime_families! {
    register: claimed;
    /// The five Mooncake-store families, by `operation` x `status`: a series appears on the
    /// first record of its pair.
    pub(crate) struct MooncakeFamilies<EngineLabels> {
        time: Histogram = (
            "vllm:mooncake_store_operation_time_seconds",
            "duration_seconds",
            "Histogram of Mooncake store communication time",
        )
        .axis(MOONCAKE_AXIS)
        .buckets(Buckets::Explicit(MOONCAKE_OPERATION_TIME_BUCKETS))
        .with_computed(
            "For each record of each operation in `kv_connector_stats.mooncake`: observes \
            `duration_seconds` (negative values record 0) in the series {operation, record's \
            status}. A pair's five series are resolved through the plug-in family API on its \
            first record, then cached per engine: later records are an array index and atomics.",
        ),
        operations: Counter = (
            "vllm:mooncake_store_operation",
            "(one per record)",
            "Number of Mooncake store communication operations",
        )
        .axis(MOONCAKE_AXIS)
        .with_computed("+1 per Mooncake record, by operation and status."),
        keys: Counter = (
            "vllm:mooncake_store_operation_keys",
            "num_keys",
            "Number of Mooncake store keys touched by operations",
        )
        .axis(MOONCAKE_AXIS)
        .with_computed("Increased by each record's `num_keys`, by operation and status."),
        bytes: Counter = (
            "vllm:mooncake_store_operation_bytes",
            "num_bytes",
            "Number of bytes transferred by Mooncake store operations",
        )
        .axis(MOONCAKE_AXIS)
        .with_computed("Increased by each record's `num_bytes`, by operation and status."),
        failed_keys: Counter = (
            "vllm:mooncake_store_operation_failed_keys",
            "num_failed_keys",
            "Number of Mooncake store keys that failed in operations",
        )
        .axis(MOONCAKE_AXIS)
        .with_computed("Increased by each record's `num_failed_keys`, by operation and status."),
    }
}

/// The five Mooncake-store families, by `operation` x `status`: a series appears on the first
/// record of its pair.
pub const MOONCAKE_DESCRIPTORS: &[MetricDescriptor] = MooncakeFamilies::DESCRIPTORS;

/// The registered connector families.
pub(crate) struct ConnectorFamilies {
    nixl: NixlFamilies,
    mooncake: MooncakeFamilies,
    /// The lock that serialises engines' joins and leaves: a Mooncake pair is resolved under
    /// it, so it cannot be created for an engine that has left.
    overflowed_engines: Arc<OverflowedEngines>,
}

impl ConnectorFamilies {
    pub(crate) fn register(
        plugins: &RuntimeFamilies<EngineLabels>,
        overflowed_engines: Arc<OverflowedEngines>,
    ) -> Self {
        ConnectorFamilies {
            nixl: NixlFamilies::register_claimed(plugins),
            mooncake: MooncakeFamilies::register_claimed(plugins),
            overflowed_engines,
        }
    }

    /// An engine's connector handles: NIXL resolved now (as the engine joins, under the
    /// [`OverflowedEngines`] lock), Mooncake pairs on first use.
    pub(crate) fn resolve(&self, labels: &EngineLabels) -> ConnectorHandles {
        let one = |family: &RuntimeFamily<EngineLabels, Histogram>| family.resolve_common(labels);
        let count = |family: &RuntimeFamily<EngineLabels, Counter>| family.resolve_common(labels);
        let nixl = &self.nixl;
        ConnectorHandles {
            nixl: NixlHandles {
                xfer_time: one(&nixl.xfer_time),
                post_time: one(&nixl.post_time),
                bytes: one(&nixl.bytes),
                descriptors: one(&nixl.descriptors),
                failed_transfers: count(&nixl.failed_transfers),
                failed_notifications: count(&nixl.failed_notifications),
                kv_expired_reqs: count(&nixl.kv_expired_reqs),
            },
            mooncake: std::array::from_fn(|_| std::array::from_fn(|_| OnceLock::new())),
        }
    }

    #[cold]
    fn resolve_mooncake(
        &self,
        labels: &EngineLabels,
        operation: MooncakeOperation,
        status: MooncakeStatus,
    ) -> MooncakeHandles {
        let extra = [operation.label_value(), status.label_value()];
        let mooncake = &self.mooncake;
        MooncakeHandles {
            time: mooncake.time.resolve_declared(labels, &extra),
            operations: mooncake.operations.resolve_declared(labels, &extra),
            keys: mooncake.keys.resolve_declared(labels, &extra),
            bytes: mooncake.bytes.resolve_declared(labels, &extra),
            failed_keys: mooncake.failed_keys.resolve_declared(labels, &extra),
        }
    }
}

struct NixlHandles {
    xfer_time: Histogram,
    post_time: Histogram,
    bytes: Histogram,
    descriptors: Histogram,
    failed_transfers: Counter,
    failed_notifications: Counter,
    kv_expired_reqs: Counter,
}

struct MooncakeHandles {
    time: Histogram,
    operations: Counter,
    keys: Counter,
    bytes: Counter,
    failed_keys: Counter,
}

/// One engine's connector handles.
pub(crate) struct ConnectorHandles {
    nixl: NixlHandles,
    /// By operation, then status: resolved on the pair's first record; `None` once the engine
    /// left with the pair unresolved.
    mooncake: [[OnceLock<Option<MooncakeHandles>>; MooncakeStatus::VARIANTS.len()];
        MooncakeOperation::VARIANTS.len()],
}

impl ConnectorHandles {
    /// Records one step's connector telemetry. Durations below 0 record 0; NaN and +Inf go to
    /// the `+Inf` bucket without touching `_sum`; counter sums saturate.
    pub(crate) fn record(
        &self,
        families: &ConnectorFamilies,
        labels: &EngineLabels,
        stats: &KvConnectorStats,
    ) {
        for nixl in &stats.nixl {
            self.record_nixl(nixl);
        }
        if let Some(mooncake) = &stats.mooncake {
            self.record_mooncake(families, labels, mooncake);
        }
    }

    fn record_nixl(&self, stats: &NixlStats) {
        let h = &self.nixl;
        for &seconds in &stats.transfer_duration {
            h.xfer_time.observe(non_negative(seconds));
        }
        for &seconds in &stats.post_duration {
            h.post_time.observe(non_negative(seconds));
        }
        // u64 -> f64 rounds only beyond 2^53 (bytes or descriptors).
        for &bytes in &stats.bytes_transferred {
            h.bytes.observe(bytes as f64);
        }
        for &descriptors in &stats.num_descriptors {
            h.descriptors.observe(descriptors as f64);
        }
        for (counter, increments) in [
            (&h.failed_transfers, &stats.num_failed_transfers),
            (&h.failed_notifications, &stats.num_failed_notifications),
            (&h.kv_expired_reqs, &stats.num_kv_expired_reqs),
        ] {
            for &increment in increments {
                counter.inc_by(increment);
            }
        }
    }

    fn record_mooncake(
        &self,
        families: &ConnectorFamilies,
        labels: &EngineLabels,
        stats: &MooncakeStats,
    ) {
        for (&operation, records) in &stats.0 {
            for record in records {
                if let Some(handles) =
                    self.mooncake_pair(families, labels, operation, record.status)
                {
                    record_mooncake_operation(handles, record);
                }
            }
        }
    }

    /// The handles of a Mooncake pair: once resolved, one atomic load. The first record of a
    /// pair resolves it under the [`OverflowedEngines`] lock (the joins-and-leaves lock; the
    /// lock order is in `vllm::engines`), unless the engine left first.
    fn mooncake_pair(
        &self,
        families: &ConnectorFamilies,
        labels: &EngineLabels,
        operation: MooncakeOperation,
        status: MooncakeStatus,
    ) -> Option<&MooncakeHandles> {
        let pair = &self.mooncake[operation.index()][status.index()];
        let resolved = match pair.get() {
            Some(resolved) => resolved,
            // Another record of the pair, or the engine's leave, may set it first.
            None => families.overflowed_engines.resolve(|| {
                pair.get_or_init(|| Some(families.resolve_mooncake(labels, operation, status)))
            }),
        };
        resolved.as_ref()
    }

    /// Called as the engine leaves, under the [`OverflowedEngines`] lock: the Mooncake pairs
    /// not resolved yet stay unresolved for good, so a record by a recorder still holding the
    /// engine creates no series for an engine that is gone. (Its resolved handles, NIXL's
    /// among them, are detached from the families by the leave and record unexported.)
    pub(crate) fn leave(&self) {
        for pair in self.mooncake.iter().flatten() {
            pair.get_or_init(|| None);
        }
    }
}

fn record_mooncake_operation(h: &MooncakeHandles, record: &MooncakeRecord) {
    h.time.observe(non_negative(record.duration_seconds));
    h.operations.inc();
    h.keys.inc_by(record.num_keys);
    h.bytes.inc_by(record.num_bytes);
    h.failed_keys.inc_by(record.num_failed_keys);
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::Registry;

    use crate::vllm::{VllmMetrics, VllmMetricsConfig};
    use crate::ExpositionFormat;

    use super::*;

    /// One step of an engine's telemetry whose series are created on first record rather than
    /// when the engine joins: a Mooncake pair, and a spec-decode position past the pre-resolved
    /// ones (none with the default configuration). NIXL, resolved on join, records too.
    fn record_lazily_created_series(
        metrics: &VllmMetrics,
        entry: &crate::vllm::recorders::core::EngineEntry,
    ) {
        let families = &metrics.core().families;
        let stats = KvConnectorStats {
            nixl: vec![NixlStats {
                transfer_duration: vec![0.5],
                num_failed_transfers: vec![1],
                ..Default::default()
            }],
            mooncake: Some(MooncakeStats(BTreeMap::from([(
                MooncakeOperation::LoadGet,
                vec![MooncakeRecord {
                    duration_seconds: 0.25,
                    num_keys: 2,
                    num_bytes: 4096,
                    status: MooncakeStatus::Ok,
                    num_failed_keys: 0,
                }],
            )]))),
        };
        entry
            .connectors
            .record(&families.connectors, &entry.labels, &stats);
        entry
            .scheduler
            .spec_decode_num_accepted_tokens_per_pos
            .get_or_create(0)
            .inc();
    }

    fn scrape(registry: &Registry) -> String {
        ExpositionFormat::PrometheusText
            .encode(registry)
            .unwrap_or_else(|e| panic!("encode: {e}"))
    }

    #[test]
    fn stats_recorded_through_an_entry_kept_past_its_engine_leaving_create_no_series() {
        let mut registry = Registry::default();
        let metrics = VllmMetrics::register(&mut registry, VllmMetricsConfig::default());
        let core = metrics.core();

        // A recorder looked engine 1 up, then engine 1 left before it recorded: what it
        // records goes nowhere, instead of bringing back series nothing would remove.
        let kept = core.engine_arc(1);
        assert!(core.remove_engine(1));
        record_lazily_created_series(&metrics, &kept);
        let text = scrape(&registry);
        assert!(!text.contains(r#"engine="1""#), "{text}");

        // A present engine's series are created by the same records.
        record_lazily_created_series(&metrics, &core.engine_arc(0));
        let text = scrape(&registry);
        for series in [
            r#"vllm:mooncake_store_operation_total{model_name="model",engine="0",operation="load_get",status="ok"} 1"#,
            r#"vllm:mooncake_store_operation_bytes_total{model_name="model",engine="0",operation="load_get",status="ok"} 4096"#,
            r#"vllm:nixl_num_failed_transfers_total{model_name="model",engine="0"} 1"#,
            r#"vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="model",engine="0",position="0"} 1"#,
        ] {
            assert!(text.contains(series), "{series} in\n{text}");
        }
    }
}
