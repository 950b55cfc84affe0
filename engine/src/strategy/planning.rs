//! One planning rule for both front ends: from what the user asked (a
//! strategy, a depth, variables, a pool) and the preparatory runs'
//! [`Profile`], the [`Plan`] a search runs and the settings it sets aside.
//! The command line (`src/plan.rs`) and rt (`rt/src/plan.rs`) translate
//! their options into an [`Asked`] and the typed [`PlanError`] into their
//! own words, and nothing else: the same options plan the same search.
//! [`plan`] refuses the options the named strategy does not take, then
//! calls the strategy's own constructor (its file in `registered/`); the
//! priority strategies' constructors share the rule below
//! (`priority_search`).
//!
//! Two choices are made here once:
//! - A drawn setting's largest window (what decides whether a change point
//!   can be placed) is the sum of its `count` most accessed variables'
//!   bounds: a draw can hold all of them.
//! - When no setting asked for can place a change point because the
//!   preparatory runs saw no access to their variables, only the order of
//!   the threads can vary, and depth 1 explores exactly that: the search
//!   runs the first setting at depth 1, and every setting asked for is
//!   reported as set aside, with why. A bug of greater depth needs an
//!   access to preempt at, and there is none. When every setting asked
//!   for tracks no variable at all (a depth above 1 over `none`), the
//!   options contradict themselves, and planning refuses them.

use super::registry::Registered;
use super::settings::{default_pool, pct_settings, pctvb_settings, TooManyVars, VarsAsked};
use super::{
    Plan, PlanKind, PrioritySetting, PriorityStrategy, Sampling, SamplingStrategy, VarSelection,
};
use crate::id::VarId;
use crate::priority::PriorityScheme;
use crate::profile::Profile;

/// The variables asked for, before they are resolved against the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarsOption {
    /// `v` variables drawn per run.
    Count(usize),
    /// Every variable.
    All,
    /// The synchronisation objects' variables.
    Sync,
    /// No variable.
    None,
}

/// What a front end asks of a search, in the engine's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asked {
    /// The strategy ([`super::registry::chosen`] picks it when none is
    /// named).
    pub strategy: &'static Registered,
    /// A fixed depth.
    pub depth: Option<u32>,
    /// The variables per run.
    pub vars: Option<VarsOption>,
    /// The variables to draw from, when the user named them (`--track`);
    /// `None`: those the preparatory runs saw accessed.
    pub pool: Option<Vec<VarId>>,
    /// The priority scheme.
    pub scheme: PriorityScheme,
    /// How many times in a row a yield keeps its thread running
    /// (`PriorityStrategy::spin_yields`); `None`: the engine's default.
    pub spin_yields: Option<u32>,
}

impl Asked {
    /// Whether a depth, variables or a pool are asked for.
    pub fn asks_settings(&self) -> bool {
        self.depth.is_some() || self.vars.is_some() || self.pool.is_some()
    }
}

/// The program's variables, as planning needs them.
#[derive(Clone, Copy, Debug)]
pub struct Variables<'a> {
    /// How many there are.
    pub count: usize,
    /// Those of synchronisation objects (mutexes, condition variables,
    /// ...), for [`VarsOption::Sync`].
    pub sync: &'a [VarId],
}

/// Why a setting asked for is set aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// It tracks no variable, so no change point can be placed.
    NoVariable,
    /// The preparatory runs saw no access to its variables.
    NoAccess,
}

impl SkipReason {
    /// The reason in a report's words.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::NoVariable => "it tracks no variable, so no change point can be placed",
            SkipReason::NoAccess => {
                "the preparatory runs saw no access to its variables, so no change point can be placed"
            }
        }
    }
}

/// A setting asked for that is not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedSetting {
    /// The setting.
    pub setting: PrioritySetting,
    /// Why.
    pub reason: SkipReason,
}

