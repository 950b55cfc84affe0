//! The sampling strategies that track every access and state no bound:
//! partial order sampling ([`crate::pos`]), and the uniform random walks
//! URW, SURW and kind-weighted SURW ([`crate::walk`]). They look at each
//! thread's next operation, so they track every variable.

use std::sync::Arc;

use super::Tracked;
use crate::id::{ThreadId, VarId};
use crate::pos::PosScheduler;
use crate::profile::Profile;
use crate::scheduler::{Point, Scheduler};
use crate::walk::{draw_target, surw_targets, EventCounts, SurwScheduler, UrwScheduler};

/// Which sampling strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sampling {
    /// Partial order sampling.
    Pos,
    /// Partial order sampling with priorities weighted by the steps each
    /// thread has left, as URW weighs threads.
    WeightedPos,
    /// Weighted partial order sampling in which the thread that ran keeps
    /// its priority with a chance drawn per run.
    StickyPos,
    /// Uniform random walk over every step.
    Urw,
    /// Selectively uniform random walk over one target variable's accesses.
    Surw,
    /// SURW whose threads spawned at one place weigh as one thread
    /// together.
    KindSurw,
}

impl Sampling {
    /// The name used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Sampling::Pos => "pos",
            Sampling::WeightedPos => "wpos",
            Sampling::StickyPos => "swpos",
            Sampling::Urw => "urw",
            Sampling::Surw => "surw",
            Sampling::KindSurw => "ksurw",
        }
    }
}

/// POS, URW or SURW over one program.
#[derive(Clone, Debug)]
pub struct SamplingStrategy {
    sampling: Sampling,
    /// URW's step counts per thread.
    steps: Arc<EventCounts>,
    /// SURW's targets with their draw weights and access counts.
    targets: Arc<Vec<(VarId, f64, Arc<EventCounts>)>>,
}

impl SamplingStrategy {
    /// `sampling`, with the thread and variable counts of the preparatory
    /// runs in `profile`.
    pub fn new(sampling: Sampling, profile: &Profile) -> SamplingStrategy {
        let targets = match sampling {
            Sampling::Surw | Sampling::KindSurw => {
                let counts = match sampling {
                    Sampling::Surw => EventCounts::accesses,
                    _ => EventCounts::accesses_by_kind,
                };
                surw_targets(profile)
                    .into_iter()
                    .map(|(var, weight)| (var, weight, Arc::new(counts(profile, var))))
                    .collect()
            }
            _ => Vec::new(),
        };
        let steps = match sampling {
            Sampling::Urw
            | Sampling::WeightedPos
            | Sampling::StickyPos
            | Sampling::Surw
            | Sampling::KindSurw => EventCounts::steps(profile),
            _ => EventCounts::default(),
        };
        SamplingStrategy {
            sampling,
            steps: Arc::new(steps),
            targets: Arc::new(targets),
        }
    }

    /// Which strategy this is.
    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    /// The variables SURW (either weighting) draws its target from (empty
    /// for the others).
    pub fn targets(&self) -> Vec<VarId> {
        self.targets.iter().map(|(var, _, _)| *var).collect()
    }

    /// The target of the run seeded `seed`: SURW's and kind-weighted
    /// SURW's only.
    pub fn target(&self, seed: u64) -> Option<VarId> {
        if !matches!(self.sampling, Sampling::Surw | Sampling::KindSurw) {
            return None;
        }
        let weights: Vec<(VarId, f64)> = self.targets.iter().map(|(v, w, _)| (*v, *w)).collect();
        draw_target(&weights, seed)
    }
}

/// The scheduler of one sampling run.
#[derive(Clone, Debug)]
pub enum SamplingScheduler {
    /// POS.
    Pos(PosScheduler),
    /// URW.
    Urw(UrwScheduler),
    /// SURW.
    Surw(SurwScheduler),
}

impl Scheduler for SamplingScheduler {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        match self {
            SamplingScheduler::Pos(s) => s.choose(point),
            SamplingScheduler::Urw(s) => s.choose(point),
            SamplingScheduler::Surw(s) => s.choose(point),
        }
    }

    fn wants_pending(&self) -> bool {
        match self {
            SamplingScheduler::Pos(s) => s.wants_pending(),
            SamplingScheduler::Urw(s) => s.wants_pending(),
            SamplingScheduler::Surw(s) => s.wants_pending(),
        }
    }
}

impl super::Strategy for SamplingStrategy {
    type Scheduler = SamplingScheduler;

    fn prepare(&mut self, _run: u64, seed: u64) -> (Tracked<'_>, SamplingScheduler) {
        let scheduler = match self.sampling {
            Sampling::Pos => SamplingScheduler::Pos(PosScheduler::new(seed)),
            Sampling::WeightedPos => {
                SamplingScheduler::Pos(PosScheduler::weighted(seed, self.steps.clone()))
            }
            Sampling::StickyPos => {
                SamplingScheduler::Pos(PosScheduler::sticky(seed, self.steps.clone()))
            }
            Sampling::Urw => SamplingScheduler::Urw(UrwScheduler::new(seed, self.steps.clone())),
            Sampling::Surw | Sampling::KindSurw => {
                let target = self.target(seed);
                let counts = self
                    .targets
                    .iter()
                    .find(|(var, _, _)| Some(*var) == target)
                    .map_or_else(Default::default, |(_, _, counts)| counts.clone());
                let surw = SurwScheduler::new(seed, target, counts, self.steps.clone());
                SamplingScheduler::Surw(match self.sampling {
                    Sampling::KindSurw => surw.refining(),
                    _ => surw,
                })
            }
        };
        (Tracked::All, scheduler)
    }
}
