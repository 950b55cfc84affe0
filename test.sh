#!/usr/bin/env bash
# The whole test suite: format, lints, docs, then every test of every crate.
# Needs only the Rust toolchain (cargo, rustfmt, clippy); dependencies come
# from crates.io through Cargo.lock.
set -euo pipefail
cd "$(dirname "$0")"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"
# One closing line for the whole suite: cargo prints one per test binary,
# the last of which (a doc-test run) counts no test.
awk '/^test result:/ { passed += $4; failed += $6 } END { printf "tests: %d passed, %d failed\n", passed, failed }' "$log"
