//! The job files in deploy/ work as copied: each names a suite file that
//! exists, installs or runs rankcheck itself (never the user's crate), and
//! has the structure its job engine needs. The Slurm job also runs for
//! real (slurm.rs); GitHub Actions and Kubernetes cannot run here, so
//! their structure is checked.

use serde_norway::Value;

use crate::support::{rankcheck, root, temp_dir};

fn yaml(path: &str) -> Value {
    let text = std::fs::read_to_string(root().join(path)).expect(path);
    serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).expect(path)
}

/// The suite every job file names by default exists and runs.
#[test]
fn the_default_suite_exists_and_runs() {
    let out = temp_dir("default-suite");
    let result = rankcheck(&[
        "nightly",
        root().join("rankcheck.toml").to_str().unwrap(),
        "--runs",
        "500",
        "--night",
        "n1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    // The examples have bugs: the first night reports them as new (1).
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    let report = String::from_utf8_lossy(&result.stdout);
    assert!(report.contains("examples/locked_counter_ok.rk"), "{report}");
    assert!(report.contains("examples/lost_push.rk"), "{report}");
}

#[test]
fn the_github_workflow_builds_rankcheck_and_runs_the_suite() {
    let workflow = yaml("deploy/github/nightly.yml");
    let suite = workflow["env"]["SUITE"].as_str().expect("env.SUITE");
    assert!(root().join(suite).is_file(), "SUITE {suite} exists");
    let shards = workflow["env"]["SHARDS"].as_u64().expect("env.SHARDS");
    let jobs = workflow["jobs"].as_mapping().expect("jobs");
    let matrix = &workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"];
    let matrix: Vec<u64> = matrix
        .as_sequence()
        .expect("a shard matrix")
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(
        matrix,
        (0..shards).collect::<Vec<_>>(),
        "one matrix entry per shard"
    );
    for (name, job) in jobs {
        let steps = job["steps"].as_sequence();
        let Some(steps) = steps else { continue };
        for step in steps {
            assert!(
                step.get("run").is_some() || step.get("uses").is_some(),
                "{name:?}: a step without run or uses: {step:?}"
            );
        }
        let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
        let calls_rankcheck = runs.iter().any(|r| r.contains("rankcheck "));
        if !calls_rankcheck {
            continue;
        }
        // rankcheck comes from its own checkout, not from the user's crate.
        let checkout = steps
            .iter()
            .find(|s| s["with"]["path"].as_str() == Some(".rankcheck-src"))
            .unwrap_or_else(|| panic!("{name:?} checks out rankcheck"));
        assert_eq!(
            checkout["with"]["repository"].as_str(),
            Some("${{ env.RANKCHECK_REPOSITORY }}")
        );
        assert!(
            runs.contains(&"cargo install --path .rankcheck-src --locked"),
            "{name:?} installs rankcheck: {runs:?}"
        );
        assert!(
            !runs.iter().any(|r| r.contains("cargo install --path . ")),
            "{name:?} installs the user's crate"
        );
    }
    let shard_run = workflow["jobs"]["shard"]["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .find(|r| r.contains("rankcheck nightly"))
        .expect("a shard runs rankcheck nightly");
    assert!(
        shard_run.contains("\"$SUITE\"") && shard_run.contains("/$SHARDS"),
        "{shard_run}"
    );
}

#[test]
fn the_kubernetes_job_runs_the_image_the_dockerfile_builds() {
    let job = yaml("deploy/kubernetes/nightly-job.yaml");
    assert_eq!(job["kind"].as_str(), Some("Job"));
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let pod = &spec["template"]["spec"];
    assert_eq!(
        pod["restartPolicy"].as_str(),
        Some("Never"),
        "backoffLimitPerIndex needs it"
    );
    let container = &pod["containers"][0];
    let command: Vec<&str> = container["command"]
        .as_sequence()
        .expect("a command")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        &command[..3],
        ["rankcheck", "nightly", "/suite/rankcheck.toml"]
    );
    let shards = command[command.iter().position(|&a| a == "--shards").unwrap() + 1];
    let shards: u64 = shards.parse().unwrap();
    assert_eq!(spec["completions"].as_u64(), Some(shards));
    assert_eq!(spec["parallelism"].as_u64(), Some(shards));
    // Every volume a container mounts is declared.
    let volumes: Vec<&str> = pod["volumes"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    for mount in container["volumeMounts"].as_sequence().unwrap() {
        assert!(
            volumes.contains(&mount["name"].as_str().unwrap()),
            "{mount:?}"
        );
    }
    // The image is the one the Dockerfile's documented build tags, and the
    // Dockerfile builds rankcheck from the repository it sits in.
    let image = container["image"].as_str().unwrap();
    let dockerfile = text("deploy/docker/Dockerfile");
    assert!(
        dockerfile.contains(&format!(
            "docker build -t {image} -f deploy/docker/Dockerfile ."
        )),
        "the Dockerfile says how to build {image}"
    );
    assert!(dockerfile.contains("cargo install --path . --locked"));
    assert!(dockerfile
        .contains("COPY --from=build /opt/rankcheck/bin/rankcheck /usr/local/bin/rankcheck"));
    let header = text("deploy/kubernetes/nightly-job.yaml");
    assert!(
        header.contains("deploy/docker/Dockerfile"),
        "the job file says where its image comes from"
    );
}

#[test]
fn the_slurm_job_names_a_suite_that_exists() {
    let sbatch = text("deploy/slurm/nightly.sbatch");
    let suite = sbatch
        .lines()
        .find_map(|l| l.strip_prefix("SUITE=${SUITE:-"))
        .and_then(|rest| rest.strip_suffix('}'))
        .expect("a default SUITE");
    assert!(root().join(suite).is_file(), "SUITE {suite} exists");
}
