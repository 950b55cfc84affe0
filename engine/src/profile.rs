//! Preparatory runs: what a few random executions tell about a program's
//! threads, steps and variables, which PCT and variable bounding need before
//! they can place change points (docs/ALGORITHMS.md, PCT and PCTVB: `n`, `k`, `k_q`).
//!
//! The runs also measure per-thread profiles (events, accesses, spawn
//! sites) for the walks. [`Profiler`] is any front end's side of it: the
//! VM's preparatory runs and the Rust runtime's feed the same one.

use std::collections::{BTreeMap, BTreeSet};

use crate::executable::InstanceKey;
use crate::id::{ThreadId, VarId};
use crate::outcome::Outcome;
use crate::random::RandomScheduler;
use crate::scheduler::{Loc, Point, Scheduler};
use crate::search::{run_seed, Failure};
use crate::vm::{Limits, Vm};
use crate::Executable;

/// What the preparatory runs observed of one variable.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VarProfile {
    /// The most accesses to it in one run: the paper's `k_q`.
    pub max_accesses: u64,
    /// Accesses per run on average.
    pub mean_accesses: f64,
    /// The most distinct threads that touched it in one run.
    pub max_threads: usize,
    /// Writes to it over all runs (a mutex's or condition variable's
    /// operations count as writes): whether anything writes it.
    pub writes: u64,
}

impl VarProfile {
    /// Whether some run saw two or more threads touch it.
    pub fn shared(&self) -> bool {
        self.max_threads >= 2
    }
}

/// The result of the preparatory runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Runs done.
    pub runs: u64,
    /// The most threads of any run: `n`.
    pub max_threads: usize,
    /// The most tracked accesses (scheduling points after an access) of
    /// any run: PCT's `k`.
    pub max_accesses: u64,
    /// The most scheduling points of any run, accesses and synchronisation
    /// alike.
    pub max_steps: u64,
    /// Per variable, by [`VarId`].
    pub vars: Vec<VarProfile>,
    /// A failure met on the way, if any: the preparatory runs are random
    /// runs like any other.
    pub failure: Option<Failure>,
    /// The heap instances the runs made, ranked by loop-iteration number
    /// (their index), then by allocation site and call stack.
    pub instances: Vec<InstanceKey>,
    /// Per thread id: what it did, on average over the runs (a thread that
    /// did not exist in a run counts as doing nothing there). What URW and
    /// SURW estimate a thread's remaining events from.
    pub threads: Vec<ThreadProfile>,
}

/// What the preparatory runs saw one thread (by id) do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadProfile {
    /// The thread that spawned it, if any run saw one.
    pub parent: Option<ThreadId>,
    /// The `spawn` that created it, if any run saw one and the front end
    /// says where (the VM by instruction, rankcheck-rt by call site):
    /// threads spawned at the same place run the same code.
    pub spawn_site: Option<Loc>,
    /// Steps it took per run on average.
    pub mean_steps: f64,
    /// Its tracked accesses per run on average, by variable.
    pub mean_accesses: BTreeMap<VarId, f64>,
}

impl Profile {
    /// `k_q` of every variable, by [`VarId`].
    pub fn access_bounds(&self) -> Vec<u64> {
        self.vars.iter().map(|v| v.max_accesses).collect()
    }
}

/// Counts accesses per variable while a random scheduler decides: the
/// scheduler of one preparatory run.
pub struct Counting {
    inner: RandomScheduler,
    accesses: Vec<u64>,
    /// The threads that touched each variable this run (few: a linear set).
    touched_by: Vec<Vec<ThreadId>>,
    tracked_accesses: u64,
    writes: Vec<u64>,
    /// Per thread this run: steps, parent, tracked accesses per variable.
    steps: Vec<u64>,
    parents: Vec<Option<ThreadId>>,
    spawn_sites: Vec<Option<Loc>>,
    by_thread: BTreeMap<(ThreadId, VarId), u64>,
}

impl Counting {
    fn new(n_vars: usize) -> Counting {
        Counting {
            inner: RandomScheduler::new(0),
            accesses: vec![0; n_vars],
            touched_by: vec![Vec::new(); n_vars],
            tracked_accesses: 0,
            writes: vec![0; n_vars],
            steps: Vec::new(),
            parents: Vec::new(),
            spawn_sites: Vec::new(),
            by_thread: BTreeMap::new(),
        }
    }

    fn empty() -> Counting {
        Counting::new(0)
    }

