//! The pinned corpus of published crates (`bench/crates/corpus.toml`):
//! each crate, the facade it runs under, the command its loom or tokio
//! tests run with, and why it is in.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// The corpus file.
#[derive(Debug, Deserialize)]
pub struct Corpus {
    /// The crates, in the order the bench runs and reports them.
    #[serde(rename = "crate")]
    pub crates: Vec<Entry>,
}

/// Which facade a crate's tests are run under by renaming a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Facade {
    /// `rt-loom/` (`rankcheck-loom`) in place of loom: a crate's loom
    /// models.
    Loom,
    /// `rt-tokio/` (`rankcheck-tokio`) in place of tokio: a crate's
    /// `#[tokio::test]`s.
    Tokio,
}

impl Facade {
    /// Both, in the order the results give them.
    pub const ALL: [Facade; 2] = [Facade::Loom, Facade::Tokio];

    /// The library the facade stands in for (`loom`, `tokio`): the default
    /// dependency key, and the published side's tool.
    pub fn word(self) -> &'static str {
        match self {
            Facade::Loom => "loom",
            Facade::Tokio => "tokio",
        }
    }

    /// The facade's package, which the renamed dependency names.
    pub fn package(self) -> &'static str {
        match self {
            Facade::Loom => "rankcheck-loom",
            Facade::Tokio => "rankcheck-tokio",
        }
    }

    /// The folder of the facade under the library's own package name, for
    /// `[patch.crates-io]`: a dependency of the crate that uses the
    /// library runs under the facade too. tokio has none: a crate's
    /// dependencies use tokio's runtime outside any test model.
    pub fn patch_folder(self) -> Option<&'static str> {
        match self {
            Facade::Loom => Some("rt-loom/as-loom"),
            Facade::Tokio => None,
        }
    }

    /// The facade's folder in this repository.
    pub fn folder(self) -> &'static str {
        match self {
            Facade::Loom => "rt-loom",
            Facade::Tokio => "rt-tokio",
        }
    }
}

/// One published crate of the corpus.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The crate's name on crates.io.
    pub name: String,
    /// The pinned version (fetched as `=version`).
    pub version: String,
    /// The facade its tests run under.
    pub facade: Facade,
    /// The dependency key renamed (its package becomes the facade's); the
    /// facade's own name (`loom`, `tokio`) when absent.
    #[serde(default)]
    pub dependency: Option<String>,
    /// RUSTFLAGS of the crate's loom command (`--cfg loom`, ...).
    #[serde(default)]
    pub rustflags: String,
    /// The `cargo test` arguments: targets, features, profile.
    pub args: Vec<String>,
    /// Only the tests whose names contain this run.
    #[serde(default)]
    pub filter: Option<String>,
    /// The tests' environment (loom's `LOOM_*` bounds).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The crate's own command, as its CI, README or script gives it.
    pub command: String,
    /// Why the crate is in the corpus.
    pub why: String,
    /// By test name (as the tables write it): what a by-hand diagnosis
    /// found where the two tools differ, printed under the crate's table.
    #[serde(default)]
    pub diagnosed: BTreeMap<String, String>,
}

impl Entry {
    /// `name-version`, the crate's name in results and in the work folder.
    pub fn id(&self) -> String {
        format!("{}-{}", self.name, self.version)
    }

    /// The dependency key the rename applies to.
    pub fn dependency_key(&self) -> &str {
        self.dependency
            .as_deref()
            .unwrap_or_else(|| self.facade.word())
    }

    /// Whether `--crates` names this crate, by name or by `name-version`.
    pub fn is_named(&self, names: &[String]) -> bool {
        names.is_empty() || names.iter().any(|n| *n == self.name || *n == self.id())
    }
}

impl Corpus {
    /// Read and check the corpus file.
    pub fn load(path: &Path) -> Result<Corpus> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Corpus::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    /// Parse the corpus from its text.
    pub fn parse(text: &str) -> Result<Corpus> {
        let corpus: Corpus = toml::from_str(text)?;
        Ok(corpus)
    }

    /// The crates run under `facade`, in the file's order.
    pub fn crates_of(&self, facade: Facade) -> impl Iterator<Item = &Entry> {
        self.crates.iter().filter(move |c| c.facade == facade)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_with_its_defaults() {
        let corpus = Corpus::parse(
            r#"
[[crate]]
name = "oneshot"
version = "0.2.1"
facade = "loom"
rustflags = "--cfg oneshot_loom"
args = ["--release", "--test", "loom"]
env = { LOOM_MAX_BRANCHES = "100000" }
command = "cargo test"
why = "a channel"

[[crate]]
name = "triggered"
version = "0.1.3"
facade = "tokio"
args = ["--tests"]
command = "cargo test --tests"
why = "a trigger"
"#,
        )
        .unwrap();
        let [oneshot, triggered] = &corpus.crates[..] else {
            panic!("two entries expected");
        };
        assert_eq!(oneshot.id(), "oneshot-0.2.1");
        assert_eq!(oneshot.dependency_key(), "loom");
        assert_eq!(oneshot.env["LOOM_MAX_BRANCHES"], "100000");
        assert_eq!(triggered.dependency_key(), "tokio");
        assert_eq!(corpus.crates_of(Facade::Loom).count(), 1);
        assert_eq!(corpus.crates_of(Facade::Tokio).count(), 1);
        assert!(oneshot.is_named(&["oneshot".into()]));
        assert!(oneshot.is_named(&["oneshot-0.2.1".into()]));
        assert!(!oneshot.is_named(&["oneshot-0.1.11".into()]));
    }

    #[test]
    fn the_corpus_file_parses() {
        let path = crate::workload::root().join("bench/crates/corpus.toml");
        let corpus = Corpus::load(&path).unwrap();
        assert!(corpus.crates_of(Facade::Loom).count() >= 20);
        assert!(corpus.crates_of(Facade::Tokio).count() >= 5);
    }
}
