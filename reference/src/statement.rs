//! The statement tasks of the small-step interpreter: starting a statement,
//! finishing it once its operands are computed, blocks, `if`, loops,
//! `atomic`, and leaving blocks early for `break`, `continue` and `return`.

use crate::failure::{Fault, FaultKind};
use crate::interpret::{Cursor, Event};
use crate::operator::wrong_type;
use crate::program::{BlockId, ExprId, Place, StmtId, StmtKind};
use crate::thread::{Completion, Task};
use crate::value::Value;

impl Cursor<'_, '_> {
    /// Starts statement `id`: schedules its operands, left to right, and
    /// its finishing task; statements without operands act at once.
    pub fn exec(&mut self, id: StmtId) -> Result<Event, Fault> {
        let program = self.program;
        let operands: Vec<ExprId> = match &program.stmt(id).kind {
            StmtKind::Let { value, .. } | StmtKind::Return(Some(value)) => vec![*value],
            StmtKind::Assign { place, value, .. } => place_operands(place, *value),
            StmtKind::Assert { cond, .. } => vec![*cond],
            StmtKind::Lock(e)
            | StmtKind::Unlock(e)
            | StmtKind::Signal(e)
            | StmtKind::Broadcast(e)
            | StmtKind::Join(e)
            | StmtKind::Expr(e) => vec![*e],
            StmtKind::Wait { cond, mutex } => vec![*cond, *mutex],
            StmtKind::Print(args) => args.clone(),
            StmtKind::If { arms, .. } => {
                let first = Task::IfArm { stmt: id, arm: 0 };
                self.push_in_order([Task::Eval(arms[0].0), first].into_iter());
                return Ok(Event::Local);
            }
            StmtKind::While { cond, .. } => {
                self.push_in_order([Task::Eval(*cond), Task::WhileTest(id)].into_iter());
                return Ok(Event::Local);
            }
            StmtKind::For { start, end, .. } => {
                let tasks = [Task::Eval(*start), Task::Eval(*end), Task::ForStart(id)];
                self.push_in_order(tasks.into_iter());
                return Ok(Event::Local);
            }
            StmtKind::Sync { mutex, .. } => {
                self.push_in_order([Task::Eval(*mutex), Task::SyncEnter(id)].into_iter());
                return Ok(Event::Local);
            }
            StmtKind::Break => {
                return Ok(self.start_unwind(Completion::Break, program.stmt(id).line))
            }
            StmtKind::Continue => {
                return Ok(self.start_unwind(Completion::Continue, program.stmt(id).line))
            }
            StmtKind::Return(None) => {
                return Ok(self.start_unwind(Completion::Return(Value::Null), program.stmt(id).line))
            }
            StmtKind::Await(cond) => return self.await_condition(*cond, program.stmt(id).line),
            StmtKind::Atomic(body) => return Ok(self.atomic_enter(*body)),
            StmtKind::Yield => return Ok(Event::Sync(Vec::new())),
        };
        let tasks = operands.into_iter().map(Task::Eval);
        self.push_in_order(tasks.chain([Task::Finish(id)]));
        Ok(Event::Local)
    }

    /// Finishes statement `id`, whose operands are on the operand stack.
    pub fn finish(&mut self, id: StmtId) -> Result<Event, Fault> {
        let stmt = self.program.stmt(id);
        let line = stmt.line;
        match &stmt.kind {
            StmtKind::Let { slot, .. } => {
                let value = self.frame().pop();
                self.frame().locals[slot.0 as usize] = value;
                Ok(Event::Local)
            }
            StmtKind::Assign {
                place, place_line, ..
            } => self.store(place, *place_line),
            StmtKind::Return(_) => {
                let value = self.frame().pop();
                Ok(self.start_unwind(Completion::Return(value), line))
            }
            StmtKind::Assert { message, .. } => match self.frame().pop() {
                Value::Bool(true) => Ok(Event::Local),
                Value::Bool(false) => Err(Fault {
                    kind: FaultKind::Assert(message.clone()),
                    line,
                }),
                other => Err(Fault::error(line, wrong_type("assert", "a bool", other))),
            },
            StmtKind::Lock(_) => {
                let mutex = self.frame().pop();
                let mutex = self.mutex_operand(mutex, "lock", line)?;
                self.acquire(mutex, line)
            }
            StmtKind::Unlock(_) => {
                let mutex = self.frame().pop();
                let mutex = self.mutex_operand(mutex, "unlock", line)?;
                self.unlock(mutex, line)
            }
            StmtKind::Wait { .. } => {
                let mutex = self.frame().pop();
                let cond = self.frame().pop();
                self.wait(cond, mutex, line)
            }
            StmtKind::Signal(_) => {
                let cond = self.frame().pop();
                self.signal(cond, false, line)
            }
            StmtKind::Broadcast(_) => {
                let cond = self.frame().pop();
                self.signal(cond, true, line)
            }
            StmtKind::Join(_) => {
                let handle = self.frame().pop();
                self.join(handle, line)
            }
            StmtKind::Print(args) => {
                self.frame().pop_n(args.len());
                Ok(Event::Local)
            }
            StmtKind::Expr(_) => {
                self.frame().pop();
                Ok(Event::Local)
            }
            other => panic!("invariant: {other:?} has no finishing task"),
        }
    }

