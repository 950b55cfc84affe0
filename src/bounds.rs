//! `rankcheck bounds PROGRAM`: the per-run bound and the runs a confidence
//! needs, for PCT and PCTVB side by side, from the preparatory runs alone.

use std::process::ExitCode;

use anyhow::Result;
use rankcheck_engine::profile::{accessed_vars, profile};
use rankcheck_engine::strategy::{PrioritySetting, VarSelection};
use rankcheck_engine::{Executable, Instrumentation, Limits, PriorityScheme};
use serde::Serialize;

use crate::cli::{BoundsArgs, Format};
use crate::guarantee::{needed, per_run_bound, show};
use crate::load::load;

/// One strategy's numbers.
#[derive(Debug, Serialize)]
struct StrategyBound {
    /// Per-run lower bound on finding a bug of the depth and variable bound.
    bound: Option<f64>,
    /// `ln` of the bound (exact where `bound` underflows to 0).
    bound_ln: Option<f64>,
    /// Runs the confidence needs; null when beyond 2^64.
    runs_needed: Option<u64>,
}

#[derive(Debug, Serialize)]
struct BoundsJson {
    program: String,
    depth: u32,
    vars: usize,
    confidence: f64,
    n: usize,
    k: u64,
    #[serde(rename = "Q")]
    q: usize,
    profile_runs: u64,
    pct: StrategyBound,
    pctvb: StrategyBound,
}

/// Print the bounds `args` asks for.
pub fn bounds(args: &BoundsArgs) -> Result<ExitCode> {
    let common = &args.common;
    let Some(path) = common.program.as_deref() else {
        anyhow::bail!("no program given")
    };
    let loaded = load(path, &common.define)?;
    let program = loaded.program.clone();
    let limits = Limits {
        max_steps: common.max_steps,
        ..Limits::default()
    };
    let exe = Executable::new(program.clone(), &Instrumentation::all(&program));
    let profile = profile(&exe, common.profile_runs, args.seed, limits);
    let pool = accessed_vars(&profile);
    if args.vars > pool.len() {
        anyhow::bail!(
            "--vars {}: the preparatory runs accessed only {} variables",
            args.vars,
            pool.len()
        );
    }
    let pct = PrioritySetting {
        depth: args.depth,
        vars: VarSelection::All {
            window: profile.max_accesses,
        },
    };
    let pctvb = PrioritySetting {
        depth: args.depth,
        vars: VarSelection::Drawn {
            pool,
            count: args.vars,
        },
    };
    let numbers = |setting: &PrioritySetting| {
        let bound = per_run_bound(setting, PriorityScheme::Pct, &profile);
        StrategyBound {
            bound: bound.map(|b| b.value()),
            bound_ln: bound.map(|b| b.ln()),
            runs_needed: bound.and_then(|b| needed(b, args.confidence)),
        }
    };
    let json = BoundsJson {
        program: path.display().to_string(),
        depth: args.depth,
        vars: args.vars,
        confidence: args.confidence,
        n: profile.max_threads,
        k: profile.max_accesses,
        q: program.n_vars(),
        profile_runs: profile.runs,
        pct: numbers(&pct),
        pctvb: numbers(&pctvb),
    };
    match common.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
        Format::Human => {
            outln!(
                "{}: n = {} threads, k = {} tracked accesses per run, Q = {} variables ({} preparatory runs)",
                json.program,
                json.n,
                json.k,
                json.q,
                json.profile_runs
            );
            outln!(
                "bug depth d = {}, variable bound v = {}, confidence {}:",
                json.depth,
                json.vars,
                json.confidence
            );
            for (name, b) in [("pct", &json.pct), ("pctvb", &json.pctvb)] {
                let bound = b
                    .bound_ln
                    .and_then(|ln| rankcheck_stats::Probability::from_ln(ln).ok())
                    .map(show);
                outln!(
                    "  {name:<6} per-run bound {:<16} runs needed {}",
                    bound.unwrap_or_else(|| "none".into()),
                    b.runs_needed
                        .map_or_else(|| "more than 2^64".to_string(), |n| n.to_string())
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
