//! The `rankcheck` command line.

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
mod guarantee;
mod interrupt;
mod load;
mod plan;
mod progress;
mod replay;
mod report;
mod sites;
mod summary;
mod trace_view;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

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
/// error (clap exits 2 on its own for bad flags).
fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    interrupt::install();
    match &cli.command {
        Some(Command::Replay(args)) => replay::replay(args),
        Some(Command::Bounds(args)) => bounds::bounds(args),
        Some(Command::Explore(args)) => explore::explore(args),
        Some(Command::Classify(args)) => explore::classify(args),
        Some(Command::Sites(args)) => sites::sites(args),
        None => check::check(&cli.test),
    }
}
