//! The failure a checked program's report shows: the search's first, else
//! one a preparatory run met, its schedule shrunk (unless `--no-shrink`),
//! replayed with its trace and its preemptions (the shrunk schedule's, or
//! the change points its run fired), with its replay file written.

use anyhow::Result;
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::search::Failure;
use rankcheck_engine::strategy::{Executables, PriorityStrategy};
use rankcheck_engine::{Instrumentation, ReplayFile, Vm};
use rankcheck_report::failure::{FoundBy, ShrunkJson};

use crate::failure::Report;
use crate::plan::scheme;
use crate::replay_store::{save, tracking_line};
use crate::shrink::shrink_schedule;
use crate::trace::{trace, Marks};

use super::run::Checked;

/// What the failing run did beyond its schedule.
struct RunFacts {
    instrumentation: Instrumentation,
    marks: Marks,
    depth: Option<u32>,
    chosen: Option<Vec<rankcheck_engine::VarId>>,
    strategy: String,
    priorities: String,
}

/// The schedule reported: the search's, or its shrunk form with its
/// critical switches (steps from 1).
struct Shown<'s> {
    schedule: &'s [rankcheck_engine::ThreadId],
    marks: &'s Marks,
    critical: Option<Vec<u64>>,
}

/// The failure to report, if any, with its replay file written (a failure
/// to write it is a warning, not an error).
pub fn found(checked: &Checked) -> Result<Option<Report>> {
    let (failure, found_by) = match (
        &checked.result.first_failure,
        &checked.prepared.profile.failure,
    ) {
        (Some(failure), _) => (failure, FoundBy::Search),
        (None, Some(failure)) => (failure, FoundBy::Preparatory),
        (None, None) => return Ok(None),
    };
    let facts = match found_by {
        FoundBy::Search => rerun(checked, failure),
        _ => RunFacts {
            instrumentation: Instrumentation::all(&checked.prepared.loaded.program),
            marks: Marks::Switches,
            depth: None,
            chosen: None,
            strategy: "random".into(),
            priorities: "none".into(),
        },
    };
    let shrunk = (!checked.args.no_shrink)
        .then(|| {
            shrink_schedule(
                &checked.prepared.loaded.program,
                &facts.instrumentation,
                checked.prepared.limits,
                &failure.schedule,
                &failure.bug,
                checked.args.shrink_time,
            )
        })
        .flatten();
    let (schedule, marks) = match &shrunk {
        Some(shrunk) => (
            shrunk.schedule.clone(),
            Marks::ChangePoints(shrunk.preemptions.clone()),
        ),
        None => (failure.schedule.clone(), facts.marks.clone()),
    };
    let mut traced = trace(
        &checked.prepared.loaded.program,
        facts.instrumentation.clone(),
        &[],
        checked.prepared.limits,
        &schedule,
        &checked.prepared.loaded.file,
        &marks,
    )
    .map_err(|_| anyhow::anyhow!("internal error: run {} did not fail again", failure.run))?;
    let shrunk = shrunk.map(|s| {
        let json = ShrunkJson::from(&s);
        json.mark(&mut traced.steps);
        json
    });
    let program = &checked.prepared.loaded.program;
    let mut report = Report {
        traced,
        run: failure.run,
        found_by,
        strategy: facts.strategy.clone(),
        depth: facts.depth,
        chosen_vars: facts.chosen.as_ref().map(|vars| {
            vars.iter()
                .map(|v| program.vars[v.index()].name.clone())
                .collect()
        }),
        replay: None,
        shrunk,
    };
    let critical = report.shrunk.as_ref().map(|s| s.critical.clone());
    let shown = Shown {
        schedule: &schedule,
        marks: &marks,
        critical,
    };
    report.replay = match write_replay(checked, failure, found_by, &facts, shown) {
        Ok(path) => Some(path),
        Err(error) => {
            errln!("warning: {error:#}");
            None
        }
    };
    Ok(Some(report))
}

