//! What a search is asked for: the command line's options, as a builder.

use std::panic::Location;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

pub use rankcheck_engine::strategy::registry::UnknownStrategy;
use rankcheck_engine::strategy::registry::{self, Registered};

use crate::campaign;
use crate::environment::Overrides;
use crate::executor::StepLimit;
use crate::memory::MemoryModel;
use crate::report::{write_json, Guarantee, Reported};
use crate::search;
use crate::wake::Wakes;

/// The step limit of one run by default: operations of replacement types.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// The most runs a check's confidence may ask for by default: a test in
/// `cargo test` takes seconds, not minutes (shuttle runs 100 iterations,
/// proptest 256 cases). `Builder::max_runs` raises it.
pub const DEFAULT_MAX_RUNS: u64 = 10_000;

/// The most time a check's confidence may take by default, when neither
/// runs nor time is given. `Builder::max_time` changes it.
pub const DEFAULT_MAX_TIME: Duration = Duration::from_secs(10);

/// The spurious wake-ups and timeouts a run may make by default: one each.
pub const DEFAULT_WAKES: Wakes = Wakes {
    spurious: 1,
    timeouts: 1,
};

/// The search strategy, as `--strategy`: a name in the engine's registry
/// of strategies (`rankcheck_engine::strategy::registry`), so that every
/// strategy the command line runs runs here too, by the same name.
///
/// The built-in strategies are constants spelled as the enum this type
/// once was (`Strategy::Pctvb`), so code written against the enum, `match`
/// arms included, compiles unchanged; any registered strategy is
/// [`Strategy::named`] (or `"name".parse()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Strategy(&'static str);

// Named as the enum's variants were, so that user code keeps compiling.
#[allow(non_upper_case_globals)]
impl Strategy {
    /// The default: sampling strategies and PCT settings in a fixed cycle.
    pub const Portfolio: Strategy = Strategy("portfolio");
    /// PCT with variable bounding.
    pub const Pctvb: Strategy = Strategy("pctvb");
    /// PCT, every variable tracked.
    pub const Pct: Strategy = Strategy("pct");
    /// Partial order sampling.
    pub const Pos: Strategy = Strategy("pos");
    /// Weighted partial order sampling.
    pub const Wpos: Strategy = Strategy("wpos");
    /// Sticky weighted partial order sampling.
    pub const Swpos: Strategy = Strategy("swpos");
    /// Uniform random walk.
    pub const Urw: Strategy = Strategy("urw");
    /// Selectively uniform random walk.
    pub const Surw: Strategy = Strategy("surw");
    /// Selectively uniform random walk in which the threads one `spawn`
    /// call started weigh as one thread together.
    pub const Ksurw: Strategy = Strategy("ksurw");
    /// A random thread at every point.
    pub const Random: Strategy = Strategy("random");
}

impl Strategy {
    /// The strategy registered as `name`, or why there is none (the error
    /// lists the registered names).
    pub fn named(name: &str) -> Result<Strategy, UnknownStrategy> {
        registry::find(name).map(|registered| Strategy(registered.name))
    }

    /// The name reports use.
    pub fn name(self) -> &'static str {
        self.0
    }

    /// Its entry in the registry.
    pub(crate) fn registered(self) -> &'static Registered {
        registry::find(self.0)
            .unwrap_or_else(|_| unreachable!("invariant: a Strategy is a registered name"))
    }
}

/// The strategy of `#[rankcheck::test(strategy = "name")]`, looked up when
/// the test runs, since the registry is only known then: an unknown name
/// fails the test with the attribute and the registered names.
#[track_caller]
pub fn attribute_strategy(name: &str) -> Strategy {
    Strategy::named(name)
        .unwrap_or_else(|error| panic!("#[rankcheck::test(strategy = \"{name}\")]: {error}"))
}

impl Default for Strategy {
    fn default() -> Strategy {
        Strategy::Portfolio
    }
}

impl FromStr for Strategy {
    type Err = UnknownStrategy;

    fn from_str(name: &str) -> Result<Strategy, UnknownStrategy> {
        Strategy::named(name)
    }
}

