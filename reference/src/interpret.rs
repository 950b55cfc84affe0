//! The small-step interpreter: [`micro_step`] pops one task off a thread's
//! continuation and does it, reporting what another thread could observe as
//! an [`Event`]. Deciding where a step ends is not done here but in
//! [`crate::step`], from these events and the tracked set.
//!
//! This file holds the dispatch and the expression tasks; statements are in
//! [`crate::statement`] and synchronisation in [`crate::synchronise`].

use crate::failure::{Fault, FaultKind};
use crate::machine::{Machine, Meter};
use crate::memory::Object;
use crate::operator;
use crate::program::{ExprId, ExprKind, Program, StmtKind, VarId};
use crate::thread::{Frame, Status, Task, Thread};
use crate::value::Value;

/// The largest array `new [n]` may make: docs/LANGUAGE.md's heap limit of 2^24
/// slots, applied to one array so that a wild length is an error rather than
/// an allocation failure.
const MAX_ARRAY_LEN: i64 = 1 << 24;

/// What one micro-step did that matters to the scheduler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Nothing another thread could observe.
    Local,
    /// A read of a shared location of this variable.
    Read(VarId),
    /// A write of a shared location of this variable.
    Write(VarId),
    /// A synchronisation operation after which the thread can go on, with
    /// the variables it touched (none for `spawn`, `join` and `yield`).
    Sync(Vec<VarId>),
    /// The thread blocked.
    Blocked,
    /// The thread ended.
    Ended,
    /// The thread left its outermost `atomic` block.
    AtomicEnd,
}

/// One thread of a machine, being run.
pub struct Cursor<'p, 'm> {
    /// The program.
    pub program: &'p Program,
    /// The whole machine: the running thread may spawn threads, wake
    /// waiters and look at whether a joined thread has finished.
    pub machine: &'m mut Machine,
    /// The running thread's index in `machine.threads`.
    pub tid: usize,
    /// Counts loop iterations and calls.
    pub meter: &'m mut Meter,
}

/// Runs the next task of thread `tid`.
pub fn micro_step(
    program: &Program,
    machine: &mut Machine,
    tid: usize,
    meter: &mut Meter,
) -> Result<Event, Fault> {
    let mut cursor = Cursor {
        program,
        machine,
        tid,
        meter,
    };
    match cursor.frame().tasks.pop() {
        None => Ok(cursor.return_from_frame(Value::Null)),
        Some(task) => cursor.run(task),
    }
}

impl Cursor<'_, '_> {
    /// The running thread.
    pub fn thread(&mut self) -> &mut Thread {
        &mut self.machine.threads[self.tid]
    }

    /// The running thread's innermost frame.
    pub fn frame(&mut self) -> &mut Frame {
        self.thread().frame()
    }

    /// The running thread's id.
    pub fn id(&self) -> u32 {
        self.machine.threads[self.tid].id
    }

    /// Whether the running thread is inside an `atomic` block.
    pub fn in_atomic(&self) -> bool {
        self.machine.threads[self.tid].atomic_depth > 0
    }

    /// Pushes tasks so that they run in the order given.
    pub fn push_in_order(&mut self, tasks: impl DoubleEndedIterator<Item = Task>) {
        self.frame().tasks.extend(tasks.rev());
    }

    /// Pushes a value on the operand stack.
    pub fn push_value(&mut self, value: Value) {
        self.frame().values.push(value);
    }

    /// Counts a loop iteration or a call at `line`.
    pub fn tick(&mut self, line: u32) -> Result<(), Fault> {
        if self.meter.tick() {
            Ok(())
        } else {
            Err(Fault {
                kind: FaultKind::StepLimit,
                line,
            })
        }
    }

    /// Leaves the innermost frame with `value`; leaving the outermost one
    /// ends the thread.
    pub fn return_from_frame(&mut self, value: Value) -> Event {
        let thread = self.thread();
        thread.frames.pop();
        if thread.frames.is_empty() {
            thread.status = Status::Finished;
            Event::Ended
        } else {
            thread.frame().values.push(value);
            Event::Local
        }
    }

