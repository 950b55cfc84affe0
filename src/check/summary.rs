//! The closing summary of a search: what it ran, the bound of each setting
//! and the confidence its clean runs earned (or, after a failure, the same
//! figures without the claim), per variable set where variables are drawn,
//! and the settings it could not run; as text, JSON and CSV.

use std::fmt::Write as _;

use rankcheck_engine::strategy::{PrioritySetting, Rotation, Slot};
use rankcheck_engine::PriorityScheme;
use rankcheck_stats::{HitRate, Probability};
use serde::Serialize;

use crate::failure::FailureJson;
use crate::guarantee::{confidence, needed, per_set_bounds, show, show_confidence};
use crate::plan::{describe_selection, scheme, var_count, Plan};
use crate::words::count;

use super::run::Checked;

/// The most variable sets a text summary lists under one setting; JSON
/// lists them all.
const SETS_SHOWN: usize = 10;

/// One variable set's guarantee within a setting that draws variables.
#[derive(Debug, Serialize)]
pub struct SetJson {
    /// The variables.
    vars: Vec<String>,
    /// Per-run lower bound on finding a bug over exactly these variables.
    bound: f64,
    /// `ln` of the bound.
    bound_ln: f64,
    /// Probability that the setting's runs would have found such a bug.
    confidence: f64,
    /// Runs the target confidence needs for such a bug.
    runs_needed: Option<u64>,
}

/// One (depth, variables) setting's guarantee.
#[derive(Debug, Serialize)]
pub struct SettingJson {
    depth: u32,
    /// `v`, or null for all variables.
    vars: Option<usize>,
    /// How the variables were chosen: `1 of 4`, `all`, `none`, names.
    tracking: String,
    runs: u64,
    /// Per-run lower bound on finding a bug of this depth over any `v`
    /// variables (the worst case over variable sets), or null where none
    /// is claimed.
    bound: Option<f64>,
    /// `ln` of the bound, exact where `bound` underflows.
    bound_ln: Option<f64>,
    /// Probability that the runs done would have found such a bug.
    confidence: Option<f64>,
    /// Runs the target confidence needs.
    runs_needed: Option<u64>,
    /// For variables drawn each run: the guarantee per variable set,
    /// weakest first; null otherwise (or past 10,000 sets).
    per_set: Option<Vec<SetJson>>,
}

/// A setting asked for but not run.
#[derive(Debug, Serialize)]
pub struct SkippedJson {
    depth: u32,
    tracking: String,
    reason: String,
}

/// The runs one sampling strategy of the portfolio made.
#[derive(Debug, Serialize)]
pub struct SamplingRunsJson {
    strategy: String,
    runs: u64,
}

/// A variable's profile.
#[derive(Debug, Serialize)]
struct KqJson {
    var: String,
    kind: String,
    k_q: u64,
    mean: f64,
    shared: bool,
}

/// The JSON object of `rankcheck check --format json`. Fields are added,
/// never renamed (README, JSON output).
#[derive(Debug, Serialize)]
pub struct SummaryJson {
    program: String,
    strategy: String,
    priorities: String,
    seed: u64,
    runs: u64,
    failures: u64,
    elapsed_s: f64,
    executions_per_s: f64,
    /// The depth asked for (null when rotating through settings).
    depth: Option<u32>,
    /// The `--vars` asked for, as given (null when not given).
    vars: Option<String>,
    /// The `--threads` asked for (null when not given).
    threads: Option<u32>,
    n: usize,
    k: u64,
    #[serde(rename = "Q")]
    q: usize,
    k_q: Vec<KqJson>,
    profile_runs: u64,
    target_confidence: f64,
    /// Whether `--max-runs` cut the run count the confidence asked for.
    runs_capped: bool,
    /// Whether SIGINT or SIGTERM stopped the search early.
    interrupted: bool,
    /// The portfolio's sampling strategies with their runs (the priority
    /// settings' runs are in `settings`); null for other strategies.
    sampling: Option<Vec<SamplingRunsJson>>,
    settings: Vec<SettingJson>,
    skipped: Vec<SkippedJson>,
    /// The lowest confidence over the settings (the guarantee of the run as
    /// a whole), null if no setting claims one.
    confidence: Option<f64>,
    /// The setting's bound when there is exactly one.
    bound: Option<f64>,
    runs_needed: Option<u64>,
    hit_rate: Option<f64>,
    hit_rate_low: Option<f64>,
    hit_rate_high: Option<f64>,
    first_failure: Option<FailureJson>,
}

