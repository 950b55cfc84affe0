//! The partial-order reduction under weak memory loses no outcome: on
//! generated programs of two or three threads over three atomics and one
//! `UnsafeCell` (loads, stores, swaps, read-modify-writes, strong and weak
//! compare-exchanges and fences of every ordering, cell reads and writes,
//! a load that decides whether an operation runs, and a spin loop of up to
//! five loads from one place, giving way between them or not), the
//! reduced exploration reaches exactly the
//! outcomes (every value read, the final values, every data race) of the
//! unreduced one. Only SeqCst operations, and the one that puts the model
//! in use, touch what all atomics share; other operations on different
//! atomics commute.

use std::collections::BTreeSet;
use std::sync::Arc as StdArc;

use rankcheck::cell::UnsafeCell;
use rankcheck::sync::atomic::{fence, AtomicUsize, Ordering};
use rankcheck::sync::Arc;
use rankcheck::{thread, MemoryModel};
use rankcheck_rt as rankcheck;

use Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

#[derive(Clone, Debug)]
enum Op {
    Store(usize, usize, Ordering),
    Load(usize, Ordering),
    Add(usize, Ordering),
    Swap(usize, usize, Ordering),
    /// `compare_exchange(expected, new)` (`_weak` when `weak`), with its
    /// success and failure orderings.
    Cas {
        var: usize,
        expected: usize,
        new: usize,
        orders: (Ordering, Ordering),
        weak: bool,
    },
    Fence(Ordering),
    /// A read or (`true`) a write of the one `UnsafeCell`.
    Cell(bool),
    /// A load; the inner operation runs only if it read the value.
    IfReads(usize, usize, Ordering, Box<Op>),
    /// Up to `SPIN_LOADS` loads from one place until one reads the value.
    Spin(usize, usize, Ordering),
    /// The same, giving way (loom's `yield_now`) after each load that did
    /// not read it.
    GiveWaySpin(usize, usize, Ordering),
}

/// The loads of a generated spin loop at most.
const SPIN_LOADS: usize = 5;

/// The atomics of a generated program.
const ATOMICS: u64 = 3;

/// A small generator (xorshift), so that the programs are fixed.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    fn value(&mut self) -> usize {
        self.below(3) as usize
    }

    fn op(&mut self, nested: bool) -> Op {
        let var = self.below(ATOMICS) as usize;
        let stores = [Relaxed, Release, SeqCst];
        let loads = [Relaxed, Acquire, SeqCst];
        let rmws = [Relaxed, Acquire, Release, AcqRel, SeqCst];
        match self.below(if nested { 12 } else { 16 }) {
            0 | 1 => Op::Store(var, 1 + self.below(2) as usize, self.pick(&stores)),
            2 | 3 => Op::Load(var, self.pick(&loads)),
            4 => Op::Add(var, self.pick(&rmws)),
            5 => Op::Swap(var, 1 + self.below(2) as usize, self.pick(&rmws)),
            6 | 7 => Op::Cas {
                var,
                expected: self.value(),
                new: 1 + self.below(2) as usize,
                orders: (self.pick(&rmws), self.pick(&loads)),
                weak: self.below(2) == 0,
            },
            8 => Op::Fence(self.pick(&[Acquire, Release, AcqRel, SeqCst])),
            9..=11 => Op::Cell(self.below(2) == 0),
            12 | 13 => {
                let (value, order) = (self.value(), self.pick(&loads));
                Op::IfReads(var, value, order, Box::new(self.op(true)))
            }
            14 => Op::Spin(var, 1 + self.below(2) as usize, self.pick(&loads)),
            _ => Op::GiveWaySpin(var, 1 + self.below(2) as usize, self.pick(&loads)),
        }
    }

    fn program(&mut self) -> Vec<Vec<Op>> {
        let threads = 2 + self.below(2) as usize;
        (0..threads)
            .map(|_| (0..1 + self.below(3)).map(|_| self.op(false)).collect())
            .collect()
    }
}

/// What a generated program shares: its atomics and one cell.
struct Shared {
    atomics: [AtomicUsize; ATOMICS as usize],
    cell: UnsafeCell<usize>,
}

// SAFETY: rankcheck runs one thread at a time, and an access to the cell
// that races with another is a failure the run reports, as an outcome.
#[allow(unsafe_code)]
unsafe impl Sync for Shared {}

