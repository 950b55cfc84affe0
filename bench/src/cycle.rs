//! How the default search's cycle is chosen (`rankcheck-bench cycle`,
//! `results/cycle.md`). From the strategy benchmark's trials (and, where
//! a strategy finds a bug within a few hundred runs, more seeds of it in
//! `results/cycle_extra.csv`: there the cycle's choice is decided, and 20
//! seeds leave a hit rate about 22% off), each strategy's per-run hit rate
//! on each program: the bugs it found over the executions it ran. A cycle
//! then has an expected number of executions to each program's first bug,
//! which this compares with the fastest line's (`1 / rate`). The search
//! (simulated annealing over cycles of 3 to 32 components, always with
//! PCT d=1 and d=3 and PCTVB d=2 v=1, whose runs earn the guarantee)
//! minimises the largest ratio over the corpus, and must find every bug
//! within the cap.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use anyhow::Result;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rankcheck_engine::strategy::default_search::cycle_lines;

use crate::cli::CycleArgs;
use crate::strategies::{self, line_name, Trial, LINES};
use crate::workload::{commit, root};

/// The lines a cycle can be made of: the sampling strategies, PCT's
/// settings and PCTVB's (the engine's `default_search` names each so).
const COMPONENTS: [&str; 12] = [
    "urw",
    "swpos",
    "pos",
    "surw",
    "ksurw",
    "wpos",
    "pct d=1",
    "pct d=2",
    "pct d=3",
    "pctvb d=2 v=1",
    "pctvb d=3 v=1",
    "pctvb d=3 v=2",
];

/// The components every cycle keeps: the settings whose runs earn the
/// guarantee the summary states, PCT's over every variable and PCTVB's
/// per variable.
const REQUIRED: [&str; 3] = ["pct d=1", "pct d=3", "pctvb d=2 v=1"];

/// Seeds of the extra trials start here, far from the comparison's and
/// the confirmation's.
const EXTRA_FIRST_SEED: u64 = 7_000;

/// A strategy measures more seeds on a program where its mean executions
/// to the bug are below this.
const EXTRA_BELOW: f64 = 300.0;

pub fn run(args: &CycleArgs) -> Result<()> {
    let trials = strategies::read(&root().join("results/strategies.csv"))?;
    let extra_path = root().join("results/cycle_extra.csv");
    if args.extra_seeds > 0 {
        measure_extra(args, &trials, &extra_path)?;
    }
    let mut all = trials;
    if extra_path.exists() {
        all.extend(strategies::read(&extra_path)?);
    }
    let model = Model::new(&all, args.cap);
    let current = cycle_lines();
    let best = anneal(&model, &current, args.seed);
    let md = markdown(&model, &current, &best, args);
    std::fs::write(root().join("results/cycle.md"), md)?;
    eprintln!("wrote results/cycle.md");
    Ok(())
}

/// Run `args.extra_seeds` more seeds of every component line on every
/// program where its 20-seed mean is below [`EXTRA_BELOW`], keeping the
/// trials `path` already has: an interrupted measurement resumes.
fn measure_extra(args: &CycleArgs, trials: &[Trial], path: &std::path::Path) -> Result<()> {
    let programs = strategies::programs()?;
    let by_line = strategies::by_line(trials);
    let done: BTreeSet<(String, String, u64)> = if path.exists() {
        strategies::read(path)?
            .into_iter()
            .map(|t| (t.program, line_name(&t.strategy, &t.parameters), t.seed))
            .collect()
    } else {
        strategies::start_csv(path)?;
        BTreeSet::new()
    };
    let mut todo = Vec::new();
    // Every line finds the trivial programs' bugs in a run or two: they
    // never decide the cycle.
    for program in programs.iter().filter(|p| p.group() != "trivial") {
        for line in LINES
            .iter()
            .filter(|l| COMPONENTS.contains(&line_name(l.strategy, l.parameters).as_str()))
        {
            let name = line_name(line.strategy, line.parameters);
            let Some(rows) = by_line.get(&(program.name.clone(), name.clone())) else {
                continue;
            };
            let mean = rows.iter().map(|t| t.executions as f64).sum::<f64>() / rows.len() as f64;
            if mean < EXTRA_BELOW {
                for seed in EXTRA_FIRST_SEED..EXTRA_FIRST_SEED + args.extra_seeds {
                    if !done.contains(&(program.name.clone(), name.clone(), seed)) {
                        todo.push((program.clone(), line, seed));
                    }
                }
            }
        }
    }
    let binary = crate::baseline::build_current()?;
    let caps = strategies::Caps {
        corpus: args.cap,
        scaled: args.scaled_cap,
    };
    strategies::run_all(&binary, &todo, caps, args.jobs, path)
}

/// Per-run hit rates and the fastest line per program.
struct Model {
    /// Programs whose bug some line found.
    programs: Vec<String>,
    /// Hits per execution, by (program, line).
    rates: BTreeMap<(String, String), f64>,
    /// Per program: the fastest line's expected executions and its name.
    fastest: BTreeMap<String, (f64, String)>,
    cap: u64,
}

impl Model {
    fn new(trials: &[Trial], cap: u64) -> Model {
        let mut counts: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
        for t in trials {
            let entry = counts
                .entry((t.program.clone(), line_name(&t.strategy, &t.parameters)))
                .or_default();
            entry.0 += u64::from(t.found);
            entry.1 += t.executions;
        }
        let rates: BTreeMap<(String, String), f64> = counts
            .into_iter()
            .map(|(key, (hits, runs))| (key, hits as f64 / runs.max(1) as f64))
            .collect();
        let mut fastest: BTreeMap<String, (f64, String)> = BTreeMap::new();
        for ((program, line), &rate) in &rates {
            if line == "default" || rate <= 0.0 {
                continue;
            }
            let expected = 1.0 / rate;
            let best = fastest
                .entry(program.clone())
                .or_insert((f64::INFINITY, String::new()));
            if expected < best.0 {
                *best = (expected, line.clone());
            }
        }
        let programs: BTreeSet<String> = fastest.keys().cloned().collect();
        Model {
            programs: programs.into_iter().collect(),
            rates,
            fastest,
            cap,
        }
    }

