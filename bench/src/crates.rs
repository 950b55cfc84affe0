//! `crates`: published crates' own tests under the library they were
//! written for and under rankcheck's facade for it, side by side
//! (`results/crates.*`): loom models under real loom and under
//! rankcheck-loom, `#[tokio::test]`s under real tokio and under
//! rankcheck-tokio.
//!
//! For each crate of `bench/crates/corpus.toml`: fetch its published
//! source through cargo, copy it twice into the work folder, keep one as
//! published and rename the facade's dependency (`loom`, `tokio`) to the
//! facade's package in the other (`manifest::edit`, nothing else changed
//! but an empty `[workspace]` in both), build both with the crate's own
//! RUSTFLAGS and `cargo test` arguments, list the tests and run each alone
//! under both tools, alternating, with a per-test timeout that kills the
//! test's process group. Every crate's rows replace its old ones (of the
//! same facade) in `results/crates.csv` as soon as it is done, and
//! `results/crates.md` is rewritten from the whole CSV, so that an
//! interrupted run keeps what it measured and a subset (`--crates`) leaves
//! the others' rows alone.

mod corpus;
mod executions;
pub use corpus::Facade;
pub mod historical;
mod manifest;
mod outcome;
mod process;
mod table;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::cli::CratesArgs;
use crate::crates::corpus::{Corpus, Entry};
use crate::crates::manifest::{edit, Patch, Rename};
use crate::crates::outcome::{build_cause, classify, parse_test_list, Outcome};
use crate::crates::process::{run_bounded, Ending};
use crate::crates::table::Row;
use crate::workload::{commit, root};

/// A side of a comparison: a crate as published, or with its dependency
/// renamed to a facade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// The crate as published, with real loom.
    Loom,
    /// The crate with its loom dependency renamed to `rankcheck-loom`.
    RankcheckLoom,
    /// The crate as published, with real tokio.
    Tokio,
    /// The crate with its tokio dependency renamed to `rankcheck-tokio`.
    RankcheckTokio,
}

impl Tool {
    const ALL: [Tool; 4] = [
        Tool::Loom,
        Tool::RankcheckLoom,
        Tool::Tokio,
        Tool::RankcheckTokio,
    ];

    /// The two sides of `facade`'s comparison: as published, then renamed.
    pub fn pair(facade: Facade) -> [Tool; 2] {
        match facade {
            Facade::Loom => [Tool::Loom, Tool::RankcheckLoom],
            Facade::Tokio => [Tool::Tokio, Tool::RankcheckTokio],
        }
    }

    /// The facade whose comparison the side belongs to.
    pub fn facade(self) -> Facade {
        match self {
            Tool::Loom | Tool::RankcheckLoom => Facade::Loom,
            Tool::Tokio | Tool::RankcheckTokio => Facade::Tokio,
        }
    }

    /// Whether this is the side built against the facade.
    pub fn is_renamed(self) -> bool {
        matches!(self, Tool::RankcheckLoom | Tool::RankcheckTokio)
    }

    /// The tool's name in results and in the work folder.
    pub fn word(self) -> &'static str {
        match self {
            Tool::Loom | Tool::Tokio => self.facade().word(),
            Tool::RankcheckLoom | Tool::RankcheckTokio => self.facade().package(),
        }
    }

    /// The tool a results row names.
    pub fn from_word(word: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|tool| tool.word() == word)
    }
}

/// What one command-line run holds fixed.
struct Settings {
    work: PathBuf,
    /// This repository, where the facades' folders are.
    repo: PathBuf,
    timeout: Duration,
    build_timeout: Duration,
    jobs: usize,
    max_tests: usize,
    /// `--tests`: run only the tests whose name contains one (none: all).
    tests: Vec<String>,
    /// Run the published side's tests where the renamed side did not
    /// build.
    published_alone: bool,
    commit: String,
}