    /// Stores the value on top of the operand stack into `place`, whose own
    /// operands are below it.
    fn store(&mut self, place: &Place, line: u32) -> Result<Event, Fault> {
        let value = self.frame().pop();
        match place {
            Place::Local(slot) => {
                self.frame().locals[slot.0 as usize] = value;
                Ok(Event::Local)
            }
            Place::Scalar(scalar) => Ok(self.write_scalar(*scalar, value)),
            Place::Field { field, .. } => {
                let base = self.frame().pop();
                self.write_field(base, *field, value, line)
            }
            Place::Index { .. } => {
                let index = self.frame().pop();
                let base = self.frame().pop();
                self.write_element(base, index, value, line)
            }
            Place::GlobalIndex { array, .. } => {
                let index = self.frame().pop();
                self.write_global_element(*array, index, value, line)
            }
        }
    }

    /// Runs statement `next` of `block` and schedules the rest.
    pub fn block(&mut self, block: BlockId, next: u32) -> Event {
        let stmts = self.program.block(block);
        let Some(&stmt) = stmts.get(next as usize) else {
            return Event::Local;
        };
        if (next as usize) + 1 < stmts.len() {
            self.frame().tasks.push(Task::Block {
                block,
                next: next + 1,
            });
        }
        self.frame().tasks.push(Task::Exec(stmt));
        Event::Local
    }

    /// The condition of arm `arm` of `if` statement `id` is known.
    pub fn if_arm(&mut self, id: StmtId, arm: u32) -> Result<Event, Fault> {
        let StmtKind::If { arms, else_block } = &self.program.stmt(id).kind else {
            panic!("invariant: IfArm names an if statement");
        };
        let (cond, body) = arms[arm as usize];
        if self.condition(cond, "an `if` condition")? {
            return Ok(self.block(body, 0));
        }
        if let Some(&(next_cond, _)) = arms.get(arm as usize + 1) {
            let next = Task::IfArm {
                stmt: id,
                arm: arm + 1,
            };
            self.push_in_order([Task::Eval(next_cond), next].into_iter());
        } else if let Some(body) = else_block {
            return Ok(self.block(*body, 0));
        }
        Ok(Event::Local)
    }

    /// The condition of `while` statement `id` is known.
    pub fn while_test(&mut self, id: StmtId) -> Result<Event, Fault> {
        let stmt = self.program.stmt(id);
        let StmtKind::While { cond, body } = stmt.kind else {
            panic!("invariant: WhileTest names a while statement");
        };
        if !self.condition(cond, "a `while` condition")? {
            return Ok(Event::Local);
        }
        self.tick(stmt.line)?;
        self.frame().tasks.push(Task::WhileAgain(id));
        Ok(self.block(body, 0))
    }

    /// The body of `while` statement `id` has run: test again.
    pub fn while_again(&mut self, id: StmtId) -> Event {
        let StmtKind::While { cond, .. } = self.program.stmt(id).kind else {
            panic!("invariant: WhileAgain names a while statement");
        };
        self.push_in_order([Task::Eval(cond), Task::WhileTest(id)].into_iter());
        Event::Local
    }

    /// The bounds of `for` statement `id` are known.
    pub fn for_start(&mut self, id: StmtId) -> Result<Event, Fault> {
        let end = self.frame().pop();
        let start = self.frame().pop();
        let StmtKind::For {
            start: start_expr,
            end: end_expr,
            ..
        } = self.program.stmt(id).kind
        else {
            panic!("invariant: ForStart names a for statement");
        };
        let start = self.int_bound(start, start_expr, "start")?;
        let end = self.int_bound(end, end_expr, "end")?;
        self.frame().tasks.push(Task::ForNext {
            stmt: id,
            next: start,
            end,
        });
        Ok(Event::Local)
    }

