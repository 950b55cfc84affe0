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

    /// The command that reruns it with a replay string.
    pub fn replay_command(&self, replay: &str) -> String {
        let mut words = vec![
            format!("RANKCHECK_REPLAY={replay}"),
            "cargo".into(),
            "test".into(),
            "--manifest-path".into(),
            crate::invocation::absolute(&self.spec.manifest)
                .display()
                .to_string(),
        ];
        if let Some(package) = &self.spec.package {
            words.extend(["-p".into(), package.clone()]);
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
        for test in list(&executable, &spec.tests)? {
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
            "the filter `{}` matches no test of the package (`cargo test -- --list` lists them)",
            spec.tests
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

/// The tests of `executable` the filter selects (ignored ones too: a
/// campaign may run what `cargo test` skips as too slow).
fn list(executable: &TestExecutable, filter: &str) -> Result<Vec<String>> {
    let mut command = Command::new(&executable.path);
    command
        .args(["--list", "--include-ignored"])
        .current_dir(&executable.package_dir);
    if !filter.is_empty() {
        command.arg(filter);
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