/// Which variables PCTVB tracks, as `--vars`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vars {
    /// `v` variables drawn per run.
    Count(usize),
    /// Every variable.
    All,
    /// Mutexes, read-write locks, condition variables, barriers and
    /// channels (CHESS's choice).
    Sync,
    /// None: only the thread order varies.
    None,
}

/// Priorities, as `--priorities`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Priorities {
    /// PCT's.
    #[default]
    Pct,
    /// Thread bounding's permutations (no per-run bound is claimed).
    ThreadBounded,
}

/// A search's settings; [`Builder::check`] runs it.
#[derive(Clone, Debug)]
pub struct Builder {
    pub(crate) strategy: Option<Strategy>,
    pub(crate) depth: Option<u32>,
    pub(crate) vars: Option<Vars>,
    pub(crate) priorities: Priorities,
    pub(crate) runs: Option<u64>,
    pub(crate) time: Option<Duration>,
    pub(crate) max_runs: u64,
    pub(crate) max_time: Option<Duration>,
    pub(crate) seed: Option<u64>,
    pub(crate) confidence: f64,
    pub(crate) max_steps: u64,
    pub(crate) cell_points: bool,
    pub(crate) profile_runs: u64,
    pub(crate) json: Option<PathBuf>,
    pub(crate) shrink_time: Option<Duration>,
    pub(crate) wakes: Wakes,
    pub(crate) memory: MemoryModel,
    pub(crate) spurious_cas: bool,
    /// The index of the first run (`RANKCHECK_FIRST_RUN`): a campaign's
    /// chunk runs `first_run..first_run + runs` of its stream.
    pub(crate) first_run: u64,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            strategy: None,
            depth: None,
            vars: None,
            priorities: Priorities::Pct,
            runs: None,
            time: None,
            max_runs: DEFAULT_MAX_RUNS,
            max_time: Some(DEFAULT_MAX_TIME),
            seed: None,
            confidence: 0.99,
            max_steps: DEFAULT_MAX_STEPS,
            cell_points: true,
            profile_runs: 20,
            json: None,
            shrink_time: Some(Duration::from_millis(500)),
            wakes: DEFAULT_WAKES,
            memory: MemoryModel::Sc,
            spurious_cas: true,
            first_run: 0,
        }
    }
}

impl Builder {
    /// The command line's defaults.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The strategy (default: the portfolio; PCTVB once a depth or
    /// variables are given).
    pub fn strategy(mut self, strategy: Strategy) -> Builder {
        self.strategy = Some(strategy);
        self
    }

    /// PCT's depth `d`: `d - 1` change points per run.
    pub fn depth(mut self, depth: u32) -> Builder {
        self.depth = Some(depth);
        self
    }

    /// The variables PCTVB tracks.
    pub fn vars(mut self, vars: Vars) -> Builder {
        self.vars = Some(vars);
        self
    }

    /// The priority scheme.
    pub fn priorities(mut self, priorities: Priorities) -> Builder {
        self.priorities = priorities;
        self
    }

    /// Run exactly this many executions (fewer if one fails).
    pub fn runs(mut self, runs: u64) -> Builder {
        self.runs = Some(runs);
        self
    }

    /// Run for this long.
    pub fn time(mut self, time: Duration) -> Builder {
        self.time = Some(time);
        self
    }

    /// The most runs the confidence may ask for (default 10,000,
    /// [`DEFAULT_MAX_RUNS`]; the command line's default is 1,000,000).
    pub fn max_runs(mut self, runs: u64) -> Builder {
        self.max_runs = runs;
        self
    }

    /// The most time the confidence's runs may take when neither
    /// [`runs`](Builder::runs) nor [`time`](Builder::time) is given
    /// (default 10 s, [`DEFAULT_MAX_TIME`]; `None`: no limit). A check it
    /// stops says so, and its guarantee is what the runs made earned.
    pub fn max_time(mut self, time: Option<Duration>) -> Builder {
        self.max_time = time;
        self
    }

    /// When the runs must stop, `started` being when they began: at the
    /// end of the time given, else of the most time the confidence may
    /// take (unless a run count is given).
    pub(crate) fn deadline(&self, started: std::time::Instant) -> Option<std::time::Instant> {
        match (self.time, self.runs) {
            (Some(time), _) => Some(started + time),
            (None, Some(_)) => None,
            (None, None) => self.max_time.map(|t| started + t),
        }
    }

