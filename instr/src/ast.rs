//! The syntax tree of a `.rk` program, as written: every node carries the
//! byte span of its source text. Names are not resolved and constants are not
//! folded here; that is the lowering's job.

use std::fmt;

use rankcheck_engine::Span;

/// A whole source file: its items in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// The items, in source order.
    pub items: Vec<Item>,
    /// The whole source text.
    pub span: Span,
}

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The name's text.
    pub name: String,
    /// The name's bytes.
    pub span: Span,
}

/// A string literal, allowed only as an `assert` or `print` message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrLit {
    /// The text, escapes already replaced.
    pub value: String,
    /// The literal's bytes, quotes included.
    pub span: Span,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// What is declared.
    pub kind: ItemKind,
    /// From the first keyword to the closing `;` or `}`.
    pub span: Span,
}

/// The kinds of top-level declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// `const NAME = EXPR;`
    Const(ConstItem),
    /// `global NAME (= EXPR)?;` or `global NAME[EXPR] (= EXPR)?;`
    Global(GlobalItem),
    /// `mutex NAME;`
    Mutex(Ident),
    /// `cond NAME;`
    Cond(Ident),
    /// `fn NAME(P1, P2, ...) { ... }`
    Fn(FnItem),
    /// `thread NAME { ... }` or `thread NAME[EXPR](i) { ... }`
    Thread(ThreadItem),
}

/// `const NAME = EXPR;`: the value is an expression so that `-1` and `2 * N`
/// parse; the lowering folds it to an integer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstItem {
    /// The constant's name.
    pub name: Ident,
    /// Its value, before folding.
    pub value: Expr,
}

/// `global NAME (= EXPR)?;` or `global NAME[EXPR] (= EXPR)?;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalItem {
    /// The global's name.
    pub name: Ident,
    /// For an array, its length `[EXPR]`; `None` for a scalar.
    pub array_len: Option<Expr>,
    /// The initial value (of each element, for an array); `None` means `0`.
    pub init: Option<Expr>,
}

/// `fn NAME(P1, P2, ...) { ... }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnItem {
    /// The function's name.
    pub name: Ident,
    /// The parameters in order; the parser has checked they are distinct.
    pub params: Vec<Ident>,
    /// The body.
    pub body: Block,
}

/// `thread NAME { ... }` or `thread NAME[EXPR](i) { ... }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadItem {
    /// The thread's name.
    pub name: Ident,
    /// For a replicated thread, how many copies and the index's name.
    pub replication: Option<Replication>,
    /// The body.
    pub body: Block,
}

/// The `[EXPR](i)` of a replicated thread: `count` copies, copy `k` seeing
/// `index == k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replication {
    /// The number of copies, before folding.
    pub count: Expr,
    /// The local that holds the copy's index.
    pub index: Ident,
}

/// `{ STMT* }`: a scope for `let`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// What the statement does.
    pub kind: StmtKind,
    /// From its first token to its `;` or closing `}`.
    pub span: Span,
}

