//! What a rankcheck failure's output says about replaying it: its replay
//! string (`replay: rankcheck::replay(test, "rc...")`), the failure's
//! head line (`error[panic]: ...`), and whether a replay's output shows
//! the same failure.

/// The marker before a replay string in rankcheck's report.
const REPLAY_CALL: &str = "rankcheck::replay(test, \"";

/// The replay string of the last report in `output`, if any.
pub fn replay_string(output: &str) -> Option<String> {
    let start = output.rfind(REPLAY_CALL)? + REPLAY_CALL.len();
    let length = output[start..].find('"')?;
    let replay = &output[start..start + length];
    (!replay.is_empty()).then(|| replay.to_string())
}

/// The head line of the first rankcheck report in `output`
/// (`error[deadlock]: ...`), trimmed.
pub fn failure_head(output: &str) -> Option<String> {
    output
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("error[") && l.contains("]:"))
        .map(str::to_string)
}

/// Whether a replay reproduced the failure whose head line was
/// `original`: the replay's output reports a failure of the same kind
/// (the word between `error[` and `]`). The message after it may differ
/// only where it holds addresses or counts; the kind may not.
pub fn reproduces(original: Option<&str>, replayed_output: &str) -> bool {
    let kind = |head: &str| head.split(']').next().map(str::to_string);
    match (original, failure_head(replayed_output)) {
        (Some(original), Some(replayed)) => kind(original) == kind(&replayed),
        (None, Some(_)) => true,
        (_, None) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "---- try_recv_close stdout ----\n\
        thread 'try_recv_close' panicked at rt-loom/src/model.rs:301:9:\n\
        error[panic]: Causality violation: Concurrent read and write accesses to `UnsafeCell`\n\
        \n  threads: main, t1\n\
        found in run 3 of 100000 (strategy portfolio, seed 1, 0.01s)\n\
        replay: rankcheck::replay(test, \"rc4.AbC-12_x\")\n";

    #[test]
    fn the_replay_string_and_head_are_read_off_the_report() {
        assert_eq!(replay_string(REPORT).as_deref(), Some("rc4.AbC-12_x"));
        assert_eq!(
            failure_head(REPORT).as_deref(),
            Some(
                "error[panic]: Causality violation: Concurrent read and write accesses to \
                 `UnsafeCell`"
            )
        );
        assert_eq!(replay_string("test result: ok. 1 passed"), None);
        assert_eq!(failure_head("test result: ok. 1 passed"), None);
    }

    #[test]
    fn a_replay_reproduces_a_failure_of_the_same_kind() {
        let head = failure_head(REPORT);
        let replayed =
            "error[panic]: Causality violation: Concurrent read and write accesses\nreplayed\n";
        assert!(reproduces(head.as_deref(), replayed));
        let other = "error[deadlock]: every thread is blocked\nreplayed\n";
        assert!(!reproduces(head.as_deref(), other));
        assert!(!reproduces(head.as_deref(), "test result: ok. 1 passed"));
    }
}
