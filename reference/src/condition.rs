//! Evaluating an `await` condition atomically, without changing the machine:
//! the condition runs on a scratch copy of the thread's innermost frame and
//! of the memory, through the same small-step interpreter as everything
//! else, so calls, loops and asserts in it mean what they mean elsewhere.
//! The scheduler uses it to see whether a blocked thread can run, and the
//! thread uses it for its own evaluation.

use crate::failure::Fault;
use crate::interpret::{micro_step, Event};
use crate::machine::{Machine, Meter};
use crate::program::{ExprId, Program, VarId};
use crate::thread::{Frame, Status, Task, Thread};
use crate::value::Value;

/// The value of `cond` in thread `tid`'s innermost frame and the variables
/// it read, sorted and without repeats.
pub fn evaluate_condition(
    program: &Program,
    machine: &Machine,
    tid: usize,
    cond: ExprId,
    meter: &mut Meter,
) -> Result<(Value, Vec<VarId>), Fault> {
    let thread = &machine.threads[tid];
    let frame = thread
        .frames
        .last()
        .expect("invariant: an awaiting thread has a frame");
    let scratch_frame = Frame {
        locals: frame.locals.clone(),
        values: Vec::new(),
        tasks: vec![Task::Eval(cond)],
    };
    let scratch_thread = Thread {
        id: thread.id,
        status: Status::Ready,
        frames: vec![scratch_frame],
        // Inside an `atomic` as far as the interpreter knows, so that nothing
        // could block; the purity check already rules blocking out.
        atomic_depth: 1,
        atomic_ends_step: false,
        atomic_touched: false,
    };
    let mut scratch = Machine {
        threads: vec![scratch_thread],
        memory: machine.memory.clone(),
    };
    run_to_value(program, &mut scratch, meter)
}

/// Runs the scratch machine's only thread until its outermost frame has
/// computed the condition's value.
fn run_to_value(
    program: &Program,
    scratch: &mut Machine,
    meter: &mut Meter,
) -> Result<(Value, Vec<VarId>), Fault> {
    let mut reads = Vec::new();
    loop {
        let frames = &mut scratch.threads[0].frames;
        if frames.len() == 1 && frames[0].tasks.is_empty() {
            reads.sort();
            reads.dedup();
            return Ok((frames[0].pop(), reads));
        }
        match micro_step(program, scratch, 0, meter)? {
            Event::Local => {}
            Event::Read(var) => reads.push(var),
            other => panic!(
                "invariant: an await condition only reads (purity is checked when resolving), \
                 got {other:?}"
            ),
        }
    }
}