    /// Start a run.
    fn reset(&mut self, seed: u64) {
        self.inner = RandomScheduler::new(seed);
        self.accesses.iter_mut().for_each(|a| *a = 0);
        self.touched_by.iter_mut().for_each(Vec::clear);
        self.tracked_accesses = 0;
        self.writes.iter_mut().for_each(|w| *w = 0);
        self.steps.clear();
        self.parents.clear();
        self.spawn_sites.clear();
        self.by_thread.clear();
    }

    fn thread(&mut self, thread: ThreadId) {
        if self.steps.len() <= thread.index() {
            self.steps.resize(thread.index() + 1, 0);
            self.parents.resize(thread.index() + 1, None);
            self.spawn_sites.resize(thread.index() + 1, None);
        }
    }

    /// Make room for `var` (a front end that meets variables as it runs,
    /// as the Rust runtime does).
    fn var(&mut self, var: VarId) {
        if self.accesses.len() <= var.index() {
            let n = var.index() + 1;
            self.accesses.resize(n, 0);
            self.touched_by.resize(n, Vec::new());
            self.writes.resize(n, 0);
        }
    }
}

impl Scheduler for Counting {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some(thread) = point.last {
            self.thread(thread);
            self.steps[thread.index()] += 1;
            if point.event.kind == crate::EventKind::Spawn {
                let child = ThreadId(point.threads as u32 - 1);
                self.thread(child);
                self.parents[child.index()] = Some(thread);
                self.spawn_sites[child.index()] = point.event.loc;
            }
        }
        if let (Some(var), Some(thread), true) = (point.event.var, point.last, point.event.tracked)
        {
            self.var(var);
            self.accesses[var.index()] += 1;
            self.tracked_accesses += 1;
            if point.event.kind.modifies() {
                self.writes[var.index()] += 1;
            }
            *self.by_thread.entry((thread, var)).or_insert(0) += 1;
            let threads = &mut self.touched_by[var.index()];
            if !threads.contains(&thread) {
                threads.push(thread);
            }
        }
        self.inner.choose(point)
    }
}

/// Per thread id, sums over the runs so far.
#[derive(Default)]
struct ThreadTotals {
    parents: Vec<Option<ThreadId>>,
    spawn_sites: Vec<Option<Loc>>,
    steps: Vec<u64>,
    accesses: BTreeMap<(ThreadId, VarId), u64>,
}

impl ThreadTotals {
    fn add_run(&mut self, run: &Counting, n_threads: usize) {
        let n = n_threads.max(run.steps.len());
        if self.steps.len() < n {
            self.steps.resize(n, 0);
            self.parents.resize(n, None);
            self.spawn_sites.resize(n, None);
        }
        for (t, steps) in run.steps.iter().enumerate() {
            self.steps[t] += steps;
        }
        for (t, parent) in run.parents.iter().enumerate() {
            if parent.is_some() {
                self.parents[t] = *parent;
            }
        }
        for (t, site) in run.spawn_sites.iter().enumerate() {
            if site.is_some() {
                self.spawn_sites[t] = *site;
            }
        }
        for (key, count) in &run.by_thread {
            *self.accesses.entry(*key).or_insert(0) += count;
        }
    }

    fn means(self, runs: u64) -> Vec<ThreadProfile> {
        let per_run = |total: u64| {
            if runs == 0 {
                0.0
            } else {
                total as f64 / runs as f64
            }
        };
        let mut threads: Vec<ThreadProfile> = self
            .steps
            .iter()
            .zip(self.parents.iter().zip(&self.spawn_sites))
            .map(|(steps, (parent, spawn_site))| ThreadProfile {
                parent: *parent,
                spawn_site: *spawn_site,
                mean_steps: per_run(*steps),
                mean_accesses: BTreeMap::new(),
            })
            .collect();
        for ((thread, var), count) in self.accesses {
            threads[thread.index()]
                .mean_accesses
                .insert(var, per_run(count));
        }
        threads
    }
}

/// The preparatory runs of any front end: hands out the counting
/// scheduler of each run and sums what the runs saw into a [`Profile`].
pub struct Profiler {
    counting: Counting,
    result: Profile,
    totals: Vec<u64>,
    threads: ThreadTotals,
    instances: BTreeSet<InstanceKey>,
}

