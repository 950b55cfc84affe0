//! Both front ends on one program: every schedule of each, and the
//! runtime's own search, held to one set of failures.

use std::collections::BTreeSet;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Once};

use rankcheck_engine::explore::{explore_every_schedule, ExploreConfig};
use rankcheck_engine::profile::profile;
use rankcheck_engine::{Executable, Instrumentation, Limits};
use rankcheck_rt::Builder;

use crate::verdict::{RkText, TwinLines, Verdict, UNMAPPED};
use crate::Program;

/// How far each side may go on one program.
#[derive(Clone, Copy, Debug)]
pub struct Budgets {
    /// Schedules the engine's exploration may run.
    pub engine_schedules: u64,
    /// Schedules the runtime's exploration may run.
    pub runtime_schedules: u64,
    /// Operations (or steps) of one execution on either side: far above
    /// what a generated program takes.
    pub max_steps: u64,
    /// Runs of the runtime's own search (the portfolio).
    pub search_runs: u64,
    /// The runtime search's seed.
    pub seed: u64,
}

/// How a program compared, when the two sides agree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compared {
    /// Both explored every schedule and reached the same failures.
    Full {
        /// Those failures (none: the program is correct).
        failures: BTreeSet<Verdict>,
        /// The runtime's schedules.
        schedules: u64,
        /// What the runtime's search reported, if it failed.
        searched: Option<Verdict>,
    },
    /// The runtime's schedules ran out: every failure it reached is one
    /// the engine reaches, but not all were compared.
    Partial {
        /// The engine's failures.
        failures: BTreeSet<Verdict>,
    },
    /// The engine's exploration ran out, or it hit the step limit: not
    /// compared.
    Skipped(&'static str),
}

/// The two front ends disagree on a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The program's place in the draw.
    pub index: usize,
    /// What differs.
    pub what: String,
    /// The `.rk` text.
    pub rk: String,
    /// The failures the engine reaches.
    pub engine: BTreeSet<Verdict>,
    /// The failures the runtime reaches (or its search reported).
    pub runtime: BTreeSet<Verdict>,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "program {}: {}", self.index, self.what)?;
        writeln!(f, "  engine:  {:?}", self.engine)?;
        writeln!(f, "  runtime: {:?}", self.runtime)?;
        write!(f, "{}", self.rk)
    }
}

/// Compare the front ends on `program`.
pub fn compare(program: &Program, budgets: &Budgets) -> Result<Compared, Disagreement> {
    let rk = RkText::new(program.rk);
    let Some(engine) = engine_failures(program, &rk, budgets) else {
        return Ok(Compared::Skipped("engine schedules"));
    };
    if engine.iter().any(|v| v.kind == crate::Kind::StepLimit) {
        return Ok(Compared::Skipped("step limit"));
    }
    let twin = TwinLines {
        lines: program.lines,
    };
    let explored = rankcheck_rt::explore(program.run, budgets.runtime_schedules, budgets.max_steps);
    let runtime: BTreeSet<Verdict> = explored
        .failures
        .iter()
        .map(|r| twin.runtime(r, &rk))
        .collect();
    let disagree = |what: String, runtime: BTreeSet<Verdict>| Disagreement {
        index: program.index,
        what,
        rk: program.rk.to_owned(),
        engine: engine.clone(),
        runtime,
    };
    if !explored.complete {
        if !runtime.is_subset(&engine) {
            return Err(disagree(
                "the runtime reaches failures the engine cannot".to_owned(),
                runtime,
            ));
        }
        return Ok(Compared::Partial { failures: engine });
    }
    if runtime != engine {
        return Err(disagree(
            "every schedule explored, the failures differ".to_owned(),
            runtime,
        ));
    }
    let searched = search(program, &twin, &rk, budgets);
    if let Some(verdict) = &searched {
        if !engine.contains(verdict) {
            return Err(disagree(
                "the runtime's search reports a failure the engine cannot reach".to_owned(),
                BTreeSet::from([verdict.clone()]),
            ));
        }
    }
    Ok(Compared::Full {
        failures: engine,
        schedules: explored.schedules,
        searched,
    })
}

