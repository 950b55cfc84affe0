//! loom's `model`: every execution of a closure, explored by rankcheck-rt
//! under C11 weak memory; a failure panics with rankcheck's report.
//!
//! The phases of [`Builder::check`]: rankcheck's exhaustive exploration
//! (`rankcheck::Exploration` under `MemoryModel::Weak`: every schedule
//! and every store each load may read, up to reordering independent
//! steps), capped at `max_permutations` schedules and `max_duration` (one
//! minute by default), and stopped at the first failing one, as loom's. Then one of:
//!
//! - **every schedule ran, none failed**: the model passes;
//! - **a failure was reached**: a seeded rankcheck search under the same
//!   memory model ([`REPORT_RUNS`] runs at most) finds a failing run and
//!   panics with its report and replay string; if it meets none, the model
//!   panics with the failures the exploration reached (kind, message,
//!   place) and says that no replay string was found;
//! - **the exploration could not finish**: a cap stopped it, or the test
//!   is not a function of its schedule (it reads the clock, as a loop on
//!   `std::time::Instant::now()` does, uses `std::sync` or `std::thread`
//!   directly, or keeps a value between executions), so that replaying a
//!   schedule took other decisions and exhaustive exploration is not
//!   possible. With `exhaustive` (`RANKCHECK_LOOM_EXHAUSTIVE`) the model
//!   fails, saying which; otherwise rankcheck's randomized search runs
//!   instead ([`FALLBACK_RUNS`] runs, or `max_duration`), fails as any
//!   rankcheck search when it finds a bug, and prints why it ran and the
//!   guarantee it earned to stderr.
//!
//! With `random_search` (`RANKCHECK_LOOM_SEARCH=random`) the model skips
//! the exploration and runs that randomized search at once, as if the
//! exploration could not finish: the same search, seed and stderr lines.
//! It is for measuring the search on a loom test unchanged (the bench's
//! `historical` mode) and for tests whose exploration is known too big.

use std::fmt::{self, Write as _};
use std::panic::Location;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rankcheck_rt::{Exploration, Explored, MemoryModel, Nondeterminism};

use crate::{real_loom, run, MAX_THREADS};

/// The schedules explored before the exploration counts as too big, when
/// neither `max_permutations` nor `LOOM_MAX_PERMUTATIONS` says.
pub const DEFAULT_MAX_PERMUTATIONS: usize = 100_000;

/// How long the exploration runs before it counts as too big, when
/// neither `max_duration` nor `LOOM_MAX_DURATION` says: a loom suite run
/// unchanged inside `cargo test` stays within minutes, where a model too
/// big to exhaust would otherwise run to its schedule cap.
pub const DEFAULT_EXPLORATION_TIME: Duration = Duration::from_secs(60);

/// The runs of the search that looks for a failing run to report, once
/// the exploration reached a failure.
pub const REPORT_RUNS: u64 = 100_000;

/// The runs of the randomized search that stands in for an exploration
/// the cap stopped, unless `max_duration` gives a time instead or the
/// exploration's cap (`max_permutations` as loom applies it) is lower.
pub const FALLBACK_RUNS: u64 = 20_000;

/// The fewest runs of that search, however low the exploration's cap is
/// (a small `checkpoint_interval` lets `max_permutations` make it so):
/// shuttle's default iteration count.
pub const FALLBACK_MIN_RUNS: u64 = 100;

/// The seed of both searches (`RANKCHECK_SEED` replaces it).
pub const SEED: u64 = 1;

/// loom's default `max_branches`.
const DEFAULT_MAX_BRANCHES: usize = 1_000;

/// The model's settings, as loom's `model::Builder`: its fields, read from
/// loom's environment variables by [`Builder::new`], and what each does
/// here.
#[derive(Debug)]
#[non_exhaustive]
pub struct Builder {
    /// The most threads an execution runs, main included (default
    /// [`MAX_THREADS`]): spawning more panics, as loom's.
    pub max_threads: usize,

    /// `LOOM_MAX_BRANCHES` (default 1,000): the most branch points of one
    /// execution, as loom counts them: every operation but an access to a
    /// `cell::UnsafeCell` (atomics, locks, spawns, yields, `Arc` counts...;
    /// cell accesses are no scheduling points either, as in loom:
    /// rankcheck-rt's `cell_scheduling_points(false)`). An execution past
    /// it fails as `step-limit`.
    pub max_branches: usize,

