//! `rankcheck report DIR --html FILE`: the morning report as one
//! self-contained HTML page. The failure tables with their replay
//! commands, then per program its evidence table and its history figure
//! inline; the page is built by `rankcheck-plot`, which fetches nothing
//! from anywhere, so it can be mailed or kept as a CI artifact.

use std::path::Path;

use anyhow::{Context, Result};
use rankcheck_plot::{page_html, Figure, Page, Section, Table};
use rankcheck_report::words::count;

use crate::output_file::FileFormat;

use super::history_figure::HistoryFigure;
use super::report::{
    capitalized, evidence_cells, failure_cells, sections, EvidenceView, FailureView, MorningReport,
};

/// The target confidence the history figures draw as a line: `check`'s
/// default `--confidence`.
pub const TARGET: f64 = 0.99;

/// Write the page for `report`, with a history figure per program, to
/// `path`.
pub fn write_page(path: &Path, report: &MorningReport, figures: &[HistoryFigure]) -> Result<()> {
    let html = page_html(&page(report, figures))
        .with_context(|| format!("building the page for {}", path.display()))?;
    FileFormat::Html.write(path, &html)
}

/// The page: what the night was, the failure sections, then a section per
/// program.
fn page(report: &MorningReport, figures: &[HistoryFigure]) -> Page {
    let mut about = format!(
        "Night index {}, {} in {}.",
        report.night_index,
        count(report.nights, "night", "nights"),
        report.history
    );
    if let Some(previous) = &report.previous_night {
        about.push_str(&format!(" The night before: {previous}."));
    }
    let mut sections: Vec<Section> = sections(report)
        .into_iter()
        .map(|(title, failures, _)| failure_section(&title, failures))
        .collect();
    sections.extend(figures.iter().map(|f| program_section(report, f)));
    Page {
        title: format!("Morning report: night {}", report.night),
        paragraphs: vec![about],
        sections,
    }
}

/// A failure section: a table with the command that replays each.
fn failure_section(title: &str, failures: &[FailureView]) -> Section {
    let heading = format!("{} ({})", capitalized(title), failures.len());
    if failures.is_empty() {
        return Section {
            heading,
            paragraphs: vec!["None.".into()],
            tables: Vec::new(),
            figures: Vec::new(),
        };
    }
    let rows = failures.iter().map(|f| failure_cells(f).to_vec()).collect();
    Section {
        heading,
        paragraphs: Vec::new(),
        tables: vec![Table {
            // The heading names the section; the caption says what the
            // table holds, not the heading again.
            caption: format!("{}: each failure and its replay", capitalized(title)),
            header: words(&[
                "program",
                "failure",
                "first seen",
                "last seen",
                "failing chunks",
                "replay",
            ]),
            rows,
        }],
        figures: Vec::new(),
    }
}

/// A program's section: its evidence per setting, and its history.
fn program_section(report: &MorningReport, figure: &HistoryFigure) -> Section {
    let streams: Vec<&EvidenceView> = report
        .evidence
        .iter()
        .filter(|e| e.program == figure.program)
        .collect();
    Section {
        heading: format!("Evidence: {}", figure.program),
        paragraphs: vec![format!(
            "Every night of its current version (fingerprint {}): {} over {}.",
            figure.fingerprint,
            count(figure.streams.len() as u64, "setting", "settings"),
            count(figure.nights as u64, "night", "nights")
        )],
        tables: vec![Table {
            caption: format!("{}: runs and guarantee per setting", figure.program),
            header: words(&[
                "program",
                "setting",
                "nights",
                "runs",
                "last night",
                "failing",
                "bound",
                "no bug of the setting's class, p >=",
            ]),
            rows: streams.iter().map(|e| evidence_cells(e).to_vec()).collect(),
        }],
        figures: vec![Figure {
            title: format!("{}: runs and guarantee night by night", figure.program),
            svg: figure.svg.clone(),
        }],
    }
}

/// Column names as a [`Table`] takes them.
fn words(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}
