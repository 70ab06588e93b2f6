//! vLLM's KV-connector families (NIXL, Mooncake store), declared with the derive.
//!
//! vLLM declares them with its connectors (`NixlPromMetrics` in
//! `vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py`,
//! `MooncakeStorePromMetrics` in `.../mooncake/store/metrics.py`) and its Rust frontend records
//! them from the `kv_connector_stats` of each `SchedulerStats`
//! (`rust/src/engine-core-client/src/metrics.rs`).

use std::sync::{Arc, OnceLock};

use crate::descriptor::MetricDescriptor;
use crate::registry::{RegisterOptions, RegistrationError, Registry};
use crate::vllm::buckets::{
    MOONCAKE_OPERATION_TIME_BUCKETS, NIXL_BYTES_BUCKETS, NIXL_DESCRIPTORS_BUCKETS,
    NIXL_POST_TIME_BUCKETS, NIXL_XFER_TIME_BUCKETS,
};
use crate::vllm::connectors::input::{
    KvConnectorStats, MooncakeOperation, MooncakeRecord, MooncakeStats, MooncakeStatus, NixlStats,
};
use crate::vllm::engines::OverflowedEngines;
use crate::vllm::labels::EngineLabels;
use crate::vllm::values::non_negative;
use crate::{Counter, Dynamic, Family, Histogram, LabelEnum, LabelSet, MetricHandles};

/// The seven NIXL families: per engine, exported (at 0) from the engine's first sight.
#[derive(MetricHandles)]
#[metric_handles(handles = NixlHandles, labels = EngineLabels)]
pub(crate) struct NixlMetrics {
    /// Histogram of transfer duration for NIXL KV Cache transfers
    ///
    /// # Computed
    ///
    /// Observes each `transfer_duration` of each `NixlStats` in `kv_connector_stats.nixl`
    /// (negative values record 0). Exported at 0 from the engine's first sight, as in vLLM.
    #[metric(name = "vllm:nixl_xfer_time_seconds", buckets = NIXL_XFER_TIME_BUCKETS)]
    transfer_duration: Family<EngineLabels, Histogram>,

    /// Histogram of transfer post time for NIXL KV Cache transfers
    ///
    /// # Computed
    ///
    /// Observes each `post_duration` of each `NixlStats` (negative values record 0).
    #[metric(name = "vllm:nixl_post_time_seconds", buckets = NIXL_POST_TIME_BUCKETS)]
    post_duration: Family<EngineLabels, Histogram>,

    /// Histogram of bytes transferred per NIXL KV Cache transfers
    ///
    /// # Computed
    ///
    /// Observes each `bytes_transferred` of each `NixlStats`.
    #[metric(name = "vllm:nixl_bytes_transferred", buckets = NIXL_BYTES_BUCKETS)]
    bytes_transferred: Family<EngineLabels, Histogram>,

    // vLLM's help text has the double space (two string literals joined in its source).
    /// Histogram of number of descriptors per NIXL  KV Cache transfers
    ///
    /// # Computed
    ///
    /// Observes each `num_descriptors` of each `NixlStats`.
    #[metric(name = "vllm:nixl_num_descriptors", buckets = NIXL_DESCRIPTORS_BUCKETS)]
    num_descriptors: Family<EngineLabels, Histogram>,

    /// Number of failed NIXL KV Cache transfers
    ///
    /// # Computed
    ///
    /// Increased by every element of `num_failed_transfers` of each `NixlStats` (saturating).
    #[metric(name = "vllm:nixl_num_failed_transfers")]
    num_failed_transfers: Family<EngineLabels, Counter>,

    /// Number of failed NIXL KV Cache notifications
    ///
    /// # Computed
    ///
    /// Increased by every element of `num_failed_notifications` of each `NixlStats`
    /// (saturating).
    #[metric(name = "vllm:nixl_num_failed_notifications")]
    num_failed_notifications: Family<EngineLabels, Counter>,

    /// Number of requests that had their KV expire. NOTE: This metric is tracked on the P instance
    ///
    /// # Computed
    ///
    /// Increased by every element of `num_kv_expired_reqs` of each `NixlStats` (saturating).
    #[metric(name = "vllm:nixl_num_kv_expired_reqs")]
    num_kv_expired_reqs: Family<EngineLabels, Counter>,
}

/// The seven NIXL families: per engine, exported (at 0) from the engine's first sight.
pub const NIXL_DESCRIPTORS: &[MetricDescriptor] = NixlMetrics::DESCRIPTORS;