pub fn run(args: &CratesArgs) -> Result<()> {
    let root = root().canonicalize()?;
    let corpus = Corpus::load(&root.join("bench/crates/corpus.toml"))?;
    let results = root.join("results");
    let csv_path = results.join("crates.csv");
    let md_path = results.join("crates.md");
    let mut rows = table::read(&csv_path)?;
    if !args.report_only {
        // The corpus's order, or the order `--crates` names them in.
        let facades: Vec<Facade> = match args.facade {
            Some(facade) => vec![facade.into()],
            None => Facade::ALL.to_vec(),
        };
        let candidates = || corpus.crates.iter().filter(|c| facades.contains(&c.facade));
        let mut selected: Vec<&Entry> = Vec::new();
        if args.crates.is_empty() {
            selected.extend(candidates());
        }
        for name in &args.crates {
            let named = std::slice::from_ref(name);
            if !candidates().any(|c| c.is_named(named)) {
                bail!("no crate `{name}` in bench/crates/corpus.toml (facades: {facades:?})");
            }
            for entry in candidates().filter(|c| c.is_named(named)) {
                if !selected
                    .iter()
                    .any(|s| s.id() == entry.id() && s.facade == entry.facade)
                {
                    selected.push(entry);
                }
            }
        }
        let work = args
            .work
            .clone()
            .unwrap_or_else(|| root.join("target/crates"));
        std::fs::create_dir_all(&work)?;
        let settings = Settings {
            work: work.canonicalize()?,
            repo: root.clone(),
            timeout: Duration::from_secs(args.timeout),
            build_timeout: Duration::from_secs(args.build_timeout),
            jobs: args.jobs,
            max_tests: args.max_tests,
            tests: args.tests.clone(),
            published_alone: args.published_alone,
            commit: commit(),
        };
        for entry in selected {
            eprintln!("== {} ({})", entry.id(), entry.facade.word());
            let measured = measure(entry, &settings);
            let (earlier, others): (Vec<Row>, Vec<Row>) = std::mem::take(&mut rows)
                .into_iter()
                .partition(|r| r.is_of(entry));
            rows = others;
            rows.extend(keep_unselected(measured, earlier));
            table::write(&csv_path, &rows)?;
            std::fs::write(&md_path, table::markdown(&corpus, &rows))?;
        }
    }
    std::fs::write(&md_path, table::markdown(&corpus, &rows))?;
    eprintln!("wrote results/crates.csv and results/crates.md");
    Ok(())
}

/// A test binary of one side's build.
struct Binary {
    /// `lib` or the test target's name.
    target: String,
    path: PathBuf,
    /// Its tests, after the crate's filter.
    tests: Vec<String>,
}

/// One side of a crate, built or not.
struct Side {
    tool: Tool,
    dir: PathBuf,
    binaries: Vec<Binary>,
}

/// Every row of one crate: a build row per tool, then a row per test and
/// tool. Nothing here fails the whole command: a fetch, edit or build
/// that fails is a `build-failure` row with its cause.
fn measure(entry: &Entry, settings: &Settings) -> Vec<Row> {
    let mut rows = Vec::new();
    let source = match fetch(entry, settings) {
        Ok(source) => source,
        Err(error) => {
            for tool in Tool::pair(entry.facade) {
                let cause = format!("fetch: {error:#}");
                rows.push(Row::build(
                    entry,
                    tool,
                    None,
                    cause,
                    "",
                    settings_row(settings),
                ));
            }
            return rows;
        }
    };
    let mut sides = Vec::new();
    for tool in Tool::pair(entry.facade) {
        eprintln!("   building under {}", tool.word());
        match prepare_and_build(entry, tool, &source, settings) {
            Ok((side, seconds, manifest)) => {
                let tests: usize = side.binaries.iter().map(|b| b.tests.len()).sum();
                eprintln!("   built in {seconds:.0} s, {tests} tests");
                rows.push(Row::build(
                    entry,
                    tool,
                    Some(seconds),
                    String::new(),
                    &manifest,
                    settings_row(settings),
                ));
                sides.push(side);
            }
            Err(failure) => {
                eprintln!("   build failure: {}", failure.cause);
                rows.push(Row::build(
                    entry,
                    tool,
                    failure.seconds,
                    failure.cause,
                    &failure.manifest,
                    settings_row(settings),
                ));
            }
        }
    }
    rows.extend(run_tests(entry, &sides, settings));
    rows
}