/// What a front end tells the profiler at the end of a run.
pub struct RunEnd<'a> {
    /// Threads the run created.
    pub threads: usize,
    /// Its scheduling points.
    pub steps: u64,
    /// Its failure, if it failed.
    pub failure: Option<Failure>,
    /// The heap instances it made (VM only).
    pub instances: &'a [InstanceKey],
}

impl Profiler {
    /// A profiler for a program of `n_vars` variables (more may appear).
    pub fn new(n_vars: usize) -> Profiler {
        Profiler {
            counting: Counting::new(n_vars),
            result: Profile {
                runs: 0,
                max_threads: 0,
                max_accesses: 0,
                max_steps: 0,
                vars: vec![VarProfile::default(); n_vars],
                failure: None,
                instances: Vec::new(),
                threads: Vec::new(),
            },
            totals: vec![0; n_vars],
            threads: ThreadTotals::default(),
            instances: BTreeSet::new(),
        }
    }

    /// The scheduler of the next run, seeded `seed`; every variable must
    /// be tracked. Give it back to [`Profiler::end_run`].
    pub fn start_run(&mut self, seed: u64) -> Counting {
        let mut counting = std::mem::replace(&mut self.counting, Counting::empty());
        counting.reset(seed);
        counting
    }

    /// Add the run just done under `counting` to the sums.
    pub fn end_run(&mut self, counting: Counting, end: RunEnd<'_>) {
        self.counting = counting;
        let counting = &self.counting;
        self.threads.add_run(counting, end.threads);
        let result = &mut self.result;
        result.runs += 1;
        result.max_threads = result.max_threads.max(end.threads);
        result.max_accesses = result.max_accesses.max(counting.tracked_accesses);
        result.max_steps = result.max_steps.max(end.steps);
        self.instances.extend(end.instances.iter().copied());
        let n = counting.accesses.len().max(result.vars.len());
        result.vars.resize(n, VarProfile::default());
        self.totals.resize(n, 0);
        for (v, var) in result.vars.iter_mut().enumerate() {
            let accesses = counting.accesses.get(v).copied().unwrap_or(0);
            let touched = counting.touched_by.get(v).map_or(0, Vec::len);
            var.max_accesses = var.max_accesses.max(accesses);
            var.max_threads = var.max_threads.max(touched);
            self.totals[v] += accesses;
            var.writes += counting.writes.get(v).copied().unwrap_or(0);
        }
        if result.failure.is_none() {
            result.failure = end.failure;
        }
    }

    /// What the runs saw, for a program of (at least) `n_vars` variables.
    pub fn finish(self, n_vars: usize) -> Profile {
        let mut result = self.result;
        if result.vars.len() < n_vars {
            result.vars.resize(n_vars, VarProfile::default());
        }
        result.instances = self.instances.into_iter().collect();
        result
            .instances
            .sort_by_key(|key| (key.index, key.var, key.context));
        result.threads = self.threads.means(result.runs);
        let runs = result.runs;
        for (v, var) in result.vars.iter_mut().enumerate() {
            let total = self.totals.get(v).copied().unwrap_or(0);
            var.mean_accesses = if runs == 0 {
                0.0
            } else {
                total as f64 / runs as f64
            };
        }
        result
    }
}

/// Run `exe` (which should track every variable) `runs` times under the
/// random scheduler seeded from `seed`, and summarise what was seen.
pub fn profile(exe: &Executable, runs: u64, seed: u64, limits: Limits) -> Profile {
    let n_vars = exe.program().n_vars();
    let mut vm = Vm::new(exe, limits);
    vm.record_instances();
    let mut profiler = Profiler::new(n_vars);
    for run in 0..runs {
        let seed = run_seed(seed, run);
        let mut counting = profiler.start_run(seed);
        let outcome = vm.run(&mut counting);
        let failure = match outcome {
            Outcome::Bug(bug) => Some(Failure {
                run: run + 1,
                run_seed: seed,
                bug,
                schedule: vm.schedule().to_vec(),
            }),
            _ => None,
        };
        profiler.end_run(
            counting,
            RunEnd {
                threads: vm.n_threads(),
                steps: vm.schedule().len() as u64,
                failure,
                instances: vm.instances(),
            },
        );
    }
    profiler.finish(n_vars)
}

/// The variables worth choosing among: those some preparatory run
/// accessed. A variable never accessed cannot be where a preemption happens.
pub fn accessed_vars(profile: &Profile) -> Vec<VarId> {
    profile
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.max_accesses > 0)
        .map(|(i, _)| VarId(i as u32))
        .collect()
}
