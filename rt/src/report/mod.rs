//! What a search says, through the shared report (`rankcheck-report`) that
//! the command line prints too: a failure (where, the interleaving with
//! `file.rs:line` places, the preemptions and tracked variables), how it
//! was found and the replay string, then the summary of the runs; or the
//! guarantee a clean search earned. This module builds the report's models
//! from the runtime's facts; what is only the runtime's (its head with
//! `file:line:column`, the found line, the replay call) it writes itself.

mod guarantee;
mod replay_line;
mod steps;
mod summary;

use std::fmt::Write as _;
use std::path::Path;

use rankcheck_engine::priority::AppliedChange;
use rankcheck_engine::strategy::Component;
use rankcheck_engine::VarId;
use rankcheck_report::failure::{
    failure_text, observe, run_strategy, FailureJson, FoundBy, ShrunkJson,
};
use rankcheck_report::summary::{summary_text, SummaryJson, VarNames};

use crate::executor::{RunResult, Tracking};
use crate::memory::MemoryModel;
use crate::plan::Plan;
use crate::var::Registry;
use crate::wake::{WakeCount, Wakes};

pub use self::guarantee::{Guarantee, SettingGuarantee};
pub use self::summary::Searched;

/// What the failing run's strategy did.
#[derive(Clone, Debug)]
pub struct RunFacts {
    /// Its number, from 1 (`None` for a replay).
    run: Option<u64>,
    found_by: FoundBy,
    /// The strategy that ran it: for the portfolio, the component.
    strategy: &'static str,
    /// Its depth, under priorities.
    depth: Option<u32>,
    /// The change points that fired, under priorities.
    changes: Option<Vec<AppliedChange>>,
    /// The variables it tracked, under priorities (`None`: every one).
    tracked: Option<Vec<VarId>>,
    /// How its schedule was shrunk, if it was.
    shrunk: Option<ShrunkJson>,
}

impl RunFacts {
    /// The run's schedule was shrunk (if `shrunk` says how): its change
    /// points are then not the reported schedule's, whose preemptions are
    /// marked instead.
    pub fn shrunk(self, shrunk: Option<ShrunkJson>) -> RunFacts {
        match shrunk {
            None => self,
            Some(shrunk) => RunFacts {
                changes: None,
                shrunk: Some(shrunk),
                ..self
            },
        }
    }

    /// Preparatory run `run` (random).
    pub fn preparatory(run: u64) -> RunFacts {
        RunFacts {
            run: Some(run),
            found_by: FoundBy::Preparatory,
            strategy: "random",
            depth: None,
            changes: None,
            tracked: None,
            shrunk: None,
        }
    }

    /// Run `run` (from 1) of `plan`, which tracked `tracking` and, under
    /// priorities, fired `changes`.
    pub fn search(
        run: u64,
        plan: &Plan,
        changes: Option<Vec<AppliedChange>>,
        tracking: &Tracking,
    ) -> RunFacts {
        let Component { name, setting } = plan.component(run - 1);
        RunFacts {
            run: Some(run),
            found_by: FoundBy::Search,
            strategy: name,
            depth: setting.map(|i| plan.settings()[i].depth),
            changes,
            tracked: match tracking {
                Tracking::Vars(vars) if setting.is_some() => Some(vars.clone()),
                _ => None,
            },
            shrunk: None,
        }
    }

    /// Schedule `schedule` (from 1) of an exhaustive exploration.
    pub fn explored(schedule: u64) -> RunFacts {
        RunFacts {
            run: Some(schedule),
            found_by: FoundBy::Explore,
            strategy: "explore",
            depth: None,
            changes: None,
            tracked: None,
            shrunk: None,
        }
    }

    /// A replayed run.
    pub fn replayed() -> RunFacts {
        RunFacts {
            run: None,
            found_by: FoundBy::Replay,
            strategy: "replay",
            depth: None,
            changes: None,
            tracked: None,
            shrunk: None,
        }
    }
}

/// What a search reports.
pub struct Reported {
    /// Its summary, with the failure if there was one: the document
    /// `Builder::json` writes.
    pub summary: SummaryJson,
    /// The guarantee of a clean search, or the report of its failure.
    pub verdict: Result<Guarantee, String>,
}

impl Reported {
    /// The report, with the spurious wake-ups and timeouts the runs made
    /// (`made`) within their budgets (`most`, per run) stated in the
    /// guarantee.
    pub fn with_wakes(mut self, made: WakeCount, most: Wakes) -> Reported {
        self.summary.spurious_wakeups = made.spurious;
        self.summary.timeouts = made.timeouts;
        self.verdict = self.verdict.map(|g| g.with_wakes(made, most));
        self
    }

    /// The report, with the memory model its guarantee covers, and how
    /// many loads' choices the history bound cut (`cut`).
    pub fn with_memory(mut self, model: MemoryModel, cut: u64) -> Reported {
        self.summary.loads_cut = cut;
        self.verdict = self.verdict.map(|g| g.with_memory(model, cut));
        self
    }
}

/// The report of a clean search.
pub fn clean(searched: &Searched<'_>) -> Reported {
    let summary = searched.summary(None);
    let guarantee = Guarantee::of(&summary, searched.builder.effective_strategy().name);
    Reported {
        summary,
        verdict: Ok(guarantee),
    }
}

