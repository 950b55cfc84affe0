//! The history figure of each program of a campaign: per setting, the runs
//! its current version has accumulated night by night and the guarantee
//! they earned, with the nights a failure appeared marked. The numbers come
//! from the history's night-by-night evidence, the drawing from
//! `rankcheck-plot`.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use rankcheck_history::{History, StreamNights};
use rankcheck_plot::{history_svg, NightPoint, NightSeries};

use super::stream::{setting_label, setting_strategy};

/// One program's history figure.
pub struct HistoryFigure {
    /// The program's name in the history.
    pub program: String,
    /// Its current fingerprint.
    pub fingerprint: String,
    /// The nights drawn.
    pub nights: usize,
    /// Its streams, one series each, as drawn.
    pub streams: Vec<StreamNights>,
    /// The SVG document.
    pub svg: String,
}

/// The figure of every program in the history, by name; `target` is the
/// confidence drawn as a line.
pub fn history_figures(history: &History, target: f64) -> Result<Vec<HistoryFigure>> {
    let mut programs: BTreeMap<String, Vec<StreamNights>> = BTreeMap::new();
    for stream in history.nightly_evidence()? {
        programs
            .entry(stream.program.clone())
            .or_default()
            .push(stream);
    }
    programs
        .into_iter()
        .map(|(program, streams)| figure(program, streams, target))
        .collect()
}

/// Draw one program's streams.
fn figure(program: String, streams: Vec<StreamNights>, target: f64) -> Result<HistoryFigure> {
    let plotted = rankcheck_plot::History {
        program: program.clone(),
        target,
        series: streams.iter().map(series).collect(),
    };
    let svg = history_svg(&plotted).with_context(|| format!("drawing the history of {program}"))?;
    let mut nights: Vec<u64> = streams
        .iter()
        .flat_map(|s| s.nights.iter().map(|n| n.night_index))
        .collect();
    nights.sort_unstable();
    nights.dedup();
    Ok(HistoryFigure {
        fingerprint: streams
            .first()
            .map(|s| s.fingerprint.clone())
            .unwrap_or_default(),
        program,
        nights: nights.len(),
        streams,
        svg,
    })
}

/// A stream's nights as a plotted series named after its setting.
fn series(stream: &StreamNights) -> NightSeries {
    NightSeries {
        setting: setting_label(&stream.setting),
        strategy: setting_strategy(&stream.setting).to_string(),
        nights: stream
            .nights
            .iter()
            .map(|n| NightPoint {
                night: n.night.clone(),
                index: n.night_index,
                runs: n.runs,
                confidence: n.confidence(),
                failures: n.failures,
            })
            .collect(),
    }
}
