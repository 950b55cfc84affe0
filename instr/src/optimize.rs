//! The IR optimiser: fewer instructions dispatched per execution, with
//! exactly the behaviour of the code `lower` emitted.
//!
//! `lower` emits simple code: every literal is a `Const` into a register
//! where it is used, inside loops too, and every `let` a `Move`. The VM
//! pays some 25-30 machine instructions per dispatched instruction, so this
//! pass rewrites each function until nothing changes:
//!
//! 1. **Folding.** A *constant register* is one (not a parameter) that only
//!    `Const`s of one constant write and that is definitely assigned at
//!    every read, so every read sees that constant (a register read before
//!    any write holds `null`, and must go on reading it). An instruction
//!    whose operands are constant registers becomes a `Const` of its result
//!    when it cannot fault: integer arithmetic without overflow or division
//!    by zero, integer comparisons, `==`/`!=` on any values, `!` on a bool,
//!    a `Move`. A conditional jump on a constant bool becomes a `Jump` or
//!    nothing.
//! 2. **Hoisting.** A constant register written inside a loop, or by
//!    several `Const`s, gets one `Const` at the function's entry instead.
//! 3. **No-ops.** A `Const` or `Move` into a register no instruction
//!    reads is removed, and so is a `Jump` to the next instruction.
//!
//! What it never touches: everything else. Every access, synchronisation,
//! call, back edge (`Loop`, `ForStep` and `Call` spend the step budget),
//! assertion and print stays, in its order, so the scheduling points, the
//! step counts and the faults are those of the unoptimised code. Removing
//! instructions renumbers them: each jump target moves to the first kept
//! instruction at or after it, [`Function::spans`] stays parallel to
//! the code, and [`Function::constructs`] follows its instructions.

use rankcheck_engine::id::{ConstId, Reg};
use rankcheck_engine::ir::{Function, Op, PrintArg, Program, Shape};
use rankcheck_engine::{Span, Value};

use crate::lower::intern_const;
use crate::points_to::register_range;

/// Optimise every function of `program`, interning folded values in its
/// constant pool.
pub fn optimize(program: &mut Program) {
    let Program {
        functions,
        consts,
        shapes,
        prints,
        ..
    } = program;
    let tables = Tables { shapes, prints };
    for function in functions.iter_mut() {
        optimize_function(function, &tables, consts);
    }
}

/// The program tables that say which registers an instruction reads.
struct Tables<'p> {
    shapes: &'p [Shape],
    prints: &'p [Vec<PrintArg>],
}

/// Rewrite `function` to a fixpoint. This ends: folding turns an
/// instruction into a `Const` or a `Jump`, which fold no further; a hoisted
/// register is left with one `Const` at the entry, which no jump targets,
/// so it is never hoisted again; removing no-ops shrinks the code.
fn optimize_function(function: &mut Function, tables: &Tables<'_>, consts: &mut Vec<Value>) {
    while fold(function, tables, consts)
        || hoist(function, tables)
        || remove_no_ops(function, tables)
    {}
}

// ----- What instructions do to registers and control -----

/// What one instruction reads, writes and where control goes next.
struct Effects {
    /// Every register it reads, complete: an instruction that may read a
    /// register the optimiser did not see could read a removed write.
    reads: Vec<Reg>,
    /// The register it writes, if any (`ForStep` both reads and writes its
    /// counter).
    write: Option<Reg>,
    /// Whether control may go on to the next instruction.
    falls_through: bool,
    /// Where else control may go.
    jump: Option<u32>,
}