/// The report of a search whose run `result` (traced, replayed by
/// `replay`) failed.
pub fn failed(
    result: &RunResult,
    facts: &RunFacts,
    replay: &str,
    searched: &Searched<'_>,
) -> Reported {
    let failure = failure_json(result, facts, replay, searched.registry);
    let mut text = failure_part(result, &failure, &found_line(facts, searched), replay);
    let summary = searched.summary(Some(failure));
    text.push('\n');
    text.push_str(&summary_text(&summary));
    Reported {
        summary,
        verdict: Err(text),
    }
}

/// The report of a replayed failing run, with its preemptions and critical
/// switches marked as its original report marked them (`marks`), if known.
pub fn replayed(
    result: &RunResult,
    marks: Option<ShrunkJson>,
    replay: &str,
    registry: &Registry,
) -> String {
    let facts = RunFacts::replayed().shrunk(marks);
    let failure = failure_json(result, &facts, replay, registry);
    failure_part(result, &failure, "replayed\n", replay)
}

/// The report of the failing run `result` (traced, replayed by `replay`)
/// that an exploration reached at the schedule `facts` names, `elapsed`
/// after the report began.
pub fn explored(
    result: &RunResult,
    facts: &RunFacts,
    replay: &str,
    registry: &Registry,
    elapsed: std::time::Duration,
) -> String {
    let failure = failure_json(result, facts, replay, registry);
    let found = format!(
        "found in schedule {} of the exhaustive exploration (shrunk and reported in {:.2}s)\n",
        facts.run.unwrap_or(0),
        elapsed.as_secs_f64()
    );
    failure_part(result, &failure, &found, replay)
}

/// The failure in the shared text, then how it was found and the replay
/// call.
fn failure_part(result: &RunResult, failure: &FailureJson, found: &str, replay: &str) -> String {
    let head = result
        .failure
        .as_ref()
        .map(|f| f.head())
        .unwrap_or_default();
    let mut out = failure_text(failure, &format!("{head}\n"), None);
    out.push('\n');
    let wakes = result.wakes;
    if wakes != Wakes::default() {
        let _ = writeln!(
            out,
            "the run woke spuriously {} and timed out {} (scheduling choices)",
            guarantee::times(u64::from(wakes.spurious)),
            guarantee::times(u64::from(wakes.timeouts))
        );
    }
    for stale in &result.stale {
        let thread = result
            .thread_names
            .get(stale.thread.index())
            .map_or("a thread", String::as_str);
        let _ = writeln!(out, "stale read: {}", stale.describe(thread));
    }
    if !result.stale.is_empty() {
        // The model sees only its own atomics and locks: a crate that also
        // synchronises through std's (as some loom tests do) may forbid a
        // read the model allows.
        let _ = writeln!(
            out,
            "(a stale read is possible only where nothing orders the store before the load: \
             synchronisation the model does not see, through std's atomics or locks, would forbid it)"
        );
    }
    if result.cut > 0 {
        let _ = writeln!(
            out,
            "the history bound ({} stores per atomic) cut the choices of {} in this run",
            crate::memory::model::HISTORY,
            rankcheck_report::words::count(result.cut, "load", "loads")
        );
    }
    out.push_str(found);
    out.push_str(&replay_line::replay_lines(replay));
    out
}

/// `found in run 15 of 15 (strategy portfolio, a pct run, seed 7, 0.01s)`.
fn found_line(facts: &RunFacts, s: &Searched<'_>) -> String {
    let run = facts.run.unwrap_or(0);
    let which = match facts.found_by {
        FoundBy::Preparatory => format!("preparatory run {run} (random, every variable tracked"),
        _ => {
            let asked = s.builder.effective_strategy().name;
            format!(
                "run {run} of {} (strategy {}",
                s.runs.max(run),
                run_strategy(asked, facts.strategy)
            )
        }
    };
    format!(
        "found in {which}, seed {}, {:.2}s)\n",
        s.seed,
        s.elapsed.as_secs_f64()
    )
}

/// The failure of `result` as the shared model: where, the steps, the
/// change points, what the run tracked.
pub(crate) fn failure_json(
    result: &RunResult,
    facts: &RunFacts,
    replay: &str,
    registry: &Registry,
) -> FailureJson {
    let Some(failure) = &result.failure else {
        unreachable!("invariant: only a failed run is reported")
    };
    let mut trace = steps::steps(result, facts.changes.as_deref(), registry);
    if let Some(shrunk) = &facts.shrunk {
        shrunk.mark(&mut trace);
    }
    let at = failure.location.as_ref();
    FailureJson {
        run: facts.run.unwrap_or(0),
        kind: failure.kind.name().to_owned(),
        message: failure.message.clone(),
        line: at.map_or(0, |l| l.line as usize),
        column: at.map_or(0, |l| l.column as usize),
        file: at.map(|l| l.file.clone()),
        thread: failure.thread.clone(),
        replay: Some(replay.to_owned()),
        found_by: facts.found_by.name(),
        strategy: facts.strategy.to_owned(),
        depth: facts.depth,
        chosen_vars: facts
            .tracked
            .as_ref()
            .map(|vars| vars.iter().map(|&v| registry.name(v).to_owned()).collect()),
        change_points: facts.changes.as_deref().map_or_else(Vec::new, |changes| {
            steps::change_points(changes, result, registry)
        }),
        observed: observe(&trace),
        trace,
        printed: Vec::new(),
        shrunk: facts.shrunk.clone(),
        priorities: facts.changes.is_some() || facts.shrunk.is_some(),
    }
}

/// Write `summary` to `path` as the command's `--format json` prints it.
pub fn write_json(path: &Path, summary: &SummaryJson) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(summary).map_err(std::io::Error::other)?;
    std::fs::write(path, text + "\n")
}
