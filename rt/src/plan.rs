//! Turning a [`Builder`] and the preparatory runs into one of the engine's
//! strategies, the way the command line's `plan.rs` turns its flags: the
//! same settings for the same options.

use rankcheck_engine::profile::{accessed_vars, Profile};
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
    let priority = |settings| {
        PriorityStrategy::new(
            scheme(builder),
            profile.max_threads,
            profile.access_bounds(),
            settings,
        )
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
            let settings = runnable(settings(builder, profile, registry)?, profile);
            if settings.is_empty() {
                return Err("rankcheck: nothing to run: no setting can place a change point (the preparatory runs saw no access to its variables)".to_owned());
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
    let pool = {
        let accessed = accessed_vars(profile);
        if accessed.is_empty() {
            (0..registry.len()).map(|i| VarId(i as u32)).collect()
        } else {
            accessed
        }
    };
    let count = |v: usize| -> Result<VarSelection, String> {
        if v > pool.len() {
            return Err(format!(
                "rankcheck: vars {v}: only {} variables to choose from",
                pool.len()
            ));
        }
        Ok(match v {
            0 => VarSelection::Fixed(Vec::new()),
            v => VarSelection::Drawn {
                pool: pool.clone(),
                count: v,
            },
        })
    };
    let fixed = |vars: Vars| match vars {
        Vars::All => Some(VarSelection::All { window }),
        Vars::Sync => Some(VarSelection::Fixed(sync_vars(registry))),
        Vars::None => Some(VarSelection::Fixed(Vec::new())),
        Vars::Count(_) => None,
    };
    let setting = |depth: u32, vars: VarSelection| PrioritySetting { depth, vars };
    let depths = builder.depth.map_or(vec![1, 2, 3], |d| vec![d]);
    if builder.effective_strategy() == Strategy::Pct {
        if matches!(builder.vars, Some(Vars::Count(_))) {
            return Err(
                "rankcheck: Strategy::Pct tracks every variable; use Strategy::Pctvb with vars"
                    .to_owned(),
            );
        }
        return Ok(depths
            .into_iter()
            .map(|d| setting(d, VarSelection::All { window }))
            .collect());
    }
    Ok(match (builder.depth, builder.vars) {
        (Some(d), Some(Vars::Count(v))) => vec![setting(d, count(v)?)],
        (None, Some(Vars::Count(v))) => vec![setting(v as u32 + 1, count(v)?)],
        (_, Some(vars)) => {
            let selection = fixed(vars).unwrap_or_else(|| unreachable!("counts handled above"));
            depths
                .into_iter()
                .map(|d| setting(d, selection.clone()))
                .collect()
        }
        (Some(d), None) => {
            let most = (d.saturating_sub(1) as usize).min(2).min(pool.len());
            let vs: Vec<usize> = if most == 0 {
                vec![0]
            } else {
                (1..=most).collect()
            };
            vs.into_iter()
                .map(|v| count(v).map(|s| setting(d, s)))
                .collect::<Result<_, _>>()?
        }
        (None, None) => [(1, 0), (2, 1), (3, 1), (3, 2)]
            .into_iter()
            .filter(|&(_, v)| v <= pool.len())
            .map(|(d, v)| count(v).map(|s| setting(d, s)))
            .collect::<Result<_, _>>()?,
    })
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
