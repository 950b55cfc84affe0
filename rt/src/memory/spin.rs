//! A thread that spins without yielding gives way. saa 5.6's wait queue,
//! under loom, polls an atomic in a loop with no yield (its spin time is
//! zero there): a schedule that stops the writer it waits for between two
//! of its stores keeps the spinner re-reading one value until the step
//! limit, a non-termination no fair scheduler would produce. So a thread
//! whose loads, [`SPIN_REREADS`] times in a row, are of one atomic, read
//! one value and come from a place in the code that already loaded it in
//! this row (a loop going round; no load of another atomic and no store
//! of its own between them) gives way, as `thread::give_way` does
//! (crate::executor::give_way), under either memory model (under
//! sequential consistency a loop on `std::hint::spin_loop` starves the
//! writer the same way, and a run that does not track the atomic has no
//! other scheduling point in the loop): every other thread that can run
//! takes a step before it goes on. Its loads then read newer stores too
//! (crate::memory::model). The cost is
//! the schedules where such a loop runs on longer before the others move:
//! they repeat one state, unless the loop counts its turns (a bounded
//! retry), whose exhaustion is then reached only where the others' next
//! steps leave the value alone.

/// The loads of one value an atomic in a row, by one thread with no
/// store between them, after which it gives way.
pub const SPIN_REREADS: u32 = 3;

/// One thread's row of loads of one value of one atomic; none while
/// `sites` is empty.
#[derive(Clone, Debug, Default)]
struct Row {
    object: usize,
    value: u64,
    /// The places in the code the row's loads came from.
    sites: Vec<Site>,
    /// The loads of the row from a place already in `sites`.
    repeats: u32,
}

impl Row {
    /// A row starts with a load of `value` from `object` at `site` (the
    /// sites' room kept: a thread starts rows at most of its loads).
    fn start(&mut self, object: usize, value: u64, site: Site) {
        self.object = object;
        self.value = value;
        self.sites.clear();
        self.sites.push(site);
        self.repeats = 0;
    }
}

/// Per thread, its row of loads since its last store.
#[derive(Debug, Default)]
pub struct Spins(Vec<Row>);

impl Spins {
    /// Forget every row, keeping their room for the next run.
    pub fn clear(&mut self) {
        for row in &mut self.0 {
            row.sites.clear();
        }
    }

    /// `thread` loaded `value` from `object` at `site`: whether it spins,
    /// and so gives way (the count starts again).
    pub fn loaded(&mut self, thread: usize, object: usize, value: u64, site: Site) -> bool {
        if self.0.len() <= thread {
            self.0.resize_with(thread + 1, Row::default);
        }
        let row = &mut self.0[thread];
        if row.sites.is_empty() || (row.object, row.value) != (object, value) {
            row.start(object, value, site);
            return false;
        }
        if !row.sites.contains(&site) {
            row.sites.push(site);
            return false;
        }
        row.repeats += 1;
        let spins = row.repeats >= SPIN_REREADS;
        if spins {
            row.repeats = 0;
        }
        spins
    }

    /// `thread` stored (or did a read-modify-write): it is not spinning.
    pub fn stored(&mut self, thread: usize) {
        if let Some(row) = self.0.get_mut(thread) {
            row.sites.clear();
        }
    }
}

use super::model::Site;

#[cfg(test)]
mod tests {
    use super::*;

    /// Two places in the code.
    fn sites() -> [Site; 2] {
        [
            std::panic::Location::caller(),
            std::panic::Location::caller(),
        ]
    }

    #[test]
    fn a_loop_reading_one_value_again_so_many_times_spins() {
        let [a, b] = sites();
        let mut spins = Spins::default();
        // A loop of two loads: the first turn is no repeat.
        assert!(!spins.loaded(0, 7, 1, a));
        assert!(!spins.loaded(0, 7, 1, b));
        for _ in 1..SPIN_REREADS {
            assert!(!spins.loaded(0, 7, 1, a));
        }
        assert!(spins.loaded(0, 7, 1, b), "the third repeat gives way");
        assert!(!spins.loaded(0, 7, 1, a), "and the count starts again");
    }

    #[test]
    fn straight_line_loads_from_new_places_are_no_spin() {
        let [a, b] = sites();
        let mut spins = Spins::default();
        assert!(!spins.loaded(0, 7, 1, a));
        assert!(!spins.loaded(0, 7, 1, b));
    }

    #[test]
    fn a_new_value_another_atomic_or_a_store_ends_the_row() {
        let [a, _] = sites();
        let mut spins = Spins::default();
        for _ in 0..2 * SPIN_REREADS {
            assert!(!spins.loaded(0, 7, 1, a));
            assert!(!spins.loaded(0, 8, 1, a));
        }
        for value in 0..2 * u64::from(SPIN_REREADS) {
            assert!(!spins.loaded(0, 7, value, a));
        }
        for _ in 0..2 * SPIN_REREADS {
            assert!(!spins.loaded(0, 7, 1, a));
            spins.stored(0);
        }
        spins.loaded(0, 7, 1, a);
        assert!(!spins.loaded(1, 7, 1, a), "another thread counts apart");
    }
}
