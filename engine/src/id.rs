//! Index newtypes: every id in the IR and the VM is one of these, never a bare
//! integer.

macro_rules! id {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub $inner);

        impl $name {
            /// The id as an index into the table it names.
            #[inline(always)]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id!(
    /// A thread of one execution: initial threads in program order from 0,
    /// spawned threads after them in spawn order (docs/LANGUAGE.md, Program
    /// structure).
    ThreadId(u32)
);
id!(
    /// A variable in the sense of variable bounding: a `global`, `mutex` or
    /// `cond` declaration, or an allocation site (a `new` expression).
    VarId(u32)
);
id!(
    /// An access site: one place in the IR that reads or writes shared memory
    /// or operates on a mutex or condition variable.
    SiteId(u32)
);
id!(
    /// A function of the program (initial threads are functions too).
    FuncId(u32)
);
id!(
    /// A global scalar's slot.
    GlobalId(u32)
);
id!(
    /// An entry of the program's constant pool.
    ConstId(u32)
);
id!(
    /// A record field name, interned program-wide.
    FieldId(u32)
);
id!(
    /// A record layout: the field list of one `new { ... }` expression.
    ShapeId(u32)
);
id!(
    /// An entry of the program's string table (assert messages, print text).
    StrId(u32)
);
id!(
    /// A print statement's argument list.
    PrintId(u32)
);
id!(
    /// A heap object (record or array) of one execution.
    ObjId(u32)
);
id!(
    /// A mutex of one execution.
    MutexId(u32)
);
id!(
    /// A condition variable of one execution.
    CondId(u32)
);
id!(
    /// A register of a function's frame; parameters occupy the first ones.
    Reg(u16)
);

/// A few threads, kept inline (no allocation up to four): the lists the
/// shrinker records at every point of hundreds of replays, and those the
/// race analysis builds for every race.
pub type FewThreads = smallvec::SmallVec<[ThreadId; 4]>;
