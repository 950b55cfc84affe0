//! Differential tests: the engine against the reference interpreter on
//! generated programs, as wasmtime is fuzzed against the WebAssembly
//! reference interpreter.
//!
//! For every program the generator draws (2,000 in CI; set
//! `RANKCHECK_DIFFERENTIAL_PROGRAMS` for a longer run):
//!
//! - (a) every schedule the VM runs, under the random scheduler, PCT, PCTVB
//!   over random variable subsets (instrumented through the real alias
//!   analysis) and thread-bounded priorities, replays in the reference with
//!   the same outcome (pass, or the same kind, thread, line, message and
//!   blocked threads);
//! - (b) the set of failures the reference's model checker reaches equals
//!   what the engine's unbounded exploration finds, with pruning on and off;
//! - (c) the engine's classification (the paper's (c, v) order over
//!   variable subsets, what `rankcheck classify` runs) gives the reference's
//!   minimal preemption count, and its failure is one the reference reaches
//!   at that count;
//! - (d) nothing panics (a panic fails the test).
//!
//! Programs that hit a step limit or exceed a search budget on either side
//! are skipped and counted; the test checks that most programs are compared
//! and that failures of every kind occur, so that it cannot pass vacuously.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rankcheck_engine::explore::{
    all_orders, classify, explore_every_schedule, priority_orders, random_orders, ExploreConfig,
};
use rankcheck_engine::outcome::Bug;
use rankcheck_engine::pos::PosScheduler;
use rankcheck_engine::profile::{profile, Profile};
use rankcheck_engine::walk::{draw_target, surw_targets, EventCounts, SurwScheduler, UrwScheduler};
use rankcheck_engine::{
    BugKind, EventKind, Executable, Instrumentation, Limits, Outcome, Pending, Point,
    PriorityScheduler, PriorityScheme, Program, RandomScheduler, Scheduler, ThreadId, VarId, Vm,
};
use rankcheck_generate as generate;
use rankcheck_instr::{compile, PointsTo, Tracking};
use rankcheck_reference::{Budget, Failure, Kind, Reference, Replayed, Tracked, VarKey};

/// Programs per run unless `RANKCHECK_DIFFERENTIAL_PROGRAMS` says more.
const PROGRAMS: u32 = 2_000;

/// The highest preemption bound compared.
const MAX_C: u32 = 3;

/// Both sides' per-execution limit: far above what a generated program
/// takes, so that hitting it means a program is skipped, not misjudged.
const LIMITS: Limits = Limits {
    max_steps: 20_000,
    max_call_depth: 1_000,
    max_threads: 64,
    max_heap_slots: 1 << 16,
};

const BUDGET: Budget = Budget {
    max_states: 200_000,
    max_ops_per_execution: 20_000,
};

/// Schedules an engine exploration may run before the program is skipped.
const MAX_SCHEDULES: u64 = 200_000;

/// Schedules the unpruned exploration may run; past it only that
/// comparison is skipped (it is exponential by design).
const MAX_UNPRUNED: u64 = 20_000;

/// One generated program, on both sides.
struct Subject {
    source: String,
    program: Arc<Program>,
    reference: Reference,
    points_to: PointsTo,
    profile: Profile,
    /// Byte offsets where lines start.
    line_starts: Vec<usize>,
}

impl Subject {
    fn new(source: String) -> Subject {
        let program = compile(&source, &[])
            .unwrap_or_else(|e| panic!("a generated program compiles: {e:?}\n{source}"));
        let program = Arc::new(program);
        let reference = Reference::new(&source, &[])
            .unwrap_or_else(|e| panic!("a generated program resolves: {e}\n{source}"));
        let points_to = PointsTo::analyze(&program);
        let all = Executable::new(program.clone(), &Instrumentation::all(&program));
        let profile = profile(&all, 10, 7, LIMITS);
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Subject {
            source,
            program,
            reference,
            points_to,
            profile,
            line_starts,
        }
    }

