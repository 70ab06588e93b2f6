use metric_handles::LabelSet;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Labels(String);

fn main() {}
