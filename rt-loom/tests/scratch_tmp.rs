#![allow(unsafe_code, clippy::arc_with_non_send_sync)]
use rankcheck_loom as loom;
use loom::cell::UnsafeCell;
use loom::thread;
use loom::sync::Arc;

struct State(UnsafeCell<usize>);
impl Drop for State {
    fn drop(&mut self) {
        self.0.with_mut(|p| unsafe { *p += 1 });
    }
}

#[test]
fn std_arc_drop_race() {
    let mut b = loom::model::Builder::new();
    b.log = true;
    b.check(|| {
        let s = Arc::new(State(UnsafeCell::new(0)));
        let s2 = s.clone();
        let t = thread::spawn(move || {
            s2.0.with_mut(|p| unsafe { *p = 1 });
            drop(s2);
        });
        drop(s);
        t.join().unwrap();
    });
}
