//! `./test.sh`'s closing lines (`.ci/test-summary.awk`): a test that did not
//! run shows as such, with its reason, and is never counted as passed.

use std::process::Command;

use crate::support::root;

/// Output of two passes of `cargo test`, as `./test.sh` logs them: the
/// workspace pass ignores the browser and Slurm tests; the browser test
/// then runs in a pass of its own, the Slurm test does not.
const LOG: &str = "\
running 3 tests
test figures_render_in_a_browser ... ignored, needs Chromium: ./test.sh runs it
test bound_figure_parses ... ok
test hits_figure_parses ... ok
test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.05s

running 2 tests
test slurm::the_slurm_array_job_merges ... ignored, needs root and Slurm
test reports::csv_header ... ok
test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.10s

running 1 test
test src/lib.rs - check (line 5) ... ok
test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s

running 1 test
test figures_render_in_a_browser ... ok
test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 2 filtered out; finished in 3.10s
";

fn summary(name: &str, log: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("rankcheck-suite-log-{name}-{}", std::process::id()));
    std::fs::write(&path, log).unwrap();
    let out = Command::new("awk")
        .arg("-f")
        .arg(root().join(".ci/test-summary.awk"))
        .arg(&path)
        .output()
        .expect("awk runs");
    std::fs::remove_file(&path).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_test_that_did_not_run_is_listed_with_its_reason_and_not_counted_as_passed() {
    assert_eq!(
        summary("two-passes", LOG),
        "did not run: slurm::the_slurm_array_job_merges (needs root and Slurm)\n\
         tests: 5 passed, 0 failed, 1 skipped\n"
    );
}

#[test]
fn a_failed_test_is_counted() {
    let log = "test a ... FAILED\ntest result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n";
    assert_eq!(
        summary("failed", log),
        "tests: 3 passed, 1 failed, 0 skipped\n"
    );
}
