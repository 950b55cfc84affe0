//! Every search strategy against every buggy program of the corpus and
//! the examples, 20 seeds each, up to 10,000 executions per trial (issue
//! 13): `results/strategies.csv` (one row per trial), `strategies.md`
//! (found/seeds and executions to the first bug per program, bugs found
//! per trial per strategy, and the default's standing) and
//! `strategies.svg` (cumulative bugs found against executions).
//!
//! Each trial is one run of the `rankcheck` binary, exactly as a user runs
//! it, so the default measured is the default users get. Rows are written
//! as trials finish: an interrupted benchmark keeps what it measured, and
//! `--resume` skips the trials already in the CSV.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::baseline::build_current;
use crate::cli::StrategiesArgs;
use crate::workload::{commit, cores, root};

mod report;

/// One line of the comparison: a strategy with its parameters, and the
/// `check` flags that run it.
pub struct Line {
    pub strategy: &'static str,
    pub parameters: &'static str,
    pub flags: &'static [&'static str],
}

/// The lines compared, the default first.
pub const LINES: [Line; 16] = [
    Line {
        strategy: "default",
        parameters: "",
        flags: &[],
    },
    Line {
        strategy: "pctvb",
        parameters: "",
        flags: &["--strategy", "pctvb"],
    },
    Line {
        strategy: "random",
        parameters: "",
        flags: &["--strategy", "random"],
    },
    Line {
        strategy: "pct",
        parameters: "d=1",
        flags: &["--strategy", "pct", "--depth", "1"],
    },
    Line {
        strategy: "pct",
        parameters: "d=2",
        flags: &["--strategy", "pct", "--depth", "2"],
    },
    Line {
        strategy: "pct",
        parameters: "d=3",
        flags: &["--strategy", "pct", "--depth", "3"],
    },
    Line {
        strategy: "pctvb",
        parameters: "d=2 v=1",
        flags: &["--depth", "2", "--vars", "1"],
    },
    Line {
        strategy: "pctvb",
        parameters: "d=3 v=1",
        flags: &["--depth", "3", "--vars", "1"],
    },
    Line {
        strategy: "pctvb",
        parameters: "d=3 v=2",
        flags: &["--depth", "3", "--vars", "2"],
    },
    Line {
        strategy: "pctvb-tb",
        parameters: "",
        flags: &["--strategy", "pctvb", "--priorities", "thread-bounded"],
    },
    Line {
        strategy: "pos",
        parameters: "",
        flags: &["--strategy", "pos"],
    },
    Line {
        strategy: "wpos",
        parameters: "",
        flags: &["--strategy", "wpos"],
    },
    Line {
        strategy: "swpos",
        parameters: "",
        flags: &["--strategy", "swpos"],
    },
    Line {
        strategy: "urw",
        parameters: "",
        flags: &["--strategy", "urw"],
    },
    Line {
        strategy: "surw",
        parameters: "",
        flags: &["--strategy", "surw"],
    },
    Line {
        strategy: "ksurw",
        parameters: "",
        flags: &["--strategy", "ksurw"],
    },
];

/// A buggy benchmark program, with the `-D` values it is run with.
#[derive(Clone)]
pub struct Program {
    pub name: String,
    pub group: &'static str,
    pub path: PathBuf,
    pub defines: Vec<(&'static str, i64)>,
}

/// A `-D` constant and the values it takes.
type Swept = (&'static str, &'static [i64]);

/// The scaled families (group `scaled`, issue 19): a program and the `-D`
/// values swept, every combination of them one program of the
/// comparison, named like `corner_flag(HOT=400 WORKERS=2)`. Each bug is a
/// short window among many accesses, so that strategies differ by orders
/// of magnitude; `corner_variable` is the paper's Figure 6 sweep (its
/// HOT=50 is the example itself).
const SWEEPS: [(&str, &[Swept]); 5] = [
    (
        "bench/corpus/scaled/corner_flag.rk",
        &[("HOT", &[50, 400, 1600]), ("WORKERS", &[0, 2])],
    ),
    (
        "bench/corpus/scaled/corner_publish.rk",
        &[("HOT", &[50, 400, 1600])],
    ),
    ("bench/corpus/scaled/reorder.rk", &[("N", &[10, 20, 50])]),
    ("bench/corpus/scaled/twostage.rk", &[("N", &[10, 100])]),
    ("examples/corner_variable.rk", &[("HOT", &[400, 1600])]),
];

impl Program {
    /// Its group: `corpus`, `trivial`, `examples` or `scaled`.
    pub fn group(&self) -> &'static str {
        self.group
    }
}

