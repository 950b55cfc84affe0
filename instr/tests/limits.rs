//! The resource limits of docs/LANGUAGE.md ("Failures"): passing one is an
//! error whose message names the construct that passed it and the limit,
//! located at that construct. Small limits keep the programs small; the
//! command's own limits are the defaults, checked end to end in the CLI's
//! tests.

use std::sync::Arc;

use rankcheck_engine::{
    BugKind, Executable, Instrumentation, Limits, Outcome, RandomScheduler, Span, Vm,
};
use rankcheck_instr::compile;

/// Tight limits, each far below what the programs below would use.
const LIMITS: Limits = Limits {
    max_steps: 100_000,
    max_call_depth: 50,
    max_threads: 8,
    max_heap_slots: 100,
};

/// The error `source` fails with under [`LIMITS`] (one thread runs at a
/// time, so any seed gives the same), with the source text it points at.
fn error(source: &str) -> (String, &str) {
    let program = Arc::new(compile(source, &[]).expect("compiles"));
    let exe = Executable::new(Arc::clone(&program), &Instrumentation::all(&program));
    let mut vm = Vm::new(&exe, LIMITS);
    let Outcome::Bug(bug) = vm.run(&mut RandomScheduler::new(1)) else {
        panic!("{source}: no failure");
    };
    assert_eq!(bug.kind, BugKind::Error, "{source}: {}", bug.message);
    (bug.message, text(source, bug.span))
}

fn text(source: &str, span: Span) -> &str {
    &source[span.start as usize..span.end as usize]
}

#[test]
fn records_past_the_heap_limit_fail_at_the_new() {
    let (message, at) = error(
        "fn main() {\n    let keep = new [90];\n    let r = new { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10, k: 11 };\n}\n",
    );
    assert_eq!(message, "heap exhausted: more than 100 slots allocated");
    assert!(at.starts_with("new { a: 1"), "{at}");
}

#[test]
fn arrays_past_the_heap_limit_name_their_length() {
    let (message, at) = error("fn main() {\n    let a = new [60];\n    let b = new [41];\n}\n");
    assert_eq!(
        message,
        "heap exhausted: an array of 41 elements would pass the limit of 100 slots"
    );
    assert_eq!(at, "new [41]");
}

#[test]
fn deep_recursion_names_the_call() {
    let (message, at) =
        error("fn down(n) {\n    return down(n + 1);\n}\nfn main() {\n    down(0);\n}\n");
    assert_eq!(message, "call stack overflow: more than 50 nested calls");
    assert_eq!(at, "down(n + 1)");
}

#[test]
fn spawning_past_the_thread_limit_names_the_spawn() {
    let (message, at) =
        error("fn idle() { }\nfn main() {\n    while true {\n        spawn idle();\n    }\n}\n");
    assert_eq!(
        message,
        "too many threads: spawning one more than the limit of 8"
    );
    assert_eq!(at, "spawn idle()");
}
