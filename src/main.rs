//! The `rankcheck` command line.
//!
//! `cli.rs` holds the clap types, and only it. The commands: `check/`
//! (one program's phases: `run.rs`; the failure to show: `found.rs`; the
//! summary's model: `summary.rs`), `replay.rs`, `bounds.rs`, `explore/`
//! (`explore` and `classify`), `sites.rs`, `plot/` (`plot bound`, `plot
//! hits`, `plot history`, and the figure of `check --plot`) and
//! `nightly/` (a campaign's night, and the `merge` and `report`
//! commands).
//!
//! What they share: `load.rs` reads and compiles a program, `plan.rs`
//! turns flags into a strategy, `trace.rs` replays a schedule into the
//! steps a report shows, `failure.rs` builds a failure's model for every
//! command and renders its source excerpt (the rest is
//! `rankcheck-report`'s), `shrink.rs` shrinks a failing schedule for
//! `check` and `nightly`, `replay_store.rs` names and finds replay files,
//! `diagnostics.rs` is the one place that turns spans into lines,
//! `progress.rs` the progress line, `output_file.rs` the files written,
//! `invocation.rs` the command to type next, `interrupt.rs` SIGINT and
//! SIGTERM, and `exit.rs` the exit statuses.

/// `println!` that does not panic when stdout is closed (`rankcheck ... |
/// head`): the report is best effort there, the exit code is what counts.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// `eprintln!` that does not panic when stderr is closed (`rankcheck ...
/// 2>&1 | head`).
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// `print!` with the same care as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod bounds;
mod check;
mod cli;
mod diagnostics;
mod exit;
mod explore;
mod failure;
use rankcheck_engine::guarantee;
mod interrupt;
mod invocation;
mod load;
mod nightly;
mod output_file;
mod plan;
mod plot;
mod progress;
mod replay;
mod replay_store;
mod shrink;
mod sites;
mod trace;

use std::process::ExitCode;

use crate::cli::Command;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(error) => {
            errln!("error: {error:#}");
            ExitCode::from(exit::Status::Usage)
        }
    }
}

/// 0: no failure; 1: a failure was found (or replayed); 2: usage or input
/// error (clap exits 2 on its own for bad flags); 3: stopped early.
fn run() -> anyhow::Result<ExitCode> {
    let cli = cli::parse();
    interrupt::install();
    match &cli.command {
        Command::Check(args) => check::check(args),
        Command::Replay(args) => replay::replay(args),
        Command::Bounds(args) => bounds::bounds(args),
        Command::Explore(args) => explore::explore(args),
        Command::Classify(args) => explore::classify(args),
        Command::Sites(args) => sites::sites(args),
        Command::Plot(args) => plot::plot(args),
        Command::Nightly(args) => nightly::nightly(args),
        Command::Merge(args) => nightly::merge::merge(args),
        Command::Report(args) => nightly::report::report(args),
    }
}
