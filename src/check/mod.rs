//! `rankcheck check PROGRAM...` (and `rankcheck PROGRAM...`): for each
//! program, the preparatory runs, the search, and the report of the first
//! failure or of what the clean runs proved.

mod found;
mod run;
mod summary;

pub use self::run::{prepare, Prepared};

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use rankcheck_report::failure::{run_strategy, FoundBy};
use rankcheck_report::summary::{summary_rows, summary_text, SUMMARY_COLUMNS};
use rankcheck_report::words::count;

use crate::cli::{CheckArgs, Format};
use crate::exit::Status;
use crate::failure::Report;
use crate::interrupt;
use crate::output_file::FileFormat;
use crate::plan::scheme;
use crate::plot::{guarantee_figure, write_svg};

use self::found::found;
use self::run::{check_program, Checked};
use self::summary::summary_json;

/// Check every program `args` names, one after the other. With several, a
/// program that does not compile is reported and the others still run;
/// the exit status is the worst of them (2, then 1, then 3, then 0).
pub fn check(args: &CheckArgs) -> Result<ExitCode> {
    let several = args.programs.len() > 1;
    if let Some(plot) = &args.plot {
        FileFormat::Svg.check_name(plot, "--plot")?;
        if several {
            anyhow::bail!("--plot draws one program's guarantee: give one program");
        }
        if !args.strategy().claims_bound() {
            anyhow::bail!(
                "--plot: --strategy {} states no per-run bound, so there is no guarantee to plot",
                args.strategy().name()
            );
        }
        if scheme(args) != rankcheck_engine::PriorityScheme::Pct {
            anyhow::bail!("--plot: thread-bounded priorities claim no per-run bound, so there is no guarantee to plot");
        }
    }
    let mut worst = Status::Clean;
    let mut objects = Vec::new();
    let mut rows = Vec::new();
    for (i, path) in args.programs.iter().enumerate() {
        if several && args.options.format == Format::Human {
            outln!("{}== {}", if i == 0 { "" } else { "\n" }, path.display());
        }
        let status = match check_one(args, path) {
            Ok((status, output)) => {
                match output {
                    Output::Text(text) => out!("{text}"),
                    Output::Json(value) => objects.push(value),
                    Output::Csv(more) => rows.extend(more),
                }
                status
            }
            Err(error) if several => {
                errln!("error: {error:#}");
                Status::Usage
            }
            Err(error) => return Err(error),
        };
        worst = worst.max(status);
        if interrupt::requested() {
            break;
        }
    }
    match args.options.format {
        Format::Json if several => outln!("{}", serde_json::to_string_pretty(&objects)?),
        Format::Json => {
            for object in &objects {
                outln!("{}", serde_json::to_string_pretty(object)?);
            }
        }
        Format::Csv => out!("{}", csv_text(&rows)?),
        Format::Human => {}
    }
    Ok(worst.into())
}

/// One program's report, in the format asked for.
enum Output {
    Text(String),
    Json(serde_json::Value),
    Csv(Vec<[String; 13]>),
}

/// Check one program and render its report.
fn check_one(args: &CheckArgs, path: &Path) -> Result<(Status, Output)> {
    let checked = check_program(args, path)?;
    let report = found(&checked)?;
    let status = match (&report, checked.interrupted) {
        (Some(_), _) => Status::Failure,
        (None, true) => Status::Incomplete,
        (None, false) => Status::Clean,
    };
    let file = &checked.prepared.loaded.file;
    if let Some(path) = &args.plot {
        plot_guarantee(&checked, path)?;
    }
    let json = summary_json(&checked, report.as_ref().map(|r| r.json(file)));
    let output = match args.options.format {
        Format::Json => Output::Json(serde_json::to_value(&json)?),
        Format::Csv => Output::Csv(summary_rows(&json)),
        Format::Human => {
            let mut text = String::new();
            if let Some(report) = &report {
                text.push_str(&report.text(file));
                text.push('\n');
                text.push_str(&found_line(&checked, report));
                text.push_str(&report.replay_line().unwrap_or_default());
                text.push('\n');
            }
            text.push_str(&summary_text(&json));
            Output::Text(text)
        }
    };
    Ok((status, output))
}

/// Draw the guarantee of each setting with the runs it got marked
/// (`--plot`).
fn plot_guarantee(checked: &Checked, path: &Path) -> Result<()> {
    let settings = &checked.prepared.settings;
    let runs: Vec<u64> = (0..settings.len())
        .map(|i| {
            checked
                .prepared
                .plan
                .setting_runs(i, 0, checked.result.runs)
        })
        .collect();
    let guarantees = guarantee_figure(
        &checked.path.display().to_string(),
        &checked.prepared.loaded.program,
        &checked.prepared.profile,
        settings,
        scheme(checked.args),
        &runs,
        checked.args.confidence,
    )?;
    write_svg(path, &rankcheck_plot::bound_svg(&guarantees.figure)?)
}

/// Which run found the failure, among how many.
fn found_line(checked: &Checked, report: &Report) -> String {
    let args = checked.args;
    let result = &checked.result;
    if report.found_by == FoundBy::Preparatory {
        return format!(
            "found by preparatory random run {} (seed {}); the {} search's {} did not fail\n",
            report.run,
            checked.prepared.seed,
            args.strategy().name(),
            count(result.runs, "run", "runs")
        );
    }
    let of = if checked.prepared.runs_target == u64::MAX {
        "a time budget".to_string()
    } else {
        checked.prepared.runs_target.to_string()
    };
    let failed = if args.keep_going {
        format!(
            "; {} of {} failed",
            result.failures,
            count(result.runs, "run", "runs")
        )
    } else {
        String::new()
    };
    format!(
        "found in run {} of {of} (strategy {}, seed {}, {:.2}s){failed}\n",
        report.run,
        run_strategy(args.strategy().name(), &report.strategy),
        checked.prepared.seed,
        checked.elapsed
    )
}

/// CSV text of summary rows, with the header.
fn csv_text(rows: &[[String; 13]]) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(SUMMARY_COLUMNS)?;
    for row in rows {
        writer.write_record(row)?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}
