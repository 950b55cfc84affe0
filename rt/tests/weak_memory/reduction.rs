//! The partial-order reduction under weak memory loses no outcome: on
//! generated programs of two or three threads over two atomics (loads,
//! stores, read-modify-writes and fences of every ordering), the reduced
//! exploration reaches exactly the outcomes (every value read, and the
//! final values) of the unreduced one.

use std::collections::BTreeSet;
use std::sync::Arc as StdArc;

use rankcheck::sync::atomic::{fence, AtomicUsize, Ordering};
use rankcheck::sync::Arc;
use rankcheck::{thread, MemoryModel};
use rankcheck_rt as rankcheck;

use Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

#[derive(Clone, Copy, Debug)]
enum Op {
    Store(usize, usize, Ordering),
    Load(usize, Ordering),
    Add(usize, Ordering),
    Fence(Ordering),
}

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

    fn op(&mut self) -> Op {
        let var = self.below(2) as usize;
        match self.below(7) {
            0 | 1 => Op::Store(
                var,
                1 + self.below(2) as usize,
                self.pick(&[Relaxed, Release, SeqCst]),
            ),
            2 | 3 => Op::Load(var, self.pick(&[Relaxed, Acquire, SeqCst])),
            4 | 5 => Op::Add(var, self.pick(&[Relaxed, Acquire, Release, AcqRel, SeqCst])),
            _ => Op::Fence(self.pick(&[Acquire, Release, AcqRel, SeqCst])),
        }
    }

    fn program(&mut self) -> Vec<Vec<Op>> {
        let threads = 2 + self.below(2) as usize;
        (0..threads)
            .map(|_| (0..1 + self.below(3)).map(|_| self.op()).collect())
            .collect()
    }
}

/// Run one thread's operations: the values it read.
fn run_ops(ops: &[Op], atomics: &[AtomicUsize; 2]) -> Vec<usize> {
    let mut read = Vec::new();
    for op in ops {
        match *op {
            Op::Store(var, value, order) => atomics[var].store(value, order),
            Op::Load(var, order) => read.push(atomics[var].load(order)),
            Op::Add(var, order) => read.push(atomics[var].fetch_add(1, order)),
            Op::Fence(order) => fence(order),
        }
    }
    read
}

/// The program as a test whose failure message is its outcome.
fn as_test(program: Vec<Vec<Op>>) -> impl Fn() + Send + Sync + 'static {
    let program = StdArc::new(program);
    move || {
        let atomics = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let others: Vec<_> = program[1..]
            .iter()
            .map(|ops| {
                let (ops, atomics) = (ops.clone(), atomics.clone());
                thread::spawn(move || run_ops(&ops, &atomics))
            })
            .collect();
        let mine = run_ops(&program[0], &atomics);
        let theirs: Vec<Vec<usize>> = others.into_iter().map(|t| t.join().unwrap()).collect();
        let last = (atomics[0].load(SeqCst), atomics[1].load(SeqCst));
        panic!("outcome {mine:?} {theirs:?} {last:?}");
    }
}

fn outcomes(explored: &rankcheck::Explored) -> BTreeSet<String> {
    explored
        .failures
        .iter()
        .map(|f| f.message.clone())
        .collect()
}

#[test]
fn the_reduction_reaches_every_outcome_of_generated_programs() {
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let (mut compared, mut reduced_runs, mut full_runs) = (0, 0, 0);
    for index in 0..150 {
        let program = draw.program();
        let full = rankcheck::__private::explore_unreduced(
            as_test(program.clone()),
            20_000,
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
    assert!(compared >= 120, "only {compared} programs compared in full");
    assert!(
        reduced_runs < full_runs,
        "{reduced_runs} against {full_runs}"
    );
    eprintln!("{compared} programs: {reduced_runs} schedules reduced, {full_runs} unreduced");
}
