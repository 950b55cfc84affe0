//! Synchronisation operands whose kind is known at compile time.
//!
//! Values are dynamically typed, and docs/LANGUAGE.md makes an operand of
//! the wrong kind (`lock(5)`) a run-time error of the execution that
//! reaches it. But where the operand is a name whose declaration fixes
//! what it can hold (`wait(m, c)` with its arguments swapped, `lock(c)` of
//! a `cond`, `signal(a)` of a global array, `lock(g)` of a global that
//! nothing ever assigns), every execution that reaches the statement fails
//! the same way: a mistake in the program, not a concurrency bug. The
//! compiler says so before anything runs, as a warning with the operand's
//! span; the run-time semantics stay the language's.

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

/// What the compiler warns of, and the operands on globals, which can
/// only be judged once every body is lowered (and every assignment seen).
#[derive(Debug, Default)]
pub struct SyncOperands {
    warnings: Vec<Diagnostic>,
    on_globals: Vec<(GlobalId, Operand)>,
    assigned: BTreeSet<GlobalId>,
}

impl SyncOperands {
    /// A name operand of a synchronisation statement: a warning now when
    /// its declaration already rules it out; a global is judged in
    /// [`SyncOperands::finish`].
    pub fn check(&mut self, operand: Operand, declared: Declared) {
        let is = match (declared, operand.needs) {
            (Declared::Mutex, Needs::Mutex) | (Declared::Cond, Needs::Cond) => return,
            (Declared::Global(global), _) => {
                self.on_globals.push((global, operand));
                return;
            }
            (Declared::Mutex, _) => "a mutex",
            (Declared::Cond, _) => "a condition variable",
            (Declared::Other(what), _) => what,
        };
        self.warnings.push(wrong_kind(&operand, is));
    }

    /// `wait`'s two operands: one warning when they are each the other's
    /// kind (`wait(m, c)`), else each on its own.
    pub fn check_wait(&mut self, span: Span, operands: [Option<(Operand, Declared)>; 2]) {
        let swapped = matches!(
            &operands,
            [Some((_, Declared::Mutex)), Some((_, Declared::Cond))]
        );
        if swapped {
            self.warnings.push(
                Diagnostic::warning(span, "the arguments of `wait` are swapped")
                    .with_label("every run that gets here fails")
                    .with_note(
                        "`wait` takes the condition variable first, then the mutex: `wait(c, m)`",
                    ),
            );
            return;
        }
        for (operand, declared) in operands.into_iter().flatten() {
            self.check(operand, declared);
        }
    }

    /// A global assigned somewhere: it may hold a mutex or a cond.
    pub fn assigned(&mut self, global: GlobalId) {
        self.assigned.insert(global);
    }

    /// Every warning, the operands that are globals nothing assigns among
    /// them: those hold their initial value, an integer or a boolean, in
    /// every execution.
    pub fn finish(mut self) -> Vec<Diagnostic> {
        for (global, operand) in &self.on_globals {
            if self.assigned.contains(global) {
                continue;
            }
            self.warnings.push(
                wrong_kind(operand, "a global that nothing assigns").with_note(format!(
                    "`{}` keeps its initial value, which is not {}; declare `{} {};` instead, or assign it one (`{} = new {};`)",
                    operand.name,
                    operand.needs.noun(),
                    keyword(operand.needs),
                    operand.name,
                    operand.name,
                    keyword(operand.needs),
                )),
            );
        }
        self.warnings.sort_by_key(|d| d.span);
        self.warnings
    }
}

fn keyword(needs: Needs) -> &'static str {
    match needs {
        Needs::Mutex => "mutex",
        Needs::Cond => "cond",
    }
}

fn wrong_kind(operand: &Operand, is: &str) -> Diagnostic {
    Diagnostic::warning(
        operand.span,
        format!(
            "`{}` needs {}, but `{}` is {is}",
            operand.op,
            operand.needs.noun(),
            operand.name
        ),
    )
    .with_label(format!(
        "not {}: every run that gets here fails",
        operand.needs.noun()
    ))
}