/// The [`Effects`] of `op`. Exhaustive on purpose, with no catch-all arm: a
/// new instruction must say what it reads, or a write it reads might be
/// removed.
fn effects(op: &Op, tables: &Tables<'_>) -> Effects {
    let mut effects = Effects {
        reads: Vec::new(),
        write: None,
        falls_through: true,
        jump: None,
    };
    match *op {
        Op::Const { dst, .. }
        | Op::SelfId { dst }
        | Op::GetGlobal { dst, .. }
        | Op::GetGlobalObserved { dst, .. }
        | Op::NewMutex { dst, .. }
        | Op::NewCond { dst, .. } => effects.write = Some(dst),
        Op::Move { dst, src } | Op::Neg { dst, src } | Op::Not { dst, src } => {
            effects.write = Some(dst);
            effects.reads = vec![src];
        }
        Op::Add { dst, lhs, rhs }
        | Op::Sub { dst, lhs, rhs }
        | Op::Mul { dst, lhs, rhs }
        | Op::Div { dst, lhs, rhs }
        | Op::Rem { dst, lhs, rhs }
        | Op::Lt { dst, lhs, rhs }
        | Op::Le { dst, lhs, rhs }
        | Op::Gt { dst, lhs, rhs }
        | Op::Ge { dst, lhs, rhs }
        | Op::Eq { dst, lhs, rhs }
        | Op::Ne { dst, lhs, rhs } => {
            effects.write = Some(dst);
            effects.reads = vec![lhs, rhs];
        }
        Op::Jump { target } | Op::Loop { target } => {
            effects.falls_through = false;
            effects.jump = Some(target);
        }
        Op::ForStep {
            counter,
            bound,
            target,
        } => {
            effects.write = Some(counter);
            effects.reads = vec![counter, bound];
            effects.jump = Some(target);
        }
        Op::JumpIfFalse { cond, target }
        | Op::JumpIfTrue { cond, target }
        | Op::AwaitCheck {
            cond,
            retry: target,
        } => {
            effects.reads = vec![cond];
            effects.jump = Some(target);
        }
        Op::Call {
            dst, args, argc, ..
        }
        | Op::Spawn {
            dst, args, argc, ..
        } => {
            effects.write = Some(dst);
            effects.reads = register_range(args, usize::from(argc));
        }
        Op::Return { src } => {
            effects.reads = vec![src];
            effects.falls_through = false;
        }
        Op::SetGlobal { src, .. } | Op::SetGlobalObserved { src, .. } => effects.reads = vec![src],
        Op::GetField { dst, obj, .. } | Op::GetFieldObserved { dst, obj, .. } => {
            effects.write = Some(dst);
            effects.reads = vec![obj];
        }
        Op::SetField { obj, src, .. } | Op::SetFieldObserved { obj, src, .. } => {
            effects.reads = vec![obj, src];
        }
        Op::GetIndex {
            dst, array, index, ..
        }
        | Op::GetIndexObserved {
            dst, array, index, ..
        } => {
            effects.write = Some(dst);
            effects.reads = vec![array, index];
        }
        Op::SetIndex {
            array, index, src, ..
        }
        | Op::SetIndexObserved {
            array, index, src, ..
        } => effects.reads = vec![array, index, src],
        Op::Len { dst, array } => {
            effects.write = Some(dst);
            effects.reads = vec![array];
        }
        Op::NewRecord {
            dst, shape, args, ..
        } => {
            effects.write = Some(dst);
            effects.reads = register_range(args, tables.shapes[shape.index()].fields.len());
        }
        Op::NewArray { dst, len, init, .. } => {
            effects.write = Some(dst);
            effects.reads = vec![len, init];
        }
        Op::Lock { mutex, .. } | Op::Unlock { mutex, .. } => effects.reads = vec![mutex],
        Op::Wait { cond, mutex, .. } => effects.reads = vec![cond, mutex],
        Op::Signal { cond, .. } | Op::Broadcast { cond, .. } => effects.reads = vec![cond],
        Op::Join { thread } => effects.reads = vec![thread],
        Op::Assert { cond, .. } => effects.reads = vec![cond],
        Op::Print { print } => {
            effects.reads = (tables.prints[print.index()].iter())
                .filter_map(|arg| match *arg {
                    PrintArg::Reg(reg) => Some(reg),
                    PrintArg::Str(_) => None,
                })
                .collect();
        }
        Op::Yield | Op::AwaitBegin | Op::AtomicBegin | Op::AtomicEnd => {}
    }
    effects
}

/// `op` with its jump target replaced: the instructions whose
/// [`Effects::jump`] is set.
fn with_target(op: Op, new: u32) -> Op {
    match op {
        Op::Jump { .. } => Op::Jump { target: new },
        Op::Loop { .. } => Op::Loop { target: new },
        Op::ForStep { counter, bound, .. } => Op::ForStep {
            counter,
            bound,
            target: new,
        },
        Op::JumpIfFalse { cond, .. } => Op::JumpIfFalse { cond, target: new },
        Op::JumpIfTrue { cond, .. } => Op::JumpIfTrue { cond, target: new },
        Op::AwaitCheck { cond, .. } => Op::AwaitCheck { cond, retry: new },
        other => unreachable!("invariant: only jumps have a target, found {other:?}"),
    }
}

