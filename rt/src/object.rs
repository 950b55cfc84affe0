//! The objects of one execution: every instance of a replacement type, with
//! the synchronisation state the executor keeps for it (a mutex's owner, a
//! channel's length). The data itself stays in the instance.

use rankcheck_engine::{ThreadId, VarId};

/// What a replacement type's instance is, for its variable's name in
/// reports (`AtomicUsize@12:16`) and for the search's planning, which
/// draws synchronisation objects apart ([`ObjectKind::synchronises`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ObjectKind {
    /// [`AtomicBool`](crate::sync::atomic::AtomicBool).
    AtomicBool,
    /// [`AtomicI8`](crate::sync::atomic::AtomicI8).
    AtomicI8,
    /// [`AtomicI16`](crate::sync::atomic::AtomicI16).
    AtomicI16,
    /// [`AtomicI32`](crate::sync::atomic::AtomicI32).
    AtomicI32,
    /// [`AtomicI64`](crate::sync::atomic::AtomicI64).
    AtomicI64,
    /// [`AtomicIsize`](crate::sync::atomic::AtomicIsize).
    AtomicIsize,
    /// [`AtomicU8`](crate::sync::atomic::AtomicU8).
    AtomicU8,
    /// [`AtomicU16`](crate::sync::atomic::AtomicU16).
    AtomicU16,
    /// [`AtomicU32`](crate::sync::atomic::AtomicU32).
    AtomicU32,
    /// [`AtomicU64`](crate::sync::atomic::AtomicU64).
    AtomicU64,
    /// [`AtomicUsize`](crate::sync::atomic::AtomicUsize).
    AtomicUsize,
    /// [`AtomicPtr`](crate::sync::atomic::AtomicPtr).
    AtomicPtr,
    /// [`UnsafeCell`](crate::cell::UnsafeCell).
    UnsafeCell,
    /// [`Mutex`](crate::sync::Mutex).
    Mutex,
    /// [`RwLock`](crate::sync::RwLock).
    RwLock,
    /// [`Condvar`](crate::sync::Condvar).
    Condvar,
    /// [`Barrier`](crate::sync::Barrier).
    Barrier,
    /// [`Once`](crate::sync::Once).
    Once,
    /// A [`std::sync::mpsc`](crate::sync::mpsc) channel.
    Channel,
    /// The async runtime's [`Mutex`](crate::future::sync::Mutex).
    AsyncMutex,
    /// The async runtime's [`RwLock`](crate::future::sync::RwLock).
    AsyncRwLock,
    /// The async runtime's [`Semaphore`](crate::future::sync::Semaphore).
    Semaphore,
    /// The async runtime's [`Notify`](crate::future::sync::Notify).
    Notify,
    /// The async runtime's [`mpsc`](crate::future::sync::mpsc) channel.
    AsyncChannel,
    /// The async runtime's [`oneshot`](crate::future::sync::oneshot) channel.
    Oneshot,
    /// The async runtime's [`watch`](crate::future::sync::watch) channel.
    Watch,
}

impl ObjectKind {
    /// The name reports give it: the type's, as the user wrote it.
    pub fn name(self) -> &'static str {
        match self {
            ObjectKind::AtomicBool => "AtomicBool",
            ObjectKind::AtomicI8 => "AtomicI8",
            ObjectKind::AtomicI16 => "AtomicI16",
            ObjectKind::AtomicI32 => "AtomicI32",
            ObjectKind::AtomicI64 => "AtomicI64",
            ObjectKind::AtomicIsize => "AtomicIsize",
            ObjectKind::AtomicU8 => "AtomicU8",
            ObjectKind::AtomicU16 => "AtomicU16",
            ObjectKind::AtomicU32 => "AtomicU32",
            ObjectKind::AtomicU64 => "AtomicU64",
            ObjectKind::AtomicUsize => "AtomicUsize",
            ObjectKind::AtomicPtr => "AtomicPtr",
            ObjectKind::UnsafeCell => "UnsafeCell",
            ObjectKind::Mutex | ObjectKind::AsyncMutex => "Mutex",
            ObjectKind::RwLock | ObjectKind::AsyncRwLock => "RwLock",
            ObjectKind::Condvar => "Condvar",
            ObjectKind::Barrier => "Barrier",
            ObjectKind::Once => "Once",
            ObjectKind::Channel => "channel",
            ObjectKind::Semaphore => "Semaphore",
            ObjectKind::Notify => "Notify",
            ObjectKind::AsyncChannel => "mpsc",
            ObjectKind::Oneshot => "oneshot",
            ObjectKind::Watch => "watch",
        }
    }

    /// Whether it is a synchronisation object whose operations block, which
    /// the search's variable draw takes as a class of its own
    /// (crate::plan): std's locks, condition variables, barriers and
    /// channel, and the async runtime's locks; not its channels, `Notify`
    /// or semaphore.
    pub fn synchronises(self) -> bool {
        matches!(
            self,
            ObjectKind::Mutex
                | ObjectKind::RwLock
                | ObjectKind::Condvar
                | ObjectKind::Barrier
                | ObjectKind::Channel
                | ObjectKind::AsyncMutex
                | ObjectKind::AsyncRwLock
        )
    }
}

