//! The summary from the engine's facts, the same for every front end: the
//! preparatory runs' profile, the plan with its settings and bounds, the
//! runs done. A front end adds what only it has (what was asked on its
//! command line, settings it skipped, a measured hit rate, the failure).

use rankcheck_engine::guarantee::{confidence, needed, per_set_bounds};
use rankcheck_engine::profile::Profile;
use rankcheck_engine::strategy::{Plan, PrioritySetting, Rotation, Slot, VarSelection};
use rankcheck_engine::{PriorityScheme, Program, VarId};
use rankcheck_stats::Probability;

use super::{KqJson, SamplingRunsJson, SetJson, SettingJson, SummaryJson};

/// How a front end names its variables in reports.
pub trait VarNames {
    /// The name of `var`.
    fn name(&self, var: VarId) -> &str;
    /// What kind of variable it is, in a word or two.
    fn kind(&self, var: VarId) -> &str;
}

impl VarNames for Program {
    fn name(&self, var: VarId) -> &str {
        &self.vars[var.index()].name
    }

    fn kind(&self, var: VarId) -> &str {
        self.vars[var.index()].kind.describe()
    }
}

/// What a search did, as the engine knows it.
pub struct SearchFacts<'a> {
    /// The program's path, or where a Rust test called `check`.
    pub program: String,
    /// The strategy asked for.
    pub strategy: &'a str,
    /// The priority scheme.
    pub scheme: PriorityScheme,
    /// The master seed.
    pub seed: u64,
    /// What the preparatory runs measured.
    pub profile: &'a Profile,
    /// The variables' names and kinds.
    pub names: &'a dyn VarNames,
    /// The strategy run; `None` when the search stopped before it had one
    /// (a Rust test whose preparatory run failed).
    pub plan: Option<&'a Plan>,
    /// Each setting's per-run bound.
    pub bounds: &'a [Option<Probability>],
    /// Runs done.
    pub runs: u64,
    /// Failing runs.
    pub failures: u64,
    /// Their wall time in seconds.
    pub elapsed_s: f64,
    /// The confidence each setting's runs aim for.
    pub target_confidence: f64,
}

impl SearchFacts<'_> {
    fn settings(&self) -> &[PrioritySetting] {
        self.plan.map_or(&[], |plan| plan.settings())
    }

    /// The runs setting `index` got.
    fn setting_runs(&self, index: usize) -> u64 {
        self.plan
            .map_or(0, |plan| plan.setting_runs(index, 0, self.runs))
    }
}

impl SummaryJson {
    /// The summary of a search, with nothing asked beyond its defaults, no
    /// setting skipped, no hit rate and no failure: the front end sets
    /// those it has.
    pub fn of_search(facts: &SearchFacts<'_>) -> SummaryJson {
        let settings: Vec<SettingJson> = facts
            .settings()
            .iter()
            .enumerate()
            .map(|(i, s)| setting_json(facts, i, s))
            .collect();
        let single = |f: fn(&SettingJson) -> Option<f64>| {
            (settings.len() == 1).then(|| f(&settings[0])).flatten()
        };
        SummaryJson {
            program: facts.program.clone(),
            strategy: facts.strategy.to_string(),
            priorities: facts.scheme.name().to_string(),
            seed: facts.seed,
            runs: facts.runs,
            failures: facts.failures,
            elapsed_s: facts.elapsed_s,
            executions_per_s: rate(facts.runs, facts.elapsed_s),
            depth: None,
            vars_asked: None,
            threads: None,
            n: facts.profile.max_threads,
            k: facts.profile.max_accesses,
            q: facts.profile.vars.len(),
            k_q: k_q(facts.profile, facts.names),
            profile_runs: facts.profile.runs,
            target_confidence: facts.target_confidence,
            runs_capped: false,
            interrupted: false,
            sampling: facts
                .plan
                .and_then(Plan::portfolio)
                .map(|portfolio| sampling_runs(portfolio.rotation(), facts.runs)),
            confidence: lowest_confidence(&settings),
            bound: single(|s| s.bound),
            runs_needed: (settings.len() == 1)
                .then(|| settings[0].runs_needed)
                .flatten(),
            settings,
            skipped: Vec::new(),
            hit_rate: None,
            hit_rate_low: None,
            hit_rate_high: None,
            first_failure: None,
            memory_model: "sc".to_owned(),
            loads_cut: 0,
            spurious_wakeups: 0,
            timeouts: 0,
        }
    }
}

/// The JSON of one setting's guarantee.
fn setting_json(facts: &SearchFacts<'_>, index: usize, setting: &PrioritySetting) -> SettingJson {
    let target = facts.target_confidence;
    let runs = facts.setting_runs(index);
    let bound = facts.bounds.get(index).copied().flatten();
    let per_set = per_set_bounds(setting, facts.scheme, facts.profile).map(|sets| {
        sets.into_iter()
            .map(|set| SetJson {
                vars: set
                    .vars
                    .iter()
                    .map(|&v| facts.names.name(v).to_string())
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
        tracking: describe_selection(facts.names, &setting.vars),
        runs,
        bound: bound.map(|b| b.value()),
        bound_ln: bound.map(|b| b.ln()),
        confidence: bound.map(|b| confidence(b, runs)),
        runs_needed: bound.and_then(|b| needed(b, target)),
        per_set,
    }
}

/// The lowest confidence over the settings: the guarantee of the search as
/// a whole, if every setting claims one.
fn lowest_confidence(settings: &[SettingJson]) -> Option<f64> {
    settings
        .iter()
        .map(|s| s.confidence)
        .collect::<Option<Vec<f64>>>()
        .filter(|c| !c.is_empty())
        .map(|c| c.into_iter().fold(1.0, f64::min))
}

/// Each variable's profile.
fn k_q(profile: &Profile, names: &dyn VarNames) -> Vec<KqJson> {
    profile
        .vars
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let var = VarId(i as u32);
            KqJson {
                var: names.name(var).to_string(),
                kind: names.kind(var).to_string(),
                k_q: v.max_accesses,
                mean: v.mean_accesses,
                shared: v.shared(),
            }
        })
        .collect()
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

/// `v`, the number of variables a setting tracks (`None` for all).
pub fn var_count(selection: &VarSelection) -> Option<usize> {
    match selection {
        VarSelection::All { .. } => None,
        VarSelection::Fixed(vars) => Some(vars.len()),
        VarSelection::Drawn { count, .. } => Some(*count),
    }
}

/// How a setting chooses its variables: `all`, `none`, their names, or
/// `1 of 4` when drawn.
pub fn describe_selection(names: &dyn VarNames, selection: &VarSelection) -> String {
    match selection {
        VarSelection::All { .. } => "all".into(),
        VarSelection::Fixed(vars) if vars.is_empty() => "none".into(),
        VarSelection::Fixed(vars) => vars
            .iter()
            .map(|&v| names.name(v))
            .collect::<Vec<_>>()
            .join(", "),
        VarSelection::Drawn { pool, count } => format!("{count} of {}", pool.len()),
    }
}