/// One function's instructions with their effects and control-flow edges.
struct Flow {
    effects: Vec<Effects>,
}

impl Flow {
    fn of(function: &Function, tables: &Tables<'_>) -> Flow {
        Flow {
            effects: function.code.iter().map(|op| effects(op, tables)).collect(),
        }
    }

    /// Where control may go after instruction `pc`.
    fn successors(&self, pc: usize) -> impl Iterator<Item = usize> + '_ {
        let effects = &self.effects[pc];
        let next = effects.falls_through.then_some(pc + 1);
        let jump = effects.jump.map(|target| target as usize);
        next.into_iter()
            .chain(jump)
            .filter(|&s| s < self.effects.len())
    }

    /// `may_be_unset[pc]`: on some path from the function's entry to `pc`,
    /// no instruction has written `reg` yet.
    fn unset_before(&self, reg: Reg) -> Vec<bool> {
        let n = self.effects.len();
        let mut may_be_unset = vec![false; n];
        let mut pending = if n > 0 { vec![0] } else { Vec::new() };
        while let Some(pc) = pending.pop() {
            if std::mem::replace(&mut may_be_unset[pc], true) {
                continue;
            }
            if self.effects[pc].write != Some(reg) {
                pending.extend(self.successors(pc).filter(|&s| !may_be_unset[s]));
            }
        }
        may_be_unset
    }

    /// Whether every read of `reg` comes after a write on every path.
    fn definitely_assigned_at_reads(&self, reg: Reg) -> bool {
        let may_be_unset = self.unset_before(reg);
        (self.effects.iter().zip(may_be_unset))
            .all(|(effects, unset)| !unset || !effects.reads.contains(&reg))
    }

    /// Whether control may come back to `pc` after leaving it: it lies in a
    /// loop.
    fn on_cycle(&self, pc: usize) -> bool {
        let mut seen = vec![false; self.effects.len()];
        let mut pending: Vec<usize> = self.successors(pc).collect();
        while let Some(at) = pending.pop() {
            if at == pc {
                return true;
            }
            if !std::mem::replace(&mut seen[at], true) {
                pending.extend(self.successors(at));
            }
        }
        false
    }
}

/// `constant[r]`: the constant every read of register `r` sees, if it is a
/// constant register (see the module documentation).
fn constant_registers(function: &Function, flow: &Flow) -> Vec<Option<ConstId>> {
    /// What writes a register.
    #[derive(Clone, Copy, PartialEq)]
    enum Writes {
        Nothing,
        Const(ConstId),
        Other,
    }
    let mut writes = vec![Writes::Nothing; usize::from(function.registers)];
    for (op, effects) in function.code.iter().zip(&flow.effects) {
        let Some(dst) = effects.write else { continue };
        let slot = &mut writes[dst.index()];
        *slot = match (*slot, *op) {
            (Writes::Nothing, Op::Const { value, .. }) => Writes::Const(value),
            (Writes::Const(c), Op::Const { value, .. }) if c == value => Writes::Const(c),
            _ => Writes::Other,
        };
    }
    (writes.iter().enumerate())
        .map(|(r, writes)| match *writes {
            // The caller writes the parameters.
            Writes::Const(c)
                if r >= usize::from(function.params)
                    && flow.definitely_assigned_at_reads(Reg(r as u16)) =>
            {
                Some(c)
            }
            _ => None,
        })
        .collect()
}

// ----- The rewrites -----

/// What folding makes of an instruction.
enum Folded {
    /// `dst = value`.
    Const(Reg, Value),
    /// An unconditional jump.
    Jump(u32),
    /// Nothing: a conditional jump never taken.
    Nothing,
}

