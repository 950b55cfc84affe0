//! The closing summary of a search: what it ran, the bound of each setting
//! and the confidence its clean runs earned (or, after a failure, the same
//! figures without the claim), as text and as the JSON object.

use std::path::Path;

use rankcheck_engine::profile::Profile;
use rankcheck_engine::search::SearchResult;
use rankcheck_engine::PriorityScheme;
use rankcheck_stats::{HitRate, Probability};
use serde::Serialize;

use crate::check::Found;
use crate::cli::TestArgs;
use crate::guarantee::{confidence, needed, show, show_confidence};
use crate::load::Loaded;
use crate::plan::{describe_selection, scheme, var_count};
use crate::report::FailureJson;
use crate::trace_view::Observed;

/// What the search did and what it proved, for the closing summary.
pub struct Summary {
    json: SummaryJson,
    scheme: PriorityScheme,
}

/// One (depth, variables) setting's guarantee.
#[derive(Debug, Serialize)]
struct SettingJson {
    depth: u32,
    /// `v`, or null for all variables.
    vars: Option<usize>,
    /// How the variables were chosen: `1 of 4`, `all`, `none`, names.
    tracking: String,
    runs: u64,
    /// Per-run lower bound on finding a bug of this depth over this many
    /// variables, or null where none is claimed.
    bound: Option<f64>,
    /// `ln` of the bound, exact where `bound` underflows.
    bound_ln: Option<f64>,
    /// Probability that the runs done would have found such a bug.
    confidence: Option<f64>,
    /// Runs the target confidence needs.
    runs_needed: Option<u64>,
}

/// The JSON object of `rankcheck PROGRAM --format json`. Fields are added,
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
    /// The `--vars` asked for, as given (null when rotating).
    vars: Option<String>,
    /// The thread bound the guarantee is stated for.
    threads: u32,
    n: usize,
    k: u64,
    #[serde(rename = "Q")]
    q: usize,
    k_q: Vec<KqJson>,
    profile_runs: u64,
    target_confidence: f64,
    runs_capped: bool,
    /// Whether SIGINT or SIGTERM stopped the search early.
    interrupted: bool,
    settings: Vec<SettingJson>,
    /// The lowest confidence over the settings (the guarantee of the run as
    /// a whole), null if no setting claims one.
    confidence: Option<f64>,
    /// The setting's bound when there is exactly one.
    bound: Option<f64>,
    runs_needed: Option<u64>,
    hit_rate: Option<f64>,
    hit_rate_low: Option<f64>,
    hit_rate_high: Option<f64>,
    first_failure: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
struct KqJson {
    var: String,
    kind: String,
    k_q: u64,
    mean: f64,
    shared: bool,
}

/// What the report adds to a failure: the strategy's choices and the
/// bug's observed bounds.
#[derive(Debug, Serialize)]
pub struct FailureDetails {
    found_by: &'static str,
    depth: Option<u32>,
    chosen_vars: Vec<String>,
    change_points: Vec<ChangeJson>,
    observed: Observed,
}

#[derive(Debug, Serialize)]
struct ChangeJson {
    index: usize,
    access: u64,
    step: u64,
    thread: String,
    var: Option<String>,
}

impl FailureDetails {
    /// The details of a failure.
    pub fn new(
        found: &Found,
        loaded: &Loaded,
        settings: &[rankcheck_engine::strategy::PrioritySetting],
        observed: Observed,
    ) -> FailureDetails {
        let program = &loaded.program;
        FailureDetails {
            found_by: if found.by_search {
                "search"
            } else {
                "preparatory"
            },
            depth: found.choices.as_ref().map(|c| settings[c.setting].depth),
            chosen_vars: found
                .choices
                .as_ref()
                .and_then(|c| c.vars.as_ref())
                .map(|vars| {
                    vars.iter()
                        .map(|v| program.vars[v.index()].name.clone())
                        .collect()
                })
                .unwrap_or_default(),
            change_points: found
                .changes
                .iter()
                .map(|c| ChangeJson {
                    index: c.index,
                    access: c.access,
                    step: c.step,
                    thread: found
                        .traced
                        .steps
                        .get((c.step as usize).wrapping_sub(1))
                        .map(|s| s.thread.clone())
                        .unwrap_or_default(),
                    var: c.var.map(|v| program.vars[v.index()].name.clone()),
                })
                .collect(),
            observed,
        }
    }
}

