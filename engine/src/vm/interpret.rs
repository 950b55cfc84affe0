//! The interpreter loop: runs one thread from where it stopped to its next
//! scheduling point (docs/LANGUAGE.md, Steps and scheduling points).

use crate::executable::{Executable, NO_SLOT};
use crate::id::{CondId, MutexId, ObjId, SiteId, ThreadId, VarId};
use crate::ir::{Op, PrintArg};
use crate::outcome::BugKind;
use crate::random::RandomScheduler;
use crate::scheduler::{Event, EventKind, Loc, Location, Pending, Scheduler};
use crate::value::Value;

use super::stack::Stack;
use super::{Fault, Frame, PrintLine, Status, Vm};

impl<'e> Vm<'e> {
    /// [`Vm::interpret`] as a call of its own, for the rare callers
    /// (evaluating an `await` condition, looking ahead): the scheduling
    /// loop gets the loop inlined, these share one copy.
    #[inline(never)]
    pub(super) fn interpret_outlined(
        &mut self,
        exe: &'e Executable,
        thread: ThreadId,
        stacks: &mut Vec<Stack>,
    ) -> Result<Event, Fault> {
        self.interpret::<&mut RandomScheduler, true>(exe, thread, stacks, None)
    }

    /// The interpreter loop proper, on the running thread's registers and
    /// frames in `stacks` (every thread's, held out of the machine).
    ///
    /// When `self.speculating`, the thread only evaluates an `await`
    /// condition to see whether it could run: the loop returns at the
    /// `AwaitCheck` with [`EventKind::Await`] (true) or
    /// [`EventKind::AwaitBlocked`] (false) and changes nothing else; the
    /// caller restores the thread.
    ///
    /// `LOOKS_AHEAD`: whether this copy of the loop may run with
    /// `self.peeking` (the outlined one); the scheduling loop's copy never
    /// does, and leaves out the test at every visible operation.
    ///
    /// `in_place`: the scheduler, when it is silent when it has no choice
    /// (see [`crate::Scheduler::silent_when_alone`]) and looks at no
    /// pending operation. At a scheduling point the loop then does what the
    /// scheduling loop would ([`Vm::pass_in_place`]: passes a lone point
    /// without asking, else asks the scheduler the same question) and goes
    /// on when the thread is chosen again, instead of returning to the
    /// scheduling loop to be chosen there.
    #[allow(clippy::too_many_lines)]
    #[inline(always)]
    pub(super) fn interpret<S: Scheduler, const LOOKS_AHEAD: bool>(
        &mut self,
        exe: &'e Executable,
        mut thread: ThreadId,
        stacks: &mut Vec<Stack>,
        mut in_place: Option<&mut S>,
    ) -> Result<Event, Fault> {
        let program = exe.program();
        // The running thread's frames, and the registers of its top frame
        // (`regs[r]` is register `r` of the frame, whose registers start at
        // the frame's `base` in the thread's register file): a slice, so
        // that a register access is one bounds check with no base to add.
        // Both are borrowed again after a call that needs every thread's (a
        // spawn, an `await` condition) or changes the frame. The base is
        // read from the top frame where needed rather than kept in a local:
        // the loop's locals compete for the machine's registers.
        let stack = &mut stacks[thread.index()];
        let mut frames = &mut stack.frames;
        let Some(top) = frames.last() else {
            unreachable!("invariant: a runnable thread has a frame")
        };
        let mut func = top.func;
        let mut code: &[Op] = &exe.code[func.index()];
        let mut pc = top.pc as usize;
        let mut regs = &mut stack.regs[top.base as usize..];
        macro_rules! borrow_stack {
            () => {{
                let stack = &mut stacks[thread.index()];
                frames = &mut stack.frames;
                let Some(top) = frames.last() else {
                    unreachable!("invariant: a runnable thread has a frame")
                };
                regs = &mut stack.regs[top.base as usize..];
            }};
        }

        loop {
            // The macros are defined inside the loops so that `stop!` can name
            // the dispatch loop.
            let point = 'dispatch: loop {
                // Leave the dispatch loop at a scheduling point, for the one place
                // that decides whether the thread goes on or the loop returns.
                macro_rules! stop {
                    ($kind:expr, $site:expr, $var:expr, $tracked:expr) => {{
                        let loc = Loc {
                            func,
                            pc: (pc - 1) as u32,
                        };
                        break 'dispatch Event {
                            kind: $kind,
                            site: $site,
                            var: $var,
                            tracked: $tracked,
                            loc: Some(loc),
                        };
                    }};
                }
                macro_rules! fault {
            ($kind:expr, $($msg:tt)*) => {{
                if let Some(frame) = frames.last_mut() {
                    frame.pc = pc as u32;
                }
                return Err(Fault { kind: $kind, message: format!($($msg)*), loc: Loc { func, pc: (pc - 1) as u32 } });
            }};
        }
                macro_rules! error {
            ($($msg:tt)*) => { fault!(BugKind::Error, $($msg)*) };
        }
                macro_rules! reg {
                    ($r:expr) => {
                        regs[$r.0 as usize]
                    };
                }
                macro_rules! int {
                    ($r:expr, $what:expr) => {
                        match reg!($r) {
                            Value::Int(i) => i,
                            other => error!("{} needs an int, found {}", $what, other.type_name()),
                        }
                    };
                }
                macro_rules! arith {
                    ($dst:expr, $lhs:expr, $rhs:expr, $method:ident, $sym:expr) => {{
                        let a = int!($lhs, concat!("`", $sym, "`"));
                        let b = int!($rhs, concat!("`", $sym, "`"));
                        match a.$method(b) {
                            Some(v) => reg!($dst) = Value::Int(v),
                            None => error!("integer overflow in `{} {} {}`", a, $sym, b),
                        }
                    }};
                }
                macro_rules! compare {
            ($dst:expr, $lhs:expr, $rhs:expr, $op:tt, $sym:expr) => {{
                let a = int!($lhs, concat!("`", $sym, "`"));
                let b = int!($rhs, concat!("`", $sym, "`"));
                reg!($dst) = Value::Bool(a $op b);
            }};
        }
                macro_rules! boolean {
                    ($r:expr, $what:expr) => {
                        match reg!($r) {
                            Value::Bool(b) => b,
                            other => {
                                error!("{} must be a bool, found {}", $what, other.type_name())
                            }
                        }
                    };
                }
                macro_rules! in_atomic {
                    () => {
                        self.threads[thread.index()].atomic_depth > 0
                    };
                }
                // A tracked access: a scheduling point where priorities may change,
                // or inside `atomic`, one at the block's end.
                macro_rules! tracked_access {
                    ($kind:expr, $var:expr, $site:expr) => {{
                        let var: VarId = $var;
                        let state = &mut self.threads[thread.index()];
                        if state.atomic_depth == 0 {
                            stop!($kind, $site, Some(var), true);
                        } else if state.atomic_touched.is_none() {
                            state.atomic_touched = $site.map(|site: SiteId| (var, site));
                        }
                    }};
                }
                // A synchronisation operation: always a scheduling point (at the end
                // of an enclosing `atomic` block), where priorities may change when
                // the mutex or condition variable is tracked.
                macro_rules! sync {
                    ($kind:expr, $site:expr, $var:expr, $tracked:expr) => {{
                        if $tracked {
                            tracked_access!($kind, $var, Some($site));
                        }
                        let state = &mut self.threads[thread.index()];
                        if state.atomic_depth == 0 {
                            stop!($kind, Some($site), Some($var), false);
                        }
                        state.atomic_synced = true;
                    }};
                }
                // A synchronisation operation on no variable (spawn, join, yield).
                macro_rules! thread_sync {
                    ($kind:expr) => {{
                        let state = &mut self.threads[thread.index()];
                        if state.atomic_depth == 0 {
                            stop!($kind, None, None, false);
                        }
                        state.atomic_synced = true;
                    }};
                }
                // The end of an observed read.
                macro_rules! observe_read {
                    ($var:expr, $tracked:expr, $site:expr) => {{
                        let var: VarId = $var;
                        self.log(Some(var), false);
                        if $tracked {
                            tracked_access!(EventKind::Read, var, Some($site));
                        }
                    }};
                }
                // The end of an observed write: a scheduling point when the variable
                // is tracked, or when the write let a thread blocked in `await` run.
                macro_rules! observe_write {
                    ($var:expr, $tracked:expr, $site:expr) => {{
                        let var: VarId = $var;
                        self.log(Some(var), true);
                        let woke = !self.awaiters.is_empty() && exe.awaited[var.index()] && {
                            let woke = self.refresh_awaiters(stacks);
                            borrow_stack!();
                            woke
                        };
                        if $tracked {
                            tracked_access!(EventKind::Write, var, Some($site));
                        } else if woke {
                            let state = &mut self.threads[thread.index()];
                            if state.atomic_depth == 0 {
                                stop!(EventKind::Write, Some($site), Some(var), false);
                            }
                            state.atomic_synced = true;
                        }
                    }};
                }
                macro_rules! object {
                    ($r:expr, $what:expr) => {
                        match reg!($r) {
                            Value::Ref(obj) => obj,
                            Value::Null => error!("null dereference: {} of null", $what),
                            other => {
                                error!("{} needs a reference, found {}", $what, other.type_name())
                            }
                        }
                    };
                }
                macro_rules! field_index {
                    ($obj:expr, $field:expr) => {{
                        let obj: ObjId = $obj;
                        let Some(shape) = self.heap.shape(obj) else {
                            error!("field `{}` of an array", program.fields[$field.index()])
                        };
                        let slot =
                            exe.field_slots[shape.index() * program.fields.len() + $field.index()];
                        if slot == NO_SLOT {
                            error!(
                                "the record has no field `{}`",
                                program.fields[$field.index()]
                            )
                        }
                        self.heap.slot_index(obj, slot)
                    }};
                }
                macro_rules! element_index {
                    ($array:expr, $index:expr) => {{
                        let obj = object!($array, "indexing");
                        let Some(len) = self.heap.array_len(obj) else {
                            error!("indexing needs an array, found a record")
                        };
                        let i = int!($index, "an array index");
                        if i < 0 || i >= len as i64 {
                            error!("index {} out of bounds for an array of length {}", i, len)
                        }
                        (obj, self.heap.slot_index(obj, i as u32))
                    }};
                }
                macro_rules! mutex {
                    ($r:expr, $what:expr) => {
                        match reg!($r) {
                            Value::Mutex(m) => m,
                            other => error!("{} needs a mutex, found {}", $what, other.type_name()),
                        }
                    };
                }
                macro_rules! cond {
                    ($r:expr, $what:expr) => {
                        match reg!($r) {
                            Value::Cond(c) => c,
                            other => error!("{} needs a cond, found {}", $what, other.type_name()),
                        }
                    };
                }
                // Looking ahead (see `pending.rs`): stop before this visible
                // operation, reporting what it would touch.
                macro_rules! peek {
                    ($location:expr, $var:expr, $write:expr) => {
                        if LOOKS_AHEAD && self.peeking {
                            self.peeked = Some(Pending {
                                location: $location,
                                var: $var,
                                write: $write,
                            });
                            return Ok(Event::START);
                        }
                    };
                }
                // Block the thread at the current instruction and switch: never a
                // place for a change point, since the thread cannot go on.
                macro_rules! block {
                    ($var:expr) => {{
                        self.threads[thread.index()].blocked_at = Loc {
                            func,
                            pc: (pc - 1) as u32,
                        };
                        stop!(EventKind::Blocked, None, $var, false);
                    }};
                }

                // Matched in place rather than copied out, so that each
                // arm loads only the operands it uses.
                let at = pc;
                pc += 1;
                match code[at] {
                    Op::Const { dst, value } => reg!(dst) = program.consts[value.index()],
                    Op::Move { dst, src } => reg!(dst) = reg!(src),
                    Op::Neg { dst, src } => {
                        let a = int!(src, "unary `-`");
                        match a.checked_neg() {
                            Some(v) => reg!(dst) = Value::Int(v),
                            None => error!("integer overflow in `-({})`", a),
                        }
                    }
                    Op::Not { dst, src } => {
                        let b = boolean!(src, "the operand of `!`");
                        reg!(dst) = Value::Bool(!b);
                    }
                    Op::Add { dst, lhs, rhs } => arith!(dst, lhs, rhs, checked_add, "+"),
                    Op::Sub { dst, lhs, rhs } => arith!(dst, lhs, rhs, checked_sub, "-"),
                    Op::Mul { dst, lhs, rhs } => arith!(dst, lhs, rhs, checked_mul, "*"),
                    Op::Div { dst, lhs, rhs } => {
                        if reg!(rhs) == Value::Int(0) {
                            error!("division by zero")
                        }
                        arith!(dst, lhs, rhs, checked_div, "/")
                    }
                    Op::Rem { dst, lhs, rhs } => {
                        if reg!(rhs) == Value::Int(0) {
                            error!("remainder by zero")
                        }
                        arith!(dst, lhs, rhs, checked_rem, "%")
                    }
                    Op::Lt { dst, lhs, rhs } => compare!(dst, lhs, rhs, <, "<"),
                    Op::Le { dst, lhs, rhs } => compare!(dst, lhs, rhs, <=, "<="),
                    Op::Gt { dst, lhs, rhs } => compare!(dst, lhs, rhs, >, ">"),
                    Op::Ge { dst, lhs, rhs } => compare!(dst, lhs, rhs, >=, ">="),
                    Op::Eq { dst, lhs, rhs } => reg!(dst) = Value::Bool(reg!(lhs) == reg!(rhs)),
                    Op::Ne { dst, lhs, rhs } => reg!(dst) = Value::Bool(reg!(lhs) != reg!(rhs)),
                    Op::Jump { target } => pc = target as usize,
                    Op::Loop { target } => {
                        if self.budget == 0 {
                            fault!(BugKind::StepLimit, "{}", self.step_limit_message());
                        }
                        self.budget -= 1;
                        pc = target as usize;
                    }
                    Op::ForStep {
                        counter,
                        bound,
                        target,
                    } => {
                        // The entry test made both ints and the counter below
                        // the bound, and the loop body cannot assign them.
                        let (Value::Int(i), Value::Int(end)) = (reg!(counter), reg!(bound)) else {
                            unreachable!("invariant: for-loop registers hold ints")
                        };
                        if i + 1 < end {
                            if self.budget == 0 {
                                fault!(BugKind::StepLimit, "{}", self.step_limit_message());
                            }
                            self.budget -= 1;
                            reg!(counter) = Value::Int(i + 1);
                            pc = target as usize;
                        }
                    }
                    Op::JumpIfFalse { cond, target } => {
                        if !boolean!(cond, "a condition") {
                            pc = target as usize;
                        }
                    }
                    Op::JumpIfTrue { cond, target } => {
                        if boolean!(cond, "a condition") {
                            pc = target as usize;
                        }
                    }
                    Op::Call {
                        dst,
                        func: callee,
                        args,
                        argc,
                    } => {
                        if self.budget == 0 {
                            fault!(BugKind::StepLimit, "{}", self.step_limit_message());
                        }
                        self.budget -= 1;
                        if frames.len() >= self.limits.max_call_depth {
                            error!(
                                "call stack overflow: more than {} nested calls",
                                self.limits.max_call_depth
                            )
                        }
                        let callee_fn = &program.functions[callee.index()];
                        let stack = &mut stacks[thread.index()];
                        let file = &mut stack.regs;
                        frames = &mut stack.frames;
                        let new_base = file.len();
                        file.resize(new_base + callee_fn.registers as usize, Value::Null);
                        let Some(frame) = frames.last_mut() else {
                            unreachable!("invariant: a running thread has a frame")
                        };
                        let first = frame.base as usize + args.0 as usize;
                        file.copy_within(first..first + argc as usize, new_base);
                        frame.pc = pc as u32;
                        frames.push(Frame {
                            func: callee,
                            pc: 0,
                            base: new_base as u32,
                            ret: dst,
                        });
                        func = callee;
                        code = &exe.code[func.index()];
                        pc = 0;
                        regs = &mut file[new_base..];
                    }
                    Op::Return { src } => {
                        let value = reg!(src);
                        let stack = &mut stacks[thread.index()];
                        frames = &mut stack.frames;
                        let Some(done) = frames.pop() else {
                            unreachable!("invariant: a running thread has a frame")
                        };
                        stack.regs.truncate(done.base as usize);
                        match frames.last() {
                            Some(caller) => {
                                func = caller.func;
                                code = &exe.code[func.index()];
                                pc = caller.pc as usize;
                                regs = &mut stack.regs[caller.base as usize..];
                                reg!(done.ret) = value;
                            }
                            None => {
                                // The thread's function returned: the thread ends.
                                frames.push(done);
                                peek!(None, None, false);
                                if in_atomic!() {
                                    error!("the thread ended inside an atomic block")
                                }
                                frames.clear();
                                return Ok(Event {
                                    kind: EventKind::Finished,
                                    site: None,
                                    var: None,
                                    tracked: false,
                                    loc: Some(Loc {
                                        func,
                                        pc: (pc - 1) as u32,
                                    }),
                                });
                            }
                        }
                    }

                    Op::GetGlobal { dst, global, .. } => reg!(dst) = self.globals[global.index()],
                    Op::GetGlobalObserved { dst, global, site } => {
                        let var = program.globals[global.index()].var;
                        peek!(Some(Location::Global(global.0)), Some(var), false);
                        reg!(dst) = self.globals[global.index()];
                        observe_read!(var, exe.tracked[var.index()], site);
                    }
                    Op::SetGlobal { global, src, .. } => self.globals[global.index()] = reg!(src),
                    Op::SetGlobalObserved { global, src, site } => {
                        let var = program.globals[global.index()].var;
                        peek!(Some(Location::Global(global.0)), Some(var), true);
                        self.globals[global.index()] = reg!(src);
                        observe_write!(var, exe.tracked[var.index()], site);
                    }
                    Op::GetField {
                        dst, obj, field, ..
                    } => {
                        let o = object!(
                            obj,
                            format!("reading field `{}`", program.fields[field.index()])
                        );
                        let i = field_index!(o, field);
                        reg!(dst) = self.heap.get(i);
                    }
                    Op::GetFieldObserved {
                        dst,
                        obj,
                        field,
                        site,
                    } => {
                        let o = object!(
                            obj,
                            format!("reading field `{}`", program.fields[field.index()])
                        );
                        let i = field_index!(o, field);
                        peek!(
                            Some(Location::Slot(i as u32)),
                            Some(self.heap.var(o)),
                            false
                        );
                        reg!(dst) = self.heap.get(i);
                        observe_read!(self.heap.var(o), self.heap.tracked(o), site);
                    }
                    Op::SetField {
                        obj, field, src, ..
                    } => {
                        let o = object!(
                            obj,
                            format!("writing field `{}`", program.fields[field.index()])
                        );
                        let i = field_index!(o, field);
                        self.heap.set(i, reg!(src));
                    }
                    Op::SetFieldObserved {
                        obj,
                        field,
                        src,
                        site,
                    } => {
                        let o = object!(
                            obj,
                            format!("writing field `{}`", program.fields[field.index()])
                        );
                        let i = field_index!(o, field);
                        peek!(Some(Location::Slot(i as u32)), Some(self.heap.var(o)), true);
                        self.heap.set(i, reg!(src));
                        observe_write!(self.heap.var(o), self.heap.tracked(o), site);
                    }
                    Op::GetIndex {
                        dst, array, index, ..
                    } => {
                        let (_, i) = element_index!(array, index);
                        reg!(dst) = self.heap.get(i);
                    }
                    Op::GetIndexObserved {
                        dst,
                        array,
                        index,
                        site,
                    } => {
                        let (o, i) = element_index!(array, index);
                        peek!(
                            Some(Location::Slot(i as u32)),
                            Some(self.heap.var(o)),
                            false
                        );
                        reg!(dst) = self.heap.get(i);
                        observe_read!(self.heap.var(o), self.heap.tracked(o), site);
                    }
                    Op::SetIndex {
                        array, index, src, ..
                    } => {
                        let (_, i) = element_index!(array, index);
                        self.heap.set(i, reg!(src));
                    }
                    Op::SetIndexObserved {
                        array,
                        index,
                        src,
                        site,
                    } => {
                        let (o, i) = element_index!(array, index);
                        peek!(Some(Location::Slot(i as u32)), Some(self.heap.var(o)), true);
                        self.heap.set(i, reg!(src));
                        observe_write!(self.heap.var(o), self.heap.tracked(o), site);
                    }
                    Op::Len { dst, array } => {
                        let o = object!(array, "`len`");
                        let Some(len) = self.heap.array_len(o) else {
                            error!("`len` needs an array, found a record")
                        };
                        reg!(dst) = Value::Int(i64::from(len));
                    }

                    Op::NewRecord {
                        dst,
                        shape,
                        args,
                        var,
                    } => {
                        let n = program.shapes[shape.index()].fields.len();
                        let first = args.0 as usize;
                        let limit = self.limits.max_heap_slots;
                        let tracked = self.allocation_tracked(exe, var, frames, func);
                        match self.heap.new_record(
                            var,
                            shape,
                            &regs[first..first + n],
                            limit,
                            tracked,
                        ) {
                            Ok(obj) => reg!(dst) = Value::Ref(obj),
                            Err(_) => error!("heap exhausted: more than {} slots allocated", limit),
                        }
                    }
                    Op::NewArray {
                        dst,
                        len,
                        init,
                        var,
                    } => {
                        let n = int!(len, "an array length");
                        if n < 0 {
                            error!("negative array length {}", n)
                        }
                        let limit = self.limits.max_heap_slots;
                        let Ok(n) = u32::try_from(n) else {
                            error!("heap exhausted: an array of {} elements", n)
                        };
                        let tracked = self.allocation_tracked(exe, var, frames, func);
                        match self.heap.new_array(var, n, reg!(init), limit, tracked) {
                        Ok(obj) => reg!(dst) = Value::Ref(obj),
                        Err(_) => error!(
                            "heap exhausted: an array of {} elements would pass the limit of {} slots",
                            n,
                            limit
                        ),
                    }
                    }
                    Op::NewMutex { dst, var } => {
                        let tracked = self.allocation_tracked(exe, var, frames, func);
                        let id = self.push_mutex(var, tracked);
                        reg!(dst) = Value::Mutex(id);
                    }
                    Op::NewCond { dst, var } => {
                        let id = CondId(self.conds.len() as u32);
                        let tracked = self.allocation_tracked(exe, var, frames, func);
                        self.conds.push(super::CondState {
                            tracked,
                            var,
                            waiters: Default::default(),
                        });
                        reg!(dst) = Value::Cond(id);
                    }

                    Op::Lock { mutex, site } => {
                        let m: MutexId = mutex!(mutex, "`lock`");
                        let state = self.mutexes[m.index()];
                        peek!(Some(Location::Mutex(m.0)), Some(state.var), true);
                        if state.owner.is_none() {
                            self.take_mutex(m, thread);
                            sync!(EventKind::Lock, site, state.var, state.tracked);
                        } else if in_atomic!() {
                            error!(
                                "`lock` of `{}` would block inside an atomic block",
                                program.vars[state.var.index()].name
                            )
                        } else {
                            self.log(Some(state.var), false);
                            self.block_on_mutex(thread, m, false);
                            block!(Some(state.var));
                        }
                    }
                    Op::Unlock { mutex, site } => {
                        let m = mutex!(mutex, "`unlock`");
                        let state = self.mutexes[m.index()];
                        peek!(Some(Location::Mutex(m.0)), Some(state.var), true);
                        if state.owner != Some(thread) {
                            let name = &program.vars[state.var.index()].name;
                            match state.owner {
                                None => error!("unlock of mutex `{}`, which is not locked", name),
                                Some(_) => {
                                    error!("unlock of mutex `{}`, which another thread holds", name)
                                }
                            }
                        }
                        self.release(m);
                        sync!(EventKind::Unlock, site, state.var, state.tracked);
                    }
                    Op::Wait {
                        cond: c,
                        mutex,
                        site,
                    } => {
                        let cv = cond!(c, "`wait`");
                        let m = mutex!(mutex, "`wait`");
                        let state = self.mutexes[m.index()];
                        // A wait races first with the signals it could miss.
                        peek!(
                            Some(Location::Cond(cv.0)),
                            Some(self.conds[cv.index()].var),
                            true
                        );
                        if state.owner != Some(thread) {
                            error!(
                                "wait with mutex `{}`, which this thread does not hold",
                                program.vars[state.var.index()].name
                            )
                        }
                        if in_atomic!() {
                            error!("`wait` would block inside an atomic block")
                        }
                        self.release(m);
                        let var = self.conds[cv.index()].var;
                        self.log(Some(var), true);
                        self.conds[cv.index()].waiters.push_back(thread);
                        self.status[thread.index()] = Status::Waiting { cond: cv, mutex: m };
                        self.enabled.remove(thread);
                        self.threads[thread.index()].blocked_at = Loc {
                            func,
                            pc: (pc - 1) as u32,
                        };
                        // The thread cannot go on: no change point here.
                        stop!(EventKind::Wait, Some(site), Some(var), false);
                    }
                    Op::Signal { cond: c, site } => {
                        let cv = cond!(c, "`signal`");
                        peek!(
                            Some(Location::Cond(cv.0)),
                            Some(self.conds[cv.index()].var),
                            true
                        );
                        if let Some(woken) = self.conds[cv.index()].waiters.pop_front() {
                            self.wake(woken);
                        }
                        let (var, tracked) =
                            (self.conds[cv.index()].var, self.conds[cv.index()].tracked);
                        self.log(Some(var), true);
                        sync!(EventKind::Signal, site, var, tracked);
                    }
                    Op::Broadcast { cond: c, site } => {
                        let cv = cond!(c, "`broadcast`");
                        peek!(
                            Some(Location::Cond(cv.0)),
                            Some(self.conds[cv.index()].var),
                            true
                        );
                        while let Some(woken) = self.conds[cv.index()].waiters.pop_front() {
                            self.wake(woken);
                        }
                        let (var, tracked) =
                            (self.conds[cv.index()].var, self.conds[cv.index()].tracked);
                        self.log(Some(var), true);
                        sync!(EventKind::Broadcast, site, var, tracked);
                    }
                    Op::Spawn {
                        dst,
                        func: callee,
                        args,
                        argc,
                    } => {
                        peek!(None, None, false);
                        if self.n_threads >= self.limits.max_threads {
                            error!(
                                "too many threads: spawning one more than the limit of {}",
                                self.limits.max_threads
                            )
                        }
                        let first = args.0 as usize;
                        self.scratch.clear();
                        self.scratch
                            .extend_from_slice(&regs[first..first + argc as usize]);
                        let child = self.add_thread(callee, super::Origin::Spawned(callee), stacks);
                        let child_regs = &mut stacks[child.index()].regs;
                        child_regs[..argc as usize].copy_from_slice(&self.scratch);
                        borrow_stack!();
                        reg!(dst) = Value::Thread(child);
                        self.log(None, true);
                        thread_sync!(EventKind::Spawn);
                    }
                    Op::Join { thread: handle } => {
                        peek!(None, None, false);
                        let target = match reg!(handle) {
                            Value::Thread(t) => t,
                            other => {
                                error!("`join` needs a thread handle, found {}", other.type_name())
                            }
                        };
                        self.log(None, false);
                        if self.status[target.index()] == Status::Finished {
                            thread_sync!(EventKind::Join);
                        } else if in_atomic!() {
                            error!("`join` would block inside an atomic block")
                        } else {
                            self.status[thread.index()] = Status::Joining { thread: target };
                            self.enabled.remove(thread);
                            self.threads[target.index()].joiners.push(thread);
                            block!(None);
                        }
                    }
                    Op::Yield => {
                        peek!(None, None, false);
                        thread_sync!(EventKind::Yield)
                    }
                    Op::AwaitBegin => {
                        // Looking ahead goes on into the condition: its first
                        // shared read is what the `await` touches.
                        self.threads[thread.index()].atomic_depth += 1;
                    }
                    Op::AtomicBegin => {
                        self.threads[thread.index()].atomic_depth += 1;
                    }
                    Op::AwaitCheck { cond, retry } => {
                        peek!(None, None, false);
                        let ready = boolean!(cond, "an `await` condition");
                        if self.speculating {
                            let kind = if ready {
                                EventKind::Await
                            } else {
                                EventKind::AwaitBlocked
                            };
                            return Ok(Event {
                                kind,
                                site: None,
                                var: None,
                                tracked: false,
                                loc: None,
                            });
                        }
                        let state = &mut self.threads[thread.index()];
                        state.atomic_depth -= 1;
                        if state.atomic_depth > 0 {
                            if !ready {
                                error!("`await` would block inside an atomic block")
                            }
                        } else if ready {
                            // Passing an `await` is a synchronisation operation;
                            // a change point may follow when the condition read
                            // a tracked variable.
                            let touched = state.atomic_touched.take();
                            state.atomic_synced = false;
                            let (var, site) = touched.unzip();
                            stop!(EventKind::Await, site, var, var.is_some());
                        } else {
                            // Block until the condition is true; the frame goes
                            // back to the AwaitBegin to evaluate it again.
                            state.atomic_touched = None;
                            state.atomic_synced = false;
                            let loc = Loc {
                                func,
                                pc: (pc - 1) as u32,
                            };
                            state.blocked_at = loc;
                            if let Some(frame) = frames.last_mut() {
                                frame.pc = retry;
                            }
                            self.status[thread.index()] = Status::Awaiting { ready: false };
                            self.enabled.remove(thread);
                            self.awaiters.push(thread);
                            return Ok(Event {
                                kind: EventKind::AwaitBlocked,
                                site: None,
                                var: None,
                                tracked: false,
                                loc: Some(loc),
                            });
                        }
                    }
                    Op::AtomicEnd => {
                        let state = &mut self.threads[thread.index()];
                        state.atomic_depth -= 1;
                        if state.atomic_depth == 0 {
                            let touched = state.atomic_touched.take();
                            let synced = std::mem::take(&mut state.atomic_synced);
                            if let Some((var, site)) = touched {
                                stop!(EventKind::Atomic, Some(site), Some(var), true);
                            } else if synced {
                                stop!(EventKind::Atomic, None, None, false);
                            }
                        }
                    }

                    Op::Assert { cond, message } => {
                        if !boolean!(cond, "an assertion") {
                            match message {
                                Some(m) => {
                                    fault!(BugKind::Assert, "{}", program.strings[m.index()])
                                }
                                None => fault!(BugKind::Assert, "assertion failed"),
                            }
                        }
                    }
                    Op::Print { print } => {
                        if self.prints.is_some() {
                            let text = program.prints[print.index()]
                                .iter()
                                .map(|arg| match *arg {
                                    PrintArg::Str(s) => program.strings[s.index()].clone(),
                                    PrintArg::Reg(r) => self.display(reg!(r)),
                                })
                                .collect::<Vec<_>>()
                                .join(" ");
                            let line = PrintLine {
                                thread,
                                step: self.step,
                                text,
                            };
                            if let Some(prints) = &mut self.prints {
                                prints.push(line);
                            }
                        }
                    }
                    Op::SelfId { dst } => reg!(dst) = Value::Int(i64::from(thread.0)),
                }
            };
            // A scheduling point: pass it here when the thread or another
            // runnable one is chosen to go on, else save the pc and report.
            if let Some(scheduler) = &mut in_place {
                if let Some(next) = self.pass_in_place(thread, point, &mut **scheduler) {
                    if next != thread {
                        // Switch in place: the next thread goes on from its
                        // own top frame.
                        if let Some(frame) = frames.last_mut() {
                            frame.pc = pc as u32;
                        }
                        thread = next;
                        self.running = next;
                        let stack = &mut stacks[thread.index()];
                        frames = &mut stack.frames;
                        let Some(top) = frames.last() else {
                            unreachable!("invariant: a runnable thread has a frame")
                        };
                        func = top.func;
                        code = &exe.code[func.index()];
                        pc = top.pc as usize;
                        regs = &mut stack.regs[top.base as usize..];
                    }
                    continue;
                }
            }
            if let Some(frame) = frames.last_mut() {
                frame.pc = pc as u32;
            }
            return Ok(point);
        }
    }
}
