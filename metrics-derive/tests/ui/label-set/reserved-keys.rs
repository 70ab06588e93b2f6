use metric_handles::LabelSet;

// Three reserved keys in one struct: all three are reported together.
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Labels {
    pub le: String,
    pub quantile: String,
    #[label(rename = "__name__")]
    pub name: String,
}

fn main() {}
