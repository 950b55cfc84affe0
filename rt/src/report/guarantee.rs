//! The guarantee a clean search returns: the summary's numbers, and its
//! text as the command prints it, and its one-line headline.

use std::fmt;

use rankcheck_report::summary::{summary_headline, summary_text, SummaryJson};
use rankcheck_report::words::count;

use crate::memory::model::HISTORY;
use crate::memory::MemoryModel;
use crate::wake::{WakeCount, Wakes};

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
    /// The lowest confidence over the settings (`None`: some setting
    /// claims no bound).
    pub confidence: Option<f64>,
    /// The spurious wake-ups the runs made (scheduling choices).
    pub spurious_wakeups: u64,
    /// The timeouts the runs' timed waits made (scheduling choices).
    pub timeouts: u64,
    /// The memory model the guarantee covers.
    pub memory_model: MemoryModel,
    text: String,
    headline: String,
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

impl Guarantee {
    /// The guarantee `summary` states, of a search by `strategy`.
    pub(crate) fn of(summary: &SummaryJson, strategy: &'static str) -> Guarantee {
        Guarantee {
            runs: summary.runs,
            seed: summary.seed,
            strategy,
            settings: summary
                .settings
                .iter()
                .map(|s| SettingGuarantee {
                    depth: s.depth,
                    vars: s.vars,
                    runs: s.runs,
                    bound: s.bound,
                    confidence: s.confidence,
                })
                .collect(),
            confidence: summary.confidence,
            spurious_wakeups: 0,
            timeouts: 0,
            memory_model: MemoryModel::Sc,
            text: summary_text(summary),
            headline: summary_headline(summary),
        }
    }

    /// With the spurious wake-ups and timeouts the runs made (`made`),
    /// within their budgets per run (`most`), counted and stated.
    pub(crate) fn with_wakes(mut self, made: WakeCount, most: Wakes) -> Guarantee {
        self.spurious_wakeups = made.spurious;
        self.timeouts = made.timeouts;
        if made != WakeCount::default() {
            self.text.push_str(&format!(
                "the runs woke spuriously {} and timed out {} (at most {} and {} per run)\n",
                times(made.spurious),
                times(made.timeouts),
                most.spurious,
                most.timeouts
            ));
        }
        self
    }
}

impl Guarantee {
    /// With the memory model the runs explored stated: what the guarantee
    /// covers, and, under weak memory, the loads whose choice among older
    /// stores the history bound (`HISTORY` stores per atomic) cut.
    pub(crate) fn with_memory(mut self, model: MemoryModel, cut: u64) -> Guarantee {
        self.memory_model = model;
        self.text
            .push_str(&format!("memory model covered: {}\n", model.covers()));
        if cut > 0 {
            self.text.push_str(&format!(
                "the history bound ({HISTORY} stores per atomic) cut the choices of {} \
                 (an older store might have been readable)\n",
                count(cut, "load", "loads")
            ));
        }
        self
    }
}

/// `1 time`, `3 times`.
pub(crate) fn times(n: u64) -> String {
    count(n, "time", "times")
}

impl Guarantee {
    /// The guarantee in one line: the runs, then the setting with the
    /// weakest guarantee (what a passing test prints).
    pub fn headline(&self) -> &str {
        &self.headline
    }
}

impl fmt::Display for Guarantee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
