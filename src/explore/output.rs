//! What `explore` and `classify` print: the bug with its (c, v, t) and
//! replay file, or what the exploration proved, as text or JSON.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use rankcheck_engine::explore::{FoundBug, Stop};
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::ReplayFile;
use serde::Serialize;

use crate::check::tracking_line;
use crate::cli::{ExhaustiveArgs, Format};
use crate::exit::Status;
use crate::report::{failure_text, save_replay, trace, FailureJson};

use super::sets::{executable, TrackSet};
use super::{clean_status, Round, Subject};

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
    orders_epsilon: Option<f64>,
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
    /// The counts of `round` over `sets`.
    pub fn new(
        path: &Path,
        subject: &Subject,
        vars: &str,
        bound: Option<u32>,
        round: &Round,
        sets: &[TrackSet],
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
                round.orders.orders.len()
            } else {
                0
            },
            orders_epsilon: round.orders.epsilon.filter(|_| bound.is_some()),
            prune: round.config.prune,
            sets: sets.len(),
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
        Format::Human => out!("{}", proved_text(json)),
    }
    Ok(clean_status(json).into())
}

/// `n preemption(s)`.
fn preemptions(n: u32) -> String {
    format!("{n} preemption{}", if n == 1 { "" } else { "s" })
}

/// Where the preemptions could go, in words.
fn places(json: &ExploreJson) -> String {
    match json.vars.as_str() {
        "all" => "at any access".to_string(),
        "sync" => "at mutex and condition operations".to_string(),
        "none" => "(no place for a preemption)".to_string(),
        v => format!(
            "at accesses to any {v} variable{} (of Q = {})",
            if v == "1" { "" } else { "s" },
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
        Some(eps) => format!(
            "under {} random priority orders, which cover every order of {} threads with probability >= {}",
            json.orders,
            json.threads.unwrap_or(2),
            1.0 - eps
        ),
    }
}

/// What an exploration without a bug proved, in words.
fn proved_text(json: &ExploreJson) -> String {
    let head = format!(
        "{} schedules in {:.2}s ({:.0}/s), {} pruned by happens-before\n",
        json.schedules, json.elapsed_s, json.schedules_per_s, json.pruned
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
    let exe = executable(subject, set);
    let traced = trace(&exe, subject.limits, &bug.schedule, &subject.loaded.file)
        .map_err(|_| anyhow::anyhow!("internal error: an explored schedule did not replay"))?;
    let replay = write_replay(args, path, subject, set, bug);
    let replay_path = match &replay {
        Ok(p) => Some(p.display().to_string()),
        Err(error) => {
            errln!("warning: {error:#}");
            None
        }
    };
    json.c = Some(bug.preemptions.len());
    json.v = Some(
        set.vars
            .as_ref()
            .map_or(program.n_vars(), |_| set.names.len()),
    );
    json.t = t;
    json.kind = Some(bug.bug.kind.name().to_string());
    json.line = Some(subject.loaded.file.line(bug.bug.span));
    json.replay = replay_path.clone();
    json.tracked = set.vars.as_ref().map(|_| set.names.clone());
    json.bug = Some(FailureJson::new(
        0,
        &traced,
        &subject.loaded.file,
        replay_path.clone(),
    ));
    match args.common.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
        Format::Human => {
            out!("{}", failure_text(&traced, &subject.loaded.file));
            let tracked = set.names.join(", ");
            let c = match json.preemptions {
                Some(_) => format!(", with c = {}", preemptions(bug.preemptions.len() as u32)),
                None => String::new(),
            };
            outln!(
                "\nfound after {} schedules ({} pruned){c} at {}{}",
                json.schedules_to_first_bug.unwrap_or(json.schedules),
                json.pruned,
                if tracked.is_empty() {
                    "no variable".to_string()
                } else {
                    tracked
                },
                t.map(|t| format!(", thread bound t = {t}"))
                    .unwrap_or_default()
            );
            if let Some(p) = replay_path {
                outln!("replay: rankcheck replay {p}");
            }
        }
    }
    Ok(Status::Failure.into())
}

fn write_replay(
    args: &ExhaustiveArgs,
    path: &Path,
    subject: &Subject,
    set: &TrackSet,
    bug: &FoundBug,
) -> Result<PathBuf> {
    let loaded = &subject.loaded;
    let file = ReplayFile {
        program: path.display().to_string(),
        fingerprint: fingerprint(loaded.file.source(), &args.common.define),
        defines: args.common.define.clone(),
        strategy: "explore".to_string(),
        tracking: tracking_line(&loaded.program, set.vars.as_deref(), &set.instances),
        seed: args.seed,
        run: 1,
        max_steps: args.common.max_steps,
        kind: bug.bug.kind.name().to_string(),
        schedule: bug.schedule.clone(),
    };
    save_replay(
        &args.replay_dir,
        path,
        &file,
        &format!("explore-c{}", bug.preemptions.len()),
    )
}
