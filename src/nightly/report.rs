//! `rankcheck report DIR`: the morning report from the history. New
//! failures since the previous night (with the command that replays each),
//! known ones still failing, ones not seen lately or for `--gone-after`
//! nights, and per program and setting the runs and guarantee accumulated
//! over every night of its current version. Exit status 1 when a failure
//! is new.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use rankcheck_history::{
    confidence, current_fingerprints, Evidence, FailureSummary, History, Night, Replay, Variant,
};
use rankcheck_report::shard::ExplorationSetting;
use rankcheck_stats::Probability;
use serde::Serialize;

use crate::cli::{ReportArgs, ReportFormat};
use crate::exit::Status;
use crate::guarantee::{show, show_guarantee};
use crate::invocation::replay_command;
use crate::output_file::FileFormat;

use super::history_figure::history_figures;
use super::history_path;
use super::html::{write_page, TARGET};
use super::stream::setting_label;

/// `rankcheck report DIR`.
pub fn report(args: &ReportArgs) -> Result<ExitCode> {
    let db = history_path(&args.dir, args.db.as_deref());
    Ok(print(&db, args.format, args.gone_after, args.html.as_deref())?.into())
}

/// Print the report of the history at `db` (after writing it as an HTML
/// page to `html`, if given); its status.
pub fn print(
    db: &Path,
    format: ReportFormat,
    gone_after: u64,
    html: Option<&Path>,
) -> Result<Status> {
    if let Some(page) = html {
        FileFormat::Html.check_name(page, "--html")?;
    }
    let history = History::open_existing(db)?;
    let report = build(&history, db, gone_after)?;
    if let Some(page) = html {
        let figures = history_figures(&history, TARGET)?;
        write_page(page, &report, &figures)?;
    }
    match format {
        ReportFormat::Human => out!("{}", human(&report)),
        ReportFormat::Markdown => out!("{}", markdown(&report)),
        ReportFormat::Json => outln!("{}", serde_json::to_string_pretty(&report)?),
        ReportFormat::Csv => out!("{}", csv_text(&report)?),
    }
    Ok(if report.new.is_empty() {
        Status::Clean
    } else {
        Status::Failure
    })
}

/// The report (`docs/guide/src/json-output.md`, report).
#[derive(Debug, Serialize)]
pub struct MorningReport {
    /// The history database.
    pub history: String,
    /// The latest night.
    pub night: String,
    /// Its index.
    pub night_index: u64,
    /// The night before it, if any.
    pub previous_night: Option<String>,
    /// Nights recorded.
    pub nights: u64,
    /// `--gone-after`.
    pub gone_after: u64,
    /// Failures first seen in the latest night.
    pub new: Vec<FailureView>,
    /// Failures seen in the latest night and before.
    pub still_failing: Vec<FailureView>,
    /// Known failures not seen in the latest night, but within
    /// `gone_after` nights.
    pub not_seen_lately: Vec<FailureView>,
    /// Failures not seen for `gone_after` nights or more.
    pub gone: Vec<FailureView>,
    /// Per program (current fingerprint) and setting.
    pub evidence: Vec<EvidenceView>,
}

/// A failure in the report.
#[derive(Debug, Serialize)]
pub struct FailureView {
    /// The program.
    pub program: String,
    /// `assert`, `error`, `deadlock` or `step-limit`.
    pub kind: String,
    /// The message, with the values of a run masked (`N`).
    pub message: String,
    /// The program's file.
    pub file: String,
    /// Where.
    pub line: u64,
    /// Where.
    pub column: u64,
    /// The fingerprint of the program version it failed on.
    pub fingerprint: String,
    /// The variables its interleavings raced on, over every variant.
    pub variables: Vec<String>,
    /// Thread functions that ran, over every variant.
    pub threads: Vec<String>,
    /// How many variants (threads, variables raced on, message unmasked)
    /// its sightings showed.
    pub variants: u64,
    /// The identity's key.
    pub signature: String,
    /// First night seen.
    pub first_night: String,
    /// Last night seen.
    pub last_night: String,
    /// Failing chunks that met it.
    pub count: u64,
    /// The replay file of its latest sighting (none for a Rust test).
    pub replay: Option<String>,
    /// The command that replays it (for a Rust test, `RANKCHECK_REPLAY=...
    /// cargo test ...`).
    pub replay_command: Option<String>,
}

