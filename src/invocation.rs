//! The command to print for the user to type next (`rankcheck replay
//! FILE`): `rankcheck` when that name on the PATH is this program, else the
//! path of the running executable (after `cargo run`, say), so that the
//! printed command works either way.

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

/// `rankcheck`, or the path of this executable.
fn program() -> &'static str {
    static PROGRAM: OnceLock<String> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let Ok(me) = std::env::current_exe().and_then(|p| p.canonicalize()) else {
            return "rankcheck".into();
        };
        if on_path("rankcheck").is_some_and(|p| p == me) {
            return "rankcheck".into();
        }
        let here = std::env::current_dir().ok();
        let shown = here
            .and_then(|dir| me.strip_prefix(dir).ok().map(Path::to_path_buf))
            .unwrap_or_else(|| me.clone());
        quote(&shown.display().to_string())
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
