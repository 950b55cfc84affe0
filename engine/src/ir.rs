//! The intermediate representation the VM executes: register bytecode with
//! one access site per shared-memory access.
//!
//! `instr` lowers `.rk` source into a [`Program`]; the alias analysis reads
//! the same IR, and [`crate::Executable`] specialises it for one set of
//! tracked variables. The engine never sees syntax: all it knows of the
//! source are byte [`Span`]s.

use crate::id::{
    ConstId, FieldId, FuncId, GlobalId, PrintId, Reg, ShapeId, SiteId, StrId, ThreadId, VarId,
};
use crate::span::Span;
use crate::value::Value;

/// A whole lowered program: code, static data and the tables that name its
/// variables and access sites.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Functions by [`FuncId`]; initial threads are functions without
    /// parameters (or with the one copy index of a replicated thread).
    pub functions: Vec<Function>,
    /// Constant pool: `Op::Const` loads from here.
    pub consts: Vec<Value>,
    /// Global scalars by [`GlobalId`].
    pub globals: Vec<Global>,
    /// Global arrays. At the start of every execution array `i` becomes heap
    /// object `ObjId(i)`, so the constant pool can name it as `Value::Ref`.
    pub arrays: Vec<GlobalArray>,
    /// Declared mutexes: mutex `i` of every execution is `MutexId(i)`,
    /// belonging to variable `mutexes[i]`.
    pub mutexes: Vec<VarId>,
    /// Declared condition variables: cond `i` is `CondId(i)`.
    pub conds: Vec<VarId>,
    /// The variables of variable bounding, by [`VarId`]; their number is `Q`.
    pub vars: Vec<Variable>,
    /// The access sites, by [`SiteId`].
    pub sites: Vec<Site>,
    /// Record layouts, by [`ShapeId`].
    pub shapes: Vec<Shape>,
    /// Field names, by [`FieldId`].
    pub fields: Vec<String>,
    /// Strings (assert messages, print text), by [`StrId`].
    pub strings: Vec<String>,
    /// Print argument lists, by [`PrintId`].
    pub prints: Vec<Vec<PrintArg>>,
    /// The threads that exist when an execution starts, in thread-id order.
    pub threads: Vec<ThreadSpec>,
}

impl Program {
    /// The span of instruction `pc` of `func`.
    pub fn span_at(&self, func: FuncId, pc: usize) -> Span {
        let function = &self.functions[func.index()];
        function.spans.get(pc).copied().unwrap_or(function.span)
    }

    /// The construct instruction `pc` of `func` stands for, when it is not
    /// the instruction's own operator (see [`Construct`]).
    pub fn construct_at(&self, func: FuncId, pc: usize) -> Option<Construct> {
        let constructs = &self.functions[func.index()].constructs;
        constructs
            .binary_search_by_key(&pc, |&(at, _)| at as usize)
            .ok()
            .map(|i| constructs[i].1)
    }

    /// `Q`, the number of variables.
    pub fn n_vars(&self) -> usize {
        self.vars.len()
    }
}

/// A function's code and frame layout.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name in the source (`worker` for `thread worker[2](i)`).
    pub name: String,
    /// The span of its whole declaration.
    pub span: Span,
    /// How many parameters it takes; they arrive in registers `0..params`.
    pub params: u16,
    /// How many registers its frame needs (parameters included).
    pub registers: u16,
    /// The instructions.
    pub code: Vec<Op>,
    /// `spans[pc]` is the source span of `code[pc]`.
    pub spans: Vec<Span>,
    /// The instructions that stand for a construct other than their own
    /// operator, as `(pc, construct)` sorted by `pc`: read only when one of
    /// them raises a run-time error, so that the message names what the
    /// user wrote.
    pub constructs: Vec<(u32, Construct)>,
}

