//! Search strategies: for every run, which variables are tracked and which
//! scheduler decides. A strategy knows variables by [`VarId`] and the
//! profile of the preparatory runs, never how a front end runs them: the
//! VM turns a [`Tracked`] set into an executable ([`Executables`]), the
//! Rust runtime (`rt/`) into the objects whose operations are scheduling
//! points.
//!
//! Front ends name strategies, never construct them: [`registry`] maps a
//! name to its constructor, [`planning`] turns the options asked into a
//! [`Plan`], and [`Plan::run`] hands the plan's concrete strategy to a
//! front end's run loop. Each named strategy is one file of `registered/`.
//!
//! The strategies themselves: this module holds the random and priority
//! strategies (PCT, PCTVB, thread-bounded), `sampling.rs` POS and its
//! weighted and sticky variants, URW, SURW and kind-weighted SURW,
//! `portfolio.rs` a rotation of both, and `open.rs` any other strategy,
//! its scheduler boxed. `settings.rs` is the (depth, variables) settings
//! the options ask for and `default_search.rs` the default's cycle: both
//! front ends call these, so they run the same strategies, settings and
//! cycle. `executables.rs` is the VM's side of tracking.

pub mod default_search;
mod executables;
mod open;
mod plan;
pub mod planning;
mod portfolio;
mod registered;
pub mod registry;
mod sampling;
pub mod settings;

pub use executables::{Executables, Instrumenter};
pub use open::{BoxedScheduler, OpenStrategy};
pub use plan::{Component, Part, Plan, PlanKind, PlanRunner};
pub use portfolio::{PortfolioScheduler, PortfolioStrategy, Rotation, Slot};
pub use sampling::{Sampling, SamplingScheduler, SamplingStrategy};

use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::id::VarId;
use crate::priority::{PriorityScheduler, PriorityScheme, SPIN_YIELDS};
use crate::random::RandomScheduler;
use crate::scheduler::Scheduler;

/// The variables a run tracks: their accesses are scheduling points where a
/// change point may go (docs/LANGUAGE.md, Variables and tracking).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tracked<'a> {
    /// Every variable.
    All,
    /// These variables only, sorted (possibly none).
    Vars(&'a [VarId]),
}

/// Decides, for run `run` with seed `seed`, what is tracked and who
/// schedules. A strategy is cloned once per worker; everything a run does
/// must follow from `(run, seed)` alone, so that results do not depend on
/// the worker.
pub trait Strategy: Clone + Send + Sync {
    /// The scheduler of one run: it owns its state, so that a front end
    /// may keep it past the run (rt hands it to the executor and back).
    type Scheduler: Scheduler + Send + 'static;

    /// The tracked variables and the scheduler of run `run` (0-based)
    /// seeded `seed`: a function of the two alone (`&mut self` only to
    /// reuse buffers), since the search redoes a failing run by preparing
    /// it again.
    fn prepare(&mut self, run: u64, seed: u64) -> (Tracked<'_>, Self::Scheduler);
}

/// The random scheduler with every access tracked.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomStrategy;

impl RandomStrategy {
    /// Random search, every variable tracked.
    pub fn new() -> RandomStrategy {
        RandomStrategy
    }
}

impl Strategy for RandomStrategy {
    type Scheduler = RandomScheduler;

    fn prepare(&mut self, _run: u64, seed: u64) -> (Tracked<'_>, RandomScheduler) {
        (Tracked::All, RandomScheduler::new(seed))
    }
}

/// Which variables a priority search tracks in each run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarSelection {
    /// Every variable (plain PCT): change points among all tracked
    /// accesses, `window` of them (PCT's `k`).
    All {
        /// PCT's `k`.
        window: u64,
    },
    /// The same variables every run (`--vars sync`, `--vars none`, or
    /// `--track` naming exactly `v` variables).
    Fixed(Vec<VarId>),
    /// `count` variables drawn uniformly from `pool` for each run (PCTVB,
    /// docs/ALGORITHMS.md step 0).
    Drawn {
        /// The variables to draw from.
        pool: Vec<VarId>,
        /// How many to draw: the paper's `v`.
        count: usize,
    },
}

/// One (depth, variables) setting of a priority search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrioritySetting {
    /// PCT's `d`: `d-1` change points.
    pub depth: u32,
    /// Which variables are tracked.
    pub vars: VarSelection,
}

/// PCT, PCTVB and their thread-bounded variants: for each run, draw the
/// tracked variables, then priorities and change points.
#[derive(Clone, Debug)]
pub struct PriorityStrategy {
    scheme: PriorityScheme,
    n_threads: usize,
    /// `k_q` by variable.
    access_bounds: Vec<u64>,
    /// The settings runs rotate through: run `i` uses `settings[i % len]`.
    settings: Vec<PrioritySetting>,
    /// The variables drawn for the current run, reused between runs.
    drawn: Vec<VarId>,
    /// The yields after which a thread counts as spinning (see
    /// [`PriorityScheduler::spin_yields`]).
    spin_yields: u32,
}

/// What one run of a priority search tracked and where it changed
/// priorities: enough to explain a failing run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunChoices {
    /// Index into the strategy's settings.
    pub setting: usize,
    /// The tracked variables; `None` for PCT, which tracks every one.
    pub vars: Option<Vec<VarId>>,
    /// The window the change points were drawn from.
    pub window: u64,
}