    fn line(&self, offset: u32) -> u32 {
        self.line_starts.partition_point(|&s| s <= offset as usize) as u32
    }

    /// The engine's bug in the reference's terms.
    fn failure(&self, bug: &Bug) -> Failure {
        let kind = match bug.kind {
            BugKind::Assert => Kind::Assert,
            BugKind::Error => Kind::Error,
            BugKind::Deadlock => Kind::Deadlock,
            BugKind::StepLimit => Kind::StepLimit,
        };
        let message = (bug.kind == BugKind::Assert && bug.message != "assertion failed")
            .then(|| bug.message.clone());
        let mut blocked: Vec<(u32, u32)> = bug
            .blocked
            .iter()
            .map(|b| (b.thread.0, self.line(b.span.start)))
            .collect();
        blocked.sort_unstable();
        Failure {
            kind,
            thread: bug.thread.0,
            line: self.line(bug.span.start),
            message,
            blocked,
        }
    }

    /// How the reference names variable `var`.
    fn key(&self, var: VarId) -> VarKey {
        let v = &self.program.vars[var.index()];
        if v.kind.is_allocation_site() {
            VarKey::Alloc(v.span.start as usize)
        } else {
            VarKey::Decl(v.name.clone())
        }
    }

    /// The executable tracking `vars` (`None`: every one), instrumented
    /// through the alias analysis as a search is.
    fn executable(&self, vars: Option<&[VarId]>) -> Executable {
        let instrumentation = match vars {
            None => Instrumentation::all(&self.program),
            Some(vars) => Tracking::Vars(vars.iter().copied().collect())
                .instrumentation(&self.program, &self.points_to),
        };
        Executable::new(self.program.clone(), &instrumentation)
    }
}

/// What comparing one program gave.
#[derive(Default)]
struct Tally {
    seconds: [f64; 3],
    programs: u32,
    skipped: BTreeMap<&'static str, u32>,
    replays: u64,
    with_failures: u32,
    kinds: BTreeSet<String>,
    by_c: BTreeMap<Option<u32>, u32>,
}

impl Tally {
    fn skip(&mut self, why: &'static str) {
        *self.skipped.entry(why).or_default() += 1;
    }

    /// Add `other`'s counts (another thread's share of the programs).
    fn absorb(&mut self, other: Tally) {
        for (mine, theirs) in self.seconds.iter_mut().zip(other.seconds) {
            *mine += theirs;
        }
        self.programs += other.programs;
        for (why, n) in other.skipped {
            *self.skipped.entry(why).or_default() += n;
        }
        self.replays += other.replays;
        self.with_failures += other.with_failures;
        self.kinds.extend(other.kinds);
        for (c, n) in other.by_c {
            *self.by_c.entry(c).or_default() += n;
        }
    }
}