/// The JSON of one setting's guarantee.
fn setting_json(checked: &Checked, index: usize, setting: &PrioritySetting) -> SettingJson {
    let program = &checked.prepared.loaded.program;
    let target = checked.args.confidence;
    let runs = checked
        .prepared
        .plan
        .setting_runs(index, 0, checked.result.runs);
    let bound = checked.prepared.bounds[index];
    let per_set =
        per_set_bounds(setting, scheme(checked.args), &checked.prepared.profile).map(|sets| {
            sets.into_iter()
                .map(|set| SetJson {
                    vars: set
                        .vars
                        .iter()
                        .map(|v| program.vars[v.index()].name.clone())
                        .collect(),
                    bound: set.bound.value(),
                    bound_ln: set.bound.ln(),
                    confidence: confidence(set.bound, runs),
                    runs_needed: needed(set.bound, target),
                })
                .collect()
        });
    SettingJson {
        depth: setting.depth,
        vars: var_count(&setting.vars),
        tracking: describe_selection(program, &setting.vars),
        runs,
        bound: bound.map(|b| b.value()),
        bound_ln: bound.map(|b| b.ln()),
        confidence: bound.map(|b| confidence(b, runs)),
        runs_needed: bound.and_then(|b| needed(b, target)),
        per_set,
    }
}

/// The summary of a checked program, with its failure if there was one.
pub fn summary_json(checked: &Checked, failure: Option<FailureJson>) -> SummaryJson {
    let args = checked.args;
    let program = &checked.prepared.loaded.program;
    let result = &checked.result;
    let settings: Vec<SettingJson> = checked
        .prepared
        .settings
        .iter()
        .enumerate()
        .map(|(i, s)| setting_json(checked, i, s))
        .collect();
    let hit = args
        .keep_going
        .then(|| HitRate::new(result.failures, result.runs).ok())
        .flatten();
    let interval = hit.and_then(|h| h.clopper_pearson(args.confidence).ok());
    let overall = settings
        .iter()
        .map(|s| s.confidence)
        .collect::<Option<Vec<f64>>>()
        .filter(|c| !c.is_empty())
        .map(|c| c.into_iter().fold(1.0, f64::min));
    let sampling = match &checked.prepared.plan {
        Plan::Portfolio(portfolio) => Some(sampling_runs(portfolio.rotation(), result.runs)),
        _ => None,
    };
    let single = |f: fn(&SettingJson) -> Option<f64>| {
        (settings.len() == 1).then(|| f(&settings[0])).flatten()
    };
    SummaryJson {
        program: checked.path.display().to_string(),
        strategy: args.strategy().name().to_string(),
        priorities: scheme(args).name().to_string(),
        seed: checked.prepared.seed,
        runs: result.runs,
        failures: result.failures,
        elapsed_s: checked.elapsed,
        executions_per_s: rate(result.runs, checked.elapsed),
        depth: args.depth,
        vars: args.vars.as_ref().map(ToString::to_string),
        threads: args.threads,
        n: checked.prepared.profile.max_threads,
        k: checked.prepared.profile.max_accesses,
        q: program.n_vars(),
        k_q: checked
            .prepared
            .profile
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| KqJson {
                var: program.vars[i].name.clone(),
                kind: program.vars[i].kind.describe().to_string(),
                k_q: v.max_accesses,
                mean: v.mean_accesses,
                shared: v.shared(),
            })
            .collect(),
        profile_runs: checked.prepared.profile.runs,
        target_confidence: args.confidence,
        runs_capped: checked.prepared.runs_capped,
        interrupted: checked.interrupted,
        confidence: overall,
        sampling,
        bound: single(|s| s.bound),
        runs_needed: (settings.len() == 1)
            .then(|| settings[0].runs_needed)
            .flatten(),
        settings,
        skipped: checked
            .prepared
            .skipped
            .iter()
            .map(|s| SkippedJson {
                depth: s.depth,
                tracking: s.vars.clone(),
                reason: s.reason.clone(),
            })
            .collect(),
        hit_rate: hit.map(|h| h.estimate()),
        hit_rate_low: interval.map(|i| i.lower),
        hit_rate_high: interval.map(|i| i.upper),
        first_failure: failure,
    }
}

/// Each sampling strategy of `rotation`, in cycle order, with its runs
/// among the first `runs`.
fn sampling_runs(rotation: &Rotation, runs: u64) -> Vec<SamplingRunsJson> {
    let mut seen = Vec::new();
    for slot in rotation.slots() {
        if let Slot::Sampling(s) = *slot {
            if !seen.contains(&s) {
                seen.push(s);
            }
        }
    }
    seen.into_iter()
        .map(|s| SamplingRunsJson {
            strategy: s.name().to_string(),
            runs: rotation.runs_of(Slot::Sampling(s), 0, runs),
        })
        .collect()
}

/// Executions per second.
pub fn rate(runs: u64, elapsed: f64) -> f64 {
    if elapsed > 0.0 {
        runs as f64 / elapsed
    } else {
        0.0
    }
}