/// `op` folded, given the constant value of each register that has one;
/// `None` when it stays.
fn folded(op: &Op, value: &dyn Fn(Reg) -> Option<Value>) -> Option<Folded> {
    let int = |reg: Reg| match value(reg) {
        Some(Value::Int(i)) => Some(i),
        _ => None,
    };
    // The checked operations are `None` exactly where the VM faults
    // (overflow, division or remainder by zero): those stay, to fault at
    // run time with the VM's message.
    let arith = |dst, lhs, rhs, f: fn(i64, i64) -> Option<i64>| {
        let result = f(int(lhs)?, int(rhs)?)?;
        Some(Folded::Const(dst, Value::Int(result)))
    };
    let compare = |dst, lhs, rhs, f: fn(&i64, &i64) -> bool| {
        Some(Folded::Const(dst, Value::Bool(f(&int(lhs)?, &int(rhs)?))))
    };
    let equal = |dst, lhs, rhs, same: bool| {
        Some(Folded::Const(
            dst,
            Value::Bool((value(lhs)? == value(rhs)?) == same),
        ))
    };
    let branch = |cond, target, jump_when: bool| match value(cond)? {
        Value::Bool(b) if b == jump_when => Some(Folded::Jump(target)),
        Value::Bool(_) => Some(Folded::Nothing),
        _ => None,
    };
    match *op {
        Op::Move { dst, src } => Some(Folded::Const(dst, value(src)?)),
        Op::Neg { dst, src } => Some(Folded::Const(dst, Value::Int(int(src)?.checked_neg()?))),
        Op::Not { dst, src } => match value(src)? {
            Value::Bool(b) => Some(Folded::Const(dst, Value::Bool(!b))),
            _ => None,
        },
        Op::Add { dst, lhs, rhs } => arith(dst, lhs, rhs, i64::checked_add),
        Op::Sub { dst, lhs, rhs } => arith(dst, lhs, rhs, i64::checked_sub),
        Op::Mul { dst, lhs, rhs } => arith(dst, lhs, rhs, i64::checked_mul),
        Op::Div { dst, lhs, rhs } => arith(dst, lhs, rhs, i64::checked_div),
        Op::Rem { dst, lhs, rhs } => arith(dst, lhs, rhs, i64::checked_rem),
        Op::Lt { dst, lhs, rhs } => compare(dst, lhs, rhs, i64::lt),
        Op::Le { dst, lhs, rhs } => compare(dst, lhs, rhs, i64::le),
        Op::Gt { dst, lhs, rhs } => compare(dst, lhs, rhs, i64::gt),
        Op::Ge { dst, lhs, rhs } => compare(dst, lhs, rhs, i64::ge),
        Op::Eq { dst, lhs, rhs } => equal(dst, lhs, rhs, true),
        Op::Ne { dst, lhs, rhs } => equal(dst, lhs, rhs, false),
        Op::JumpIfFalse { cond, target } => branch(cond, target, false),
        Op::JumpIfTrue { cond, target } => branch(cond, target, true),
        _ => None,
    }
}

/// Fold every instruction whose operands are constant registers. Whether
/// anything changed.
fn fold(function: &mut Function, tables: &Tables<'_>, consts: &mut Vec<Value>) -> bool {
    let flow = Flow::of(function, tables);
    let constant = constant_registers(function, &flow);
    let value = |reg: Reg| constant[reg.index()].map(|c| consts[c.index()]);
    let folds: Vec<(usize, Folded)> = (function.code.iter().enumerate())
        .filter_map(|(pc, op)| Some((pc, folded(op, &value)?)))
        .collect();
    if folds.is_empty() {
        return false;
    }
    let mut keep = vec![true; function.code.len()];
    for (pc, folded) in folds {
        match folded {
            Folded::Const(dst, result) => {
                let value = intern_const(consts, result);
                function.code[pc] = Op::Const { dst, value };
            }
            Folded::Jump(target) => function.code[pc] = Op::Jump { target },
            Folded::Nothing => keep[pc] = false,
        }
    }
    compact(function, tables, &keep, Vec::new());
    true
}

