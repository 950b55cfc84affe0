//! The two front ends held to one verdict. The generator (rankcheck-generate)
//! draws small `.rk` programs and renders each also as a Rust test of
//! rankcheck-rt (its "twin", [`world`] the shared state it uses); the
//! build script compiles every twin into this crate ([`programs`]).
//! [`compare()`] then runs both sides on a program: the engine explores
//! every schedule of the `.rk` text (as `rankcheck explore`), rankcheck-rt
//! every schedule of the twin ([`rankcheck_rt::explore`]), and the two sets
//! of reachable failures, each as a [`Verdict`] (kind, `.rk` line, assert
//! message, blocked lines), must be equal; the runtime's own search with a
//! fixed seed must report one of them, at the same place.

pub mod compare;
pub mod verdict;
pub mod world;

pub use compare::{compare, Budgets, Compared, Disagreement};
pub use rankcheck_engine::BugKind as Kind;
pub use verdict::Verdict;

/// What the generated code sees.
mod prelude {
    pub use crate::world::{spawn, spawn_copy, Vals, World, W};
    pub use rankcheck_rt::thread;
}

/// One generated program.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    /// Its place in the draw.
    pub index: usize,
    /// The `.rk` text.
    pub rk: &'static str,
    /// `(line in programs.rs, line in rk)` for every line of the twin
    /// that renders a `.rk` line.
    pub lines: &'static [(u32, u32)],
    /// The twin: one execution of the Rust test.
    pub run: fn(),
}

/// The generated programs (`$OUT_DIR/programs.rs`, written by the build
/// script): `PROGRAMS`, and a module per program.
#[allow(
    missing_docs,
    unused_variables,
    unused_mut,
    clippy::all,
    clippy::needless_return
)]
pub mod programs {
    use crate::Program;
    include!(concat!(env!("OUT_DIR"), "/programs.rs"));
}