/// What a strategy's constructor builds: its search, with the settings
/// asked for that it does not run.
pub struct Built {
    /// The search.
    pub kind: PlanKind,
    /// The settings set aside, with why.
    pub skipped: Vec<SkippedSetting>,
}

impl Built {
    /// `kind`, with no setting set aside.
    pub fn new(kind: PlanKind) -> Built {
        Built {
            kind,
            skipped: Vec::new(),
        }
    }

    /// The sampling strategy `sampling`, measured by `profile`.
    pub fn sampling(sampling: Sampling, profile: &Profile) -> Built {
        Built::new(PlanKind::Sampling(Box::new(SamplingStrategy::new(
            sampling, profile,
        ))))
    }
}

/// The plan, with the settings asked for that it does not run.
pub struct Planned {
    /// What the search runs.
    pub plan: Plan,
    /// The settings set aside, with why.
    pub skipped: Vec<SkippedSetting>,
}

/// Options that cannot be planned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// A depth, variables or a pool for the strategy of this name, which
    /// takes none.
    TakesNoSettings(&'static str),
    /// Variables (a count or a pool) for PCT, which tracks every variable.
    PctTracksAll,
    /// More variables asked for than there are to draw from.
    TooManyVars(TooManyVars),
    /// The options ask for no setting at all.
    NoSetting,
    /// Every setting asked for is a depth above 1 over no variable: none
    /// can place a change point.
    NothingToRun(Vec<SkippedSetting>),
}

/// The plan for `asked` over a program with `variables`, after the
/// preparatory runs' `profile`: the strategy's own constructor, once the
/// options it does not take are refused.
pub fn plan(
    asked: &Asked,
    profile: &Profile,
    variables: Variables<'_>,
) -> Result<Planned, PlanError> {
    let strategy = asked.strategy;
    if asked.asks_settings() && !strategy.takes_settings {
        return Err(PlanError::TakesNoSettings(strategy.name));
    }
    let built = (strategy.build)(asked, profile, variables)?;
    Ok(Planned {
        plan: Plan::new(strategy.name, built.kind),
        skipped: built.skipped,
    })
}

/// A priority search over the runnable ones of `settings_asked`; when
/// none can run, the first at depth 1 (see the module's documentation).
pub(crate) fn priority_search(
    asked: &Asked,
    profile: &Profile,
    settings_asked: Vec<PrioritySetting>,
) -> Result<Built, PlanError> {
    let (mut settings, skipped) = runnable(settings_asked.clone(), profile);
    if settings.is_empty() {
        if skipped.iter().all(|s| s.reason == SkipReason::NoVariable) {
            return Err(PlanError::NothingToRun(skipped));
        }
        settings = order_only(settings_asked)?;
    }
    Ok(Built {
        kind: PlanKind::Priority(Box::new(priority(asked, profile, settings))),
        skipped,
    })
}

/// The priority search over `settings`.
pub(crate) fn priority(
    asked: &Asked,
    profile: &Profile,
    settings: Vec<PrioritySetting>,
) -> PriorityStrategy {
    let strategy = PriorityStrategy::new(
        asked.scheme,
        profile.max_threads,
        profile.access_bounds(),
        settings,
    );
    match asked.spin_yields {
        Some(yields) => strategy.spin_yields(yields),
        None => strategy,
    }
}

/// PCT's settings: every variable tracked, so a count or a pool of
/// variables is refused.
pub(crate) fn pct_asked(
    asked: &Asked,
    profile: &Profile,
) -> Result<Vec<PrioritySetting>, PlanError> {
    if matches!(asked.vars, Some(VarsOption::Count(_))) || asked.pool.is_some() {
        return Err(PlanError::PctTracksAll);
    }
    Ok(pct_settings(asked.depth, profile.max_accesses))
}

