//! The rankcheck front end: `.rk` source to a syntax tree (this is the
//! syntax half: lexer, parser, diagnostics).
//!
//! [`parse`] is the entry point: source text in, an [`ast::Module`] or every
//! [`Diagnostic`] found out.

pub mod ast;
pub mod diagnostic;
pub mod lexer;
pub mod parser;
pub mod token;

pub use diagnostic::Diagnostic;
pub use parser::parse;

pub mod compile;
pub mod lower;

pub use compile::{compile, CompileError};