/// Give each constant register written in a loop or by several `Const`s
/// one `Const` at the entry instead. Whether anything changed.
fn hoist(function: &mut Function, tables: &Tables<'_>) -> bool {
    let flow = Flow::of(function, tables);
    let constant = constant_registers(function, &flow);
    let mut keep = vec![true; function.code.len()];
    let mut entry = Vec::new();
    for (r, constant) in constant.iter().enumerate() {
        let Some(value) = *constant else { continue };
        let dst = Reg(r as u16);
        let writes: Vec<usize> = (0..function.code.len())
            .filter(|&pc| flow.effects[pc].write == Some(dst))
            .collect();
        // One write outside every loop runs at most once per call, as the
        // entry's would: nothing to gain.
        if writes.len() < 2 && !writes.iter().any(|&pc| flow.on_cycle(pc)) {
            continue;
        }
        entry.push((Op::Const { dst, value }, function.spans[writes[0]]));
        for pc in writes {
            keep[pc] = false;
        }
    }
    if entry.is_empty() {
        return false;
    }
    compact(function, tables, &keep, entry);
    true
}

/// Remove every `Const` and `Move` into a register nothing reads, and
/// every `Jump` to the next instruction. Whether anything changed.
fn remove_no_ops(function: &mut Function, tables: &Tables<'_>) -> bool {
    let flow = Flow::of(function, tables);
    let mut read = vec![false; usize::from(function.registers)];
    for reg in flow.effects.iter().flat_map(|e| &e.reads) {
        read[reg.index()] = true;
    }
    let keep: Vec<bool> = (function.code.iter().enumerate())
        .map(|(pc, op)| match *op {
            Op::Const { dst, .. } | Op::Move { dst, .. } => read[dst.index()],
            // Control goes to the next instruction either way (the end of
            // an `if` without `else`).
            Op::Jump { target } => target as usize != pc + 1,
            _ => true,
        })
        .collect();
    if keep.iter().all(|&k| k) {
        return false;
    }
    compact(function, tables, &keep, Vec::new());
    true
}

/// Keep the instructions `keep` marks, after `entry` (new instructions that
/// open the function). A jump to a removed instruction goes to the first
/// kept one after it, never into `entry`: removed instructions did nothing
/// control that reaches the next kept one would not see.
fn compact(function: &mut Function, tables: &Tables<'_>, keep: &[bool], entry: Vec<(Op, Span)>) {
    let n = function.code.len();
    // `moved_to[pc]`: where control bound for old `pc` goes now.
    let mut moved_to = vec![0u32; n + 1];
    let mut next = entry.len() + keep.iter().filter(|&&k| k).count();
    moved_to[n] = next as u32;
    for pc in (0..n).rev() {
        if keep[pc] {
            next -= 1;
        }
        moved_to[pc] = next as u32;
    }
    let (mut code, mut spans): (Vec<Op>, Vec<Span>) = entry.into_iter().unzip();
    for pc in (0..n).filter(|&pc| keep[pc]) {
        let op = function.code[pc];
        code.push(match effects(&op, tables).jump {
            Some(target) => with_target(op, moved_to[target as usize]),
            None => op,
        });
        spans.push(function.spans[pc]);
    }
    function.code = code;
    function.spans = spans;
    // The constructs the wording of a fault names (`Function::constructs`,
    // by pc): a kept instruction's moves with it; a removed one could not
    // fault.
    let constructs = std::mem::take(&mut function.constructs);
    function.constructs = constructs
        .into_iter()
        .filter(|&(pc, _)| keep[pc as usize])
        .map(|(pc, construct)| (moved_to[pc as usize], construct))
        .collect();
}

#[cfg(test)]
mod tests {
    use rankcheck_engine::id::{FieldId, FuncId, GlobalId, MutexId, PrintId, ShapeId, SiteId};
    use rankcheck_engine::id::{StrId, VarId};
    use rankcheck_engine::ir::Construct;

    use super::*;

    const INT_0: ConstId = ConstId(0);
    const INT_1: ConstId = ConstId(1);
    const INT_3: ConstId = ConstId(2);
    const NULL: ConstId = ConstId(3);
    const TRUE: ConstId = ConstId(4);
    const MUTEX: ConstId = ConstId(5);
    const INT_MAX: ConstId = ConstId(6);
    /// Where folded results land: the pool's next free slot.
    const FIRST_NEW: ConstId = ConstId(7);

    fn r(n: u16) -> Reg {
        Reg(n)
    }

    fn constant(dst: u16, value: ConstId) -> Op {
        Op::Const { dst: r(dst), value }
    }

