//! What found a failure, in the words JSON and replay files use.

/// What found a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundBy {
    /// A run of the search.
    Search,
    /// One of the preparatory random runs.
    Preparatory,
    /// Exhaustive search.
    Explore,
    /// A replay of a failing run (a Rust test's `rankcheck::replay`).
    Replay,
}

impl FoundBy {
    /// The name JSON and replay files use.
    pub fn name(self) -> &'static str {
        match self {
            FoundBy::Search => "search",
            FoundBy::Preparatory => "preparatory",
            FoundBy::Explore => "explore",
            FoundBy::Replay => "replay",
        }
    }

    /// Read a name back.
    pub fn from_name(name: &str) -> Option<FoundBy> {
        [
            FoundBy::Search,
            FoundBy::Preparatory,
            FoundBy::Explore,
            FoundBy::Replay,
        ]
        .into_iter()
        .find(|f| f.name() == name)
    }
}
