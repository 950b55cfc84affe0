//! The summary as text: the search's headline, what the preparatory runs
//! measured, and each setting's guarantee (after a failure, the same
//! figures without the claim).

use std::fmt::Write as _;

use rankcheck_engine::guarantee::{show, show_confidence};
use rankcheck_engine::PriorityScheme;
use rankcheck_stats::Probability;

use super::{SetJson, SettingJson, SummaryJson};
use crate::words::count;

/// The most variable sets a text summary lists under one setting; JSON
/// lists them all.
const SETS_SHOWN: usize = 10;

/// The closing summary: after a clean search, what it proved; after a
/// failure (`first_failure`), the same figures without the claim.
pub fn summary_text(json: &SummaryJson) -> String {
    let failed = json.first_failure.is_some();
    let mut out = if failed && json.runs == 0 {
        // Nothing of the strategy ran: a rate and a count of 0 runs with
        // 1 failed would read as a contradiction.
        format!(
            "the search did not begin: a preparatory run failed (strategy {})\n",
            json.strategy
        )
    } else if failed {
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
            "portfolio runs: {}; the PCT and PCTVB settings' runs are on their lines below",
            parts.join(", ")
        );
    }
    if json.priorities != PriorityScheme::Pct.name() && !json.settings.is_empty() {
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
            "the run cap (--max-runs; in Rust, Builder::max_runs or max_time) cut the run count, so the target confidence {} was not reached for every setting",
            json.target_confidence
        );
    }
    out
}

/// A clean search in one line, for a test harness's output: the
/// summary's first line, then the setting with the weakest guarantee
/// (`; weakest: no bug of depth 3 over any variables, with probability >=
/// 0.1310`), or that no setting claims a bound.
pub fn summary_headline(json: &SummaryJson) -> String {
    let first = summary_text(json);
    let first = first.lines().next().unwrap_or_default().to_owned();
    let weakest = json
        .settings
        .iter()
        .filter_map(|s| {
            let bound = Probability::from_ln(s.bound_ln?).ok()?;
            Some((s, s.confidence?, bound))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match weakest {
        Some((s, _, bound)) => format!(
            "{first}; weakest: no bug of depth {} over {}, with probability >= {}",
            s.depth,
            over_vars(s.vars, &s.tracking),
            show_confidence(bound, s.runs)
        ),
        None => format!("{first}; no per-run bound is claimed"),
    }
}

/// What a setting tracks, as its line says after `depth d over`: `1
/// variable (1 of 3)`, `any variables`, `no variable`, from its `v` and
/// how it chooses them.
pub fn over_vars(vars: Option<usize>, tracking: &str) -> String {
    match vars {
        None => "any variables".to_string(),
        Some(0) => "no variable".to_string(),
        Some(v) => format!("{} ({tracking})", count(v as u64, "variable", "variables")),
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
            over_vars(s.vars, &s.tracking),
            show(bound)
        );
    } else {
        let _ = writeln!(
            out,
            "no bug of depth {} over {}, with probability >= {} ({runs}, each finding one with p >= {}{})",
            s.depth,
            over_vars(s.vars, &s.tracking),
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
