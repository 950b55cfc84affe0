//! The registry of search strategies: every strategy a front end can name
//! (`--strategy` on the command line, `Builder::strategy` and
//! `#[rankcheck::test(strategy = "...")]` in rt, `strategy = "..."` in a
//! nightly suite) is a [`Registered`] entry here, and the front ends know
//! strategies only through it.
//!
//! # Adding a strategy
//!
//! A strategy is one file under `strategy/registered/` (plus its `mod`
//! line there) that submits its entry:
//!
//! ```ignore
//! inventory::submit! {
//!     Registered {
//!         name: "mine",
//!         about: "What its runs do, for --help",
//!         takes_settings: false,
//!         claims_bound: false,
//!         build: |_asked, _profile, _variables| {
//!             Ok(Built::new(PlanKind::Open(OpenStrategy::new("mine", Mine))))
//!         },
//!     }
//! }
//! ```
//!
//! Its name then reaches every front end with no edit to any of them. A
//! strategy outside the built-in families runs as
//! [`PlanKind::Open`](super::PlanKind::Open): any
//! [`Strategy`](super::Strategy) whose scheduler the runs call through a
//! box. `registered/test_lowest.rs` is such a strategy, compiled only for
//! tests (feature `test-strategies`), and the tests of every front end
//! reach it by its name.
//!
//! # Why `inventory`
//!
//! The entries are collected with the `inventory` crate (one
//! `inventory::submit!` per strategy, read back by [`strategies`]), so no
//! list of strategies exists to be kept in step. `linkme`'s distributed
//! slices would do the same at link time without a constructor, but they
//! expand to `#[link_section]` statics, which this workspace's
//! `forbid(unsafe_code)` rejects; `inventory` compiles under it. A build
//! script that generated the `mod` lines from the directory would spare
//! the one `mod` line, but its modules would escape `cargo fmt` and code
//! navigation. `inventory` gathers the entries in a constructor that runs
//! before `main` (a few pointers per strategy), in the linker's order, so
//! [`strategies`] sorts them by name: lists in help and errors are stable.

use std::fmt;
use std::sync::OnceLock;

use super::planning::{Asked, Built, PlanError, Variables};
use crate::profile::Profile;

/// A strategy's constructor: the search it runs for the options asked and
/// the preparatory runs' profile, with the settings it set aside.
pub type Build = fn(&Asked, &Profile, Variables<'_>) -> Result<Built, PlanError>;

/// One named strategy: what the front ends know of it.
#[derive(Clone, Copy)]
pub struct Registered {
    /// Its name on the command line, in reports, replay files and stream
    /// keys; never changed once released, since those keep it.
    pub name: &'static str,
    /// One paragraph for `--help`, without a final period (as clap writes
    /// the help it takes from doc comments).
    pub about: &'static str,
    /// Whether it takes a depth, variables and a pool (`--depth`,
    /// `--vars`, `--track`); planning refuses them for one that does not.
    pub takes_settings: bool,
    /// Whether its runs (some of them) earn a per-run probability bound,
    /// so that a guarantee can be plotted.
    pub claims_bound: bool,
    /// Its constructor.
    pub build: Build,
}

inventory::collect!(Registered);

/// How the names of strategies that exist for tests only begin (feature
/// `test-strategies`): help hides them, and figures give them no colour of
/// their own.
pub const TEST_ONLY_PREFIX: &str = "test-";

impl Registered {
    /// Whether it exists for tests only.
    pub fn is_for_tests(&self) -> bool {
        self.name.starts_with(TEST_ONLY_PREFIX)
    }
}

impl fmt::Debug for Registered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registered")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Registered {
    /// Names are unique ([`strategies`] checks it), so a name is an entry.
    fn eq(&self, other: &Registered) -> bool {
        self.name == other.name
    }
}

impl Eq for Registered {}

/// The strategy run when none is named and no setting is asked for.
pub const DEFAULT: &str = "portfolio";

/// The strategy run when none is named but a depth, variables or a pool
/// is: those options are PCTVB's.
pub const SETTINGS_DEFAULT: &str = "pctvb";

/// Every registered strategy, sorted by name.
///
/// # Panics
/// If two entries share a name (invariant: names are unique; a duplicate
/// is a programming error caught by any test that plans a search).
pub fn strategies() -> &'static [&'static Registered] {
    static SORTED: OnceLock<Vec<&'static Registered>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut all: Vec<&'static Registered> = inventory::iter::<Registered>.into_iter().collect();
        all.sort_by_key(|s| s.name);
        if let Some(pair) = all.windows(2).find(|pair| pair[0].name == pair[1].name) {
            panic!("invariant: two strategies are named {}", pair[0].name);
        }
        all
    })
}

/// The names of every registered strategy, sorted.
pub fn names() -> Vec<&'static str> {
    strategies().iter().map(|s| s.name).collect()
}

/// The strategy named `name`.
pub fn find(name: &str) -> Result<&'static Registered, UnknownStrategy> {
    strategies()
        .iter()
        .copied()
        .find(|s| s.name == name)
        .ok_or_else(|| UnknownStrategy {
            name: name.to_owned(),
        })
}

/// The strategy a search runs: the one named, else PCTVB when a depth,
/// variables or a pool are asked for, else the portfolio. One rule for
/// every front end.
pub fn chosen(named: Option<&'static Registered>, asks_settings: bool) -> &'static Registered {
    named.unwrap_or_else(|| {
        let name = if asks_settings {
            SETTINGS_DEFAULT
        } else {
            DEFAULT
        };
        find(name).unwrap_or_else(|_| unreachable!("invariant: {name} is registered"))
    })
}

/// A name no strategy is registered under. It says which names are, so
/// that each front end only adds where the name was given (the flag, the
/// attribute, the suite's line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy `{name}`: expected one of {}", names().join(", "))]
pub struct UnknownStrategy {
    /// The name given.
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_names_are_registered_once_and_sorted() {
        let names = names();
        for name in [
            "ksurw",
            "pct",
            "pctvb",
            "portfolio",
            "pos",
            "random",
            "surw",
            "swpos",
            "urw",
            "wpos",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
            assert!(!find(name).unwrap().is_for_tests(), "{name}");
        }
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, names);
    }

    #[test]
    fn an_unknown_name_lists_the_registered_ones() {
        let error = find("fast").unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("unknown strategy `fast`: expected one of "));
        for name in names() {
            assert!(text.contains(name), "{text}");
        }
    }

    #[test]
    fn without_a_name_settings_choose_pctvb_and_nothing_the_portfolio() {
        assert_eq!(chosen(None, false).name, DEFAULT);
        assert_eq!(chosen(None, true).name, SETTINGS_DEFAULT);
        let urw = find("urw").unwrap();
        assert_eq!(chosen(Some(urw), true), urw);
    }
}
