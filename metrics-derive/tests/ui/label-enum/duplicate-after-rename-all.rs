use metric_handles::LabelEnum;

#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Source {
    CacheHit,
    Cache_Hit,
}

fn main() {}
