//! What a run count proves: the per-run probability bound of each setting
//! (docs/ALGORITHMS.md, PCT and PCTVB) and the confidence its clean runs
//! reached. Both front ends (the command line and the Rust runtime) state
//! their guarantees through here.

use crate::explore::combinations;
use crate::profile::Profile;
use crate::strategy::{PrioritySetting, Rotation, VarSelection};
use crate::{PriorityScheme, VarId};
use rankcheck_stats::{
    confidence_after, miss_after, runs_needed, Probability, RunBound, RunCount, VariableChoice,
};

/// The per-run lower bound on finding a bug of the setting's depth over
/// its variables, or `None` where no bound is claimed (thread-bounded
/// priorities, whose guarantee is Lemma 4.1's instead).
pub fn per_run_bound(
    setting: &PrioritySetting,
    scheme: PriorityScheme,
    profile: &Profile,
) -> Option<Probability> {
    if scheme != PriorityScheme::Pct {
        return None;
    }
    let n = profile.max_threads.max(1) as u64;
    let bounds = profile.access_bounds();
    let bound = match &setting.vars {
        VarSelection::All { window } => RunBound::pct(n, *window, setting.depth),
        VarSelection::Fixed(vars) => {
            let access_bounds: Vec<u64> = vars.iter().map(|v| bounds[v.index()]).collect();
            RunBound::pctvb(
                n,
                setting.depth,
                VariableChoice::Known {
                    access_bounds: &access_bounds,
                },
            )
        }
        VarSelection::Drawn { pool, count } => {
            let access_bounds: Vec<u64> = pool.iter().map(|v| bounds[v.index()]).collect();
            RunBound::pctvb(
                n,
                setting.depth,
                VariableChoice::DrawnWorstCase {
                    access_bounds: &access_bounds,
                    n_variables: *count,
                },
            )
        }
    };
    // A setting whose window is empty (no accesses to its variables) has
    // no bound for depths above 1: nothing to state.
    bound.ok().map(|b| b.probability())
}

/// The most variable sets listed one by one; beyond it only the worst case
/// is stated.
pub const MAX_LISTED_SETS: usize = 10_000;

/// The guarantee for a bug over one particular set of variables.
#[derive(Clone, Debug)]
pub struct SetBound {
    /// The variables.
    pub vars: Vec<VarId>,
    /// The per-run lower bound on finding a bug of the setting's depth
    /// over exactly these variables.
    pub bound: Probability,
}

/// For a setting that draws `v` variables per run, the per-run bound for a
/// bug over each `v`-set it may draw, weakest first: `1/C(Q,v)` (the set is
/// drawn) times `1/(n (sum k_q)^(d-1))` over that set's `k_q` (docs/ALGORITHMS.md,
/// PCTVB). The worst case over sets is the setting's own bound; a bug over
/// rarely accessed variables is excluded with far higher probability.
/// `None` for other settings, under thread-bounded priorities, or past
/// [`MAX_LISTED_SETS`] sets.
pub fn per_set_bounds(
    setting: &PrioritySetting,
    scheme: PriorityScheme,
    profile: &Profile,
) -> Option<Vec<SetBound>> {
    let VarSelection::Drawn { pool, count } = &setting.vars else {
        return None;
    };
    if scheme != PriorityScheme::Pct || binomial_over(pool.len(), *count, MAX_LISTED_SETS) {
        return None;
    }
    let n = profile.max_threads.max(1) as u64;
    let all = profile.access_bounds();
    let access_bounds: Vec<u64> = pool.iter().map(|v| all[v.index()]).collect();
    let indices: Vec<usize> = (0..pool.len()).collect();
    let mut sets: Vec<SetBound> = combinations(&indices, *count)
        .into_iter()
        .filter_map(|set| {
            let bound = RunBound::pctvb(
                n,
                setting.depth,
                VariableChoice::Drawn {
                    access_bounds: &access_bounds,
                    bug_variables: &set,
                },
            )
            .ok()?;
            Some(SetBound {
                vars: set.iter().map(|&i| pool[i]).collect(),
                bound: bound.probability(),
            })
        })
        .collect();
    sets.sort_by(|a, b| a.bound.ln().total_cmp(&b.bound.ln()));
    Some(sets)
}

/// Whether `C(n, k)` exceeds `limit`.
fn binomial_over(n: usize, k: usize, limit: usize) -> bool {
    let k = k.min(n.saturating_sub(k));
    let mut value: u128 = 1;
    for i in 0..k {
        value = value * (n - i) as u128 / (i as u128 + 1);
        if value > limit as u128 {
            return true;
        }
    }
    false
}

/// The confidence `runs` clean runs reached for a per-run bound.
pub fn confidence(bound: Probability, runs: u64) -> f64 {
    confidence_after(bound, runs).value()
}

