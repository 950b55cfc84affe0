//! `rankcheck PROGRAM`: test a program and report the first failure or the
//! runs done.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::search::Failure;
use rankcheck_engine::{
    search, Executable, Instrumentation, Limits, RandomScheduler, ReplayFile, SearchConfig,
};

use crate::cli::{Format, StrategyArg, TestArgs};
use crate::load::{load, Loaded};
use crate::report::{failure_text, trace, FailureJson, TestJson};

/// Run the search `args` describes.
pub fn check(args: &TestArgs) -> Result<ExitCode> {
    let Some(path) = args.program.as_deref() else {
        anyhow::bail!("no program given")
    };
    let loaded = load(path, &args.define)?;
    let program = loaded.program.clone();
    let exe = Executable::new(program.clone(), &Instrumentation::all(&program));
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let limits = Limits {
        max_steps: args.max_steps,
        ..Limits::default()
    };
    let config = SearchConfig {
        runs: args.runs,
        seed,
        limits,
        keep_going: args.keep_going,
    };

    let progress = progress_bar(args.runs, args.format);
    let started = Instant::now();
    let result = match args.strategy {
        StrategyArg::Random => search(&exe, &config, RandomScheduler::new, |done| {
            if done % 1024 == 0 {
                progress.set_position(done);
            }
            true
        }),
    };
    let elapsed = started.elapsed().as_secs_f64();
    progress.finish_and_clear();

    let mut json = TestJson {
        program: path.display().to_string(),
        strategy: args.strategy.name().to_string(),
        seed,
        runs: result.runs,
        failures: result.failures,
        elapsed_s: elapsed,
        executions_per_s: if elapsed > 0.0 {
            result.runs as f64 / elapsed
        } else {
            0.0
        },
        n: result.max_threads,
        k: result.max_steps,
        q: program.n_vars(),
        first_failure: None,
    };
    let Some(failure) = &result.first_failure else {
        match args.format {
            Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
            Format::Human => outln!(
                "no failure in {} runs of {} (strategy {}, seed {seed}, {:.2}s, {:.0} runs/s)\n\
                 n = {} threads, k = {} scheduling points at most, Q = {} variables",
                result.runs,
                path.display(),
                json.strategy,
                elapsed,
                json.executions_per_s,
                json.n,
                json.k,
                json.q
            ),
        }
        return Ok(ExitCode::SUCCESS);
    };

    let traced = trace(&exe, limits, &failure.schedule, &loaded.file).map_err(|_| {
        anyhow::anyhow!(
            "internal error: the failing schedule of run {} did not replay",
            failure.run
        )
    })?;
    let replay = write_replay(args, path, &loaded, seed, failure);
    let replay_path = match &replay {
        Ok(p) => Some(p.display().to_string()),
        Err(error) => {
            eprintln!("warning: {error:#}");
            None
        }
    };
    match args.format {
        Format::Json => {
            json.first_failure = Some(FailureJson::new(
                failure.run,
                &traced,
                &loaded.file,
                replay_path,
            ));
            outln!("{}", serde_json::to_string_pretty(&json)?);
        }
        Format::Human => {
            out!("{}", failure_text(&traced, &loaded.file));
            outln!(
                "\nfound in run {} of {} (strategy {}, seed {seed}, {:.2}s){}",
                failure.run,
                args.runs,
                json.strategy,
                elapsed,
                if args.keep_going {
                    format!("; {} of {} runs failed", result.failures, result.runs)
                } else {
                    String::new()
                }
            );
            if let Some(p) = replay_path {
                outln!("replay: rankcheck replay {p}");
            }
        }
    }
    Ok(ExitCode::from(1))
}

/// A seed for a run that was given none: different every time, and printed.
fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    rankcheck_engine::search::run_seed(nanos as u64, u64::from(std::process::id()))
}

fn progress_bar(runs: u64, format: Format) -> ProgressBar {
    if format == Format::Json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(runs), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {per_sec} ({eta} left)")
    {
        bar.set_style(style);
    }
    bar
}

/// Write the failure's replay file into the replay directory.
fn write_replay(
    args: &TestArgs,
    path: &Path,
    loaded: &Loaded,
    seed: u64,
    failure: &Failure,
) -> Result<PathBuf> {
    let file = ReplayFile {
        program: path.display().to_string(),
        fingerprint: fingerprint(loaded.file.source(), &args.define),
        defines: args.define.clone(),
        strategy: args.strategy.name().to_string(),
        tracking: "all".to_string(),
        seed,
        run: failure.run,
        max_steps: args.max_steps,
        kind: failure.bug.kind.name().to_string(),
        schedule: failure.schedule.clone(),
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into());
    std::fs::create_dir_all(&args.replay_dir).with_context(|| {
        format!(
            "cannot create replay directory {}",
            args.replay_dir.display()
        )
    })?;
    let out = args
        .replay_dir
        .join(format!("{stem}-seed{seed}-run{}.replay", failure.run));
    std::fs::write(&out, file.to_text())
        .with_context(|| format!("cannot write replay file {}", out.display()))?;
    Ok(out)
}
