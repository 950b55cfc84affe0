//! The historical bugs (`bench/crates/historical.toml`): for each, the
//! crate, the published version before the fix and the one with it, the
//! regression test the fix added, the command it runs with, and where the
//! fix is recorded. The fix's test files are kept under
//! `bench/crates/historical/<crate>-<buggy version>/` (the bug's id) and
//! laid over the buggy version's published source at the same relative
//! paths.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::crates::corpus::{Entry, Facade};

/// The bugs file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bugs {
    /// The bugs, in the order the bench runs and reports them.
    #[serde(rename = "bug")]
    pub bugs: Vec<Bug>,
}

/// One published bug and its fix.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bug {
    /// The crate's name on crates.io.
    #[serde(rename = "crate")]
    pub name: String,
    /// The last published version with the bug.
    pub buggy: String,
    /// The first published version with the fix.
    pub fixed: String,
    /// The regression test's full name in its test binary
    /// (`sync::tests::loom_oneshot::recv_closed`).
    pub test: String,
    /// The dependency key renamed to the facade (default `loom`).
    #[serde(default)]
    pub dependency: Option<String>,
    /// RUSTFLAGS of the crate's loom command.
    #[serde(default)]
    pub rustflags: String,
    /// The `cargo test` arguments (targets, features, profile).
    pub args: Vec<String>,
    /// The test's environment (loom's `LOOM_*` bounds as the crate's CI
    /// sets them), the same under both tools.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The crate's own loom command, as its CI or README gives it.
    pub command: String,
    /// The fix's short reference for the table (`tokio-rs/tokio#4226`).
    pub reference: String,
    /// Where the fix is recorded: changelog entry, issue, pull request.
    pub fix: String,
    /// What the bug is.
    pub bug: String,
    /// Every change made to place the fix's test into the buggy version
    /// ("none" when its file is the fixed version's, as published).
    pub adaptation: String,
    /// What the measurements showed that the table cannot say (a false
    /// failure's cause, a test that misses the bug under both tools).
    #[serde(default)]
    pub notes: Option<String>,
}

impl Bug {
    /// `name-buggy`, the bug's name in results.
    pub fn id(&self) -> String {
        format!("{}-{}", self.name, self.buggy)
    }

    /// The two versions: the buggy one first.
    pub fn versions(&self) -> [&str; 2] {
        [&self.buggy, &self.fixed]
    }

    /// Whether `--bugs` names this bug: by crate name, or `name-buggy`.
    pub fn is_named(&self, names: &[String]) -> bool {
        names.is_empty() || names.iter().any(|n| *n == self.name || *n == self.id())
    }

    /// A corpus entry for `version` of the crate, so that the `crates`
    /// mode's fetch, rename, build and test runs serve this bug unchanged.
    pub fn entry(&self, version: &str) -> Entry {
        Entry {
            name: self.name.clone(),
            version: version.to_string(),
            facade: Facade::Loom,
            dependency: self.dependency.clone(),
            rustflags: self.rustflags.clone(),
            args: self.args.clone(),
            filter: None,
            env: self.env.clone(),
            command: self.command.clone(),
            why: self.bug.clone(),
            diagnosed: Default::default(),
        }
    }
}

impl Bugs {
    /// Read and check the bugs file.
    pub fn load(path: &Path) -> Result<Bugs> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Bugs::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    /// Parse the bugs from their text: two entries may not share a name.
    pub fn parse(text: &str) -> Result<Bugs> {
        let bugs: Bugs = toml::from_str(text)?;
        for (at, bug) in bugs.bugs.iter().enumerate() {
            if bugs.bugs[..at].iter().any(|b| b.id() == bug.id()) {
                bail!("two bugs named {}", bug.id());
            }
        }
        Ok(bugs)
    }
}

/// The files laid over the buggy version's published source of the bug
/// `id` (`name-buggy`): every file under `<overlays>/<id>/`, as (path in
/// the crate, file), sorted; none when that folder does not exist.
pub fn overlay(overlays: &Path, id: &str) -> Result<Vec<(PathBuf, PathBuf)>> {
    let folder = overlays.join(id);
    let mut files = Vec::new();
    if folder.is_dir() {
        collect(&folder, &folder, &mut files)?;
    }
    files.sort();
    Ok(files)
}