    /// The master seed (default: a fresh one, printed in every report).
    pub fn seed(mut self, seed: u64) -> Builder {
        self.seed = Some(seed);
        self
    }

    /// The confidence every setting's guarantee should reach when neither
    /// runs nor time is given (default 0.99).
    pub fn confidence(mut self, confidence: f64) -> Builder {
        self.confidence = confidence;
        self
    }

    /// The most operations of one run before it counts as non-terminating.
    pub fn max_steps(mut self, steps: u64) -> Builder {
        self.max_steps = steps;
        self
    }

    /// Whether an access to a
    /// [`cell::UnsafeCell`](crate::cell::UnsafeCell) is a scheduling point
    /// (when tracked) and counts toward [`max_steps`](Builder::max_steps)
    /// (default: it is and does). loom's are neither: its branch points
    /// are atomics, locks, spawns, yields and the like, which its
    /// `max_branches` counts, and its data-race check finds a cell access
    /// that races however the run schedules it. The loom facade turns
    /// this off, so that its runs and its limit are loom's.
    pub fn cell_scheduling_points(mut self, points: bool) -> Builder {
        self.cell_points = points;
        self
    }

    /// The step limit of every run.
    pub(crate) fn step_limit(&self) -> StepLimit {
        StepLimit {
            max: self.max_steps,
            cell_points: self.cell_points,
        }
    }

    /// The most time spent shrinking a failure's schedule (fewer
    /// preemptions, then switches, then steps) before it is reported, as
    /// `rankcheck check --shrink-time` (default half a second).
    pub fn shrink_time(mut self, time: Duration) -> Builder {
        self.shrink_time = Some(time);
        self
    }

    /// Report a failure's schedule as the search found it, unshrunk
    /// (`rankcheck check --no-shrink`).
    pub fn no_shrink(mut self) -> Builder {
        self.shrink_time = None;
        self
    }

    /// The preparatory runs that measure `n`, `k` and `k_q` (default 20).
    pub fn profile_runs(mut self, runs: u64) -> Builder {
        self.profile_runs = runs;
        self
    }

    /// The most spurious wake-ups one run makes (default 1; 0: none). As
    /// std's, `Condvar::wait` and `thread::park` may return without a
    /// notify or an unpark: here each such wait, as it begins, ends early
    /// with chance 1/4 (drawn from the run's seed) while the run's budget
    /// lasts; the thread then only waits for the scheduler (and a
    /// condition variable's mutex). Code that forgets the `while` loop
    /// around its wait is found. `wait_while` never returns spuriously.
    /// The reports count them, and the replay string reproduces them.
    pub fn spurious_wakeups(mut self, most: u32) -> Builder {
        self.wakes.spurious = most;
        self
    }

    /// The most early timeouts one run makes (default 1; 0: none).
    /// `Condvar::wait_timeout`, `wait_timeout_while`,
    /// `thread::park_timeout` and `mpsc::Receiver::recv_timeout` time out
    /// as the spurious wake-ups are drawn, never by the clock (the
    /// duration is not used), and besides whenever no other thread can
    /// run, as their timeout would then fire (not counted against this).
    pub fn timeouts(mut self, most: u32) -> Builder {
        self.wakes.timeouts = most;
        self
    }

    /// Whether, under [`MemoryModel::Weak`], a `compare_exchange_weak`
    /// that would succeed may fail spuriously, as std allows (default
    /// `true`): a read choice, at most once in a row per thread and
    /// atomic. loom and shuttle never fail one; the loom facade's model
    /// turns this off unless asked (`RANKCHECK_LOOM_SPURIOUS_CAS`).
    pub fn spurious_cas_failures(mut self, offered: bool) -> Builder {
        self.spurious_cas = offered;
        self
    }

