//! The suite a campaign runs: a directory of `.rk` files, or a
//! `rankcheck.toml` that lists programs (paths or globs, relative to the
//! file) with their options (`docs/guide/src/nightly.md`).
//!
//! ```toml
//! seed = 7                      # the suite seed (--seed overrides it)
//!
//! [[program]]
//! path = "programs/*.rk"        # a path or a glob
//!
//! [[program]]
//! path = "corner_variable.rk"
//! define = { HOT = 400 }
//! depth = 2                     # with vars, as `check` takes them
//! vars = 1                      # a number, "all", "sync" or "none"
//! strategy = "pctvb"            # as `check --strategy` (default: portfolio,
//!                               # or pctvb with depth, vars or track)
//! priorities = "pct"            # pct or thread-bounded
//! track = ["cold", "hot"]
//! weight = 2.0                  # aim for twice the evidence
//!
//! [[rust]]
//! path = "rust-nightly"         # a crate's directory (or a workspace's)
//! package = "rust-nightly"      # a workspace member, as `cargo test -p`
//! tests = "tests::"             # a test filter, as `cargo test FILTER`,
//!                               # or several: ["a::", "b::"]
//! skip = ["slow_"]              # as `cargo test -- --skip slow_`
//! features = ["rankcheck"]      # as `cargo test --features rankcheck`
//! rustflags = "--cfg loom"      # RUSTFLAGS for the build
//! env = { LOOM_MAX_PREEMPTIONS = "2" }   # set for every run of a test
//! weight = 1.0
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::cli::{PrioritiesArg, StrategyArg, VarsArg};

/// The step limit a program gets unless its entry says otherwise.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// The preparatory runs a program gets unless its entry says otherwise.
pub const DEFAULT_PROFILE_RUNS: u64 = 20;

/// A suite: its programs, its Rust test suites and the seed it may fix.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The seed the suite file gives, if any.
    pub seed: Option<u64>,
    /// Its programs, in the order listed (globs sorted).
    pub programs: Vec<SuiteProgram>,
    /// Its cargo packages whose rankcheck-rt tests it runs.
    pub rust: Vec<SuiteRust>,
}

/// A `[[rust]]` entry: the rankcheck-rt tests of one cargo package.
#[derive(Clone, Debug)]
pub struct SuiteRust {
    /// The entry as messages name it: `[[rust]] N (path)`.
    pub entry: String,
    /// What test names are prefixed with: `package`, else the crate
    /// directory's name.
    pub shown: String,
    /// Its `Cargo.toml`.
    pub manifest: PathBuf,
    /// A workspace member, as `cargo test -p`.
    pub package: Option<String>,
    /// The test filters, as `cargo test FILTER...`: a test whose name
    /// contains any of them (none: every test).
    pub tests: Vec<String>,
    /// Tests whose name contains any of these are left out, as `cargo
    /// test -- --skip NAME`.
    pub skip: Vec<String>,
    /// Cargo features the tests are built with, as `--features`.
    pub features: Vec<String>,
    /// `RUSTFLAGS` for the build (e.g. `--cfg loom`), if any.
    pub rustflags: Option<String>,
    /// Environment variables every run of a test gets (e.g. loom's
    /// `LOOM_MAX_PREEMPTIONS`).
    pub env: BTreeMap<String, String>,
    /// As a program's.
    pub weight: f64,
}

/// One program of a suite with its options.
#[derive(Clone, Debug)]
pub struct SuiteProgram {
    /// The name the history knows it by: its path as the suite gives it,
    /// with its `-D` values.
    pub name: String,
    /// Where to read it.
    pub path: PathBuf,
    /// `-D` values, sorted by name.
    pub define: Vec<(String, i64)>,
    /// The strategy.
    pub strategy: StrategyArg,
    /// A fixed depth, as `check --depth`.
    pub depth: Option<u32>,
    /// Variables per run, as `check --vars`.
    pub vars: Option<VarsArg>,
    /// Variables to choose among, as `check --track`.
    pub track: Vec<String>,
    /// The priority scheme.
    pub priorities: PrioritiesArg,
    /// Scales the evidence this program aims for: 2 gets it twice the
    /// confidence exponent of a program of weight 1.
    pub weight: f64,
    /// Steps one execution may take.
    pub max_steps: u64,
    /// Preparatory runs.
    pub profile_runs: u64,
}

