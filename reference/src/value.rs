//! Run-time values: integers, booleans, `null`, and typed references to heap
//! objects and threads.

use std::fmt;

/// A heap object, by its index in [`crate::memory::Memory`]'s object list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjId(pub u32);

/// A value. References carry the type of what they name, so a type check
/// needs no heap look-up; two references are equal when they name the same
/// object, and values of different types are never equal (the derived
/// equality gives exactly docs/LANGUAGE.md's `==`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// A 64-bit signed integer.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// A record.
    Record(ObjId),
    /// A heap array.
    Array(ObjId),
    /// A mutex.
    Mutex(ObjId),
    /// A condition variable.
    Cond(ObjId),
    /// A thread handle, by thread id.
    Thread(u32),
}

impl Value {
    /// The type's name, for error messages.
    pub fn type_name(self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Bool(_) => "bool",
            Value::Null => "null",
            Value::Record(_) => "record",
            Value::Array(_) => "array",
            Value::Mutex(_) => "mutex",
            Value::Cond(_) => "cond",
            Value::Thread(_) => "thread",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Null => f.write_str("null"),
            Value::Thread(id) => write!(f, "thread {id}"),
            other => write!(f, "{} #{}", other.type_name(), object_number(*other)),
        }
    }
}

fn object_number(value: Value) -> u32 {
    match value {
        Value::Record(id) | Value::Array(id) | Value::Mutex(id) | Value::Cond(id) => id.0,
        _ => 0,
    }
}