    /// The memory model the runs explore (default [`MemoryModel::Sc`]:
    /// every atomic operation acts as `SeqCst`). Under
    /// [`MemoryModel::Weak`] the `Ordering`s count: a load may read one of
    /// its atomic's last 4 stores where C11 allows it, a scheduling choice
    /// that counts toward the depth (`docs/guide/src/rust/weak-memory.md`);
    /// the guarantee then says it covers C11 weak memory.
    pub fn memory_model(mut self, model: MemoryModel) -> Builder {
        self.memory = model;
        self
    }

    /// Also write the search's summary to `path` as JSON, whether it
    /// fails or not: the document `rankcheck check --format json` prints
    /// (`docs/guide/src/json-output.md`), its `program` being where the test
    /// called `check`, and `first_failure` the failing run when there is one
    /// (its `trace[].location` and `file` say where in the test's files,
    /// and `replay` is the replay string). Without it nothing is written.
    pub fn json(mut self, path: impl Into<PathBuf>) -> Builder {
        self.json = Some(path.into());
        self
    }

    /// Search `test`: panics with the report of the first failing run,
    /// else returns the guarantee the clean runs earned.
    ///
    /// # Panics
    /// Also on settings that cannot run (as the command refuses them), and
    /// when the JSON asked for with [`Builder::json`] cannot be written.
    ///
    /// The environment overrides these settings (crate::environment):
    /// `RANKCHECK_SEED`, `RANKCHECK_RUNS`, `RANKCHECK_TIME`, and
    /// `RANKCHECK_REPLAY`, which replays that run instead (as [`replay`]);
    /// `RANKCHECK_FIRST_RUN` starts the runs at that index, and
    /// `RANKCHECK_RECORDS` appends the search's shard records to that file
    /// (a campaign's chunk), panicking if it cannot.
    ///
    /// [`replay`]: crate::replay
    #[track_caller]
    pub fn check<F>(&self, test: F) -> Guarantee
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.check_at(Location::caller(), test)
    }

    /// [`Builder::check`] for a test at `caller`: what a facade calls on
    /// behalf of the test that called it (the loom facade's `model`), so
    /// that the report names the test, not the facade (not API).
    #[doc(hidden)]
    #[track_caller]
    pub fn check_at<F>(&self, caller: &'static Location<'static>, test: F) -> Guarantee
    where
        F: Fn() + Send + Sync + 'static,
    {
        let overrides = Overrides::from_env();
        if let Some(replay) = &overrides.replay {
            search::replay(Arc::new(test), replay, self.step_limit());
        }
        let builder = overrides.apply(self);
        let program = format!("{}:{}", caller.file(), caller.line());
        let reported = match search::check(&builder, Arc::new(test), &program) {
            Ok(reported) => reported,
            Err(refused) => panic!("{refused}"),
        };
        if let Some(path) = &overrides.records {
            if let Err(why) = campaign::record(path, &reported.summary, &program, builder.first_run)
            {
                panic!("{why}");
            }
        }
        builder.conclude(reported)
    }

    /// Write the JSON if asked, then return the guarantee or panic with
    /// the failure's report.
    #[track_caller]
    fn conclude(&self, reported: Reported) -> Guarantee {
        let written = match &self.json {
            Some(path) => write_json(path, &reported.summary).map_err(|error| {
                format!(
                    "rankcheck: cannot write the JSON report to {}: {error}",
                    path.display()
                )
            }),
            None => Ok(()),
        };
        match (reported.verdict, written) {
            (Ok(guarantee), Ok(())) => {
                // Captured by the test harness: `cargo test -- --show-output`
                // (or `--nocapture`) shows it.
                println!("rankcheck: {}", guarantee.headline());
                guarantee
            }
            (Ok(_), Err(unwritten)) => panic!("{unwritten}"),
            (Err(report), Ok(())) => panic!("{report}"),
            (Err(report), Err(unwritten)) => panic!("{report}\n{unwritten}"),
        }
    }

    /// The strategy in effect: the one given, else PCTVB once a depth or
    /// variables are, else the portfolio (the engine's rule for every
    /// front end).
    pub(crate) fn effective_strategy(&self) -> &'static Registered {
        let asks_settings = self.depth.is_some() || self.vars.is_some();
        registry::chosen(self.strategy.map(Strategy::registered), asks_settings)
    }
}