    /// `LOOM_MAX_PERMUTATIONS`: the most schedules the exploration runs
    /// (default [`DEFAULT_MAX_PERMUTATIONS`]), as loom counts them: loom
    /// checks it only every `checkpoint_interval` executions, so that it
    /// runs `max_permutations` rounded up to a multiple of the interval,
    /// less one (a test that sets 1 runs 19,999 executions, or fewer if
    /// its model ends first), and so does the exploration here. Past it
    /// the exploration counts as incomplete (see `exhaustive`), and the
    /// fallback search runs that many runs too, within
    /// [`FALLBACK_MIN_RUNS`] and [`FALLBACK_RUNS`]. loom stops there
    /// silently.
    pub max_permutations: Option<usize>,

    /// `LOOM_MAX_DURATION` (seconds): as loom's, the most time the
    /// exploration runs (default [`DEFAULT_EXPLORATION_TIME`]); past it
    /// the exploration counts as incomplete (see `exhaustive`), and the
    /// fallback search then runs for this long too, in place of
    /// [`FALLBACK_RUNS`] runs. loom stops there silently.
    pub max_duration: Option<Duration>,

    /// `LOOM_MAX_PREEMPTIONS`: as loom's, the exploration covers only the
    /// schedules with at most this many preemptions (a switch away from a
    /// thread that could have gone on; the read choices of weak memory are
    /// not bounded); the fallback search runs PCTVB at depth `bound + 1`,
    /// whose guarantee is then for bugs of that many preemptions.
    pub preemption_bound: Option<usize>,

    /// `LOOM_CHECKPOINT_FILE`: loom (with its `checkpoint` feature) saves
    /// its exploration's progress there and resumes from it; without the
    /// feature loom panics when it is set. **Ignored here**, with a note
    /// on stderr when set: rankcheck's exploration cannot resume from a
    /// saved point. What loom's checkpoints are for, rerunning a failing
    /// execution alone, is the failure's replay string
    /// (`RANKCHECK_REPLAY`).
    pub checkpoint_file: Option<PathBuf>,

    /// `LOOM_CHECKPOINT_INTERVAL` (default 20,000, as loom's): how many
    /// executions loom runs between saving its checkpoint, and between
    /// its checks of `max_permutations` and `max_duration`. Here it only
    /// rounds `max_permutations` up as loom's checks do; no checkpoint is
    /// saved, and `max_duration` is checked as the exploration goes.
    pub checkpoint_interval: usize,

    /// loom explores nothing until [`crate::explore`] is called. **Ignored
    /// here**: [`crate::explore`] and [`crate::stop_exploring`] do
    /// nothing and every schedule is explored throughout (more, never
    /// fewer).
    pub expect_explicit_explore: bool,

    /// `LOOM_LOCATION`: loom records where each operation was made, for its
    /// log. **Ignored here**: rankcheck's reports always say where each
    /// operation was made.
    pub location: bool,

    /// `LOOM_LOG`: loom prints its log. **Ignored here**: the model
    /// always prints one line, its verdict (`rankcheck: loom model at
    /// ...: every schedule ... explored, N schedules`), which the test
    /// harness captures and `cargo test -- --show-output` shows.
    pub log: bool,

    /// `RANKCHECK_LOOM_EXHAUSTIVE` (rankcheck's, not loom's): fail, rather
    /// than fall back to the randomized search, when the exploration does
    /// not finish: past `max_permutations`, or for a test that is not a
    /// function of its schedule.
    pub exhaustive: bool,

    /// `RANKCHECK_LOOM_SPURIOUS_CAS` (rankcheck's, not loom's): let a
    /// `compare_exchange_weak` that would succeed fail spuriously, as std
    /// allows and as ARM's and POWER's load-linked/store-conditional do.
    /// Off by default, as in loom, whose weak compare-exchange never
    /// fails spuriously: each one in a run doubles its schedules (st3
    /// 0.4.1's `loom_lifo_chained_steal` at 0 preemptions: 9,216
    /// schedules with it, 11 without). A test that passes only without
    /// it relies on something std does not promise.
    pub spurious_cas_failures: bool,