fn collect(root: &Path, folder: &Path, files: &mut Vec<(PathBuf, PathBuf)>) -> Result<()> {
    for item in std::fs::read_dir(folder)? {
        let path = item?.path();
        if path.is_dir() {
            collect(root, &path, files)?;
        } else {
            let inside = path.strip_prefix(root)?.to_path_buf();
            files.push((inside, path));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = r#"
[[bug]]
crate = "oneshot"
buggy = "0.1.10"
fixed = "0.1.11"
test = "poll_then_drop_receiver_during_send"
rustflags = "--cfg oneshot_loom"
args = ["--release", "--test", "loom", "--features", "loom,std,async"]
env = { LOOM_MAX_BRANCHES = "100000" }
command = "cargo test"
reference = "CHANGELOG 0.1.11"
fix = "CHANGELOG 0.1.11"
bug = "Receiver::drop mishandles UNPARKING"
adaptation = "none"

[[bug]]
crate = "tokio"
buggy = "1.13.0"
fixed = "1.13.1"
dependency = "loom"
test = "sync::tests::loom_oneshot::recv_closed"
args = ["--lib"]
command = "cargo test --lib"
reference = "tokio#4226"
fix = "tokio#4226"
bug = "a data race"
adaptation = "none"
"#;

    #[test]
    fn a_bug_reads_with_its_defaults_and_makes_a_corpus_entry() {
        let bugs = Bugs::parse(TWO).unwrap();
        let [oneshot, tokio] = &bugs.bugs[..] else {
            panic!("two bugs expected");
        };
        assert_eq!(oneshot.id(), "oneshot-0.1.10");
        assert_eq!(oneshot.versions(), ["0.1.10", "0.1.11"]);
        let fixed = oneshot.entry("0.1.11");
        assert_eq!(fixed.id(), "oneshot-0.1.11");
        assert_eq!(fixed.rustflags, "--cfg oneshot_loom");
        assert_eq!(fixed.env["LOOM_MAX_BRANCHES"], "100000");
        assert_eq!(fixed.dependency_key(), "loom");
        assert!(fixed.filter.is_none());
        assert!(tokio.rustflags.is_empty() && tokio.env.is_empty());
        assert!(tokio.is_named(&["tokio".into()]));
        assert!(tokio.is_named(&["tokio-1.13.0".into()]));
        assert!(!tokio.is_named(&["tokio-1.13.1".into()]));
    }

    #[test]
    fn two_bugs_of_one_name_and_unknown_fields_are_refused() {
        let twice = TWO.replace("buggy = \"1.13.0\"", "buggy = \"0.1.10\"");
        let twice = twice.replacen("crate = \"tokio\"", "crate = \"oneshot\"", 1);
        assert!(Bugs::parse(&twice).is_err());
        let unknown = TWO.replace(
            "adaptation = \"none\"\n\n",
            "adaptation = \"none\"\nseed = 3\n\n",
        );
        assert!(Bugs::parse(&unknown).is_err());
    }

    #[test]
    fn an_overlay_is_every_file_of_the_version_s_folder() {
        let root = std::env::temp_dir().join(format!("historical-overlay-{}", std::process::id()));
        let folder = root.join("oneshot-0.1.10/tests");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("loom.rs"), "// the fix's test").unwrap();
        let files = overlay(&root, "oneshot-0.1.10").unwrap();
        assert_eq!(
            files,
            [(PathBuf::from("tests/loom.rs"), folder.join("loom.rs"))]
        );
        assert!(overlay(&root, "oneshot-0.1.11").unwrap().is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_bugs_file_parses_and_every_overlay_names_a_bug() {
        let root = crate::workload::root();
        let bugs = Bugs::load(&root.join("bench/crates/historical.toml")).unwrap();
        assert!(bugs.bugs.len() >= 8, "{} bugs", bugs.bugs.len());
        let overlays = root.join("bench/crates/historical");
        for folder in std::fs::read_dir(&overlays).unwrap() {
            let name = folder.unwrap().file_name().to_string_lossy().into_owned();
            assert!(
                bugs.bugs.iter().any(|b| b.id() == name),
                "{name} is no bug of historical.toml"
            );
        }
    }
}