/// What the user wrote where the lowering emits an instruction of another
/// meaning (docs/LANGUAGE.md's words): a `for` range's entry test is an
/// `Lt`, a condition and `&&`'s left operand are conditional jumps, a
/// `sync` block is a `Lock` and its `Unlock`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Construct {
    /// `start < end`, the entry test of `for i in start..end`.
    ForRange,
    /// The condition of an `if` (or `else if`).
    If,
    /// The condition of a `while`.
    While,
    /// The left operand of `&&`.
    And,
    /// The left operand of `||`.
    Or,
    /// The lock of `sync M { ... }`, or its unlock where the block is left.
    Sync,
}

/// A global scalar.
#[derive(Clone, Debug)]
pub struct Global {
    /// The variable it is.
    pub var: VarId,
    /// Its value when an execution starts.
    pub init: Value,
}

/// A global array (`global NAME[N] = INIT;`).
#[derive(Clone, Debug)]
pub struct GlobalArray {
    /// The variable it is: the whole array is one variable.
    pub var: VarId,
    /// Its length.
    pub len: u32,
    /// Every element's value when an execution starts.
    pub init: Value,
}

/// What a variable is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarKind {
    /// `global NAME = ...;`
    Global,
    /// `global NAME[N];`
    GlobalArray,
    /// `mutex NAME;`
    Mutex,
    /// `cond NAME;`
    Cond,
    /// `new { ... }`
    NewRecord,
    /// `new [N]`
    NewArray,
    /// `new mutex`
    NewMutex,
    /// `new cond`
    NewCond,
}

impl VarKind {
    /// Whether the variable is an allocation site rather than a declaration.
    pub fn is_allocation_site(self) -> bool {
        matches!(
            self,
            VarKind::NewRecord | VarKind::NewArray | VarKind::NewMutex | VarKind::NewCond
        )
    }

    /// Whether the variable is a mutex or a condition variable (declared or
    /// allocated): what `--vars sync` tracks.
    pub fn is_sync(self) -> bool {
        matches!(
            self,
            VarKind::Mutex | VarKind::Cond | VarKind::NewMutex | VarKind::NewCond
        )
    }

    /// The word reports use for it.
    pub fn describe(self) -> &'static str {
        match self {
            VarKind::Global => "global",
            VarKind::GlobalArray => "global array",
            VarKind::Mutex => "mutex",
            VarKind::Cond => "cond",
            VarKind::NewRecord => "record allocation",
            VarKind::NewArray => "array allocation",
            VarKind::NewMutex => "mutex allocation",
            VarKind::NewCond => "cond allocation",
        }
    }
}

/// A variable of variable bounding (docs/LANGUAGE.md, Variables).
#[derive(Clone, Debug)]
pub struct Variable {
    /// The declared name, or for an allocation site a name made from the
    /// enclosing function and the line, such as `push:new@8` (and the
    /// column, `push:new@8:13`, where the line has several).
    pub name: String,
    /// What it is.
    pub kind: VarKind,
    /// The declaration or the `new` expression.
    pub span: Span,
}

/// What an access site does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// Reads a shared location.
    Read,
    /// Writes a shared location.
    Write,
    /// `lock(m)`, also the lock of `sync m { }`.
    Lock,
    /// `unlock(m)`, also the unlock at the end of `sync m { }`.
    Unlock,
    /// `wait(c, m)`: touches both the condition variable and the mutex.
    Wait,
    /// `signal(c)`.
    Signal,
    /// `broadcast(c)`.
    Broadcast,
}

impl AccessKind {
    /// The verb reports use for it.
    pub fn verb(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Lock => "lock",
            AccessKind::Unlock => "unlock",
            AccessKind::Wait => "wait",
            AccessKind::Signal => "signal",
            AccessKind::Broadcast => "broadcast",
        }
    }

    /// Whether the site is a synchronisation operation, which the scheduler
    /// always sees whatever is tracked.
    pub fn is_sync(self) -> bool {
        !matches!(self, AccessKind::Read | AccessKind::Write)
    }
}