/// The facts every row of a run carries.
fn settings_row(settings: &Settings) -> table::RunFacts {
    table::RunFacts {
        timeout_s: settings.timeout.as_secs(),
        commit: settings.commit.clone(),
    }
}

/// The crate's published source, fetched by cargo: a scratch package
/// that depends on `name = "=version"`, whose `cargo metadata` downloads
/// and unpacks it and says where.
fn fetch(entry: &Entry, settings: &Settings) -> Result<PathBuf> {
    let scratch = settings.work.join("fetch").join(entry.id());
    std::fs::create_dir_all(scratch.join("src"))?;
    std::fs::write(scratch.join("src/lib.rs"), "")?;
    std::fs::write(
        scratch.join("Cargo.toml"),
        format!(
            "[package]\nname = \"fetch-corpus-crate\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\npinned = {{ package = \"{}\", version = \"={}\" }}\n\n[workspace]\n",
            entry.name, entry.version
        ),
    )?;
    let output = Command::new("cargo")
        .args(["metadata", "--format-version", "1"])
        .current_dir(&scratch)
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed for {}", entry.id());
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == entry.name.as_str() && p["version"] == entry.version.as_str())
        .and_then(|p| p["manifest_path"].as_str())
        .with_context(|| format!("{} is not in the scratch package's metadata", entry.id()))?;
    let source = Path::new(manifest)
        .parent()
        .context("a manifest path without a folder")?;
    Ok(source.to_path_buf())
}

/// Why one side did not build.
struct BuildFailure {
    seconds: Option<f64>,
    cause: String,
    manifest: String,
}

/// Copy the source for `tool`, edit its manifest, build its tests and list
/// them: the side, its build time and its manifest's change in words.
fn prepare_and_build(
    entry: &Entry,
    tool: Tool,
    source: &Path,
    settings: &Settings,
) -> std::result::Result<(Side, f64, String), BuildFailure> {
    let failure = |cause: String, manifest: &str| BuildFailure {
        seconds: None,
        cause,
        manifest: manifest.to_string(),
    };
    let dir = settings.work.join(entry.id()).join(tool.word());
    copy_fresh(source, &dir).map_err(|e| failure(format!("copy: {e:#}"), ""))?;
    let manifest_path = dir.join("Cargo.toml");
    let published = std::fs::read_to_string(&manifest_path)
        .map_err(|e| failure(format!("read Cargo.toml: {e}"), ""))?;
    let facade = settings.repo.join(entry.facade.folder());
    let patch_path = entry.facade.patch_folder().map(|f| settings.repo.join(f));
    let rename = Rename {
        key: entry.dependency_key(),
        package: entry.facade.package(),
        path: &facade,
        patch: patch_path.as_deref().map(|path| Patch {
            package: entry.facade.word(),
            path,
        }),
    };
    let edited = edit(&published, tool.is_renamed().then_some(rename))
        .map_err(|e| failure(format!("manifest: {e:#}"), ""))?;
    let manifest = edited.describe();
    std::fs::write(&manifest_path, &edited.text)
        .map_err(|e| failure(format!("write Cargo.toml: {e}"), &manifest))?;
    let logs = settings.work.join(entry.id()).join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| failure(e.to_string(), &manifest))?;
    let json = logs.join(format!("{}.build.json", tool.word()));
    let log = logs.join(format!("{}.build.log", tool.word()));
    let mut command = Command::new("nice");
    command
        .args(["-n", "19", "cargo", "test"])
        .args(&entry.args)
        .args(["--no-run", "--message-format=json-render-diagnostics"])
        .current_dir(&dir)
        .env(
            "CARGO_TARGET_DIR",
            target_dir(settings, tool, &entry.rustflags),
        )
        .env("CARGO_BUILD_JOBS", settings.jobs.to_string())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    if entry.rustflags.is_empty() {
        command.env_remove("RUSTFLAGS");
    } else {
        command.env("RUSTFLAGS", &entry.rustflags);
    }
    let outputs = File::create(&json).and_then(|out| Ok((out, File::create(&log)?)));
    let (out, err) = outputs.map_err(|e| failure(e.to_string(), &manifest))?;
    command.stdout(out).stderr(err);
    let finished = run_bounded(command, settings.build_timeout)
        .map_err(|e| failure(format!("{e:#}"), &manifest))?;
    let seconds = finished.seconds;
    let failed = |cause: String| BuildFailure {
        seconds: Some(seconds),
        cause,
        manifest: manifest.clone(),
    };
    match finished.ending {
        Ending::Exited(0) => {}
        Ending::TimedOut => return Err(failed("build timed out".to_string())),
        Ending::Signalled(signal) => {
            return Err(failed(format!("cargo killed by signal {signal}")))
        }
        Ending::Exited(_) => {
            let stderr = std::fs::read(&log).unwrap_or_default();
            return Err(failed(build_cause(&String::from_utf8_lossy(&stderr))));
        }
    }
    let artifacts = std::fs::read_to_string(&json).map_err(|e| failed(e.to_string()))?;
    let mut binaries = Vec::new();
    for (target, path) in test_executables(&artifacts) {
        let listing = Command::new(&path)
            .args(["--list"])
            .current_dir(&dir)
            .output()
            .map_err(|e| failed(format!("{} --list: {e}", path.display())))?;
        if !listing.status.success() {
            let stderr = String::from_utf8_lossy(&listing.stderr);
            return Err(failed(format!("{target} --list failed: {}", stderr.trim())));
        }
        let tests = parse_test_list(&String::from_utf8_lossy(&listing.stdout))
            .into_iter()
            .filter(|t| entry.filter.as_ref().is_none_or(|f| t.contains(f.as_str())))
            .collect();
        binaries.push(Binary {
            target,
            path,
            tests,
        });
    }
    Ok((
        Side {
            tool,
            dir,
            binaries,
        },
        seconds,
        manifest,
    ))
}

