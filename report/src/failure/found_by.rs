//! What found a failure, in the words JSON and replay files use, and the
//! strategy of the run that found it as every report names it.

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

/// The strategy of the run that found a failure, as the search's report
/// and its replay both name it: the search's strategy, and where the run
/// was one of its components (a portfolio's) which one, `portfolio, a urw
/// run`; just `pctvb` when the run's strategy is the search's.
pub fn run_strategy(search: &str, run: &str) -> String {
    if search == run {
        search.to_string()
    } else {
        format!("{search}, a {run} run")
    }
}

#[cfg(test)]
mod tests {
    use super::run_strategy;

    #[test]
    fn a_component_run_is_named_with_its_search() {
        assert_eq!(run_strategy("portfolio", "pctvb"), "portfolio, a pctvb run");
        assert_eq!(run_strategy("pctvb", "pctvb"), "pctvb");
    }
}
