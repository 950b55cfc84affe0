//! `rankcheck replay FILE`: re-run one recorded execution with its trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::{Executable, InstanceKey, Instrumentation, Limits, ReplayFile, VarId};

use crate::cli::{Format, ReplayArgs};
use crate::load::load;
use crate::plan::instrumenter;
use crate::report::{failure_text, trace, FailureJson, ReplayMismatch};

/// Replay the file `args` names. Exit 1 when the failure reproduces.
pub fn replay(args: &ReplayArgs) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let file = ReplayFile::parse(&text)
        .with_context(|| format!("{} is not a valid replay file", args.file.display()))?;
    let path = args
        .program
        .clone()
        .unwrap_or_else(|| PathBuf::from(&file.program));
    let loaded = load(&path, &file.defines)?;
    let now = fingerprint(loaded.file.source(), &file.defines);
    if now != file.fingerprint {
        bail!(
            "{} was recorded for another version of {} (fingerprint {}, but the program now has {}): \
             the program or its -D values changed since, so the schedule would not mean the same",
            args.file.display(),
            path.display(),
            file.fingerprint,
            now
        );
    }
    let program = loaded.program.clone();
    let mut instances = Vec::new();
    let instrumentation = match file
        .tracking
        .split_whitespace()
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["all"] => Instrumentation::all(&program),
        ["vars", list @ ..] => {
            let split = list
                .iter()
                .position(|item| *item == "instances")
                .unwrap_or(list.len());
            let mut vars = Vec::new();
            for item in &list[..split] {
                let id = item.split(':').next().and_then(|id| id.parse::<u32>().ok());
                match id {
                    Some(id) if (id as usize) < program.n_vars() => vars.push(VarId(id)),
                    _ => bail!("{}: bad tracked variable `{item}`", args.file.display()),
                }
            }
            for item in list.iter().skip(split + 1) {
                let parts: Vec<&str> = item.split(':').collect();
                let key = match parts.as_slice() {
                    [var, context, index] => (|| {
                        let var = var
                            .parse::<u32>()
                            .ok()
                            .filter(|&v| (v as usize) < program.n_vars())?;
                        let context = u64::from_str_radix(context, 16).ok()?;
                        Some(InstanceKey {
                            var: VarId(var),
                            context,
                            index: index.parse().ok()?,
                        })
                    })(),
                    _ => None,
                };
                match key {
                    Some(key) => instances.push(key),
                    None => bail!(
                        "{}: bad tracked instance `{item}` (expected VAR:CONTEXT:INDEX)",
                        args.file.display()
                    ),
                }
            }
            instrumenter(&program)(&program, &vars)
        }
        _ => bail!(
            "{}: unknown tracking `{}`",
            args.file.display(),
            file.tracking
        ),
    };
    let exe = Executable::with_instances(program, &instrumentation, &instances);
    let limits = Limits {
        max_steps: file.max_steps,
        ..Limits::default()
    };
    let traced = match trace(&exe, limits, &file.schedule, &loaded.file) {
        Ok(traced) => traced,
        Err(ReplayMismatch::Passed) => bail!(
            "the replay ran to completion without the recorded {} failure",
            file.kind
        ),
        Err(ReplayMismatch::Diverged { step }) => {
            bail!("the schedule does not fit the program: at step {} it names a thread that cannot run", step + 1)
        }
    };
    match args.format {
        Format::Json => {
            let json = FailureJson::new(
                file.run,
                &traced,
                &loaded.file,
                Some(args.file.display().to_string()),
            );
            outln!("{}", serde_json::to_string_pretty(&json)?);
        }
        Format::Human => {
            out!("{}", failure_text(&traced, &loaded.file));
            outln!(
                "\nreplayed run {} of strategy {} with seed {} from {}",
                file.run,
                file.strategy,
                file.seed,
                args.file.display()
            );
        }
    }
    Ok(ExitCode::from(1))
}
