use metric_handles::LabelEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Reason {}

fn main() {}
