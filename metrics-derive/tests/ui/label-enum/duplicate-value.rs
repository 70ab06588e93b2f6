use metric_handles::LabelEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Reason {
    Stop,
    #[label(rename = "stop")]
    Halt,
}

fn main() {}