/// A skipped program, and why.
struct Skip(&'static str);

/// (a) Run the VM under `scheduler` and replay its schedule in the
/// reference: the same outcome.
fn replay_matches(
    subject: &Subject,
    exe: &Executable,
    tracked: &Tracked,
    scheduler: &mut impl Scheduler,
    what: &str,
) -> Result<(), Skip> {
    let mut vm = Vm::new(exe, LIMITS);
    let outcome = vm.run(scheduler);
    let schedule: Vec<u32> = vm.schedule().iter().map(|t| t.0).collect();
    let replayed = subject
        .reference
        .replay(&schedule, tracked, BUDGET.max_ops_per_execution);
    let engine = match &outcome {
        Outcome::Pass { .. } => None,
        Outcome::Bug(bug) if bug.kind == BugKind::StepLimit => return Err(Skip("step limit")),
        Outcome::Bug(bug) => Some(subject.failure(bug)),
        Outcome::Diverged { .. } => panic!("{what}: a strategy diverged\n{}", subject.source),
    };
    let reference = match replayed {
        Replayed::Pass => None,
        Replayed::Fail(failure) if failure.kind == Kind::StepLimit => {
            return Err(Skip("step limit"))
        }
        Replayed::StepLimit => return Err(Skip("step limit")),
        Replayed::Fail(failure) => Some(failure),
        other => panic!(
            "{what}: the reference cannot replay the engine's schedule {schedule:?}: {other:?}\n{}",
            subject.source
        ),
    };
    assert_eq!(
        engine, reference,
        "{what}: schedule {schedule:?} ends differently (engine, reference)\n{}",
        subject.source
    );
    Ok(())
}

/// (a) for every strategy, a few seeds each.
fn check_replays(subject: &Subject, tally: &mut Tally) -> Result<(), Skip> {
    let program = &subject.program;
    let n = subject.profile.max_threads.max(1);
    let k = subject.profile.max_accesses.max(1);
    let all = subject.executable(None);
    for seed in 0..3u64 {
        replay_matches(
            subject,
            &all,
            &Tracked::All,
            &mut RandomScheduler::new(seed),
            "random",
        )?;
        for (scheme, depth) in [
            (PriorityScheme::Pct, 2),
            (PriorityScheme::Pct, 3),
            (PriorityScheme::ThreadBounded, 3),
        ] {
            let mut scheduler = PriorityScheduler::new(seed, scheme, depth, n, k);
            replay_matches(subject, &all, &Tracked::All, &mut scheduler, scheme.name())?;
        }
        // PCTVB over a subset of the variables, drawn from the seed.
        let vars: Vec<VarId> = (0..program.n_vars())
            .map(|i| VarId(i as u32))
            .filter(|v| (seed + u64::from(v.0)) % 3 != 0)
            .collect();
        let exe = subject.executable(Some(&vars));
        let tracked = Tracked::Vars(vars.iter().map(|&v| subject.key(v)).collect());
        let window: u64 = vars
            .iter()
            .map(|v| subject.profile.vars[v.index()].max_accesses)
            .sum();
        let mut scheduler = PriorityScheduler::new(seed, PriorityScheme::Pct, 3, n, window.max(1));
        replay_matches(subject, &exe, &tracked, &mut scheduler, "pctvb")?;
        check_sampling(subject, &all, seed)?;
        tally.replays += 8;
    }
    Ok(())
}

/// (a) for the schedulers that look ahead at pending operations (POS
/// and its weighted and sticky variants, URW, SURW and kind-weighted SURW): looking ahead leaves no trace, so the schedule they pick
/// replays in the reference to the same end; and each step a thread takes
/// does what its pending operation said it would.
fn check_sampling(subject: &Subject, all: &Executable, seed: u64) -> Result<(), Skip> {
    let profile = &subject.profile;
    let steps = Arc::new(EventCounts::steps(profile));
    let targets = surw_targets(profile);
    let target = draw_target(&targets, seed);
    let counts =
        Arc::new(target.map_or_else(EventCounts::default, |v| EventCounts::accesses(profile, v)));
    let what = |name: &str| format!("{name} (seed {seed})");
    let mut pos = Audited::new(PosScheduler::new(seed));
    replay_matches(subject, all, &Tracked::All, &mut pos, &what("pos"))?;
    pos.verdict(subject, "pos");
    let mut wpos = Audited::new(PosScheduler::weighted(seed, steps.clone()));
    replay_matches(subject, all, &Tracked::All, &mut wpos, &what("wpos"))?;
    wpos.verdict(subject, "wpos");
    let mut swpos = Audited::new(PosScheduler::sticky(seed, steps.clone()));
    replay_matches(subject, all, &Tracked::All, &mut swpos, &what("swpos"))?;
    swpos.verdict(subject, "swpos");
    let mut urw = Audited::new(UrwScheduler::new(seed, steps.clone()));
    replay_matches(subject, all, &Tracked::All, &mut urw, &what("urw"))?;
    urw.verdict(subject, "urw");
    let mut surw = Audited::new(SurwScheduler::new(seed, target, counts, steps.clone()));
    replay_matches(subject, all, &Tracked::All, &mut surw, &what("surw"))?;
    surw.verdict(subject, "surw");
    let by_kind = Arc::new(target.map_or_else(EventCounts::default, |v| {
        EventCounts::accesses_by_kind(profile, v)
    }));
    let mut ksurw = Audited::new(SurwScheduler::new(seed, target, by_kind, steps).refining());
    replay_matches(subject, all, &Tracked::All, &mut ksurw, &what("ksurw"))?;
    ksurw.verdict(subject, "ksurw");
    Ok(())
}

/// Wraps a scheduler that asks for pending operations, and checks at each
/// point that the step just taken did what the previous point said.
struct Audited<S> {
    inner: S,
    said: Option<(ThreadId, Pending)>,
    /// The first step that did not do what was said.
    wrong: Option<String>,
}

impl<S: Scheduler> Audited<S> {
    fn new(inner: S) -> Self {
        Audited {
            inner,
            said: None,
            wrong: None,
        }
    }

    fn verdict(&self, subject: &Subject, what: &str) {
        if let Some(wrong) = &self.wrong {
            panic!("{what}: {wrong}\n{}", subject.source);
        }
    }

    /// Whether the step that ended at `point` did what `said` announced.
    fn check(point: &Point<'_>, said: &Pending) -> Result<(), String> {
        let event = point.event;
        let access = matches!(
            event.kind,
            EventKind::Read
                | EventKind::Write
                | EventKind::Lock
                | EventKind::Unlock
                | EventKind::Wait
                | EventKind::Signal
                | EventKind::Broadcast
        );
        let agrees =
            said.location.is_some() && said.var == event.var && said.write == event.kind.modifies();
        if access && !agrees {
            return Err(format!(
                "step {} ({event:?}) was announced as {said:?}",
                point.step
            ));
        }
        Ok(())
    }
}

impl<S: Scheduler> Scheduler for Audited<S> {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some((thread, said)) = self.said.take() {
            assert_eq!(Some(thread), point.last, "the chosen thread ran");
            if let (Err(wrong), None) = (Self::check(point, &said), &self.wrong) {
                self.wrong = Some(wrong);
            }
        }
        let chosen = self.inner.choose(point);
        self.said = point.pending(chosen).map(|p| (chosen, *p));
        chosen
    }

    fn wants_pending(&self) -> bool {
        self.inner.wants_pending()
    }
}