/// Run one operation, pushing what it read.
#[allow(unsafe_code)]
fn run_op(op: &Op, shared: &Shared, read: &mut Vec<usize>) {
    let atomics = &shared.atomics;
    match *op {
        Op::Store(var, value, order) => atomics[var].store(value, order),
        Op::Load(var, order) => read.push(atomics[var].load(order)),
        Op::Add(var, order) => read.push(atomics[var].fetch_add(1, order)),
        Op::Swap(var, value, order) => read.push(atomics[var].swap(value, order)),
        Op::Cas {
            var,
            expected,
            new,
            orders: (success, failure),
            weak,
        } => {
            let result = if weak {
                atomics[var].compare_exchange_weak(expected, new, success, failure)
            } else {
                atomics[var].compare_exchange(expected, new, success, failure)
            };
            // Ok and Err apart: 10 + the value read for a failure.
            read.push(result.unwrap_or_else(|seen| 10 + seen));
        }
        Op::Fence(order) => fence(order),
        Op::Cell(true) => shared.cell.with_mut(|p| unsafe { *p += 1 }),
        Op::Cell(false) => read.push(shared.cell.with(|p| unsafe { *p })),
        Op::IfReads(var, value, order, ref then) => {
            let seen = atomics[var].load(order);
            read.push(seen);
            if seen == value {
                run_op(then, shared, read);
            }
        }
        Op::Spin(var, value, order) => read.push(spin(&atomics[var], value, order, false)),
        Op::GiveWaySpin(var, value, order) => {
            read.push(spin(&atomics[var], value, order, true));
        }
    }
}

/// Load `atomic` with `order` until it reads `value`, at most `SPIN_LOADS`
/// times, giving way after each miss when `give_way`: the loads made.
fn spin(atomic: &AtomicUsize, value: usize, order: Ordering, give_way: bool) -> usize {
    let mut loads = 0;
    while loads < SPIN_LOADS {
        loads += 1;
        if atomic.load(order) == value {
            break;
        }
        if give_way {
            thread::give_way();
        }
    }
    loads
}

/// Run one thread's operations: the values it read.
fn run_ops(ops: &[Op], shared: &Shared) -> Vec<usize> {
    let mut read = Vec::new();
    for op in ops {
        run_op(op, shared, &mut read);
    }
    read
}

/// The program as a test whose failure message is its outcome.
fn as_test(program: Vec<Vec<Op>>) -> impl Fn() + Send + Sync + 'static {
    let program = StdArc::new(program);
    move || {
        let shared = Arc::new(Shared {
            atomics: std::array::from_fn(|_| AtomicUsize::new(0)),
            cell: UnsafeCell::new(0),
        });
        let others: Vec<_> = program[1..]
            .iter()
            .map(|ops| {
                let (ops, shared) = (ops.clone(), shared.clone());
                thread::spawn(move || run_ops(&ops, &shared))
            })
            .collect();
        let mine = run_ops(&program[0], &shared);
        let theirs: Vec<Vec<usize>> = others.into_iter().map(|t| t.join().unwrap()).collect();
        let last: Vec<usize> = shared.atomics.iter().map(|a| a.load(SeqCst)).collect();
        panic!("outcome {mine:?} {theirs:?} {last:?}");
    }
}

fn outcomes(explored: &rankcheck::Explored) -> BTreeSet<String> {
    explored
        .failures
        .iter()
        .map(|f| format!("{}: {}", f.kind, f.message))
        .collect()
}

/// The programs compared: 150, or `RANKCHECK_REDUCTION_PROGRAMS`, drawn
/// from the seed `RANKCHECK_REDUCTION_SEED` (a longer check, run by hand).
fn programs() -> (usize, u64) {
    fn var<T: std::str::FromStr>(name: &str) -> Option<T> {
        std::env::var(name).ok()?.parse().ok()
    }
    let programs = var("RANKCHECK_REDUCTION_PROGRAMS").unwrap_or(150);
    let seed = var("RANKCHECK_REDUCTION_SEED").unwrap_or(0x9e37_79b9_7f4a_7c15);
    (programs, seed)
}

/// The unreduced schedules of a program compared at most (one with more
/// is left out).
const FULL_SCHEDULES: u64 = 5_000;

#[test]
fn the_reduction_reaches_every_outcome_of_generated_programs() {
    let (total, seed) = programs();
    let mut draw = Draw(seed);
    let (mut compared, mut reduced_runs, mut full_runs) = (0, 0, 0);
    for index in 0..total {
        let program = draw.program();
        let full = rankcheck::__private::explore_unreduced(
            as_test(program.clone()),
            FULL_SCHEDULES,
            1_000,
            MemoryModel::Weak,
        );
        if !full.complete {
            continue;
        }
        let reduced =
            rankcheck::explore_memory(as_test(program.clone()), 20_000, 1_000, MemoryModel::Weak);
        assert!(reduced.complete, "program {index}: {program:?}");
        assert_eq!(
            outcomes(&reduced),
            outcomes(&full),
            "program {index}: {program:?}"
        );
        compared += 1;
        reduced_runs += reduced.schedules;
        full_runs += full.schedules;
    }
    assert!(
        compared * 2 >= total,
        "only {compared} of {total} programs compared in full"
    );
    assert!(
        reduced_runs < full_runs,
        "{reduced_runs} against {full_runs}"
    );
    eprintln!("{compared} programs: {reduced_runs} schedules reduced, {full_runs} unreduced");
}
