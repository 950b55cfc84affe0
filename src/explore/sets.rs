//! The variable sets an exploration tracks in turn: every `v`-subset of the
//! variables, those seen shared first, or heap instances when allocation
//! sites are split (`--loop-bound`).

use std::collections::BTreeSet;

use anyhow::Result;
use rankcheck_engine::explore::{combinations, ranked_vars};
use rankcheck_engine::profile::Profile;
use rankcheck_engine::{Executable, InstanceKey, Instrumentation, Program, VarId};

use crate::cli::VarsArg;
use crate::plan::sync_vars;

use super::Subject;

/// What one exploration tracks: variables (`None`: every one) and, for
/// allocation sites split by instance, the instances.
#[derive(Clone, Debug)]
pub struct TrackSet {
    /// The variables, or `None` for every one.
    pub vars: Option<Vec<VarId>>,
    /// Tracked heap instances of split allocation sites.
    pub instances: Vec<InstanceKey>,
    /// The names of its units, as reports show them.
    pub names: Vec<String>,
}

impl TrackSet {
    /// The set tracking exactly `vars`, whole.
    pub fn of_vars(program: &Program, vars: &[VarId]) -> TrackSet {
        whole(program, Some(vars.to_vec()))
    }
}

/// One thing a variable set may hold: a variable, or a heap instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Var(VarId),
    Instance(InstanceKey),
}

/// How reports name an instance: `push:new@8#1`, with the call stack's
/// hash when the site allocates from several.
fn instance_name(program: &Program, profile: &Profile, key: &InstanceKey) -> String {
    let site = &program.vars[key.var.index()].name;
    let contexts: BTreeSet<u64> = profile
        .instances
        .iter()
        .filter(|k| k.var == key.var)
        .map(|k| k.context)
        .collect();
    if contexts.len() > 1 {
        format!("{site}#{}@{:04x}", key.index, key.context & 0xffff)
    } else {
        format!("{site}#{}", key.index)
    }
}

/// The set tracking `vars` whole (`None`: every variable).
fn whole(program: &Program, vars: Option<Vec<VarId>>) -> TrackSet {
    let names = vars.as_ref().map_or_else(
        || vec!["every variable".to_string()],
        |vars| {
            vars.iter()
                .map(|v| program.vars[v.index()].name.clone())
                .collect()
        },
    );
    TrackSet {
        vars,
        instances: Vec::new(),
        names,
    }
}

/// The units a `v`-subset is drawn from: variables the preparatory runs
/// accessed, seen-shared first, with allocation sites replaced by their
/// first `loop_bound` instances when `loop_bound` > 0.
fn units(program: &Program, profile: &Profile, loop_bound: u32) -> Vec<Unit> {
    let ranked = ranked_vars(profile);
    let mut units: Vec<Unit> = ranked
        .iter()
        .filter(|var| !(program.vars[var.index()].kind.is_allocation_site() && loop_bound > 0))
        .map(|&var| Unit::Var(var))
        .collect();
    if loop_bound > 0 {
        units.extend(
            profile
                .instances
                .iter()
                .filter(|k| k.index < loop_bound && ranked.contains(&k.var))
                .map(|&k| Unit::Instance(k)),
        );
    }
    units
}

/// The set of one subset of units.
fn subset_set(program: &Program, profile: &Profile, subset: &[Unit]) -> TrackSet {
    let mut vars: Vec<VarId> = subset
        .iter()
        .map(|u| match u {
            Unit::Var(v) => *v,
            Unit::Instance(k) => k.var,
        })
        .collect();
    vars.sort_unstable();
    vars.dedup();
    let instances = subset
        .iter()
        .filter_map(|u| match u {
            Unit::Instance(k) => Some(*k),
            Unit::Var(_) => None,
        })
        .collect();
    let names = subset
        .iter()
        .map(|u| match u {
            Unit::Var(v) => program.vars[v.index()].name.clone(),
            Unit::Instance(k) => instance_name(program, profile, k),
        })
        .collect();
    TrackSet {
        vars: Some(vars),
        instances,
        names,
    }
}

/// The sets to explore for `vars`: every `v`-subset of the variables, those
/// the preparatory runs saw shared ranked first. With `loop_bound` L > 0,
/// allocation sites are split into their instances of index below L (the
/// first L objects each site and call stack makes), ranked by index.
pub fn var_sets(
    program: &Program,
    profile: &Profile,
    vars: &VarsArg,
    loop_bound: u32,
) -> Result<Vec<TrackSet>> {
    Ok(match vars {
        VarsArg::All => vec![whole(program, None)],
        VarsArg::Sync => vec![whole(program, Some(sync_vars(program)))],
        VarsArg::None => vec![whole(program, Some(Vec::new()))],
        VarsArg::Count(v) => {
            let units = units(program, profile, loop_bound);
            // Fewer variables than `v` (none at all in a program whose
            // threads share nothing): the one set of them all holds every
            // smaller set's schedules, so exploring it answers for `v`.
            combinations(&units, (*v).min(units.len()))
                .iter()
                .map(|subset| subset_set(program, profile, subset))
                .collect()
        }
    })
}

/// The executable that explores `set`: its instrumentation with every site
/// observed, so that the happens-before signature sees every access.
pub fn executable(subject: &Subject, set: &TrackSet) -> Executable {
    let program = &subject.loaded.program;
    let instrumentation = match &set.vars {
        None => Instrumentation::all(program),
        Some(vars) => (subject.instrumenter)(program, vars),
    };
    Executable::with_instances(
        program.clone(),
        &instrumentation.observing_all(),
        &set.instances,
    )
}
