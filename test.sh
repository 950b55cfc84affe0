#!/usr/bin/env bash
# The whole test suite: format, lints, docs, then every test of every crate.
# Needs only the Rust toolchain (cargo, rustfmt, clippy); dependencies come
# from crates.io through Cargo.lock.
set -euo pipefail
cd "$(dirname "$0")"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
cargo test --workspace --locked