/// What a run's variable draw decided: whether the run tracks every
/// variable (its list of drawn ones then empty), and the window its
/// change points are drawn from.
struct Drawn {
    tracks_all: bool,
    window: u64,
}

impl Drawn {
    /// A run that tracks the variables drawn, with `window`.
    fn vars(window: u64) -> Drawn {
        Drawn {
            tracks_all: false,
            window,
        }
    }
}

impl PriorityStrategy {
    /// A priority search for `n_threads` threads whose variables have
    /// access bounds `access_bounds` (from the preparatory runs), rotating
    /// through `settings`.
    ///
    /// # Panics
    /// If `settings` is empty (invariant: a search has a setting).
    pub fn new(
        scheme: PriorityScheme,
        n_threads: usize,
        access_bounds: Vec<u64>,
        settings: Vec<PrioritySetting>,
    ) -> PriorityStrategy {
        assert!(
            !settings.is_empty(),
            "invariant: a priority search has a setting"
        );
        PriorityStrategy {
            scheme,
            n_threads,
            access_bounds,
            settings,
            drawn: Vec::new(),
            spin_yields: SPIN_YIELDS,
        }
    }

    /// Runs take a thread that yields more than `yields` times for a spin
    /// loop (default [`SPIN_YIELDS`]; 0: every yield gives way).
    pub fn spin_yields(mut self, yields: u32) -> PriorityStrategy {
        self.spin_yields = yields;
        self
    }

    /// The settings runs rotate through.
    pub fn settings(&self) -> &[PrioritySetting] {
        &self.settings
    }

    /// The same search with setting `setting` alone: one component of a
    /// rotation as a search of its own.
    pub fn only(&self, setting: usize) -> PriorityStrategy {
        PriorityStrategy {
            settings: vec![self.settings[setting].clone()],
            drawn: Vec::new(),
            ..self.clone()
        }
    }

    /// The setting run `run` uses when runs rotate through the settings.
    pub fn setting_of(&self, run: u64) -> usize {
        (run % self.settings.len() as u64) as usize
    }

    /// The variables and window run `run` with `seed` uses.
    pub fn choices(&self, run: u64, seed: u64) -> RunChoices {
        self.setting_choices(self.setting_of(run), seed)
    }

    /// The variables and window a run of `setting` with `seed` uses.
    pub fn setting_choices(&self, setting: usize, seed: u64) -> RunChoices {
        let mut vars = Vec::new();
        let drawn = self.draw(setting, seed, &mut vars);
        RunChoices {
            setting,
            vars: (!drawn.tracks_all).then_some(vars),
            window: drawn.window,
        }
    }

    /// Draw the variables of a run of `setting` into `vars` (left empty
    /// when the run tracks every variable).
    fn draw(&self, setting: usize, seed: u64, vars: &mut Vec<VarId>) -> Drawn {
        vars.clear();
        match &self.settings[setting].vars {
            VarSelection::All { window } => Drawn {
                tracks_all: true,
                window: *window,
            },
            VarSelection::Fixed(fixed) => {
                vars.extend_from_slice(fixed);
                Drawn::vars(self.window(vars))
            }
            VarSelection::Drawn { pool, count } => {
                // The variable draw has its own generator, apart from the
                // scheduler's, so that both follow from the seed alone.
                let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x5eed_0f7a_b1e5);
                match (*count).min(pool.len()) {
                    0 => {}
                    1 => vars.push(pool[rng.random_range(0..pool.len())]),
                    count => vars.extend(
                        sample(&mut rng, pool.len(), count)
                            .into_iter()
                            .map(|i| pool[i]),
                    ),
                }
                vars.sort_unstable();
                Drawn::vars(self.window(vars))
            }
        }
    }

    /// `sum k_q` over `vars`.
    fn window(&self, vars: &[VarId]) -> u64 {
        vars.iter()
            .map(|v| self.access_bounds.get(v.index()).copied().unwrap_or(0))
            .sum()
    }
}

impl Strategy for PriorityStrategy {
    type Scheduler = PriorityScheduler;

    fn prepare(&mut self, run: u64, seed: u64) -> (Tracked<'_>, PriorityScheduler) {
        self.prepare_setting(self.setting_of(run), seed)
    }
}

impl PriorityStrategy {
    /// The tracked variables and scheduler of a run of `setting` seeded
    /// `seed`.
    pub fn prepare_setting(
        &mut self,
        setting: usize,
        seed: u64,
    ) -> (Tracked<'_>, PriorityScheduler) {
        let mut vars = std::mem::take(&mut self.drawn);
        let drawn = self.draw(setting, seed, &mut vars);
        self.drawn = vars;
        let depth = self.settings[setting].depth;
        let scheduler =
            PriorityScheduler::new(seed, self.scheme, depth, self.n_threads, drawn.window)
                .spin_yields(self.spin_yields);
        let tracked = if drawn.tracks_all {
            Tracked::All
        } else {
            Tracked::Vars(&self.drawn)
        };
        (tracked, scheduler)
    }

    /// The priority scheme.
    pub fn scheme(&self) -> PriorityScheme {
        self.scheme
    }
}
