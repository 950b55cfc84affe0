//! What `explore` and `classify` print: the bug with its (c, v, t) and
//! replay file, or what the exploration proved, as text or JSON.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use rankcheck_engine::explore::{FoundBug, Stop};
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::{Instrumentation, ReplayFile};
use rankcheck_report::failure::{FailureJson, FoundBy};
use rankcheck_report::words::count;
use serde::Serialize;

use crate::cli::{ExhaustiveArgs, Format};
use crate::exit::Status;
use crate::failure::Report;
use crate::replay_store::{save, tracking_line};
use crate::trace::{trace, Marks};

use rankcheck_engine::explore::Round;

use super::sets::TrackSet;
use super::{clean_status, Orders, Subject};

/// The JSON of `explore` and `classify`.
#[derive(Serialize)]
pub struct ExploreJson {
    program: String,
    /// The preemption bound; null when unbounded.
    preemptions: Option<u32>,
    vars: String,
    pub threads: Option<u32>,
    n: usize,
    #[serde(rename = "Q")]
    q: usize,
    orders: usize,
    /// For sampled orders: the probability they miss some order of
    /// `orders_t` threads (1: no guarantee).
    orders_epsilon: Option<f64>,
    /// The thread bound sampled orders were drawn for.
    #[serde(rename = "orders_t")]
    sample_t: u32,
    prune: bool,
    sets: usize,
    sets_exhausted: usize,
    schedules: u64,
    schedules_to_first_bug: Option<u64>,
    pruned: u64,
    pub exhausted: bool,
    /// Why it stopped early: `max-schedules`, `max-memory` or `interrupted`.
    stopped: Option<String>,
    /// For a stopped exploration, the highest bound the set it stopped in
    /// completed without a bug.
    proved_bound: Option<u32>,
    elapsed_s: f64,
    schedules_per_s: f64,
    c: Option<usize>,
    v: Option<usize>,
    t: Option<usize>,
    kind: Option<String>,
    line: Option<usize>,
    replay: Option<String>,
    tracked: Option<Vec<String>>,
    bug: Option<FailureJson>,
    #[serde(skip)]
    memory_limit: u64,
}

impl ExploreJson {
    /// The counts of `round` over `sets` variable sets, under `orders`.
    pub fn new(
        path: &Path,
        subject: &Subject,
        vars: &str,
        bound: Option<u32>,
        round: &Round,
        orders: &Orders,
        sets: usize,
    ) -> ExploreJson {
        let result = &round.result;
        let (stopped, proved_bound) = match result.stopped {
            Some((_, proved, stop)) => (Some(stop_name(stop).to_string()), proved),
            None => (None, None),
        };
        ExploreJson {
            program: path.display().to_string(),
            preemptions: bound,
            vars: vars.to_string(),
            threads: None,
            n: round.config.n_threads,
            q: subject.loaded.program.n_vars(),
            orders: if bound.is_some() {
                round.orders.len()
            } else {
                0
            },
            orders_epsilon: orders.epsilon.filter(|_| bound.is_some()),
            sample_t: orders.t,
            prune: round.config.prune,
            sets,
            sets_exhausted: result.sets_exhausted,
            schedules: result.schedules,
            schedules_to_first_bug: result.schedules_to_first_bug,
            pruned: result.pruned,
            exhausted: result.exhausted,
            stopped,
            proved_bound,
            elapsed_s: 0.0,
            schedules_per_s: 0.0,
            c: None,
            v: None,
            t: None,
            kind: None,
            line: None,
            replay: None,
            tracked: None,
            bug: None,
            memory_limit: round.config.max_memory,
        }
    }

    /// Record the time the exploration took.
    pub fn finish(&mut self, elapsed: f64) {
        self.elapsed_s = elapsed;
        self.schedules_per_s = if elapsed > 0.0 {
            self.schedules as f64 / elapsed
        } else {
            0.0
        };
    }
}

/// A confidence with enough digits to be honest: `0.99`, `0.999999`.
fn format_confidence(c: f64) -> String {
    let digits = (-(1.0 - c).log10()).ceil().clamp(2.0, 12.0) as usize;
    format!("{c:.digits$}")
}

fn stop_name(stop: Stop) -> &'static str {
    match stop {
        Stop::Schedules => "max-schedules",
        Stop::Memory(_) => "max-memory",
        Stop::Interrupted => "interrupted",
    }
}

/// Print what an exploration without a bug proved; its exit status.
pub fn report_clean(json: &ExploreJson, format: Format) -> Result<ExitCode> {
    match format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(json)?),
        Format::Csv => out!("{}", explore_csv(json)?),
        Format::Human => out!("{}", proved_text(json)),
    }
    Ok(clean_status(json).into())
}

