//! A child process with a deadline: it runs in a process group of its own,
//! and at the deadline the whole group is killed, so that a test that
//! hangs, or a build that spawned compilers, leaves nothing behind.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// How a bounded process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (an abort, a segfault, the OOM killer).
    Signalled(i32),
    /// It ran past the deadline and its group was killed.
    TimedOut,
}

/// A bounded process's ending and its wall time.
#[derive(Debug, Clone, Copy)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// Wall seconds from spawn to end (to the kill at a timeout).
    pub seconds: f64,
}

/// Run `command` to its end or to `timeout`, whichever comes first. Its
/// output goes wherever `command` sends it (the caller's log files: a pipe
/// nobody drains could stall a chatty test).
pub fn run_bounded(mut command: Command, timeout: Duration) -> Result<Finished> {
    command.process_group(0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot start {:?}", command.get_program()))?;
    loop {
        if let Some(status) = child.try_wait()? {
            let ending = match (status.code(), status.signal()) {
                (Some(code), _) => Ending::Exited(code),
                (None, Some(signal)) => Ending::Signalled(signal),
                (None, None) => Ending::Exited(-1),
            };
            let seconds = started.elapsed().as_secs_f64();
            return Ok(Finished { ending, seconds });
        }
        let elapsed = started.elapsed();
        if elapsed >= timeout {
            kill_group(child.id());
            child.wait()?;
            let seconds = elapsed.as_secs_f64();
            return Ok(Finished {
                ending: Ending::TimedOut,
                seconds,
            });
        }
        // Short polls while most tests end, longer ones after: the time
        // recorded is off by at most a poll (a millisecond for the tests
        // that end within half a second, whose times are compared).
        let poll = if elapsed < Duration::from_millis(500) {
            1
        } else if elapsed < Duration::from_secs(2) {
            5
        } else {
            100
        };
        std::thread::sleep(Duration::from_millis(poll));
    }
}

/// Kill the process group led by `leader` (the workspace forbids the
/// `unsafe` a direct `kill(2)` needs, so through kill(1)).
fn kill_group(leader: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{leader}")])
        .status();
}

/// A signal's name, for the results.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exits_signals_and_timeouts_are_told_apart() {
        let shell = |script: &str| {
            let mut command = Command::new("sh");
            command.args(["-c", script]);
            run_bounded(command, Duration::from_secs(5)).unwrap().ending
        };
        assert_eq!(shell("exit 3"), Ending::Exited(3));
        assert_eq!(shell("kill -ABRT $$"), Ending::Signalled(6));
    }

    #[test]
    fn a_timeout_kills_the_whole_group() {
        // The shell's child would outlive a kill of the shell alone and
        // keep the pipe open: the group kill ends both.
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 30 & wait"]);
        let started = Instant::now();
        let finished = run_bounded(command, Duration::from_millis(200)).unwrap();
        assert_eq!(finished.ending, Ending::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
