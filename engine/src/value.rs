//! Run-time values of the `.rk` language.

use crate::id::{CondId, MutexId, ObjId, ThreadId};

/// A dynamically typed value (docs/LANGUAGE.md, Values). Sixteen bytes, `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Value {
    /// `null`, also the value of a function that returns nothing.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A 64-bit signed integer; overflow is a run-time error.
    Int(i64),
    /// A reference to a heap record or array.
    Ref(ObjId),
    /// A mutex.
    Mutex(MutexId),
    /// A condition variable.
    Cond(CondId),
    /// A thread handle, as `spawn` returns it.
    Thread(ThreadId),
}

impl Value {
    /// The type's name as error messages say it.
    pub fn type_name(self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Ref(_) => "reference",
            Value::Mutex(_) => "mutex",
            Value::Cond(_) => "condition variable",
            Value::Thread(_) => "thread handle",
        }
    }
}
