//! `random`: a uniformly random choice among the enabled threads at every
//! scheduling point ([`RandomStrategy`]).

use crate::strategy::planning::Built;
use crate::strategy::registry::Registered;
use crate::strategy::{PlanKind, RandomStrategy};

inventory::submit! {
    Registered {
        name: "random",
        about: "A uniformly random choice among the enabled threads at every scheduling \
                point, every shared access tracked",
        takes_settings: false,
        claims_bound: false,
        build: |_, _, _| Ok(Built::new(PlanKind::Random(RandomStrategy::new()))),
    }
}