/// The target folder of `tool`'s builds under `rustflags`, shared by the
/// crates built with the same flags: cargo rebuilds every dependency when
/// RUSTFLAGS change, so crates with other flags (`--cfg oneshot_loom`)
/// get a folder of their own rather than rebuilding the shared one.
fn target_dir(settings: &Settings, tool: Tool, rustflags: &str) -> PathBuf {
    let flags: String = rustflags
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let flags = if flags.is_empty() {
        "none".to_string()
    } else {
        flags
    };
    settings.work.join("target").join(tool.word()).join(flags)
}

/// The test executables of a `cargo test --no-run --message-format=json`
/// build, each with its target's name (`lib` for the library's tests).
fn test_executables(artifacts: &str) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    for line in artifacts.lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" || message["profile"]["test"] != true {
            continue;
        }
        let Some(executable) = message["executable"].as_str() else {
            continue;
        };
        let kind = message["target"]["kind"][0].as_str().unwrap_or("");
        let name = message["target"]["name"].as_str().unwrap_or("");
        let target = match kind {
            "lib" | "rlib" | "dylib" | "cdylib" | "staticlib" | "proc-macro" => "lib".to_string(),
            "test" => name.to_string(),
            other => format!("{other}:{name}"),
        };
        let path = PathBuf::from(executable);
        if !found.iter().any(|(_, p)| *p == path) {
            found.push((target, path));
        }
    }
    found
}

