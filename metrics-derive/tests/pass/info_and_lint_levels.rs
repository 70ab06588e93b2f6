// An info handle is never read (there is nothing to record through it), and that is no
// warning; the lint levels written on a field or on the struct reach the handles struct, where
// the dead-code lint reports a handle that is never read. (trybuild allows `dead_code` on its
// command line: the crate attribute denies it again.)
#![deny(warnings, dead_code)]

use metric_handles::{ByLabel, Counter, Family, Info, LabelEnum, LabelSet, MetricHandles};
use metric_handles::{NoLabels, Registry};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct Build {
    version: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, LabelEnum)]
#[label(rename_all = "snake_case")]
enum Stage {
    Compile,
    Link,
}

/// A name the derive does not read as an info: its field takes an `#[allow]`.
type BuildInfo = Info;

#[derive(MetricHandles)]
#[metric_handles(labels = Build)]
struct BuildMetrics {
    /// The build this process runs
    #[metric(name = "build")]
    build: Family<Build, Info>,
    /// The build of each stage
    #[metric(name = "stage_build", label = "stage")]
    stage: Family<Build, ByLabel<Stage, Info>>,
    /// The build, through an alias
    #[metric(name = "aliased_build")]
    #[allow(dead_code)]
    aliased: Family<Build, BuildInfo>,
    /// Declared for later
    #[metric(name = "later")]
    #[allow(dead_code)]
    later: Family<Build, Counter>,
}

/// Every handle of the struct is allowed to go unread.
#[derive(MetricHandles)]
#[allow(dead_code)]
struct Reserved {
    /// Declared for later
    #[metric(name = "reserved")]
    reserved: Family<NoLabels, Counter>,
}

/// `#[expect]` is checked where it is written (the skipped field here is never read), and
/// reaches the handles struct as an `#[allow]`, where nothing is unread.
#[derive(MetricHandles)]
#[expect(dead_code)]
struct Expected {
    /// Requests
    #[metric(name = "expected_requests")]
    requests: Family<NoLabels, Counter>,
    #[metric(skip)]
    unread: u32,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = BuildMetrics::register(&mut registry);
    let version = Build {
        version: "1.2.0".into(),
    };
    let _handles = metrics.resolve(&version);
    let _reserved = Reserved::register(&mut registry).resolve(&NoLabels);
    Expected::register(&mut registry)
        .resolve(&NoLabels)
        .requests
        .inc();
    let scrape = metric_handles::testing::Scrape::of(&registry);
    assert_eq!(scrape.value("build_info", &[("version", "1.2.0")]), Some(1.0));
    let stage = [("version", "1.2.0"), ("stage", "link")];
    assert_eq!(scrape.value("stage_build_info", &stage), Some(1.0));
}
