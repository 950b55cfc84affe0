//! Turning a [`Builder`] and the preparatory runs into one of the engine's
//! strategies, the way the command line's `plan.rs` turns its flags: the
//! same settings for the same options.

use rankcheck_engine::profile::Profile;
use rankcheck_engine::strategy::settings::{default_pool, pct_settings, pctvb_settings, VarsAsked};
use rankcheck_engine::strategy::{default_search, PrioritySetting, VarSelection};
use rankcheck_engine::{
    PriorityScheme, PriorityStrategy, RandomStrategy, Sampling, SamplingStrategy, VarId,
};

use crate::builder::{Builder, Priorities, Strategy, Vars};
use crate::var::Registry;

pub use rankcheck_engine::strategy::Plan;

/// The priority scheme asked for.
pub fn scheme(builder: &Builder) -> PriorityScheme {
    match builder.priorities {
        Priorities::Pct => PriorityScheme::Pct,
        Priorities::ThreadBounded => PriorityScheme::ThreadBounded,
    }
}

/// The strategy `builder` asks for, or why it cannot run.
pub fn plan(builder: &Builder, profile: &Profile, registry: &Registry) -> Result<Plan, String> {
    let strategy = builder.effective_strategy();
    let sampling = match strategy {
        Strategy::Pos => Some(Sampling::Pos),
        Strategy::Wpos => Some(Sampling::WeightedPos),
        Strategy::Swpos => Some(Sampling::StickyPos),
        Strategy::Urw => Some(Sampling::Urw),
        Strategy::Surw => Some(Sampling::Surw),
        Strategy::Ksurw => Some(Sampling::KindSurw),
        _ => None,
    };
    let asks_settings = builder.depth.is_some() || builder.vars.is_some();
    if asks_settings && !matches!(strategy, Strategy::Pct | Strategy::Pctvb) {
        return Err(format!(
            "rankcheck: strategy {} takes no depth or vars; Strategy::Pctvb takes them",
            strategy.name()
        ));
    }
    if let Some(sampling) = sampling {
        return Ok(Plan::Sampling(Box::new(SamplingStrategy::new(
            sampling, profile,
        ))));
    }
    // A yield gives way at once: in Rust code `yield_now` is what spin
    // loops call (`docs/guide/src/rust/intercepted.md`: the rule and its
    // cost).
    let priority = |settings| {
        PriorityStrategy::new(
            scheme(builder),
            profile.max_threads,
            profile.access_bounds(),
            settings,
        )
        .spin_yields(0)
    };
    match strategy {
        Strategy::Random => Ok(Plan::Random(RandomStrategy::new())),
        Strategy::Portfolio => {
            let settings = runnable(default_search::settings(profile), profile);
            Ok(Plan::Portfolio(Box::new(default_search::portfolio(
                priority(settings),
                profile,
            ))))
        }
        _ => {
            let asked = settings(builder, profile, registry)?;
            let mut settings = runnable(asked.clone(), profile);
            if settings.is_empty() {
                settings = order_only(asked)?;
            }
            Ok(Plan::Priority(Box::new(priority(settings))))
        }
    }
}

/// The (depth, variables) settings a priority search rotates through, as
/// the command line's for the same options.
fn settings(
    builder: &Builder,
    profile: &Profile,
    registry: &Registry,
) -> Result<Vec<PrioritySetting>, String> {
    let window = profile.max_accesses;
    let pool = default_pool(profile, registry.len());
    if builder.effective_strategy() == Strategy::Pct {
        if matches!(builder.vars, Some(Vars::Count(_))) {
            return Err(
                "rankcheck: Strategy::Pct tracks every variable; use Strategy::Pctvb with vars"
                    .to_owned(),
            );
        }
        return Ok(pct_settings(builder.depth, window));
    }
    let vars = match builder.vars {
        None => VarsAsked::Unset,
        Some(Vars::Count(v)) => VarsAsked::Count(v),
        Some(Vars::All) => VarsAsked::Selection(VarSelection::All { window }),
        Some(Vars::Sync) => VarsAsked::Selection(VarSelection::Fixed(sync_vars(registry))),
        Some(Vars::None) => VarsAsked::Selection(VarSelection::Fixed(Vec::new())),
    };
    pctvb_settings(builder.depth, vars, &pool, false)
        .map_err(|e| format!("rankcheck: vars {}: {e}", e.asked))
}

/// When no setting asked for can place a change point (the preparatory
/// runs saw no access to their variables: a program with no shared
/// variable, or none of the chosen ones accessed), only the order of the
/// threads can vary, and depth 1 explores exactly that: the first setting
/// at depth 1. A bug of greater depth needs accesses to preempt at, and
/// there are none.
fn order_only(asked: Vec<PrioritySetting>) -> Result<Vec<PrioritySetting>, String> {
    let first = asked
        .into_iter()
        .next()
        .ok_or("rankcheck: nothing to run: the options ask for no setting")?;
    Ok(vec![PrioritySetting {
        depth: 1,
        vars: first.vars,
    }])
}

/// The variables of synchronisation objects.
fn sync_vars(registry: &Registry) -> Vec<VarId> {
    registry
        .vars()
        .iter()
        .enumerate()
        .filter(|(_, v)| {
            matches!(
                v.kind,
                "Mutex" | "RwLock" | "Condvar" | "Barrier" | "channel"
            )
        })
        .map(|(i, _)| VarId(i as u32))
        .collect()
}

/// The settings that can place their change points: a depth above 1 needs
/// a variable the preparatory runs saw accessed.
fn runnable(settings: Vec<PrioritySetting>, profile: &Profile) -> Vec<PrioritySetting> {
    let bounds = profile.access_bounds();
    let k = |v: &VarId| bounds.get(v.index()).copied().unwrap_or(0);
    settings
        .into_iter()
        .filter(|s| {
            let window = match &s.vars {
                VarSelection::All { window } => *window,
                VarSelection::Fixed(vars) => vars.iter().map(k).sum(),
                VarSelection::Drawn { pool, .. } => pool.iter().map(k).max().unwrap_or(0),
            };
            s.depth <= 1 || window > 0
        })
        .collect()
}
