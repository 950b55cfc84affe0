//! `rankcheck bounds PROGRAM`: the per-run bound and the runs a confidence
//! needs, for PCT and PCTVB side by side and per variable set, from the
//! preparatory runs alone.

use std::process::ExitCode;

use anyhow::Result;
use rankcheck_engine::profile::{accessed_vars, profile, Profile};
use rankcheck_engine::strategy::{PrioritySetting, VarSelection};
use rankcheck_engine::{Executable, Instrumentation, Limits, PriorityScheme, Program};
use rankcheck_report::words::count;
use rankcheck_stats::{decimal::number, Probability};
use serde::Serialize;

use crate::cli::{BoundsArgs, Format, VarsArg};
use crate::exit::Status;
use crate::guarantee::{needed, per_run_bound, per_set_bounds, show};
use crate::load::load;
use crate::plan::{resolve_vars, sync_vars};

/// One strategy's numbers.
#[derive(Debug, Serialize)]
struct StrategyBound {
    /// Per-run lower bound on finding a bug of the depth and variable bound
    /// (the worst case over variable sets).
    bound: Option<f64>,
    /// `ln` of the bound (exact where `bound` underflows to 0).
    bound_ln: Option<f64>,
    /// Runs the confidence needs; null when beyond 2^64 or no bound.
    runs_needed: Option<u64>,
}

/// One variable set's numbers under PCTVB.
#[derive(Debug, Serialize)]
struct SetBoundJson {
    vars: Vec<String>,
    bound: f64,
    bound_ln: f64,
    runs_needed: Option<u64>,
}

#[derive(Debug, Serialize)]
struct BoundsJson {
    program: String,
    depth: u32,
    /// `--vars` as given: a number, `all`, `sync` or `none`.
    vars: String,
    /// For `--vars V`, the variables each PCTVB run tracks: `V`, or all
    /// the preparatory runs accessed when they accessed fewer (null for
    /// `all`, `sync` and `none`).
    vars_drawn: Option<usize>,
    confidence: f64,
    n: usize,
    k: u64,
    #[serde(rename = "Q")]
    q: usize,
    profile_runs: u64,
    pct: StrategyBound,
    pctvb: StrategyBound,
    /// PCTVB per variable set, weakest first (null unless `--vars` is a
    /// number and the sets are at most 10,000).
    pctvb_per_set: Option<Vec<SetBoundJson>>,
}

/// Print the bounds `args` asks for.
pub fn bounds(args: &BoundsArgs) -> Result<ExitCode> {
    let options = &args.options;
    let loaded = load(&args.program, &options.define)?;
    let program = loaded.program.clone();
    let limits = Limits {
        max_steps: options.max_steps,
        ..Limits::default()
    };
    let exe = Executable::new(program.clone(), &Instrumentation::all(&program));
    let profile = profile(&exe, options.profile_runs, options.seed_or_zero(), limits);
    let pct = PrioritySetting {
        depth: args.depth,
        vars: VarSelection::All {
            window: profile.max_accesses,
        },
    };
    let (vars, vars_drawn) = selection(args, &program, &profile)?;
    let pctvb = PrioritySetting {
        depth: args.depth,
        vars,
    };
    let numbers = |setting: &PrioritySetting| {
        let bound = per_run_bound(setting, PriorityScheme::Pct, &profile);
        StrategyBound {
            bound: bound.map(|b| b.value()),
            bound_ln: bound.map(|b| b.ln()),
            runs_needed: bound.and_then(|b| needed(b, args.confidence)),
        }
    };
    let per_set = per_set_bounds(&pctvb, PriorityScheme::Pct, &profile).map(|sets| {
        sets.into_iter()
            .map(|set| SetBoundJson {
                vars: set
                    .vars
                    .iter()
                    .map(|v| program.vars[v.index()].name.clone())
                    .collect(),
                bound: set.bound.value(),
                bound_ln: set.bound.ln(),
                runs_needed: needed(set.bound, args.confidence),
            })
            .collect()
    });
    let json = BoundsJson {
        program: args.program.display().to_string(),
        depth: args.depth,
        vars: args.vars.to_string(),
        vars_drawn,
        confidence: args.confidence,
        n: profile.max_threads,
        k: profile.max_accesses,
        q: program.n_vars(),
        profile_runs: profile.runs,
        pct: numbers(&pct),
        pctvb: numbers(&pctvb),
        pctvb_per_set: per_set,
    };
    match options.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
        Format::Csv => out!("{}", csv_text(&json)?),
        Format::Human => out!("{}", text(&json)),
    }
    Ok(Status::Clean.into())
}

