//! Synchronisation operands whose kind is known at compile time.
//!
//! Values are dynamically typed, so `lock(x)` of a value that is not a
//! mutex is in general a run-time error. But where the operand is a name
//! whose declaration fixes what it can hold (`wait(m, c)` with its
//! arguments swapped, `lock(c)` of a `cond`, `signal(a)` of a global array,
//! `lock(g)` of a global that nothing ever assigns), every execution that
//! reaches the statement fails the same way: that is a mistake in the
//! program, not a concurrency bug, and it is rejected with the operand's
//! span before anything runs. Literal operands (`lock(5)`) stay run-time
//! errors, as docs/LANGUAGE.md specifies.

use std::collections::BTreeSet;

use rankcheck_engine::id::GlobalId;
use rankcheck_engine::Span;

use crate::diagnostic::Diagnostic;

/// What a synchronisation statement needs of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    Mutex,
    Cond,
}

impl Needs {
    fn noun(self) -> &'static str {
        match self {
            Needs::Mutex => "a mutex",
            Needs::Cond => "a condition variable",
        }
    }
}

/// What the declaration of a name operand says it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    Mutex,
    Cond,
    /// A global scalar: it holds a mutex or cond only if assigned one.
    Global(GlobalId),
    /// Anything that never holds a mutex or cond (a const, a global
    /// array), described for the message.
    Other(&'static str),
}

/// One operand seen while lowering: the statement (`lock`, `wait`, ...),
/// what it needs, the name and its span.
#[derive(Clone, Debug)]
pub struct Operand {
    pub op: &'static str,
    pub needs: Needs,
    pub name: String,
    pub span: Span,
}

/// The operands of one program, and the globals it assigns: globals can
/// only be judged once every body is lowered.
#[derive(Debug, Default)]
pub struct SyncOperands {
    on_globals: Vec<(GlobalId, Operand)>,
    assigned: BTreeSet<GlobalId>,
}

impl SyncOperands {
    /// A name operand of a synchronisation statement: the error now when
    /// its declaration already rules it out; a global is judged in
    /// [`SyncOperands::finish`].
    pub fn check(&mut self, operand: Operand, declared: Declared) -> Option<Diagnostic> {
        let is = match (declared, operand.needs) {
            (Declared::Mutex, Needs::Mutex) | (Declared::Cond, Needs::Cond) => return None,
            (Declared::Global(global), _) => {
                self.on_globals.push((global, operand));
                return None;
            }
            (Declared::Mutex, _) => "a mutex",
            (Declared::Cond, _) => "a cond",
            (Declared::Other(what), _) => what,
        };
        Some(wrong_kind(&operand, is))
    }

    /// A global assigned somewhere: it may hold a mutex or a cond.
    pub fn assigned(&mut self, global: GlobalId) {
        self.assigned.insert(global);
    }

    /// The operands that are globals nothing assigns: they hold their
    /// initial value, an integer or a boolean, in every execution.
    pub fn finish(self) -> Vec<Diagnostic> {
        self.on_globals
            .into_iter()
            .filter(|(global, _)| !self.assigned.contains(global))
            .map(|(_, operand)| {
                wrong_kind(&operand, "a global that nothing assigns").with_note(format!(
                    "`{}` keeps its initial value, which is not {}; declare `{} {};` instead, or assign it one (`{} = new {};`)",
                    operand.name,
                    operand.needs.noun(),
                    keyword(operand.needs),
                    operand.name,
                    operand.name,
                    keyword(operand.needs),
                ))
            })
            .collect()
    }
}

/// `wait(m, c)`: the note for a `wait` whose two operands are each the
/// other's kind.
pub fn swapped_wait_note() -> &'static str {
    "`wait` takes the condition variable first, then the mutex: `wait(c, m)`"
}

fn keyword(needs: Needs) -> &'static str {
    match needs {
        Needs::Mutex => "mutex",
        Needs::Cond => "cond",
    }
}

fn wrong_kind(operand: &Operand, is: &str) -> Diagnostic {
    Diagnostic::error(
        operand.span,
        format!(
            "`{}` needs {}, but `{}` is {is}",
            operand.op,
            operand.needs.noun(),
            operand.name
        ),
    )
    .with_label(format!("not {}", operand.needs.noun()))
}