    /// The `start` or `end` bound of a `for` range, which must be an int.
    fn int_bound(&self, value: Value, expr: ExprId, bound: &str) -> Result<i64, Fault> {
        match value {
            Value::Int(n) => Ok(n),
            other => {
                let line = self.program.expr(expr).line;
                let found = other.type_name();
                let reason = format!("a `for` range's {bound} needs an int, found {found}");
                Err(Fault::error(line, reason))
            }
        }
    }

    /// Runs iteration `next` of `for` statement `id`, if `next < end`.
    pub fn for_next(&mut self, id: StmtId, next: i64, end: i64) -> Result<Event, Fault> {
        let stmt = self.program.stmt(id);
        let StmtKind::For { slot, body, .. } = stmt.kind else {
            panic!("invariant: ForNext names a for statement");
        };
        if next >= end {
            return Ok(Event::Local);
        }
        self.tick(stmt.line)?;
        self.frame().locals[slot.0 as usize] = Value::Int(next);
        // `next < end`, so `next + 1` cannot overflow.
        self.frame().tasks.push(Task::ForNext {
            stmt: id,
            next: next + 1,
            end,
        });
        Ok(self.block(body, 0))
    }

    /// Evaluated `if`/`while` condition `cond` (`what`: which), which must
    /// be a bool.
    fn condition(&mut self, cond: ExprId, what: &str) -> Result<bool, Fault> {
        match self.frame().pop() {
            Value::Bool(b) => Ok(b),
            other => {
                let line = self.program.expr(cond).line;
                let found = other.type_name();
                Err(Fault::error(
                    line,
                    format!("{what} must be a bool, found {found}"),
                ))
            }
        }
    }

    fn atomic_enter(&mut self, body: BlockId) -> Event {
        self.thread().atomic_depth += 1;
        self.frame().tasks.push(Task::AtomicExit);
        self.block(body, 0)
    }

    /// Leaves an `atomic` block; leaving the outermost one is an event the
    /// step driver decides on.
    pub fn atomic_exit(&mut self) -> Event {
        let thread = self.thread();
        thread.atomic_depth -= 1;
        if thread.atomic_depth == 0 {
            Event::AtomicEnd
        } else {
            Event::Local
        }
    }

    fn start_unwind(&mut self, completion: Completion, line: u32) -> Event {
        self.frame().tasks.push(Task::Unwind(completion, line));
        Event::Local
    }

    /// Leaves blocks for `completion`: drops tasks up to the loop marker (or
    /// the frame's end for `return`), stopping at each `sync` and `atomic`
    /// exit to run it, since unlocking is a visible operation and the end of
    /// an `atomic` may end the step.
    pub fn unwind(&mut self, completion: Completion, line: u32) -> Result<Event, Fault> {
        let is_return = matches!(completion, Completion::Return(_));
        loop {
            let Some(task) = self.frame().tasks.pop() else {
                let Completion::Return(value) = completion else {
                    panic!("invariant: break and continue are inside a loop");
                };
                return Ok(self.return_from_frame(value));
            };
            match task {
                Task::WhileAgain(_) | Task::ForNext { .. } if !is_return => {
                    if completion == Completion::Continue {
                        self.frame().tasks.push(task);
                    }
                    return Ok(Event::Local);
                }
                Task::SyncExit { mutex, .. } => {
                    self.frame().tasks.push(Task::Unwind(completion, line));
                    return self.unlock(mutex, line);
                }
                Task::AtomicExit => {
                    self.frame().tasks.push(Task::Unwind(completion, line));
                    return Ok(self.atomic_exit());
                }
                _ => {}
            }
        }
    }
}

/// The operands of an assignment, in evaluation order: the place's, then the
/// value.
fn place_operands(place: &Place, value: ExprId) -> Vec<ExprId> {
    let mut operands = match place {
        Place::Local(_) | Place::Scalar(_) => Vec::new(),
        Place::Field { base, .. } => vec![*base],
        Place::Index { base, index } => vec![*base, *index],
        Place::GlobalIndex { index, .. } => vec![*index],
    };
    operands.push(value);
    operands
}
