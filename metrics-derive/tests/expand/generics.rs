// A generic label set, a where clause, a renamed runtime crate and restricted visibility.
#[derive(MetricHandles)]
#[metric_handles(labels = L, crate = ::rt)]
pub(crate) struct Generic<L>
where
    L: Clone,
{
    /// Things seen
    #[metric(name = "gen:things")]
    pub(crate) things: Family<L, Counter>,
}