    fn run(&mut self, task: Task) -> Result<Event, Fault> {
        match task {
            Task::Eval(expr) => self.eval(expr),
            Task::Apply(expr) => self.apply(expr),
            Task::ShortCircuit(expr) => self.short_circuit(expr),
            Task::Exec(stmt) => self.exec(stmt),
            Task::Finish(stmt) => self.finish(stmt),
            Task::Block { block, next } => Ok(self.block(block, next)),
            Task::IfArm { stmt, arm } => self.if_arm(stmt, arm),
            Task::WhileTest(stmt) => self.while_test(stmt),
            Task::WhileAgain(stmt) => Ok(self.while_again(stmt)),
            Task::ForStart(stmt) => self.for_start(stmt),
            Task::ForNext { stmt, next, end } => self.for_next(stmt, next, end),
            Task::SyncEnter(stmt) => self.sync_enter(stmt),
            Task::SyncExit { stmt, mutex } => {
                let StmtKind::Sync { end_line, .. } = self.program.stmt(stmt).kind else {
                    panic!("invariant: SyncExit names a sync statement");
                };
                self.unlock(mutex, end_line)
            }
            Task::AtomicExit => Ok(self.atomic_exit()),
            Task::Unwind(completion, line) => self.unwind(completion, line),
        }
    }

    /// Starts evaluating `expr`: a leaf is computed at once, an inner node
    /// schedules its operands, left to right, and then itself.
    fn eval(&mut self, id: ExprId) -> Result<Event, Fault> {
        let program = self.program;
        let operands: Vec<ExprId> = match &program.expr(id).kind {
            ExprKind::Value(value) => return Ok(self.leaf(*value)),
            ExprKind::Local(slot) => {
                let value = self.frame().locals[slot.0 as usize];
                return Ok(self.leaf(value));
            }
            ExprKind::Scalar(scalar) => {
                let (var, _) = program.scalars[scalar.0 as usize];
                let value = self.machine.memory.scalars[scalar.0 as usize];
                self.push_value(value);
                return Ok(Event::Read(var));
            }
            ExprKind::GlobalLen(array) => {
                let len = program.arrays[array.0 as usize].len as i64;
                return Ok(self.leaf(Value::Int(len)));
            }
            ExprKind::SelfId => {
                let id = self.id();
                return Ok(self.leaf(Value::Int(i64::from(id))));
            }
            ExprKind::NewMutex(site) => {
                let object = Object::Mutex {
                    var: *site,
                    owner: None,
                };
                let id = self.machine.memory.allocate(object);
                return Ok(self.leaf(Value::Mutex(id)));
            }
            ExprKind::NewCond(site) => {
                let object = Object::Cond {
                    var: *site,
                    waiters: Default::default(),
                };
                let id = self.machine.memory.allocate(object);
                return Ok(self.leaf(Value::Cond(id)));
            }
            ExprKind::Binary { op, lhs, .. } if op.is_short_circuit() => {
                self.push_in_order([Task::Eval(*lhs), Task::ShortCircuit(id)].into_iter());
                return Ok(Event::Local);
            }
            ExprKind::Field { base, .. } | ExprKind::Len(base) => vec![*base],
            ExprKind::Unary { operand, .. } => vec![*operand],
            ExprKind::Index { base, index } => vec![*base, *index],
            ExprKind::GlobalIndex { index, .. } => vec![*index],
            ExprKind::Binary { lhs, rhs, .. } => vec![*lhs, *rhs],
            ExprKind::Call { args, .. } | ExprKind::Spawn { args, .. } => args.clone(),
            ExprKind::NewRecord { fields, .. } => fields.iter().map(|(_, e)| *e).collect(),
            ExprKind::NewArray { len, init, .. } => std::iter::once(*len).chain(*init).collect(),
        };
        let tasks = operands.into_iter().map(Task::Eval);
        self.push_in_order(tasks.chain([Task::Apply(id)]));
        Ok(Event::Local)
    }

    fn leaf(&mut self, value: Value) -> Event {
        self.push_value(value);
        Event::Local
    }

