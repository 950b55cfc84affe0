//! The Slurm job file exercised for real: `deploy/slurm/test-local-cluster.sh`
//! starts a single-node cluster (munged, slurmctld, slurmd), submits
//! `deploy/slurm/nightly.sbatch` as an array of 4 shards, merges, and checks
//! the result against the unsharded night.

use std::process::Command;

use crate::support::root;

/// Whether this process runs as root (read off `/proc/self/status`).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// Ignored by a plain `cargo test`, since it installs packages and starts
/// daemons: `./test.sh` runs it as root with `sbatch` on the PATH, or when
/// `RANKCHECK_SLURM_TEST=1` (CI sets it); then not being root fails it.
/// By hand: `sudo cargo test --test cli slurm -- --ignored`.
#[test]
#[ignore = "needs root and Slurm: ./test.sh runs it as root with sbatch on the PATH or RANKCHECK_SLURM_TEST=1"]
fn the_slurm_array_job_merges_into_the_unsharded_night() {
    assert!(
        is_root(),
        "the Slurm test needs root: it installs slurm-wlm and munge and starts daemons"
    );
    let out = Command::new(root().join("deploy/slurm/test-local-cluster.sh"))
        .env("RANKCHECK", env!("CARGO_BIN_EXE_rankcheck"))
        .output()
        .expect("the script runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        stdout.contains("4 array tasks merged equal the unsharded night"),
        "{stdout}"
    );
}
