//! The reference interpreter's integration tests: the example programs and
//! the project's test programs against their `// expect:` headers, the
//! programs of the bug report, hand-written replays, and property tests
//! over generated programs.

mod differential;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rankcheck_generate as generate;
use rankcheck_reference::{Budget, Failure, Kind, RefError, Reference, Replayed, Tracked, VarKey};

/// Enough for every program here; the examples need at most a few
/// thousand states.
const BUDGET: Budget = Budget {
    max_states: 1_000_000,
    max_ops_per_execution: 100_000,
};

/// Every variable tracked, and room for any of the small programs here.
const MAX_OPS: u64 = 10_000;

fn reference(source: &str) -> Reference {
    match Reference::new(source, &[]) {
        Ok(reference) => reference,
        Err(error) => panic!("the program should resolve: {error}\n{source}"),
    }
}

fn kinds(failures: &BTreeSet<Failure>) -> BTreeSet<Kind> {
    failures.iter().map(|failure| failure.kind).collect()
}

fn rk_files(dir: &str) -> Vec<PathBuf> {
    rk_files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir))
}

/// The `.rk` files of `dir`, sorted.
fn rk_files_in(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rk"))
        .collect();
    paths.sort();
    paths
}

/// The words after `// expect:` on the first line.
fn header(source: &str) -> Vec<String> {
    let first = source.lines().next().unwrap_or_default();
    let rest = first
        .strip_prefix("// expect:")
        .unwrap_or_else(|| panic!("no `// expect:` header: {first}"));
    rest.split_whitespace().map(str::to_string).collect()
}

fn kind_named(word: &str) -> Option<Kind> {
    match word {
        "assert" => Some(Kind::Assert),
        "error" => Some(Kind::Error),
        "deadlock" => Some(Kind::Deadlock),
        "step-limit" => Some(Kind::StepLimit),
        "ok" => None,
        other => panic!("unknown kind `{other}` in a header"),
    }
}

/// `examples/*.rk`: the kind is reachable (nothing for `ok`) and the
/// minimal preemption bound is the header's `c`.
#[test]
fn examples_match_their_headers() {
    for path in rk_files("examples") {
        let source = fs::read_to_string(&path).expect("readable example");
        let words = header(&source);
        // corner_variable's bug does not depend on HOT (its loops only
        // lengthen both threads); 50 iterations make the state space too
        // big for a debug test, 2 keep the structure.
        let defines = if path.ends_with("corner_variable.rk") {
            vec![("HOT".to_string(), 2)]
        } else {
            Vec::new()
        };
        let program = Reference::new(&source, &defines).expect("the example resolves");
        let failures = program.reachable_failures(&BUDGET).expect("within budget");
        let name = path.display();
        match kind_named(&words[0]) {
            None => assert!(failures.is_empty(), "{name}: {failures:?}"),
            Some(kind) => {
                assert!(kinds(&failures).contains(&kind), "{name}: {failures:?}");
                let c: u32 = words[1]
                    .strip_prefix("c=")
                    .and_then(|c| c.parse().ok())
                    .unwrap_or_else(|| panic!("{name}: no c= in the header"));
                let found = program.min_preemptions(3, &BUDGET).expect("within budget");
                let (bound, at_bound) = found.unwrap_or_else(|| panic!("{name}: no bound"));
                assert_eq!(bound, c, "{name}");
                assert!(kinds(&at_bound).contains(&kind), "{name}: {at_bound:?}");
                assert!(at_bound.is_subset(&failures), "{name}");
            }
        }
    }
}

/// The ok example has no failure under any bound: checked up to 1 here, as
/// the unbounded search above already found none at all.
#[test]
fn the_locked_counter_has_no_bound() {
    let path = rk_files("examples")
        .into_iter()
        .find(|path| path.ends_with("locked_counter_ok.rk"))
        .expect("the example exists");
    let source = fs::read_to_string(path).expect("readable example");
    let program = Reference::new(&source, &[("N".to_string(), 2)]).expect("resolves");
    assert_eq!(program.min_preemptions(1, &BUDGET), Ok(None));
}

