//! A dependency that kept the published loom panics in loom's scheduler
//! in every execution (scc 3.8.8's `sdd` and `saa` behind their `loom`
//! feature, `results/crates.md`): the model fails with that setup error
//! and the `[patch.crates-io]` that cures it, not with a bug report.

use crate::loom;

/// The published loom's panic, as its types raise it outside its model.
fn published_loom_panics() {
    panic!(
        "cannot access Loom execution state from outside a Loom model\n   ┌─ \
         /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/loom-0.7.2/src/rt/scheduler.rs:128:13"
    );
}

#[test]
#[should_panic(expected = "the code under test called the published loom crate \
                           (loom-0.7.2/src/rt/scheduler.rs), not rankcheck-loom")]
fn a_dependency_on_the_published_loom_is_a_setup_error() {
    loom::model(published_loom_panics);
}

#[test]
#[should_panic(expected = "[patch.crates-io]\nloom = { path = ")]
fn the_setup_error_gives_the_patch() {
    loom::model(published_loom_panics);
}

#[test]
#[should_panic(expected = "a real bug")]
fn a_panic_of_the_crates_own_code_stays_a_failure() {
    loom::model(|| panic!("a real bug at src/tests/models.rs:38:5"));
}
