//! What a search says: a failure as the command reports it (where, the
//! interleaving with source locations, the preemptions and tracked
//! variables, the replay string, the summary of the runs), or the
//! guarantee a clean search earned, in the command's words.

use std::fmt::{self, Write as _};
use std::panic::Location;
use std::time::Duration;

use rankcheck_engine::guarantee::{confidence, needed, per_set_bounds, show, show_confidence};
use rankcheck_engine::priority::AppliedChange;
use rankcheck_engine::profile::Profile;
use rankcheck_engine::strategy::{PrioritySetting, Slot, VarSelection};
use rankcheck_engine::{PriorityScheme, VarId};
use rankcheck_stats::Probability;

use crate::builder::Builder;
use crate::executor::{RunResult, Tracking};
use crate::failure::FailureKind;
use crate::plan::{scheme, Plan};
use crate::trace::{touched, Operation, Step};
use crate::var::{short_file, Registry};

/// What found a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundBy {
    /// A run of the search (or a preparatory run).
    Search,
    /// `rankcheck::replay`.
    Replay,
}

/// What the failing run's strategy did.
#[derive(Clone, Debug)]
pub struct RunFacts {
    run: Option<u64>,
    seed: Option<u64>,
    strategy: &'static str,
    changes: Option<Vec<AppliedChange>>,
    tracked: Option<Vec<VarId>>,
    preparatory: bool,
}

impl RunFacts {
    /// A preparatory (random) run.
    pub fn random(run: u64, seed: u64) -> RunFacts {
        RunFacts {
            preparatory: true,
            ..RunFacts::sampled(run, seed, "random")
        }
    }

    /// A run of a strategy without priorities.
    pub fn sampled(run: u64, seed: u64, strategy: &'static str) -> RunFacts {
        RunFacts {
            run: Some(run),
            seed: Some(seed),
            strategy,
            changes: None,
            tracked: None,
            preparatory: false,
        }
    }

    /// A priority run and the change points it fired.
    pub fn priority(
        run: u64,
        seed: u64,
        changes: Vec<AppliedChange>,
        tracking: &Tracking,
        strategy: &'static str,
    ) -> RunFacts {
        RunFacts {
            run: Some(run),
            seed: Some(seed),
            strategy,
            changes: Some(changes),
            tracked: match tracking {
                Tracking::Vars(vars) => Some(vars.clone()),
                _ => None,
            },
            preparatory: false,
        }
    }

    /// A replayed run.
    pub fn replayed() -> RunFacts {
        RunFacts {
            run: None,
            seed: None,
            strategy: "replay",
            changes: None,
            tracked: None,
            preparatory: false,
        }
    }
}

/// A search's facts, for its summary.
pub struct Searched<'a> {
    /// What was asked.
    pub builder: &'a Builder,
    /// The master seed.
    pub seed: u64,
    /// The preparatory runs.
    pub profile: &'a Profile,
    /// The test's variables.
    pub registry: &'a Registry,
    /// The strategy (`None`: the preparatory runs failed before a plan).
    pub plan: Option<&'a Plan>,
    /// Each setting's per-run bound.
    pub bounds: &'a [Option<Probability>],
    /// Runs done.
    pub runs: u64,
    /// Their time.
    pub elapsed: Duration,
}

impl<'a> Searched<'a> {
    fn settings(&self) -> &'a [PrioritySetting] {
        self.plan.map_or(&[], |p| p.settings())
    }

    fn rotation(&self) -> rankcheck_engine::strategy::Rotation {
        self.plan.map_or_else(
            || rankcheck_engine::strategy::Rotation::settings(0),
            |p| p.rotation(),
        )
    }

    /// A search that failed in its preparatory runs.
    pub fn preparatory(
        builder: &'a Builder,
        seed: u64,
        profile: &'a Profile,
        registry: &'a Registry,
    ) -> Searched<'a> {
        Searched {
            builder,
            seed,
            profile,
            registry,
            plan: None,
            bounds: &[],
            runs: 0,
            elapsed: Duration::ZERO,
        }
    }
}

/// The guarantee of a clean search: what the command prints, and its
/// numbers.
#[derive(Clone, Debug)]
pub struct Guarantee {
    /// Executions run.
    pub runs: u64,
    /// The master seed.
    pub seed: u64,
    /// The strategy's name.
    pub strategy: &'static str,
    /// Per priority setting: its statement.
    pub settings: Vec<SettingGuarantee>,
    /// The lowest confidence over the settings (`None`: none claims a
    /// bound).
    pub confidence: Option<f64>,
    text: String,
}