/// `tests/errors`, `tests/programs` and `tests/explore`: the kind and line
/// of each header (`compile N`: refused at line N).
#[test]
fn project_test_programs_match_their_headers() {
    let dirs = ["tests/errors", "tests/programs", "tests/explore"];
    for path in dirs.iter().flat_map(|dir| rk_files(dir)) {
        let source = fs::read_to_string(&path).expect("readable program");
        let words = header(&source);
        let name = path.display();
        let resolved = Reference::new(&source, &[]);
        if words[0] == "compile" {
            let line: u32 = words[1].parse().expect("a line");
            match resolved {
                Err(RefError::Invalid { line: at, .. }) => assert_eq!(at, line, "{name}"),
                Err(RefError::Syntax(_)) => {}
                other => panic!("{name}: should be refused, got {other:?}"),
            }
            continue;
        }
        let program = resolved.unwrap_or_else(|error| panic!("{name}: {error}"));
        let failures = program.reachable_failures(&BUDGET).expect("within budget");
        match kind_named(&words[0]) {
            None => assert!(failures.is_empty(), "{name}: {failures:?}"),
            Some(kind) => {
                let line: Option<u32> = words[1].parse().ok();
                let hit = failures
                    .iter()
                    .any(|f| f.kind == kind && line.is_none_or(|line| f.line == line));
                assert!(hit, "{name}: {failures:?}");
            }
        }
    }
}