/// `n preemption(s)`.
fn preemptions(n: u32) -> String {
    count(n, "preemption", "preemptions")
}

/// Where the preemptions could go, in words.
fn places(json: &ExploreJson) -> String {
    match json.vars.as_str() {
        "all" => "at any access".to_string(),
        "sync" => "at mutex and condition operations".to_string(),
        "none" | "0" => "(no place for a preemption)".to_string(),
        v => format!(
            "at accesses to any {} (of Q = {})",
            count(v.parse::<u64>().unwrap_or(0), "variable", "variables"),
            json.q
        ),
    }
}

/// The priority orders, in words.
fn order_words(json: &ExploreJson) -> String {
    match json.orders_epsilon {
        None => format!(
            "under every one of the {} priority orders of n + c = {} fragments",
            json.orders,
            json.n + json.preemptions.unwrap_or(0) as usize
        ),
        Some(eps) if eps >= 1.0 => format!(
            "under {} random priority orders (too few to guarantee covering every order of {} threads)",
            json.orders, json.sample_t
        ),
        Some(eps) => format!(
            "under {} random priority orders, which cover every order of {} threads with probability >= {}",
            json.orders,
            json.sample_t,
            format_confidence(1.0 - eps)
        ),
    }
}

/// What an exploration without a bug proved, in words.
fn proved_text(json: &ExploreJson) -> String {
    let head = format!(
        "{} in {:.2}s ({:.0}/s), {} pruned by happens-before\n",
        count(json.schedules, "schedule", "schedules"),
        json.elapsed_s,
        json.schedules_per_s,
        json.pruned
    );
    if let Some(stopped) = &json.stopped {
        return format!("{head}{}\n", incomplete_text(json, stopped));
    }
    match json.preemptions {
        Some(c) => format!(
            "{head}no bug with at most {} {}, {}\n",
            preemptions(c),
            places(json),
            order_words(json)
        ),
        None => format!(
            "{head}no bug in any schedule, with threads switching {}\n",
            places(json)
        ),
    }
}

/// What a stopped exploration proved: the sets it finished, and the bound
/// it finished in the set it stopped in.
fn incomplete_text(json: &ExploreJson, stopped: &str) -> String {
    let why = match stopped {
        "max-schedules" => "stopped at --max-schedules".to_string(),
        "max-memory" => format!(
            "stopped at --max-memory ({} MB of queued work and pruning keys)",
            json.memory_limit >> 20
        ),
        _ => "interrupted".to_string(),
    };
    let sets = if json.sets > 1 {
        format!(
            "{} of {} variable sets were explored to the bound without a bug; in the next one, ",
            json.sets_exhausted, json.sets
        )
    } else {
        String::new()
    };
    let bound = match (json.proved_bound, json.preemptions) {
        (Some(b), Some(_)) => format!(
            "every schedule with at most {} {} ran without a bug ({})",
            preemptions(b),
            places(json),
            order_words(json)
        ),
        _ => "no bound was finished".to_string(),
    };
    format!("{why} before the bound was exhausted: {sets}{bound}. The full bound is not proved.")
}

/// Print the bug an exploration found, write its replay file; exit 1.
pub fn report_bug(
    args: &ExhaustiveArgs,
    path: &Path,
    subject: &Subject,
    set: &TrackSet,
    bug: &FoundBug,
    t: Option<usize>,
    mut json: ExploreJson,
) -> Result<ExitCode> {
    let program = &subject.loaded.program;
    let marks = match json.preemptions {
        Some(_) => Marks::ChangePoints(bug.change_steps.clone()),
        None => Marks::Switches,
    };
    let traced = trace(
        program,
        instrumentation(subject, set),
        &set.instances,
        subject.limits,
        &bug.schedule,
        &subject.loaded.file,
        &marks,
    )
    .map_err(|_| anyhow::anyhow!("internal error: an explored schedule did not replay"))?;
    let mut report = Report {
        traced,
        run: 1,
        found_by: FoundBy::Explore,
        strategy: "explore".into(),
        depth: None,
        chosen_vars: set.vars.as_ref().map(|_| set.names.clone()),
        shrunk: None,
        replay: None,
    };
    report.replay = match write_replay(args, path, subject, set, bug, &marks) {
        Ok(p) => Some(p),
        Err(error) => {
            errln!("warning: {error:#}");
            None
        }
    };
    json.c = json.preemptions.map(|_| bug.preemptions.len());
    json.v = Some(
        set.vars
            .as_ref()
            .map_or(program.n_vars(), |_| set.names.len()),
    );
    json.t = t;
    json.kind = Some(bug.bug.kind.name().to_string());
    json.line = Some(subject.loaded.file.line(bug.bug.span));
    json.replay = report.replay.as_ref().map(|p| p.display().to_string());
    json.tracked = set.vars.as_ref().map(|_| set.names.clone());
    json.bug = Some(report.json(&subject.loaded.file));
    match args.options.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
        Format::Csv => out!("{}", explore_csv(&json)?),
        Format::Human => {
            out!("{}", report.text(&subject.loaded.file));
            let tracked = set.names.join(", ");
            let c = match json.preemptions {
                Some(_) => format!(", with c = {}", preemptions(bug.preemptions.len() as u32)),
                None => String::new(),
            };
            outln!(
                "\nfound after {} ({} pruned){c} at {}{}",
                count(
                    json.schedules_to_first_bug.unwrap_or(json.schedules),
                    "schedule",
                    "schedules"
                ),
                json.pruned,
                if tracked.is_empty() {
                    "no variable".to_string()
                } else {
                    tracked
                },
                t.map(|t| format!(", thread bound t = {t}"))
                    .unwrap_or_default()
            );
            out!("{}", report.replay_line().unwrap_or_default());
        }
    }
    Ok(Status::Failure.into())
}