    fn set_global(src: u16) -> Op {
        Op::SetGlobalObserved {
            global: GlobalId(0),
            src: r(src),
            site: SiteId(0),
        }
    }

    fn get_global(dst: u16) -> Op {
        Op::GetGlobalObserved {
            dst: r(dst),
            global: GlobalId(0),
            site: SiteId(0),
        }
    }

    /// `body`, then the end every function has: `return null` (in the
    /// last register, which `body` leaves alone).
    fn function(body: Vec<Op>) -> Vec<Op> {
        let end = [constant(15, NULL), Op::Return { src: r(15) }];
        [body, end.to_vec()].concat()
    }

    /// Optimise one function of `params` parameters and `code`, whose
    /// instruction `pc` has span `pc..pc + 1`; the optimised code, the
    /// starts of its spans and the constant pool.
    fn optimized(params: u16, code: Vec<Op>) -> (Vec<Op>, Vec<u32>, Vec<Value>) {
        let (function, consts) = optimized_function(params, code, Vec::new());
        let starts = function.spans.iter().map(|s| s.start).collect();
        (function.code, starts, consts)
    }

    /// [`optimized`], with `constructs` marking instructions: the whole
    /// function and the constant pool.
    fn optimized_function(
        params: u16,
        code: Vec<Op>,
        constructs: Vec<(u32, Construct)>,
    ) -> (Function, Vec<Value>) {
        let spans = (0..code.len() as u32)
            .map(|pc| Span::new(pc, pc + 1))
            .collect();
        let mut program = Program {
            consts: vec![
                Value::Int(0),
                Value::Int(1),
                Value::Int(3),
                Value::Null,
                Value::Bool(true),
                Value::Mutex(MutexId(0)),
                Value::Int(i64::MAX),
            ],
            shapes: vec![Shape {
                fields: vec![FieldId(0), FieldId(1)],
            }],
            prints: vec![vec![PrintArg::Str(StrId(0)), PrintArg::Reg(r(4))]],
            functions: vec![Function {
                name: "f".into(),
                span: Span::new(0, 100),
                params,
                registers: 16,
                code,
                spans,
                constructs,
            }],
            ..Program::default()
        };
        optimize(&mut program);
        let function = program.functions.remove(0);
        assert_eq!(function.code.len(), function.spans.len());
        (function, program.consts)
    }

    /// `code` comes out unchanged.
    fn assert_unchanged(params: u16, code: Vec<Op>) {
        assert_eq!(optimized(params, code.clone()).0, code);
    }

    /// `r3 = op(lhs, rhs)` on two constants, stored.
    fn on_constants(lhs: ConstId, rhs: ConstId, op: Op) -> Vec<Op> {
        function(vec![constant(1, lhs), constant(2, rhs), op, set_global(3)])
    }

    /// The instruction `r3 = r1 OP r2` for each binary operation `make`
    /// builds from its three registers.
    fn binary(make: fn(Reg, Reg, Reg) -> Op) -> Op {
        make(r(3), r(1), r(2))
    }

    /// A fault's wording finds its construct where the instruction went:
    /// a `for` range's test after a `Move` nothing reads, which goes.
    #[test]
    fn constructs_follow_their_instructions() {
        let range_test = Op::Lt {
            dst: r(2),
            lhs: r(0),
            rhs: r(1),
        };
        let dead = Op::Move {
            dst: r(5),
            src: r(0),
        };
        let (function, _) = optimized_function(
            2,
            function(vec![dead, range_test, set_global(2)]),
            vec![(1, Construct::ForRange)],
        );
        assert_eq!(function.code[0], range_test);
        assert_eq!(function.constructs, [(0, Construct::ForRange)]);
    }

    #[test]
    fn writes_nothing_reads_are_removed_to_a_fixpoint() {
        let (code, spans, _) = optimized(
            1,
            function(vec![
                constant(1, INT_1),
                Op::Move {
                    dst: r(2),
                    src: r(1),
                },
                Op::Move {
                    dst: r(3),
                    src: r(0),
                },
            ]),
        );
        assert_eq!(code, function(Vec::new()));
        assert_eq!(spans, [3, 4]);
    }