/// The runs a confidence needs for a per-run bound; `None` beyond `u64`.
pub fn needed(bound: Probability, confidence: f64) -> Option<u64> {
    match runs_needed(bound, 1.0 - confidence) {
        Ok(RunCount::Finite(n)) => Some(n),
        _ => None,
    }
}

/// `1/X` for a small probability, with X rounded, as reports print it;
/// `1` for a certainty.
pub fn show(bound: Probability) -> String {
    let inverse = (-bound.ln()).exp();
    if inverse < 1.5 {
        // A certainty reads as `p >= 1`, not `p >= 1/1`.
        "1".to_string()
    } else if inverse.is_finite() && inverse < 1e15 {
        format!("1/{:.0}", inverse)
    } else {
        format!("1/10^{:.1}", -bound.log10())
    }
}

/// The confidence `runs` clean runs reached, as reports print it
/// ([`show_guarantee`]).
pub fn show_confidence(bound: Probability, runs: u64) -> String {
    show_guarantee(miss_after(bound, runs).log10(), confidence(bound, runs))
}

/// A guarantee as reports print it, from the probability of a miss
/// (`log10`) and one minus it: four decimals, or `1 - 10^-8.6` when that
/// would round to 1, or `10^-5.3` when it would round to 0 (a claim of
/// "probability >= 0.0000" would say nothing it holds).
pub fn show_guarantee(miss_log10: f64, confidence: f64) -> String {
    if miss_log10 < -4.0 {
        format!("1 - 10^{miss_log10:.1}")
    } else if confidence > 0.0 && confidence < 0.000_05 {
        format!("10^{:.1}", confidence.log10())
    } else {
        format!("{confidence:.4}")
    }
}

/// Runs when neither a run count nor a time budget is given and no setting
/// claims a bound (random and sampling strategies).
pub const DEFAULT_RUNS: u64 = 10_000;

/// The runs a search was asked for: a count, a time budget, or the
/// confidence its settings' bounds should reach (capped at `max_runs`).
#[derive(Clone, Copy, Debug)]
pub struct RunsAsked {
    /// The runs given.
    pub runs: Option<u64>,
    /// Whether a time budget was given.
    pub timed: bool,
    /// The confidence to reach.
    pub confidence: f64,
    /// The most runs the confidence may ask for.
    pub max_runs: u64,
}

impl RunsAsked {
    /// How many runs to aim for, and whether `max_runs` cut the count the
    /// confidence asks for. Runs rotate through `rotation`: the first count
    /// that gives every setting the runs its bound needs (unbounded when a
    /// setting claims no bound; [`DEFAULT_RUNS`] when there is no setting).
    pub fn target(&self, rotation: &Rotation, bounds: &[Option<Probability>]) -> (u64, bool) {
        match (self.runs, self.timed) {
            (Some(runs), _) => (runs, false),
            (None, true) => (u64::MAX, false),
            (None, false) if bounds.is_empty() => (DEFAULT_RUNS, false),
            (None, false) => {
                let needed: Option<Vec<u64>> = bounds
                    .iter()
                    .map(|b| b.and_then(|b| needed(b, self.confidence)))
                    .collect();
                let total = needed
                    .and_then(|needed| rotation.runs_for(&needed))
                    .unwrap_or(u64::MAX);
                (total.min(self.max_runs), total > self.max_runs)
            }
        }
    }
}

/// A time budget as the command line's `--time` and rt's `RANKCHECK_TIME`
/// take it: a number of seconds, minutes or hours (`90s`, `90`, `10m`,
/// `1.5h`); the error says what was expected.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("expected a duration like 90s, 10m or 2h, found `{text}`"))?;
    let seconds = match unit {
        "" | "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("unknown time unit `{unit}`: use s, m or h")),
    };
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!("`{text}` is not a positive duration"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod show_tests {
    use rankcheck_stats::Probability;

    use super::{show, show_guarantee};

    #[test]
    fn a_guarantee_reads_in_decimals_or_as_a_power_of_ten_at_either_end() {
        assert_eq!(show_guarantee(0.5f64.log10(), 0.5), "0.5000");
        assert_eq!(show_guarantee(-8.62, 1.0), "1 - 10^-8.6");
        // Not `0.0000`, which claims nothing.
        assert_eq!(show_guarantee((1.0f64 - 5e-6).log10(), 5e-6), "10^-5.3");
        assert_eq!(show_guarantee(0.0, 0.0), "0.0000");
    }

    #[test]
    fn a_certainty_reads_as_one_and_small_bounds_as_one_over_x() {
        assert_eq!(show(Probability::from_ln(0.0).unwrap()), "1");
        assert_eq!(show(Probability::from_ln(-(3f64.ln())).unwrap()), "1/3");
        assert_eq!(show(Probability::from_ln(-40.0).unwrap()), "1/10^17.4");
    }
}
