//! Streams: each (program fingerprint, setting) of a campaign is a search
//! of its own with a single setting, seeded by a stream seed derived from
//! the suite seed, the fingerprint and the setting's key, so that streams
//! are independent and a stream's runs on different nights are different
//! runs of one seed stream (docs/ALGORITHMS.md, Nightly campaigns).
//! [`setting_label`] is a stream's key as reports and figures show it.

use std::path::PathBuf;

use anyhow::Result;
use rankcheck_engine::profile::{profile, Profile};
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::search::run_seed;
use rankcheck_engine::strategy::{Executables, Instrumenter, Part, PrioritySetting, VarSelection};
use rankcheck_engine::{Executable, Instrumentation, Limits, PriorityScheme};
use rankcheck_stats::Probability;

use crate::cli::{CheckArgs, Format, ProgramOptions, DEFAULT_REPLAY_DIR};
use crate::guarantee::per_run_bound;
use crate::load::{load, Loaded};
use crate::plan::{instrumenter, names, plan, scheme, Plan};

use super::suite::{SuiteProgram, DEFAULT_MAX_STEPS};

/// Bits of a run index below a night's: night `n` owns runs
/// `[n << NIGHT_SHIFT, (n + 1) << NIGHT_SHIFT)` of every stream.
pub const NIGHT_SHIFT: u32 = 40;

/// A program of the suite, loaded and profiled for one night, with its
/// streams.
pub struct ProgramRun {
    /// Its entry in the suite.
    pub spec: SuiteProgram,
    /// The program.
    pub loaded: Loaded,
    /// The fingerprint of its source and `-D` values.
    pub fingerprint: String,
    /// The instrumentation of a tracked set.
    pub instrumenter: Instrumenter,
    /// Its executables by tracked set, which the streams' runs share.
    pub executables: Executables,
    /// The priority scheme.
    pub scheme: PriorityScheme,
    /// Execution limits.
    pub limits: Limits,
    /// Its streams, one per setting.
    pub streams: Vec<Stream>,
}

impl ProgramRun {
    /// Its path as the suite gives it: the file of its failures' identity.
    pub fn path(&self) -> String {
        self.spec.path.display().to_string()
    }
}

/// One (program, setting) stream.
#[derive(Clone)]
pub struct Stream {
    /// The setting key, such as `pctvb d=2 v=1 pct`.
    pub key: String,
    /// The stream seed.
    pub seed: u64,
    /// This night's per-run bound (none for random, sampling or
    /// thread-bounded).
    pub bound: Option<Probability>,
    /// The search: one component of the entry's plan, alone.
    pub plan: Plan,
}

/// Load `spec`, run its preparatory runs for night `night_index`, and
/// build a stream per setting.
pub fn program_run(spec: &SuiteProgram, suite_seed: u64, night_index: u64) -> Result<ProgramRun> {
    let loaded = load(&spec.path, &spec.define)?;
    let fingerprint = fingerprint(loaded.file.source(), &spec.define);
    let args = check_args(spec);
    let limits = Limits {
        max_steps: spec.max_steps,
        ..Limits::default()
    };
    // The profile is measured again each night, on a seed of its own that
    // every shard of the night derives alike, so all shards plan alike.
    let all_tracked = Executable::new(
        loaded.program.clone(),
        &Instrumentation::all(&loaded.program),
    );
    let program_seed = run_seed(suite_seed, fnv64(fingerprint.as_bytes()));
    let profile = profile(
        &all_tracked,
        spec.profile_runs,
        run_seed(program_seed, u64::MAX - night_index),
        limits,
    );
    let instrumenter = instrumenter(&loaded.program);
    let scheme = scheme(&args);
    let (plan, _skipped) = plan(&args, &loaded.program, &profile)?;
    let steps = if spec.max_steps == DEFAULT_MAX_STEPS {
        String::new()
    } else {
        format!(" steps={}", spec.max_steps)
    };
    let built = Built {
        spec,
        loaded: &loaded,
        fingerprint: &fingerprint,
        suite_seed,
        steps,
    };
    // A stream per component of the plan: the portfolio's sampling
    // strategies and priority settings, a priority search's settings, or
    // the strategy itself.
    let streams = plan
        .parts()
        .into_iter()
        .map(|part| built.stream(part, scheme, &profile))
        .collect();
    let executables = Executables::new(loaded.program.clone(), instrumenter.clone());
    Ok(ProgramRun {
        spec: spec.clone(),
        loaded,
        fingerprint,
        instrumenter,
        executables,
        scheme,
        limits,
        streams,
    })
}

/// What every stream of one program is built from.
struct Built<'a> {
    spec: &'a SuiteProgram,
    loaded: &'a Loaded,
    fingerprint: &'a str,
    suite_seed: u64,
    /// The key's suffix for a step limit other than the default.
    steps: String,
}