impl Summary {
    /// The summary of a search.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        args: &TestArgs,
        path: &Path,
        loaded: &Loaded,
        profile: &Profile,
        settings: &[rankcheck_engine::strategy::PrioritySetting],
        bounds: &[Option<Probability>],
        result: &SearchResult,
        seed: u64,
        elapsed: f64,
        runs_capped: bool,
        interrupted: bool,
    ) -> Summary {
        let program = &loaded.program;
        let per_setting = |i: usize| {
            let s = settings.len() as u64;
            result.runs / s + u64::from((i as u64) < result.runs % s)
        };
        let settings_json: Vec<SettingJson> = settings
            .iter()
            .zip(bounds)
            .enumerate()
            .map(|(i, (setting, bound))| SettingJson {
                depth: setting.depth,
                vars: var_count(&setting.vars),
                tracking: describe_selection(program, &setting.vars),
                runs: per_setting(i),
                bound: bound.map(|b| b.value()),
                bound_ln: bound.map(|b| b.ln()),
                confidence: bound.map(|b| confidence(b, per_setting(i))),
                runs_needed: bound.and_then(|b| needed(b, args.confidence)),
            })
            .collect();
        let hit = if args.keep_going {
            HitRate::new(result.failures, result.runs).ok()
        } else {
            None
        };
        let interval = hit.and_then(|h| h.clopper_pearson(args.confidence).ok());
        let overall = settings_json
            .iter()
            .map(|s| s.confidence)
            .collect::<Option<Vec<f64>>>();
        let kq: Vec<KqJson> = profile
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
            .collect();
        let json = SummaryJson {
            program: path.display().to_string(),
            strategy: args.strategy.name().to_string(),
            priorities: scheme(args).name().to_string(),
            seed,
            runs: result.runs,
            failures: result.failures,
            elapsed_s: elapsed,
            executions_per_s: if elapsed > 0.0 {
                result.runs as f64 / elapsed
            } else {
                0.0
            },
            depth: args.depth,
            vars: args.vars.as_ref().map(ToString::to_string),
            threads: args.threads,
            n: profile.max_threads,
            k: profile.max_accesses,
            q: program.n_vars(),
            k_q: kq,
            profile_runs: profile.runs,
            target_confidence: args.confidence,
            runs_capped,
            interrupted,
            confidence: overall
                .filter(|c| !c.is_empty())
                .map(|c| c.into_iter().fold(1.0, f64::min)),
            bound: if settings_json.len() == 1 {
                settings_json[0].bound
            } else {
                None
            },
            runs_needed: if settings_json.len() == 1 {
                settings_json[0].runs_needed
            } else {
                None
            },
            settings: settings_json,
            hit_rate: hit.map(|h| h.estimate()),
            hit_rate_low: interval.map(|i| i.lower),
            hit_rate_high: interval.map(|i| i.upper),
            first_failure: None,
        };
        let scheme = scheme(args);
        Summary { json, scheme }
    }

    /// The JSON object, with the failure if there was one.
    pub fn json(mut self, failure: Option<(FailureJson, FailureDetails)>) -> SummaryJson {
        self.json.first_failure = failure.map(|(failure, details)| {
            let mut value = serde_json::to_value(failure).unwrap_or_default();
            if let (serde_json::Value::Object(map), Ok(serde_json::Value::Object(extra))) =
                (&mut value, serde_json::to_value(details))
            {
                map.extend(extra);
            }
            value
        });
        self.json
    }

    /// The human text.
    pub fn text(&self, failed: bool) -> String {
        summary_text(&self.json, self.scheme, failed)
    }
}

/// The closing summary: after a clean search, what it proved; after a
/// failure (`failed`), the same figures without the claim.
fn summary_text(json: &SummaryJson, scheme: PriorityScheme, failed: bool) -> String {
    use std::fmt::Write as _;
    let mut out = if failed {
        format!(
            "{} runs of {} ({:.0} runs/s), {} failed\n",
            json.runs, json.strategy, json.executions_per_s, json.failures
        )
    } else {
        format!(
            "no failure in {} runs of {} (strategy {}, seed {}, {:.2}s, {:.0} runs/s)\n",
            json.runs,
            json.program,
            json.strategy,
            json.seed,
            json.elapsed_s,
            json.executions_per_s
        )
    };
    let _ = writeln!(
        out,
        "n = {} threads, k = {} tracked accesses per run at most, Q = {} variables ({} preparatory runs)",
        json.n, json.k, json.q, json.profile_runs
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
    if scheme != PriorityScheme::Pct && !json.settings.is_empty() {
        let _ = writeln!(
            out,
            "thread-bounded priorities: no per-run bound is claimed (see Lemma 4.1 of the paper)"
        );
    }
    for s in &json.settings {
        let Some(bound) = s.bound_ln.and_then(|ln| Probability::from_ln(ln).ok()) else {
            continue;
        };
        let over = match s.vars {
            None => "any variables".to_string(),
            Some(0) => "no variable".to_string(),
            Some(1) => format!("1 variable ({})", s.tracking),
            Some(v) => format!("{v} variables ({})", s.tracking),
        };
        if failed {
            let _ = writeln!(
                out,
                "depth {} over {over}: each run finds such a bug with p >= {} ({} runs)",
                s.depth,
                show(bound),
                s.runs
            );
            continue;
        }
        let _ = writeln!(
            out,
            "no bug of depth {} over {over}, with probability >= {} ({} runs, each finding one with p >= {}{})",
            s.depth,
            show_confidence(bound, s.runs),
            s.runs,
            show(bound),
            s.runs_needed
                .map(|n| format!("; {n} runs reach {}", json.target_confidence))
                .unwrap_or_default()
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
            "interrupted after {} runs: the figures above are what those runs earned",
            json.runs
        );
    }
    if json.runs_capped {
        let _ = writeln!(
            out,
            "the run count was capped at --max-runs; the target confidence was not reached"
        );
    }
    out
}
