//! A thread as plain data: its status and an explicit stack of frames, each
//! with its locals, an operand stack and a stack of tasks still to do (the
//! continuation). Nothing lives on the Rust stack between two operations, so
//! a whole machine can be cloned, compared and hashed.

use crate::program::{BlockId, ExprId, FnId, Program, StmtId};
use crate::value::{ObjId, Value};

/// One thread of an execution.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thread {
    /// The thread's id, as `self()` returns it.
    pub id: u32,
    /// Whether it can go on, waits for something, or has finished.
    pub status: Status,
    /// The call stack, innermost last. Empty once finished.
    pub frames: Vec<Frame>,
    /// How many `atomic` blocks the thread is inside; 0 outside.
    pub atomic_depth: u32,
    /// Inside `atomic`: whether one of the step-ending events 1-3 of
    /// docs/LANGUAGE.md "Steps and scheduling points" happened in the block, so
    /// that its end ends the step. False outside `atomic` (the step driver
    /// clears it at the block's end).
    pub atomic_ends_step: bool,
    /// Inside `atomic`: whether the block touched a tracked variable, so
    /// that its end is a change point. False outside `atomic`.
    pub atomic_touched: bool,
}

/// What a thread is doing between steps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// It can run.
    Ready,
    /// It waits; its continuation already holds what follows the blocking
    /// operation, so completing the operation is all its next step does.
    Blocked(Blocker),
    /// It has ended.
    Finished,
}

/// What a blocked thread waits for, with the line of the blocking operation
/// (a deadlock report lists it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Blocker {
    /// `lock(m)` or the lock of `sync m` found `m` held.
    Lock {
        /// The mutex.
        mutex: ObjId,
        /// The line of the `lock` or `sync`.
        line: u32,
    },
    /// `wait(c, m)`, not yet signalled.
    Wait {
        /// The mutex it must take back once woken.
        mutex: ObjId,
        /// The line of the `wait`.
        line: u32,
    },
    /// `wait(c, m)`, signalled: it needs `m` back.
    Reacquire {
        /// The mutex.
        mutex: ObjId,
        /// The line of the `wait`.
        line: u32,
    },
    /// `join(h)` of a thread still running.
    Join {
        /// The joined thread.
        thread: u32,
        /// The line of the `join`.
        line: u32,
    },
    /// `await e` found `e` false.
    Await {
        /// The condition, evaluated in the thread's innermost frame.
        cond: ExprId,
        /// The line of the `await`.
        line: u32,
    },
}

impl Blocker {
    /// The line of the blocking operation.
    pub fn line(&self) -> u32 {
        match self {
            Blocker::Lock { line, .. }
            | Blocker::Wait { line, .. }
            | Blocker::Reacquire { line, .. }
            | Blocker::Join { line, .. }
            | Blocker::Await { line, .. } => *line,
        }
    }
}

/// One function activation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    /// Parameters and locals by slot.
    pub locals: Vec<Value>,
    /// Values of operands evaluated so far.
    pub values: Vec<Value>,
    /// What is left to do, next task last. When it runs out the function
    /// returns `null` (or, in a thread's outermost frame, the thread ends).
    pub tasks: Vec<Task>,
}

/// One piece of work of a thread's continuation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Task {
    /// Evaluate the expression, pushing its value.
    Eval(ExprId),
    /// The expression's operands are on the operand stack: compute it.
    Apply(ExprId),
    /// The left operand of `&&`/`||` is on the stack: decide whether the
    /// right one is needed.
    ShortCircuit(ExprId),
    /// Execute the statement.
    Exec(StmtId),
    /// The statement's operands are on the operand stack: finish it.
    Finish(StmtId),
    /// Execute the block's statements from `next` on.
    Block {
        /// The block.
        block: BlockId,
        /// The next statement's index.
        next: u32,
    },
    /// The condition of arm `arm` of an `if` is on the stack.
    IfArm {
        /// The `if` statement.
        stmt: StmtId,
        /// Which arm's condition.
        arm: u32,
    },
    /// The condition of a `while` is on the stack.
    WhileTest(StmtId),
    /// The body of a `while` has run: test again. Also the loop's marker
    /// for `break` and `continue`.
    WhileAgain(StmtId),
    /// The bounds of a `for` are on the stack.
    ForStart(StmtId),
    /// A `for` loop about to run iteration `next` (if `next < end`). Also the
    /// loop's marker for `break` and `continue`.
    ForNext {
        /// The `for` statement.
        stmt: StmtId,
        /// The next value of the loop variable.
        next: i64,
        /// One past the last value.
        end: i64,
    },
    /// The mutex of a `sync` is on the stack: lock it.
    SyncEnter(StmtId),
    /// Leaving a `sync` block, normally or by `break`, `continue` or
    /// `return`: unlock its mutex.
    SyncExit {
        /// The `sync` statement.
        stmt: StmtId,
        /// The mutex taken on entry.
        mutex: ObjId,
    },
    /// Leaving an `atomic` block, normally or by `break`, `continue` or
    /// `return`.
    AtomicExit,
    /// Leaving blocks for `break`, `continue` or `return`: pops tasks until
    /// the loop marker or the frame's end, running the `sync` and `atomic`
    /// exits on the way.
    /// Leaving blocks early for a `break`, `continue` or `return` on the
    /// given line, where the implicit unlocks of the `sync` blocks it leaves
    /// are.
    Unwind(Completion, u32),
}

/// Why blocks are being left early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Completion {
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `return`, with the value.
    Return(Value),
}

impl Thread {
    /// A ready thread about to run `function(args)`.
    pub fn new(program: &Program, id: u32, function: FnId, args: &[Value]) -> Thread {
        Thread {
            id,
            status: Status::Ready,
            frames: vec![Frame::new(program, function, args)],
            atomic_depth: 0,
            atomic_ends_step: false,
            atomic_touched: false,
        }
    }

    /// The innermost frame. A thread that has not finished has one.
    pub fn frame(&mut self) -> &mut Frame {
        self.frames
            .last_mut()
            .expect("invariant: a running thread has a frame")
    }

    /// Whether the thread has ended.
    pub fn is_finished(&self) -> bool {
        self.status == Status::Finished
    }
}

impl Frame {
    /// A frame about to run `function`'s body with `args` in its first slots.
    pub fn new(program: &Program, function: FnId, args: &[Value]) -> Frame {
        let function = program.function(function);
        let mut locals = vec![Value::Null; function.n_slots as usize];
        locals[..args.len()].copy_from_slice(args);
        Frame {
            locals,
            values: Vec::new(),
            tasks: vec![Task::Block {
                block: function.body,
                next: 0,
            }],
        }
    }

    /// Pops an operand. The tasks push exactly what their consumers pop.
    pub fn pop(&mut self) -> Value {
        self.values
            .pop()
            .expect("invariant: an operand was pushed for every pop")
    }

    /// Pops the last `n` operands, in the order they were pushed.
    pub fn pop_n(&mut self, n: usize) -> Vec<Value> {
        let at = self
            .values
            .len()
            .checked_sub(n)
            .expect("invariant: an operand was pushed for every pop");
        self.values.split_off(at)
    }
}