    /// `for i in 0..n { lock(m); unlock(m); }` with `m`'s constant loaded
    /// in the body: the load leaves the loop, and the back edge that went
    /// to it goes to the instruction after it.
    #[test]
    fn a_constant_in_a_loop_moves_to_the_entry() {
        let code = |entry: Vec<Op>, body_at: u32| {
            let lock = Op::Lock {
                mutex: r(3),
                site: SiteId(0),
            };
            let unlock = Op::Unlock {
                mutex: r(3),
                site: SiteId(0),
            };
            let in_body = if entry.is_empty() {
                vec![constant(3, MUTEX), lock, unlock]
            } else {
                vec![lock, unlock]
            };
            let head = vec![
                constant(1, INT_0),
                Op::Lt {
                    dst: r(2),
                    lhs: r(1),
                    rhs: r(0),
                },
                Op::JumpIfFalse {
                    cond: r(2),
                    target: 7,
                },
            ];
            let step = Op::ForStep {
                counter: r(1),
                bound: r(0),
                target: body_at,
            };
            function([entry, head, in_body, vec![step]].concat())
        };
        let (optimized, spans, _) = optimized(1, code(Vec::new(), 3));
        assert_eq!(optimized, code(vec![constant(3, MUTEX)], 4));
        assert_eq!(spans, [3, 0, 1, 2, 4, 5, 6, 7, 8]);
    }

    /// An `await` condition runs again from its `AwaitBegin`: a constant
    /// it loads leaves that loop too, and the retry still finds the
    /// `AwaitBegin`.
    #[test]
    fn a_constant_in_an_await_condition_moves_to_the_entry() {
        let (code, _, _) = optimized(
            0,
            function(vec![
                Op::AwaitBegin,
                get_global(1),
                constant(2, INT_1),
                binary(|dst, lhs, rhs| Op::Eq { dst, lhs, rhs }),
                Op::AwaitCheck {
                    cond: r(3),
                    retry: 0,
                },
            ]),
        );
        assert_eq!(code[0], constant(2, INT_1));
        let retry = Op::AwaitCheck {
            cond: r(3),
            retry: 1,
        };
        assert_eq!(code[4], retry);
        assert_eq!(code.len(), 7);
    }

    /// The first time round, the read sees `null`: hoisting the `Const`
    /// would make it see 1.
    #[test]
    fn a_register_read_before_its_constant_on_some_path_keeps_its_consts() {
        assert_unchanged(
            0,
            function(vec![
                set_global(1),
                constant(1, INT_1),
                constant(1, INT_1),
                Op::Loop { target: 0 },
            ]),
        );
    }

    /// `if c { x = 1 }`, then `x + x`: on the other branch `x` is `null`,
    /// and the addition must fault.
    #[test]
    fn a_constant_in_one_branch_only_is_not_folded_after_the_join() {
        assert_unchanged(
            1,
            function(vec![
                Op::JumpIfFalse {
                    cond: r(0),
                    target: 2,
                },
                constant(1, INT_1),
                Op::Add {
                    dst: r(3),
                    lhs: r(1),
                    rhs: r(1),
                },
                set_global(3),
            ]),
        );
    }

    /// With the same constant on both branches, the join sees it either
    /// way.
    #[test]
    fn a_constant_on_both_branches_is_folded_after_the_join() {
        let (code, spans, consts) = optimized(
            1,
            function(vec![
                Op::JumpIfFalse {
                    cond: r(0),
                    target: 3,
                },
                constant(1, INT_1),
                Op::Jump { target: 4 },
                constant(1, INT_1),
                Op::Add {
                    dst: r(3),
                    lhs: r(1),
                    rhs: r(1),
                },
                set_global(3),
            ]),
        );
        assert_eq!(consts[FIRST_NEW.index()], Value::Int(2));
        // The `then` branch is left with a jump to the next instruction,
        // which goes too.
        let expected = function(vec![
            Op::JumpIfFalse {
                cond: r(0),
                target: 1,
            },
            constant(3, FIRST_NEW),
            set_global(3),
        ]);
        assert_eq!(code, expected);
        assert_eq!(spans, [0, 4, 5, 6, 7]);
    }

