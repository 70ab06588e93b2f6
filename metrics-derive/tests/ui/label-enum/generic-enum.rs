use metric_handles::LabelEnum;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Reason<T> {
    Stop,
    Other(std::marker::PhantomData<T>),
}

fn main() {}