/// A stream's evidence in the report.
#[derive(Debug, Serialize)]
pub struct EvidenceView {
    /// The program.
    pub program: String,
    /// Its current fingerprint.
    pub fingerprint: String,
    /// The setting key.
    pub setting: String,
    /// Nights with runs.
    pub nights: u64,
    /// Runs over all nights.
    pub runs: u64,
    /// Of which clean.
    pub clean_runs: u64,
    /// Failing chunks.
    pub failures: u64,
    /// Runs in the latest night.
    pub night_runs: u64,
    /// The latest per-run bound, as `1/X` (null where none is claimed).
    pub bound: Option<String>,
    /// Its logarithm.
    pub bound_ln: Option<f64>,
    /// `log10` of the probability that every clean run missed a bug of
    /// the setting's class (null where none is claimed: no bound, or the
    /// stream failed).
    pub miss_log10: Option<f64>,
    /// `1 -` that probability.
    pub confidence: Option<f64>,
    /// The guarantee as the report and the figures state it.
    pub guarantee: String,
}

/// Read the report out of the history.
fn build(history: &History, db: &Path, gone_after: u64) -> Result<MorningReport> {
    let nights = history.nights()?;
    let Some(latest) = nights.last() else {
        bail!("{}: the history has no night yet", db.display());
    };
    let names: BTreeMap<u64, &Night> = nights.iter().map(|n| (n.index, n)).collect();
    let name = |index: u64| {
        names
            .get(&index)
            .map_or_else(|| index.to_string(), |n| n.name.clone())
    };
    let db_dir = db.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut report = MorningReport {
        history: db.display().to_string(),
        night: latest.name.clone(),
        night_index: latest.index,
        previous_night: nights.iter().rev().nth(1).map(|n| n.name.clone()),
        nights: nights.len() as u64,
        gone_after,
        new: Vec::new(),
        still_failing: Vec::new(),
        not_seen_lately: Vec::new(),
        gone: Vec::new(),
        evidence: evidence(history.evidence(None)?, latest.index),
    };
    for failure in history.failures()? {
        let view = failure_view(&failure, &db_dir, &name);
        let list = if failure.last_night == latest.index {
            if failure.first_night == latest.index {
                &mut report.new
            } else {
                &mut report.still_failing
            }
        } else if latest.index - failure.last_night >= gone_after {
            &mut report.gone
        } else {
            &mut report.not_seen_lately
        };
        list.push(view);
    }
    Ok(report)
}

fn failure_view(
    failure: &FailureSummary,
    db_dir: &Path,
    name: &dyn Fn(u64) -> String,
) -> FailureView {
    // A replay file is stored relative to the history; a Rust test's
    // replay is the command itself.
    let (replay, replay_command) = match failure.replay.as_deref().map(Replay::of) {
        None => (None, None),
        Some(Replay::Command(command)) => (None, Some(command.to_string())),
        Some(Replay::File(file)) => {
            let path = PathBuf::from(file);
            let path = if path.is_absolute() {
                path
            } else {
                db_dir.join(path)
            };
            (
                Some(path.display().to_string()),
                Some(replay_command(&path)),
            )
        }
    };
    let identity = &failure.identity;
    let union = |part: fn(&Variant) -> &Vec<String>| {
        let all: BTreeSet<&String> = failure.variants.iter().flat_map(|(v, _)| part(v)).collect();
        all.into_iter().cloned().collect()
    };
    FailureView {
        program: failure.program.clone(),
        kind: identity.kind.clone(),
        message: identity.message.clone(),
        file: identity.file.clone(),
        line: identity.line,
        column: identity.column,
        fingerprint: identity.fingerprint.clone(),
        variables: union(|v| &v.variables),
        threads: union(|v| &v.threads),
        variants: failure.variants.len() as u64,
        signature: failure.key.clone(),
        first_night: name(failure.first_night),
        last_night: name(failure.last_night),
        count: failure.count,
        replay_command,
        replay,
    }
}

/// Each program's current version (the fingerprint run most recently),
/// setting by setting.
fn evidence(all: Vec<Evidence>, latest: u64) -> Vec<EvidenceView> {
    let current = current_fingerprints(all.iter().map(|e| {
        (
            e.program.as_str(),
            e.fingerprint.as_str(),
            e.last_night_index,
        )
    }));
    all.into_iter()
        .filter(|e| current.get(&e.program) == Some(&e.fingerprint))
        .map(|e| {
            let bound = e.last_bound_ln.and_then(|b| Probability::from_ln(b).ok());
            EvidenceView {
                night_runs: if e.last_night_index == latest {
                    e.last_night_runs
                } else {
                    0
                },
                bound: bound.map(show),
                bound_ln: e.last_bound_ln,
                miss_log10: e
                    .confidence()
                    .and(e.ln_miss)
                    .map(|ln| ln / std::f64::consts::LN_10),
                confidence: e.confidence(),
                guarantee: claim_text(&e.setting, e.failures, e.ln_miss),
                program: e.program,
                fingerprint: e.fingerprint,
                setting: setting_label(&e.setting),
                nights: e.nights,
                runs: e.runs,
                clean_runs: e.clean_runs,
                failures: e.failures,
            }
        })
        .collect()
}

