//! Why a program cannot be run by the reference.

use rankcheck_instr::Diagnostic;
use thiserror::Error;

/// A program the reference refuses.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RefError {
    /// The parser found syntax errors.
    #[error("{} syntax error(s), the first: {}", .0.len(), first_message(.0))]
    Syntax(Vec<Diagnostic>),
    /// A `-D NAME=VALUE` names no `const` of the program.
    #[error("-D {0}: the program declares no const `{0}`")]
    UnknownDefine(String),
    /// A name, constant or well-formedness error found while resolving.
    #[error("line {line}: {message}")]
    Invalid {
        /// 1-based line of the offending construct.
        line: u32,
        /// What is wrong, in lower case.
        message: String,
    },
}

fn first_message(diagnostics: &[Diagnostic]) -> &str {
    diagnostics
        .first()
        .map_or("", |diagnostic| diagnostic.message.as_str())
}
