//! A chunk's failing run, replayed with a trace to read off its signature
//! (its identity: kind, place, masked message; its variant: the message,
//! the variables its threads raced on, the functions of the threads that
//! ran; never the schedule), and its replay file, of its schedule shrunk,
//! written the first time the shard meets the failure.

use std::path::Path;

use anyhow::{anyhow, Result};
use rankcheck_engine::identity::Identity;
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::search::Failure;
use rankcheck_engine::strategy::Strategy;
use rankcheck_engine::{Instrumentation, ReplayFile, Vm};
use rankcheck_history::Signature;
use rankcheck_report::shard::{raced_on, thread_functions};

use crate::replay_store::{save, tracking_line};
use crate::shrink::shrink_schedule;
use crate::trace::{trace, Marks, TracedFailure};

use super::stream::{ProgramRun, Stream};

/// The most time shrinking a failing run's schedule takes in a night
/// (`check`'s default `--shrink-time`): its replay file is the shrunk
/// schedule, and the variables raced on are read off it.
const SHRINK_TIME: std::time::Duration = std::time::Duration::from_millis(500);

/// What a failing run replays to, and how to replay it again.
pub struct Examined {
    /// Its signature.
    pub signature: Signature,
    /// The replay file's content.
    pub replay: ReplayFile,
}

/// Replay `failure` of `stream` with a trace, and read its signature.
pub fn examine(program: &ProgramRun, stream: &Stream, failure: &Failure) -> Result<Examined> {
    let run = failure.run - 1;
    let code = &program.loaded.program;
    let (instrumentation, marks, depth, chosen) = match stream.plan.priority() {
        None => (Instrumentation::all(code), Marks::Switches, 0, None),
        Some(strategy) => {
            let choices = strategy.choices(run, failure.run_seed);
            let mut strategy = strategy.clone();
            let mut executables = program.executables.clone();
            let (tracked, mut scheduler) = strategy.prepare(run, failure.run_seed);
            Vm::new(executables.get(tracked), program.limits).run(&mut scheduler);
            let steps = scheduler.applied().iter().map(|c| c.step).collect();
            let instrumentation = match &choices.vars {
                None => Instrumentation::all(code),
                Some(vars) => (program.instrumenter)(code, vars),
            };
            let depth = strategy.settings()[choices.setting].depth;
            (
                instrumentation,
                Marks::ChangePoints(steps),
                depth,
                choices.vars,
            )
        }
    };
    let (schedule, marks, critical) = match shrink_schedule(
        code,
        &instrumentation,
        program.limits,
        &failure.schedule,
        &failure.bug,
        SHRINK_TIME,
    ) {
        Some(shrunk) => (
            shrunk.schedule,
            Marks::ChangePoints(shrunk.preemptions),
            Some(shrunk.critical.iter().map(|point| point + 1).collect()),
        ),
        None => (failure.schedule.clone(), marks, None),
    };
    let traced = trace(
        code,
        instrumentation,
        &[],
        program.limits,
        &schedule,
        &program.loaded.file,
        &marks,
    )
    .map_err(|_| anyhow!("internal error: run {} did not fail again", failure.run))?;
    let signature = signature_of(program, &traced);
    let preemptions = match &marks {
        Marks::ChangePoints(steps) => steps.clone(),
        Marks::Switches => Vec::new(),
    };
    let strategy = stream.plan.name().to_string();
    let priorities = match stream.plan.priority() {
        Some(_) => program.scheme.name().to_string(),
        None => "none".to_string(),
    };
    let replay = ReplayFile {
        program: program.spec.path.display().to_string(),
        fingerprint: fingerprint(program.loaded.file.source(), &program.spec.define),
        defines: program.spec.define.clone(),
        found_by: "search".into(),
        search: (program.spec.strategy.name() != strategy)
            .then(|| program.spec.strategy.name().to_string()),
        strategy,
        priorities,
        tracking: tracking_line(code, chosen.as_deref(), &[]),
        depth,
        seed: stream.seed,
        run: failure.run,
        max_steps: program.spec.max_steps,
        kind: failure.bug.kind.name().to_string(),
        preemptions,
        critical,
        schedule,
    };
    Ok(Examined { signature, replay })
}

/// The signature of a traced failure: its place and masked message are
/// its identity's (for a deadlock, the wait cycle's), the rest a variant.
fn signature_of(program: &ProgramRun, traced: &TracedFailure) -> Signature {
    let bug = &traced.bug;
    let identity = Identity::of(bug);
    let file = &program.loaded.file;
    Signature {
        kind: bug.kind.name().to_string(),
        file: None,
        line: file.line(identity.span) as u64,
        column: file.column(identity.span) as u64,
        message: bug.message.clone(),
        masked: Some(identity.message),
        variables: raced_on(&traced.steps),
        threads: thread_functions(&traced.steps),
    }
}

/// Write the replay file into `out/replays/`; its path relative to `out`.
pub fn write_replay(out: &Path, program: &ProgramRun, replay: ReplayFile) -> Result<String> {
    let dir = out.join("replays");
    let suffix = format!("s{:016x}-run{}", replay.seed, replay.run);
    let written = save(&dir, &program.spec.path, replay, &suffix)?;
    Ok(written
        .strip_prefix(out)
        .unwrap_or(&written)
        .display()
        .to_string())
}
