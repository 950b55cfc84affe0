//! The sampling family (`pos`, `wpos`, `swpos`, `urw`, `surw`, `ksurw`):
//! each [`Sampling`]'s runs, every variable tracked, no bound claimed.
//! One file for six names, since they share their constructor and differ
//! only in the [`Sampling`] they run.

use crate::strategy::planning::Built;
use crate::strategy::registry::Registered;
use crate::strategy::Sampling;

/// Register `$sampling` under its own name, with `$about` for `--help`.
macro_rules! sampling {
    ($sampling:ident, $about:literal) => {
        inventory::submit! {
            Registered {
                name: Sampling::$sampling.name(),
                about: $about,
                takes_settings: false,
                claims_bound: false,
                build: |_, profile, _| Ok(Built::sampling(Sampling::$sampling, profile)),
            }
        }
    };
}

sampling!(
    Pos,
    "Partial order sampling: random priorities per operation, redrawn for \
     the operations racing with the one that ran"
);
sampling!(
    WeightedPos,
    "Partial order sampling with priorities weighted by the steps each \
     thread has left (as URW weighs threads)"
);
sampling!(
    StickyPos,
    "Sticky weighted partial order sampling: as wpos, but the thread that \
     ran keeps its priority with a chance drawn per run, from fine \
     interleaving to whole threads in a random order"
);
sampling!(
    Urw,
    "Uniform random walk: threads picked in proportion to the steps they \
     have left"
);
sampling!(
    Surw,
    "Selectively uniform random walk: the accesses of one target variable \
     per run in uniform order, weighted partial order sampling elsewhere"
);
sampling!(
    KindSurw,
    "SURW by thread kind: threads spawned at one place (copies of one \
     code) weigh together as one thread in the draw of the next target \
     access, so a single thread of another kind is not crowded out"
);
