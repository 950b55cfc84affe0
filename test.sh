#!/usr/bin/env bash
# The whole test suite: format, lints, docs, then every test of every crate.
# Needs only the Rust toolchain (cargo, rustfmt, clippy); dependencies come
# from crates.io through Cargo.lock.
#
# Two tests need more than the toolchain and are #[ignore]d by a plain
# `cargo test`: the browser test (Chromium) and the Slurm test (root, Slurm
# and munge). This script runs each where it can run, or where CI requires
# it (RANKCHECK_BROWSER_TEST=1, RANKCHECK_SLURM_TEST=1: then a missing
# component fails the test), and its summary lists every test that did not
# run, with the reason.
set -euo pipefail
cd "$(dirname "$0")"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"
# The tokio example's tests again, under rankcheck's search (the facade in
# tokio's place): its lints too, since the feature changes the code.
cargo clippy --locked -p async-service --all-targets --features rankcheck -- -D warnings
cargo test --locked -p async-service --features rankcheck 2>&1 | tee -a "$log"

is_root() { [ "$(id -u)" = 0 ]; }
on_path() { command -v "$1" >/dev/null; }

# Runs one ignored test (package, test target, test name) in its own pass.
run_ignored() {
    cargo test --locked -p "$1" --test "$2" -- --ignored --exact "$3" 2>&1 | tee -a "$log"
}
if [ "${RANKCHECK_BROWSER_TEST:-}" = 1 ] || on_path chromium; then
    run_ignored rankcheck-plot figures figures_render_in_a_browser
fi
if [ "${RANKCHECK_SLURM_TEST:-}" = 1 ] || { is_root && on_path sbatch; }; then
    run_ignored rankcheck cli slurm::the_slurm_array_job_merges_into_the_unsharded_night
fi

# One closing line for the whole suite, and a line for each test that did
# not run (.ci/test-summary.awk).
awk -f .ci/test-summary.awk "$log"