/// The guarantee a stream of `setting` with `failures` failing runs and
/// `ln_miss` claims, as the report and the history figures state it: none
/// once it failed; a complete exploration's proof; else four decimals or
/// `1 - 10^-8.6`.
pub(crate) fn claim_text(setting: &str, failures: u64, ln_miss: Option<f64>) -> String {
    if failures > 0 {
        return "none: it failed".into();
    }
    if let Some(exploration) = ExplorationSetting::parse(setting) {
        return exploration.claim();
    }
    match ln_miss {
        // `+ 0.0`: a stream with no clean run yet (a Rust test's setting
        // its failing chunks did not reach) has confidence -0, shown 0.
        Some(ln) => show_guarantee(ln / std::f64::consts::LN_10, confidence(ln) + 0.0),
        None => "no bound claimed".into(),
    }
}

/// `assert at 24:5 "a push was lost" (over head; threads main, push)`,
/// with `; 3 variants` when its sightings differed.
fn failure_line(f: &FailureView) -> String {
    let over = if f.variables.is_empty() {
        String::new()
    } else {
        format!("over {}; ", f.variables.join(", "))
    };
    let variants = if f.variants > 1 {
        format!("; {} variants", f.variants)
    } else {
        String::new()
    };
    format!(
        "{} at {}:{} \"{}\" ({over}threads {}{variants})",
        f.kind,
        f.line,
        f.column,
        f.message,
        f.threads.join(", ")
    )
}

/// A failure as the report's tables show it: program, what failed where,
/// first and last night seen, failing chunks, the replay command (`-`
/// without one).
pub(super) fn failure_cells(f: &FailureView) -> [String; 6] {
    [
        f.program.clone(),
        failure_line(f),
        f.first_night.clone(),
        f.last_night.clone(),
        f.count.to_string(),
        f.replay_command.clone().unwrap_or_else(|| "-".into()),
    ]
}

/// A stream as the report's tables show it: program, setting, nights,
/// runs, the latest night's runs, failing chunks, the bound (`-` without
/// one) and the guarantee.
pub(super) fn evidence_cells(e: &EvidenceView) -> [String; 8] {
    [
        e.program.clone(),
        e.setting.clone(),
        e.nights.to_string(),
        e.runs.to_string(),
        e.night_runs.to_string(),
        e.failures.to_string(),
        e.bound.clone().unwrap_or_else(|| "-".into()),
        e.guarantee.clone(),
    ]
}

