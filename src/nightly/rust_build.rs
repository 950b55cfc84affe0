//! A `[[rust]]` entry's tests, built once a night: `cargo test --no-run
//! --message-format=json` for its package gives the test executables,
//! each executable's `--list` with the entry's filter gives its tests, and
//! each test is one campaign program, versioned by the fingerprint of the
//! executable it is in.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use rankcheck_report::shard::executable_fingerprint;
use serde::Deserialize;

use super::suite::SuiteRust;

/// One test executable cargo built.
#[derive(Clone, Debug)]
pub struct TestExecutable {
    /// Its path.
    pub path: PathBuf,
    /// The fingerprint of its bytes.
    pub fingerprint: String,
    /// The `cargo test` target option that builds it: `--lib`, `--test
    /// NAME`, `--bin NAME`.
    pub target: Vec<String>,
    /// The directory cargo runs it in: its package's.
    pub package_dir: PathBuf,
}

/// One rankcheck-rt test of an entry.
#[derive(Clone, Debug)]
pub struct RustTest {
    /// The entry it comes from.
    pub spec: SuiteRust,
    /// Its name in the history: the entry's crate and the test's path.
    pub name: String,
    /// Its name as libtest lists it.
    pub test: String,
    /// The executable it is in.
    pub executable: TestExecutable,
}

impl RustTest {
    /// The crate's directory: the history's file of its failures when
    /// they name none.
    pub fn path(&self) -> String {
        self.executable.package_dir.display().to_string()
    }

    /// The command that reruns it with a replay string, pasteable into a
    /// POSIX shell: the entry's environment and RUSTFLAGS, then `cargo
    /// test` with its features, on this one test.
    pub fn replay_command(&self, replay: &str) -> String {
        let mut words = vec![format!("RANKCHECK_REPLAY={}", shell_word(replay))];
        if let Some(flags) = &self.spec.rustflags {
            words.push(format!("RUSTFLAGS={}", shell_word(flags)));
        }
        for (name, value) in &self.spec.env {
            words.push(format!("{name}={}", shell_word(value)));
        }
        words.extend([
            "cargo".into(),
            "test".into(),
            "--manifest-path".into(),
            shell_word(
                &crate::invocation::absolute(&self.spec.manifest)
                    .display()
                    .to_string(),
            ),
        ]);
        if let Some(package) = &self.spec.package {
            words.extend(["-p".into(), package.clone()]);
        }
        if !self.spec.features.is_empty() {
            words.extend(["--features".into(), self.spec.features.join(",")]);
        }
        words.extend(self.executable.target.iter().cloned());
        words.extend([
            self.test.clone(),
            "--".into(),
            "--exact".into(),
            "--include-ignored".into(),
        ]);
        words.join(" ")
    }
}

/// `word` as one shell word: as it is when it holds only characters no
/// shell treats specially, else single-quoted.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.,:/=+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What cargo says of one artifact (the fields used).
#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    executable: Option<PathBuf>,
    #[serde(default)]
    profile: Option<Profile>,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    manifest_path: Option<PathBuf>,
}

#[derive(Deserialize)]
struct Profile {
    test: bool,
}

#[derive(Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
}

/// Build the entry's test executables and list its tests: an error names
/// the entry (a package that does not build, with cargo's last lines; a
/// filter that matches no test).
pub fn rust_tests(spec: &SuiteRust) -> Result<Vec<RustTest>> {
    let executables = build(spec)?;
    let mut tests = Vec::new();
    for executable in executables {
        for test in list(&executable, spec)? {
            tests.push(RustTest {
                spec: spec.clone(),
                name: format!("{}::{test}", spec.shown),
                test,
                executable: executable.clone(),
            });
        }
    }
    if tests.is_empty() {
        bail!(
            "no test of the package is selected by {} (`cargo test -- --list` lists them)",
            selection(spec)
        );
    }
    let mut names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    if let Some(twice) = names.windows(2).find(|w| w[0] == w[1]) {
        bail!(
            "two test executables have a test `{}`: narrow `tests`",
            twice[0]
        );
    }
    Ok(tests)
}

/// `cargo test --no-run` for the entry's package: its test executables.
fn build(spec: &SuiteRust) -> Result<Vec<TestExecutable>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args([
            "test",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .arg("--manifest-path")
        .arg(&spec.manifest);
    if let Some(package) = &spec.package {
        command.args(["-p", package]);
    }
    if !spec.features.is_empty() {
        command.args(["--features", &spec.features.join(",")]);
    }
    if let Some(flags) = &spec.rustflags {
        command.env("RUSTFLAGS", flags);
    }
    let output = command
        .output()
        .context("cannot run cargo to build the tests")?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "the package does not build (`cargo test --no-run` exited with {}):\n{}",
            output.status,
            tail.join("\n")
        );
    }
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        let (Some(path), Some(profile), Some(target), Some(manifest)) = (
            message.executable,
            message.profile,
            message.target,
            message.manifest_path,
        ) else {
            continue;
        };
        if message.reason != "compiler-artifact" || !profile.test {
            continue;
        }
        let bytes = std::fs::read(&path)
            .with_context(|| format!("cannot read the test executable {}", path.display()))?;
        found.push(TestExecutable {
            fingerprint: executable_fingerprint(&bytes),
            target: target_option(&target),
            package_dir: manifest
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
            path,
        });
    }
    if found.is_empty() {
        bail!("cargo built no test executable for the package");
    }
    Ok(found)
}

/// The option that selects a target in `cargo test`.
fn target_option(target: &Target) -> Vec<String> {
    let kind = target.kind.first().map_or("lib", String::as_str);
    match kind {
        "test" | "bin" | "bench" | "example" => vec![format!("--{kind}"), target.name.clone()],
        _ => vec!["--lib".into()],
    }
}

/// How an error names the entry's selection of tests.
fn selection(spec: &SuiteRust) -> String {
    let quoted = |filters: &[String]| {
        filters
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = match spec.tests.as_slice() {
        [] => "no filter".to_string(),
        [one] => format!("the filter `{one}`"),
        many => format!("the filters {}", quoted(many)),
    };
    if !spec.skip.is_empty() {
        out.push_str(&format!(" less those skipped ({})", quoted(&spec.skip)));
    }
    out
}

/// The tests of `executable` the entry's filters select, less those it
/// skips (ignored ones too: a campaign may run what `cargo test` skips
/// as too slow).
fn list(executable: &TestExecutable, spec: &SuiteRust) -> Result<Vec<String>> {
    let mut command = Command::new(&executable.path);
    command
        .args(["--list", "--include-ignored"])
        .args(&spec.tests)
        .current_dir(&executable.package_dir);
    for skip in &spec.skip {
        command.args(["--skip", skip]);
    }
    let output = command
        .output()
        .with_context(|| format!("cannot run {}", executable.path.display()))?;
    if !output.status.success() {
        bail!(
            "{} --list exited with {}",
            executable.path.display(),
            output.status
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_string)
        .collect())
}
