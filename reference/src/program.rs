//! The resolved program: the syntax tree with every name bound, every
//! constant folded and every node put in an arena, so that a thread's
//! continuation can name code by plain integer ids (cloneable, hashable).
//!
//! The shape stays the syntax tree's: an `if` is still an `if` with its
//! arms, a `while` its condition and body. Nothing is lowered to jumps.

use crate::value::Value;
use crate::VarKey;

/// An expression in [`Program::exprs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

/// A statement in [`Program::stmts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);

/// A block in [`Program::blocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// A function (or a thread item's body) in [`Program::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FnId(pub u32);

/// A variable, in the sense of docs/LANGUAGE.md "Variables and tracking": a
/// `global`, `mutex` or `cond` declaration, or an allocation site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// A local slot of a function's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(pub u32);

/// A record field's name, interned in [`Program::fields`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldName(pub u32);

/// A global scalar, by its index in [`Program::scalars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScalarId(pub u32);

/// A global array, by its index in [`Program::arrays`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArrayId(pub u32);

/// A whole resolved program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Every expression; children come before parents.
    pub exprs: Vec<Expr>,
    /// Every statement.
    pub stmts: Vec<Stmt>,
    /// Every block: its statements in order.
    pub blocks: Vec<Vec<StmtId>>,
    /// Functions and thread bodies.
    pub functions: Vec<Function>,
    /// The threads that start with the program, in thread-id order.
    pub initial_threads: Vec<ThreadStart>,
    /// Global scalars: their variable and initial value.
    pub scalars: Vec<(VarId, Value)>,
    /// Global arrays: their variable, length and initial element.
    pub arrays: Vec<GlobalArray>,
    /// Declared mutexes and condition variables, in source order; the
    /// machine creates them as the first heap objects, in this order.
    pub sync_objects: Vec<SyncDecl>,
    /// Every variable's name as a test gives it, indexed by [`VarId`].
    pub variables: Vec<VarKey>,
    /// Interned record field names.
    pub fields: Vec<String>,
}

/// A global array's declaration.
#[derive(Clone, Debug)]
pub struct GlobalArray {
    /// The array's variable.
    pub var: VarId,
    /// Its length.
    pub len: usize,
    /// Every element's initial value.
    pub init: Value,
}

/// A declared `mutex` or `cond`.
#[derive(Clone, Copy, Debug)]
pub struct SyncDecl {
    /// Its variable.
    pub var: VarId,
    /// Whether it is a mutex (else a condition variable).
    pub is_mutex: bool,
}

/// A thread that starts with the program: the body it runs, with its
/// arguments (the copy index of a replicated thread).
#[derive(Clone, Debug)]
pub struct ThreadStart {
    /// The body.
    pub function: FnId,
    /// Values of the body's parameters.
    pub args: Vec<Value>,
}

/// A function or a thread item's body.
#[derive(Clone, Debug)]
pub struct Function {
    /// The name, for messages.
    pub name: String,
    /// How many local slots a frame needs; parameters take the first ones.
    pub n_slots: u32,
    /// The body.
    pub body: BlockId,
}

/// An expression with the source line its errors are reported at.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// 1-based line of the expression's first byte.
    pub line: u32,
}

/// The resolved kinds of expression.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A literal, a folded constant, or a declared mutex or condition
    /// variable (whose value is a fixed reference: reading it is no access).
    Value(Value),
    /// A local or parameter.
    Local(Slot),
    /// A global scalar: reading it is an access.
    Scalar(ScalarId),
    /// `e.f`
    Field {
        /// The record.
        base: ExprId,
        /// The field.
        field: FieldName,
    },
    /// `e[i]` on a heap array.
    Index {
        /// The array.
        base: ExprId,
        /// The index.
        index: ExprId,
    },
    /// `a[i]` on a global array.
    GlobalIndex {
        /// The array.
        array: ArrayId,
        /// The index.
        index: ExprId,
    },
    /// `f(args)`
    Call {
        /// The function.
        function: FnId,
        /// The arguments.
        args: Vec<ExprId>,
    },
    /// `-e`, `!e`
    Unary {
        /// The operator.
        op: rankcheck_instr::ast::UnaryOp,
        /// The operand.
        operand: ExprId,
    },
    /// `a OP b`, short-circuit operators included.
    Binary {
        /// The operator.
        op: rankcheck_instr::ast::BinaryOp,
        /// The left operand.
        lhs: ExprId,
        /// The right operand.
        rhs: ExprId,
    },
    /// `new { f: e, ... }`
    NewRecord {
        /// The allocation site.
        site: VarId,
        /// The fields in source order.
        fields: Vec<(FieldName, ExprId)>,
    },
    /// `new [n]` or `new [n] = e`
    NewArray {
        /// The allocation site.
        site: VarId,
        /// The length.
        len: ExprId,
        /// Each element's initial value (`0` when absent).
        init: Option<ExprId>,
    },
    /// `new mutex`
    NewMutex(VarId),
    /// `new cond`
    NewCond(VarId),
    /// `len(e)` of a heap array.
    Len(ExprId),
    /// `len(a)` of a global array: a constant.
    GlobalLen(ArrayId),
    /// `spawn f(args)`
    Spawn {
        /// The function the new thread runs.
        function: FnId,
        /// Its arguments.
        args: Vec<ExprId>,
    },
    /// `self()`
    SelfId,
}