/// The extra label keys of the Mooncake-store families.
pub const MOONCAKE_LABEL_KEYS: &[&str] = MooncakePair::KEYS;

/// The extra labels of a Mooncake-store series: the operation and how it ended.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub(crate) struct MooncakePair {
    operation: MooncakeOperation,
    status: MooncakeStatus,
}

/// The five Mooncake-store families, by `operation` x `status`: a series appears on the first
/// record of its pair.
#[derive(MetricHandles)]
#[metric_handles(handles = MooncakeEngineHandles, labels = EngineLabels)]
pub(crate) struct MooncakeMetrics {
    /// Histogram of Mooncake store communication time
    ///
    /// # Computed
    ///
    /// For each record of each operation in `kv_connector_stats.mooncake`: observes
    /// `duration_seconds` (negative values record 0) in the series {operation, record's
    /// status}. A pair's five series are resolved on its first record, then cached per engine:
    /// later records are an array index and atomics.
    #[metric(
        name = "vllm:mooncake_store_operation_time_seconds",
        buckets = MOONCAKE_OPERATION_TIME_BUCKETS
    )]
    duration_seconds: Family<EngineLabels, Dynamic<MooncakePair, Histogram>>,

    /// Number of Mooncake store communication operations
    ///
    /// # Computed
    ///
    /// +1 per Mooncake record, by operation and status.
    #[metric(name = "vllm:mooncake_store_operation")]
    operations: Family<EngineLabels, Dynamic<MooncakePair, Counter>>,

    /// Number of Mooncake store keys touched by operations
    ///
    /// # Computed
    ///
    /// Increased by each record's `num_keys`, by operation and status.
    #[metric(name = "vllm:mooncake_store_operation_keys")]
    num_keys: Family<EngineLabels, Dynamic<MooncakePair, Counter>>,

    /// Number of bytes transferred by Mooncake store operations
    ///
    /// # Computed
    ///
    /// Increased by each record's `num_bytes`, by operation and status.
    #[metric(name = "vllm:mooncake_store_operation_bytes")]
    num_bytes: Family<EngineLabels, Dynamic<MooncakePair, Counter>>,

    /// Number of Mooncake store keys that failed in operations
    ///
    /// # Computed
    ///
    /// Increased by each record's `num_failed_keys`, by operation and status.
    #[metric(name = "vllm:mooncake_store_operation_failed_keys")]
    num_failed_keys: Family<EngineLabels, Dynamic<MooncakePair, Counter>>,
}

/// The five Mooncake-store families, by `operation` x `status`: a series appears on the first
/// record of its pair.
pub const MOONCAKE_DESCRIPTORS: &[MetricDescriptor] = MooncakeMetrics::DESCRIPTORS;

/// The registered connector families.
pub(crate) struct ConnectorFamilies {
    nixl: NixlMetrics,
    mooncake: MooncakeMetrics,
    /// The lock that serialises engines' joins and leaves: an engine's Mooncake maps are
    /// resolved under it, so they cannot be created for an engine that has left.
    overflowed_engines: Arc<OverflowedEngines>,
}

impl ConnectorFamilies {
    /// Registers both connectors' families in `registry`, each with the options `only` gives
    /// its descriptors.
    pub(crate) fn register(
        registry: &mut Registry,
        only: &impl Fn(&[MetricDescriptor]) -> RegisterOptions,
        overflowed_engines: Arc<OverflowedEngines>,
    ) -> Result<Self, RegistrationError> {
        Ok(ConnectorFamilies {
            overflowed_engines,
            nixl: NixlMetrics::try_register_with(registry, &only(NixlMetrics::DESCRIPTORS))?,
            mooncake: MooncakeMetrics::try_register_with(
                registry,
                &only(MooncakeMetrics::DESCRIPTORS),
            )?,
        })
    }

    /// An engine's connector handles, as the engine joins: NIXL's series at 0; its Mooncake
    /// maps on its first Mooncake record (most engines have none: they pay nothing for them).
    pub(crate) fn resolve(&self, labels: &EngineLabels) -> ConnectorHandles {
        ConnectorHandles {
            nixl: self.nixl.resolve(labels),
            mooncake: OnceLock::new(),
            pairs: std::array::from_fn(|_| std::array::from_fn(|_| OnceLock::new())),
        }
    }

    /// Removes `labels`' series from every connector family (an engine that left), under the
    /// [`OverflowedEngines`] lock. Handles resolved earlier, Mooncake pairs resolved later
    /// through the engine's maps included, record into series no longer exported.
    pub(crate) fn remove(&self, labels: &EngineLabels) {
        self.nixl.remove(labels);
        self.mooncake.remove(labels);
    }
}