/// Every program of the scaled families.
fn scaled() -> Vec<Program> {
    let mut found = Vec::new();
    for (file, parameters) in SWEEPS {
        let mut combinations: Vec<Vec<(&'static str, i64)>> = vec![Vec::new()];
        for &(name, values) in parameters {
            combinations = combinations
                .into_iter()
                .flat_map(|c| {
                    values.iter().map(move |&v| {
                        let mut next = c.clone();
                        next.push((name, v));
                        next
                    })
                })
                .collect();
        }
        let path = root().join(file);
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        for defines in combinations {
            let values: Vec<String> = defines.iter().map(|(n, v)| format!("{n}={v}")).collect();
            found.push(Program {
                name: format!("{stem}({})", values.join(" ")),
                group: "scaled",
                path: path.clone(),
                defines,
            });
        }
    }
    found
}

/// Whether `line` runs on `program`. Every bug of the scaled families
/// needs a preemption, which PCT at depth 1 never makes, in a window of
/// one step among hundreds or thousands, which the random scheduler hits
/// by chance alone: their trials there would only spend the cap.
fn applies(line: &Line, program: &Program) -> bool {
    let hopeless =
        line.strategy == "random" || (line.strategy == "pct" && line.parameters == "d=1");
    !(program.group == "scaled" && hopeless)
}

/// The executions a trial may run.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// On the corpus, its trivial programs and the examples.
    pub corpus: u64,
    /// On the scaled families, whose executions are hundreds of times
    /// longer and whose fast lines find the bugs in tens of runs.
    pub scaled: u64,
}

impl Caps {
    fn of(self, program: &Program) -> u64 {
        if program.group == "scaled" {
            self.scaled
        } else {
            self.corpus
        }
    }
}

impl StrategiesArgs {
    fn caps(&self) -> Caps {
        Caps {
            corpus: self.cap,
            scaled: self.scaled_cap,
        }
    }
}

/// A row of the CSV.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Trial {
    pub program: String,
    pub group: String,
    pub strategy: String,
    pub parameters: String,
    pub seed: u64,
    pub executions: u64,
    pub found: bool,
    pub seconds: f64,
}

pub const COLUMNS: [&str; 8] = [
    "program",
    "group",
    "strategy",
    "parameters",
    "seed",
    "executions",
    "found",
    "seconds",
];

