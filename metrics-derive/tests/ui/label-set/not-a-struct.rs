use metric_handles::LabelSet;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
enum Labels {
    A,
}

fn main() {}
