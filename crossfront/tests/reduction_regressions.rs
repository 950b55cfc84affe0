//! Programs whose failure the partial-order reduction once missed, kept
//! as regression tests (results/explore_rt.md).
//!
//! Program 9943 of `CROSSFRONT_SEED=1 CROSSFRONT_PROGRAMS=10000`: `t2`
//! fails when it runs before `t0` writes `g0`. The run that ran `t2`'s
//! `m0` first had `t1` try `m0` and wait, a step that touches nothing;
//! that attempt made `t1` look like a thread that could start the other
//! order of `t0`'s and `t2`'s accesses to the globals, and `t1` was
//! explored there already, so `t2` was never asked for. Taken earlier,
//! `t1`'s lock of `m0` succeeds and conflicts with `t2`'s.

use rankcheck_crossfront::world::{spawn, World, W};

fn t0(cx: &W) {
    let m1 = cx.m[1].lock().unwrap();
    cx.set(1, cx.g(1) + 1);
    {
        let mut st = cx.state();
        st.g[0] = st.g[1];
        drop(m1);
        cx.changed();
    }
}
fn t1(cx: &W) {
    let _m0 = cx.m[0].lock().unwrap();
    let x1 = cx.g(0);
    cx.set(0, x1 + 1);
}
fn t2(cx: &W) {
    let m0 = cx.m[0].lock().unwrap();
    cx.set(2, cx.g(2) + 1);
    {
        let mut st = cx.state();
        st.g[1] = st.g[2];
        drop(m0);
        cx.changed();
    }
    assert!(cx.g(0) != 0, "g0 ends at 0");
}
fn program_9943() {
    let cx = World::new(&[0, 0, 0], &[true, true, true], false);
    spawn(&cx, t0);
    spawn(&cx, t1);
    spawn(&cx, t2);
}

#[test]
fn a_wait_that_changed_nothing_starts_no_reversal() {
    // Every schedule has 1,000,000 and more unreduced.
    let reduced = rankcheck_rt::explore(program_9943, 100_000, 1_000);
    assert!(reduced.complete);
    let messages: Vec<&str> = reduced
        .failures
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(messages, ["g0 ends at 0"], "{reduced:?}");
}
