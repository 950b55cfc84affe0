//! The rankcheck front end: `.rk` source to the engine's IR.
//!
//! The syntax half is [`token`], [`lexer`], [`ast`] and [`parser`]: [`parse`]
//! takes source text and returns an [`ast::Module`] or every [`Diagnostic`]
//! found. [`Diagnostic`] is the front end's one error type, for syntax and
//! name errors alike; the binary renders it.

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
