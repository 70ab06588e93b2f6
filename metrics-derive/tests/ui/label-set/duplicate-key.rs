use metric_handles::LabelSet;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Labels {
    pub engine: u32,
    #[label(rename = "engine")]
    pub engine_id: u32,
}

fn main() {}
