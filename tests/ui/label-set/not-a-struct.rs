use metrics_runtime::LabelSet;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
enum Labels {
    A,
}

fn main() {}