impl std::fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An object of one execution: its place in creation order. Under the same
/// schedule the same object gets the same id, which is what lets a replay
/// string name tracked variables by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectId(pub u32);

impl ObjectId {
    /// The id as an index into the execution's object table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What an instance of a replacement type holds to reach its state: the
/// execution it belongs to, its object id and its variable.
#[derive(Clone, Copy, Debug)]
pub struct Handle {
    /// The execution that created it (a number unique in the process).
    pub execution: u64,
    /// Its id in that execution.
    pub object: ObjectId,
    /// Its variable.
    pub var: VarId,
}

impl Handle {
    /// The execution of a detached object: none (executions count from 1).
    const DETACHED: u64 = 0;

    /// The handle of an async object made outside any run (as tokio's
    /// sync types work outside a runtime): its operations are only their
    /// own effect, with no scheduling point; used in a run, it fails it.
    pub fn detached() -> Handle {
        Handle {
            execution: Handle::DETACHED,
            object: ObjectId(u32::MAX),
            var: VarId(u32::MAX),
        }
    }

    /// Whether the object was made outside any run.
    pub fn is_detached(&self) -> bool {
        self.execution == Handle::DETACHED
    }
}

/// The synchronisation state of one object.
#[derive(Clone, Debug)]
pub enum SyncState {
    /// Plain memory (atomics, cells): no state beyond the value.
    Memory,
    /// A mutex.
    Mutex {
        /// The thread that holds it.
        owner: Option<ThreadId>,
    },
    /// A readers-writer lock.
    RwLock {
        /// The thread that holds the write lock.
        writer: Option<ThreadId>,
        /// How many read locks are held.
        readers: u32,
    },
    /// A condition variable: its waiters, and the `notify_one`s no waiter
    /// took yet. Every notification starts a generation; a waiter may take
    /// a `notify_one` of a generation after the one it began waiting in,
    /// and which eligible waiter takes it is the scheduler's choice (the
    /// one it runs first).
    Condvar {
        /// Threads waiting to be notified, in the order they began.
        waiters: Vec<ThreadId>,
        /// The current generation: notifications so far.
        generation: u64,
        /// The generations of the `notify_one`s not taken yet, ascending.
        pending: Vec<u64>,
    },
    /// A barrier.
    Barrier {
        /// Threads it waits for.
        parties: usize,
        /// Threads waiting now.
        arrived: Vec<ThreadId>,
    },
    /// A channel.
    Channel {
        /// Messages queued.
        queued: usize,
        /// Room for at most this many (`None`: unbounded).
        capacity: Option<usize>,
        /// Live senders.
        senders: usize,
        /// Whether the receiver is alive.
        receiver: bool,
        /// Messages sent, ever.
        sent: u64,
        /// Messages received, ever.
        taken: u64,
    },
}

impl SyncState {
    /// For a condition variable: whether a waiter that began in generation
    /// `since` may take a `notify_one` not taken yet.
    pub fn notified_since(&self, since: u64) -> bool {
        matches!(self, SyncState::Condvar { pending, .. } if pending.last().is_some_and(|&g| g > since))
    }

    /// For a mutex: whether it is free.
    pub fn mutex_free(&self) -> bool {
        matches!(self, SyncState::Mutex { owner: None })
    }
}

/// One object of the execution.
#[derive(Clone, Debug)]
pub struct Object {
    /// Its variable.
    pub var: VarId,
    /// Its state.
    pub sync: SyncState,
}

#[cfg(test)]
mod tests {
    use super::ObjectKind;

    /// Reports name a kind as the user's type, the async runtime's locks
    /// as std's; the blocking objects are the search's synchronisation
    /// class, the async runtime's channels and memory-like objects are not.
    #[test]
    fn a_kind_has_its_types_name_and_says_whether_it_synchronises() {
        assert_eq!(ObjectKind::AtomicUsize.to_string(), "AtomicUsize");
        assert_eq!(ObjectKind::AsyncMutex.name(), "Mutex");
        assert_eq!(ObjectKind::Channel.name(), "channel");
        let synchronising = [
            ObjectKind::Mutex,
            ObjectKind::Channel,
            ObjectKind::AsyncRwLock,
        ];
        assert!(synchronising.iter().all(|k| k.synchronises()));
        let memory = [
            ObjectKind::AtomicBool,
            ObjectKind::UnsafeCell,
            ObjectKind::AsyncChannel,
        ];
        assert!(!memory.iter().any(|k| k.synchronises()));
    }
}
