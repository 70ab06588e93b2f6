use metric_handles::LabelEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Reason {
    Stop,
    Error(u16),
}

fn main() {}
