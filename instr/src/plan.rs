//! Instrumentation plans: which variables a search tracks, and from the
//! alias analysis, which access sites it must observe.
//!
//! docs/ALGORITHMS.md, Variables: "to track a set V, instrument exactly the sites
//! whose may-set meets V; an instrumented site checks at run time that the
//! location it touched really belongs to V". Untracked sites are compiled
//! as plain loads and stores and cost nothing.
//!
//! Whatever is tracked, a plan also observes every write site that may
//! touch an *awaited* variable (one some `await` condition may read, by
//! the same analysis), since such a write may let a blocked thread run.

use std::collections::BTreeSet;

use rankcheck_engine::await_code::ConditionCode;
use rankcheck_engine::ir::{AccessKind, Program};
use rankcheck_engine::{Instrumentation, SiteId, VarId};

use crate::points_to::PointsTo;

/// What a search tracks (docs/LANGUAGE.md, Variables for variable bounding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tracking {
    /// Exactly these variables: PCTVB's chosen `q_1..q_v` (docs/ALGORITHMS.md,
    /// PCTVB). Only the sites that may touch one of them are observed.
    Vars(BTreeSet<VarId>),
    /// Every variable, every site observed: plain PCT and the random
    /// scheduler.
    All,
    /// Mutexes and condition variables only, as CHESS and PCT did; no
    /// memory access is observed.
    SyncOnly,
    /// Nothing: only synchronisation operations are scheduling points and
    /// no preemption is possible.
    None,
}

impl Tracking {
    /// The instrumentation of `program` for this tracking, with the
    /// observed sites read off `points_to` (the analysis of `program`).
    ///
    /// For [`Tracking::Vars`], a memory-access site is observed exactly
    /// when its may-set meets the tracked set. Synchronisation sites are
    /// scheduling points whatever is observed; their entry says the same
    /// for them, so that [`Instrumentation::observed`] reads as "may touch
    /// a tracked variable" for every site.
    ///
    /// # Panics
    /// If `points_to` is the analysis of another program, or a tracked
    /// variable is not one of `program`'s (invariant: a plan belongs to
    /// one program).
    pub fn instrumentation(&self, program: &Program, points_to: &PointsTo) -> Instrumentation {
        assert!(
            points_to.n_sites() == program.sites.len() && points_to.n_vars() == program.vars.len(),
            "invariant: a plan belongs to one program"
        );
        let tracked = self.tracked(program);
        let awaited = awaited(program, points_to);
        let observed = (0..program.sites.len())
            .map(|site| {
                let site = SiteId(site as u32);
                let may = points_to.may_access(site);
                let is_write = program.sites[site.index()].kind == AccessKind::Write;
                matches!(self, Tracking::All)
                    || may.iter().any(|var| tracked[var.index()])
                    || (is_write && may.iter().any(|var| awaited[var.index()]))
            })
            .collect();
        Instrumentation {
            tracked,
            observed,
            awaited,
        }
    }

    /// `tracked[v]` for every variable of `program`.
    fn tracked(&self, program: &Program) -> Vec<bool> {
        match self {
            Tracking::All => vec![true; program.vars.len()],
            Tracking::SyncOnly => program.vars.iter().map(|v| v.kind.is_sync()).collect(),
            Tracking::None => vec![false; program.vars.len()],
            Tracking::Vars(vars) => {
                let mut tracked = vec![false; program.vars.len()];
                for var in vars {
                    assert!(
                        var.index() < tracked.len(),
                        "invariant: a plan belongs to one program (variable {var} out of range)"
                    );
                    tracked[var.index()] = true;
                }
                tracked
            }
        }
    }
}

/// `awaited[v]`: some `await` condition may read variable `v`, by the alias
/// analysis. Writes that may touch such a variable are observed whatever is
/// tracked, since they may let a blocked thread run (docs/LANGUAGE.md, Steps and
/// scheduling points).
pub fn awaited(program: &Program, points_to: &PointsTo) -> Vec<bool> {
    let mut awaited = vec![false; program.vars.len()];
    for site in ConditionCode::of(program).read_sites(program) {
        for var in points_to.may_access(site) {
            awaited[var.index()] = true;
        }
    }
    awaited
}
