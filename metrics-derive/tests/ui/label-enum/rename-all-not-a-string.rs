use metric_handles::LabelEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = snake_case)]
pub enum Reason {
    Stop,
}

fn main() {}
