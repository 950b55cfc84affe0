//! What the examples share: a `.rk` program read and compiled, a count
//! read off the command line; each failure said on stderr, as the exit
//! status 2.

use std::process::ExitCode;
use std::sync::Arc;

use rankcheck_engine::Program;

/// The program at `path`, compiled with no `-D` values; `example` names
/// the example in what it says.
pub fn load(example: &str, path: &str) -> Result<Arc<Program>, ExitCode> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("{example}: cannot read {path}: {e}");
        ExitCode::from(2)
    })?;
    rankcheck_instr::compile(&source, &[])
        .map(Arc::new)
        .map_err(|e| {
            eprintln!("{path}: {e}");
            ExitCode::from(2)
        })
}

/// The whole number `text`, the argument `name` of `example`.
pub fn count(example: &str, name: &str, text: &str) -> Result<u64, ExitCode> {
    text.parse().map_err(|_| {
        eprintln!("{example}: {name} must be a whole number, found `{text}`");
        ExitCode::from(2)
    })
}