/// One access site.
#[derive(Clone, Debug)]
pub struct Site {
    /// The accessing expression or statement.
    pub span: Span,
    /// What it does.
    pub kind: AccessKind,
    /// The function whose code holds it.
    pub func: FuncId,
    /// The variable it touches when that is known without analysis (globals
    /// and declared arrays, mutexes and conds named directly); `None` for
    /// accesses through references, which the alias analysis resolves.
    pub var: Option<VarId>,
    /// Short source text of the accessed location, such as `a`, `p.next` or
    /// `blocks[i]`, for traces.
    pub text: String,
}

/// A record layout: which field sits at which slot.
#[derive(Clone, Debug)]
pub struct Shape {
    /// Fields in slot order.
    pub fields: Vec<FieldId>,
}

/// One argument of a print statement.
#[derive(Clone, Copy, Debug)]
pub enum PrintArg {
    /// A string literal.
    Str(StrId),
    /// A value in a register.
    Reg(Reg),
}

/// A thread that exists when an execution starts.
#[derive(Clone, Debug)]
pub struct ThreadSpec {
    /// Its name in reports: `main`, `reader`, `worker[1]`.
    pub name: String,
    /// The function it runs.
    pub func: FuncId,
    /// Its arguments (the copy index of a replicated thread).
    pub args: Vec<Value>,
}

/// Thread ids of initial threads equal their index in [`Program::threads`].
pub fn initial_thread(index: usize) -> ThreadId {
    ThreadId(index as u32)
}