impl Built<'_> {
    /// The stream of `part`: keyed by its setting (with its bound) when it
    /// is one, else by its strategy's name.
    fn stream(&self, part: Part, scheme: PriorityScheme, profile: &Profile) -> Stream {
        let (key, bound) = match &part.setting {
            Some(setting) => (
                setting_key(self.spec, self.loaded, part.plan.name(), setting, scheme),
                per_run_bound(setting, scheme, profile),
            ),
            None => (part.plan.name().to_owned(), None),
        };
        let key = format!("{key}{}", self.steps);
        Stream {
            seed: stream_seed(self.suite_seed, self.fingerprint, &key),
            key,
            bound,
            plan: part.plan,
        }
    }
}

/// The `check` options an entry amounts to, so that settings are chosen
/// exactly as `check` chooses them.
fn check_args(spec: &SuiteProgram) -> CheckArgs {
    CheckArgs {
        programs: vec![spec.path.clone()],
        options: ProgramOptions {
            define: spec.define.clone(),
            max_steps: spec.max_steps,
            profile_runs: spec.profile_runs,
            seed: None,
            jobs: None,
            format: Format::Human,
        },
        strategy_flag: Some(spec.strategy),
        plot: None,
        depth: spec.depth,
        vars: spec.vars.clone(),
        track: spec.track.clone(),
        priorities: spec.priorities,
        threads: None,
        runs: None,
        time: None,
        max_runs: Some(1),
        confidence: 0.99,
        keep_going: false,
        shrink_time: std::time::Duration::ZERO,
        no_shrink: true,
        replay_dir: PathBuf::from(DEFAULT_REPLAY_DIR),
    }
}

/// A setting's stable key: the name of its runs' strategy (`name`: `pct`
/// for the portfolio's PCT settings, `pctvb` for its PCTVB ones), depth,
/// variables, priorities, as in `pctvb d=2 v=1 pct`, `pct d=3 v=all pct`,
/// `pctvb d=1 v=none pct`, and `track=a,b` when the entry restricts the
/// variables.
pub fn setting_key(
    spec: &SuiteProgram,
    loaded: &Loaded,
    name: &str,
    setting: &PrioritySetting,
    scheme: PriorityScheme,
) -> String {
    let vars = match &setting.vars {
        VarSelection::All { .. } => "all".to_string(),
        VarSelection::Fixed(vars) if vars.is_empty() => "none".to_string(),
        VarSelection::Fixed(vars) => names(&loaded.program, vars).replace(", ", ","),
        VarSelection::Drawn { count, .. } => count.to_string(),
    };
    // Only a strategy that takes settings takes `track` (planning refuses
    // it elsewhere).
    let track = if spec.track.is_empty() || !spec.strategy.takes_settings() {
        String::new()
    } else {
        format!(" track={}", spec.track.join(","))
    };
    format!(
        "{name} d={} v={vars} {}{track}",
        setting.depth,
        scheme.name()
    )
}

/// A setting's key as reports and figures show it: without the priority
/// scheme when it is the default (`pct d=1 v=none`, not `pct d=1 v=none
/// pct`). The key itself stays as stored: it seeds the stream and names it
/// in the history.
pub fn setting_label(key: &str) -> String {
    let words: Vec<&str> = key.split(' ').collect();
    // The scheme is the word after `v=...`; the strategy's own name (`pct
    // d=3 ...`) comes first and stays.
    let is_default_scheme = |i: usize| {
        i > 0 && words[i - 1].starts_with("v=") && words[i] == PriorityScheme::Pct.name()
    };
    (0..words.len())
        .filter(|&i| !is_default_scheme(i))
        .map(|i| words[i])
        .collect::<Vec<_>>()
        .join(" ")
}

/// The strategy of a setting's runs, as its key names it first (`pctvb`
/// of `pctvb d=2 v=1 pct`, `urw`): the name its colour goes by.
pub fn setting_strategy(key: &str) -> &str {
    key.split(' ').next().unwrap_or(key)
}

/// The seed of the stream `(fingerprint, key)` in a suite seeded
/// `suite_seed`.
pub fn stream_seed(suite_seed: u64, fingerprint: &str, key: &str) -> u64 {
    let mut bytes = fingerprint.as_bytes().to_vec();
    bytes.push(0);
    bytes.extend_from_slice(key.as_bytes());
    run_seed(suite_seed, fnv64(&bytes))
}

/// FNV-1a, 64 bits.
fn fnv64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The first run index of night `night_index`.
pub fn night_base(night_index: u64) -> u64 {
    night_index << NIGHT_SHIFT
}

#[cfg(test)]
mod tests {
    use super::setting_label;

    #[test]
    fn labels_drop_the_default_scheme_only() {
        assert_eq!(setting_label("pct d=1 v=none pct"), "pct d=1 v=none");
        assert_eq!(
            setting_label("pctvb d=2 v=1 pct track=a,b"),
            "pctvb d=2 v=1 track=a,b"
        );
        assert_eq!(
            setting_label("pctvb d=2 v=1 thread-bounded"),
            "pctvb d=2 v=1 thread-bounded"
        );
        assert_eq!(setting_label("urw"), "urw");
    }
}
