//! Where replay files go and how they find their program again.
//!
//! Replay files are kept in one place, `.rankcheck/replays/` under the
//! current directory unless `--replay-dir` says otherwise, and named after
//! the program, its fingerprint (source and `-D` values) and the run, so
//! that different runs, or the same program with other `-D` values, never
//! overwrite each other. A file names its program relative to its own
//! directory, so it replays from any working directory.

use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result};
use rankcheck_engine::{InstanceKey, Program, ReplayFile, VarId};

use crate::invocation::shown;
use crate::output_file::announce;

/// Write `file` (whose `program` is the path as the user gave it) into
/// `dir` as `STEM-FINGERPRINT-SUFFIX.replay`, and say so; the path
/// written.
pub fn save(dir: &Path, program: &Path, mut file: ReplayFile, suffix: &str) -> Result<PathBuf> {
    let stem = program
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into());
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create replay directory {}", dir.display()))?;
    let short = file.fingerprint.get(..8).unwrap_or(&file.fingerprint);
    let out = dir.join(format!("{stem}-{short}-{suffix}.replay"));
    file.program = relative_to(program, dir);
    std::fs::write(&out, file.to_text())
        .with_context(|| format!("cannot write replay file {}", out.display()))?;
    announce(&out);
    Ok(out)
}

/// `program` as a path from `dir`, or absolute when there is none.
fn relative_to(program: &Path, dir: &Path) -> String {
    let (Ok(program), Ok(dir)) = (program.canonicalize(), dir.canonicalize()) else {
        return program.display().to_string();
    };
    let shared = program
        .components()
        .zip(dir.components())
        .take_while(|(a, b)| a == b)
        .count();
    if shared == 0 {
        return program.display().to_string();
    }
    let mut relative = PathBuf::new();
    for component in dir.components().skip(shared) {
        if matches!(component, Component::Normal(_)) {
            relative.push("..");
        }
    }
    for component in program.components().skip(shared) {
        relative.push(component);
    }
    relative.display().to_string()
}

/// The program a replay file at `replay` names: relative to the file's
/// directory, else (as older files and hand-written ones do) relative to
/// the current directory; as a user reads it (`examples/x.rk`, never
/// `.rankcheck/replays/../../examples/x.rk`).
pub fn program_of(replay: &Path, recorded: &str) -> Result<PathBuf> {
    let recorded_path = Path::new(recorded);
    let beside = replay
        .parent()
        .map(|dir| dir.join(recorded_path))
        .filter(|p| p.is_file());
    if let Some(found) = beside {
        return Ok(shown(&found));
    }
    if recorded_path.is_file() {
        return Ok(recorded_path.to_path_buf());
    }
    anyhow::bail!(
        "{} names the program `{recorded}`, which is neither beside it ({}) nor in the current directory: give the program with --program PATH",
        replay.display(),
        replay
            .parent()
            .map(|d| d.join(recorded_path).display().to_string())
            .unwrap_or_default()
    )
}

/// The `tracking` line of a replay file: `all`, or `vars` and the tracked
/// variables as `id:name`, then `instances` and tracked heap instances as
/// `var:context:index` (context in hex).
pub fn tracking_line(
    program: &Program,
    vars: Option<&[VarId]>,
    instances: &[InstanceKey],
) -> String {
    let Some(vars) = vars else {
        return "all".into();
    };
    let mut line = String::from("vars");
    for v in vars {
        line.push_str(&format!(
            " {}:{}",
            v.0,
            program.vars[v.index()].name.replace(' ', "_")
        ));
    }
    if !instances.is_empty() {
        line.push_str(" instances");
        for key in instances {
            line.push_str(&format!(" {}:{:x}:{}", key.var.0, key.context, key.index));
        }
    }
    line
}

/// What a tracking line says: the tracked variables (`None`: every one)
/// and the tracked instances, checked against `program`.
pub fn parse_tracking(
    program: &Program,
    line: &str,
) -> Result<(Option<Vec<VarId>>, Vec<InstanceKey>), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let list = match words.as_slice() {
        ["all"] => return Ok((None, Vec::new())),
        ["vars", list @ ..] => list,
        _ => return Err(format!("unknown tracking `{line}`")),
    };
    let split = list
        .iter()
        .position(|item| *item == "instances")
        .unwrap_or(list.len());
    let mut vars = Vec::new();
    for item in &list[..split] {
        let id = item.split(':').next().and_then(|id| id.parse::<u32>().ok());
        match id {
            Some(id) if (id as usize) < program.n_vars() => vars.push(VarId(id)),
            _ => return Err(format!("bad tracked variable `{item}`")),
        }
    }
    let mut instances = Vec::new();
    for item in list.iter().skip(split + 1) {
        let parts: Vec<&str> = item.split(':').collect();
        let key = match parts.as_slice() {
            [var, context, index] => (|| {
                let var = var
                    .parse::<u32>()
                    .ok()
                    .filter(|&v| (v as usize) < program.n_vars())?;
                Some(InstanceKey {
                    var: VarId(var),
                    context: u64::from_str_radix(context, 16).ok()?,
                    index: index.parse().ok()?,
                })
            })(),
            _ => None,
        };
        instances.push(key.ok_or_else(|| {
            format!("bad tracked instance `{item}` (expected VAR:CONTEXT:INDEX)")
        })?);
    }
    Ok((Some(vars), instances))
}