/// A statement with the source line its errors and blocking are reported at.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// 1-based line of the statement's first byte.
    pub line: u32,
}

/// Where an assignment stores.
#[derive(Clone, Debug)]
pub enum Place {
    /// A local.
    Local(Slot),
    /// A global scalar.
    Scalar(ScalarId),
    /// A record field.
    Field {
        /// The record.
        base: ExprId,
        /// The field.
        field: FieldName,
    },
    /// A heap array element.
    Index {
        /// The array.
        base: ExprId,
        /// The index.
        index: ExprId,
    },
    /// A global array element.
    GlobalIndex {
        /// The array.
        array: ArrayId,
        /// The index.
        index: ExprId,
    },
}

/// The resolved kinds of statement.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `let x = e;`
    Let {
        /// The new local's slot.
        slot: Slot,
        /// Its value.
        value: ExprId,
    },
    /// `place = e;`
    Assign {
        /// Where the value goes.
        place: Place,
        /// The value.
        value: ExprId,
        /// The line of the left-hand side, where a store's errors go.
        place_line: u32,
    },
    /// `if c { } else if c { } else { }`
    If {
        /// Each arm's condition and block.
        arms: Vec<(ExprId, BlockId)>,
        /// The final `else`.
        else_block: Option<BlockId>,
    },
    /// `while c { }`
    While {
        /// The condition.
        cond: ExprId,
        /// The body.
        body: BlockId,
    },
    /// `for x in a..b { }`
    For {
        /// The loop variable's slot.
        slot: Slot,
        /// The first value.
        start: ExprId,
        /// One past the last value.
        end: ExprId,
        /// The body.
        body: BlockId,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` / `return e;`
    Return(Option<ExprId>),
    /// `assert(c);` / `assert(c, "message");`
    Assert {
        /// What must hold.
        cond: ExprId,
        /// The message.
        message: Option<String>,
    },
    /// `lock(m);`
    Lock(ExprId),
    /// `unlock(m);`
    Unlock(ExprId),
    /// `sync m { }`
    Sync {
        /// The mutex.
        mutex: ExprId,
        /// The body.
        body: BlockId,
        /// The line of the body's closing brace, where the implicit unlock
        /// of a block that runs to its end is.
        end_line: u32,
    },
    /// `wait(c, m);`
    Wait {
        /// The condition variable.
        cond: ExprId,
        /// The mutex.
        mutex: ExprId,
    },
    /// `signal(c);`
    Signal(ExprId),
    /// `broadcast(c);`
    Broadcast(ExprId),
    /// `await e;`
    Await(ExprId),
    /// `atomic { }`
    Atomic(BlockId),
    /// `yield;`
    Yield,
    /// `join(h);`
    Join(ExprId),
    /// `print(...);`: only the value arguments matter (they may read).
    Print(Vec<ExprId>),
    /// `e;`
    Expr(ExprId),
}

impl Program {
    /// The expression `id`.
    pub fn expr(&self, id: ExprId) -> &Expr {
        &self.exprs[id.0 as usize]
    }

    /// The statement `id`.
    pub fn stmt(&self, id: StmtId) -> &Stmt {
        &self.stmts[id.0 as usize]
    }

    /// The statements of block `id`.
    pub fn block(&self, id: BlockId) -> &[StmtId] {
        &self.blocks[id.0 as usize]
    }

    /// The function `id`.
    pub fn function(&self, id: FnId) -> &Function {
        &self.functions[id.0 as usize]
    }
}