/// The five handles of one Mooncake `operation` x `status` pair.
struct MooncakePairHandles {
    duration_seconds: Histogram,
    operations: Counter,
    num_keys: Counter,
    num_bytes: Counter,
    num_failed_keys: Counter,
}

impl MooncakePairHandles {
    #[cold]
    fn resolve(engine: &MooncakeEngineHandles, pair: &MooncakePair) -> Self {
        MooncakePairHandles {
            duration_seconds: engine.duration_seconds.get_or_create(pair),
            operations: engine.operations.get_or_create(pair),
            num_keys: engine.num_keys.get_or_create(pair),
            num_bytes: engine.num_bytes.get_or_create(pair),
            num_failed_keys: engine.num_failed_keys.get_or_create(pair),
        }
    }
}

/// One engine's connector handles.
pub(crate) struct ConnectorHandles {
    nixl: NixlHandles,
    /// The engine's Mooncake maps, by pair: resolved on its first Mooncake record; `None` once
    /// the engine left without one.
    mooncake: OnceLock<Option<MooncakeEngineHandles>>,
    /// By operation, then status: resolved on the pair's first record.
    pairs: [[OnceLock<MooncakePairHandles>; MooncakeStatus::VARIANTS.len()];
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
            if let Some(maps) = self.mooncake_maps(families, labels) {
                self.record_mooncake(maps, mooncake);
            }
        }
    }

    fn record_nixl(&self, stats: &NixlStats) {
        let h = &self.nixl;
        for &seconds in &stats.transfer_duration {
            h.transfer_duration.observe(non_negative(seconds));
        }
        for &seconds in &stats.post_duration {
            h.post_duration.observe(non_negative(seconds));
        }
        // u64 -> f64 rounds only beyond 2^53 (bytes or descriptors).
        for &bytes in &stats.bytes_transferred {
            h.bytes_transferred.observe(bytes as f64);
        }
        for &descriptors in &stats.num_descriptors {
            h.num_descriptors.observe(descriptors as f64);
        }
        for (counter, increments) in [
            (&h.num_failed_transfers, &stats.num_failed_transfers),
            (&h.num_failed_notifications, &stats.num_failed_notifications),
            (&h.num_kv_expired_reqs, &stats.num_kv_expired_reqs),
        ] {
            for &increment in increments {
                counter.inc_by(increment);
            }
        }
    }

    fn record_mooncake(&self, maps: &MooncakeEngineHandles, stats: &MooncakeStats) {
        for (&operation, records) in &stats.0 {
            for record in records {
                let pair = self.pairs[operation.index()][record.status.index()].get_or_init(|| {
                    let pair = MooncakePair {
                        operation,
                        status: record.status,
                    };
                    MooncakePairHandles::resolve(maps, &pair)
                });
                record_mooncake_operation(pair, record);
            }
        }
    }

    /// The engine's Mooncake maps: once resolved, one atomic load. The first Mooncake record
    /// resolves them under the [`OverflowedEngines`] lock (the joins-and-leaves lock; the lock
    /// order is in `vllm::engines`), unless the engine left first. A pair's series are then
    /// created in the engine's own maps, which the leave removes whole: no lock for them.
    fn mooncake_maps(
        &self,
        families: &ConnectorFamilies,
        labels: &EngineLabels,
    ) -> Option<&MooncakeEngineHandles> {
        let maps = match self.mooncake.get() {
            Some(maps) => maps,
            // Another record of the engine, or its leave, may set it first.
            None => families.overflowed_engines.resolve(|| {
                self.mooncake
                    .get_or_init(|| Some(families.mooncake.resolve(labels)))
            }),
        };
        maps.as_ref()
    }

    /// Called as the engine leaves, under the [`OverflowedEngines`] lock: Mooncake maps not
    /// resolved yet stay unresolved for good, so a record by a recorder still holding the
    /// engine creates no series for an engine that is gone.
    pub(crate) fn leave(&self) {
        self.mooncake.get_or_init(|| None);
    }
}

fn record_mooncake_operation(h: &MooncakePairHandles, record: &MooncakeRecord) {
    h.duration_seconds
        .observe(non_negative(record.duration_seconds));
    h.operations.inc();
    h.num_keys.inc_by(record.num_keys);
    h.num_bytes.inc_by(record.num_bytes);
    h.num_failed_keys.inc_by(record.num_failed_keys);
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
            .record(&metrics.core().families.connectors, &entry.labels, &stats);
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
