//! Shared memory: global scalars and arrays, and the heap of records, arrays,
//! mutexes and condition variables. Every location knows its variable, so an
//! access can be checked against the tracked set.

use std::collections::VecDeque;

use crate::program::{FieldName, Program, VarId};
use crate::value::{ObjId, Value};

/// Everything threads share.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Memory {
    /// Global scalars, by [`crate::program::ScalarId`].
    pub scalars: Vec<Value>,
    /// Global arrays' elements, by [`crate::program::ArrayId`].
    pub arrays: Vec<Vec<Value>>,
    /// Heap objects, by [`ObjId`]; declared mutexes and condition variables
    /// come first, in declaration order.
    pub objects: Vec<Object>,
}

/// A heap object.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Object {
    /// A record: its allocation site and its fields in literal order.
    Record {
        /// The allocation site.
        site: VarId,
        /// The fields.
        fields: Vec<(FieldName, Value)>,
    },
    /// An array: its allocation site and elements.
    Array {
        /// The allocation site.
        site: VarId,
        /// The elements.
        elements: Vec<Value>,
    },
    /// A mutex: its variable and the thread holding it.
    Mutex {
        /// The declaration or allocation site.
        var: VarId,
        /// The holder, if any.
        owner: Option<u32>,
    },
    /// A condition variable: its variable and its waiters, longest-waiting
    /// first.
    Cond {
        /// The declaration or allocation site.
        var: VarId,
        /// Waiting threads in arrival order.
        waiters: VecDeque<u32>,
    },
}

impl Memory {
    /// The memory a program starts with.
    pub fn new(program: &Program) -> Memory {
        let scalars = program.scalars.iter().map(|(_, init)| *init).collect();
        let arrays = program
            .arrays
            .iter()
            .map(|array| vec![array.init; array.len])
            .collect();
        let objects = program
            .sync_objects
            .iter()
            .map(|decl| {
                if decl.is_mutex {
                    Object::Mutex {
                        var: decl.var,
                        owner: None,
                    }
                } else {
                    Object::Cond {
                        var: decl.var,
                        waiters: VecDeque::new(),
                    }
                }
            })
            .collect();
        Memory {
            scalars,
            arrays,
            objects,
        }
    }

    /// Adds `object` to the heap and returns its id.
    pub fn allocate(&mut self, object: Object) -> ObjId {
        let id = ObjId(self.objects.len() as u32);
        self.objects.push(object);
        id
    }

    /// The object `id`.
    pub fn object(&self, id: ObjId) -> &Object {
        &self.objects[id.0 as usize]
    }

    /// The object `id`, to change it.
    pub fn object_mut(&mut self, id: ObjId) -> &mut Object {
        &mut self.objects[id.0 as usize]
    }

    /// The variable of the object `id`.
    pub fn variable_of(&self, id: ObjId) -> VarId {
        match self.object(id) {
            Object::Record { site, .. } | Object::Array { site, .. } => *site,
            Object::Mutex { var, .. } | Object::Cond { var, .. } => *var,
        }
    }

    /// Who holds mutex `id`. A reference typed as a mutex always names one.
    pub fn owner(&self, id: ObjId) -> Option<u32> {
        match self.object(id) {
            Object::Mutex { owner, .. } => *owner,
            _ => panic!("invariant: a mutex reference names a mutex"),
        }
    }

    /// Makes `owner` the holder of mutex `id` (`None` frees it).
    pub fn set_owner(&mut self, id: ObjId, new_owner: Option<u32>) {
        match self.object_mut(id) {
            Object::Mutex { owner, .. } => *owner = new_owner,
            _ => panic!("invariant: a mutex reference names a mutex"),
        }
    }

    /// The waiters of condition variable `id`.
    pub fn waiters_mut(&mut self, id: ObjId) -> &mut VecDeque<u32> {
        match self.object_mut(id) {
            Object::Cond { waiters, .. } => waiters,
            _ => panic!("invariant: a cond reference names a condition variable"),
        }
    }

    /// The fields of record `id`.
    pub fn fields_mut(&mut self, id: ObjId) -> &mut Vec<(FieldName, Value)> {
        match self.object_mut(id) {
            Object::Record { fields, .. } => fields,
            _ => panic!("invariant: a record reference names a record"),
        }
    }

    /// The elements of heap array `id`.
    pub fn elements_mut(&mut self, id: ObjId) -> &mut Vec<Value> {
        match self.object_mut(id) {
            Object::Array { elements, .. } => elements,
            _ => panic!("invariant: an array reference names an array"),
        }
    }
}