/// Bug report 1: Peterson's algorithm is correct under sequential
/// consistency.
#[test]
fn petersons_algorithm_never_fails() {
    let program = reference(
        "global flag[2]; global turn = 0; global inside = 0;
        thread p[2](i) {
            let j = 1 - i;
            flag[i] = 1;
            turn = j;
            await !(flag[j] == 1 && turn == j);
            inside = inside + 1;
            assert(inside == 1, \"two threads in the critical section\");
            inside = inside - 1;
            flag[i] = 0;
        }",
    );
    assert_eq!(program.reachable_failures(&BUDGET), Ok(BTreeSet::new()));
    assert_eq!(program.min_preemptions(3, &BUDGET), Ok(None));
}

/// The one failure of a single-line program whose thread `thread` is the
/// only one left, blocked.
fn lone_deadlock(thread: u32) -> Failure {
    Failure {
        kind: Kind::Deadlock,
        thread,
        line: 1,
        message: None,
        blocked: vec![(thread, 1)],
    }
}

/// Bug report 2: `a` and `b` both read `n` before either writes it, so
/// `check` waits for `n == 2` forever. One preemption: `b` after its read
/// of `n`, while `a` (woken by `go = 1`) runs whole.
#[test]
fn a_lost_update_strands_the_checker_at_c1() {
    let program = reference(
        "global go = 0; global n = 0; thread a { await go == 1; n = n + 1; } \
         thread b { go = 1; n = n + 1; } thread check { await n == 2; }",
    );
    let expected = BTreeSet::from([lone_deadlock(2)]);
    assert_eq!(program.reachable_failures(&BUDGET), Ok(expected.clone()));
    assert_eq!(program.min_preemptions(3, &BUDGET), Ok(Some((1, expected))));
    // b stores go and reads n (preempted there); a passes its await, reads
    // and stores n and ends; b stores n and ends; check blocks.
    let schedule = [1, 1, 0, 0, 0, 0, 1, 1, 2];
    assert_eq!(
        program.replay(&schedule, &Tracked::All, MAX_OPS),
        Replayed::Fail(lone_deadlock(2))
    );
}

/// Bug report 3: `b` must read `x == 0` before the atomic block, write
/// `y = 0` after it, and evaluate its `await` after `a`'s `x = y` stored 0.
/// That is b | a | b | a | b, and every switch but the last (after `a`
/// ends) leaves a thread that could go on: three preemptions.
#[test]
fn the_atomic_then_copy_program_deadlocks_at_c3() {
    let program = reference(
        "global x = 0; global y = 0; thread a { atomic { y = 1; x = 1; } x = y; } \
         thread b { y = x; await x == 1; }",
    );
    let expected = BTreeSet::from([lone_deadlock(1)]);
    assert_eq!(program.reachable_failures(&BUDGET), Ok(expected.clone()));
    assert_eq!(program.min_preemptions(2, &BUDGET), Ok(None));
    assert_eq!(program.min_preemptions(3, &BUDGET), Ok(Some((3, expected))));
    // b reads x = 0; a runs the block; b stores y = 0; a reads y, stores
    // x = 0 and ends; b's await finds x == 0.
    let schedule = [1, 0, 1, 0, 0, 0, 1];
    assert_eq!(
        program.replay(&schedule, &Tracked::All, MAX_OPS),
        Replayed::Fail(lone_deadlock(1))
    );
}

/// Bug report 4: `inc` reads `g == 0`, is preempted (the one change
/// point), `main` spawns `waiter` and stores 2 and ends, `inc` stores 1,
/// and `waiter` finds `g == 1` for good.
#[test]
fn the_waiter_is_stranded_by_a_late_increment_at_c1() {
    let program = reference(
        "global g = 0; fn inc() { g = g + 1; } fn waiter() { await g != 1; } \
         fn main() { spawn inc(); spawn waiter(); g = 2; }",
    );
    let expected = BTreeSet::from([lone_deadlock(2)]);
    assert_eq!(program.reachable_failures(&BUDGET), Ok(expected.clone()));
    assert_eq!(program.min_preemptions(3, &BUDGET), Ok(Some((1, expected))));
    // The schedule of that execution: main spawns inc (a scheduling point,
    // not a change point); inc reads g; main spawns waiter, stores 2, ends;
    // inc stores 1, ends; waiter blocks.
    let schedule = [0, 1, 0, 0, 0, 1, 1, 2];
    assert_eq!(
        program.replay(&schedule, &Tracked::All, MAX_OPS),
        Replayed::Fail(lone_deadlock(2))
    );
}

const READER_WRITER: &str = "global a = 0;
thread reader {
    let t1 = a;
    let t2 = a;
    assert(t1 == t2, \"a changed\");
}
thread writer {
    a = a + 1;
}
";

fn tracking(names: &[&str]) -> Tracked {
    Tracked::Vars(names.iter().map(|n| VarKey::Decl(n.to_string())).collect())
}

fn assert_failure(line: u32, message: &str) -> Failure {
    Failure {
        kind: Kind::Assert,
        thread: 0,
        line,
        message: Some(message.to_string()),
        blocked: Vec::new(),
    }
}

/// With `a` tracked, every access is a step: reader's read, writer's read,
/// write and end, reader's second read, then the failing assert.
#[test]
fn tracked_accesses_end_steps() {
    let program = reference(READER_WRITER);
    let failing = [0, 1, 1, 1, 0, 0];
    let expected = Replayed::Fail(assert_failure(5, "a changed"));
    assert_eq!(program.replay(&failing, &Tracked::All, MAX_OPS), expected);
    assert_eq!(
        program.replay(&failing, &tracking(&["a"]), MAX_OPS),
        expected
    );
    let passing = [0, 0, 0, 1, 1, 1];
    assert_eq!(
        program.replay(&passing, &Tracked::All, MAX_OPS),
        Replayed::Pass
    );
    assert_eq!(
        program.replay(&[0, 2], &Tracked::All, MAX_OPS),
        Replayed::Diverged {
            point: 1,
            wanted: 2,
            enabled: vec![0, 1]
        }
    );
    assert_eq!(
        program.replay(&[0, 1], &Tracked::All, MAX_OPS),
        Replayed::Unfinished { point: 2 }
    );
}

/// Untracked, the reader's reads are no scheduling points: each thread is
/// one step, and the reads can no longer be split.
#[test]
fn untracked_accesses_do_not_end_steps() {
    let program = reference(READER_WRITER);
    let nothing = Tracked::Vars(BTreeSet::new());
    assert_eq!(program.replay(&[0, 1], &nothing, MAX_OPS), Replayed::Pass);
    assert_eq!(program.replay(&[1, 0], &nothing, MAX_OPS), Replayed::Pass);
    assert_eq!(
        program.replay(&[0], &nothing, MAX_OPS),
        Replayed::Unfinished { point: 1 }
    );
    assert_eq!(
        program.replay(&[0, 1, 1], &tracking(&["unknown"]), MAX_OPS),
        Replayed::Pass,
        "unknown keys are ignored; extra entries after the end too"
    );
}

/// Tracking one of two variables: only its accesses split the reader.
#[test]
fn a_tracked_subset_splits_steps_at_its_variables_only() {
    let program = reference(
        "global a = 0;
global b = 0;
thread reader {
    let t1 = a;
    let t2 = b;
    let t3 = a;
    assert(t1 == t3, \"a changed\");
}
thread writer {
    b = 1;
    a = 1;
}
",
    );
    // Tracking b: reader's step 1 reads a and b; writer's step 1 stores b;
    // its step 2 stores a and ends; reader's step 2 reads a = 1 and fails.
    let only_b = tracking(&["b"]);
    let expected = Replayed::Fail(assert_failure(7, "a changed"));
    assert_eq!(program.replay(&[0, 1, 1, 0], &only_b, MAX_OPS), expected);
    // Tracking a: the reader stops after its first read; the writer's
    // step stores b and a; the reader's second step reads b and a.
    let only_a = tracking(&["a"]);
    assert_eq!(program.replay(&[0, 1, 0, 0], &only_a, MAX_OPS), expected);
    assert_eq!(
        program.replay(&[0, 1, 0], &only_a, MAX_OPS),
        Replayed::Unfinished { point: 3 }
    );
}

/// An allocation site is tracked by the offset of its `new`.
#[test]
fn allocation_sites_are_tracked_by_offset() {
    let source = "global box = null;
fn main() {
    box = new { v: 0 };
    let h = spawn bump();
    let b = box;
    let first = b.v;
    let second = b.v;
    assert(first == second, \"v changed\");
    join(h);
}
fn bump() {
    let b = box;
    b.v = 1;
}
";
    let program = reference(source);
    let offset = source.find("new").expect("a new");
    assert!(program.variables().contains(&VarKey::Alloc(offset)));
    let site = Tracked::Vars(BTreeSet::from([VarKey::Alloc(offset)]));
    // main: store box, spawn (step 1, a synchronisation); read box and b.v
    // (step 2); bump: read box, store b.v, end (step 3, the store then the
    // end); main: read b.v again, assert fails.
    let schedule = [0, 0, 1, 1, 0, 0];
    assert_eq!(
        program.replay(&schedule, &site, MAX_OPS),
        Replayed::Fail(assert_failure(8, "v changed"))
    );
}

/// The end of an `atomic` block inside which a thread was spawned is a
/// scheduling point, even with nothing tracked; without the spawn it is not.
#[test]
fn an_atomic_block_with_a_spawn_ends_the_step() {
    let program = reference(
        "global x = 0;
fn child() {
    assert(x == 2, \"the child ran after main went on\");
}
fn main() {
    atomic {
        spawn child();
        x = 2;
    }
    x = 3;
}
",
    );
    let nothing = Tracked::Vars(BTreeSet::new());
    assert_eq!(
        program.replay(&[0, 9], &nothing, MAX_OPS),
        Replayed::Diverged {
            point: 1,
            wanted: 9,
            enabled: vec![0, 1]
        },
        "the child exists, and main may be preempted, right after the block"
    );
    assert_eq!(
        program.replay(&[0, 1, 0], &nothing, MAX_OPS),
        Replayed::Pass
    );
    let child_fails = Failure {
        kind: Kind::Assert,
        thread: 1,
        line: 3,
        message: Some("the child ran after main went on".to_string()),
        blocked: Vec::new(),
    };
    assert_eq!(
        program.replay(&[0, 0, 1], &nothing, MAX_OPS),
        Replayed::Fail(child_fails)
    );
}

/// An atomic block of untracked accesses only does not end the step; one
/// with a tracked access ends it at its end, not inside.
#[test]
fn an_atomic_block_ends_the_step_at_its_end_only() {
    let program = reference(
        "global x = 0;
global y = 0;
thread writer {
    atomic {
        x = 1;
        x = 2;
    }
    y = 1;
}
thread reader {
    assert(x != 1, \"saw the middle of the atomic block\");
}
",
    );
    let only_y = tracking(&["y"]);
    // The writer's first step runs the block and stores y.
    assert_eq!(program.replay(&[0, 0, 1], &only_y, MAX_OPS), Replayed::Pass);
    assert_eq!(
        program.replay(&[0, 9], &only_y, MAX_OPS),
        Replayed::Diverged {
            point: 1,
            wanted: 9,
            enabled: vec![0, 1]
        }
    );
    // With x tracked the block's end is a scheduling point, and the
    // reader's read of x another; the writer's store of y and end are one
    // step.
    assert_eq!(
        program.replay(&[0, 1, 1, 0], &tracking(&["x"]), MAX_OPS),
        Replayed::Pass
    );
    assert_eq!(program.reachable_failures(&BUDGET), Ok(BTreeSet::new()));
}

/// A write to an untracked variable that makes a blocked `await` true ends
/// the writer's step; the same write with nobody waiting does not.
#[test]
fn a_write_that_wakes_an_awaiter_ends_the_step() {
    let program = reference(
        "global flag = 0;
global other = 0;
thread waiter {
    await flag == 1;
    other = 1;
}
thread setter {
    other = 5;
    flag = 1;
    let seen = other;
    assert(seen == 5, \"the waiter ran in between\");
}
",
    );
    let nothing = Tracked::Vars(BTreeSet::new());
    // The waiter blocks; the setter's `other = 5` wakes nobody and goes on,
    // `flag = 1` wakes the waiter and ends the step; the waiter passes its
    // await (a step), stores other and ends (a step); the setter reads 1.
    let interleaved = [0, 1, 0, 0, 1];
    let expected = Failure {
        kind: Kind::Assert,
        thread: 1,
        line: 11,
        message: Some("the waiter ran in between".to_string()),
        blocked: Vec::new(),
    };
    assert_eq!(
        program.replay(&interleaved, &nothing, MAX_OPS),
        Replayed::Fail(expected)
    );
    // Setter first: no thread is blocked in await, so its whole body is one
    // step; then the waiter's await and the rest.
    assert_eq!(
        program.replay(&[1, 0, 0], &nothing, MAX_OPS),
        Replayed::Pass
    );
    assert_eq!(
        program.replay(&[1, 9], &nothing, MAX_OPS),
        Replayed::Diverged {
            point: 1,
            wanted: 9,
            enabled: vec![0]
        }
    );
}

/// Inside `atomic`, a write that wakes an awaiter does not end the step,
/// but the block's end does, even if a later write in the block put the
/// condition back to false.
#[test]
fn a_wake_up_inside_an_atomic_block_ends_the_step_at_its_end() {
    let program = reference(
        "global flag = 0;
global other = 0;
thread waiter {
    await flag == 1;
}
thread setter {
    atomic {
        flag = 1;
        flag = 0;
    }
    other = 1;
}
",
    );
    let nothing = Tracked::Vars(BTreeSet::new());
    assert_eq!(
        program.replay(&[0, 1, 9], &nothing, MAX_OPS),
        Replayed::Diverged {
            point: 2,
            wanted: 9,
            enabled: vec![1]
        }
    );
    let stranded = Failure {
        kind: Kind::Deadlock,
        thread: 0,
        line: 4,
        message: None,
        blocked: vec![(0, 4)],
    };
    assert_eq!(
        program.replay(&[0, 1, 1], &nothing, MAX_OPS),
        Replayed::Fail(stranded)
    );
}

/// `break`, `continue` and `return` leave `sync` blocks unlocking their
/// mutex and `atomic` blocks closing them, and a `return` from inside
/// `atomic` at a thread's top level still ends the thread.
#[test]
fn leaving_blocks_early_runs_their_exits() {
    let program = reference(
        "global g = 0;
mutex m;
fn f() {
    for i in 0..4 {
        sync m {
            if i == 1 {
                continue;
            }
            if i == 2 {
                atomic {
                    return i;
                }
            }
            g = g + 1;
        }
    }
    return 0;
}
thread t {
    let r = f();
    assert(r == 2, \"f returned early\");
    while true {
        sync m {
            break;
        }
    }
    lock(m);
    unlock(m);
    assert(g == 1, \"one increment\");
    atomic {
        return;
    }
}
",
    );
    assert_eq!(program.reachable_failures(&BUDGET), Ok(BTreeSet::new()));
    let schedule = vec![0; 64];
    assert_eq!(
        program.replay(&schedule, &Tracked::All, MAX_OPS),
        Replayed::Pass
    );
}

/// A thread blocked in `await` can run exactly when its condition holds.
#[test]
fn an_awaiting_thread_runs_when_its_condition_holds() {
    let program = reference(
        "global go = 0;
thread waiter {
    await go == 1;
}
thread setter {
    go = 1;
}
",
    );
    assert_eq!(
        program.replay(&[0, 9], &Tracked::All, MAX_OPS),
        Replayed::Diverged {
            point: 1,
            wanted: 9,
            enabled: vec![1]
        }
    );
    assert_eq!(
        program.replay(&[0, 1, 9], &Tracked::All, MAX_OPS),
        Replayed::Diverged {
            point: 2,
            wanted: 9,
            enabled: vec![0, 1]
        }
    );
    // The waiter's step passes the await; its end is another step.
    assert_eq!(
        program.replay(&[0, 1, 0, 1], &Tracked::All, MAX_OPS),
        Replayed::Unfinished { point: 4 }
    );
    assert_eq!(
        program.replay(&[0, 1, 0, 1, 0], &Tracked::All, MAX_OPS),
        Replayed::Pass
    );
}

/// A deadlock lists every blocked thread at its blocking line, `sync`
/// included.
#[test]
fn a_deadlock_reports_every_blocked_thread() {
    let program = reference(
        "mutex a;
mutex b;
thread first {
    sync a {
        lock(b);
        unlock(b);
    }
}
thread second {
    lock(b);
    sync a {
    }
    unlock(b);
}
",
    );
    let deadlock = Failure {
        kind: Kind::Deadlock,
        thread: 0,
        line: 5,
        message: None,
        blocked: vec![(0, 5), (1, 11)],
    };
    assert_eq!(
        program.replay(&[0, 1, 0, 1], &Tracked::All, MAX_OPS),
        Replayed::Fail(deadlock.clone())
    );
    assert_eq!(
        program.reachable_failures(&BUDGET),
        Ok(BTreeSet::from([deadlock]))
    );
}

/// A loop that never reaches a scheduling point hits the operation limit.
#[test]
fn a_local_infinite_loop_hits_the_step_limit() {
    let program = reference("thread t {\n    while true {\n    }\n}\n");
    assert_eq!(
        program.replay(&[0], &Tracked::All, 1_000),
        Replayed::StepLimit
    );
}

fn deterministic_runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

/// Generated programs compile with the real front end, resolve here, and
/// are explored whole within a small budget; the failures at the minimal
/// preemption bound are among the reachable ones.
#[test]
fn generated_programs_compile_and_are_explored() {
    let mut runner = deterministic_runner(200);
    let budget = Budget {
        max_states: 200_000,
        max_ops_per_execution: 10_000,
    };
    let result = runner.run(&generate::program(), |source| {
        if let Err(error) = rankcheck_instr::compile(&source, &[]) {
            return Err(TestCaseError::fail(format!("{error:?}\n{source}")));
        }
        let program =
            Reference::new(&source, &[]).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let failures = program
            .reachable_failures(&budget)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{source}")))?;
        prop_assert!(!kinds(&failures).contains(&Kind::StepLimit), "{source}");
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
}

/// Runs `program` choosing, at every scheduling point, the thread
/// `choices[i] % n` of the `n` that can run (asked by naming a thread that
/// cannot: the divergence lists the ones that can).
fn random_run(program: &Reference, tracked: &Tracked, choices: &[u32]) -> (Vec<u32>, Replayed) {
    let mut schedule = Vec::new();
    for choice in choices.iter().cycle().take(10_000) {
        schedule.push(u32::MAX);
        match program.replay(&schedule, tracked, MAX_OPS) {
            Replayed::Diverged { enabled, point, .. } => {
                assert_eq!(point, schedule.len() - 1);
                schedule[point] = enabled[*choice as usize % enabled.len()];
            }
            ended => {
                schedule.pop();
                return (schedule, ended);
            }
        }
    }
    panic!("a generated program ran 10,000 steps");
}

/// The variables of `program` whose bit is set in `mask`.
fn some_variables(program: &Reference, mask: u32) -> Tracked {
    let chosen = program
        .variables()
        .into_iter()
        .enumerate()
        .filter(|(k, _)| mask >> (k % 32) & 1 == 1)
        .map(|(_, key)| key);
    Tracked::Vars(chosen.collect())
}

/// Random schedules, always picking a thread that can run, replay to the
/// end, identically when replayed again, and fail only in ways the model
/// checker found: with every variable tracked, and with a random subset
/// (fewer scheduling points allow only executions that every variable
/// tracked allows too).
#[test]
fn random_schedules_replay_to_completion() {
    let mut runner = deterministic_runner(100);
    let case = (generate::program(), vec(any::<u32>(), 1..16), any::<u32>());
    let result = runner.run(&case, |(source, choices, mask)| {
        let program =
            Reference::new(&source, &[]).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let reachable = program.reachable_failures(&BUDGET).expect("within budget");
        for tracked in [Tracked::All, some_variables(&program, mask)] {
            let (schedule, ended) = random_run(&program, &tracked, &choices);
            prop_assert!(
                matches!(ended, Replayed::Pass | Replayed::Fail(_)),
                "{ended:?}"
            );
            prop_assert_eq!(&program.replay(&schedule, &tracked, MAX_OPS), &ended);
            if let Replayed::Fail(failure) = ended {
                prop_assert!(reachable.contains(&failure), "{failure:?}\n{source}");
            }
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
}

/// The generator's programs show every kind of outcome: a sample of 100
/// holds programs that never fail, assertion failures, deadlocks and
/// errors, and programs whose failure needs a preemption.
#[test]
fn generated_programs_cover_every_outcome() {
    let mut runner = deterministic_runner(1);
    let strategy = generate::program();
    let mut seen = BTreeSet::new();
    let (mut correct, mut preempted) = (0, 0);
    for _ in 0..100 {
        let tree = strategy.new_tree(&mut runner).expect("a program");
        let program = reference(&tree.current());
        let failures = program.reachable_failures(&BUDGET).expect("within budget");
        seen.extend(kinds(&failures));
        correct += usize::from(failures.is_empty());
        let bound = program.min_preemptions(1, &BUDGET).expect("within budget");
        preempted += usize::from(matches!(bound, Some((1, _))));
    }
    let wanted = BTreeSet::from([Kind::Assert, Kind::Deadlock, Kind::Error]);
    assert!(seen.is_superset(&wanted), "{seen:?}");
    assert!(
        correct > 0 && preempted > 0,
        "{correct} correct, {preempted} at c=1"
    );
}