/// Every failure the engine's exploration reaches on the `.rk` text (every
/// variable tracked, pruned as `rankcheck explore` prunes), or `None` when
/// it runs out of schedules.
fn engine_failures(
    program: &Program,
    rk: &RkText<'_>,
    budgets: &Budgets,
) -> Option<BTreeSet<Verdict>> {
    let compiled = rankcheck_instr::compile(program.rk, &[]).unwrap_or_else(|e| {
        panic!(
            "program {}: a generated program compiles: {e:?}\n{}",
            program.index, program.rk
        )
    });
    let compiled = Arc::new(compiled);
    let limits = Limits {
        max_steps: budgets.max_steps,
        max_call_depth: 1_000,
        max_threads: 64,
        max_heap_slots: 1 << 16,
    };
    let all = Instrumentation::all(&compiled);
    let profiled = profile(&Executable::new(compiled.clone(), &all), 10, 7, limits);
    let exe = Executable::new(compiled, &all.observing_all());
    let config = ExploreConfig {
        preemptions: 0,
        n_threads: profiled.max_threads.max(1),
        limits,
        prune: true,
        finish_bound: true,
        max_schedules: budgets.engine_schedules,
        max_memory: 1 << 30,
        jobs: 1,
    };
    let explored = explore_every_schedule(&exe, &config, &|_| true);
    explored
        .exhausted
        .then(|| explored.bugs.iter().map(|b| rk.engine(&b.bug)).collect())
}

/// The runtime's own search (the portfolio, a fixed seed and run count):
/// its report's failure, if it found one, read off the report's head.
fn search(
    program: &Program,
    twin: &TwinLines<'_>,
    rk: &RkText<'_>,
    budgets: &Budgets,
) -> Option<Verdict> {
    let builder = Builder::new()
        .seed(budgets.seed)
        .runs(budgets.search_runs)
        .max_steps(budgets.max_steps);
    let run = program.run;
    quiet_reports();
    let payload = panic::catch_unwind(AssertUnwindSafe(|| builder.check(run))).err()?;
    let report = match payload.downcast::<String>() {
        Ok(report) => *report,
        Err(_) => return Some(unreadable()),
    };
    Some(read_report(&report, twin, rk))
}

/// Keep rt's failure reports, which `search` catches and reads, off
/// stderr (with a backtrace each, under `RUST_BACKTRACE`); every other
/// panic goes to the hook that was there before.
fn quiet_reports() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let report = info.payload().downcast_ref::<String>();
            if !report.is_some_and(|r| r.starts_with("error[")) {
                previous(info);
            }
        }));
    });
}

/// A report this module cannot read: never a failure either side reaches.
fn unreadable() -> Verdict {
    Verdict {
        kind: crate::Kind::StepLimit,
        line: UNMAPPED,
        message: None,
        blocked: Vec::new(),
    }
}

/// The failure a report states: `error[KIND]: message`, then `┌─
/// file:line:col` (a panic) or one `│ thread .. at file:line:col` per
/// blocked thread (a deadlock).
fn read_report(report: &str, twin: &TwinLines<'_>, rk: &RkText<'_>) -> Verdict {
    let Some((kind, message)) = report
        .lines()
        .next()
        .and_then(|head| head.strip_prefix("error["))
        .and_then(|rest| rest.split_once("]: "))
    else {
        return unreadable();
    };
    let place = |text: &str| -> (Option<String>, Option<u32>) {
        let mut parts = text.trim().rsplitn(3, ':');
        let _column = parts.next();
        let line = parts.next().and_then(|l| l.parse().ok());
        (parts.next().map(str::to_owned), line)
    };
    let at = report
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("┌─ "))
        .map(place)
        .unwrap_or((None, None));
    let blocked = report
        .lines()
        .filter(|l| l.trim_start().starts_with("│ thread ") && !l.contains(" fails here "))
        .filter_map(|l| l.rsplit_once(" at "))
        .map(|(_, at)| {
            let (file, line) = place(at);
            (file.unwrap_or_default(), line.unwrap_or(0))
        })
        .collect();
    let reached = rankcheck_rt::Reached {
        kind: match kind {
            "panic" => "panic",
            "deadlock" => "deadlock",
            _ => "step-limit",
        },
        message: message.to_owned(),
        file: at.0,
        line: at.1,
        blocked,
    };
    twin.runtime(&reached, rk)
}
