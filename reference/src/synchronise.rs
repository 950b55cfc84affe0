//! Synchronisation operations: `lock`, `unlock`, `sync`, `wait`, `signal`,
//! `broadcast`, `join`, `spawn` and `await`, and how a blocked thread,
//! once chosen, completes the operation it waited for.
//!
//! A blocking operation first leaves the thread's continuation as it will be
//! after the operation, then marks the thread blocked; completing the
//! operation later is then only a change of ownership or status.

use crate::condition::evaluate_condition;
use crate::failure::Fault;
use crate::interpret::{Cursor, Event};
use crate::operator::wrong_type;
use crate::program::{ExprId, FnId, StmtId, StmtKind};
use crate::thread::{Blocker, Status, Task, Thread};
use crate::value::{ObjId, Value};

impl Cursor<'_, '_> {
    /// `value` as the mutex operand of `what`.
    pub fn mutex_operand(&self, value: Value, what: &str, line: u32) -> Result<ObjId, Fault> {
        match value {
            Value::Mutex(id) => Ok(id),
            other => Err(Fault::error(line, wrong_type(what, "a mutex", other))),
        }
    }

    /// Takes `mutex`, or blocks on it (an error inside `atomic`). A thread
    /// locking a mutex it holds blocks forever.
    pub fn acquire(&mut self, mutex: ObjId, line: u32) -> Result<Event, Fault> {
        if self.machine.memory.owner(mutex).is_none() {
            let id = self.id();
            self.machine.memory.set_owner(mutex, Some(id));
            let var = self.machine.memory.variable_of(mutex);
            return Ok(Event::Sync(vec![var]));
        }
        self.block_on(Blocker::Lock { mutex, line }, "lock")
    }

    /// Releases `mutex`, which the thread must hold.
    pub fn unlock(&mut self, mutex: ObjId, line: u32) -> Result<Event, Fault> {
        match self.machine.memory.owner(mutex) {
            Some(owner) if owner == self.id() => {
                self.machine.memory.set_owner(mutex, None);
                let var = self.machine.memory.variable_of(mutex);
                Ok(Event::Sync(vec![var]))
            }
            Some(_) => Err(Fault::error(line, "unlock of a mutex another thread holds")),
            None => Err(Fault::error(line, "unlock of a mutex that is not locked")),
        }
    }

    /// The mutex of `sync` statement `id` is on the stack: schedule the body
    /// and the unlock, then lock.
    pub fn sync_enter(&mut self, id: StmtId) -> Result<Event, Fault> {
        let stmt = self.program.stmt(id);
        let StmtKind::Sync { body, .. } = stmt.kind else {
            panic!("invariant: SyncEnter names a sync statement");
        };
        let mutex = self.frame().pop();
        let mutex = self.mutex_operand(mutex, "sync", stmt.line)?;
        let tasks = [
            Task::Block {
                block: body,
                next: 0,
            },
            Task::SyncExit { stmt: id, mutex },
        ];
        self.push_in_order(tasks.into_iter());
        self.acquire(mutex, stmt.line)
    }

    /// `wait(cond, mutex)`: releases the held mutex and waits on `cond`.
    pub fn wait(&mut self, cond: Value, mutex: Value, line: u32) -> Result<Event, Fault> {
        let Value::Cond(cond) = cond else {
            return Err(Fault::error(
                line,
                wrong_type("wait", "a condition variable", cond),
            ));
        };
        let mutex = self.mutex_operand(mutex, "wait", line)?;
        if self.machine.memory.owner(mutex) != Some(self.id()) {
            return Err(Fault::error(line, "wait without holding its mutex"));
        }
        if self.in_atomic() {
            return Err(Fault::error(
                line,
                "`wait` would block inside an atomic block",
            ));
        }
        let id = self.id();
        self.machine.memory.set_owner(mutex, None);
        self.machine.memory.waiters_mut(cond).push_back(id);
        self.thread().status = Status::Blocked(Blocker::Wait { mutex, line });
        Ok(Event::Blocked)
    }

