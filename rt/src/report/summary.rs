//! A search's summary from the runtime's facts: what the builder asked,
//! the preparatory runs, the plan and the runs done; the shared report
//! builds the rest and renders it as the command does. It is also the
//! document `Builder::json` writes.

use std::time::Duration;

use rankcheck_engine::guarantee::{confidence, needed};
use rankcheck_engine::profile::Profile;
use rankcheck_engine::VarId;
use rankcheck_report::failure::FailureJson;
use rankcheck_report::summary::{SearchFacts, SummaryJson, VarNames};
use rankcheck_stats::Probability;

use crate::builder::{Builder, Vars};
use crate::memory::MemoryModel;
use crate::plan::{scheme, Plan};
use crate::var::Registry;

impl VarNames for Registry {
    fn name(&self, var: VarId) -> &str {
        self.vars()
            .get(var.index())
            .map_or("?", |v| v.name.as_str())
    }

    fn kind(&self, var: VarId) -> &str {
        self.vars().get(var.index()).map_or("?", |v| v.kind.name())
    }
}

/// A search's facts, for its summary.
pub struct Searched<'a> {
    /// What was asked.
    pub builder: &'a Builder,
    /// Where the test called `check`: the summary's `program`.
    pub program: &'a str,
    /// The master seed.
    pub seed: u64,
    /// The preparatory runs.
    pub profile: &'a Profile,
    /// The test's variables.
    pub registry: &'a Registry,
    /// The strategy (`None`: the preparatory runs failed before a plan).
    pub plan: Option<&'a Plan>,
    /// Each setting's per-run bound.
    pub bounds: &'a [Option<Probability>],
    /// Runs done.
    pub runs: u64,
    /// Whether `max_runs` cut the run count the confidence asked for.
    pub runs_capped: bool,
    /// Their time.
    pub elapsed: Duration,
}

impl<'a> Searched<'a> {
    /// A search that failed in its preparatory runs.
    pub fn preparatory(
        builder: &'a Builder,
        program: &'a str,
        seed: u64,
        profile: &'a Profile,
        registry: &'a Registry,
    ) -> Searched<'a> {
        Searched {
            builder,
            program,
            seed,
            profile,
            registry,
            plan: None,
            bounds: &[],
            runs: 0,
            runs_capped: false,
            elapsed: Duration::ZERO,
        }
    }

    /// The summary, with the failure if there was one: the document
    /// `Builder::json` writes.
    pub fn summary(&self, failure: Option<FailureJson>) -> SummaryJson {
        let builder = self.builder;
        let search = SummaryJson::of_search(&SearchFacts {
            program: self.program.to_owned(),
            strategy: builder.effective_strategy().name,
            scheme: scheme(builder),
            seed: self.seed,
            profile: self.profile,
            names: self.registry,
            plan: self.plan,
            bounds: self.bounds,
            runs: self.runs,
            failures: u64::from(failure.is_some()),
            elapsed_s: self.elapsed.as_secs_f64(),
            target_confidence: builder.confidence,
        });
        let mut search = search;
        weaken_set_bounds(&mut search, builder);
        SummaryJson {
            depth: builder.depth,
            vars_asked: builder.vars.map(vars_name),
            runs_capped: self.runs_capped,
            first_failure: failure,
            memory_model: builder.memory.name().to_owned(),
            ..search
        }
    }
}

/// Under weak memory, each setting's per-set bounds as its own bound is
/// (crate::memory::MemoryModel::bound): a stale read counts toward the
/// depth.
fn weaken_set_bounds(summary: &mut SummaryJson, builder: &Builder) {
    if builder.memory == MemoryModel::Sc {
        return;
    }
    for setting in &mut summary.settings {
        for set in setting.per_set.iter_mut().flatten() {
            let Ok(bound) = Probability::from_ln(set.bound_ln) else {
                continue;
            };
            let bound = builder.memory.bound(bound, setting.depth);
            set.bound = bound.value();
            set.bound_ln = bound.ln();
            set.confidence = confidence(bound, setting.runs);
            set.runs_needed = needed(bound, builder.confidence);
        }
    }
}

/// The variables asked for, as the command's `--vars` reads.
fn vars_name(vars: Vars) -> String {
    match vars {
        Vars::Count(v) => v.to_string(),
        Vars::All => "all".to_owned(),
        Vars::Sync => "sync".to_owned(),
        Vars::None => "none".to_owned(),
    }
}
