//! A [`Builder`] in the engine's planning terms (`rankcheck_engine::
//! strategy::planning`, which the command line's `plan.rs` calls too: the
//! same options plan the same search), and the engine's refusals in the
//! Builder's words. The portfolio's cycle is the engine's
//! (`strategy::default_search`), as the command line's.

use rankcheck_engine::guarantee::RunsAsked;
use rankcheck_engine::profile::Profile;
use rankcheck_engine::strategy::planning::{
    self, Asked, PlanError, PlannedSearch, Variables, VarsOption,
};
use rankcheck_engine::{PriorityScheme, VarId};

use crate::builder::{Builder, Priorities, Vars};
use crate::object::ObjectKind;

pub use rankcheck_engine::strategy::Plan;

/// The priority scheme asked for.
pub fn scheme(builder: &Builder) -> PriorityScheme {
    match builder.priorities {
        Priorities::Pct => PriorityScheme::Pct,
        Priorities::ThreadBounded => PriorityScheme::ThreadBounded,
    }
}

/// The search `builder` asks for over variables of kinds `kinds` (by
/// `VarId`, as the registry lists them), after the preparatory runs'
/// `profile`: its strategy, per-run bounds and runs, or why it cannot run.
pub fn plan_search(
    builder: &Builder,
    profile: &Profile,
    kinds: impl Iterator<Item = ObjectKind>,
) -> Result<PlannedSearch, String> {
    let kinds: Vec<ObjectKind> = kinds.collect();
    let sync = sync_vars(&kinds);
    let variables = Variables {
        count: kinds.len(),
        sync: &sync,
    };
    let runs = RunsAsked {
        runs: builder.runs,
        timed: builder.time.is_some(),
        confidence: builder.confidence,
        max_runs: builder.max_runs,
    };
    planning::plan_search(
        &asked(builder),
        profile,
        variables,
        &runs,
        |bound, depth| builder.memory.bound(bound, depth),
    )
    .map_err(|error| refusal(builder, &error))
}

/// The builder's options as the engine's planning takes them.
fn asked(builder: &Builder) -> Asked {
    Asked {
        strategy: builder.effective_strategy(),
        depth: builder.depth,
        vars: builder.vars.map(|vars| match vars {
            Vars::Count(v) => VarsOption::Count(v),
            Vars::All => VarsOption::All,
            Vars::Sync => VarsOption::Sync,
            Vars::None => VarsOption::None,
        }),
        pool: None,
        scheme: scheme(builder),
        // A yield gives way at once: in Rust code `yield_now` is what
        // spin loops call (`docs/guide/src/rust/intercepted.md`: the rule
        // and its cost).
        spin_yields: Some(0),
    }
}

/// Why the builder's options cannot be planned, in its words.
fn refusal(builder: &Builder, error: &PlanError) -> String {
    match error {
        PlanError::TakesNoSettings(_) => format!(
            "rankcheck: strategy {} takes no depth or vars; Strategy::Pctvb takes them",
            builder.effective_strategy().name
        ),
        PlanError::PctTracksAll => {
            "rankcheck: Strategy::Pct tracks every variable; use Strategy::Pctvb with vars"
                .to_owned()
        }
        PlanError::TooManyVars(too_many) => {
            format!("rankcheck: vars {}: {too_many}", too_many.asked)
        }
        PlanError::NoSetting => {
            "rankcheck: nothing to run: the options ask for no setting".to_owned()
        }
        PlanError::NothingToRun(skipped) => {
            let reasons: Vec<String> = skipped
                .iter()
                .map(|s| {
                    format!(
                        "depth {} over no variable: {}",
                        s.setting.depth,
                        s.reason.describe()
                    )
                })
                .collect();
            format!("rankcheck: nothing to run: {}", reasons.join("; "))
        }
    }
}

/// The variables of synchronisation objects, among variables of kinds
/// `kinds` (by `VarId`).
fn sync_vars(kinds: &[ObjectKind]) -> Vec<VarId> {
    let synchronising = kinds.iter().enumerate().filter(|(_, k)| k.synchronises());
    synchronising.map(|(i, _)| VarId(i as u32)).collect()
}