/// The engine's exploration configuration.
fn config(subject: &Subject, prune: bool, finish_bound: bool) -> ExploreConfig {
    ExploreConfig {
        preemptions: 0,
        n_threads: subject.profile.max_threads.max(1),
        limits: LIMITS,
        prune,
        finish_bound,
        max_schedules: MAX_SCHEDULES,
        max_memory: 1 << 30,
        jobs: 1,
    }
}

/// (b) The reference's reachable failures equal the engine's unbounded
/// exploration's, pruned and not.
fn check_reachable(subject: &Subject, tally: &mut Tally) -> Result<BTreeSet<Failure>, Skip> {
    let reference = subject
        .reference
        .reachable_failures(&BUDGET)
        .map_err(|_| Skip("reference budget"))?;
    if reference.iter().any(|f| f.kind == Kind::StepLimit) {
        return Err(Skip("step limit"));
    }
    let exe = Executable::new(
        subject.program.clone(),
        &Instrumentation::all(&subject.program).observing_all(),
    );
    for prune in [true, false] {
        let mut config = config(subject, prune, true);
        if !prune {
            config.max_schedules = MAX_UNPRUNED;
        }
        let explored = explore_every_schedule(&exe, &config, &|_| true);
        match (explored.exhausted, prune) {
            (true, _) => {}
            (false, true) => return Err(Skip("engine schedules")),
            (false, false) => {
                tally.skip("unpruned comparison only");
                continue;
            }
        }
        let engine: BTreeSet<Failure> = explored
            .bugs
            .iter()
            .map(|b| subject.failure(&b.bug))
            .collect();
        if engine.iter().any(|f| f.kind == Kind::StepLimit) {
            return Err(Skip("step limit"));
        }
        assert_eq!(
            engine, reference,
            "reachable failures differ (engine with prune = {prune}, reference)\n{}",
            subject.source
        );
    }
    if !reference.is_empty() {
        tally.with_failures += 1;
    }
    tally
        .kinds
        .extend(reference.iter().map(|f| format!("{:?}", f.kind)));
    Ok(reference)
}

