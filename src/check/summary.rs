//! The closing summary of a checked program, built from what the command
//! line asked and the search did; the report crate renders it (text, JSON
//! and CSV).

use rankcheck_report::failure::FailureJson;
use rankcheck_report::summary::{SearchFacts, SkippedJson, SummaryJson};
use rankcheck_stats::HitRate;

use crate::plan::scheme;

use super::run::Checked;

/// The summary of a checked program, with its failure if there was one.
pub fn summary_json(checked: &Checked, failure: Option<FailureJson>) -> SummaryJson {
    let args = checked.args;
    let prepared = &checked.prepared;
    let result = &checked.result;
    let search = SummaryJson::of_search(&SearchFacts {
        program: checked.path.display().to_string(),
        strategy: args.strategy().name(),
        scheme: scheme(args),
        seed: prepared.seed,
        profile: &prepared.profile,
        names: &*prepared.loaded.program,
        plan: Some(&prepared.plan),
        bounds: &prepared.bounds,
        runs: result.runs,
        failures: result.failures,
        elapsed_s: checked.elapsed,
        target_confidence: args.confidence,
    });
    let hit = args
        .keep_going
        .then(|| HitRate::new(result.failures, result.runs).ok())
        .flatten();
    let interval = hit.and_then(|h| h.clopper_pearson(args.confidence).ok());
    SummaryJson {
        depth: args.depth,
        vars_asked: args.vars.as_ref().map(ToString::to_string),
        threads: args.threads,
        runs_capped: prepared.runs_capped,
        interrupted: checked.interrupted,
        skipped: prepared
            .skipped
            .iter()
            .map(|s| SkippedJson {
                depth: s.depth,
                tracking: s.vars.clone(),
                reason: s.reason.clone(),
            })
            .collect(),
        hit_rate: hit.map(|h| h.estimate()),
        hit_rate_low: interval.map(|i| i.lower),
        hit_rate_high: interval.map(|i| i.upper),
        first_failure: failure,
        ..search
    }
}
