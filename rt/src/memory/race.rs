//! Data races on `UnsafeCell`s under weak memory, as loom finds them: an
//! access to a cell's data (a read through `with` or a `ConstPtr`, a write
//! through `with_mut` or a `MutPtr`) races with an earlier access of
//! another thread when neither happens before the other and one of them
//! writes. Happens-before is the model's vector clocks ([`super::model`]),
//! so only under [`MemoryModel::Weak`](super::MemoryModel::Weak); the
//! first cell access puts the model in use (every hb path from an access
//! to a later one runs through events after it, so the clocks miss none).
//!
//! An access is a span (a guard may be held across scheduling points): it
//! is checked as it begins and again as it ends, and another access that
//! begins while a write is open, or a write that begins while a read is
//! open, is refused as overlapping.

use rankcheck_engine::ThreadId;

use super::clock::VectorClock;
use super::model::Site;

/// Which way a cell is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Through a const pointer.
    Read,
    /// Through a mutable pointer.
    Write,
}

/// One cell's accesses so far.
#[derive(Debug, Default)]
struct CellState {
    /// Open read spans.
    reading: usize,
    /// Whether a write span is open.
    writing: bool,
    /// Every read's clock, joined.
    reads: VectorClock,
    /// Every write's clock, joined.
    writes: VectorClock,
    /// Each thread's last read and last write site, for the message.
    sites: Vec<(ThreadId, Access, Site)>,
}

impl CellState {
    /// No access, as at the cell's creation.
    fn clear(&mut self) {
        self.reading = 0;
        self.writing = false;
        self.reads.clear();
        self.writes.clear();
        self.sites.clear();
    }

    fn remember(&mut self, thread: ThreadId, access: Access, site: Site) {
        match self
            .sites
            .iter_mut()
            .find(|(t, a, _)| *t == thread && *a == access)
        {
            Some(entry) => entry.2 = site,
            None => self.sites.push((thread, access, site)),
        }
    }

    /// A thread whose last access of kind `access` an access with clock
    /// `now` has not seen, and where that access was: the other side of a
    /// race. (The joined clocks say that there is a race; a thread they
    /// name may be one whose events only the racing access had seen.)
    fn unseen(&self, access: Access, now: &VectorClock) -> Option<(ThreadId, Site)> {
        let clocks = match access {
            Access::Read => &self.reads,
            Access::Write => &self.writes,
        };
        self.sites
            .iter()
            .find(|(t, a, _)| *a == access && clocks.get(t.index()) > now.get(t.index()))
            .map(|(t, _, s)| (*t, *s))
    }
}

/// A race found: what the report says.
#[derive(Clone, Debug)]
pub struct Race {
    /// The earlier access's kind, thread and site (`None` when the
    /// accesses overlap rather than race: the open span's thread unknown).
    pub earlier: Option<(Access, ThreadId, Site)>,
    /// The access that found it.
    pub access: Access,
    /// Whether the accesses overlap in time (a span still open).
    pub overlapping: bool,
}

/// The cells' accesses of one execution, by object index.
#[derive(Debug, Default)]
pub struct Races {
    cells: Vec<Option<CellState>>,
}

impl Races {
    /// Forget every cell's accesses, keeping the room for the next run
    /// (a cell's state emptied is a new cell's).
    pub fn clear(&mut self) {
        for cell in self.cells.iter_mut().flatten() {
            cell.clear();
        }
    }

    fn cell(&mut self, object: usize) -> &mut CellState {
        if self.cells.len() <= object {
            self.cells.resize_with(object + 1, || None);
        }
        self.cells[object].get_or_insert_with(CellState::default)
    }

    /// `thread`, whose clock at this access is `clock`, begins an access of
    /// `object` at `site`: the race it makes, if any.
    pub fn begin(
        &mut self,
        object: usize,
        access: Access,
        (thread, clock): (ThreadId, &VectorClock),
        site: Site,
    ) -> Option<Race> {
        let cell = self.cell(object);
        let overlaps = cell.writing || (access == Access::Write && cell.reading > 0);
        if overlaps {
            return Some(Race {
                earlier: None,
                access,
                overlapping: true,
            });
        }
        match access {
            Access::Read => cell.reading += 1,
            Access::Write => cell.writing = true,
        }
        cell.remember(thread, access, site);
        Self::check(cell, access, clock)
    }

    /// The access begun with [`Races::begin`] ends; `clock` is the
    /// thread's clock now.
    pub fn end(&mut self, object: usize, access: Access, clock: &VectorClock) -> Option<Race> {
        let cell = self.cell(object);
        match access {
            Access::Read => cell.reading = cell.reading.saturating_sub(1),
            Access::Write => cell.writing = false,
        }
        Self::check(cell, access, clock)
    }

    /// Check an access with clock `clock` against every earlier one it
    /// conflicts with, then record it.
    fn check(cell: &mut CellState, access: Access, clock: &VectorClock) -> Option<Race> {
        let conflicting: &[(Access, &VectorClock)] = match access {
            Access::Read => &[(Access::Write, &cell.writes)],
            Access::Write => &[(Access::Write, &cell.writes), (Access::Read, &cell.reads)],
        };
        let race = conflicting.iter().find_map(|(earlier, clocks)| {
            ahead(clocks, clock)?;
            Some(Race {
                earlier: cell.unseen(*earlier, clock).map(|(t, s)| (*earlier, t, s)),
                access,
                overlapping: false,
            })
        });
        match access {
            Access::Read => cell.reads.join(clock),
            Access::Write => cell.writes.join(clock),
        }
        race
    }
}

/// A thread of which `earlier` saw more than `now` did: an access of it
/// that does not happen before `now`'s.
fn ahead(earlier: &VectorClock, now: &VectorClock) -> Option<usize> {
    earlier.first_ahead_of(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::Location;

    fn clock(entries: &[(usize, u32)]) -> VectorClock {
        let mut c = VectorClock::default();
        for (t, s) in entries {
            c.set(*t, *s);
        }
        c
    }

    #[test]
    fn ordered_accesses_pass_and_unordered_ones_race() {
        let site = Location::caller();
        let mut races = Races::default();
        let (a, b) = (ThreadId(0), ThreadId(1));
        let write = clock(&[(0, 1)]);
        assert!(races.begin(0, Access::Write, (a, &write), site).is_none());
        assert!(races.end(0, Access::Write, &write).is_none());
        // b saw a's write: ordered.
        let seen = clock(&[(0, 1), (1, 1)]);
        assert!(races.begin(0, Access::Read, (b, &seen), site).is_none());
        assert!(races.end(0, Access::Read, &seen).is_none());
        // a writes again without having seen b's read: a race, naming b.
        let unseen = clock(&[(0, 2)]);
        let race = races.begin(0, Access::Write, (a, &unseen), site);
        let earlier = race.and_then(|r| r.earlier).map(|(k, t, _)| (k, t));
        assert_eq!(earlier, Some((Access::Read, b)));
    }

    #[test]
    fn a_write_while_a_read_is_open_overlaps() {
        let site = Location::caller();
        let mut races = Races::default();
        let c = clock(&[(0, 1)]);
        assert!(races
            .begin(3, Access::Read, (ThreadId(0), &c), site)
            .is_none());
        let race = races.begin(3, Access::Write, (ThreadId(0), &c), site);
        assert!(race.is_some_and(|r| r.overlapping));
    }
}