/// The instrumentation the set was explored under.
fn instrumentation(subject: &Subject, set: &TrackSet) -> Instrumentation {
    let program = &subject.loaded.program;
    match &set.vars {
        None => Instrumentation::all(program),
        Some(vars) => (subject.instrumenter)(program, vars),
    }
}

fn write_replay(
    args: &ExhaustiveArgs,
    path: &Path,
    subject: &Subject,
    set: &TrackSet,
    bug: &FoundBug,
    marks: &Marks,
) -> Result<PathBuf> {
    let loaded = &subject.loaded;
    let defines = &args.options.define;
    let (priorities, preemptions) = match marks {
        Marks::ChangePoints(steps) => ("thread-bounded", steps.clone()),
        Marks::Switches => ("none", Vec::new()),
    };
    let file = ReplayFile {
        program: path.display().to_string(),
        fingerprint: fingerprint(loaded.file.source(), defines),
        defines: defines.clone(),
        found_by: FoundBy::Explore.name().to_string(),
        search: None,
        strategy: "explore".to_string(),
        priorities: priorities.to_string(),
        tracking: tracking_line(&loaded.program, set.vars.as_deref(), &set.instances),
        depth: 0,
        seed: args.options.seed_or_zero(),
        run: 1,
        max_steps: args.options.max_steps,
        kind: bug.bug.kind.name().to_string(),
        preemptions,
        critical: None,
        schedule: bug.schedule.clone(),
    };
    let suffix = match marks {
        Marks::ChangePoints(_) => format!("explore-c{}-{}", bug.preemptions.len(), set_tag(set)),
        Marks::Switches => format!("explore-unbounded-{}", set_tag(set)),
    };
    save(&args.replay_dir, path, file, &suffix)
}

/// A short name for a tracked set, for file names: the variables' names.
fn set_tag(set: &TrackSet) -> String {
    let joined = match &set.vars {
        None => "all".to_string(),
        Some(_) if set.names.is_empty() => "none".to_string(),
        Some(_) => set.names.join("+"),
    };
    let tag: String = joined
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '+' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    tag
}

/// The CSV columns of `explore` and `classify`
/// (`docs/guide/src/csv-output.md`).
pub const EXPLORE_COLUMNS: [&str; 17] = [
    "program",
    "preemptions",
    "vars",
    "n",
    "orders",
    "prune",
    "schedules",
    "schedules_to_first_bug",
    "pruned",
    "exhausted",
    "stopped",
    "elapsed_s",
    "c",
    "v",
    "t",
    "kind",
    "line",
];

/// One CSV row (with its header) of an exploration.
pub fn explore_csv(json: &ExploreJson) -> Result<String> {
    let opt = |v: Option<String>| v.unwrap_or_default();
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(EXPLORE_COLUMNS)?;
    writer.write_record([
        json.program.clone(),
        opt(json.preemptions.map(|c| c.to_string())),
        json.vars.clone(),
        json.n.to_string(),
        json.orders.to_string(),
        json.prune.to_string(),
        json.schedules.to_string(),
        opt(json.schedules_to_first_bug.map(|s| s.to_string())),
        json.pruned.to_string(),
        json.exhausted.to_string(),
        opt(json.stopped.clone()),
        format!("{:.3}", json.elapsed_s),
        opt(json.c.map(|c| c.to_string())),
        opt(json.v.map(|v| v.to_string())),
        opt(json.t.map(|t| t.to_string())),
        opt(json.kind.clone()),
        opt(json.line.map(|l| l.to_string())),
    ])?;
    Ok(String::from_utf8(writer.into_inner()?)?)
}
