//! Source text to IR in one call: parse, check the `-D` overrides, lower.

use std::collections::BTreeMap;

use rankcheck_engine::Program;
use thiserror::Error;

use crate::diagnostic::Diagnostic;
use crate::lower::{const_names, lower};
use crate::parser::parse;

/// Why a program did not compile.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CompileError {
    /// Syntax or name errors, every one found, in source order.
    #[error("{} error(s) in the program", .0.len())]
    Diagnostics(Vec<Diagnostic>),
    /// A `-D NAME=VALUE` names no `const` of the program.
    #[error("-D {name}: the program declares no const `{name}`{}", known_list(.known))]
    UnknownDefine {
        /// The name given.
        name: String,
        /// The consts the program does declare.
        known: Vec<String>,
    },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        " (it declares none)".to_string()
    } else {
        format!(" (it declares {})", known.join(", "))
    }
}

/// A compiled program, with what the compiler warns of.
#[derive(Debug)]
pub struct Compiled {
    /// The program.
    pub program: Program,
    /// Statements that fail whenever they run, in source order; the
    /// program still runs as the language says.
    pub warnings: Vec<Diagnostic>,
}

/// Compile `source` with `defines` overriding its consts (a later define of
/// the same name wins).
pub fn compile(source: &str, defines: &[(String, i64)]) -> Result<Program, CompileError> {
    compile_with_warnings(source, defines).map(|compiled| compiled.program)
}

/// [`compile`], with the warnings.
pub fn compile_with_warnings(
    source: &str,
    defines: &[(String, i64)],
) -> Result<Compiled, CompileError> {
    let module = parse(source).map_err(CompileError::Diagnostics)?;
    let known = const_names(&module);
    let mut overrides = BTreeMap::new();
    for (name, value) in defines {
        if !known.contains(&name.as_str()) {
            return Err(CompileError::UnknownDefine {
                name: name.clone(),
                known: known.iter().map(|s| s.to_string()).collect(),
            });
        }
        overrides.insert(name.clone(), *value);
    }
    lower(source, &module, &overrides)
        .map(|lowered| Compiled {
            program: lowered.program,
            warnings: lowered.warnings,
        })
        .map_err(|mut diagnostics| {
            diagnostics.sort_by_key(|d| d.span);
            CompileError::Diagnostics(diagnostics)
        })
}