/// The suite file's text, as serde reads it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    seed: Option<u64>,
    #[serde(default)]
    program: Vec<ProgramEntry>,
    #[serde(default)]
    rust: Vec<RustEntry>,
}

/// One `[[rust]]` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RustEntry {
    path: String,
    package: Option<String>,
    #[serde(default)]
    tests: Filters,
    #[serde(default)]
    skip: Filters,
    #[serde(default)]
    features: Vec<String>,
    rustflags: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    weight: Option<f64>,
}

/// `tests = "a"` or `tests = ["a", "b"]`.
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
enum Filters {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl Filters {
    /// The filters, without empty ones (an empty filter selects every
    /// test, as no filter does).
    fn list(&self) -> Vec<String> {
        let all = match self {
            Filters::None => Vec::new(),
            Filters::One(one) => vec![one.clone()],
            Filters::Many(many) => many.clone(),
        };
        all.into_iter().filter(|f| !f.is_empty()).collect()
    }
}

/// One `[[program]]` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProgramEntry {
    path: String,
    name: Option<String>,
    #[serde(default)]
    define: BTreeMap<String, i64>,
    strategy: Option<String>,
    depth: Option<u32>,
    vars: Option<VarsValue>,
    #[serde(default)]
    track: Vec<String>,
    priorities: Option<String>,
    weight: Option<f64>,
    max_steps: Option<u64>,
    profile_runs: Option<u64>,
}

/// `vars = 1` or `vars = "all"`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum VarsValue {
    Count(u64),
    Word(String),
}

