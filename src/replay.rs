//! `rankcheck replay FILE`: re-run one recorded execution and report it as
//! the search that found it did, with whatever the program printed.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::{Instrumentation, Limits, ReplayFile};
use rankcheck_report::failure::{mark_critical, run_strategy, FoundBy};

use crate::cli::{Format, ReplayArgs};
use crate::exit::Status;
use crate::failure::Report;
use crate::load::load;
use crate::plan::instrumenter;
use crate::replay_store::{parse_tracking, program_of};
use crate::trace::{trace, Marks, ReplayMismatch};

/// Replay the file `args` names. Exit 1 when the failure reproduces.
pub fn replay(args: &ReplayArgs) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let file = ReplayFile::parse(&text)
        .with_context(|| format!("{} is not a valid replay file", args.file.display()))?;
    let path = match &args.program {
        Some(path) => path.clone(),
        None => program_of(&args.file, &file.program)?,
    };
    let loaded = load(&path, &file.defines)?;
    let now = fingerprint(loaded.file.source(), &file.defines);
    if now != file.fingerprint {
        bail!(
            "{} was recorded for another version of {} (fingerprint {}, but the program now has {}): \
             the program or its -D values changed since, so the schedule would not mean the same",
            args.file.display(),
            path.display(),
            file.fingerprint,
            now
        );
    }
    let program = loaded.program.clone();
    let (vars, instances) = parse_tracking(&program, &file.tracking)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let instrumentation = match &vars {
        None => Instrumentation::all(&program),
        Some(vars) => instrumenter(&program)(&program, vars),
    };
    let Some(found_by) = FoundBy::from_name(&file.found_by) else {
        bail!(
            "{}: unknown found-by `{}`",
            args.file.display(),
            file.found_by
        );
    };
    // A shrunk schedule's preemptions are marked as change points are.
    let marks = if file.priorities == "none" && file.critical.is_none() {
        Marks::Switches
    } else {
        Marks::ChangePoints(file.preemptions.clone())
    };
    let limits = Limits {
        max_steps: file.max_steps,
        ..Limits::default()
    };
    let mut traced = match trace(
        &program,
        instrumentation,
        &instances,
        limits,
        &file.schedule,
        &loaded.file,
        &marks,
    ) {
        Ok(traced) => traced,
        Err(ReplayMismatch::Passed) => bail!(
            "the replay ran to completion without the recorded {} failure",
            file.kind
        ),
        Err(ReplayMismatch::Diverged { step }) => bail!(
            "the schedule does not fit the program: at step {} it names a thread that cannot run",
            step + 1
        ),
    };
    if traced.bug.kind.name() != file.kind {
        bail!(
            "the replay failed with {} where the file records {}",
            traced.bug.kind.name(),
            file.kind
        );
    }
    if let Some(critical) = &file.critical {
        mark_critical(&mut traced.steps, critical);
    }
    let report = Report {
        traced,
        run: file.run,
        found_by,
        strategy: file.strategy.clone(),
        depth: (file.depth > 0).then_some(file.depth),
        chosen_vars: vars.map(|vars| {
            vars.iter()
                .map(|v| program.vars[v.index()].name.clone())
                .collect()
        }),
        shrunk: None,
        replay: Some(args.file.clone()),
    };
    match args.format {
        Format::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&report.json(&loaded.file))?
        ),
        Format::Csv => bail!("--format csv is not available for replay: use human or json"),
        Format::Human => {
            out!("{}", report.text(&loaded.file));
            outln!("\n{}", replayed_line(&file, found_by, &args.file));
        }
    }
    Ok(Status::Failure.into())
}

/// What was replayed, in the words of the search's `found ...` line: the
/// run, the strategy (`portfolio, a pctvb run`, as the search named it) and
/// the seed.
fn replayed_line(file: &ReplayFile, found_by: FoundBy, path: &Path) -> String {
    match found_by {
        FoundBy::Preparatory => format!(
            "replayed preparatory random run {} (seed {}) from {}",
            file.run,
            file.seed,
            path.display()
        ),
        _ => format!(
            "replayed run {} (strategy {}, seed {}) from {}",
            file.run,
            run_strategy(
                file.search.as_deref().unwrap_or(&file.strategy),
                &file.strategy
            ),
            file.seed,
            path.display()
        ),
    }
}
