//! Loading benchmark programs and setting up the strategies the CLI uses.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use rankcheck_engine::profile::{accessed_vars, profile, Profile};
use rankcheck_engine::strategy::{Executables, PrioritySetting, VarSelection};
use rankcheck_engine::{
    Executable, Instrumentation, Limits, PriorityScheme, PriorityStrategy, Program,
};
use rankcheck_instr::{PointsTo, Tracking};

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Compile a program of the repository with `-D` values.
pub fn compile(path: &str, defines: &[(String, i64)]) -> Result<Arc<Program>> {
    let full = root().join(path);
    let source = std::fs::read_to_string(&full)
        .with_context(|| format!("cannot read {}", full.display()))?;
    let program =
        rankcheck_instr::compile(&source, defines).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    Ok(Arc::new(program))
}

/// The preparatory runs the CLI makes (20 random runs).
pub fn prepare(program: &Arc<Program>, seed: u64) -> Profile {
    let exe = Executable::new(program.clone(), &Instrumentation::all(program));
    profile(&exe, 20, seed, Limits::default())
}

/// The executables of `program` by tracked set, instrumented by the alias
/// analysis as `rankcheck` does.
pub fn executables(program: &Arc<Program>) -> Executables {
    let points_to = Arc::new(PointsTo::analyze(program));
    Executables::new(
        program.clone(),
        Arc::new(move |program: &Program, vars: &[rankcheck_engine::VarId]| {
            Tracking::Vars(vars.iter().copied().collect()).instrumentation(program, &points_to)
        }),
    )
}

/// PCT (`vars = None`, every variable tracked) or PCTVB drawing `vars`
/// variables, at depth `depth`, as `rankcheck --strategy ...` sets it up.
pub fn priority_strategy(profile: &Profile, depth: u32, vars: Option<usize>) -> PriorityStrategy {
    let selection = match vars {
        None => VarSelection::All {
            window: profile.max_accesses,
        },
        Some(count) => VarSelection::Drawn {
            pool: accessed_vars(profile),
            count,
        },
    };
    PriorityStrategy::new(
        PriorityScheme::Pct,
        profile.max_threads,
        profile.access_bounds(),
        vec![PrioritySetting {
            depth,
            vars: selection,
        }],
    )
}

/// The commit the results are measured at, for the notes beside them.
pub fn commit() -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The machine's cores, for the notes beside results.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
