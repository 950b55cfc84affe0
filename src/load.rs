//! Reading and compiling a program named on the command line.

use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};
use rankcheck_engine::Program;
use rankcheck_instr::CompileError;

use crate::diagnostics::SourceFile;

/// A compiled program with its source, for reports.
pub struct Loaded {
    /// The source, for rendering locations.
    pub file: SourceFile,
    /// The lowered program.
    pub program: Arc<Program>,
}

/// Read `path` and compile it with `defines`. Diagnostics are printed to
/// stderr; the error says how many there were.
pub fn load(path: &Path, defines: &[(String, i64)]) -> Result<Loaded> {
    let source =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file = SourceFile::new(path.display().to_string(), source);
    match rankcheck_instr::compile_with_warnings(file.source(), defines) {
        Ok(compiled) => {
            if !compiled.warnings.is_empty() {
                use std::io::Write as _;
                let _ = write!(
                    std::io::stderr().lock(),
                    "{}",
                    file.render_warnings(&compiled.warnings)
                );
            }
            Ok(Loaded {
                file,
                program: Arc::new(compiled.program),
            })
        }
        Err(CompileError::Diagnostics(diagnostics)) => {
            {
                use std::io::Write as _;
                let _ = write!(
                    std::io::stderr().lock(),
                    "{}",
                    file.render_diagnostics(&diagnostics)
                );
            }
            let n = diagnostics.len();
            Err(anyhow!(
                "could not compile {} ({n} error{})",
                file.name(),
                if n == 1 { "" } else { "s" }
            ))
        }
        Err(error @ CompileError::UnknownDefine { .. }) => Err(anyhow!("{}: {error}", file.name())),
    }
}
