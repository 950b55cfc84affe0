//! Reports of a search or a replay: the human text and the JSON object.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rankcheck_engine::outcome::Bug;
use rankcheck_engine::replay::TraceStep;
use rankcheck_engine::vm::PrintLine;
use rankcheck_engine::{
    Executable, Limits, Outcome, ReplayFile, ReplayScheduler, Scheduler, ThreadId, Tracer, Vm,
};
use serde::Serialize;

use crate::diagnostics::SourceFile;
use crate::trace_view::{describe, view_steps, StepView};

/// A failing execution replayed with a trace.
pub struct TracedFailure {
    /// The failure, as the replay ended.
    pub bug: Bug,
    /// Every step up to the failure.
    pub steps: Vec<StepView>,
    /// What the program printed.
    pub prints: Vec<(String, String)>,
}

/// How a replay of a schedule ended, when it did not fail.
pub enum ReplayMismatch {
    /// Every thread finished.
    Passed,
    /// The schedule asked for a thread that could not run.
    Diverged {
        /// The scheduling point.
        step: u64,
    },
}

/// Replay `schedule` on `exe` with a trace and `print` output.
pub fn trace(
    exe: &Executable,
    limits: Limits,
    schedule: &[ThreadId],
    file: &SourceFile,
) -> Result<TracedFailure, ReplayMismatch> {
    trace_with(exe, limits, ReplayScheduler::new(schedule), file).map(|(traced, _)| traced)
}

/// Run `exe` under `scheduler` with a trace and `print` output; the
/// scheduler comes back to be asked what it decided.
pub fn trace_with<S: Scheduler>(
    exe: &Executable,
    limits: Limits,
    scheduler: S,
    file: &SourceFile,
) -> Result<(TracedFailure, S), ReplayMismatch> {
    let mut vm = Vm::new(exe, limits);
    vm.record_prints();
    let mut tracer = Tracer::new(scheduler);
    let outcome = vm.run(&mut tracer);
    let bug = match outcome {
        Outcome::Bug(bug) => bug,
        Outcome::Pass { .. } => return Err(ReplayMismatch::Passed),
        Outcome::Diverged { step, .. } => return Err(ReplayMismatch::Diverged { step }),
    };
    let unfinished = tracer.unfinished();
    let steps: Vec<TraceStep> = tracer.steps.clone();
    let program = exe.program();
    let mut views = view_steps(&steps, program, file, |t| vm.thread_name(t));
    // The failing thread's last step ends in the failure itself, or, for a
    // failure found at a scheduling point (a deadlock), in its own event.
    if let Some((thread, preempting)) = unfinished {
        let (line, operation, var) = match vm.final_event() {
            Some(event) => (
                event
                    .loc
                    .map(|loc| file.line(program.span_at(loc.func, loc.pc as usize))),
                describe(&event, program),
                event.var.map(|v| program.vars[v.index()].name.clone()),
            ),
            None => {
                let operation = match bug.kind {
                    rankcheck_engine::BugKind::Assert => "assertion fails",
                    rankcheck_engine::BugKind::Error => "run-time error",
                    rankcheck_engine::BugKind::StepLimit => "step limit reached",
                    rankcheck_engine::BugKind::Deadlock => "blocks",
                };
                (Some(file.line(bug.span)), operation.to_string(), None)
            }
        };
        views.push(StepView {
            step: views.len() + 1,
            thread: vm.thread_name(thread),
            line,
            operation,
            preemption: preempting,
            var,
        });
    }
    let prints = vm
        .prints()
        .iter()
        .map(|p: &PrintLine| (vm.thread_name(p.thread), p.text.clone()))
        .collect();
    let scheduler = tracer.into_inner();
    Ok((
        TracedFailure {
            bug,
            steps: views,
            prints,
        },
        scheduler,
    ))
}

/// The human report of a failure: its location, the interleaving, what the
/// program printed, and for a deadlock every blocked thread.
pub fn failure_text(failure: &TracedFailure, file: &SourceFile) -> String {
    let bug = &failure.bug;
    let label = match bug.kind {
        rankcheck_engine::BugKind::Deadlock => format!("{} blocks here", bug.thread_name),
        _ => format!("thread {} fails here", bug.thread_name),
    };
    let mut out = file.render_at(bug.kind.name(), &bug.message, bug.span, &label);
    if !bug.blocked.is_empty() {
        out.push_str("blocked threads:\n");
        for b in &bug.blocked {
            let _ = writeln!(
                out,
                "  {:<12} waits for {} (line {})",
                b.name,
                b.waits_on,
                file.line(b.span)
            );
        }
        out.push('\n');
    }
    let preemptions = failure.steps.iter().filter(|s| s.preemption).count();
    let _ = writeln!(
        out,
        "interleaving ({} steps, {} preemption{}; > marks a preemption):",
        failure.steps.len(),
        preemptions,
        if preemptions == 1 { "" } else { "s" }
    );
    let width = failure
        .steps
        .iter()
        .map(|s| s.thread.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "  {:>5}  {:<width$}  {:>5}  operation",
        "step", "thread", "line"
    );
    for step in &failure.steps {
        let mark = if step.preemption { '>' } else { ' ' };
        let line = step.line.map(|l| l.to_string()).unwrap_or_default();
        let _ = writeln!(
            out,
            "{mark} {:>5}  {:<width$}  {:>5}  {}",
            step.step, step.thread, line, step.operation
        );
    }
    if !failure.prints.is_empty() {
        out.push_str("\nprinted:\n");
        for (thread, text) in &failure.prints {
            let _ = writeln!(out, "  [{thread}] {text}");
        }
    }
    out
}

/// A failure in JSON.
#[derive(Debug, Serialize)]
pub struct FailureJson {
    /// The execution's number, from 1.
    pub run: u64,
    /// `assert`, `deadlock`, `error` or `step-limit`.
    pub kind: String,
    /// The message.
    pub message: String,
    /// The 1-based source line.
    pub line: usize,
    /// The 1-based column.
    pub column: usize,
    /// The failing thread's name.
    pub thread: String,
    /// The replay file's path, or null if it could not be written.
    pub replay: Option<String>,
    /// The interleaving.
    pub trace: Vec<StepView>,
}

impl FailureJson {
    /// The JSON of a traced failure found in run `run`.
    pub fn new(
        run: u64,
        failure: &TracedFailure,
        file: &SourceFile,
        replay: Option<String>,
    ) -> FailureJson {
        let bug = &failure.bug;
        FailureJson {
            run,
            kind: bug.kind.name().to_string(),
            message: bug.message.clone(),
            line: file.line(bug.span),
            column: file.column(bug.span),
            thread: bug.thread_name.clone(),
            replay,
            trace: failure.steps.clone(),
        }
    }
}

/// Write a replay file as `DIR/STEM-SUFFIX.replay`, `STEM` the program's
/// file name without its extension; the path written.
pub fn save_replay(
    dir: &Path,
    program: &Path,
    file: &ReplayFile,
    suffix: &str,
) -> anyhow::Result<PathBuf> {
    use anyhow::Context as _;
    let stem = program
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into());
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create replay directory {}", dir.display()))?;
    let out = dir.join(format!("{stem}-{suffix}.replay"));
    std::fs::write(&out, file.to_text())
        .with_context(|| format!("cannot write replay file {}", out.display()))?;
    Ok(out)
}