/// Run every test of the sides alone, the tools alternating test by test
/// so that the machine's noise falls on both alike.
fn run_tests(entry: &Entry, sides: &[Side], settings: &Settings) -> Vec<Row> {
    // The tests in the order of the first side that lists them.
    let mut keys: Vec<(String, String)> = Vec::new();
    for side in sides {
        for binary in &side.binaries {
            for test in &binary.tests {
                let key = (binary.target.clone(), test.clone());
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
    }
    let total = keys.len();
    let mut rows = Vec::new();
    for (index, (target, test)) in keys.iter().enumerate() {
        for side in sides {
            let Some(binary) = side
                .binaries
                .iter()
                .find(|b| b.target == *target && b.tests.contains(test))
            else {
                continue;
            };
            let facts = settings_row(settings);
            let alone = !side.tool.is_renamed() && sides.len() == 1 && !settings.published_alone;
            let beyond = settings.max_tests > 0 && index >= settings.max_tests;
            let unselected = !settings.tests.is_empty()
                && !settings
                    .tests
                    .iter()
                    .any(|part| format!("{target}: {test}").contains(part.as_str()));
            if alone || beyond || unselected {
                let detail = if alone {
                    format!(
                        "{} did not build (--published-alone runs these)",
                        entry.facade.package()
                    )
                } else if unselected {
                    UNSELECTED.to_string()
                } else {
                    format!("beyond --max-tests {}", settings.max_tests)
                };
                rows.push(Row::test(
                    entry,
                    side.tool,
                    target,
                    test,
                    Outcome::Skipped,
                    None,
                    detail,
                    facts,
                ));
                continue;
            }
            let (outcome, seconds, detail, executions) =
                match run_one(entry, side, binary, test, settings) {
                    Ok(result) => result,
                    Err(error) => (Outcome::NotRun, 0.0, format!("bench: {error:#}"), None),
                };
            eprintln!(
                "   [{}/{total}] {target}: {test} {}: {outcome} {seconds:.1} s",
                index + 1,
                side.tool.word()
            );
            rows.push(
                Row::test(
                    entry,
                    side.tool,
                    target,
                    test,
                    outcome,
                    Some(seconds),
                    detail,
                    facts,
                )
                .with_executions(executions),
            );
        }
    }
    rows
}

/// The detail of a test `--tests` left out.
const UNSELECTED: &str = "not among --tests";

/// A crate's rows as measured, but for each test `--tests` left out its
/// `earlier` row, where it has one.
fn keep_unselected(measured: Vec<Row>, earlier: Vec<Row>) -> Vec<Row> {
    measured
        .into_iter()
        .map(|row| {
            if row.detail != UNSELECTED {
                return row;
            }
            earlier
                .iter()
                .find(|e| e.tool == row.tool && e.target == row.target && e.test == row.test)
                .cloned()
                .unwrap_or(row)
        })
        .collect()
}

/// One test alone (`--exact`), its output in a log file under the work
/// folder; its outcome, wall seconds and message.
fn run_one(
    entry: &Entry,
    side: &Side,
    binary: &Binary,
    test: &str,
    settings: &Settings,
) -> Result<(Outcome, f64, String, Option<u64>)> {
    let log = log_path(
        entry,
        side.tool,
        &format!("{}__{test}", binary.target),
        settings,
    )?;
    let (outcome, seconds, detail, output) =
        run_logged(entry, side, binary, test, settings, &[], &log)?;
    let executions = (outcome == Outcome::Pass)
        .then(|| executions::exhausted_executions(side.tool, &output))
        .flatten();
    Ok((outcome, seconds, detail, executions))
}

/// The log file `<work>/<crate>/logs/<tool>/<label>.log`, its folder made,
/// `label` made a file name.
fn log_path(entry: &Entry, tool: Tool, label: &str, settings: &Settings) -> Result<PathBuf> {
    let logs = settings
        .work
        .join(entry.id())
        .join("logs")
        .join(tool.word());
    std::fs::create_dir_all(&logs)?;
    let file_name: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Ok(logs.join(format!("{file_name}.log")))
}

/// rankcheck's variables a test reads, none inherited from the caller.
const RANKCHECK_VARIABLES: [&str; 9] = [
    "RANKCHECK_SEED",
    "RANKCHECK_RUNS",
    "RANKCHECK_TIME",
    "RANKCHECK_REPLAY",
    "RANKCHECK_RECORDS",
    "RANKCHECK_FIRST_RUN",
    "RANKCHECK_LOOM_EXHAUSTIVE",
    "RANKCHECK_LOOM_SEARCH",
    "RANKCHECK_LOOM_SPURIOUS_CAS",
];

/// One test alone, as `run_one`, with `extra` set in its environment over
/// the crate's (a seed, a replay string) and its output in `log`: its
/// outcome, seconds, message and whole output.
fn run_logged(
    entry: &Entry,
    side: &Side,
    binary: &Binary,
    test: &str,
    settings: &Settings,
    extra: &[(String, String)],
    log: &Path,
) -> Result<(Outcome, f64, String, String)> {
    let out = File::create(log)?;
    let mut command = Command::new(&binary.path);
    command
        // A passing test's output too: what rankcheck says it earned.
        .args([test, "--exact", "--test-threads=1", "--show-output"])
        .current_dir(&side.dir)
        .env("CARGO_MANIFEST_DIR", &side.dir)
        // The same output whatever the caller's environment says.
        .env("RUST_BACKTRACE", "0");
    for variable in RANKCHECK_VARIABLES {
        command.env_remove(variable);
    }
    if side.tool == Tool::Loom {
        // loom's count of the executions of each model it exhausts.
        let (name, value) = executions::LOOM_LOG;
        command.env(name, value);
    }
    command
        .envs(&entry.env)
        .envs(extra.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    let finished = run_bounded(command, settings.timeout)?;
    let output = String::from_utf8_lossy(&std::fs::read(log)?).into_owned();
    let (outcome, detail) = classify(finished.ending, &output, test);
    Ok((outcome, finished.seconds, detail, output))
}

/// `to` made a fresh copy of the folder `from` (a crate's unpacked source).
fn copy_fresh(from: &Path, to: &Path) -> Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to).with_context(|| format!("cannot remove {}", to.display()))?;
    }
    copy_dir(from, to)
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for item in std::fs::read_dir(from)? {
        let item = item?;
        let kind = item.file_type()?;
        let target = to.join(item.file_name());
        if kind.is_dir() {
            copy_dir(&item.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(item.path(), &target)?;
        } else if kind.is_symlink() {
            // Published crates hold no links cargo would follow; copy what
            // the link points at if it resolves, else leave it out.
            if let Ok(meta) = std::fs::metadata(item.path()) {
                if meta.is_file() {
                    std::fs::copy(item.path(), &target)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_executables_are_read_off_cargo_json() {
        let artifacts = r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"bytes"},"profile":{"test":false},"executable":null}
{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"bytes"},"profile":{"test":true},"executable":"/t/release/deps/bytes-1"}
{"reason":"compiler-artifact","target":{"kind":["test"],"name":"loom"},"profile":{"test":true},"executable":"/t/release/deps/loom-2"}
{"reason":"build-finished","success":true}
not json"#;
        assert_eq!(
            test_executables(artifacts),
            [
                ("lib".to_string(), PathBuf::from("/t/release/deps/bytes-1")),
                ("loom".to_string(), PathBuf::from("/t/release/deps/loom-2")),
            ]
        );
    }

    fn row(test: &str, outcome: &str, detail: &str) -> Row {
        Row {
            name: "tokio".into(),
            version: "1.0.0".into(),
            tool: Tool::RankcheckLoom.word().into(),
            target: "lib".into(),
            test: test.into(),
            outcome: outcome.into(),
            seconds: "1.00".into(),
            timeout_s: 300,
            detail: detail.into(),
            manifest: String::new(),
            commit: "abc".into(),
            executions: String::new(),
        }
    }

    #[test]
    fn a_test_left_out_by_tests_keeps_its_earlier_row() {
        let measured = vec![
            row("notify", "pass", ""),
            row("mpsc", "skipped", UNSELECTED),
            row("never_run", "skipped", UNSELECTED),
        ];
        let earlier = vec![row("notify", "fail", "old"), row("mpsc", "timeout", "")];
        let kept: Vec<(String, String)> = keep_unselected(measured, earlier)
            .into_iter()
            .map(|r| (r.test, r.outcome))
            .collect();
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            kept,
            pairs(&[
                ("notify", "pass"),
                ("mpsc", "timeout"),
                ("never_run", "skipped")
            ])
        );
    }
}