    /// `RANKCHECK_LOOM_SEARCH=random` (rankcheck's, not loom's): skip the
    /// exploration and run the randomized search it falls back to
    /// straight away (`FALLBACK_RUNS` runs, or `max_duration`, at depth
    /// `preemption_bound + 1` when set). `RANKCHECK_LOOM_SEARCH=explore`,
    /// or unset, is the default: explore first. Asked together with
    /// `exhaustive`, the model panics: the two contradict.
    pub random_search: bool,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// The settings loom's environment variables give, else the defaults.
    ///
    /// # Panics
    /// When a variable's value does not parse, naming it, as loom's.
    pub fn new() -> Builder {
        Builder {
            max_threads: MAX_THREADS,
            max_branches: env("LOOM_MAX_BRANCHES").unwrap_or(DEFAULT_MAX_BRANCHES),
            max_permutations: env("LOOM_MAX_PERMUTATIONS"),
            max_duration: env("LOOM_MAX_DURATION").map(Duration::from_secs),
            preemption_bound: env("LOOM_MAX_PREEMPTIONS"),
            checkpoint_file: env("LOOM_CHECKPOINT_FILE"),
            checkpoint_interval: env("LOOM_CHECKPOINT_INTERVAL").unwrap_or(20_000),
            expect_explicit_explore: false,
            location: std::env::var_os("LOOM_LOCATION").is_some(),
            log: std::env::var_os("LOOM_LOG").is_some(),
            exhaustive: std::env::var_os("RANKCHECK_LOOM_EXHAUSTIVE").is_some(),
            spurious_cas_failures: std::env::var_os("RANKCHECK_LOOM_SPURIOUS_CAS").is_some(),
            random_search: search_env(),
        }
    }

    /// Set `checkpoint_file` (ignored here, as the field says).
    pub fn checkpoint_file(&mut self, file: &str) -> &mut Self {
        self.checkpoint_file = Some(file.into());
        self
    }

    /// Check every execution of `f` (module doc: the phases): returns when
    /// none fails, panics with rankcheck's report when one does.
    ///
    /// With `RANKCHECK_REPLAY` set, reruns that failing run instead and
    /// panics with its report.
    #[track_caller]
    pub fn check<F>(&self, f: F)
    where
        F: Fn() + Sync + Send + 'static,
    {
        let place = Location::caller();
        real_loom::named_in_failure(place, || self.check_at(place, f));
    }

    /// [`Builder::check`], called at `place`.
    fn check_at<F>(&self, place: &'static Location<'static>, f: F)
    where
        F: Fn() + Sync + Send + 'static,
    {
        if let Some(file) = &self.checkpoint_file {
            eprintln!(
                "loom model at {}: the checkpoint file {} is ignored (rankcheck's exploration \
                 cannot resume; a failure's replay string, RANKCHECK_REPLAY, reruns it)",
                place,
                file.display()
            );
        }
        // Loom has no wake from outside a model: tasks that all wait are
        // a deadlock at once, with no grace for a wake from a std thread.
        rankcheck_rt::__private::never_wait_in_this_test();
        let max_threads = self.max_threads;
        let test: Test = Arc::new(move || {
            run::begin(max_threads);
            f();
        });
        if std::env::var_os("RANKCHECK_REPLAY").is_some() {
            self.search().check(closure(&test));
            return;
        }
        if self.random_search {
            assert!(
                !self.exhaustive,
                "loom model at {place}: RANKCHECK_LOOM_SEARCH=random skips the exploration that \
                 RANKCHECK_LOOM_EXHAUSTIVE asks to complete (model::Builder's random_search and \
                 exhaustive); unset one"
            );
            self.fall_back(place, &test, &Unfinished::Skipped);
            return;
        }
        let cap = self.schedule_cap();
        let steps = self.max_branches as u64;
        // Stopped at the first failure, as loom's: a search then finds a
        // failing run to report.
        let time = self.max_duration.unwrap_or(DEFAULT_EXPLORATION_TIME);
        let mut exploration = Exploration::new(cap, steps)
            .time_limit(time)
            .memory_model(MemoryModel::Weak)
            .spurious_cas_failures(self.spurious_cas_failures)
            .cell_scheduling_points(false)
            .stop_at_first_failure();
        if let Some(bound) = self.preemption_bound {
            exploration = exploration.preemption_bound(bound.try_into().unwrap_or(u32::MAX));
        }
        let explored = exploration.run(closure(&test));
        if !explored.failures.is_empty() {
            self.report(place, &test, &explored);
        }
        let unfinished = match explored.nondeterminism {
            Some(found) => Unfinished::Nondeterministic(found),
            None if explored.complete => {
                // One line per model, as `rankcheck::check` prints its
                // guarantee: captured by the test harness, shown by
                // `cargo test -- --show-output` (or `--nocapture`).
                let bounded = match self.preemption_bound {
                    Some(bound) => format!(" with at most {bound} preemptions"),
                    None => String::new(),
                };
                println!(
                    "rankcheck: loom model at {place}: every schedule{bounded} explored, {} schedules (C11 weak memory; {} of them first at fewer preemptions)",
                    explored.schedules, explored.first_passes
                );
                return;
            }
            None if explored.timed_out => Unfinished::TimedOut(time, explored.schedules),
            None => Unfinished::Capped(cap),
        };
        if self.exhaustive {
            panic!(
                "loom model at {place}: {unfinished}; the model is exhaustive \
                 (model::Builder::exhaustive, RANKCHECK_LOOM_EXHAUSTIVE), so it fails ({})",
                unfinished.remedy()
            );
        }
        self.fall_back(place, &test, &unfinished);
    }

