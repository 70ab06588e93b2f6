//! [`Scratch`]: what a scrape reads into besides its output.

/// What a scrape reads into besides its output, kept by the thread between scrapes.
#[derive(Debug, Default)]
pub struct Scratch {
    /// A histogram's bucket counts.
    pub(crate) counts: Vec<u64>,
    /// The order of a position axis's series beyond the pre-resolved ones.
    pub(crate) order: Vec<usize>,
}
