//! The search a registered strategy builds, as both front ends (the
//! command line and `rt`) run and report it: which strategy ran run `i`,
//! which priority settings earn a bound, and the one place that turns the
//! kind of search into a concrete [`Strategy`] for a front end's run loop
//! ([`Plan::run`]).
//!
//! [`Plan::run`] hands the concrete strategy to a front end's generic run
//! loop, a [`PlanRunner`] (the engine's `search_plan` is the VM's);
//! [`Plan::component`] names what ran run `i`, and [`Plan::parts`] splits
//! the plan into a campaign's streams.

use super::open::OpenStrategy;
use super::{
    PortfolioStrategy, PrioritySetting, PriorityStrategy, RandomStrategy, Rotation,
    SamplingStrategy, Slot, Strategy, VarSelection,
};

/// The strategy a search runs: a registered strategy's name and its
/// search.
#[derive(Clone, Debug)]
pub struct Plan {
    name: &'static str,
    kind: PlanKind,
}

/// The kinds of search. The built-in families each have their own, so that
/// their schedulers are called directly at every scheduling point; any
/// other strategy is [`PlanKind::Open`].
#[derive(Clone, Debug)]
pub enum PlanKind {
    /// The random scheduler.
    Random(RandomStrategy),
    /// PCT or PCTVB, possibly rotating through settings.
    Priority(Box<PriorityStrategy>),
    /// POS, weighted POS, URW or SURW.
    Sampling(Box<SamplingStrategy>),
    /// The default: sampling strategies and priority settings in turn.
    Portfolio(Box<PortfolioStrategy>),
    /// A strategy outside the built-in families, its scheduler boxed.
    Open(OpenStrategy),
}

/// What ran one run of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Component {
    /// The strategy's name, as reports, replay files and stream keys give
    /// it: the plan's own, or a portfolio's component (`urw`, `pctvb`).
    pub name: &'static str,
    /// The priority setting it ran, if any.
    pub setting: Option<usize>,
}

/// One component of a plan as a search of its own: a nightly campaign's
/// stream.
#[derive(Clone, Debug)]
pub struct Part {
    /// The plan of that component alone, named as its runs are.
    pub plan: Plan,
    /// Its priority setting, if it is one.
    pub setting: Option<PrioritySetting>,
}

/// A front end's run loop, generic over the strategy so that each kind of
/// search gets its own code ([`Plan::run`] calls it once).
pub trait PlanRunner {
    /// What the runs come to.
    type Output;

    /// Do the runs of `strategy`.
    fn run<St: Strategy>(self, strategy: &St) -> Self::Output;
}

impl Plan {
    /// The search `kind`, run under the strategy name `name`.
    pub fn new(name: &'static str, kind: PlanKind) -> Plan {
        Plan { name, kind }
    }

    /// The registered strategy's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The kind of search.
    pub fn kind(&self) -> &PlanKind {
        &self.kind
    }

    /// Run `runner` over this plan's strategy.
    pub fn run<R: PlanRunner>(&self, runner: R) -> R::Output {
        match &self.kind {
            PlanKind::Random(strategy) => runner.run(strategy),
            PlanKind::Priority(strategy) => runner.run(strategy.as_ref()),
            PlanKind::Sampling(strategy) => runner.run(strategy.as_ref()),
            PlanKind::Portfolio(strategy) => runner.run(strategy.as_ref()),
            PlanKind::Open(strategy) => runner.run(strategy),
        }
    }

    /// The priority search, alone or inside the portfolio.
    pub fn priority(&self) -> Option<&PriorityStrategy> {
        match &self.kind {
            PlanKind::Priority(strategy) => Some(strategy),
            PlanKind::Portfolio(strategy) => Some(strategy.priority()),
            PlanKind::Random(_) | PlanKind::Sampling(_) | PlanKind::Open(_) => None,
        }
    }

    /// The portfolio, if this is one.
    pub fn portfolio(&self) -> Option<&PortfolioStrategy> {
        match &self.kind {
            PlanKind::Portfolio(strategy) => Some(strategy),
            _ => None,
        }
    }

    /// The priority settings its runs earn guarantees in (none for the
    /// random, sampling and open strategies).
    pub fn settings(&self) -> &[PrioritySetting] {
        self.priority().map_or(&[], PriorityStrategy::settings)
    }

    /// The cycle its runs go through.
    pub fn rotation(&self) -> Rotation {
        match &self.kind {
            PlanKind::Portfolio(strategy) => strategy.rotation().clone(),
            _ => Rotation::settings(self.settings().len()),
        }
    }

    /// Runs of setting `index` among the runs `first..first + runs`.
    pub fn setting_runs(&self, index: usize, first: u64, runs: u64) -> u64 {
        self.rotation().runs_of(Slot::Setting(index), first, runs)
    }

    /// The name of the runs of priority setting `setting`: the plan's own,
    /// but a portfolio's settings are PCTVB's where they draw their
    /// variables and PCT's otherwise.
    pub fn setting_name(&self, setting: &PrioritySetting) -> &'static str {
        match (&self.kind, &setting.vars) {
            (PlanKind::Portfolio(_), VarSelection::Drawn { .. }) => "pctvb",
            (PlanKind::Portfolio(_), _) => "pct",
            _ => self.name,
        }
    }

    /// What ran run `run` (from 0).
    pub fn component(&self, run: u64) -> Component {
        let unbounded = |name| Component {
            name,
            setting: None,
        };
        let setting = |priority: &PriorityStrategy, index: usize| Component {
            name: self.setting_name(&priority.settings()[index]),
            setting: Some(index),
        };
        match &self.kind {
            PlanKind::Random(_) | PlanKind::Sampling(_) | PlanKind::Open(_) => unbounded(self.name),
            PlanKind::Priority(strategy) => setting(strategy, strategy.setting_of(run)),
            PlanKind::Portfolio(portfolio) => match portfolio.rotation().slot(run) {
                Slot::Sampling(sampling) => unbounded(sampling.name()),
                Slot::Setting(index) => setting(portfolio.priority(), index),
            },
        }
    }

    /// Each component as a search of its own, in a fixed order: a
    /// portfolio's sampling strategies, then the priority settings; a
    /// strategy without components is its own one part.
    pub fn parts(&self) -> Vec<Part> {
        let settings = |priority: &PriorityStrategy| -> Vec<Part> {
            (0..priority.settings().len())
                .map(|index| {
                    let setting = priority.settings()[index].clone();
                    let name = self.setting_name(&setting);
                    let single = PlanKind::Priority(Box::new(priority.only(index)));
                    Part {
                        plan: Plan::new(name, single),
                        setting: Some(setting),
                    }
                })
                .collect()
        };
        match &self.kind {
            PlanKind::Priority(strategy) => settings(strategy),
            PlanKind::Portfolio(portfolio) => {
                let mut parts: Vec<Part> = portfolio
                    .sampling()
                    .into_iter()
                    .map(|s| Part {
                        plan: Plan::new(
                            s.sampling().name(),
                            PlanKind::Sampling(Box::new(s.clone())),
                        ),
                        setting: None,
                    })
                    .collect();
                parts.extend(settings(portfolio.priority()));
                parts
            }
            PlanKind::Random(_) | PlanKind::Sampling(_) | PlanKind::Open(_) => vec![Part {
                plan: self.clone(),
                setting: None,
            }],
        }
    }
}
