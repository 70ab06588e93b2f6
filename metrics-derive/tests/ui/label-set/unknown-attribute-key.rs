use metric_handles::LabelSet;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Labels {
    #[label(renmae = "model")]
    pub model_name: String,
}

fn main() {}
