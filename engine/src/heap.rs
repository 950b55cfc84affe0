//! The heap of one execution: records and arrays in one flat slot vector.

use crate::id::{ObjId, ShapeId, VarId};
use crate::value::Value;

/// Marks an object that is an array rather than a record.
const ARRAY: u32 = u32::MAX;

/// One heap object's header; its slots are `slots[start..start + len]`.
#[derive(Clone, Copy, Debug)]
struct Object {
    /// The allocation site (or global array) it belongs to.
    var: VarId,
    /// Its record shape, or [`ARRAY`].
    shape: u32,
    start: u32,
    len: u32,
    /// Whether accesses to it are scheduling points: its variable is
    /// tracked, and, when the search splits its allocation site by
    /// instance, it is one of the tracked instances.
    tracked: bool,
}

/// Records and arrays. Cleared, not freed, between executions so that a run
/// allocates nothing once the vectors have grown.
#[derive(Clone, Debug, Default)]
pub(crate) struct Heap {
    objects: Vec<Object>,
    slots: Vec<Value>,
}

/// Why a heap allocation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AllocError {
    /// The execution would exceed its heap limit (in slots).
    Exhausted,
}

impl Heap {
    /// Where the heap ends now, to [`Heap::truncate`] back to.
    pub(crate) fn mark(&self) -> (usize, usize) {
        (self.objects.len(), self.slots.len())
    }

    /// Forget the objects made since `mark`.
    pub(crate) fn truncate(&mut self, mark: (usize, usize)) {
        self.objects.truncate(mark.0);
        self.slots.truncate(mark.1);
    }

    /// Forget every object.
    pub(crate) fn clear(&mut self) {
        self.objects.clear();
        self.slots.clear();
    }

    /// Allocate an array of `len` copies of `init`.
    pub(crate) fn new_array(
        &mut self,
        var: VarId,
        len: u32,
        init: Value,
        limit: usize,
        tracked: bool,
    ) -> Result<ObjId, AllocError> {
        self.alloc(var, ARRAY, len, limit, tracked).inspect(|_| {
            let new_len = self.slots.len() + len as usize;
            self.slots.resize(new_len, init);
        })
    }

    /// Allocate a record of `shape` with the given slot values.
    pub(crate) fn new_record(
        &mut self,
        var: VarId,
        shape: ShapeId,
        values: &[Value],
        limit: usize,
        tracked: bool,
    ) -> Result<ObjId, AllocError> {
        self.alloc(var, shape.0, values.len() as u32, limit, tracked)
            .inspect(|_| {
                self.slots.extend_from_slice(values);
            })
    }

    fn alloc(
        &mut self,
        var: VarId,
        shape: u32,
        len: u32,
        limit: usize,
        tracked: bool,
    ) -> Result<ObjId, AllocError> {
        if self.slots.len() + len as usize > limit || self.objects.len() >= u32::MAX as usize {
            return Err(AllocError::Exhausted);
        }
        let id = ObjId(self.objects.len() as u32);
        self.objects.push(Object {
            tracked,
            var,
            shape,
            start: self.slots.len() as u32,
            len,
        });
        Ok(id)
    }

    /// The variable an object belongs to.
    #[inline(always)]
    pub(crate) fn var(&self, obj: ObjId) -> VarId {
        self.objects[obj.index()].var
    }

    /// Whether accesses to the object are scheduling points.
    #[inline(always)]
    pub(crate) fn tracked(&self, obj: ObjId) -> bool {
        self.objects[obj.index()].tracked
    }

    /// The array's length, or `None` if the object is a record.
    #[inline(always)]
    pub(crate) fn array_len(&self, obj: ObjId) -> Option<u32> {
        let o = self.objects[obj.index()];
        (o.shape == ARRAY).then_some(o.len)
    }

    /// The record's shape, or `None` if the object is an array.
    #[inline(always)]
    pub(crate) fn shape(&self, obj: ObjId) -> Option<ShapeId> {
        let o = self.objects[obj.index()];
        (o.shape != ARRAY).then_some(ShapeId(o.shape))
    }

    /// The index of slot `slot` of `obj` in the slot vector. The caller has
    /// checked `slot` against the length or the shape.
    #[inline(always)]
    pub(crate) fn slot_index(&self, obj: ObjId, slot: u32) -> usize {
        (self.objects[obj.index()].start + slot) as usize
    }

    /// Read a slot by its index.
    #[inline(always)]
    pub(crate) fn get(&self, index: usize) -> Value {
        self.slots[index]
    }

    /// Write a slot by its index.
    #[inline(always)]
    pub(crate) fn set(&mut self, index: usize, value: Value) {
        self.slots[index] = value;
    }
}