    /// Finishes `expr` once its operands are on the operand stack.
    fn apply(&mut self, id: ExprId) -> Result<Event, Fault> {
        let program = self.program;
        let expr = program.expr(id);
        let line = expr.line;
        match &expr.kind {
            ExprKind::Field { field, .. } => {
                let base = self.frame().pop();
                self.read_field(base, *field, line)
            }
            ExprKind::Index { .. } => {
                let index = self.frame().pop();
                let base = self.frame().pop();
                self.read_element(base, index, line)
            }
            ExprKind::GlobalIndex { array, .. } => {
                let index = self.frame().pop();
                self.read_global_element(*array, index, line)
            }
            ExprKind::Unary { op, .. } => {
                let operand = self.frame().pop();
                let value = operator::unary(*op, operand).map_err(|r| Fault::error(line, r))?;
                Ok(self.leaf(value))
            }
            ExprKind::Binary { op, .. } => {
                let rhs = self.frame().pop();
                let lhs = self.frame().pop();
                let value = operator::binary(*op, lhs, rhs).map_err(|r| Fault::error(line, r))?;
                Ok(self.leaf(value))
            }
            ExprKind::Call { function, args } => {
                self.tick(line)?;
                let args = self.frame().pop_n(args.len());
                let frame = Frame::new(program, *function, &args);
                self.thread().frames.push(frame);
                Ok(Event::Local)
            }
            ExprKind::Spawn { function, args } => {
                let args = self.frame().pop_n(args.len());
                Ok(self.spawn(*function, &args))
            }
            ExprKind::NewRecord { site, fields } => {
                let values = self.frame().pop_n(fields.len());
                let fields = fields.iter().map(|(name, _)| *name).zip(values).collect();
                let id = self.machine.memory.allocate(Object::Record {
                    site: *site,
                    fields,
                });
                Ok(self.leaf(Value::Record(id)))
            }
            ExprKind::NewArray { site, init, .. } => {
                let init = if init.is_some() {
                    self.frame().pop()
                } else {
                    Value::Int(0)
                };
                let len = self.frame().pop();
                self.new_array(*site, len, init, line)
            }
            ExprKind::Len(_) => match self.frame().pop() {
                Value::Array(id) => {
                    let len = self.machine.memory.elements_mut(id).len() as i64;
                    Ok(self.leaf(Value::Int(len)))
                }
                other => Err(Fault::error(
                    line,
                    operator::wrong_type("len", "an array", other),
                )),
            },
            other => panic!("invariant: {other:?} has no operands to apply"),
        }
    }

    /// The left operand of `&&`/`||` is known: the value, or the right
    /// operand's evaluation.
    fn short_circuit(&mut self, id: ExprId) -> Result<Event, Fault> {
        let expr = self.program.expr(id);
        let ExprKind::Binary { op, rhs, .. } = expr.kind else {
            panic!("invariant: ShortCircuit names a binary expression");
        };
        let left = self.frame().pop();
        match operator::short_circuit(op, left).map_err(|r| Fault::error(expr.line, r))? {
            Some(value) => Ok(self.leaf(value)),
            None => {
                self.frame().tasks.push(Task::Eval(rhs));
                Ok(Event::Local)
            }
        }
    }

    fn new_array(
        &mut self,
        site: VarId,
        len: Value,
        init: Value,
        line: u32,
    ) -> Result<Event, Fault> {
        let len = match len {
            Value::Int(n) if (0..=MAX_ARRAY_LEN).contains(&n) => n as usize,
            Value::Int(n) if n < 0 => return Err(Fault::error(line, "negative array length")),
            Value::Int(_) => return Err(Fault::error(line, "heap slot limit exceeded")),
            other => {
                return Err(Fault::error(
                    line,
                    operator::wrong_type("new [n]", "an int", other),
                ))
            }
        };
        let object = Object::Array {
            site,
            elements: vec![init; len],
        };
        let id = self.machine.memory.allocate(object);
        Ok(self.leaf(Value::Array(id)))
    }
}
