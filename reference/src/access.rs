//! Reads and writes of shared locations (global scalars, global array
//! elements, record fields, heap array elements), with the run-time checks
//! of docs/LANGUAGE.md "Failures": a field of `null` or a missing field, an index
//! that is not an int or is out of bounds, a base of the wrong type.

use crate::failure::Fault;
use crate::interpret::{Cursor, Event};
use crate::memory::Object;
use crate::operator::wrong_type;
use crate::program::{ArrayId, FieldName, ScalarId};
use crate::value::{ObjId, Value};

impl Cursor<'_, '_> {
    /// Pushes field `field` of `base`.
    pub fn read_field(&mut self, base: Value, field: FieldName, line: u32) -> Result<Event, Fault> {
        let record = self.record(base, line)?;
        let at = self.field_index(record, field, line)?;
        let var = self.machine.memory.variable_of(record);
        let value = self.machine.memory.fields_mut(record)[at].1;
        self.push_value(value);
        Ok(Event::Read(var))
    }

    /// Stores `value` into field `field` of `base`.
    pub fn write_field(
        &mut self,
        base: Value,
        field: FieldName,
        value: Value,
        line: u32,
    ) -> Result<Event, Fault> {
        let record = self.record(base, line)?;
        let at = self.field_index(record, field, line)?;
        let var = self.machine.memory.variable_of(record);
        self.machine.memory.fields_mut(record)[at].1 = value;
        Ok(Event::Write(var))
    }

    /// Pushes element `index` of heap array `base`.
    pub fn read_element(&mut self, base: Value, index: Value, line: u32) -> Result<Event, Fault> {
        let array = self.heap_array(base, line)?;
        let memory = &mut self.machine.memory;
        let var = memory.variable_of(array);
        let at = checked_index(index, memory.elements_mut(array).len(), line)?;
        let value = memory.elements_mut(array)[at];
        self.push_value(value);
        Ok(Event::Read(var))
    }

    /// Stores `value` into element `index` of heap array `base`.
    pub fn write_element(
        &mut self,
        base: Value,
        index: Value,
        value: Value,
        line: u32,
    ) -> Result<Event, Fault> {
        let array = self.heap_array(base, line)?;
        let memory = &mut self.machine.memory;
        let var = memory.variable_of(array);
        let at = checked_index(index, memory.elements_mut(array).len(), line)?;
        memory.elements_mut(array)[at] = value;
        Ok(Event::Write(var))
    }

    /// Pushes element `index` of global array `array`.
    pub fn read_global_element(
        &mut self,
        array: ArrayId,
        index: Value,
        line: u32,
    ) -> Result<Event, Fault> {
        let var = self.program.arrays[array.0 as usize].var;
        let elements = &self.machine.memory.arrays[array.0 as usize];
        let value = elements[checked_index(index, elements.len(), line)?];
        self.push_value(value);
        Ok(Event::Read(var))
    }

    /// Stores `value` into element `index` of global array `array`.
    pub fn write_global_element(
        &mut self,
        array: ArrayId,
        index: Value,
        value: Value,
        line: u32,
    ) -> Result<Event, Fault> {
        let var = self.program.arrays[array.0 as usize].var;
        let elements = &mut self.machine.memory.arrays[array.0 as usize];
        let at = checked_index(index, elements.len(), line)?;
        elements[at] = value;
        Ok(Event::Write(var))
    }

    /// Stores `value` into global scalar `scalar`.
    pub fn write_scalar(&mut self, scalar: ScalarId, value: Value) -> Event {
        let (var, _) = self.program.scalars[scalar.0 as usize];
        self.machine.memory.scalars[scalar.0 as usize] = value;
        Event::Write(var)
    }

    fn record(&self, base: Value, line: u32) -> Result<ObjId, Fault> {
        match base {
            Value::Record(id) => Ok(id),
            Value::Null => Err(Fault::error(line, "null dereference")),
            other => Err(Fault::error(line, wrong_type(".", "a record", other))),
        }
    }

    fn heap_array(&self, base: Value, line: u32) -> Result<ObjId, Fault> {
        match base {
            Value::Array(id) => Ok(id),
            Value::Null => Err(Fault::error(line, "null dereference")),
            other => Err(Fault::error(line, wrong_type("[]", "an array", other))),
        }
    }

    fn field_index(&self, record: ObjId, field: FieldName, line: u32) -> Result<usize, Fault> {
        let Object::Record { fields, .. } = self.machine.memory.object(record) else {
            panic!("invariant: a record reference names a record");
        };
        fields
            .iter()
            .position(|(name, _)| *name == field)
            .ok_or_else(|| {
                let name = &self.program.fields[field.0 as usize];
                Fault::error(line, format!("the record has no field `{name}`"))
            })
    }
}

/// `index` as a position in an array of `len` elements.
fn checked_index(index: Value, len: usize, line: u32) -> Result<usize, Fault> {
    match index {
        Value::Int(i) if i >= 0 && (i as u64) < len as u64 => Ok(i as usize),
        Value::Int(i) => Err(Fault::error(
            line,
            format!("index {i} out of bounds for an array of length {len}"),
        )),
        other => Err(Fault::error(line, wrong_type("[]", "an int index", other))),
    }
}