    /// The rankcheck search both the report and the fallback run: the
    /// exploration's semantics (weak memory, no wait ending early: no
    /// spurious wake-up, a timed wait times out only when no other thread
    /// can run).
    fn search(&self) -> rankcheck_rt::Builder {
        rankcheck_rt::Builder::new()
            .memory_model(MemoryModel::Weak)
            .spurious_wakeups(0)
            .timeouts(0)
            .seed(SEED)
            .max_steps(self.max_branches as u64)
            .spurious_cas_failures(self.spurious_cas_failures)
            .cell_scheduling_points(false)
    }

    /// The schedules the exploration may run: `max_permutations` as loom
    /// applies it (only when the executions so far plus one are a
    /// multiple of `checkpoint_interval`), else
    /// [`DEFAULT_MAX_PERMUTATIONS`].
    fn schedule_cap(&self) -> u64 {
        let Some(most) = self.max_permutations else {
            return DEFAULT_MAX_PERMUTATIONS as u64;
        };
        let interval = self.checkpoint_interval.max(1) as u64;
        let checked_at = (most.max(1) as u64).div_ceil(interval) * interval;
        (checked_at - 1).max(1)
    }

    /// The runs of the fallback search: as many as the exploration's cap
    /// (`max_permutations` as loom applies it), within
    /// [`FALLBACK_MIN_RUNS`] and [`FALLBACK_RUNS`].
    fn fallback_runs(&self) -> u64 {
        self.schedule_cap().clamp(FALLBACK_MIN_RUNS, FALLBACK_RUNS)
    }

    /// The exploration reached a failure: panic with the report of its
    /// run; should that not fail again (a test that is not a function of
    /// its schedule), with the report of a failing run a search finds,
    /// else with what the exploration saw.
    fn report(&self, place: &'static Location<'static>, test: &Test, explored: &Explored) -> ! {
        if let Some(run) = &explored.first_failing {
            if let Some(report) = run.report(&self.search(), closure(test)) {
                panic!("{report}");
            }
        }
        self.search()
            .runs(REPORT_RUNS)
            .check_at(place, closure(test));
        let mut found = String::new();
        for failure in &explored.failures {
            let at = match (&failure.file, failure.line) {
                (Some(file), Some(line)) => format!(" at {file}:{line}"),
                _ => String::new(),
            };
            let _ = write!(found, "\n  {}{at}: {}", failure.kind, failure.message);
            for (file, line) in &failure.blocked {
                let _ = write!(found, "\n    blocked at {file}:{line}");
            }
        }
        panic!(
            "loom model at {place}: the exploration of {} schedules reached these failures:{found}\n\
             but a rankcheck search of {REPORT_RUNS} runs (seed {SEED}) met none of them, so \
             there is no replay string",
            explored.schedules
        );
    }

