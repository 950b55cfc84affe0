//! The default search of both front ends (the command line and `rt`):
//! which strategies the portfolio rotates through, and in what order. The
//! cycle comes from `rankcheck-bench cycle` (results/cycle.md), which reads
//! the trials of `rankcheck-bench strategies` and 100 more seeds per
//! strategy where one finds a bug within 300 runs: among cycles of the
//! measured components, the one whose expected executions to each corpus
//! bug, computed from each strategy's measured per-run hit rate, stay
//! closest to the fastest strategy's on every program. PCTVB finds a
//! short window at a rarely accessed ("corner") variable among many hot
//! accesses (the scaled families of bench/corpus/scaled), URW and POS the
//! bugs that need the finest interleaving in a run or two, kind-weighted
//! SURW the ones where a spawning thread must run ahead or one thread must
//! come between two steps of any of many copies of another, sticky POS and
//! PCT with no change point (depth 1) the ones that need only an order of
//! whole threads. PCT at depth 3
//! earns a guarantee over every variable, PCTVB one per variable.

use super::settings::default_pool;
use super::{
    PortfolioStrategy, PrioritySetting, PriorityStrategy, Rotation, Sampling, SamplingStrategy,
    Slot, VarSelection,
};
use crate::profile::Profile;

/// Which variables a priority component tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Vars {
    /// None: the change points have nowhere to go, so only depth 1 uses it.
    None,
    /// Every variable (plain PCT).
    All,
    /// This many drawn from the accessed variables for each run (PCTVB).
    Drawn(usize),
}

/// One run's kind in the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Component {
    Sampling(Sampling),
    /// A priority setting: depth and variables.
    Setting {
        depth: u32,
        vars: Vars,
    },
}

use Component::{Sampling as S, Setting};

const PCT_D1: Component = Setting {
    depth: 1,
    vars: Vars::None,
};
const PCT_D3: Component = Setting {
    depth: 3,
    vars: Vars::All,
};
const PCTVB_D2_V1: Component = Setting {
    depth: 2,
    vars: Vars::Drawn(1),
};
const PCTVB_D3_V1: Component = Setting {
    depth: 3,
    vars: Vars::Drawn(1),
};

/// The cycle, from `rankcheck-bench cycle` (results/cycle.md): 12 of its
/// 26 runs are PCTVB's (11 of depth 3, 1 of depth 2, each over one
/// variable), which find a short window at a rarely accessed variable in
/// a few runs whatever the hot accesses around it; 9 are kind-weighted
/// SURW's, the fastest on most programs of the corpus and far the fastest
/// where one thread must act before any of many copies of another
/// (reorder, twostage); one run each of URW, sticky POS, POS, and the two
/// PCT settings.
const CYCLE: [Component; 26] = [
    S(Sampling::Urw),
    S(Sampling::KindSurw),
    S(Sampling::StickyPos),
    S(Sampling::KindSurw),
    PCTVB_D2_V1,
    S(Sampling::Pos),
    S(Sampling::KindSurw),
    PCTVB_D3_V1,
    PCTVB_D3_V1,
    S(Sampling::KindSurw),
    PCTVB_D3_V1,
    PCTVB_D3_V1,
    S(Sampling::KindSurw),
    PCT_D1,
    S(Sampling::KindSurw),
    PCTVB_D3_V1,
    PCTVB_D3_V1,
    PCTVB_D3_V1,
    S(Sampling::KindSurw),
    S(Sampling::KindSurw),
    PCTVB_D3_V1,
    PCTVB_D3_V1,
    S(Sampling::KindSurw),
    PCTVB_D3_V1,
    PCTVB_D3_V1,
    PCT_D3,
];

/// The cycle as the lines of `rankcheck-bench strategies` name its
/// components (`urw`, `pct d=1`, `pctvb d=2 v=1`, ...), for the benchmark
/// that chooses it.
pub fn cycle_lines() -> Vec<String> {
    CYCLE.iter().map(|&c| line(c)).collect()
}

/// A component's line in `rankcheck-bench strategies`.
fn line(component: Component) -> String {
    match component {
        S(s) => s.name().to_string(),
        Setting {
            depth,
            vars: Vars::None | Vars::All,
        } => format!("pct d={depth}"),
        Setting {
            depth,
            vars: Vars::Drawn(v),
        } => format!("pctvb d={depth} v={v}"),
    }
}

/// The priority settings of the cycle, in order of first appearance; a
/// PCTVB setting needs as many accessed variables as it draws.
pub fn settings(profile: &Profile) -> Vec<PrioritySetting> {
    let mut settings: Vec<PrioritySetting> = Vec::new();
    for component in CYCLE {
        if let Some(setting) = setting(component, profile) {
            if !settings.contains(&setting) {
                settings.push(setting);
            }
        }
    }
    settings
}

/// A component's priority setting; `None` for a sampling strategy, or a
/// PCTVB setting with too few variables to draw from.
fn setting(component: Component, profile: &Profile) -> Option<PrioritySetting> {
    let Setting { depth, vars } = component else {
        return None;
    };
    let vars = match vars {
        Vars::None => VarSelection::Fixed(Vec::new()),
        Vars::All => VarSelection::All {
            window: profile.max_accesses,
        },
        Vars::Drawn(count) => {
            let pool = default_pool(profile, profile.vars.len());
            if pool.len() < count {
                return None;
            }
            VarSelection::Drawn { pool, count }
        }
    };
    Some(PrioritySetting { depth, vars })
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
            Setting { .. } => {
                let wanted = setting(component, profile);
                if let Some(i) = kept.iter().position(|s| Some(s) == wanted.as_ref()) {
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
    fn the_cycle_starts_with_a_sampling_run_and_has_the_guarantee_settings() {
        assert!(matches!(CYCLE[0], S(_)));
        for kept in [PCT_D1, PCT_D3, PCTVB_D2_V1] {
            assert!(CYCLE.contains(&kept), "{kept:?}");
        }
    }

    #[test]
    fn components_are_named_as_the_benchmark_lines() {
        assert_eq!(line(PCT_D1), "pct d=1");
        assert_eq!(line(PCT_D3), "pct d=3");
        assert_eq!(line(PCTVB_D3_V1), "pctvb d=3 v=1");
        assert_eq!(line(S(Sampling::StickyPos)), "swpos");
    }
}