/// Read the suite at `path`: a directory (every `.rk` file in it, sorted,
/// with default options) or a TOML suite file.
pub fn read_suite(path: &Path) -> Result<Suite> {
    if path.is_dir() {
        return directory_suite(path);
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read suite {}", path.display()))?;
    let file: SuiteFile = toml::from_str(&text)
        .with_context(|| format!("{} is not a valid suite file", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut programs = Vec::new();
    for (i, entry) in file.program.iter().enumerate() {
        programs.extend(entry_programs(base, entry).with_context(|| {
            format!("{}: [[program]] {} ({})", path.display(), i + 1, entry.path)
        })?);
    }
    let mut rust = Vec::new();
    for (i, entry) in file.rust.iter().enumerate() {
        let name = format!("{}: [[rust]] {} ({})", path.display(), i + 1, entry.path);
        rust.push(rust_entry(base, entry, &name).with_context(|| name.clone())?);
    }
    if programs.is_empty() && rust.is_empty() {
        bail!("{}: the suite lists no program", path.display());
    }
    check_distinct(&programs, path)?;
    Ok(Suite {
        seed: file.seed,
        programs,
        rust,
    })
}

/// Every `.rk` file of a directory, with default options.
fn directory_suite(dir: &Path) -> Result<Suite> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read suite directory {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rk") && p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("{}: no .rk file in the suite directory", dir.display());
    }
    let programs = files
        .into_iter()
        .map(|path| SuiteProgram {
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path,
            define: Vec::new(),
            strategy: StrategyArg::chosen(None, false),
            depth: None,
            vars: None,
            track: Vec::new(),
            priorities: PrioritiesArg::Pct,
            weight: 1.0,
            max_steps: DEFAULT_MAX_STEPS,
            profile_runs: DEFAULT_PROFILE_RUNS,
        })
        .collect();
    Ok(Suite {
        seed: None,
        programs,
        rust: Vec::new(),
    })
}

/// The programs one entry names (several for a glob).
fn entry_programs(base: &Path, entry: &ProgramEntry) -> Result<Vec<SuiteProgram>> {
    // As `check`: asking for settings asks for PCTVB. An unknown name is
    // refused with the registered ones (the caller adds the entry).
    let named = entry
        .strategy
        .as_deref()
        .map(StrategyArg::named)
        .transpose()?;
    let asks_settings = entry.depth.is_some() || entry.vars.is_some() || !entry.track.is_empty();
    let strategy = StrategyArg::chosen(named, asks_settings);
    let priorities = match entry.priorities.as_deref() {
        None | Some("pct") => PrioritiesArg::Pct,
        Some("thread-bounded") => PrioritiesArg::ThreadBounded,
        Some(other) => bail!("priorities `{other}`: expected pct or thread-bounded"),
    };
    let vars = match &entry.vars {
        None => None,
        Some(VarsValue::Count(v)) => Some(VarsArg::Count(*v as usize)),
        Some(VarsValue::Word(w)) => Some(match w.as_str() {
            "all" => VarsArg::All,
            "sync" => VarsArg::Sync,
            "none" => VarsArg::None,
            other => bail!("vars `{other}`: expected a number, \"all\", \"sync\" or \"none\""),
        }),
    };
    let weight = entry.weight.unwrap_or(1.0);
    if !(weight.is_finite() && weight > 0.0) {
        bail!("weight {weight}: expected a positive number");
    }
    if entry.depth.is_some_and(|d| !(1..=32).contains(&d)) {
        bail!("depth: expected 1 to 32");
    }
    let paths = expand(base, &entry.path)?;
    if entry.name.is_some() && paths.len() > 1 {
        bail!(
            "`name` names one program, but the glob matches {}",
            paths.len()
        );
    }
    let define: Vec<(String, i64)> = entry.define.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let suffix: String = define.iter().map(|(k, v)| format!(" -D {k}={v}")).collect();
    Ok(paths
        .into_iter()
        .map(|(shown, path)| SuiteProgram {
            name: entry
                .name
                .clone()
                .unwrap_or_else(|| format!("{shown}{suffix}")),
            path,
            define: define.clone(),
            strategy,
            depth: entry.depth,
            vars: vars.clone(),
            track: entry.track.clone(),
            priorities,
            weight,
            max_steps: entry.max_steps.unwrap_or(DEFAULT_MAX_STEPS).max(1),
            profile_runs: entry.profile_runs.unwrap_or(DEFAULT_PROFILE_RUNS).max(1),
        })
        .collect())
}

/// A `[[rust]]` entry: its crate must have a `Cargo.toml`.
fn rust_entry(base: &Path, entry: &RustEntry, name: &str) -> Result<SuiteRust> {
    let manifest = base.join(&entry.path).join("Cargo.toml");
    if !manifest.is_file() {
        bail!("no Cargo.toml at {}", manifest.display());
    }
    let weight = entry.weight.unwrap_or(1.0);
    if !(weight.is_finite() && weight > 0.0) {
        bail!("weight {weight}: expected a positive number");
    }
    // Tests are named after the package, else the crate's directory (its
    // name, also for `path = "."`).
    let dir = manifest.parent().and_then(|d| d.canonicalize().ok());
    let dir_name = dir
        .as_deref()
        .and_then(Path::file_name)
        .map_or_else(|| entry.path.clone(), |n| n.to_string_lossy().into_owned());
    Ok(SuiteRust {
        entry: name.to_string(),
        shown: entry.package.clone().unwrap_or(dir_name),
        manifest,
        package: entry.package.clone(),
        tests: entry.tests.list(),
        skip: entry.skip.list(),
        features: entry.features.clone(),
        rustflags: entry.rustflags.clone(),
        env: entry.env.clone(),
        weight,
    })
}

/// A path or glob relative to the suite file: (as the suite shows it, the
/// path to read), sorted.
fn expand(base: &Path, pattern: &str) -> Result<Vec<(String, PathBuf)>> {
    let is_glob = pattern.contains(['*', '?', '[']);
    if !is_glob {
        let path = base.join(pattern);
        if !path.is_file() {
            bail!("no program at {}", path.display());
        }
        return Ok(vec![(pattern.to_string(), path)]);
    }
    let full = base.join(pattern);
    let full = full.to_string_lossy();
    let mut found = Vec::new();
    for entry in glob::glob(&full).with_context(|| format!("bad glob `{pattern}`"))? {
        let path = entry.with_context(|| format!("glob `{pattern}`"))?;
        if path.is_file() {
            let shown = path
                .strip_prefix(base)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| path.display().to_string());
            found.push((shown, path));
        }
    }
    found.sort();
    if found.is_empty() {
        bail!("the glob `{pattern}` matches no file");
    }
    Ok(found)
}

/// Two entries may not give the same name with the same options: their
/// streams would be one.
fn check_distinct(programs: &[SuiteProgram], path: &Path) -> Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    for p in programs {
        let key = (
            p.name.clone(),
            p.strategy.name(),
            p.depth,
            p.vars.as_ref().map(ToString::to_string),
            p.track.clone(),
            p.priorities == PrioritiesArg::ThreadBounded,
            p.max_steps,
        );
        if !seen.insert(key) {
            bail!(
                "{}: {} is listed twice with the same options",
                path.display(),
                p.name
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_file_reads_globs_options_and_names() {
        let dir = std::env::temp_dir().join(format!("rankcheck-suite-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("p")).unwrap();
        std::fs::write(dir.join("p/b.rk"), "").unwrap();
        std::fs::write(dir.join("p/a.rk"), "").unwrap();
        std::fs::write(
            dir.join("rankcheck.toml"),
            "seed = 9\n[[program]]\npath = \"p/*.rk\"\n[[program]]\npath = \"p/a.rk\"\ndefine = { N = 3 }\ndepth = 2\nvars = \"all\"\nweight = 2.0\n",
        )
        .unwrap();
        let suite = read_suite(&dir.join("rankcheck.toml")).unwrap();
        assert_eq!(suite.seed, Some(9));
        let names: Vec<&str> = suite.programs.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["p/a.rk", "p/b.rk", "p/a.rk -D N=3"]);
        assert_eq!(suite.programs[2].vars, Some(VarsArg::All));
        assert_eq!(suite.programs[2].weight, 2.0);
        std::fs::write(
            dir.join("bad.toml"),
            "[[program]]\npath = \"p/a.rk\"\nvars = \"many\"\n",
        )
        .unwrap();
        let error = read_suite(&dir.join("bad.toml")).unwrap_err();
        assert!(format!("{error:#}").contains("vars `many`"), "{error:#}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_rust_entry_reads_filters_skips_features_flags_and_environment() {
        let dir = std::env::temp_dir().join(format!("rankcheck-rust-suite-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("krate")).unwrap();
        std::fs::write(dir.join("krate/Cargo.toml"), "").unwrap();
        std::fs::write(
            dir.join("rankcheck.toml"),
            "[[rust]]\npath = \"krate\"\ntests = [\"a::\", \"\", \"b::\"]\nskip = \"slow\"\n\
             features = [\"facades\"]\nrustflags = \"--cfg loom\"\n\
             env = { LOOM_MAX_PREEMPTIONS = \"2\" }\n\
             [[rust]]\npath = \"krate\"\ntests = \"c::\"\n",
        )
        .unwrap();
        let suite = read_suite(&dir.join("rankcheck.toml")).unwrap();
        let [every, one] = &suite.rust[..] else {
            panic!("two entries: {:?}", suite.rust)
        };
        assert_eq!(every.tests, ["a::", "b::"], "an empty filter is no filter");
        assert_eq!(every.skip, ["slow"]);
        assert_eq!(every.features, ["facades"]);
        assert_eq!(every.rustflags.as_deref(), Some("--cfg loom"));
        assert_eq!(
            every.env.get("LOOM_MAX_PREEMPTIONS").map(String::as_str),
            Some("2")
        );
        assert_eq!(one.tests, ["c::"]);
        assert!(one.skip.is_empty() && one.features.is_empty() && one.env.is_empty());
        std::fs::write(
            dir.join("bad.toml"),
            "[[rust]]\npath = \"krate\"\nskip = 3\n",
        )
        .unwrap();
        let error = read_suite(&dir.join("bad.toml")).unwrap_err();
        assert!(
            format!("{error:#}").contains("line 3, column 8"),
            "{error:#}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