/// What one (depth, variables) setting's clean runs proved.
#[derive(Clone, Debug)]
pub struct SettingGuarantee {
    /// Its depth.
    pub depth: u32,
    /// `v` (`None`: every variable).
    pub vars: Option<usize>,
    /// Its runs.
    pub runs: u64,
    /// The per-run bound, if one is claimed.
    pub bound: Option<f64>,
    /// The probability that no bug of the class was missed.
    pub confidence: Option<f64>,
}

impl fmt::Display for Guarantee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The guarantee of a clean search.
pub fn guarantee(s: &Searched<'_>) -> Guarantee {
    let rotation = s.rotation();
    let settings: Vec<SettingGuarantee> = s
        .settings()
        .iter()
        .enumerate()
        .map(|(i, setting)| {
            let runs = rotation.runs_of(Slot::Setting(i), 0, s.runs);
            let bound = s.bounds.get(i).copied().flatten();
            SettingGuarantee {
                depth: setting.depth,
                vars: var_count(&setting.vars),
                runs,
                bound: bound.map(|b| b.value()),
                confidence: bound.map(|b| confidence(b, runs)),
            }
        })
        .collect();
    let lowest = settings
        .iter()
        .filter_map(|g| g.confidence)
        .reduce(f64::min);
    Guarantee {
        runs: s.runs,
        seed: s.seed,
        strategy: s.builder.effective_strategy().name(),
        settings,
        confidence: lowest,
        text: summary(s, false),
    }
}

fn var_count(selection: &VarSelection) -> Option<usize> {
    match selection {
        VarSelection::All { .. } => None,
        VarSelection::Fixed(vars) => Some(vars.len()),
        VarSelection::Drawn { count, .. } => Some(*count),
    }
}

