//! The strategy a search runs, as both front ends (the command line and
//! `rt`) choose it from their options: which kind, and what its runs earn.

use super::RandomStrategy;
use super::{
    PortfolioStrategy, PrioritySetting, PriorityStrategy, Rotation, SamplingStrategy, Slot,
};

/// The strategy a search runs.
pub enum Plan {
    /// The random scheduler.
    Random(RandomStrategy),
    /// PCT or PCTVB, possibly rotating through settings.
    Priority(Box<PriorityStrategy>),
    /// POS, weighted POS, URW or SURW.
    Sampling(Box<SamplingStrategy>),
    /// The default: sampling strategies and priority settings in turn.
    Portfolio(Box<PortfolioStrategy>),
}

impl Plan {
    /// The priority settings its runs earn guarantees in (none for the
    /// random and sampling strategies).
    pub fn settings(&self) -> &[PrioritySetting] {
        match self {
            Plan::Random(_) | Plan::Sampling(_) => &[],
            Plan::Priority(strategy) => strategy.settings(),
            Plan::Portfolio(strategy) => strategy.priority().settings(),
        }
    }

    /// The cycle its runs go through.
    pub fn rotation(&self) -> Rotation {
        match self {
            Plan::Portfolio(strategy) => strategy.rotation().clone(),
            _ => Rotation::settings(self.settings().len()),
        }
    }

    /// Runs of setting `index` among the runs `first..first + runs`.
    pub fn setting_runs(&self, index: usize, first: u64, runs: u64) -> u64 {
        self.rotation().runs_of(Slot::Setting(index), first, runs)
    }
}
