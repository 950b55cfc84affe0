//! The default search of both front ends (the command line and `rt`):
//! which strategies the portfolio rotates through, and in what order. The
//! cycle comes from `rankcheck-bench cycle` (results/cycle.md), which reads
//! the trials of `rankcheck-bench strategies` and 100 more seeds per
//! strategy where one finds a bug within 300 runs: among cycles of the
//! measured components, the one whose expected executions to each corpus
//! bug, computed from each strategy's measured per-run hit rate, stay
//! closest to the fastest strategy's on every program. URW finds the bugs
//! that need the finest interleaving in a run or two, partial order
//! sampling the ones where a thread must stay behind the others for long,
//! its weighted variant and SURW the ones where a spawning thread must run
//! ahead, sticky POS and PCT with no change point (depth 1) the ones that
//! need only an order of whole threads, and the depth-3 PCT setting earns
//! a guarantee over every variable.

use super::{
    PortfolioStrategy, PrioritySetting, PriorityStrategy, Rotation, Sampling, SamplingStrategy,
    Slot, VarSelection,
};
use crate::profile::Profile;

/// One run's kind in the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Component {
    Sampling(Sampling),
    /// A priority setting: depth, and whether every variable is tracked
    /// (else none is).
    Setting {
        depth: u32,
        all: bool,
    },
}

use Component::{Sampling as S, Setting};

/// The cycle: sampling runs first, since most bugs fall to them in a
/// few runs; the PCT settings get 2 runs of 10.
const CYCLE: [Component; 10] = [
    S(Sampling::Urw),
    S(Sampling::StickyPos),
    S(Sampling::Pos),
    S(Sampling::Surw),
    S(Sampling::Surw),
    S(Sampling::StickyPos),
    S(Sampling::WeightedPos),
    S(Sampling::WeightedPos),
    Setting {
        depth: 1,
        all: false,
    },
    Setting {
        depth: 3,
        all: true,
    },
];

/// The cycle as the lines of `rankcheck-bench strategies` name its
/// components (`urw`, `pct d=1`, ...), for the benchmark that chooses it.
pub fn cycle_lines() -> Vec<String> {
    CYCLE
        .iter()
        .map(|component| match component {
            S(s) => s.name().to_string(),
            Setting { depth, .. } => format!("pct d={depth}"),
        })
        .collect()
}

/// The priority settings of the cycle, in order of first appearance.
pub fn settings(profile: &Profile) -> Vec<PrioritySetting> {
    let mut settings: Vec<PrioritySetting> = Vec::new();
    for component in CYCLE {
        if let Setting { depth, all } = component {
            let setting = setting(depth, all, profile);
            if !settings.contains(&setting) {
                settings.push(setting);
            }
        }
    }
    settings
}

fn setting(depth: u32, all: bool, profile: &Profile) -> PrioritySetting {
    let vars = if all {
        VarSelection::All {
            window: profile.max_accesses,
        }
    } else {
        VarSelection::Fixed(Vec::new())
    };
    PrioritySetting { depth, vars }
}

/// The portfolio over `priority` (whose settings are those of
/// [`settings`] that can run) and the sampling strategies. A setting set
/// aside loses its slots.
pub fn portfolio(priority: PriorityStrategy, profile: &Profile) -> PortfolioStrategy {
    let kept = priority.settings().to_vec();
    let mut slots = Vec::new();
    let mut sampling: Vec<SamplingStrategy> = Vec::new();
    for component in CYCLE {
        match component {
            S(s) => {
                if !sampling.iter().any(|x| x.sampling() == s) {
                    sampling.push(SamplingStrategy::new(s, profile));
                }
                slots.push(Slot::Sampling(s));
            }
            Setting { depth, all } => {
                let wanted = setting(depth, all, profile);
                if let Some(i) = kept.iter().position(|s| *s == wanted) {
                    slots.push(Slot::Setting(i));
                }
            }
        }
    }
    PortfolioStrategy::new(priority, sampling, Rotation::new(slots))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_starts_with_a_sampling_run_and_has_both_settings() {
        assert!(matches!(CYCLE[0], S(_)));
        let settings = CYCLE.iter().filter(|c| matches!(c, Setting { .. })).count();
        assert_eq!(settings, 2);
    }
}
