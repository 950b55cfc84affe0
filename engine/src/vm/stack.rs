//! A thread's registers and frames, kept apart from the rest of its state:
//! [`Vm::run`](super::Vm::run) holds every thread's out of the machine for
//! the execution, so that the interpreter works on the running thread's in
//! place (found by its index) while it calls the machine's methods, and a
//! switch to another thread moves nothing.

use crate::id::{FuncId, Reg};
use crate::value::Value;

use super::Frame;

/// One thread's register file and call frames.
#[derive(Clone, Debug, Default)]
pub(super) struct Stack {
    pub(super) regs: Vec<Value>,
    pub(super) frames: Vec<Frame>,
}

impl Stack {
    /// Start afresh at the first instruction of `func`, with `registers`
    /// cleared registers (the caller fills in the arguments); the memory
    /// grown by earlier executions is kept.
    pub(super) fn start(&mut self, func: FuncId, registers: usize) {
        self.frames.clear();
        self.frames.push(Frame {
            func,
            pc: 0,
            base: 0,
            ret: Reg(0),
        });
        self.regs.clear();
        self.regs.resize(registers, Value::Null);
    }
}