/// PCTVB's (depth, variables) settings for the options asked.
pub(crate) fn pctvb_asked(
    asked: &Asked,
    profile: &Profile,
    variables: Variables<'_>,
) -> Result<Vec<PrioritySetting>, PlanError> {
    let window = profile.max_accesses;
    let pool = match &asked.pool {
        Some(pool) => pool.clone(),
        None => default_pool(profile, variables.count),
    };
    let vars = match &asked.vars {
        None => VarsAsked::Unset,
        Some(VarsOption::Count(v)) => VarsAsked::Count(*v),
        Some(VarsOption::All) => VarsAsked::Selection(VarSelection::All { window }),
        Some(VarsOption::Sync) => {
            VarsAsked::Selection(VarSelection::Fixed(variables.sync.to_vec()))
        }
        Some(VarsOption::None) => VarsAsked::Selection(VarSelection::Fixed(Vec::new())),
    };
    pctvb_settings(asked.depth, vars, &pool, asked.pool.is_some()).map_err(PlanError::TooManyVars)
}

/// The settings that can place their change points, and those set aside: a
/// depth above 1 needs a variable the preparatory runs saw accessed.
pub fn runnable(
    settings: Vec<PrioritySetting>,
    profile: &Profile,
) -> (Vec<PrioritySetting>, Vec<SkippedSetting>) {
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    for setting in settings {
        if setting.depth <= 1 || largest_window(&setting.vars, profile) > 0 {
            kept.push(setting);
            continue;
        }
        let reason = match &setting.vars {
            VarSelection::Fixed(vars) if vars.is_empty() => SkipReason::NoVariable,
            _ => SkipReason::NoAccess,
        };
        skipped.push(SkippedSetting { setting, reason });
    }
    (kept, skipped)
}

/// The most tracked accesses a run of `vars` can see: for a draw, its
/// `count` most accessed variables'.
fn largest_window(vars: &VarSelection, profile: &Profile) -> u64 {
    let bounds = profile.access_bounds();
    let k = |v: &VarId| bounds.get(v.index()).copied().unwrap_or(0);
    match vars {
        VarSelection::All { window } => *window,
        VarSelection::Fixed(vars) => vars.iter().map(k).sum(),
        VarSelection::Drawn { pool, count } => {
            let mut ks: Vec<u64> = pool.iter().map(k).collect();
            ks.sort_unstable_by(|a, b| b.cmp(a));
            ks.iter().take(*count).sum()
        }
    }
}

