//! Search strategies: for every run, which executable to run (which
//! variables are tracked) and which scheduler decides.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::seq::index::sample;
use rand::SeedableRng;
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
    fn prepare(&mut self, run: u64, seed: u64) -> (Arc<Executable>, Self::Scheduler);
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

    fn prepare(&mut self, _run: u64, seed: u64) -> (Arc<Executable>, RandomScheduler) {
        (self.exe.clone(), RandomScheduler::new(seed))
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
    /// PAPER.md step 0).
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
    cache: BTreeMap<Vec<VarId>, Arc<Executable>>,
    all: Option<Arc<Executable>>,
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
        }
    }

    /// The settings runs rotate through.
    pub fn settings(&self) -> &[PrioritySetting] {
        &self.settings
    }

    /// The variables and window run `run` with `seed` uses.
    pub fn choices(&self, run: u64, seed: u64) -> RunChoices {
        let setting = (run % self.settings.len() as u64) as usize;
        // The variable draw has its own generator, apart from the
        // scheduler's, so that both follow from the seed alone.
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x5eed_0f7a_b1e5);
        let (vars, window) = match &self.settings[setting].vars {
            VarSelection::All { window } => (None, *window),
            VarSelection::Fixed(vars) => (Some(vars.clone()), self.window(vars)),
            VarSelection::Drawn { pool, count } => {
                let count = (*count).min(pool.len());
                let mut vars: Vec<VarId> = sample(&mut rng, pool.len(), count)
                    .into_iter()
                    .map(|i| pool[i])
                    .collect();
                vars.sort_unstable();
                let window = self.window(&vars);
                (Some(vars), window)
            }
        };
        RunChoices {
            setting,
            vars,
            window,
        }
    }

    /// `sum k_q` over `vars`.
    fn window(&self, vars: &[VarId]) -> u64 {
        vars.iter()
            .map(|v| self.access_bounds.get(v.index()).copied().unwrap_or(0))
            .sum()
    }

    fn executable(&mut self, vars: Option<&[VarId]>) -> Arc<Executable> {
        let Some(vars) = vars else {
            let program = &self.program;
            return self
                .all
                .get_or_insert_with(|| {
                    Arc::new(Executable::new(
                        program.clone(),
                        &Instrumentation::all(program),
                    ))
                })
                .clone();
        };
        if let Some(exe) = self.cache.get(vars) {
            return exe.clone();
        }
        let instrumentation = (self.instrumenter)(&self.program, vars);
        let exe = Arc::new(Executable::new(self.program.clone(), &instrumentation));
        self.cache.insert(vars.to_vec(), exe.clone());
        exe
    }
}

impl Strategy for PriorityStrategy {
    type Scheduler = PriorityScheduler;

    fn prepare(&mut self, run: u64, seed: u64) -> (Arc<Executable>, PriorityScheduler) {
        let choices = self.choices(run, seed);
        let depth = self.settings[choices.setting].depth;
        let exe = self.executable(choices.vars.as_deref());
        let scheduler =
            PriorityScheduler::new(seed, self.scheme, depth, self.n_threads, choices.window);
        (exe, scheduler)
    }
}