    /// The exploration could not finish: rankcheck's randomized search
    /// stands in, why and its guarantee printed.
    fn fall_back(&self, place: &'static Location<'static>, test: &Test, unfinished: &Unfinished) {
        let mut search = match self.max_duration {
            Some(time) => self.search().time(time),
            None => self.search().runs(self.fallback_runs()),
        };
        if let Some(bound) = self.preemption_bound {
            search = search.depth(bound as u32 + 1);
        }
        eprintln!(
            "loom model at {place}: {unfinished}; rankcheck's randomized search runs instead"
        );
        let guarantee = search.check_at(place, closure(test));
        eprintln!("{guarantee}");
    }
}

/// Why the exploration did not cover every schedule.
#[derive(Debug)]
enum Unfinished {
    /// The schedule cap stopped it.
    Capped(u64),
    /// The time limit stopped it, after this many schedules.
    TimedOut(Duration, u64),
    /// The test is not a function of its schedule.
    Nondeterministic(Nondeterminism),
    /// `random_search` asked for no exploration.
    Skipped,
}

impl Unfinished {
    /// What the user can do about it, for the message of an exhaustive
    /// model.
    fn remedy(&self) -> &'static str {
        match self {
            Unfinished::Capped(_) => {
                "raise LOOM_MAX_PERMUTATIONS, or unset RANKCHECK_LOOM_EXHAUSTIVE to fall back to \
                 rankcheck's randomized search"
            }
            Unfinished::TimedOut(..) => {
                "raise LOOM_MAX_DURATION, or unset RANKCHECK_LOOM_EXHAUSTIVE to fall back to \
                 rankcheck's randomized search"
            }
            Unfinished::Nondeterministic(_) => {
                "make the test depend only on loom's types, or unset RANKCHECK_LOOM_EXHAUSTIVE to \
                 fall back to rankcheck's randomized search"
            }
            Unfinished::Skipped => "unset RANKCHECK_LOOM_SEARCH to explore",
        }
    }
}

impl fmt::Display for Unfinished {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unfinished::Capped(cap) => write!(
                f,
                "the exploration did not finish within {cap} schedules \
                 (model::Builder::max_permutations, LOOM_MAX_PERMUTATIONS)"
            ),
            Unfinished::TimedOut(time, schedules) => write!(
                f,
                "the exploration did not finish within {} s, {schedules} schedules \
                 (model::Builder::max_duration, LOOM_MAX_DURATION)",
                time.as_secs_f64()
            ),
            Unfinished::Nondeterministic(found) => {
                write!(f, "exhaustive exploration is not possible: {found}")
            }
            Unfinished::Skipped => write!(
                f,
                "the exploration was skipped (model::Builder::random_search, \
                 RANKCHECK_LOOM_SEARCH=random)"
            ),
        }
    }
}

/// The model's closure, as each execution runs it.
type Test = Arc<dyn Fn() + Send + Sync>;

fn closure(test: &Test) -> impl Fn() + Send + Sync + 'static {
    let test = test.clone();
    move || test()
}

/// `RANKCHECK_LOOM_SEARCH`: `random` skips the exploration, `explore` (or
/// unset) explores first.
///
/// # Panics
/// On any other value, naming it.
fn search_env() -> bool {
    match std::env::var("RANKCHECK_LOOM_SEARCH")
        .as_deref()
        .map(str::trim)
    {
        Err(_) | Ok("" | "explore") => false,
        Ok("random") => true,
        Ok(other) => {
            panic!("invalid value for `RANKCHECK_LOOM_SEARCH`: {other:?} (`random` or `explore`)")
        }
    }
}

/// Environment variable `name`, parsed.
///
/// # Panics
/// When it is set and does not parse, naming it and its value.
fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    let value = std::env::var(name).ok()?;
    match value.trim().parse() {
        Ok(parsed) => Some(parsed),
        Err(_) => panic!("invalid value for `{name}`: {value:?}"),
    }
}

/// Run every execution of `f` with the default [`Builder`] (loom's
/// environment variables read), as loom's `model`.
#[track_caller]
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    Builder::new().check(f);
}
