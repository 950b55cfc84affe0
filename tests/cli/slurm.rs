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

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
}

/// Runs when `RANKCHECK_SLURM_TEST=1` (CI sets it, and then it must run) or
/// as root with `sbatch` installed; elsewhere it says how to run it.
#[test]
fn the_slurm_array_job_merges_into_the_unsharded_night() {
    let required = std::env::var("RANKCHECK_SLURM_TEST").is_ok_and(|v| v == "1");
    let runnable = required || (is_root() && on_path("sbatch"));
    if !runnable {
        eprintln!(
            "the Slurm test did not run: it needs root and Slurm. Run it with \
             `sudo RANKCHECK_SLURM_TEST=1 cargo test --test cli slurm` (it installs \
             slurm-wlm and munge with apt), or `sudo deploy/slurm/test-local-cluster.sh`"
        );
        return;
    }
    assert!(
        is_root(),
        "RANKCHECK_SLURM_TEST=1 but not root: the test installs packages and starts daemons"
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