/// The variables PCTVB's runs track, as `--vars` and `--track` say, and
/// for `--vars V` how many each run draws. When the preparatory runs
/// accessed fewer than `V` variables, a run tracks all of them: every bug
/// involves at most those, so the bound covers any bug over `V`. A
/// `--track` list shorter than `V` is refused: the user named the pool.
fn selection(
    args: &BoundsArgs,
    program: &Program,
    profile: &Profile,
) -> Result<(VarSelection, Option<usize>)> {
    let pool = if args.track.is_empty() {
        accessed_vars(profile)
    } else {
        resolve_vars(program, &args.track, "--track")?
    };
    Ok(match args.vars {
        VarsArg::All => (
            VarSelection::All {
                window: profile.max_accesses,
            },
            None,
        ),
        VarsArg::Sync => (VarSelection::Fixed(sync_vars(program)), None),
        VarsArg::None => (VarSelection::Fixed(Vec::new()), None),
        VarsArg::Count(v) if v > pool.len() && !args.track.is_empty() => anyhow::bail!(
            "--vars {v}: --track names only {}",
            count(pool.len() as u64, "variable", "variables")
        ),
        VarsArg::Count(v) => {
            let drawn = v.min(pool.len());
            let selection = if drawn == 0 {
                VarSelection::Fixed(Vec::new())
            } else {
                VarSelection::Drawn { pool, count: drawn }
            };
            (selection, Some(drawn))
        }
    })
}

/// Why PCTVB tracks fewer variables than `--vars` asked, if it does.
fn fewer_vars_note(json: &BoundsJson) -> Option<String> {
    let drawn = json.vars_drawn?;
    if json.vars.parse() == Ok(drawn) {
        return None;
    }
    Some(match drawn {
        0 => format!(
            "(--vars {}: the preparatory runs accessed no variable, so variable bounding has nothing to choose)",
            json.vars
        ),
        _ => format!(
            "(--vars {}: the preparatory runs accessed only {}, so pctvb tracks all of them)",
            json.vars,
            count(drawn as u64, "variable", "variables")
        ),
    })
}

/// `1/X` or `none`.
fn shown(ln: Option<f64>) -> String {
    ln.and_then(|ln| Probability::from_ln(ln).ok())
        .map_or_else(|| "none".to_string(), show)
}

/// A run count, or why there is none.
fn runs(needed: Option<u64>, bound: Option<f64>) -> String {
    match (needed, bound) {
        (Some(n), _) => n.to_string(),
        (None, Some(_)) => "more than 2^64".to_string(),
        (None, None) => "-".to_string(),
    }
}

fn text(json: &BoundsJson) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "{}: n = {}, k = {} per run, Q = {} ({})\n",
        json.program,
        count(json.n as u64, "thread", "threads"),
        count(json.k, "tracked access", "tracked accesses"),
        count(json.q as u64, "variable", "variables"),
        count(json.profile_runs, "preparatory run", "preparatory runs")
    );
    let _ = writeln!(
        out,
        "bug depth d = {}, variables v = {}, confidence {}:",
        json.depth, json.vars, json.confidence
    );
    for (name, b) in [("pct", &json.pct), ("pctvb", &json.pctvb)] {
        let _ = writeln!(
            out,
            "  {name:<6} per-run bound {:<16} runs needed {}",
            shown(b.bound_ln),
            runs(b.runs_needed, b.bound)
        );
    }
    if let Some(note) = fewer_vars_note(json) {
        let _ = writeln!(out, "  {note}");
    }
    if json.pctvb.bound.is_none() && json.depth > 1 {
        let _ = writeln!(
            out,
            "  (pctvb tracks no accessed variable here, so no change point can be placed)"
        );
    }
    if let Some(sets) = &json.pctvb_per_set {
        let _ = writeln!(
            out,
            "pctvb per variable set (the bound above is the weakest of these):"
        );
        for set in sets {
            let _ = writeln!(
                out,
                "  {:<24} per-run bound {:<16} runs needed {}",
                set.vars.join(" and "),
                shown(Some(set.bound_ln)),
                runs(set.runs_needed, Some(set.bound))
            );
        }
    }
    out
}

/// The CSV rows: one for PCT, one for PCTVB's worst case, one per PCTVB
/// variable set.
fn csv_text(json: &BoundsJson) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record([
        "program",
        "strategy",
        "depth",
        "vars",
        "set",
        "bound",
        "runs_needed",
    ])?;
    let opt = |v: Option<String>| v.unwrap_or_default();
    for (name, b) in [("pct", &json.pct), ("pctvb", &json.pctvb)] {
        writer.write_record([
            json.program.clone(),
            name.to_string(),
            json.depth.to_string(),
            if name == "pct" {
                "all".to_string()
            } else {
                json.vars.clone()
            },
            String::new(),
            opt(b.bound.map(number)),
            opt(b.runs_needed.map(|n| n.to_string())),
        ])?;
    }
    for set in json.pctvb_per_set.iter().flatten() {
        writer.write_record([
            json.program.clone(),
            "pctvb".to_string(),
            json.depth.to_string(),
            json.vars.clone(),
            set.vars.join("+"),
            number(set.bound),
            opt(set.runs_needed.map(|n| n.to_string())),
        ])?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}
