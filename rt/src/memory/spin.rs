//! A thread that spins without yielding gives way. saa 5.6's wait queue,
//! under loom, polls an atomic in a loop with no yield (its spin time is
//! zero there): a schedule that stops the writer it waits for between two
//! of its stores keeps the spinner re-reading one value until the step
//! limit, a non-termination no fair scheduler would produce. So a thread
//! whose loads, [`SPIN_REREADS`] times in a row after a first, are of one
//! atomic and read one value (no load of another atomic and no store of
//! its own between them) gives way, as `thread::give_way` does
//! (crate::executor::give_way):
//! every other thread that can run takes a step before it goes on. Its
//! loads then read newer stores too (crate::memory::model). The cost is
//! the schedules where such a loop runs on longer before the others move:
//! they repeat one state, unless the loop counts its turns (a bounded
//! retry), whose exhaustion is then reached only where the others' next
//! steps leave the value alone.

/// The loads of one value an atomic in a row, by one thread with no
/// store between them, after which it gives way.
pub const SPIN_REREADS: u32 = 3;

/// Per thread, its last load since its last store (the atomic and the
/// value read) and how many loads right after it read the same again.
#[derive(Debug, Default)]
pub struct Spins(Vec<Option<(usize, u64, u32)>>);

impl Spins {
    /// `thread` loaded `value` from `object`: whether it spins, and so
    /// gives way (the count starts again).
    pub fn loaded(&mut self, thread: usize, object: usize, value: u64) -> bool {
        if self.0.len() <= thread {
            self.0.resize(thread + 1, None);
        }
        let last = &mut self.0[thread];
        let Some(entry) = last.as_mut().filter(|e| (e.0, e.1) == (object, value)) else {
            *last = Some((object, value, 0));
            return false;
        };
        entry.2 += 1;
        let spins = entry.2 >= SPIN_REREADS;
        if spins {
            entry.2 = 0;
        }
        spins
    }

    /// `thread` stored (or did a read-modify-write): it is not spinning.
    pub fn stored(&mut self, thread: usize) {
        if let Some(last) = self.0.get_mut(thread) {
            *last = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_value_read_again_so_many_times_is_a_spin() {
        let mut spins = Spins::default();
        assert!(!spins.loaded(0, 7, 1));
        for _ in 1..SPIN_REREADS {
            assert!(!spins.loaded(0, 7, 1));
        }
        assert!(spins.loaded(0, 7, 1), "the third re-read gives way");
        assert!(!spins.loaded(0, 7, 1), "and the count starts again");
    }

    #[test]
    fn a_new_value_or_a_store_ends_the_row() {
        let mut spins = Spins::default();
        spins.loaded(0, 7, 1);
        spins.loaded(0, 7, 1);
        assert!(!spins.loaded(0, 7, 2));
        spins.loaded(0, 7, 2);
        spins.stored(0);
        spins.loaded(0, 7, 2);
        spins.loaded(0, 7, 2);
        assert!(!spins.loaded(0, 7, 2));
        assert!(!spins.loaded(1, 7, 2), "another thread counts apart");
    }

    #[test]
    fn a_load_of_another_atomic_between_is_no_spin() {
        let mut spins = Spins::default();
        for _ in 0..2 * SPIN_REREADS {
            assert!(!spins.loaded(0, 7, 1));
            assert!(!spins.loaded(0, 8, 1));
        }
    }
}
