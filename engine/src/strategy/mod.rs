//! Search strategies: for every run, which executable to run (which
//! variables are tracked) and which scheduler decides.

mod portfolio;
mod sampling;

pub use portfolio::{PortfolioScheduler, PortfolioStrategy, Rotation, Slot};
pub use sampling::{Sampling, SamplingScheduler, SamplingStrategy};

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::executable::{Executable, Instrumentation};
use crate::id::VarId;
use crate::ir::Program;
use crate::priority::{PriorityScheduler, PriorityScheme};
use crate::random::RandomScheduler;
use crate::scheduler::Scheduler;

/// Decides, for run `run` with seed `seed`, what runs and who schedules it.
/// A strategy is cloned once per worker; everything a run does must follow
/// from `(run, seed)` alone, so that results do not depend on the worker.
pub trait Strategy: Clone + Send + Sync {
    /// The scheduler of one run.
    type Scheduler: Scheduler;

    /// The executable and scheduler of run `run` (0-based) seeded `seed`.
    fn prepare(&mut self, run: u64, seed: u64) -> (&Executable, Self::Scheduler);
}

/// The random scheduler with every access tracked.
#[derive(Clone, Debug)]
pub struct RandomStrategy {
    exe: Arc<Executable>,
}

impl RandomStrategy {
    /// Random search over `program`, every variable tracked.
    pub fn new(program: Arc<Program>) -> RandomStrategy {
        let instrumentation = Instrumentation::all(&program);
        RandomStrategy {
            exe: Arc::new(Executable::new(program, &instrumentation)),
        }
    }
}

impl Strategy for RandomStrategy {
    type Scheduler = RandomScheduler;

    fn prepare(&mut self, _run: u64, seed: u64) -> (&Executable, RandomScheduler) {
        (&self.exe, RandomScheduler::new(seed))
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

/// Builds the instrumentation that tracks a set of variables; the alias
/// analysis in `instr` provides it (the engine cannot see syntax).
pub type Instrumenter = Arc<dyn Fn(&Program, &[VarId]) -> Instrumentation + Send + Sync>;

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
#[derive(Clone)]
pub struct PriorityStrategy {
    program: Arc<Program>,
    instrumenter: Instrumenter,
    scheme: PriorityScheme,
    n_threads: usize,
    /// `k_q` by variable.
    access_bounds: Vec<u64>,
    /// The settings runs rotate through: run `i` uses `settings[i % len]`.
    settings: Vec<PrioritySetting>,
    /// Executables by tracked-variable set, built on first use. Each
    /// worker has its own clone, so nothing here is shared between cores.
    cache: BTreeMap<Vec<VarId>, Executable>,
    all: Option<Executable>,
    /// The variables drawn for the current run, reused between runs.
    drawn: Vec<VarId>,
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

impl PriorityStrategy {
    /// A priority search over `program` for `n_threads` threads whose
    /// variables have access bounds `access_bounds` (from the preparatory
    /// runs), rotating through `settings`.
    ///
    /// # Panics
    /// If `settings` is empty (invariant: a search has a setting).
    pub fn new(
        program: Arc<Program>,
        instrumenter: Instrumenter,
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
            program,
            instrumenter,
            scheme,
            n_threads,
            access_bounds,
            settings,
            cache: BTreeMap::new(),
            all: None,
            drawn: Vec::new(),
        }
    }

    /// The settings runs rotate through.
    pub fn settings(&self) -> &[PrioritySetting] {
        &self.settings
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
        let (all, window) = self.draw(setting, seed, &mut vars);
        RunChoices {
            setting,
            vars: (!all).then_some(vars),
            window,
        }
    }

    /// Draw the variables of a run of `setting` into `vars`: whether every
    /// variable is tracked (then `vars` stays empty), and the window.
    fn draw(&self, setting: usize, seed: u64, vars: &mut Vec<VarId>) -> (bool, u64) {
        vars.clear();
        match &self.settings[setting].vars {
            VarSelection::All { window } => (true, *window),
            VarSelection::Fixed(fixed) => {
                vars.extend_from_slice(fixed);
                (false, self.window(vars))
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
                (false, self.window(vars))
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

/// The executable tracking `vars` (or every variable), built on first use.
/// A free function so that the strategy's fields borrow apart.
fn executable<'a>(
    program: &Arc<Program>,
    instrumenter: &Instrumenter,
    every: &'a mut Option<Executable>,
    cache: &'a mut BTreeMap<Vec<VarId>, Executable>,
    all: bool,
    vars: &[VarId],
) -> &'a Executable {
    if all {
        return every.get_or_insert_with(|| {
            Executable::new(program.clone(), &Instrumentation::all(program))
        });
    }
    if !cache.contains_key(vars) {
        let instrumentation = instrumenter(program, vars);
        cache.insert(
            vars.to_vec(),
            Executable::new(program.clone(), &instrumentation),
        );
    }
    &cache[vars]
}

impl Strategy for PriorityStrategy {
    type Scheduler = PriorityScheduler;

    fn prepare(&mut self, run: u64, seed: u64) -> (&Executable, PriorityScheduler) {
        self.prepare_setting(self.setting_of(run), seed)
    }
}

impl PriorityStrategy {
    /// The executable and scheduler of a run of `setting` seeded `seed`.
    pub fn prepare_setting(
        &mut self,
        setting: usize,
        seed: u64,
    ) -> (&Executable, PriorityScheduler) {
        let mut vars = std::mem::take(&mut self.drawn);
        let (all, window) = self.draw(setting, seed, &mut vars);
        self.drawn = vars;
        let depth = self.settings[setting].depth;
        let scheduler = PriorityScheduler::new(seed, self.scheme, depth, self.n_threads, window);
        let exe = executable(
            &self.program,
            &self.instrumenter,
            &mut self.all,
            &mut self.cache,
            all,
            &self.drawn,
        );
        (exe, scheduler)
    }
}