/// Failure sections in order, with their headings.
pub(super) fn sections(report: &MorningReport) -> [(String, &Vec<FailureView>, &'static str); 4] {
    [
        ("new failures".to_string(), &report.new, "new"),
        (
            "still failing".to_string(),
            &report.still_failing,
            "still-failing",
        ),
        (
            "not seen in the latest night".to_string(),
            &report.not_seen_lately,
            "not-seen-lately",
        ),
        (
            format!("not seen for {} nights or more", report.gone_after),
            &report.gone,
            "gone",
        ),
    ]
}

/// A heading's first letter in upper case.
pub(super) fn capitalized(title: &str) -> String {
    let mut chars = title.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The report for people.
fn human(report: &MorningReport) -> String {
    let mut out = format!(
        "morning report: night {} (index {}, {} in {})\n",
        report.night,
        report.night_index,
        rankcheck_report::words::count(report.nights, "night", "nights"),
        report.history
    );
    for (title, failures, _) in sections(report) {
        let _ = writeln!(out, "\n{title}: {}", failures.len());
        for f in failures {
            let _ = writeln!(out, "  {}: {}", f.program, failure_line(f));
            let _ = writeln!(
                out,
                "    first seen {}, last seen {}, {}",
                f.first_night,
                f.last_night,
                rankcheck_report::words::count(f.count, "failing chunk", "failing chunks")
            );
            if let Some(command) = &f.replay_command {
                let _ = writeln!(out, "    replay: {command}");
            }
        }
    }
    let _ = writeln!(
        out,
        "\nevidence (every night of each program's current version):"
    );
    let width = report
        .evidence
        .iter()
        .map(|e| e.program.len())
        .max()
        .unwrap_or(7)
        .max(7);
    let set_width = report
        .evidence
        .iter()
        .map(|e| e.setting.len())
        .max()
        .unwrap_or(7)
        .max(7);
    let _ = writeln!(
        out,
        "  {:<width$}  {:<set_width$}  {:>6}  {:>10}  {:>10}  {:>8}  {:>12}  no bug of the setting's class, p >=",
        "program", "setting", "nights", "runs", "last night", "failing", "bound"
    );
    for e in &report.evidence {
        let [program, setting, nights, runs, night, failing, bound, guarantee] = evidence_cells(e);
        let _ = writeln!(
            out,
            "  {program:<width$}  {setting:<set_width$}  {nights:>6}  {runs:>10}  {night:>10}  {failing:>8}  {bound:>12}  {guarantee}",
        );
    }
    out
}

/// The report as Markdown, for a CI summary or an issue.
fn markdown(report: &MorningReport) -> String {
    let mut out = format!(
        "# Morning report: night {}\n\nNight index {}, {} in `{}`.\n",
        report.night,
        report.night_index,
        rankcheck_report::words::count(report.nights, "night", "nights"),
        report.history
    );
    for (title, failures, _) in sections(report) {
        let _ = writeln!(out, "\n## {} ({})\n", capitalized(&title), failures.len());
        if failures.is_empty() {
            out.push_str("None.\n");
            continue;
        }
        out.push_str("| program | failure | first seen | last seen | chunks | replay |\n| --- | --- | --- | --- | --- | --- |\n");
        for f in failures {
            let [program, failure, first, last, count, replay] = failure_cells(f);
            let replay = match f.replay_command {
                Some(_) => format!("`{replay}`"),
                None => replay,
            };
            let failure = failure.replace('|', "\\|");
            let _ = writeln!(
                out,
                "| `{program}` | {failure} | {first} | {last} | {count} | {replay} |"
            );
        }
    }
    out.push_str("\n## Evidence\n\n| program | setting | nights | runs | last night | failing | bound | no bug of the class, p >= |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for e in &report.evidence {
        let [program, setting, nights, runs, night, failing, bound, guarantee] = evidence_cells(e);
        let _ = writeln!(
            out,
            "| `{program}` | `{setting}` | {nights} | {runs} | {night} | {failing} | {bound} | {guarantee} |"
        );
    }
    out
}

/// The CSV columns of `report --format csv`.
pub const REPORT_COLUMNS: [&str; 21] = [
    "section",
    "night",
    "program",
    "setting",
    "nights",
    "runs",
    "clean_runs",
    "night_runs",
    "failures",
    "bound",
    "miss_log10",
    "kind",
    "line",
    "column",
    "message",
    "variables",
    "threads",
    "signature",
    "first_night",
    "last_night",
    "replay",
];

/// One row per failure (section `new`, `still-failing`, `not-seen-lately`,
/// `gone`) and per stream (section `evidence`).
fn csv_text(report: &MorningReport) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(REPORT_COLUMNS)?;
    let none = String::new;
    for (_, failures, section) in sections(report) {
        for f in failures {
            writer.write_record([
                section.to_string(),
                report.night.clone(),
                f.program.clone(),
                none(),
                none(),
                none(),
                none(),
                none(),
                f.count.to_string(),
                none(),
                none(),
                f.kind.clone(),
                f.line.to_string(),
                f.column.to_string(),
                f.message.clone(),
                f.variables.join(" "),
                f.threads.join(" "),
                f.signature.clone(),
                f.first_night.clone(),
                f.last_night.clone(),
                f.replay.clone().unwrap_or_default(),
            ])?;
        }
    }
    for e in &report.evidence {
        writer.write_record([
            "evidence".to_string(),
            report.night.clone(),
            e.program.clone(),
            e.setting.clone(),
            e.nights.to_string(),
            e.runs.to_string(),
            e.clean_runs.to_string(),
            e.night_runs.to_string(),
            e.failures.to_string(),
            e.bound.clone().unwrap_or_default(),
            e.miss_log10.map(|m| format!("{m:.6}")).unwrap_or_default(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
        ])?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}

#[cfg(test)]
mod tests {
    use super::claim_text;

    #[test]
    fn a_complete_clean_exploration_is_a_proof_and_nothing_else_is() {
        assert_eq!(
            claim_text("explore c=2 complete", 0, None),
            "proved: every schedule with at most 2 preemptions"
        );
        assert_eq!(
            claim_text("explore complete", 0, None),
            "proved: every schedule"
        );
        assert_eq!(
            claim_text("explore c=2 capped", 0, None),
            "none: the exploration did not finish"
        );
        assert_eq!(claim_text("explore c=2 failed", 1, None), "none: it failed");
        assert_eq!(claim_text("explore complete", 1, None), "none: it failed");
        assert_eq!(claim_text("urw", 0, None), "no bound claimed");
    }
}
