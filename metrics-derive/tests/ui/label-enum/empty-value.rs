use metric_handles::LabelEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Reason {
    #[label(rename = "")]
    Stop,
}

fn main() {}
