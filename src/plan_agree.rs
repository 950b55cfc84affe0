//! Both front ends plan the same search for the same options, the same
//! variables and the same preparatory runs: the command line's
//! `plan_search` against rankcheck-rt's, on generated cases (options of
//! every strategy the registry lists, variables of both kinds, profiles
//! of every shape), compared on what a search does with its plan: the
//! settings, the component that runs each run, every setting's per-run
//! bound, and the runs aimed for; or both refuse.
//!
//! The options are given as each front end takes them: flags parsed by
//! clap, and a `Builder`. The program is a `.rk` text with a `global` or
//! a `mutex` per variable, in rt's terms a variable of kind `AtomicUsize`
//! or `Mutex`. What the front ends set differently on purpose is left
//! equal: rt's weak-memory discount (its memory model here is `Sc`) and
//! the largest run count (given to both).

use std::sync::Arc;

use clap::Parser;
use rankcheck_engine::ir::Program;
use rankcheck_engine::profile::{Profile, VarProfile};
use rankcheck_engine::strategy::planning::PlannedSearch;
use rankcheck_rt::__private::ObjectKind;
use rankcheck_rt::{Builder, Priorities, Strategy, Vars};

use crate::cli::{Cli, Command};

/// Generated cases.
const CASES: u64 = 3_000;

/// The strategies both take, by name, and `None` for the default.
const STRATEGIES: [Option<&str>; 11] = [
    None,
    Some("portfolio"),
    Some("pctvb"),
    Some("pct"),
    Some("random"),
    Some("urw"),
    Some("surw"),
    Some("ksurw"),
    Some("pos"),
    Some("wpos"),
    Some("swpos"),
];

/// A xorshift draw: the cases are the same on every machine.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The variables asked for.
#[derive(Clone, Copy, Debug)]
enum VarsAsked {
    Count(usize),
    All,
    Sync,
    None,
}

/// One case: the program's variables (`true`: a mutex), the preparatory
/// runs' profile, and the options.
#[derive(Debug)]
struct Case {
    mutexes: Vec<bool>,
    profile: Profile,
    strategy: Option<&'static str>,
    depth: Option<u32>,
    vars: Option<VarsAsked>,
    thread_bounded: bool,
    runs: Option<u64>,
    max_runs: u64,
    confidence: f64,
}

fn case(draw: &mut Draw) -> Case {
    let n_vars = 1 + draw.below(5) as usize;
    let mutexes: Vec<bool> = (0..n_vars).map(|_| draw.below(3) == 0).collect();
    let vars = (0..n_vars)
        .map(|_| {
            // Some variables the preparatory runs never saw accessed.
            let max_accesses = [0, 1, 3, 40, 1_000][draw.below(5) as usize];
            VarProfile {
                max_accesses,
                mean_accesses: max_accesses as f64 / 2.0,
                max_threads: 1 + draw.below(3) as usize,
                writes: draw.below(2) * max_accesses,
            }
        })
        .collect::<Vec<_>>();
    let max_accesses = vars.iter().map(|v| v.max_accesses).sum();
    let profile = Profile {
        runs: 20,
        max_threads: 1 + draw.below(4) as usize,
        max_accesses,
        max_steps: max_accesses + draw.below(50),
        vars,
        failure: None,
        instances: Vec::new(),
        threads: Vec::new(),
    };
    // Settings asked for in a third of the cases each: most strategies
    // take none, and refuse them.
    let vars = match draw.below(12) {
        0 => Some(VarsAsked::Count(1 + draw.below(3) as usize)),
        1 => Some(VarsAsked::All),
        2 => Some(VarsAsked::Sync),
        3 => Some(VarsAsked::None),
        _ => None,
    };
    Case {
        mutexes,
        profile,
        strategy: STRATEGIES[draw.below(STRATEGIES.len() as u64) as usize],
        depth: (draw.below(3) == 0).then(|| 1 + draw.below(3) as u32),
        vars,
        thread_bounded: draw.below(4) == 0,
        runs: (draw.below(3) == 0).then(|| 1 + draw.below(5_000)),
        max_runs: [100, 10_000, 1_000_000][draw.below(3) as usize],
        confidence: [0.5, 0.9, 0.99][draw.below(3) as usize],
    }
}

/// The case's program: a `global` or a `mutex` per variable, in order.
fn program(case: &Case) -> Arc<Program> {
    let mut source = String::new();
    for (i, mutex) in case.mutexes.iter().enumerate() {
        if *mutex {
            source.push_str(&format!("mutex m{i};\n"));
        } else {
            source.push_str(&format!("global g{i} = 0;\n"));
        }
    }
    source.push_str("thread t { }\n");
    let compiled = rankcheck_instr::compile_with_warnings(&source, &[]).expect("the case compiles");
    assert_eq!(compiled.program.n_vars(), case.mutexes.len(), "{source}");
    Arc::new(compiled.program)
}