    fn rate(&self, program: &str, line: &str) -> f64 {
        self.rates
            .get(&(program.to_string(), line.to_string()))
            .copied()
            .unwrap_or(0.0)
    }

    /// Expected executions to the first bug of `program` under `cycle`
    /// (capped), and the chance it is still not found at the cap.
    fn expected(&self, cycle: &[String], program: &str) -> (f64, f64) {
        let rates: Vec<f64> = cycle.iter().map(|l| self.rate(program, l)).collect();
        let (mut total, mut missed) = (0.0, 1.0);
        for i in 0..self.cap as usize {
            total += missed;
            missed *= 1.0 - rates[i % rates.len()];
            if missed < 1e-9 {
                break;
            }
        }
        (total, missed)
    }

    /// Per program: the cycle's ratio to the fastest line, largest first;
    /// `None` when the cycle misses a bug at the cap more than once in a
    /// thousand searches.
    fn ratios(&self, cycle: &[String]) -> Option<Vec<(f64, &str)>> {
        let mut ratios = Vec::new();
        for program in &self.programs {
            let (expected, missed) = self.expected(cycle, program);
            if missed > 1e-3 {
                return None;
            }
            ratios.push((expected / self.fastest[program].0, program.as_str()));
        }
        ratios.sort_by(|a, b| b.0.total_cmp(&a.0));
        Some(ratios)
    }

    /// The largest ratio, with a small pull towards lowering the others
    /// too; infinite for a cycle that is not allowed.
    fn score(&self, cycle: &[String]) -> f64 {
        if !REQUIRED.iter().all(|r| cycle.iter().any(|c| c == r)) {
            return f64::INFINITY;
        }
        let Some(ratios) = self.ratios(cycle) else {
            return f64::INFINITY;
        };
        let spread: f64 = ratios.iter().map(|(r, _)| (4.0 * r).exp()).sum();
        ratios[0].0 + 1e-6 * spread
    }
}

/// Simulated annealing from `start`: the best cycle seen.
fn anneal(model: &Model, start: &[String], seed: u64) -> Vec<String> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut best = (model.score(start), start.to_vec());
    for _restart in 0..4 {
        let mut current = (model.score(start), start.to_vec());
        let mut temperature = 0.3;
        for _ in 0..4000 {
            let next = mutate(&current.1, &mut rng);
            let score = model.score(&next);
            if score <= current.0
                || rng.random::<f64>() < (-(score - current.0) / temperature).exp()
            {
                current = (score, next);
            }
            if current.0 < best.0 {
                best = current.clone();
            }
            temperature *= 0.999;
        }
    }
    best.1
}

/// A random neighbour: one component replaced, two swapped, one inserted
/// or one removed.
fn mutate(cycle: &[String], rng: &mut Pcg64Mcg) -> Vec<String> {
    let mut next = cycle.to_vec();
    let pick = |rng: &mut Pcg64Mcg| COMPONENTS[rng.random_range(0..COMPONENTS.len())].to_string();
    let roll = rng.random::<f64>();
    let len = next.len();
    if roll < 0.4 {
        next[rng.random_range(0..len)] = pick(rng);
    } else if roll < 0.7 {
        next.swap(rng.random_range(0..len), rng.random_range(0..len));
    } else if roll < 0.85 && len < 32 {
        let at = rng.random_range(0..=len);
        next.insert(at, pick(rng));
    } else if len > 3 {
        next.remove(rng.random_range(0..len));
    }
    next
}

fn markdown(model: &Model, current: &[String], best: &[String], args: &CycleArgs) -> String {
    let mut md = String::from("# The default search's cycle\n\n");
    let _ = writeln!(
        md,
        "Written by `cargo run --release -p rankcheck-bench -- cycle --extra-seeds {} --seed {}` at commit {} from `strategies.csv` and `cycle_extra.csv`. Each line's per-run hit rate on a program is the bugs it found over the executions it ran; a cycle's expected executions to the first bug follow from the rates of its components in order, and are compared with the fastest line's, `1 / rate` (every line of the strategy benchmark, the default excepted). The search keeps PCT d=1, PCT d=3 and PCTVB d=2 v=1, whose runs earn the summary's guarantees, and cycles of 3 to 32 runs.\n",
        args.extra_seeds,
        args.seed,
        commit()
    );
    for (title, cycle) in [
        ("The cycle in the engine", current),
        ("The best cycle found", best),
    ] {
        let _ = writeln!(md, "## {title}\n\n`{}`\n", cycle.join(", "));
        let Some(ratios) = model.ratios(cycle) else {
            let _ = writeln!(md, "It misses a bug at the cap.\n");
            continue;
        };
        let _ = writeln!(
            md,
            "| program | expected executions | fastest line | its executions | ratio |\n| --- | ---: | --- | ---: | ---: |"
        );
        for (ratio, program) in ratios.iter().take(8) {
            let (fastest, line) = &model.fastest[*program];
            let (expected, _) = model.expected(cycle, program);
            let _ = writeln!(
                md,
                "| {program} | {expected:.1} | {line} | {fastest:.1} | {ratio:.2}x |"
            );
        }
        md.push('\n');
    }
    md
}
