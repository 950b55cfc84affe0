//! The replay lines a failure report ends with: a command that reruns the
//! failing run when pasted into a shell, and the call that does the same
//! in code.
//!
//! Inside `cargo test` (libtest names each test's thread after the test),
//! the command is `RANKCHECK_REPLAY='rc4:…' cargo test -- --exact NAME`,
//! with `--release` when the test binary was built so and the `RUSTFLAGS`
//! the test ran under (a loom test exists only under `--cfg loom`): a
//! `#[rankcheck::test]`, a facade's `#[tokio::test]` or a loom `model`
//! has no closure to hand to `rankcheck::replay`. The string is quoted:
//! its `*` would otherwise be a shell glob.

use std::fmt::Write as _;

/// The replay lines for `replay`, as run by the current test.
pub fn replay_lines(replay: &str) -> String {
    let test = std::thread::current().name().map(str::to_owned);
    let exe = std::env::current_exe().ok();
    let release = exe
        .as_ref()
        .is_some_and(|p| p.components().any(|c| c.as_os_str() == "release"));
    let rustflags = std::env::var("RUSTFLAGS").ok();
    lines(replay, test.as_deref(), release, rustflags.as_deref())
}

/// The lines for `replay` run by the libtest test `test` (`None`, or
/// `main`: not under libtest).
fn lines(replay: &str, test: Option<&str>, release: bool, rustflags: Option<&str>) -> String {
    let mut out = String::new();
    match test.filter(|t| *t != "main") {
        Some(test) => {
            let release = if release { " --release" } else { "" };
            let flags = match rustflags.filter(|f| !f.trim().is_empty()) {
                Some(flags) => format!("RUSTFLAGS={} ", shell_quote(flags)),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "replay: {flags}RANKCHECK_REPLAY={} cargo test{release} -- --exact {test}",
                shell_quote(replay)
            );
            let _ = writeln!(out, "    (in code: rankcheck::replay(test, \"{replay}\"))");
        }
        None => {
            let _ = writeln!(out, "replay: rankcheck::replay(test, \"{replay}\")");
            let _ = writeln!(
                out,
                "    (or rerun with RANKCHECK_REPLAY={} set)",
                shell_quote(replay)
            );
        }
    }
    out
}

/// `text` in single quotes for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_cargo_test_the_command_names_the_test_the_profile_and_the_flags() {
        let text = lines(
            "rc4:all:w:sc:r:0*2_1:ab",
            Some("loom::steal"),
            true,
            Some("--cfg loom"),
        );
        assert_eq!(
            text,
            "replay: RUSTFLAGS='--cfg loom' RANKCHECK_REPLAY='rc4:all:w:sc:r:0*2_1:ab' cargo test \
             --release -- --exact loom::steal\n    (in code: rankcheck::replay(test, \
             \"rc4:all:w:sc:r:0*2_1:ab\"))\n"
        );
    }

    #[test]
    fn outside_a_test_the_call_comes_first() {
        let text = lines("rc4:x", Some("main"), false, None);
        assert!(
            text.starts_with("replay: rankcheck::replay(test, \"rc4:x\")\n"),
            "{text}"
        );
        assert!(text.contains("RANKCHECK_REPLAY='rc4:x'"), "{text}");
    }
}