/// The command line's plan for the case, or its refusal.
fn command_line(case: &Case) -> Result<PlannedSearch, String> {
    let mut argv: Vec<String> = vec!["rankcheck".into(), "check".into()];
    let mut flag = |name: &str, value: String| {
        argv.push(format!("--{name}"));
        argv.push(value);
    };
    if let Some(strategy) = case.strategy {
        flag("strategy", strategy.into());
    }
    if let Some(depth) = case.depth {
        flag("depth", depth.to_string());
    }
    if let Some(vars) = case.vars {
        let vars = match vars {
            VarsAsked::Count(v) => v.to_string(),
            VarsAsked::All => "all".into(),
            VarsAsked::Sync => "sync".into(),
            VarsAsked::None => "none".into(),
        };
        flag("vars", vars);
    }
    if case.thread_bounded {
        flag("priorities", "thread-bounded".into());
    }
    if let Some(runs) = case.runs {
        flag("runs", runs.to_string());
    }
    flag("max-runs", case.max_runs.to_string());
    flag("confidence", case.confidence.to_string());
    argv.push("case.rk".into());
    let Command::Check(args) = Cli::try_parse_from(&argv).expect("the flags parse").command else {
        unreachable!("a check");
    };
    super::plan_search(&args, &program(case), &case.profile)
        .map(|(planned, _)| planned)
        .map_err(|error| error.to_string())
}

/// rankcheck-rt's plan for the case, or its refusal.
fn runtime(case: &Case) -> Result<PlannedSearch, String> {
    let mut builder = Builder::new()
        .max_runs(case.max_runs)
        .confidence(case.confidence);
    if let Some(strategy) = case.strategy {
        builder = builder.strategy(Strategy::named(strategy).expect("a registered strategy"));
    }
    if let Some(depth) = case.depth {
        builder = builder.depth(depth);
    }
    if let Some(vars) = case.vars {
        builder = builder.vars(match vars {
            VarsAsked::Count(v) => Vars::Count(v),
            VarsAsked::All => Vars::All,
            VarsAsked::Sync => Vars::Sync,
            VarsAsked::None => Vars::None,
        });
    }
    if case.thread_bounded {
        builder = builder.priorities(Priorities::ThreadBounded);
    }
    if let Some(runs) = case.runs {
        builder = builder.runs(runs);
    }
    let kind = |mutex: &bool| match mutex {
        true => ObjectKind::Mutex,
        false => ObjectKind::AtomicUsize,
    };
    let kinds = case.mutexes.iter().map(kind);
    rankcheck_rt::__private::plan_search(&builder, &case.profile, kinds)
}

/// What a search does with a plan.
#[derive(Debug, PartialEq)]
struct Planned {
    name: &'static str,
    settings: Vec<String>,
    components: Vec<(&'static str, Option<usize>)>,
    bounds: Vec<Option<f64>>,
    runs_target: u64,
    runs_capped: bool,
}

impl From<PlannedSearch> for Planned {
    fn from(planned: PlannedSearch) -> Planned {
        let plan = &planned.plan;
        Planned {
            name: plan.name(),
            settings: plan.settings().iter().map(|s| format!("{s:?}")).collect(),
            components: (0..64)
                .map(|run| {
                    let component = plan.component(run);
                    (component.name, component.setting)
                })
                .collect(),
            bounds: planned.bounds.iter().map(|b| b.map(|b| b.ln())).collect(),
            runs_target: planned.runs_target,
            runs_capped: planned.runs_capped,
        }
    }
}

#[test]
fn both_front_ends_plan_the_same_search_on_generated_cases() {
    let mut draw = Draw(0x9E37_79B9_7F4A_7C15);
    let (mut planned, mut refused) = (0, 0);
    for index in 0..CASES {
        let case = case(&mut draw);
        match (command_line(&case), runtime(&case)) {
            (Ok(cli), Ok(rt)) => {
                assert_eq!(Planned::from(cli), Planned::from(rt), "case {index}: {case:#?}");
                planned += 1;
            }
            (Err(_), Err(_)) => refused += 1,
            (cli, rt) => panic!(
                "case {index}: one front end plans, the other refuses:\n  command line: {:?}\n  rt: {:?}\n{case:#?}",
                cli.map(Planned::from),
                rt.map(Planned::from)
            ),
        }
    }
    // The cases reach both outcomes, most of them a plan.
    assert!(
        planned > CASES / 2 && refused > 0,
        "{planned} planned, {refused} refused"
    );
}