/// The closing summary: after a clean search, what it proved; after a
/// failure (`failed`), the same figures without the claim.
pub fn summary_text(json: &SummaryJson, scheme: PriorityScheme, failed: bool) -> String {
    let mut out = if failed {
        format!(
            "{} of {} ({:.0} runs/s), {} failed\n",
            count(json.runs, "run", "runs"),
            json.strategy,
            json.executions_per_s,
            json.failures
        )
    } else {
        format!(
            "no failure in {} of {} (strategy {}, seed {}, {:.2}s, {:.0} runs/s)\n",
            count(json.runs, "run", "runs"),
            json.program,
            json.strategy,
            json.seed,
            json.elapsed_s,
            json.executions_per_s
        )
    };
    let _ = writeln!(
        out,
        "n = {}, k = {} per run at most, Q = {} ({})",
        count(json.n as u64, "thread", "threads"),
        count(json.k, "tracked access", "tracked accesses"),
        count(json.q as u64, "variable", "variables"),
        count(json.profile_runs, "preparatory run", "preparatory runs")
    );
    let accessed: Vec<String> = json
        .k_q
        .iter()
        .filter(|v| v.k_q > 0)
        .map(|v| {
            format!(
                "{} {}{}",
                v.var,
                v.k_q,
                if v.shared { "" } else { " (one thread)" }
            )
        })
        .collect();
    if !accessed.is_empty() {
        let _ = writeln!(out, "k_q: {}", accessed.join(", "));
    }
    if let Some(sampling) = &json.sampling {
        let parts: Vec<String> = sampling
            .iter()
            .map(|s| format!("{} {}", s.runs, s.strategy))
            .collect();
        let _ = writeln!(
            out,
            "portfolio runs: {}; the PCT settings' runs are on their lines below",
            parts.join(", ")
        );
    }
    if scheme != PriorityScheme::Pct && !json.settings.is_empty() {
        let _ = writeln!(
            out,
            "thread-bounded priorities: no per-run bound is claimed (see Lemma 4.1 of the paper)"
        );
    }
    for setting in &json.settings {
        setting_text(&mut out, setting, json.target_confidence, failed);
    }
    for skipped in &json.skipped {
        let _ = writeln!(
            out,
            "not run: depth {} over {}: {}",
            skipped.depth, skipped.tracking, skipped.reason
        );
    }
    if let (Some(rate), Some(low), Some(high)) =
        (json.hit_rate, json.hit_rate_low, json.hit_rate_high)
    {
        let _ = writeln!(
            out,
            "measured hit rate {rate:.6} ({low:.6} to {high:.6} at {})",
            json.target_confidence
        );
    }
    if json.interrupted {
        let _ = writeln!(
            out,
            "interrupted after {}: the figures above are what those runs earned",
            count(json.runs, "run", "runs")
        );
    }
    if json.runs_capped && !failed && !json.interrupted {
        let _ = writeln!(
            out,
            "--max-runs cut the run count, so the target confidence {} was not reached for every setting",
            json.target_confidence
        );
    }
    out
}

/// `1 variable (1 of 3)`, `any variables`, `no variable`.
fn over(setting: &SettingJson) -> String {
    match setting.vars {
        None => "any variables".to_string(),
        Some(0) => "no variable".to_string(),
        Some(v) => format!(
            "{} ({})",
            count(v as u64, "variable", "variables"),
            setting.tracking
        ),
    }
}

/// One setting's lines: its guarantee, then per variable set.
fn setting_text(out: &mut String, s: &SettingJson, target: f64, failed: bool) {
    let Some(bound) = s.bound_ln.and_then(|ln| Probability::from_ln(ln).ok()) else {
        return;
    };
    let runs = count(s.runs, "run", "runs");
    if failed {
        let _ = writeln!(
            out,
            "depth {} over {}: each run finds such a bug with p >= {} ({runs})",
            s.depth,
            over(s),
            show(bound)
        );
    } else {
        let _ = writeln!(
            out,
            "no bug of depth {} over {}, with probability >= {} ({runs}, each finding one with p >= {}{})",
            s.depth,
            over(s),
            show_confidence(bound, s.runs),
            show(bound),
            s.runs_needed
                .map(|n| format!("; {} reach {target}", count(n, "run", "runs")))
                .unwrap_or_default()
        );
    }
    // One set is the headline itself.
    let Some(sets) = s.per_set.as_ref().filter(|sets| sets.len() > 1) else {
        return;
    };
    let shown: Vec<&SetJson> = if sets.len() <= SETS_SHOWN {
        sets.iter().collect()
    } else {
        let half = SETS_SHOWN / 2;
        sets[..half]
            .iter()
            .chain(&sets[sets.len() - half..])
            .collect()
    };
    for (i, set) in shown.iter().enumerate() {
        if sets.len() > SETS_SHOWN && i == SETS_SHOWN / 2 {
            let _ = writeln!(
                out,
                "    ... {} more, in --format json",
                count((sets.len() - SETS_SHOWN) as u64, "set", "sets")
            );
        }
        let Ok(bound) = Probability::from_ln(set.bound_ln) else {
            continue;
        };
        let which = match set.vars.as_slice() {
            [one] => format!("{one} alone"),
            many => many.join(" and "),
        };
        if failed {
            let _ = writeln!(out, "    over {which}: p >= {} per run", show(bound));
        } else {
            let _ = writeln!(
                out,
                "    over {which}: >= {} (each run p >= {})",
                show_confidence(bound, s.runs),
                show(bound)
            );
        }
    }
}

/// The CSV rows of a checked program: one per setting (one row for the
/// random strategy). Columns as the README lists them.
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
            bound.map(|b| format!("{b:e}")).unwrap_or_default(),
            conf.map(|c| c.to_string()).unwrap_or_default(),
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
