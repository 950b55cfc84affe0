//! Settings from the environment, read by every check, so that CI and
//! nightly campaigns steer tests without editing them:
//! `RANKCHECK_SEED` (the master seed), `RANKCHECK_RUNS` (the run count),
//! `RANKCHECK_TIME` (a time budget, as `--time`: `90s`, `10m`, `1.5h`) and
//! `RANKCHECK_REPLAY` (a replay string: the check reruns that run instead
//! of searching). They win over the builder's settings. Two more make a
//! check a chunk of a nightly campaign (crate::campaign):
//! `RANKCHECK_RECORDS` (a file the check appends its shard records to) and
//! `RANKCHECK_FIRST_RUN` (the index of its first run). A value that does
//! not parse is refused, naming the variable.

use std::path::PathBuf;
use std::time::Duration;

use rankcheck_engine::guarantee::parse_duration;

use crate::builder::Builder;

/// What the environment asks of a check.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// `RANKCHECK_SEED`.
    pub seed: Option<u64>,
    /// `RANKCHECK_RUNS`.
    pub runs: Option<u64>,
    /// `RANKCHECK_TIME`.
    pub time: Option<Duration>,
    /// `RANKCHECK_REPLAY`.
    pub replay: Option<String>,
    /// `RANKCHECK_RECORDS`.
    pub records: Option<PathBuf>,
    /// `RANKCHECK_FIRST_RUN`.
    pub first_run: Option<u64>,
}

impl Overrides {
    /// The overrides `lookup` (a variable's value by name) gives, or the
    /// first variable whose value is bad, with why.
    pub fn read(lookup: impl Fn(&str) -> Option<String>) -> Result<Overrides, String> {
        let number = |name: &str| -> Result<Option<u64>, String> {
            lookup(name)
                .map(|text| {
                    text.trim()
                        .parse::<u64>()
                        .map_err(|_| format!("rankcheck: {name}={text:?} is not a whole number"))
                })
                .transpose()
        };
        let time = lookup("RANKCHECK_TIME")
            .map(|text| {
                parse_duration(text.trim())
                    .map_err(|why| format!("rankcheck: RANKCHECK_TIME={text:?}: {why}"))
            })
            .transpose()?;
        Ok(Overrides {
            seed: number("RANKCHECK_SEED")?,
            runs: number("RANKCHECK_RUNS")?,
            time,
            replay: lookup("RANKCHECK_REPLAY").filter(|r| !r.trim().is_empty()),
            records: lookup("RANKCHECK_RECORDS")
                .filter(|r| !r.trim().is_empty())
                .map(PathBuf::from),
            first_run: number("RANKCHECK_FIRST_RUN")?,
        })
    }

    /// The process's environment's overrides.
    ///
    /// # Panics
    /// On a bad value, naming the variable.
    #[track_caller]
    pub fn from_env() -> Overrides {
        match Overrides::read(|name| std::env::var(name).ok()) {
            Ok(overrides) => overrides,
            Err(why) => panic!("{why}"),
        }
    }

    /// `builder` with the overrides applied: a run count or a time budget
    /// from the environment replaces both of the builder's.
    pub fn apply(&self, builder: &Builder) -> Builder {
        let mut builder = builder.clone();
        if let Some(seed) = self.seed {
            builder.seed = Some(seed);
        }
        if self.runs.is_some() || self.time.is_some() {
            builder.runs = self.runs;
            builder.time = self.time;
        }
        if let Some(first) = self.first_run {
            builder.first_run = first;
        }
        builder
    }
}

/// A time budget written `text` in the setting `name` (the test
/// attribute's `time = "..."`).
///
/// # Panics
/// When it does not parse, naming the setting.
#[track_caller]
pub fn duration(name: &str, text: &str) -> Duration {
    match parse_duration(text.trim()) {
        Ok(duration) => duration,
        Err(why) => panic!("rankcheck: {name} = {text:?}: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<Overrides, String> {
        Overrides::read(|name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn values_parse_and_bad_ones_name_their_variable() {
        let o = read(&[("RANKCHECK_SEED", "7"), ("RANKCHECK_TIME", "2m")]).unwrap();
        assert_eq!((o.records.clone(), o.first_run), (None, None));
        assert_eq!(o.seed, Some(7));
        assert_eq!(o.time, Some(Duration::from_secs(120)));
        assert_eq!(o.runs, None);
        let bad = read(&[("RANKCHECK_RUNS", "many")]).unwrap_err();
        assert!(bad.contains("RANKCHECK_RUNS"), "{bad}");
        let bad = read(&[("RANKCHECK_FIRST_RUN", "-1")]).unwrap_err();
        assert!(bad.contains("RANKCHECK_FIRST_RUN"), "{bad}");
        let bad = read(&[("RANKCHECK_TIME", "5 parsecs")]).unwrap_err();
        assert!(bad.contains("RANKCHECK_TIME"), "{bad}");
    }

    #[test]
    fn a_count_or_budget_from_the_environment_replaces_the_builders() {
        let builder = Builder::new().runs(10).seed(1);
        let o = read(&[("RANKCHECK_TIME", "1s")]).unwrap();
        let applied = o.apply(&builder);
        assert_eq!(applied.runs, None);
        assert_eq!(applied.time, Some(Duration::from_secs(1)));
        assert_eq!(applied.seed, Some(1));
    }
}
