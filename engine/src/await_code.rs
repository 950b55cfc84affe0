//! The code an `await` condition may run, and the variables it may read.
//!
//! A thread blocked in `await` can run exactly when its condition is true
//! (docs/LANGUAGE.md, Which threads can run), so a write to a variable some
//! condition reads may let a blocked thread run, and ends the writer's step
//! when it does. The VM must therefore see every write that may touch such
//! an *awaited* variable: instrumentation observes those write sites
//! whatever is tracked. This module finds the condition code; `instr`
//! rejects conditions with side effects and narrows the awaited variables
//! with its alias analysis, and [`conservative_awaited`] is the sound
//! answer without one.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::id::{FuncId, SiteId};
use crate::ir::{Op, Program};

/// One `await` statement's condition: instructions `code` of `func`, from
/// the `AwaitBegin` to the `AwaitCheck`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The function holding the `await`.
    pub func: FuncId,
    /// The instruction range, `AwaitBegin` and `AwaitCheck` included.
    pub code: Range<usize>,
}

/// Every piece of code an `await` condition may run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConditionCode {
    /// The conditions themselves.
    pub conditions: Vec<Condition>,
    /// Functions some condition may call, directly or not, with the
    /// condition that reaches each first (for error messages).
    pub callees: Vec<(FuncId, usize)>,
}

impl ConditionCode {
    /// Find the conditions of `program` and the functions they may call.
    pub fn of(program: &Program) -> ConditionCode {
        let mut conditions = Vec::new();
        for (index, function) in program.functions.iter().enumerate() {
            for (pc, op) in function.code.iter().enumerate() {
                if let Op::AwaitCheck { retry, .. } = *op {
                    conditions.push(Condition {
                        func: FuncId(index as u32),
                        code: retry as usize..pc + 1,
                    });
                }
            }
        }
        let mut seen = BTreeSet::new();
        let mut callees = Vec::new();
        let mut pending: Vec<(FuncId, usize)> = Vec::new();
        for (which, condition) in conditions.iter().enumerate() {
            let code = &program.functions[condition.func.index()].code[condition.code.clone()];
            pending.extend(called(code).map(|f| (f, which)));
        }
        while let Some((func, which)) = pending.pop() {
            if seen.insert(func) {
                callees.push((func, which));
                pending.extend(called(&program.functions[func.index()].code).map(|f| (f, which)));
            }
        }
        callees.sort_unstable();
        ConditionCode {
            conditions,
            callees,
        }
    }

    /// Every instruction a condition may run, as (function, pc).
    pub fn instructions<'p>(
        &'p self,
        program: &'p Program,
    ) -> impl Iterator<Item = (FuncId, usize)> + 'p {
        let in_conditions = self
            .conditions
            .iter()
            .flat_map(|c| c.code.clone().map(move |pc| (c.func, pc)));
        let in_callees = self.callees.iter().flat_map(move |&(func, _)| {
            (0..program.functions[func.index()].code.len()).map(move |pc| (func, pc))
        });
        in_conditions.chain(in_callees)
    }

    /// The memory-access sites a condition may run: what it may read.
    pub fn read_sites(&self, program: &Program) -> Vec<SiteId> {
        let mut sites: Vec<SiteId> = self
            .instructions(program)
            .filter_map(|(func, pc)| program.functions[func.index()].code[pc].memory_site())
            .collect();
        sites.sort_unstable();
        sites.dedup();
        sites
    }
}

/// The functions `code` calls.
fn called(code: &[Op]) -> impl Iterator<Item = FuncId> + '_ {
    code.iter().filter_map(|op| match *op {
        Op::Call { func, .. } => Some(func),
        _ => None,
    })
}

/// `awaited[v]`: variable `v` may be read by an `await` condition, judged
/// without alias analysis: a read through a reference may touch any
/// allocation site.
pub fn conservative_awaited(program: &Program) -> Vec<bool> {
    let mut awaited = vec![false; program.vars.len()];
    for site in ConditionCode::of(program).read_sites(program) {
        match program.sites[site.index()].var {
            Some(var) => awaited[var.index()] = true,
            None => {
                for (flag, var) in awaited.iter_mut().zip(&program.vars) {
                    *flag |= var.kind.is_allocation_site();
                }
            }
        }
    }
    awaited
}