    /// A parameter holds the caller's value until its first write.
    #[test]
    fn a_parameter_is_never_a_constant() {
        assert_unchanged(
            1,
            function(vec![
                set_global(0),
                constant(0, INT_1),
                Op::Neg {
                    dst: r(3),
                    src: r(0),
                },
                set_global(3),
                Op::Loop { target: 0 },
            ]),
        );
    }

    /// Both must still fault at run time, with the VM's message.
    #[test]
    fn division_by_zero_and_overflow_are_not_folded() {
        let div = binary(|dst, lhs, rhs| Op::Div { dst, lhs, rhs });
        let rem = binary(|dst, lhs, rhs| Op::Rem { dst, lhs, rhs });
        let add = binary(|dst, lhs, rhs| Op::Add { dst, lhs, rhs });
        assert_unchanged(0, on_constants(INT_1, INT_0, div));
        assert_unchanged(0, on_constants(INT_1, INT_0, rem));
        assert_unchanged(0, on_constants(INT_MAX, INT_1, add));
    }

    /// A comparison of a non-integer faults: it stays.
    #[test]
    fn a_comparison_of_non_integers_is_not_folded() {
        let lt = binary(|dst, lhs, rhs| Op::Lt { dst, lhs, rhs });
        assert_unchanged(0, on_constants(TRUE, INT_1, lt));
    }

    /// `assert(counter == 3 * 3)`: the product folds, its operands go.
    #[test]
    fn arithmetic_and_equality_on_constants_fold() {
        let (code, spans, consts) = optimized(
            0,
            function(vec![
                get_global(4),
                constant(6, INT_3),
                constant(7, INT_3),
                Op::Mul {
                    dst: r(5),
                    lhs: r(6),
                    rhs: r(7),
                },
                Op::Eq {
                    dst: r(3),
                    lhs: r(4),
                    rhs: r(5),
                },
                Op::Assert {
                    cond: r(3),
                    message: None,
                },
            ]),
        );
        assert_eq!(consts[FIRST_NEW.index()], Value::Int(9));
        assert_eq!(code[1], constant(5, FIRST_NEW));
        assert_eq!(code.len(), 6);
        assert_eq!(spans, [0, 3, 4, 5, 6, 7]);
    }

    /// `!(1 != null)` is false: any two values compare.
    #[test]
    fn equality_folds_on_values_of_different_types() {
        let ne = binary(|dst, lhs, rhs| Op::Ne { dst, lhs, rhs });
        let mut code = on_constants(INT_1, NULL, ne);
        code[3] = Op::Not {
            dst: r(5),
            src: r(3),
        };
        code.insert(4, set_global(5));
        let (code, _, consts) = optimized(0, code);
        // `1 != null` is `true`, already in the pool; `!true` is new.
        assert_eq!(consts[FIRST_NEW.index()], Value::Bool(false));
        assert_eq!(code, function(vec![constant(5, FIRST_NEW), set_global(5)]));
    }

    #[test]
    fn a_branch_never_taken_goes_and_one_always_taken_becomes_a_jump() {
        let code = |branch: Op| function(vec![constant(1, TRUE), branch, set_global(0)]);
        let (never, _, _) = optimized(
            1,
            code(Op::JumpIfFalse {
                cond: r(1),
                target: 3,
            }),
        );
        assert_eq!(never, function(vec![set_global(0)]));
        let (always, _, _) = optimized(
            1,
            code(Op::JumpIfTrue {
                cond: r(1),
                target: 3,
            }),
        );
        assert_eq!(
            always,
            function(vec![Op::Jump { target: 2 }, set_global(0)])
        );
    }

    /// Registers read through argument ranges, record fields and print
    /// arguments keep their writes; one constant outside loops stays where
    /// it is.
    #[test]
    fn reads_through_ranges_and_print_lists_count() {
        assert_unchanged(
            0,
            function(vec![
                constant(1, INT_1),
                constant(2, INT_3),
                Op::Call {
                    dst: r(3),
                    func: FuncId(0),
                    args: r(1),
                    argc: 2,
                },
                constant(1, INT_0),
                constant(2, INT_0),
                Op::NewRecord {
                    dst: r(3),
                    shape: ShapeId(0),
                    args: r(1),
                    var: VarId(0),
                },
                constant(4, INT_1),
                Op::Print { print: PrintId(0) },
            ]),
        );
    }
}
