//! `rankcheck plot history DIR`: one program's nightly history as SVG (the
//! figure `report --html` embeds), and the numbers of its latest night per
//! setting.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{bail, Result};

use rankcheck_history::History;
use rankcheck_report::words::count;

use crate::cli::PlotHistoryArgs;
use crate::exit::Status;
use crate::nightly::history_figure::{history_figures, HistoryFigure};
use crate::nightly::history_path;
use crate::nightly::report::claim_text;
use crate::nightly::stream::setting_label;

use super::write_svg;

/// Draw the history of the program `--program` names (or the only one).
pub fn plot_history(args: &PlotHistoryArgs) -> Result<ExitCode> {
    let db = history_path(&args.dir, args.db.as_deref());
    let history = History::open_existing(&db)?;
    let figures = history_figures(&history, args.confidence)?;
    let figure = chosen(figures, args.program.as_deref(), &db.display().to_string())?;
    write_svg(&args.output, &figure.svg)?;
    out!("{}", summary(&figure));
    Ok(Status::Clean.into())
}

/// The figure of the program named, or of the only program.
fn chosen(figures: Vec<HistoryFigure>, program: Option<&str>, db: &str) -> Result<HistoryFigure> {
    let names: Vec<String> = figures.iter().map(|f| f.program.clone()).collect();
    if names.is_empty() {
        bail!("{db}: the history has no runs yet");
    }
    let wanted = match program {
        Some(name) => name,
        None if names.len() == 1 => &names[0],
        None => bail!(
            "{db} holds {}: name one with --program ({})",
            count(names.len() as u64, "program", "programs"),
            names.join(", ")
        ),
    };
    let Some(figure) = figures.into_iter().find(|f| f.program == wanted) else {
        bail!(
            "{db}: no program called {wanted} (it knows {})",
            names.join(", ")
        );
    };
    Ok(figure)
}

/// What was drawn: per setting, where its latest night left it.
fn summary(figure: &HistoryFigure) -> String {
    let mut text = format!(
        "{} (fingerprint {}): {} over {}\n",
        figure.program,
        figure.fingerprint,
        count(figure.streams.len() as u64, "setting", "settings"),
        count(figure.nights as u64, "night", "nights"),
    );
    for stream in &figure.streams {
        let Some(last) = stream.nights.last() else {
            continue;
        };
        let failing = stream.nights.iter().filter(|n| n.failures > 0).count();
        let guarantee = format!(
            "guarantee {}",
            claim_text(&stream.setting, last.failures_so_far, last.ln_miss)
        );
        let _ = writeln!(
            text,
            "  {}: {} by {}, {guarantee}, {}",
            setting_label(&stream.setting),
            count(last.runs, "run", "runs"),
            last.night,
            count(
                failing as u64,
                "night with a failure",
                "nights with a failure"
            ),
        );
    }
    text
}