/// One instruction. Registers are frame-relative. Every instruction that
/// touches shared memory or synchronises names its [`SiteId`].
///
/// Shared-memory accesses come in two forms: the plain one, which runs
/// straight through, and the `*Observed` one, which ends the thread's step
/// (a scheduling point) when the location it touched belongs to a tracked
/// variable. `instr` lowers every access in observed form; an
/// [`crate::Executable`] turns the sites nobody tracks into plain ones, so an
/// untracked access costs exactly a load or a store.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)] // the fields are the operands the variant's doc names
pub enum Op {
    /// `dst = consts[value]`.
    Const {
        dst: Reg,
        value: ConstId,
    },
    /// `dst = src`.
    Move {
        dst: Reg,
        src: Reg,
    },
    /// `dst = -src`.
    Neg {
        dst: Reg,
        src: Reg,
    },
    /// `dst = !src`.
    Not {
        dst: Reg,
        src: Reg,
    },
    /// `dst = lhs + rhs`, and so on for the arithmetic operators.
    Add {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    Sub {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    Mul {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    Div {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    Rem {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    /// `dst = lhs < rhs`, and so on for the comparisons (integers only).
    Lt {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    Le {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    Gt {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    Ge {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    /// `dst = lhs == rhs` (any values; different types are unequal).
    Eq {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    Ne {
        dst: Reg,
        lhs: Reg,
        rhs: Reg,
    },
    /// Jump forward to `target`.
    Jump {
        target: u32,
    },
    /// Jump back to `target`: a loop's back edge, which counts as a step
    /// against the step limit so that a loop without shared accesses still
    /// ends.
    Loop {
        target: u32,
    },
    /// The back edge of `for`: `counter += 1`, and while `counter < bound`
    /// jump back to `target`. The loop's entry test has checked both are
    /// ints with `counter < bound`, so the increment cannot overflow. Counts
    /// as a step like [`Op::Loop`].
    ForStep {
        counter: Reg,
        bound: Reg,
        target: u32,
    },
    /// Jump to `target` when `cond` is `false`; `cond` must be a bool.
    JumpIfFalse {
        cond: Reg,
        target: u32,
    },
    /// Jump to `target` when `cond` is `true`; `cond` must be a bool.
    JumpIfTrue {
        cond: Reg,
        target: u32,
    },
    /// Call `func` with the `argc` arguments in registers `args..`; its
    /// result goes to `dst`.
    Call {
        dst: Reg,
        func: FuncId,
        args: Reg,
        argc: u16,
    },
    /// Return `src` to the caller (or end the thread).
    Return {
        src: Reg,
    },

    /// `dst = globals[global]`.
    GetGlobal {
        dst: Reg,
        global: GlobalId,
        site: SiteId,
    },
    GetGlobalObserved {
        dst: Reg,
        global: GlobalId,
        site: SiteId,
    },
    /// `globals[global] = src`.
    SetGlobal {
        global: GlobalId,
        src: Reg,
        site: SiteId,
    },
    SetGlobalObserved {
        global: GlobalId,
        src: Reg,
        site: SiteId,
    },
    /// `dst = obj.field`.
    GetField {
        dst: Reg,
        obj: Reg,
        field: FieldId,
        site: SiteId,
    },
    GetFieldObserved {
        dst: Reg,
        obj: Reg,
        field: FieldId,
        site: SiteId,
    },
    /// `obj.field = src`.
    SetField {
        obj: Reg,
        field: FieldId,
        src: Reg,
        site: SiteId,
    },
    SetFieldObserved {
        obj: Reg,
        field: FieldId,
        src: Reg,
        site: SiteId,
    },
    /// `dst = array[index]`.
    GetIndex {
        dst: Reg,
        array: Reg,
        index: Reg,
        site: SiteId,
    },
    GetIndexObserved {
        dst: Reg,
        array: Reg,
        index: Reg,
        site: SiteId,
    },
    /// `array[index] = src`.
    SetIndex {
        array: Reg,
        index: Reg,
        src: Reg,
        site: SiteId,
    },
    SetIndexObserved {
        array: Reg,
        index: Reg,
        src: Reg,
        site: SiteId,
    },
    /// `dst = len(array)`: an array's length never changes, so this is no
    /// access.
    Len {
        dst: Reg,
        array: Reg,
    },

    /// `dst = new { ... }` with the shape's fields in registers `args..`.
    NewRecord {
        dst: Reg,
        shape: ShapeId,
        args: Reg,
        var: VarId,
    },
    /// `dst = new [len] = init`.
    NewArray {
        dst: Reg,
        len: Reg,
        init: Reg,
        var: VarId,
    },
    /// `dst = new mutex`.
    NewMutex {
        dst: Reg,
        var: VarId,
    },
    /// `dst = new cond`.
    NewCond {
        dst: Reg,
        var: VarId,
    },

    /// `lock(mutex)`: blocks while another thread holds it, forever if this
    /// thread does.
    Lock {
        mutex: Reg,
        site: SiteId,
    },
    /// `unlock(mutex)`: an error unless this thread holds it.
    Unlock {
        mutex: Reg,
        site: SiteId,
    },
    /// `wait(cond, mutex)`: unlock, block until signalled, relock.
    Wait {
        cond: Reg,
        mutex: Reg,
        site: SiteId,
    },
    /// `signal(cond)`: wake the longest waiter, if any.
    Signal {
        cond: Reg,
        site: SiteId,
    },
    /// `broadcast(cond)`: wake every waiter.
    Broadcast {
        cond: Reg,
        site: SiteId,
    },
    /// `dst = spawn func(args..)`.
    Spawn {
        dst: Reg,
        func: FuncId,
        args: Reg,
        argc: u16,
    },
    /// `join(thread)`: block until it has finished.
    Join {
        thread: Reg,
    },
    /// `yield;`
    Yield,
    /// Start of an `await`: evaluation of the condition that follows is
    /// atomic, and a thread that finds it false comes back here.
    AwaitBegin,
    /// End of an `await`: go on if `cond` is true, otherwise block until
    /// another thread has made progress, then retry from the `AwaitBegin`
    /// at `retry`.
    AwaitCheck {
        cond: Reg,
        retry: u32,
    },
    /// Enter an `atomic { }` block: no scheduling point until the matching
    /// `AtomicEnd`.
    AtomicBegin,
    /// Leave an `atomic { }` block; the block as a whole is one step.
    AtomicEnd,

    /// `assert(cond, message)`.
    Assert {
        cond: Reg,
        message: Option<StrId>,
    },
    /// `print(...)`: recorded only when a run is replayed with a trace.
    Print {
        print: PrintId,
    },
    /// `dst = self()`.
    SelfId {
        dst: Reg,
    },
}

impl Op {
    /// The access site of a shared-memory access, in either form.
    pub fn memory_site(&self) -> Option<SiteId> {
        match *self {
            Op::GetGlobal { site, .. }
            | Op::GetGlobalObserved { site, .. }
            | Op::SetGlobal { site, .. }
            | Op::SetGlobalObserved { site, .. }
            | Op::GetField { site, .. }
            | Op::GetFieldObserved { site, .. }
            | Op::SetField { site, .. }
            | Op::SetFieldObserved { site, .. }
            | Op::GetIndex { site, .. }
            | Op::GetIndexObserved { site, .. }
            | Op::SetIndex { site, .. }
            | Op::SetIndexObserved { site, .. } => Some(site),
            _ => None,
        }
    }

    /// This instruction with its shared-memory access in plain form (when
    /// `observed` is false) or observed form; other instructions unchanged.
    pub fn with_observation(self, observed: bool) -> Op {
        use Op::*;
        match (self, observed) {
            (GetGlobal { dst, global, site } | GetGlobalObserved { dst, global, site }, false) => {
                GetGlobal { dst, global, site }
            }
            (GetGlobal { dst, global, site } | GetGlobalObserved { dst, global, site }, true) => {
                GetGlobalObserved { dst, global, site }
            }
            (SetGlobal { global, src, site } | SetGlobalObserved { global, src, site }, false) => {
                SetGlobal { global, src, site }
            }
            (SetGlobal { global, src, site } | SetGlobalObserved { global, src, site }, true) => {
                SetGlobalObserved { global, src, site }
            }
            (
                GetField {
                    dst,
                    obj,
                    field,
                    site,
                }
                | GetFieldObserved {
                    dst,
                    obj,
                    field,
                    site,
                },
                false,
            ) => GetField {
                dst,
                obj,
                field,
                site,
            },
            (
                GetField {
                    dst,
                    obj,
                    field,
                    site,
                }
                | GetFieldObserved {
                    dst,
                    obj,
                    field,
                    site,
                },
                true,
            ) => GetFieldObserved {
                dst,
                obj,
                field,
                site,
            },
            (
                SetField {
                    obj,
                    field,
                    src,
                    site,
                }
                | SetFieldObserved {
                    obj,
                    field,
                    src,
                    site,
                },
                false,
            ) => SetField {
                obj,
                field,
                src,
                site,
            },
            (
                SetField {
                    obj,
                    field,
                    src,
                    site,
                }
                | SetFieldObserved {
                    obj,
                    field,
                    src,
                    site,
                },
                true,
            ) => SetFieldObserved {
                obj,
                field,
                src,
                site,
            },
            (
                GetIndex {
                    dst,
                    array,
                    index,
                    site,
                }
                | GetIndexObserved {
                    dst,
                    array,
                    index,
                    site,
                },
                false,
            ) => GetIndex {
                dst,
                array,
                index,
                site,
            },
            (
                GetIndex {
                    dst,
                    array,
                    index,
                    site,
                }
                | GetIndexObserved {
                    dst,
                    array,
                    index,
                    site,
                },
                true,
            ) => GetIndexObserved {
                dst,
                array,
                index,
                site,
            },
            (
                SetIndex {
                    array,
                    index,
                    src,
                    site,
                }
                | SetIndexObserved {
                    array,
                    index,
                    src,
                    site,
                },
                false,
            ) => SetIndex {
                array,
                index,
                src,
                site,
            },
            (
                SetIndex {
                    array,
                    index,
                    src,
                    site,
                }
                | SetIndexObserved {
                    array,
                    index,
                    src,
                    site,
                },
                true,
            ) => SetIndexObserved {
                array,
                index,
                src,
                site,
            },
            (op, _) => op,
        }
    }

    /// The sync site of a mutex or condition-variable operation.
    pub fn sync_site(&self) -> Option<SiteId> {
        match *self {
            Op::Lock { site, .. }
            | Op::Unlock { site, .. }
            | Op::Wait { site, .. }
            | Op::Signal { site, .. }
            | Op::Broadcast { site, .. } => Some(site),
            _ => None,
        }
    }
}
