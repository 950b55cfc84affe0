//! A scheduler silent when a single thread can run (the random one) lets
//! the VM pass such points without asking it: that must change nothing a
//! user sees. Every example, under the random scheduler, runs exactly as
//! under the same scheduler made to see every point.

use std::sync::Arc;

use rankcheck_engine::scheduler::Point;
use rankcheck_engine::{
    Executable, Instrumentation, Limits, RandomScheduler, Scheduler, ThreadId, Vm,
};
use rankcheck_instr::compile;

mod common;

/// The random scheduler, asked at every point (the trait's default).
struct AskedEveryTime(RandomScheduler);

impl Scheduler for AskedEveryTime {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        self.0.choose(point)
    }
}

#[test]
fn passing_lone_points_changes_no_run() {
    for path in common::example_paths() {
        let source = std::fs::read_to_string(&path).expect("an example");
        let program = Arc::new(compile(&source, &[]).expect("the examples compile"));
        let exe = Executable::new(Arc::clone(&program), &Instrumentation::all(&program));
        let (mut silent, mut asked) = (
            Vm::new(&exe, Limits::default()),
            Vm::new(&exe, Limits::default()),
        );
        for seed in 0..30 {
            let passed = silent.run(&mut RandomScheduler::new(seed));
            let seen = asked.run(&mut AskedEveryTime(RandomScheduler::new(seed)));
            let place = format!("{} seed {seed}", path.display());
            assert_eq!(format!("{passed:?}"), format!("{seen:?}"), "{place}");
            assert_eq!(silent.schedule(), asked.schedule(), "{place}");
            assert_eq!(silent.final_event(), asked.final_event(), "{place}");
        }
    }
}
