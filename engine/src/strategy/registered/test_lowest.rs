//! `test-lowest`, a strategy for tests only (feature `test-strategies`):
//! every scheduling point runs the enabled thread with the lowest id, so
//! every run is the same and a thread runs until it blocks or ends. Its
//! point is where it lives: this file is all there is of it, yet the
//! command line's `--strategy`, rt's `Builder`, the test attribute and a
//! nightly suite all run it by name (their tests say so), as they would
//! any strategy added this way.

use crate::id::ThreadId;
use crate::scheduler::{Point, Scheduler};
use crate::strategy::planning::Built;
use crate::strategy::registry::Registered;
use crate::strategy::{OpenStrategy, PlanKind, Strategy, Tracked};

/// The name the tests use.
const NAME: &str = "test-lowest";

inventory::submit! {
    Registered {
        name: NAME,
        about: "For tests only: always the enabled thread with the lowest id",
        takes_settings: false,
        claims_bound: false,
        build: |_, _, _| Ok(Built::new(PlanKind::Open(OpenStrategy::new(NAME, LowestFirst)))),
    }
}

/// Every run: the lowest enabled thread first, every variable tracked.
#[derive(Clone, Copy, Debug)]
struct LowestFirst;

impl Strategy for LowestFirst {
    type Scheduler = LowestFirst;

    fn prepare(&mut self, _run: u64, _seed: u64) -> (Tracked<'_>, LowestFirst) {
        (Tracked::All, LowestFirst)
    }
}

impl Scheduler for LowestFirst {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        let Some(&lowest) = point.enabled.iter().min() else {
            unreachable!("invariant: a point has an enabled thread")
        };
        lowest
    }
}

#[cfg(test)]
mod tests {
    use crate::profile::Profile;
    use crate::strategy::planning::{plan, Asked, Variables};
    use crate::strategy::registry::find;
    use crate::PriorityScheme;

    #[test]
    fn it_is_registered_and_plans_an_open_search_under_its_name() {
        let asked = Asked {
            strategy: find(super::NAME).expect("registered"),
            depth: None,
            vars: None,
            pool: None,
            scheme: PriorityScheme::Pct,
            spin_yields: None,
        };
        let variables = Variables {
            count: 0,
            sync: &[],
        };
        let profile = Profile {
            runs: 1,
            max_threads: 1,
            max_accesses: 0,
            max_steps: 1,
            vars: Vec::new(),
            failure: None,
            instances: Vec::new(),
            threads: Vec::new(),
        };
        let planned = plan(&asked, &profile, variables).expect("planned");
        assert!(asked.strategy.is_for_tests());
        assert_eq!(planned.plan.name(), super::NAME);
        assert_eq!(planned.plan.component(7).name, super::NAME);
        assert!(planned.plan.settings().is_empty());
    }
}
