//! The command to print for the user to type next (`rankcheck replay
//! FILE`): `rankcheck` when that name on the PATH is this program, else the
//! absolute path of the running executable (after `cargo run`, say), and
//! files by absolute path, so that the printed command works pasted into
//! any directory.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `PROGRAM ARGS...` as the user can type it.
pub fn command_line(args: &[&str]) -> String {
    let mut line = program().to_string();
    for arg in args {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    line
}

/// `rankcheck replay FILE`, FILE by its absolute path.
pub fn replay_command(file: &Path) -> String {
    command_line(&["replay", &absolute(file).display().to_string()])
}

/// `path` from the root: canonical where it exists, else joined to the
/// current directory.
pub fn absolute(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// `path` as a user reads it: relative to the current directory when it
/// is under it (without `..` detours), else from the root.
pub fn shown(path: &Path) -> PathBuf {
    let full = absolute(path);
    // From `/`, `tmp/x.rk` would read as a typo of `/tmp/x.rk`.
    let here = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .ok()
        .filter(|dir| dir.parent().is_some());
    match here.and_then(|dir| full.strip_prefix(dir).ok().map(Path::to_path_buf)) {
        Some(relative) if !relative.as_os_str().is_empty() => relative,
        _ => full,
    }
}

/// `rankcheck`, or the absolute path of this executable.
fn program() -> &'static str {
    static PROGRAM: OnceLock<String> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let Ok(me) = std::env::current_exe().and_then(|p| p.canonicalize()) else {
            return "rankcheck".into();
        };
        if on_path("rankcheck").is_some_and(|p| p == me) {
            return "rankcheck".into();
        }
        quote(&me.display().to_string())
    })
}

/// Where `name` resolves on the PATH, canonicalized.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .and_then(|found| found.canonicalize().ok())
}

/// Single-quote an argument a shell would split or expand.
fn quote(arg: &str) -> String {
    let plain = arg
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain && !arg.is_empty() {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}