/// Every order of `n + c` fragments when few enough, else a fixed sample;
/// what `rankcheck classify` does.
fn orders(n: usize, c: u32) -> Vec<Vec<i64>> {
    let (orders, _) = priority_orders(n, c, || 2_000, 0);
    orders
}

/// (c) The engine's classification gives the reference's minimal c, and a
/// failure the reference reaches at that c.
fn check_min_c(subject: &Subject, tally: &mut Tally) -> Result<(), Skip> {
    let reference = subject
        .reference
        .min_preemptions(MAX_C, &BUDGET)
        .map_err(|_| Skip("reference budget"))?;
    let executable = |vars: &[VarId]| {
        let instrumentation = Tracking::Vars(vars.iter().copied().collect())
            .instrumentation(&subject.program, &subject.points_to)
            .observing_all();
        Executable::new(subject.program.clone(), &instrumentation)
    };
    let classified = classify(
        &subject.profile,
        &executable,
        &orders,
        &config(subject, true, true),
        MAX_C,
        &|_| true,
    );
    if classified.round.result.stopped.is_some() {
        return Err(Skip("engine schedules"));
    }
    let engine = classified
        .round
        .result
        .failing
        .as_ref()
        .map(|(_, explored)| {
            let bug = &explored.bugs[0];
            (classified.c, subject.failure(&bug.bug))
        });
    match (engine, reference) {
        (None, None) => tally.by_c.entry(None).and_modify(|n| *n += 1).or_insert(1),
        (Some((c, failure)), Some((min_c, failures))) => {
            assert_eq!(
                c, min_c,
                "minimal c differs (engine, reference)\n{}",
                subject.source
            );
            assert!(
                failures.contains(&failure),
                "the engine's failure at c = {c} is not one the reference reaches there: {failure:?} not in {failures:?}\n{}",
                subject.source
            );
            tally
                .by_c
                .entry(Some(c))
                .and_modify(|n| *n += 1)
                .or_insert(1)
        }
        (engine, reference) => panic!(
            "classification differs: engine {engine:?}, reference {reference:?}\n{}",
            subject.source
        ),
    };
    Ok(())
}

/// Compare one program; a skip is counted, a difference panics.
fn compare(source: String, tally: &mut Tally) {
    let subject = Subject::new(source);
    tally.programs += 1;
    let timed = |tally: &mut Tally, i: usize, f: &dyn Fn(&mut Tally) -> Result<(), Skip>| {
        let started = std::time::Instant::now();
        let result = f(tally);
        tally.seconds[i] += started.elapsed().as_secs_f64();
        result
    };
    let result = timed(tally, 0, &|t| check_replays(&subject, t))
        .and_then(|()| timed(tally, 1, &|t| check_reachable(&subject, t).map(|_| ())))
        .and_then(|()| timed(tally, 2, &|t| check_min_c(&subject, t)));
    if let Err(Skip(why)) = result {
        tally.skip(why);
    }
}

/// [`compare`] every program, the programs shared out among the cores.
fn compare_in_parallel(sources: Vec<String>) -> Tally {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = sources.len().div_ceil(cores).max(1);
    let mut tally = Tally::default();
    std::thread::scope(|scope| {
        let workers: Vec<_> = sources
            .chunks(share)
            .map(|programs| {
                scope.spawn(move || {
                    let mut tally = Tally::default();
                    for source in programs {
                        compare(source.clone(), &mut tally);
                    }
                    tally
                })
            })
            .collect();
        for worker in workers {
            // A difference panics in its worker: the same panic here.
            let share = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            tally.absorb(share);
        }
    });
    tally
}

