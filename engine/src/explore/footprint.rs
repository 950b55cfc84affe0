//! What a step touched, in terms every front end can name: the places it
//! read or changed. The depth-first search ([`super::dfs`]) reads
//! independence off these: two steps of different threads commute unless
//! they touch a common place and one of them writes it. A front end logs
//! them as the step runs (the VM's [`Access`]es, rt's executor), so what
//! a thread did is known also where its next operation was not.
//!
//! Places are named by what they are, not by where an execution keeps
//! them: an object by its variable (the same in every run, whatever the
//! order in which threads made their objects), a thread by its id. That
//! is what makes a footprint of one run comparable with another's, which
//! sleep sets, state caching and a later partial-order reduction all do.

use crate::id::ThreadId;
use crate::scheduler::Access;

/// Something shared a step may read or change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    /// An object's memory (an atomic, a cell, a `.rk` variable, a
    /// synchronisation object read as memory), by its variable.
    Memory(u32),
    /// A synchronisation object (a mutex, a channel, a barrier...), by its
    /// variable, with the threads blocked on it. Steps conflict over an
    /// object's memory and its synchronisation alike ([`Place::conflict`]).
    Object(u32),
    /// Whether a thread finished (its end writes it, `join` reads it),
    /// with the threads joining it.
    End(ThreadId),
    /// A thread's park token.
    Token(ThreadId),
    /// The thread table: a spawn takes the next thread id.
    Threads,
    /// What every atomic shares under weak memory: the SeqCst order (a
    /// SeqCst load reads it; a SeqCst store, read-modify-write or fence
    /// writes it) and the point where the memory model comes into use.
    Atomics,
    /// The spawned threads' panics, in order: the first no `join` took
    /// fails the run.
    Panics,
    /// Anything: what the step touched is not known (rt's async runtime,
    /// a failure).
    Everything,
}

impl Place {
    /// The place as steps conflict over it: an object's memory and its
    /// synchronisation are one (a `Once` found complete is read as
    /// memory and marked complete as an object).
    pub fn conflict(self) -> Place {
        match self {
            Place::Memory(var) => Place::Object(var),
            place => place,
        }
    }

    /// A number for the place, the same for both kinds of one variable
    /// and distinct across places: what a happens-before signature keys
    /// its orders by. A variable keys as its own number and the thread
    /// table as `u64::MAX`, as the VM's signatures always have.
    pub fn key(self) -> u64 {
        const PER_THREAD: u64 = 1 << 41;
        match self {
            Place::Memory(var) | Place::Object(var) => u64::from(var),
            Place::End(thread) => PER_THREAD + u64::from(thread.0),
            Place::Token(thread) => 2 * PER_THREAD + u64::from(thread.0),
            Place::Threads => u64::MAX,
            Place::Atomics => u64::MAX - 1,
            Place::Panics => u64::MAX - 2,
            Place::Everything => u64::MAX - 3,
        }
    }
}

/// One access of a step to a place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Touch {
    /// The place.
    pub place: Place,
    /// Whether it may change what others see of it.
    pub write: bool,
}

impl From<&Access> for Touch {
    /// The VM's access: a variable's memory (its mutexes and condition
    /// variables are variables too), or the thread table.
    fn from(access: &Access) -> Touch {
        Touch {
            place: access
                .var
                .map_or(Place::Threads, |var| Place::Memory(var.0)),
            write: access.write,
        }
    }
}

/// What a step touched, as the search compares steps: the places of its
/// touches ([`Place::conflict`]), each once, written if any touch wrote
/// it; or everything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Footprint {
    /// The step may have touched anything, or was not told.
    Everything,
    /// The places, sorted.
    Places(Vec<(Place, bool)>),
}

impl Footprint {
    /// The footprint of a step that made `touches`.
    pub fn of(touches: impl IntoIterator<Item = Touch>) -> Footprint {
        let touches = touches.into_iter();
        let places = Vec::with_capacity(touches.size_hint().0);
        Footprint::of_into(places, touches)
    }

    /// Becomes the footprint of a step that made `touches`, in the room
    /// this one had: a search replaying a path tells each step again.
    pub fn assign(&mut self, touches: impl IntoIterator<Item = Touch>) {
        let places = match std::mem::replace(self, Footprint::Everything) {
            Footprint::Places(mut places) => {
                places.clear();
                places
            }
            Footprint::Everything => Vec::new(),
        };
        *self = Footprint::of_into(places, touches);
    }

    /// The footprint of `touches`, its places in `places` (empty).
    fn of_into(
        mut places: Vec<(Place, bool)>,
        touches: impl IntoIterator<Item = Touch>,
    ) -> Footprint {
        for touch in touches {
            if touch.place == Place::Everything {
                return Footprint::Everything;
            }
            places.push((touch.place.conflict(), touch.write));
        }
        // Sorted by place, writes first: the first of each place says
        // whether any touch wrote it.
        places.sort_unstable_by_key(|&(place, write)| (place, !write));
        places.dedup_by_key(|(place, _)| *place);
        Footprint::Places(places)
    }

    /// Whether the step touched nothing shared.
    pub fn is_empty(&self) -> bool {
        matches!(self, Footprint::Places(places) if places.is_empty())
    }

    /// Whether two threads' steps touching `self` and `other` commute
    /// (and neither enables or disables the other): no place both touch
    /// and one writes.
    pub fn commutes_with(&self, other: &Footprint) -> bool {
        let (Footprint::Places(mine), Footprint::Places(theirs)) = (self, other) else {
            return false;
        };
        !mine
            .iter()
            .any(|(place, write)| theirs.iter().any(|(p, w)| p == place && (*write || *w)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(place: Place, write: bool) -> Touch {
        Touch { place, write }
    }

    #[test]
    fn steps_commute_unless_they_share_a_place_one_of_them_writes() {
        let read_a = Footprint::of([touch(Place::Memory(0), false)]);
        let write_a = Footprint::of([touch(Place::Object(0), true)]);
        let write_b = Footprint::of([touch(Place::Memory(1), true)]);
        assert!(read_a.commutes_with(&read_a));
        assert!(!read_a.commutes_with(&write_a), "memory and object are one");
        assert!(write_a.commutes_with(&write_b));
        assert!(!Footprint::Everything.commutes_with(&Footprint::of([])));
    }

    #[test]
    fn a_place_is_written_if_any_touch_wrote_it() {
        let both = Footprint::of([
            touch(Place::Memory(3), false),
            touch(Place::Memory(3), true),
            touch(Place::Threads, false),
        ]);
        assert_eq!(
            both,
            Footprint::Places(vec![(Place::Object(3), true), (Place::Threads, false)])
        );
        assert!(Footprint::of([]).is_empty());
        assert_eq!(
            Footprint::of([touch(Place::Threads, true), touch(Place::Everything, false)]),
            Footprint::Everything
        );
    }

    #[test]
    fn keys_tell_places_apart_and_kinds_of_a_variable_not() {
        let places = [
            Place::Memory(7),
            Place::End(ThreadId(7)),
            Place::Token(ThreadId(7)),
            Place::Threads,
            Place::Atomics,
            Place::Panics,
            Place::Everything,
        ];
        for (i, a) in places.iter().enumerate() {
            for b in &places[i + 1..] {
                assert_ne!(a.key(), b.key(), "{a:?} and {b:?}");
            }
        }
        assert_eq!(Place::Memory(7).key(), Place::Object(7).key());
    }
}
