//! The atomics API std has, under the import swap: every width but
//! 128-bit, the closure updates, `AtomicPtr`'s address arithmetic and bit
//! operations, formatting and raw access.

use rankcheck::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16, AtomicU32,
    AtomicU64, AtomicU8, AtomicUsize, Ordering::SeqCst,
};
use rankcheck::sync::Arc;
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

#[test]
fn closure_updates_are_one_atomic_write() {
    // Two threads each flip and count with closure updates: no update is
    // lost in any interleaving.
    rankcheck::Builder::new().runs(300).seed(4).check(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let count = Arc::new(AtomicU32::new(0));
        let other = {
            let (flag, count) = (flag.clone(), count.clone());
            thread::spawn(move || {
                flag.fetch_update(SeqCst, SeqCst, |f| Some(!f)).unwrap();
                count.update(SeqCst, SeqCst, |c| c + 1);
            })
        };
        flag.fetch_not(SeqCst);
        assert!(count
            .try_update(SeqCst, SeqCst, |c| c.checked_add(1))
            .is_ok());
        other.join().unwrap();
        assert!(!flag.load(SeqCst));
        assert_eq!(count.load(SeqCst), 2);
    });
}

#[test]
fn a_check_then_act_on_an_atomic_pointer_is_found() {
    // Both threads see the slot empty and both install: one box leaks, and
    // the assertion names the race.
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(500).seed(7).check(|| {
            let slot = Arc::new(AtomicPtr::<u32>::new(std::ptr::null_mut()));
            let installs = Arc::new(AtomicUsize::new(0));
            let install = {
                let (slot, installs) = (slot.clone(), installs.clone());
                move || {
                    if slot.load(SeqCst).is_null() {
                        slot.store(Box::into_raw(Box::new(1)), SeqCst);
                        installs.fetch_add(1, SeqCst);
                    }
                }
            };
            let other = thread::spawn(install.clone());
            install();
            other.join().unwrap();
            assert_eq!(installs.load(SeqCst), 1, "installed twice");
        });
    })
    .expect("found");
    assert!(message.contains("installed twice"), "{message}");
}

#[test]
fn pointer_arithmetic_and_bits_act_on_the_address() {
    rankcheck::Builder::new().runs(5).seed(1).check(|| {
        let mut cells = [0u32; 4];
        let base = cells.as_mut_ptr();
        let ptr = AtomicPtr::new(base);
        assert_eq!(ptr.fetch_ptr_add(2, SeqCst), base);
        assert_eq!(ptr.fetch_ptr_sub(1, SeqCst), base.wrapping_add(2));
        assert_eq!(ptr.fetch_byte_add(4, SeqCst), base.wrapping_add(1));
        assert_eq!(ptr.fetch_byte_sub(8, SeqCst), base.wrapping_add(2));
        assert_eq!(ptr.load(SeqCst), base);
        // Tag the low bit, read it, clear it.
        ptr.fetch_or(1, SeqCst);
        assert_eq!(ptr.fetch_xor(1, SeqCst) as usize & 1, 1);
        assert_eq!(ptr.fetch_and(!1, SeqCst), base);
        let same = ptr.fetch_update(SeqCst, SeqCst, Some).unwrap();
        assert_eq!(same, base);
        assert_eq!(format!("{ptr:p}"), format!("{base:p}"));
        assert_eq!(format!("{ptr:?}"), format!("{base:?}"));
        assert_eq!(ptr.into_inner(), base);
    });
}

#[test]
fn every_width_has_the_integer_api() {
    rankcheck::Builder::new().runs(5).seed(1).check(|| {
        let a = AtomicI8::new(-1);
        assert_eq!(a.fetch_max(3, SeqCst), -1);
        let b = AtomicU8::from(7);
        assert_eq!(b.fetch_nand(1, SeqCst), 7);
        let c = AtomicI16::default();
        assert_eq!(c.fetch_sub(1, SeqCst), 0);
        let d = AtomicU16::new(1);
        assert_eq!(d.fetch_xor(3, SeqCst), 1);
        let mut e = AtomicI64::new(5);
        *e.get_mut() += 1;
        assert_eq!(e.fetch_min(2, SeqCst), 6);
        let f = AtomicU64::new(9);
        assert_eq!(f.swap(1, SeqCst), 9);
        let g = AtomicIsize::new(4);
        assert_eq!(g.compare_exchange_weak(4, 5, SeqCst, SeqCst), Ok(4));
        #[allow(deprecated)]
        let previous = g.compare_and_swap(5, 6, SeqCst);
        assert_eq!((previous, g.load(SeqCst)), (5, 6));
        let h = AtomicUsize::new(2);
        assert!(!h.as_ptr().is_null());
        assert_eq!(format!("{h:?}"), "2");
        assert_eq!(h.into_inner(), 2);
    });
}