fn programs_to_check() -> u32 {
    std::env::var("RANKCHECK_DIFFERENTIAL_PROGRAMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(PROGRAMS)
}

/// (a), (b), (c) and (d) on generated programs, from a fixed seed.
#[test]
fn the_engine_agrees_with_the_reference_on_generated_programs() {
    let count = programs_to_check();
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let strategy = generate::program();
    // Drawn in order from the one seed, then compared on every core: each
    // comparison depends on its program alone (its seeds are its own).
    let sources: Vec<String> = (0..count)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("the generator draws a program")
                .current()
        })
        .collect();
    let tally = compare_in_parallel(sources);
    let skipped: u32 = tally
        .skipped
        .iter()
        .filter(|(why, _)| **why != "unpruned comparison only")
        .map(|(_, n)| n)
        .sum();
    eprintln!(
        "differential: {} programs, {} skipped {:?}, {} replays, {} with failures, kinds {:?}, minimal c {:?}; seconds in (a) (b) (c), summed over threads: {:.1?}",
        tally.programs, skipped, tally.skipped, tally.replays, tally.with_failures, tally.kinds, tally.by_c, tally.seconds
    );
    // Not vacuous: most programs are compared, a good share fail, every
    // kind of failure occurs, and bugs needing preemptions are among them.
    assert!(
        skipped * 10 <= tally.programs,
        "too many skipped: {skipped}"
    );
    assert!(
        tally.with_failures * 4 >= tally.programs,
        "too few failing programs"
    );
    for kind in ["Assert", "Deadlock", "Error"] {
        assert!(
            tally.kinds.contains(kind),
            "no {kind} failure among the programs"
        );
    }
    let needing_preemptions: u32 = tally
        .by_c
        .iter()
        .filter(|(c, _)| c.is_some_and(|c| c >= 1))
        .map(|(_, n)| n)
        .sum();
    assert!(
        needing_preemptions * 20 >= tally.programs,
        "too few bugs needing a preemption"
    );
}

/// The project's hand-written programs (`tests/programs`, `tests/errors`
/// but those refused at compile time, `tests/bugs`, `tests/explore`), each
/// a rule of docs/LANGUAGE.md pinned down: (a), (b), (c) and (d) as for the
/// generated programs. None may be skipped, but for the step limit a
/// program reports on purpose. `RANKCHECK_DIFFERENTIAL_DIR` names one more
/// directory of `.rk` files to compare (any header, or none).
#[test]
fn the_engine_agrees_with_the_reference_on_the_project_programs() {
    let mut paths: Vec<std::path::PathBuf> = [
        "tests/programs",
        "tests/errors",
        "tests/bugs",
        "tests/explore",
    ]
    .iter()
    .flat_map(|dir| super::rk_files(dir))
    .filter(|path| {
        let source = std::fs::read_to_string(path).expect("readable program");
        super::header(&source)[0] != "compile"
    })
    .collect();
    if let Ok(dir) = std::env::var("RANKCHECK_DIFFERENTIAL_DIR") {
        paths.extend(super::rk_files_in(std::path::Path::new(&dir)));
    }
    for path in paths {
        let source = std::fs::read_to_string(&path).expect("readable program");
        let mut tally = Tally::default();
        compare(source.clone(), &mut tally);
        let skipped: Vec<_> = tally
            .skipped
            .keys()
            .filter(|why| **why != "unpruned comparison only")
            .collect();
        let step_limit = source.starts_with("// expect: step-limit");
        assert!(
            skipped.is_empty() || (step_limit && skipped == [&"step limit"]),
            "{}: skipped {skipped:?}",
            path.display()
        );
    }
}

/// The orders helpers agree with the engine's choice (keeps the imports
/// honest when the sample size changes).
#[test]
fn few_fragments_are_enumerated() {
    assert_eq!(orders(3, 1), all_orders(4));
    assert_eq!(random_orders(3, 0, 1).len(), 0);
}
