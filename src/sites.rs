//! `rankcheck sites PROGRAM`: the variables variable bounding chooses
//! among, the access sites that may touch each (from the alias analysis),
//! what the preparatory runs measured, and which sites tracking given
//! variables instruments.

use std::process::ExitCode;

use anyhow::Result;
use rankcheck_engine::profile::profile;
use rankcheck_engine::{Executable, Instrumentation, Limits, SiteId};
use rankcheck_instr::{PointsTo, Tracking};
use rankcheck_report::words::count;
use serde::Serialize;

use crate::cli::{Format, SitesArgs};
use crate::exit::Status;
use crate::load::load;
use crate::plan::resolve_vars;

/// One variable.
#[derive(Serialize)]
struct VarRow {
    id: u32,
    name: String,
    kind: &'static str,
    line: usize,
    /// Most accesses in one preparatory run.
    k_q: u64,
    /// Mean accesses per preparatory run.
    mean: f64,
    /// Whether two threads touched it in some run.
    shared: bool,
    /// The sites that may touch it.
    sites: Vec<u32>,
}

/// One access site.
#[derive(Serialize)]
struct SiteRow {
    id: u32,
    line: usize,
    kind: &'static str,
    text: String,
    /// The variables it may touch.
    may_access: Vec<String>,
}

#[derive(Serialize)]
struct SitesJson {
    program: String,
    #[serde(rename = "Q")]
    q: usize,
    n_sites: usize,
    profile_runs: u64,
    vars: Vec<VarRow>,
    /// With `--track`: the tracked variables and the sites instrumented.
    tracked: Vec<String>,
    instrumented: Option<Vec<SiteRow>>,
}

/// Print the table `args` asks for.
pub fn sites(args: &SitesArgs) -> Result<ExitCode> {
    let options = &args.options;
    let loaded = load(&args.program, &options.define)?;
    let program = loaded.program.clone();
    let points_to = PointsTo::analyze(&program);
    let limits = Limits {
        max_steps: options.max_steps,
        ..Limits::default()
    };
    let all = Executable::new(program.clone(), &Instrumentation::all(&program));
    let profile = profile(&all, options.profile_runs, options.seed_or_zero(), limits);
    let site_row = |site: SiteId| {
        let s = &program.sites[site.index()];
        SiteRow {
            id: site.0,
            line: loaded.file.line(s.span),
            kind: s.kind.verb(),
            text: s.text.clone(),
            may_access: points_to
                .may_access(site)
                .iter()
                .map(|v| program.vars[v.index()].name.clone())
                .collect(),
        }
    };
    let vars: Vec<VarRow> = program
        .vars
        .iter()
        .enumerate()
        .map(|(i, var)| {
            let measured = &profile.vars[i];
            VarRow {
                id: i as u32,
                name: var.name.clone(),
                kind: var.kind.describe(),
                line: loaded.file.line(var.span),
                k_q: measured.max_accesses,
                mean: measured.mean_accesses,
                shared: measured.shared(),
                sites: points_to
                    .sites_touching(rankcheck_engine::VarId(i as u32))
                    .iter()
                    .map(|s| s.0)
                    .collect(),
            }
        })
        .collect();
    let (tracked, instrumented) = if args.track.is_empty() {
        (Vec::new(), None)
    } else {
        let ids = resolve_vars(&program, &args.track, "--track")?;
        // Exactly the plan a search tracking these variables runs with: its
        // observed memory sites, and the sync sites that touch them.
        let plan =
            Tracking::Vars(ids.iter().copied().collect()).instrumentation(&program, &points_to);
        let rows = (0..program.sites.len())
            .filter(|&s| plan.observed[s])
            .map(|s| site_row(SiteId(s as u32)))
            .collect();
        (
            ids.iter()
                .map(|v| program.vars[v.index()].name.clone())
                .collect(),
            Some(rows),
        )
    };
    let json = SitesJson {
        program: args.program.display().to_string(),
        q: program.n_vars(),
        n_sites: program.sites.len(),
        profile_runs: profile.runs,
        vars,
        tracked,
        instrumented,
    };
    match options.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
        Format::Csv => out!("{}", csv(&json)?),
        Format::Human => out!("{}", human(&json)),
    }
    Ok(Status::Clean.into())
}

/// CSV: one row per variable, or with `--track` one per instrumented site.
fn csv(json: &SitesJson) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    match &json.instrumented {
        None => {
            writer.write_record([
                "id", "name", "kind", "line", "k_q", "mean", "shared", "sites",
            ])?;
            for v in &json.vars {
                writer.write_record([
                    v.id.to_string(),
                    v.name.clone(),
                    v.kind.to_string(),
                    v.line.to_string(),
                    v.k_q.to_string(),
                    format!("{:.2}", v.mean),
                    v.shared.to_string(),
                    v.sites.len().to_string(),
                ])?;
            }
        }
        Some(rows) => {
            writer.write_record(["site", "line", "kind", "text", "may_access"])?;
            for s in rows {
                writer.write_record([
                    s.id.to_string(),
                    s.line.to_string(),
                    s.kind.to_string(),
                    s.text.clone(),
                    s.may_access.join(" "),
                ])?;
            }
        }
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}

fn human(json: &SitesJson) -> String {
    let mut out = format!(
        "{}: Q = {}, {} ({})\n",
        json.program,
        count(json.q as u64, "variable", "variables"),
        count(json.n_sites as u64, "access site", "access sites"),
        count(json.profile_runs, "preparatory run", "preparatory runs")
    );
    let width = json
        .vars
        .iter()
        .map(|v| v.name.len())
        .max()
        .unwrap_or(8)
        .max(8);
    out.push_str(&format!(
        "{:>4}  {:<width$}  {:<18} {:>5} {:>7} {:>9}  {:<12} sites\n",
        "id", "variable", "kind", "line", "k_q", "mean", "threads"
    ));
    for v in &json.vars {
        out.push_str(&format!(
            "{:>4}  {:<width$}  {:<18} {:>5} {:>7} {:>9.1}  {:<12} {}\n",
            v.id,
            v.name,
            v.kind,
            v.line,
            v.k_q,
            v.mean,
            if v.shared {
                "shared"
            } else if v.k_q > 0 {
                "one thread"
            } else {
                "unused"
            },
            v.sites.len()
        ));
    }
    if let Some(rows) = &json.instrumented {
        out.push_str(&format!(
            "\ntracking {}: {} of {} sites instrumented\n",
            json.tracked.join(", "),
            rows.len(),
            json.n_sites
        ));
        for s in rows {
            out.push_str(&format!(
                "  site {:>4}  line {:>4}  {:<9} {:<30} may touch {}\n",
                s.id,
                s.line,
                s.kind,
                s.text,
                s.may_access.join(", ")
            ));
        }
    }
    out
}
