//! The rule that `await` conditions have no side effects (docs/LANGUAGE.md,
//! Mutexes, condition variables, `await` and `atomic`): a condition, and
//! every function it may call, must not write shared memory, synchronise,
//! allocate or print. The VM decides whether a blocked thread can run by
//! evaluating its condition, which is only meaningful when evaluating
//! changes nothing.

use rankcheck_engine::await_code::ConditionCode;
use rankcheck_engine::ir::{Op, Program};
use rankcheck_engine::FuncId;

use crate::diagnostic::Diagnostic;

/// What an instruction does that a condition may not, if anything.
fn effect(op: &Op) -> Option<&'static str> {
    Some(match op {
        Op::SetGlobal { .. }
        | Op::SetGlobalObserved { .. }
        | Op::SetField { .. }
        | Op::SetFieldObserved { .. }
        | Op::SetIndex { .. }
        | Op::SetIndexObserved { .. } => "writes shared memory",
        Op::Lock { .. } | Op::Unlock { .. } => "locks or unlocks a mutex",
        Op::Wait { .. } | Op::Signal { .. } | Op::Broadcast { .. } => {
            "waits on or signals a condition variable"
        }
        Op::Spawn { .. } => "spawns a thread",
        Op::Join { .. } => "joins a thread",
        Op::Yield => "yields",
        Op::AwaitBegin => "awaits",
        Op::AtomicBegin => "opens an atomic block",
        Op::NewRecord { .. } | Op::NewArray { .. } | Op::NewMutex { .. } | Op::NewCond { .. } => {
            "allocates"
        }
        Op::Print { .. } => "prints",
        _ => return None,
    })
}

/// One diagnostic per instruction with a side effect that some `await`
/// condition may run, pointing at the `await` that reaches it first.
pub fn check_await_conditions(program: &Program) -> Vec<Diagnostic> {
    let code = ConditionCode::of(program);
    let mut errors = Vec::new();
    let await_span = |which: usize| {
        let condition = &code.conditions[which];
        program.span_at(condition.func, condition.code.end - 1)
    };
    for condition in &code.conditions {
        // The condition's own AwaitBegin opens it; skip it.
        for pc in condition.code.start + 1..condition.code.end {
            let op = &program.functions[condition.func.index()].code[pc];
            if let Some(what) = effect(op) {
                errors.push(
                    Diagnostic::error(
                        program.span_at(condition.func, pc),
                        format!("an `await` condition must not have side effects: this {what}"),
                    )
                    .with_note("the condition is evaluated again whenever a variable it reads changes; compute side effects before the `await`"),
                );
            }
        }
    }
    for &(func, which) in &code.callees {
        for (pc, op) in program.functions[func.index()].code.iter().enumerate() {
            if let Some(what) = effect(op) {
                errors.push(
                    Diagnostic::error(
                        program.span_at(func, pc),
                        format!(
                            "`{}` {what}, so an `await` condition may not call it",
                            name(program, func)
                        ),
                    )
                    .with_related(await_span(which), "called from this `await` condition")
                    .with_note("an `await` condition, and every function it calls, must not write shared memory, synchronise, allocate or print"),
                );
            }
        }
    }
    errors
}

fn name(program: &Program, func: FuncId) -> &str {
    &program.functions[func.index()].name
}
