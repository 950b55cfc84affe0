//! The summary as CSV rows: one per setting.

use rankcheck_stats::decimal::number;

use super::SummaryJson;

/// The CSV rows of a summary: one per setting (one row for the
/// random strategy). Columns as the user guide lists them
/// (`docs/guide/src/csv-output.md`).
pub fn summary_rows(json: &SummaryJson) -> Vec<[String; 13]> {
    let row = |depth: String,
               vars: String,
               tracking: String,
               runs: u64,
               bound: Option<f64>,
               conf: Option<f64>,
               needed: Option<u64>| {
        [
            json.program.clone(),
            json.strategy.clone(),
            json.priorities.clone(),
            depth,
            vars,
            tracking,
            runs.to_string(),
            json.failures.to_string(),
            bound.map(number).unwrap_or_default(),
            conf.map(number).unwrap_or_default(),
            needed.map(|n| n.to_string()).unwrap_or_default(),
            format!("{:.1}", json.executions_per_s),
            json.seed.to_string(),
        ]
    };
    if json.settings.is_empty() {
        return vec![row(
            String::new(),
            "all".into(),
            "all".into(),
            json.runs,
            None,
            None,
            None,
        )];
    }
    json.settings
        .iter()
        .map(|s| {
            row(
                s.depth.to_string(),
                s.vars.map_or("all".to_string(), |v| v.to_string()),
                s.tracking.clone(),
                s.runs,
                s.bound,
                s.confidence,
                s.runs_needed,
            )
        })
        .collect()
}

/// The CSV header of [`summary_rows`].
pub const SUMMARY_COLUMNS: [&str; 13] = [
    "program",
    "strategy",
    "priorities",
    "depth",
    "vars",
    "tracking",
    "runs",
    "failures",
    "bound",
    "confidence",
    "runs_needed",
    "executions_per_s",
    "seed",
];