/// The kinds of statement, as docs/LANGUAGE.md lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `let NAME = EXPR;`
    Let {
        /// The new local.
        name: Ident,
        /// Its initial value.
        value: Expr,
    },
    /// `PLACE = EXPR;`
    Assign {
        /// Where the value goes.
        target: Place,
        /// The value.
        value: Expr,
    },
    /// `if E { } else if E { } ... else { }`: the whole chain is one
    /// statement, so a long `else if` chain does not nest.
    If {
        /// The `if` and each `else if`, in order; never empty.
        arms: Vec<IfArm>,
        /// The final `else` block, if any.
        else_block: Option<Block>,
    },
    /// `while EXPR { ... }`
    While {
        /// The loop condition.
        cond: Expr,
        /// The body.
        body: Block,
    },
    /// `for NAME in START..END { ... }`: a half-open range.
    For {
        /// The loop variable, a new local in the body.
        var: Ident,
        /// The first value.
        start: Expr,
        /// One past the last value.
        end: Expr,
        /// The body.
        body: Block,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` or `return EXPR;`
    Return(Option<Expr>),
    /// `assert(EXPR);` or `assert(EXPR, "message");`
    Assert {
        /// What must hold.
        cond: Expr,
        /// The message shown when it does not.
        message: Option<StrLit>,
    },
    /// `lock(EXPR);`
    Lock(Expr),
    /// `unlock(EXPR);`
    Unlock(Expr),
    /// `sync EXPR { ... }`
    Sync {
        /// The mutex held while the body runs.
        mutex: Expr,
        /// The body.
        body: Block,
    },
    /// `wait(COND, MUTEX);`
    Wait {
        /// The condition variable waited on.
        cond: Expr,
        /// The mutex released while waiting.
        mutex: Expr,
    },
    /// `signal(EXPR);`
    Signal(Expr),
    /// `broadcast(EXPR);`
    Broadcast(Expr),
    /// `await EXPR;`
    Await(Expr),
    /// `atomic { ... }`
    Atomic(Block),
    /// `yield;`
    Yield,
    /// `join(EXPR);`
    Join(Expr),
    /// `print(ARG, ...);`
    Print(Vec<PrintArg>),
    /// `EXPR;`, evaluated for its effect.
    Expr(Expr),
}

/// One `if COND { ... }` or `else if COND { ... }` of an `if` chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfArm {
    /// The condition.
    pub cond: Expr,
    /// The block run when it holds.
    pub body: Block,
    /// From `if` to the block's `}`.
    pub span: Span,
}

/// One argument of `print`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrintArg {
    /// A value to show.
    Expr(Expr),
    /// Text to show as is.
    Str(StrLit),
}

/// The left-hand side of an assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// What is assigned.
    pub kind: PlaceKind,
    /// The whole left-hand side.
    pub span: Span,
}

/// The kinds of assignable location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlaceKind {
    /// `x = ...`: a local, or a global if no local `x` is in scope.
    Name(Ident),
    /// `e.f = ...`: a record field.
    Field {
        /// The record.
        base: Expr,
        /// The field.
        field: Ident,
    },
    /// `e[i] = ...`: an array element.
    Index {
        /// The array.
        base: Expr,
        /// The element's index.
        index: Expr,
    },
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    /// What the expression computes.
    pub kind: ExprKind,
    /// Its bytes; parentheses around it included.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// An integer literal. `-9223372036854775808` is parsed as one literal,
    /// since its magnitude is not an `i64`; other negative numbers are
    /// [`UnaryOp::Neg`] applied to a literal.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// A local, parameter, global or constant, by name.
    Name(Ident),
    /// `e.f`
    Field {
        /// The record.
        base: Box<Expr>,
        /// The field.
        field: Ident,
    },
    /// `e[i]`
    Index {
        /// The array.
        base: Box<Expr>,
        /// The element's index.
        index: Box<Expr>,
    },
    /// `f(args)`: the callee is always a plain name.
    Call {
        /// The function.
        callee: Ident,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// `-e` or `!e`
    Unary {
        /// The operator.
        op: UnaryOp,
        /// Where the operator is.
        op_span: Span,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a OP b`, including the short-circuit `&&` and `||`.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Where the operator is.
        op_span: Span,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `new { f: e, g: e }`: field names are distinct (the parser checks).
    NewRecord(Vec<FieldInit>),
    /// `new [LEN]` or `new [LEN] = INIT`.
    NewArray {
        /// The number of elements.
        len: Box<Expr>,
        /// Each element's initial value; `None` means `0`. It extends as far
        /// right as an expression can: `new [n] = a + b` initialises to
        /// `a + b`.
        init: Option<Box<Expr>>,
    },
    /// `new mutex`
    NewMutex,
    /// `new cond`
    NewCond,
    /// `len(e)`
    Len(Box<Expr>),
    /// `spawn f(args)`: starts a thread; its value is the thread's handle.
    Spawn {
        /// The function the new thread runs.
        callee: Ident,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// `self()`: the current thread's id.
    SelfId,
}

/// One `name: value` of a record literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldInit {
    /// The field.
    pub name: Ident,
    /// Its initial value.
    pub value: Expr,
}

/// A prefix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-`: integer negation.
    Neg,
    /// `!`: boolean not.
    Not,
}

impl UnaryOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
        }
    }
}

impl fmt::Display for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An infix operator. All are left-associative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`, short-circuit.
    And,
    /// `||`, short-circuit.
    Or,
}

impl BinaryOp {
    /// Binding strength, higher binds tighter, from docs/LANGUAGE.md's table:
    /// `||` 1, `&&` 2, equality 3, comparison 4, additive 5,
    /// multiplicative 6 (unary operators bind tighter than all).
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => 1,
            BinaryOp::And => 2,
            BinaryOp::Eq | BinaryOp::Ne => 3,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 4,
            BinaryOp::Add | BinaryOp::Sub => 5,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 6,
        }
    }

    /// Whether the right operand is evaluated only when needed (`&&`, `||`).
    pub fn is_short_circuit(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }

    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