/// The first setting asked for, at depth 1: what a search can still vary
/// when no setting can place a change point.
fn order_only(asked: Vec<PrioritySetting>) -> Result<Vec<PrioritySetting>, PlanError> {
    let first = asked.into_iter().next().ok_or(PlanError::NoSetting)?;
    Ok(vec![PrioritySetting {
        depth: 1,
        vars: first.vars,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::VarProfile;
    use crate::strategy::registry::find;

    /// Two threads; variable `i` accessed `accesses[i]` times at most.
    fn profile(accesses: &[u64]) -> Profile {
        Profile {
            runs: 20,
            max_threads: 2,
            max_accesses: accesses.iter().sum(),
            max_steps: 100,
            vars: accesses
                .iter()
                .map(|&k| VarProfile {
                    max_accesses: k,
                    ..VarProfile::default()
                })
                .collect(),
            failure: None,
            instances: Vec::new(),
            threads: Vec::new(),
        }
    }

    fn asked(strategy: &str, depth: Option<u32>, vars: Option<VarsOption>) -> Asked {
        Asked {
            strategy: find(strategy).expect("registered"),
            depth,
            vars,
            pool: None,
            scheme: PriorityScheme::Pct,
            spin_yields: None,
        }
    }

    const NO_SYNC: Variables<'static> = Variables {
        count: 2,
        sync: &[],
    };

    #[test]
    fn settings_whose_variables_saw_no_access_fall_back_to_depth_1() {
        // Pool given: variable 1, never accessed.
        let mut pctvb = asked("pctvb", Some(2), Some(VarsOption::Count(1)));
        pctvb.pool = Some(vec![VarId(1)]);
        let planned = plan(&pctvb, &profile(&[5, 0]), NO_SYNC).expect("planned");
        assert_eq!(planned.plan.settings().len(), 1);
        assert_eq!(planned.plan.settings()[0].depth, 1);
        assert_eq!(planned.skipped.len(), 1);
        assert_eq!(planned.skipped[0].reason, SkipReason::NoAccess);
    }

    #[test]
    fn a_depth_over_no_variable_is_refused() {
        let none = asked("pctvb", Some(2), Some(VarsOption::None));
        match plan(&none, &profile(&[5, 5]), NO_SYNC) {
            Err(PlanError::NothingToRun(skipped)) => {
                assert_eq!(skipped[0].reason, SkipReason::NoVariable);
            }
            other => panic!("refused: {:?}", other.map(|p| p.skipped)),
        }
    }

    #[test]
    fn a_draw_s_window_is_its_most_accessed_variables() {
        let profile = profile(&[0, 3, 4]);
        let drawn = |count| VarSelection::Drawn {
            pool: vec![VarId(0), VarId(1), VarId(2)],
            count,
        };
        assert_eq!(largest_window(&drawn(1), &profile), 4);
        assert_eq!(largest_window(&drawn(2), &profile), 7);
        assert_eq!(largest_window(&drawn(3), &profile), 7);
    }

    #[test]
    fn options_a_strategy_does_not_take_are_refused() {
        let sampled = asked("urw", Some(2), None);
        assert_eq!(
            plan(&sampled, &profile(&[1]), NO_SYNC).err(),
            Some(PlanError::TakesNoSettings("urw"))
        );
        let pct = asked("pct", None, Some(VarsOption::Count(1)));
        assert_eq!(
            plan(&pct, &profile(&[1]), NO_SYNC).err(),
            Some(PlanError::PctTracksAll)
        );
        let many = asked("pctvb", None, Some(VarsOption::Count(3)));
        assert!(matches!(
            plan(&many, &profile(&[1, 1]), NO_SYNC).err(),
            Some(PlanError::TooManyVars(_))
        ));
    }
}

/// A search planned to its runs: the [`Planned`] strategy, each setting's
/// per-run bound, and the runs to aim for. What both front ends run, from
/// one call.
#[derive(Clone, Debug)]
pub struct PlannedSearch {
    /// What the search runs.
    pub plan: Plan,
    /// The settings set aside, with why.
    pub skipped: Vec<SkippedSetting>,
    /// Each setting's per-run bound (`None`: it claims none).
    pub bounds: Vec<Option<rankcheck_stats::Probability>>,
    /// The runs to aim for (`u64::MAX` with a time budget).
    pub runs_target: u64,
    /// Whether `max_runs` cut the count the confidence asked for.
    pub runs_capped: bool,
}

/// Plan `asked` (as [`plan`]) and the runs `runs` asks for: each setting's
/// per-run bound under the profile, passed through `adjust` (rt's weak
/// memory discounts it by the setting's depth; the command line's `.rk`
/// is sequentially consistent and passes it on), then the runs the
/// bounds need.
pub fn plan_search(
    asked: &Asked,
    profile: &Profile,
    variables: Variables<'_>,
    runs: &crate::guarantee::RunsAsked,
    adjust: impl Fn(rankcheck_stats::Probability, u32) -> rankcheck_stats::Probability,
) -> Result<PlannedSearch, PlanError> {
    let Planned { plan, skipped } = plan(asked, profile, variables)?;
    let bounds: Vec<_> = plan
        .settings()
        .iter()
        .map(|s| {
            crate::guarantee::per_run_bound(s, asked.scheme, profile).map(|b| adjust(b, s.depth))
        })
        .collect();
    let (runs_target, runs_capped) = runs.target(&plan.rotation(), &bounds);
    Ok(PlannedSearch {
        plan,
        skipped,
        bounds,
        runs_target,
        runs_capped,
    })
}