/// The buggy programs of a directory, in group `group`.
fn buggy(dir: &str, group: &'static str) -> Result<Vec<Program>> {
    let mut found = Vec::new();
    for entry in
        std::fs::read_dir(root().join(dir)).with_context(|| format!("cannot list {dir}"))?
    {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "rk") {
            continue;
        }
        let source = std::fs::read_to_string(&path)?;
        let header = source.lines().next().unwrap_or_default();
        if !header.starts_with("// expect:") {
            bail!("{}: no `// expect:` header", path.display());
        }
        if header.contains("expect: ok") {
            continue;
        }
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into();
        found.push(Program {
            name,
            group,
            path,
            defines: Vec::new(),
        });
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

pub fn programs() -> Result<Vec<Program>> {
    let mut all = buggy("bench/corpus", "corpus")?;
    all.extend(buggy("bench/corpus/trivial", "trivial")?);
    all.extend(buggy("examples", "examples")?);
    all.extend(scaled());
    Ok(all)
}

/// The key a trial is known by, to resume.
fn key(program: &str, line: &Line, seed: u64) -> (String, String, String, u64) {
    (
        program.to_string(),
        line.strategy.to_string(),
        line.parameters.to_string(),
        seed,
    )
}

pub fn run(args: &StrategiesArgs) -> Result<()> {
    let csv_path = root().join("results/strategies.csv");
    if !args.report_only {
        measure(args, &csv_path)?;
    }
    let trials = read(&csv_path)?;
    let confirm_path = root().join("results/strategies_confirm.csv");
    if !args.report_only && args.confirm_seeds > 0 {
        confirm(args, &trials, &confirm_path)?;
    }
    let confirmed = if confirm_path.exists() {
        read(&confirm_path)?
    } else {
        Vec::new()
    };
    let md = report::markdown(&trials, &confirmed, args, &commit(), cores());
    std::fs::write(root().join("results/strategies.md"), md)?;
    let svg = crate::figures::strategies_figure(&std::fs::read_to_string(&csv_path)?)?;
    std::fs::write(root().join("results/strategies.svg"), svg)?;
    eprintln!(
        "wrote results/strategies.csv, strategies_confirm.csv, strategies.md and strategies.svg"
    );
    Ok(())
}

/// Run every trial not in the CSV yet, appending rows as they finish.
fn measure(args: &StrategiesArgs, csv_path: &Path) -> Result<()> {
    let binary = build_current()?;
    let done: BTreeSet<_> = if args.resume && csv_path.exists() {
        read(csv_path)?
            .into_iter()
            .map(|t| (t.program, t.strategy, t.parameters, t.seed))
            .collect()
    } else {
        // Start over: every row, or only the rows of the lines re-run.
        let kept: Vec<Trial> = if csv_path.exists() && !args.only.is_empty() {
            read(csv_path)?
                .into_iter()
                .filter(|t| !args.only.contains(&t.strategy))
                .collect()
        } else {
            Vec::new()
        };
        let mut writer = csv::Writer::from_path(csv_path)?;
        writer.write_record(COLUMNS)?;
        for t in &kept {
            writer.write_record(row(t))?;
        }
        writer.flush()?;
        BTreeSet::new()
            .into_iter()
            .chain(
                kept.into_iter()
                    .map(|t| (t.program, t.strategy, t.parameters, t.seed)),
            )
            .collect()
    };
    let lines: Vec<&Line> = LINES
        .iter()
        .filter(|l| args.only.is_empty() || args.only.iter().any(|o| *o == l.strategy))
        .collect();
    let mut todo = Vec::new();
    let wanted = |p: &Program| {
        args.programs.is_empty() || args.programs.iter().any(|w| p.name.starts_with(w.as_str()))
    };
    for program in programs()?.into_iter().filter(wanted) {
        for &line in lines.iter().filter(|l| applies(l, &program)) {
            for seed in 0..args.seeds {
                if !done.contains(&key(&program.name, line, seed)) {
                    todo.push((program.clone(), line, seed));
                }
            }
        }
    }
    run_all(&binary, &todo, args.caps(), args.jobs, csv_path)
}

/// Run `todo`'s trials, at most `caps` executions each, on `jobs`
/// workers, appending each row to `csv_path` as it finishes.
pub fn run_all(
    binary: &Path,
    todo: &[(Program, &Line, u64)],
    caps: Caps,
    jobs: usize,
    csv_path: &Path,
) -> Result<()> {
    eprintln!("{} trials to run on {} workers", todo.len(), jobs);
    let next = AtomicUsize::new(0);
    let out = Mutex::new(OpenOptions::new().append(true).open(csv_path)?);
    let scratch = std::env::temp_dir().join(format!("rankcheck-strategies-{}", std::process::id()));
    std::thread::scope(|scope| -> Result<()> {
        let workers: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((program, line, seed)) = todo.get(i) else {
                            return Ok(());
                        };
                        let cap = caps.of(program);
                        let Some(trial) = run_trial(binary, program, line, *seed, cap, &scratch)?
                        else {
                            continue;
                        };
                        let line = format!("{}\n", row(&trial).join(","));
                        let mut file = out.lock().unwrap_or_else(|e| e.into_inner());
                        file.write_all(line.as_bytes())?;
                        if i.is_multiple_of(200) {
                            eprintln!("{i}/{} trials", todo.len());
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        }
        Ok(())
    })?;
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// The first seed of the confirmation trials: far from the seeds of the
/// comparison, so that they are fresh draws.
const CONFIRM_FIRST_SEED: u64 = 1_000_000;

/// Measure again, on `args.confirm_seeds` fresh seeds, the default and
/// the line that looked best on each program where the default looked
/// more than 3x slower: the line was picked as the fastest of many on 20
/// seeds, so its mean there is biased low (the winner's curse), and fresh
/// seeds give both an unbiased mean.
fn confirm(args: &StrategiesArgs, trials: &[Trial], confirm_path: &Path) -> Result<()> {
    let names = report::lines(trials);
    let flagged = report::slowdowns(trials, &names);
    let programs = programs()?;
    let default = &LINES[0];
    let mut todo = Vec::new();
    for slow in flagged.iter().filter(|s| s.ratio > report::MAX_SLOWDOWN) {
        let Some(program) = programs.iter().find(|p| p.name == slow.program) else {
            continue;
        };
        let Some(best) = LINES
            .iter()
            .find(|l| line_name(l.strategy, l.parameters) == slow.line)
        else {
            continue;
        };
        for line in [default, best] {
            for seed in CONFIRM_FIRST_SEED..CONFIRM_FIRST_SEED + args.confirm_seeds {
                todo.push((program.clone(), line, seed));
            }
        }
    }
    // The corner windows held to PCTVB at depth 2 over one variable.
    let corner = LINES
        .iter()
        .find(|l| line_name(l.strategy, l.parameters) == report::CORNER_LINE);
    for program in programs
        .iter()
        .filter(|p| report::is_corner_target(&p.name))
    {
        let over = report::corner_ratio(trials, &program.name)
            .is_some_and(|(_, _, ratio)| ratio > report::MAX_SLOWDOWN);
        for line in [default].into_iter().chain(corner).filter(|_| over) {
            for seed in CONFIRM_FIRST_SEED..CONFIRM_FIRST_SEED + args.confirm_seeds {
                let trial = (program.clone(), line, seed);
                if !todo.iter().any(|t| same_trial(t, &trial)) {
                    todo.push(trial);
                }
            }
        }
    }
    start_csv(confirm_path)?;
    if todo.is_empty() {
        return Ok(());
    }
    run_all(
        &build_current()?,
        &todo,
        args.caps(),
        args.jobs,
        confirm_path,
    )
}

/// Whether two trials to run are the same (program, line, seed).
fn same_trial(a: &(Program, &Line, u64), b: &(Program, &Line, u64)) -> bool {
    a.0.name == b.0.name && std::ptr::eq(a.1, b.1) && a.2 == b.2
}

/// An empty trials CSV at `path`: the header only.
pub fn start_csv(path: &Path) -> Result<()> {
    let mut writer = csv::Writer::from_path(path)?;
    writer.write_record(COLUMNS)?;
    writer.flush()?;
    Ok(())
}

/// One trial: the binary searches `program` with `line`'s flags and
/// `seed`, stopping at the first failure or at `cap` executions. `None`
/// when the line does not apply to the program (it asks for more
/// variables than the program has): no row, and a blank in the tables.
fn run_trial(
    binary: &Path,
    program: &Program,
    line: &Line,
    seed: u64,
    cap: u64,
    scratch: &Path,
) -> Result<Option<Trial>> {
    let output = Command::new(binary)
        .arg("check")
        .args(line.flags)
        .args(
            program
                .defines
                .iter()
                .flat_map(|(name, value)| ["-D".to_string(), format!("{name}={value}")]),
        )
        .args(["--jobs", "1", "--format", "json", "--runs"])
        .arg(cap.to_string())
        .arg("--seed")
        .arg(seed.to_string())
        .arg("--replay-dir")
        .arg(scratch)
        .arg(&program.path)
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    let code = output.status.code();
    let said = String::from_utf8_lossy(&output.stderr);
    if code == Some(2) && said.contains("to choose from") {
        return Ok(None);
    }
    if !matches!(code, Some(0 | 1)) {
        bail!(
            "{} with {:?} seed {seed} exited with {code:?}: {}",
            program.path.display(),
            line.flags,
            said
        );
    }
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("{}: no JSON", program.path.display()))?;
    let failure = &json["first_failure"];
    // Only the search's own runs count: every line makes the same
    // preparatory random runs, which are not the strategy's.
    let by_search = failure["found_by"] == "search";
    let executions = if by_search {
        failure["run"].as_u64().context("first_failure.run")?
    } else {
        json["runs"].as_u64().context("runs")?
    };
    Ok(Some(Trial {
        program: program.name.clone(),
        group: program.group.to_string(),
        strategy: line.strategy.to_string(),
        parameters: line.parameters.to_string(),
        seed,
        executions,
        found: by_search,
        seconds: json["elapsed_s"].as_f64().unwrap_or(0.0),
    }))
}

/// A trial's CSV fields, in [`COLUMNS`] order (no field holds a comma).
fn row(t: &Trial) -> [String; 8] {
    [
        t.program.clone(),
        t.group.clone(),
        t.strategy.clone(),
        t.parameters.clone(),
        t.seed.to_string(),
        t.executions.to_string(),
        t.found.to_string(),
        format!("{:.4}", t.seconds),
    ]
}

/// Every row of the CSV.
pub fn read(path: &Path) -> Result<Vec<Trial>> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut trials = Vec::new();
    for (i, row) in reader.deserialize().enumerate() {
        let trial: Trial = row.with_context(|| format!("{}: row {}", path.display(), i + 2))?;
        trials.push(trial);
    }
    Ok(trials)
}

/// Per (program, line): the trials, for the report.
pub fn by_line(trials: &[Trial]) -> BTreeMap<(String, String), Vec<&Trial>> {
    let mut map: BTreeMap<(String, String), Vec<&Trial>> = BTreeMap::new();
    for t in trials {
        map.entry((t.program.clone(), line_name(&t.strategy, &t.parameters)))
            .or_default()
            .push(t);
    }
    map
}

/// How a line is named in tables and the figure.
pub fn line_name(strategy: &str, parameters: &str) -> String {
    if parameters.is_empty() {
        strategy.to_string()
    } else {
        format!("{strategy} {parameters}")
    }
}