/// Run the failing search run again under its own strategy, to see what it
/// tracked and where its change points fired.
fn rerun(checked: &Checked, failure: &Failure) -> RunFacts {
    let run = failure.run - 1;
    let sampled = |strategy: &str| RunFacts {
        instrumentation: Instrumentation::all(&checked.prepared.loaded.program),
        marks: Marks::Switches,
        depth: None,
        chosen: None,
        strategy: strategy.into(),
        priorities: "none".into(),
    };
    let plan = &checked.prepared.plan;
    let component = plan.component(run);
    match (component.setting, plan.priority()) {
        (Some(setting), Some(priority)) => priority_run(checked, priority, setting, failure),
        _ => sampled(component.name),
    }
}

/// A run of priority setting `setting`, again: what it tracked and the
/// change points it fired.
fn priority_run(
    checked: &Checked,
    strategy: &PriorityStrategy,
    setting: usize,
    failure: &Failure,
) -> RunFacts {
    let program = &checked.prepared.loaded.program;
    let choices = strategy.setting_choices(setting, failure.run_seed);
    let mut strategy = strategy.clone();
    let mut executables = Executables::new(program.clone(), checked.prepared.instrumenter.clone());
    let (tracked, mut scheduler) = strategy.prepare_setting(setting, failure.run_seed);
    Vm::new(executables.get(tracked), checked.prepared.limits).run(&mut scheduler);
    let steps = scheduler.applied().iter().map(|c| c.step).collect();
    let instrumentation = match &choices.vars {
        None => Instrumentation::all(program),
        Some(vars) => (checked.prepared.instrumenter)(program, vars),
    };
    RunFacts {
        instrumentation,
        marks: Marks::ChangePoints(steps),
        depth: Some(checked.prepared.settings[setting].depth),
        chosen: choices.vars,
        strategy: checked
            .prepared
            .plan
            .setting_name(&strategy.settings()[setting])
            .to_string(),
        priorities: scheme(checked.args).name().to_string(),
    }
}

/// The search a failing run was one run of, where its strategy is not the
/// search's own (a portfolio's `pctvb` run); a preparatory run is none of
/// the search's.
fn search_of(checked: &Checked, found_by: FoundBy, strategy: &str) -> Option<String> {
    let search = checked.args.strategy().name();
    (found_by == FoundBy::Search && search != strategy).then(|| search.to_string())
}

/// Write the failure's replay file.
fn write_replay(
    checked: &Checked,
    failure: &Failure,
    found_by: FoundBy,
    facts: &RunFacts,
    shown: Shown,
) -> Result<std::path::PathBuf> {
    let program = &checked.prepared.loaded.program;
    let defines = &checked.args.options.define;
    let preemptions = match shown.marks {
        Marks::ChangePoints(steps) => steps.clone(),
        Marks::Switches => Vec::new(),
    };
    let file = ReplayFile {
        program: checked.path.display().to_string(),
        fingerprint: fingerprint(checked.prepared.loaded.file.source(), defines),
        defines: defines.clone(),
        found_by: found_by.name().to_string(),
        search: search_of(checked, found_by, &facts.strategy),
        strategy: facts.strategy.clone(),
        priorities: facts.priorities.clone(),
        tracking: tracking_line(program, facts.chosen.as_deref(), &[]),
        depth: facts.depth.unwrap_or(0),
        seed: checked.prepared.seed,
        run: failure.run,
        max_steps: checked.args.options.max_steps,
        kind: failure.bug.kind.name().to_string(),
        preemptions,
        critical: shown.critical,
        schedule: shown.schedule.to_vec(),
    };
    let suffix = match found_by {
        FoundBy::Preparatory => format!("seed{}-preparatory{}", checked.prepared.seed, failure.run),
        _ => format!("seed{}-run{}", checked.prepared.seed, failure.run),
    };
    save(&checked.args.replay_dir, checked.path, file, &suffix)
}
