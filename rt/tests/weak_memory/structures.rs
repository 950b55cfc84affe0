//! Lock-free structures with a wrong ordering are found under weak
//! memory, the report naming the stale read, and replayed from their
//! replay string; with the orderings right they pass, with a guarantee
//! that says it covers weak memory.

use rankcheck::sync::atomic::Ordering::{self, Acquire, Relaxed, Release, SeqCst};
use rankcheck::{Builder, MemoryModel};
use rankcheck_rt as rankcheck;

use crate::programs::{flag_handoff, spsc_ring};
use crate::support::panic_message;

fn weak() -> Builder {
    Builder::new().memory_model(MemoryModel::Weak).seed(5)
}

/// The report of `program` with `orderings` under weak memory, which must
/// fail.
fn failure(program: fn(Ordering, Ordering), orderings: (Ordering, Ordering)) -> String {
    let (publish, consume) = orderings;
    panic_message(|| {
        weak().runs(5_000).check(move || program(publish, consume));
    })
    .expect("the wrong ordering is found")
}

/// The replay string a report ends with.
pub(crate) fn replay_string(report: &str) -> &str {
    let start = report.find("replay(test, \"").expect("a replay") + "replay(test, \"".len();
    let end = start + report[start..].find('"').expect("its end");
    &report[start..end]
}

#[test]
fn a_relaxed_ring_buffer_index_is_found_with_the_stale_read_named() {
    let report = failure(spsc_ring, (Relaxed, Relaxed));
    assert!(
        report.contains("the consumer read a slot before its item"),
        "{report}"
    );
    // The consumer reads the slot (line 58) stale: an item the producer
    // stored (line 48), or the slot's initial value (line 37).
    let slot_read = report
        .lines()
        .find(|l| l.starts_with("stale read: main at programs.rs:58: read "));
    let slot_read = slot_read.unwrap_or_else(|| panic!("{report}"));
    assert!(
        slot_read.ends_with("was stored at programs.rs:48 (Relaxed)"),
        "{report}"
    );
    let replay = replay_string(&report).to_owned();
    assert!(
        replay.starts_with("rc4:") && replay.contains(":weak:r") && !replay.contains(":r:"),
        "{replay}"
    );
    let replayed = panic_message(|| rankcheck::replay(|| spsc_ring(Relaxed, Relaxed), &replay))
        .expect("the replay fails");
    assert!(
        replayed.contains("stale read: main at programs.rs:58"),
        "{replayed}"
    );
}

#[test]
fn a_relaxed_flag_handoff_is_found_with_the_stale_read_named() {
    let report = failure(flag_handoff, (Relaxed, Relaxed));
    assert!(
        report.contains("stale read: main at programs.rs:80: read 0 from the initial value at programs.rs:70 though 42 was stored at programs.rs:75 (Relaxed)"),
        "{report}"
    );
    assert!(
        report.contains("synchronisation the model does not see"),
        "{report}"
    );
}

#[test]
fn with_release_and_acquire_both_pass_with_a_guarantee_over_weak_memory() {
    for program in [spsc_ring, flag_handoff] {
        let guarantee = weak().runs(2_000).check(move || program(Release, Acquire));
        assert_eq!(guarantee.memory_model, MemoryModel::Weak);
        let text = guarantee.to_string();
        assert!(
            text.contains("memory model covered: C11 weak memory, history bound 4"),
            "{text}"
        );
    }
}

#[test]
fn sequential_consistency_never_reads_stale_so_relaxed_passes_there() {
    let guarantee = Builder::new()
        .seed(5)
        .runs(2_000)
        .check(|| flag_handoff(Relaxed, Relaxed));
    assert_eq!(guarantee.memory_model, MemoryModel::Sc);
    assert!(guarantee
        .to_string()
        .contains("memory model covered: sequentially consistent"));
    // SeqCst code passes under weak memory too.
    weak().runs(2_000).check(|| flag_handoff(SeqCst, SeqCst));
}

#[test]
fn under_pctvb_a_stale_read_takes_a_change_point() {
    // The preparatory runs read only the latest stores: the stale read is
    // the search's, at a change point diverted to it.
    let report = panic_message(|| {
        weak()
            .strategy(rankcheck::Strategy::Pctvb)
            .runs(5_000)
            .check(|| flag_handoff(Relaxed, Relaxed));
    })
    .expect("found under PCTVB");
    assert!(report.contains("strategy pctvb"), "{report}");
    assert!(report.contains("stale read: main"), "{report}");
}

#[test]
fn a_stale_read_counts_toward_the_depth_in_the_per_run_bound() {
    // Depth 3: two change points, each a stale read with chance 1/2 that
    // reads the needed store with chance 1/3 at least: 6^-2 of the bound.
    let search = |model| {
        Builder::new()
            .memory_model(model)
            .seed(5)
            .depth(3)
            .runs(200)
            .check(|| flag_handoff(Release, Acquire))
    };
    let (sc, weak) = (search(MemoryModel::Sc), search(MemoryModel::Weak));
    let bound = |g: &rankcheck::Guarantee| g.settings[0].bound.expect("a bound");
    let ratio = bound(&sc) / bound(&weak);
    assert!((ratio - 36.0).abs() < 1e-6, "{ratio}");
}

/// The attribute's `memory_model` option: the ring with the right
/// orderings passes under weak memory.
#[rankcheck::test(memory_model = "weak", runs = 500, seed = 3)]
fn the_attribute_takes_the_memory_model() {
    spsc_ring(Release, Acquire);
}

#[test]
fn the_guarantee_says_when_the_history_bound_cut_a_choice() {
    // Six stores, then a load that may read any of them: only the last 4
    // are kept.
    let guarantee = weak().runs(300).check(|| {
        let x = rankcheck::sync::Arc::new(rankcheck::sync::atomic::AtomicUsize::new(0));
        let writer = {
            let x = x.clone();
            rankcheck::thread::spawn(move || (1..=6).for_each(|v| x.store(v, Relaxed)))
        };
        x.load(Relaxed);
        writer.join().unwrap();
    });
    let text = guarantee.to_string();
    assert!(
        text.contains("the history bound (4 stores per atomic) cut the choices of"),
        "{text}"
    );
}

/// The JSON summary (`Builder::json`) names the memory model the runs
/// explored, as the guarantee does, and states its bounds weakened as
/// the guarantee's are: a stale read counts toward the depth.
#[test]
fn the_json_summary_names_the_memory_model_and_its_weakened_bounds() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    for (model, name) in [(MemoryModel::Sc, "sc"), (MemoryModel::Weak, "weak")] {
        let path = dir.join(format!("rt-memory-model-{name}.json"));
        let guarantee = Builder::new()
            .seed(5)
            .runs(1_000)
            .memory_model(model)
            .json(&path)
            .check(|| flag_handoff(Release, Acquire));
        let text = std::fs::read_to_string(&path).expect("the JSON was written");
        let json: serde_json::Value = serde_json::from_str(&text).expect("it parses");
        assert_eq!(json["memory_model"], name, "{json}");
        assert_eq!(json["loads_cut"], 0, "{json}");
        for (setting, stated) in json["settings"]
            .as_array()
            .expect("settings")
            .iter()
            .zip(&guarantee.settings)
        {
            assert_eq!(setting["bound"].as_f64(), stated.bound, "{json}");
        }
    }
}
