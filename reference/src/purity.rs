//! The rule of docs/LANGUAGE.md "Mutexes, condition variables, `await` and
//! `atomic`": an `await` condition, and every function it may call, must not
//! write shared memory, synchronise, allocate or print. The reference refuses
//! such a program, as the compiler does; the interpreter relies on it when it
//! evaluates a blocked thread's condition to see whether the thread can run.

use std::collections::BTreeSet;

use crate::error::RefError;
use crate::program::{BlockId, ExprId, ExprKind, FnId, Place, Program, StmtKind};

/// Refuses the program if some `await` condition may have an effect.
pub fn check_await_conditions(program: &Program) -> Result<(), RefError> {
    let impure = impure_functions(program);
    for stmt in &program.stmts {
        let StmtKind::Await(cond) = stmt.kind else {
            continue;
        };
        let mut effects = Effects::default();
        effects.expr(program, cond);
        let calls_impure = effects.callees.iter().any(|f| impure.contains(f));
        if effects.direct || calls_impure {
            return Err(RefError::Invalid {
                line: stmt.line,
                message: "an `await` condition must not have side effects".to_string(),
            });
        }
    }
    Ok(())
}

/// The functions that may have an effect, directly or through a call: a
/// fixpoint over the call graph.
fn impure_functions(program: &Program) -> BTreeSet<FnId> {
    let summaries: Vec<Effects> = program
        .functions
        .iter()
        .map(|function| {
            let mut effects = Effects::default();
            effects.block(program, function.body);
            effects
        })
        .collect();
    let mut impure: BTreeSet<FnId> = (0..summaries.len())
        .filter(|&f| summaries[f].direct)
        .map(|f| FnId(f as u32))
        .collect();
    loop {
        let before = impure.len();
        for (f, summary) in summaries.iter().enumerate() {
            if summary.callees.iter().any(|callee| impure.contains(callee)) {
                impure.insert(FnId(f as u32));
            }
        }
        if impure.len() == before {
            return impure;
        }
    }
}

/// What a piece of code does that an `await` condition may not.
#[derive(Default)]
struct Effects {
    /// Whether the code itself has an effect.
    direct: bool,
    /// The functions it calls.
    callees: BTreeSet<FnId>,
}

impl Effects {
    fn block(&mut self, program: &Program, block: BlockId) {
        for &stmt in program.block(block) {
            self.stmt(program, &program.stmt(stmt).kind);
        }
    }

    fn stmt(&mut self, program: &Program, kind: &StmtKind) {
        match kind {
            StmtKind::Let { value, .. } | StmtKind::Expr(value) => self.expr(program, *value),
            StmtKind::Assign { place, value, .. } => {
                self.direct |= !matches!(place, Place::Local(_));
                self.place(program, place);
                self.expr(program, *value);
            }
            StmtKind::If { arms, else_block } => {
                for (cond, body) in arms {
                    self.expr(program, *cond);
                    self.block(program, *body);
                }
                if let Some(body) = else_block {
                    self.block(program, *body);
                }
            }
            StmtKind::While { cond, body } => {
                self.expr(program, *cond);
                self.block(program, *body);
            }
            StmtKind::For {
                start, end, body, ..
            } => {
                self.expr(program, *start);
                self.expr(program, *end);
                self.block(program, *body);
            }
            StmtKind::Return(value) => {
                if let Some(value) = value {
                    self.expr(program, *value);
                }
            }
            StmtKind::Assert { cond, .. } => self.expr(program, *cond),
            StmtKind::Break | StmtKind::Continue => {}
            _ => self.direct = true,
        }
    }

    fn place(&mut self, program: &Program, place: &Place) {
        match place {
            Place::Local(_) | Place::Scalar(_) => {}
            Place::Field { base, .. } => self.expr(program, *base),
            Place::Index { base, index } => {
                self.expr(program, *base);
                self.expr(program, *index);
            }
            Place::GlobalIndex { index, .. } => self.expr(program, *index),
        }
    }

    fn expr(&mut self, program: &Program, expr: ExprId) {
        match &program.expr(expr).kind {
            ExprKind::Value(_)
            | ExprKind::Local(_)
            | ExprKind::Scalar(_)
            | ExprKind::GlobalLen(_)
            | ExprKind::SelfId => {}
            ExprKind::Field { base, .. } | ExprKind::Len(base) => self.expr(program, *base),
            ExprKind::Unary { operand, .. } => self.expr(program, *operand),
            ExprKind::Index { base, index } => {
                self.expr(program, *base);
                self.expr(program, *index);
            }
            ExprKind::GlobalIndex { index, .. } => self.expr(program, *index),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(program, *lhs);
                self.expr(program, *rhs);
            }
            ExprKind::Call { function, args } => {
                self.callees.insert(*function);
                args.iter().for_each(|arg| self.expr(program, *arg));
            }
            ExprKind::NewRecord { .. }
            | ExprKind::NewArray { .. }
            | ExprKind::NewMutex(_)
            | ExprKind::NewCond(_)
            | ExprKind::Spawn { .. } => self.direct = true,
        }
    }
}