    /// `signal(cond)` (`all` false) or `broadcast(cond)` (`all` true): the
    /// woken threads need their mutex back.
    pub fn signal(&mut self, cond: Value, all: bool, line: u32) -> Result<Event, Fault> {
        let Value::Cond(cond) = cond else {
            let what = if all { "broadcast" } else { "signal" };
            return Err(Fault::error(
                line,
                wrong_type(what, "a condition variable", cond),
            ));
        };
        let waiters = self.machine.memory.waiters_mut(cond);
        let woken: Vec<u32> = if all {
            waiters.drain(..).collect()
        } else {
            waiters.pop_front().into_iter().collect()
        };
        for thread in woken {
            wake(&mut self.machine.threads[thread as usize]);
        }
        let var = self.machine.memory.variable_of(cond);
        Ok(Event::Sync(vec![var]))
    }

    /// `join(handle)`: goes on if the thread has finished, else blocks.
    pub fn join(&mut self, handle: Value, line: u32) -> Result<Event, Fault> {
        let Value::Thread(thread) = handle else {
            return Err(Fault::error(
                line,
                wrong_type("join", "a thread handle", handle),
            ));
        };
        if self.machine.threads[thread as usize].is_finished() {
            return Ok(Event::Sync(Vec::new()));
        }
        self.block_on(Blocker::Join { thread, line }, "join")
    }

    /// `spawn function(args)`: the new thread takes the next id.
    pub fn spawn(&mut self, function: FnId, args: &[Value]) -> Event {
        let id = self.machine.threads.len() as u32;
        let thread = Thread::new(self.program, id, function, args);
        self.machine.threads.push(thread);
        self.push_value(Value::Thread(id));
        Event::Sync(Vec::new())
    }

    /// `await cond`: one atomic evaluation; true goes on, false blocks.
    pub fn await_condition(&mut self, cond: ExprId, line: u32) -> Result<Event, Fault> {
        let (value, reads) = evaluate_condition(
            self.program,
            &*self.machine,
            self.tid,
            cond,
            &mut *self.meter,
        )?;
        match value {
            Value::Bool(true) => Ok(Event::Sync(reads)),
            Value::Bool(false) => self.block_on(Blocker::Await { cond, line }, "await"),
            other => Err(Fault::error(
                self.program.expr(cond).line,
                wrong_type("await", "a bool", other),
            )),
        }
    }

    /// Blocks on `blocker`; inside `atomic` that is an error instead.
    fn block_on(&mut self, blocker: Blocker, what: &str) -> Result<Event, Fault> {
        if self.in_atomic() {
            let message = format!("`{what}` would block inside an atomic block");
            return Err(Fault::error(blocker.line(), message));
        }
        self.thread().status = Status::Blocked(blocker);
        Ok(Event::Blocked)
    }

    /// The chosen thread is blocked (and can run): completes the operation
    /// it waited for, which is its whole step.
    pub fn resume(&mut self) -> Result<Event, Fault> {
        let Status::Blocked(blocker) = self.thread().status.clone() else {
            panic!("invariant: only a blocked thread resumes");
        };
        let event = match blocker {
            Blocker::Lock { mutex, .. } | Blocker::Reacquire { mutex, .. } => {
                let id = self.id();
                self.machine.memory.set_owner(mutex, Some(id));
                Event::Sync(vec![self.machine.memory.variable_of(mutex)])
            }
            Blocker::Join { .. } => Event::Sync(Vec::new()),
            Blocker::Await { cond, .. } => {
                let (value, reads) = evaluate_condition(
                    self.program,
                    &*self.machine,
                    self.tid,
                    cond,
                    &mut *self.meter,
                )?;
                match value {
                    Value::Bool(true) => Event::Sync(reads),
                    Value::Bool(false) => {
                        panic!("invariant: a chosen awaiting thread's condition holds")
                    }
                    other => {
                        let line = self.program.expr(cond).line;
                        return Err(Fault::error(line, wrong_type("await", "a bool", other)));
                    }
                }
            }
            Blocker::Wait { .. } => panic!("invariant: a thread waiting on a cond cannot run"),
        };
        self.thread().status = Status::Ready;
        Ok(event)
    }
}

/// A signalled waiter now needs its mutex back.
fn wake(thread: &mut Thread) {
    let Status::Blocked(Blocker::Wait { mutex, line }) = thread.status else {
        panic!("invariant: a cond's waiters are waiting on it");
    };
    thread.status = Status::Blocked(Blocker::Reacquire { mutex, line });
}
