//! The words of a run-time error: what the user wrote where an instruction
//! stands for another construct ([`Construct`]: a `for` range's test is an
//! `Lt`, a `sync` block a `Lock`), and what kind of value was found. Only
//! the error path calls these, so the interpreter pays nothing for them.

use crate::id::FuncId;
use crate::ir::{Construct, Program};
use crate::value::Value;

use super::Vm;

/// What must be a bool at the conditional jump at `pc` of `func`.
pub(super) fn condition(program: &Program, func: FuncId, pc: usize) -> &'static str {
    match program.construct_at(func, pc) {
        Some(Construct::If) => "an `if` condition",
        Some(Construct::While) => "a `while` condition",
        Some(Construct::And) => "the left operand of `&&`",
        Some(Construct::Or) => "the left operand of `||`",
        _ => "a condition",
    }
}

/// What needs an int at the comparison `operator` (`` "`<`" ``) at `pc`:
/// the operator itself, or the start or end of a `for` range whose entry
/// test it is (`end`: the right operand).
pub(super) fn compared(
    program: &Program,
    func: FuncId,
    pc: usize,
    operator: &'static str,
    end: bool,
) -> &'static str {
    match (program.construct_at(func, pc), end) {
        (Some(Construct::ForRange), false) => "a `for` range's start",
        (Some(Construct::ForRange), true) => "a `for` range's end",
        _ => operator,
    }
}

/// The statement that locks at `pc`: `` "`lock`" ``, or `` "`sync`" `` for
/// a `sync` block's lock.
pub(super) fn locking(program: &Program, func: FuncId, pc: usize) -> &'static str {
    match program.construct_at(func, pc) {
        Some(Construct::Sync) => "`sync`",
        _ => "`lock`",
    }
}

/// The start of an unlock error at `pc`, before the mutex's name: an
/// `unlock` statement, or leaving a `sync` block (at its closing brace or
/// at the `break`, `continue` or `return` that leaves it).
pub(super) fn unlocking(program: &Program, func: FuncId, pc: usize) -> &'static str {
    match program.construct_at(func, pc) {
        Some(Construct::Sync) => "leaving `sync` unlocks",
        _ => "`unlock` of",
    }
}

impl Vm<'_> {
    /// The kind of `value` as an error names it, in docs/LANGUAGE.md's
    /// words: a reference is a `record` or an `array`, a cond a
    /// `condition variable`.
    pub(super) fn kind_of(&self, value: Value) -> &'static str {
        match value {
            Value::Ref(obj) if self.heap.array_len(obj).is_some() => "array",
            Value::Ref(_) => "record",
            Value::Cond(_) => "condition variable",
            other => other.type_name(),
        }
    }
}
