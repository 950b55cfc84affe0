//! The rankcheck engine: the IR it executes, the virtual machine, schedulers
//! and search strategies, bug reports and replay.
//!
//! `instr` lowers source into an [`ir::Program`]; an [`Executable`]
//! specialises it for the variables a search tracks; a [`Vm`] runs it under
//! a [`Scheduler`] and ends each execution with an [`Outcome`].
//!
//! The engine never sees syntax: all it knows of the source are byte
//! [`Span`]s. What else is here, by module:
//!
//! - the schedulers: `random`, `priority` (PCT's and thread bounding's
//!   priorities), `pos` (partial order sampling), `walk` (URW and SURW);
//! - `strategy`: for each run, what is tracked and which scheduler
//!   decides; both front ends name strategies through its registry and
//!   run the same plans, settings and default cycle;
//! - `profile` (the preparatory runs), `search` (runs spread over
//!   workers), `guarantee` (the bounds and confidences every front end
//!   states);
//! - `explore` (exhaustive search) and `shrink` (a smaller failing
//!   schedule), each behind a trait every front end implements;
//! - `identity` (when two failures are one), `replay_file` (a failing
//!   schedule as a checksummed file).

pub mod await_code;
pub mod executable;
pub mod explore;
pub mod guarantee;
mod heap;
pub mod id;
pub mod identity;
pub mod ir;
pub mod outcome;
pub mod pos;
pub mod priority;
pub mod profile;
pub mod random;
pub mod replay;
pub mod replay_file;
pub mod scheduler;
pub mod search;
pub mod shrink;
pub mod span;
pub mod strategy;
pub mod value;
pub mod vm;
pub mod walk;

pub use executable::{Executable, InstanceKey, Instrumentation};
pub use id::{FuncId, SiteId, ThreadId, VarId};
pub use ir::Program;
pub use outcome::{Bug, BugKind, Outcome};
pub use priority::{PriorityScheduler, PriorityScheme};
pub use random::RandomScheduler;
pub use replay::{ReplayScheduler, Tracer};
pub use replay_file::ReplayFile;
pub use scheduler::{Access, Event, EventKind, Location, Pending, Point, Scheduler};
pub use search::{search, search_plan, SearchConfig, SearchResult};
pub use span::Span;
pub use strategy::{
    Executables, PriorityStrategy, RandomStrategy, Sampling, SamplingStrategy, Strategy, Tracked,
};
pub use value::Value;
pub use vm::{Limits, Vm, VmBuffers};
