//! The rankcheck front end: `.rk` source to the engine's IR.
//!
//! The syntax half is [`token`], [`lexer`], [`ast`] and [`parser`]: [`parse`]
//! takes source text and returns an [`ast::Module`] or every [`Diagnostic`]
//! found. [`Diagnostic`] is the front end's one error type, for syntax and
//! name errors alike; the binary renders it.
//!
//! The other half turns the tree into the engine's IR and plans what a
//! search observes. [`lower`] resolves names and folds constants (with the
//! `-D` overrides), then runs [`await_check`] (an `await` condition has no
//! side effects), collects `sync_operands`' warnings (an operand whose
//! declaration rules out the kind it needs) and, last, `optimize`.
//! [`compile()`] is all of it in one call, and [`compile_with_warnings`]
//! returns the warnings beside the program. [`points_to`] is the
//! inclusion-based alias analysis, and [`plan`] turns a tracked set into
//! the `Instrumentation` that observes the sites that may touch it.

pub mod ast;
pub mod diagnostic;
pub mod lexer;
pub mod parser;
pub mod token;

pub use diagnostic::Diagnostic;
pub use parser::parse;

pub mod await_check;
pub mod compile;
pub mod lower;
mod optimize;
pub mod plan;
pub mod points_to;
mod sync_operands;

pub use compile::{compile, compile_with_warnings, CompileError, Compiled};
pub use plan::Tracking;
pub use points_to::PointsTo;
