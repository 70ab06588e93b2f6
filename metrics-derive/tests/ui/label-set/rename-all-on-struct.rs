use metric_handles::LabelSet;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
#[label(rename_all = "snake_case")]
pub struct Labels {
    pub model_name: String,
}

fn main() {}