fn names(registry: &Registry, vars: &[VarId]) -> String {
    vars.iter()
        .map(|v| {
            registry
                .vars()
                .get(v.index())
                .map_or("?", |i| i.name.as_str())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn tracking_words(registry: &Registry, selection: &VarSelection) -> String {
    match selection {
        VarSelection::All { .. } => "all".into(),
        VarSelection::Fixed(vars) if vars.is_empty() => "none".into(),
        VarSelection::Fixed(vars) => names(registry, vars),
        VarSelection::Drawn { pool, count } => format!("{count} of {}", pool.len()),
    }
}

/// The summary the command prints after a search.
fn summary(s: &Searched<'_>, failed: bool) -> String {
    let strategy = s.builder.effective_strategy().name();
    let secs = s.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        s.runs as f64 / secs
    } else {
        0.0
    };
    let mut out = if failed {
        format!(
            "{} of {strategy} ({rate:.0} runs/s), 1 failed\n",
            count(s.runs, "run", "runs")
        )
    } else {
        format!(
            "no failure in {} of the test (strategy {strategy}, seed {}, {secs:.2}s, {rate:.0} runs/s)\n",
            count(s.runs, "run", "runs"),
            s.seed
        )
    };
    let _ = writeln!(
        out,
        "n = {}, k = {} per run at most, Q = {} ({})",
        count(s.profile.max_threads as u64, "thread", "threads"),
        count(s.profile.max_accesses, "tracked access", "tracked accesses"),
        count(s.profile.vars.len() as u64, "variable", "variables"),
        count(s.profile.runs, "preparatory run", "preparatory runs")
    );
    let accessed: Vec<String> = s
        .profile
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.max_accesses > 0)
        .map(|(i, v)| {
            let one = if v.shared() { "" } else { " (one thread)" };
            format!(
                "{} {}{one}",
                names(s.registry, &[VarId(i as u32)]),
                v.max_accesses
            )
        })
        .collect();
    if !accessed.is_empty() {
        let _ = writeln!(out, "k_q: {}", accessed.join(", "));
    }
    let rotation = s.rotation();
    if let Some(Plan::Portfolio(p)) = s.plan {
        let parts: Vec<String> = p
            .sampling()
            .iter()
            .map(|x| {
                format!(
                    "{} {}",
                    rotation.runs_of(Slot::Sampling(x.sampling()), 0, s.runs),
                    x.sampling().name()
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "portfolio runs: {}; the PCT settings' runs are on their lines below",
            parts.join(", ")
        );
    }
    if scheme(s.builder) != PriorityScheme::Pct && !s.settings().is_empty() {
        let _ = writeln!(
            out,
            "thread-bounded priorities: no per-run bound is claimed (see Lemma 4.1 of the paper)"
        );
    }
    for (i, setting) in s.settings().iter().enumerate() {
        let runs = rotation.runs_of(Slot::Setting(i), 0, s.runs);
        if let Some(bound) = s.bounds.get(i).copied().flatten() {
            setting_text(&mut out, s, setting, bound, runs, failed);
        }
    }
    out
}

fn setting_text(
    out: &mut String,
    s: &Searched<'_>,
    setting: &PrioritySetting,
    bound: Probability,
    runs: u64,
    failed: bool,
) {
    let over = match var_count(&setting.vars) {
        None => "any variables".to_owned(),
        Some(0) => "no variable".to_owned(),
        Some(v) => format!(
            "{} ({})",
            count(v as u64, "variable", "variables"),
            tracking_words(s.registry, &setting.vars)
        ),
    };
    let runs_text = count(runs, "run", "runs");
    if failed {
        let _ = writeln!(
            out,
            "depth {} over {over}: each run finds such a bug with p >= {} ({runs_text})",
            setting.depth,
            show(bound)
        );
        return;
    }
    let target = s.builder.confidence;
    let reach = needed(bound, target)
        .map(|n| format!("; {} reach {target}", count(n, "run", "runs")))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "no bug of depth {} over {over}, with probability >= {} ({runs_text}, each finding one with p >= {}{reach})",
        setting.depth,
        show_confidence(bound, runs),
        show(bound)
    );
    let sets = per_set_bounds(setting, scheme(s.builder), s.profile).unwrap_or_default();
    if sets.len() > 1 {
        for set in sets.iter().take(10) {
            let which = match set.vars.as_slice() {
                [one] => format!("{} alone", names(s.registry, &[*one])),
                many => names(s.registry, many).replace(", ", " and "),
            };
            let _ = writeln!(
                out,
                "    over {which}: >= {} (each run p >= {})",
                show_confidence(set.bound, runs),
                show(set.bound)
            );
        }
    }
}

/// The report of a failing run.
pub fn failure(
    result: &RunResult,
    facts: &RunFacts,
    found_by: FoundBy,
    searched: Option<&Searched<'_>>,
    replay: &str,
    registry: &Registry,
) -> String {
    let Some(failure) = &result.failure else {
        unreachable!("invariant: only a failed run is reported")
    };
    let mut out = failure.head();
    out.push('\n');
    let changes = facts.changes.as_deref();
    if let Some(trace) = &result.trace {
        interleaving(
            &mut out,
            &trace.steps,
            failure.kind,
            changes,
            registry,
            result,
        );
    }
    if let Some(changes) = changes {
        let vars: Vec<String> = changes
            .iter()
            .filter_map(|c| c.var)
            .map(|v| names(registry, &[v]))
            .collect();
        let tracked = facts
            .tracked
            .as_ref()
            .map_or("every variable".to_owned(), |t| {
                if t.is_empty() {
                    "no variable".to_owned()
                } else {
                    names(registry, t)
                }
            });
        let points: Vec<String> = changes
            .iter()
            .map(|c| {
                format!(
                    "#{} after tracked access {} (step {}, {})",
                    c.index,
                    c.access,
                    c.step,
                    c.var.map_or("-".to_owned(), |v| names(registry, &[v]))
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "the interleaving took {}{}",
            count(changes.len() as u64, "preemption", "preemptions"),
            if vars.is_empty() {
                String::new()
            } else {
                format!(", after accesses to {}", vars.join(", "))
            }
        );
        let _ = writeln!(
            out,
            "the run tracked {tracked}; change points: {}",
            if points.is_empty() {
                "none fired".to_owned()
            } else {
                points.join(", ")
            }
        );
        out.push('\n');
    }
    match (found_by, facts.run, facts.seed, searched) {
        (FoundBy::Search, Some(run), Some(_), Some(s)) => {
            let which = if facts.preparatory {
                format!("preparatory run {run} (random, every variable tracked")
            } else {
                format!(
                    "run {run} of {} (strategy {}{}",
                    s.runs.max(run),
                    s.builder.effective_strategy().name(),
                    portfolio_part(s, facts)
                )
            };
            let _ = writeln!(
                out,
                "found in {which}, seed {}, {:.2}s)",
                s.seed,
                s.elapsed.as_secs_f64()
            );
        }
        _ => {
            let _ = writeln!(out, "replayed");
        }
    }
    let _ = writeln!(out, "replay: rankcheck::replay(test, \"{replay}\")");
    if let Some(s) = searched {
        out.push('\n');
        out.push_str(&summary(s, true));
    }
    out
}

fn portfolio_part(s: &Searched<'_>, facts: &RunFacts) -> String {
    match s.plan {
        Some(Plan::Portfolio(_)) => format!(", a {} run", facts.strategy),
        _ => String::new(),
    }
}

/// The interleaving table.
fn interleaving(
    out: &mut String,
    steps: &[Step],
    kind: FailureKind,
    changes: Option<&[AppliedChange]>,
    registry: &Registry,
    result: &RunResult,
) {
    let var_of = |object: crate::object::ObjectId| {
        result
            .objects
            .get(object.index())
            .copied()
            .unwrap_or(VarId(u32::MAX))
    };
    let preempted: Vec<u64> =
        changes.map_or_else(Vec::new, |c| c.iter().map(|c| c.step + 1).collect());
    let switches = steps.iter().filter(|s| s.switched).count() as u64;
    let header = match changes {
        Some(c) => format!(
            "{}; > marks the step after a preemption",
            count(c.len() as u64, "preemption", "preemptions")
        ),
        None => format!(
            "{} away from a thread that could have gone on, marked ~",
            count(switches, "switch", "switches")
        ),
    };
    let _ = writeln!(
        out,
        "interleaving ({}, {header}):",
        count(steps.len() as u64 + 1, "step", "steps")
    );
    let rows: Vec<[String; 5]> = steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let number = i as u64 + 1;
            let mark = if preempted.contains(&number) {
                ">"
            } else if changes.is_none() && step.switched {
                "~"
            } else {
                " "
            };
            let (line, operation) = match step.operations.last() {
                Some((op, site)) => (
                    location(site),
                    describe(*op, step, registry, &var_of, result),
                ),
                None => (String::new(), "runs".to_owned()),
            };
            let touches: Vec<String> = touched(step, var_of)
                .into_iter()
                .map(|(v, r, w)| {
                    format!(
                        "{} {}{}",
                        names(registry, &[v]),
                        if r { "r" } else { "" },
                        if w { "w" } else { "" }
                    )
                })
                .collect();
            [
                format!("{mark}{number:>7}"),
                result
                    .thread_names
                    .get(step.thread.index())
                    .cloned()
                    .unwrap_or_default(),
                line,
                operation,
                touches.join(", "),
            ]
        })
        .collect();
    let last = match kind {
        FailureKind::Panic => "panics",
        FailureKind::Deadlock => "no thread can run: deadlock",
        FailureKind::StepLimit => "exceeds the step limit",
        FailureKind::Diverged => "cannot run: the replay does not fit",
    };
    let failing = result.failure.as_ref().map(|f| {
        (
            f.thread.clone(),
            f.location
                .as_ref()
                .map(|l| format!("{}:{}", short_file(&l.file), l.line))
                .unwrap_or_default(),
        )
    });
    let (thread, line) = failing.unwrap_or_default();
    let mut all = rows;
    all.push([
        format!(" {:>7}", steps.len() + 1),
        thread,
        line,
        last.to_owned(),
        String::new(),
    ]);
    let width = |c: usize| all.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
    let (w1, w2, w3) = (width(1).max(6), width(2).max(4), width(3).max(9));
    let _ = writeln!(
        out,
        "{:>8}  {:<w1$}  {:<w2$}  {:<w3$}  touches",
        "step", "thread", "line", "operation"
    );
    for r in &all {
        let _ = writeln!(
            out,
            "{}  {:<w1$}  {:<w2$}  {:<w3$}  {}",
            r[0], r[1], r[2], r[3], r[4]
        )
        .map(|_| ());
        if out.ends_with("  \n") {
            let trimmed = out.trim_end().len();
            out.truncate(trimmed);
            out.push('\n');
        }
    }
    out.push('\n');
}

fn location(site: &Location<'_>) -> String {
    format!("{}:{}", short_file(site.file()), site.line())
}

fn describe(
    op: Operation,
    step: &Step,
    registry: &Registry,
    var_of: &dyn Fn(crate::object::ObjectId) -> VarId,
    result: &RunResult,
) -> String {
    let name = |o| names(registry, &[var_of(o)]);
    let text = match op {
        Operation::Access {
            object,
            write: false,
        } => format!("read {}", name(object)),
        Operation::Access {
            object,
            write: true,
        } => format!("write {}", name(object)),
        Operation::Lock(o) => format!("lock {}", name(o)),
        Operation::Unlock(o) => format!("unlock {}", name(o)),
        Operation::RwLock(o, false) => format!("read-lock {}", name(o)),
        Operation::RwLock(o, true) => format!("write-lock {}", name(o)),
        Operation::Wait(o) => format!("wait on {}", name(o)),
        Operation::Woken(o) => format!("woken from {}", name(o)),
        Operation::Notify(o, false) => format!("notify_one {}", name(o)),
        Operation::Notify(o, true) => format!("notify_all {}", name(o)),
        Operation::Barrier(o) => format!("wait at {}", name(o)),
        Operation::Send(o) => format!("send on {}", name(o)),
        Operation::Recv(o) => format!("receive on {}", name(o)),
        Operation::Disconnect(o) => format!("drop an end of {}", name(o)),
        Operation::Spawn => "spawn".to_owned(),
        Operation::Join(t) => format!(
            "join {}",
            result
                .thread_names
                .get(t.index())
                .cloned()
                .unwrap_or_default()
        ),
        Operation::Yield => "yield".to_owned(),
        Operation::Finish => "finish".to_owned(),
    };
    if step.blocked {
        format!("blocks on {text}")
    } else {
        text
    }
}
