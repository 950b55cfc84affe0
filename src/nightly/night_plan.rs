//! The night's plan: the ordered list of chunks, each a range of runs of
//! one stream, built greedily so that the time goes where evidence is
//! thinnest. Every shard builds the same plan from the same inputs (the
//! history before this night, this night's bounds), and takes the chunks
//! that a fixed mix of their index assigns to it (`ShardSpec::owns`):
//! shards never overlap, and together they are exactly the unsharded night.
//!
//! Every stream gets its first chunk before the greedy order starts, so
//! every program and setting is tried every night: a known failure is met
//! again (or shows as gone), however strong the stream's bound already is.
//! A stream that does the same work whatever its runs (a Rust test that
//! only explores, `StreamStart::once`) gets that first chunk alone.

use rankcheck_stats::Probability;

use super::stream::night_base;

/// What the plan knows of one stream.
#[derive(Clone, Debug)]
pub struct StreamStart {
    /// `ln` of the miss probability the history has accumulated (0: none).
    pub ln_miss: f64,
    /// Clean runs in the history, for streams without a bound.
    pub clean_runs: u64,
    /// This night's per-run bound.
    pub bound: Option<Probability>,
    /// The suite's weight of the program.
    pub weight: f64,
    /// Whether one chunk a night is all the stream can use: a Rust test
    /// whose only work is an exploration, the same schedules every time.
    pub once: bool,
}

/// One chunk of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedChunk {
    /// Its place in the plan, from 0.
    pub index: u64,
    /// The stream it belongs to.
    pub stream: usize,
    /// Its first run index.
    pub first_run: u64,
    /// Runs in it.
    pub runs: u64,
}

/// The plan, produced chunk by chunk: finite with a run budget, endless
/// with a time budget.
#[derive(Clone, Debug)]
pub struct NightPlan {
    /// Per stream: accumulated `ln` miss (history and chunks planned).
    ln_miss: Vec<f64>,
    /// Per stream: `ln(1 - p)` per clean run, negative.
    per_run: Vec<f64>,
    weight: Vec<f64>,
    /// Per stream: whether it gets its first chunk alone.
    once: Vec<bool>,
    /// Per stream: runs planned this night so far.
    planned: Vec<u64>,
    chunk_runs: u64,
    /// Runs left to plan; `None` with a time budget.
    left: Option<u64>,
    next_index: u64,
    base: u64,
}

impl NightPlan {
    /// The stream the next chunk goes to: each in turn for the first
    /// round, then the thinnest.
    fn next_stream(&self) -> Option<usize> {
        let first_round = self.next_index as usize;
        if first_round < self.ln_miss.len() {
            return Some(first_round);
        }
        self.thinnest()
    }
}

/// Evidence per run credited to a stream without a bound (random search,
/// thread-bounded priorities) when no stream has one.
const UNBOUNDED_PER_RUN: f64 = -1e-3;

impl NightPlan {
    /// The plan of night `night_index` over `streams`, in chunks of
    /// `chunk_runs`, with `budget` runs in all (`None`: no end).
    pub fn new(
        streams: &[StreamStart],
        night_index: u64,
        chunk_runs: u64,
        budget: Option<u64>,
    ) -> NightPlan {
        let bounded: Vec<f64> = streams
            .iter()
            .filter_map(|s| s.bound.map(|b| b.ln_complement()))
            .filter(|ln| *ln < 0.0)
            .collect();
        // A stream without a bound is credited as the weakest bounded
        // stream of the night: it gets at least that stream's share.
        let weakest = bounded
            .iter()
            .copied()
            .reduce(f64::max)
            .unwrap_or(UNBOUNDED_PER_RUN);
        let per_run: Vec<f64> = streams
            .iter()
            .map(|s| match s.bound {
                Some(b) if b.ln_complement() < 0.0 => b.ln_complement(),
                _ => weakest,
            })
            .collect();
        let ln_miss = streams
            .iter()
            .zip(&per_run)
            .map(|(s, per)| match s.bound {
                Some(_) => s.ln_miss,
                None => s.clean_runs as f64 * per,
            })
            .collect();
        NightPlan {
            ln_miss,
            per_run,
            weight: streams.iter().map(|s| s.weight).collect(),
            once: streams.iter().map(|s| s.once).collect(),
            planned: vec![0; streams.len()],
            chunk_runs: chunk_runs.max(1),
            left: budget,
            next_index: 0,
            base: night_base(night_index),
        }
    }

    /// The stream whose weighted evidence is thinnest (lowest index on a
    /// tie): `ln_miss / weight` is highest; never a stream that runs once.
    fn thinnest(&self) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (i, (&ln, &w)) in self.ln_miss.iter().zip(&self.weight).enumerate() {
            if self.once[i] {
                continue;
            }
            let score = ln / w;
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((i, score));
            }
        }
        best.map(|(i, _)| i)
    }
}

impl Iterator for NightPlan {
    type Item = PlannedChunk;

    fn next(&mut self) -> Option<PlannedChunk> {
        let chunk_runs = match self.left {
            Some(0) => return None,
            Some(left) => left.min(self.chunk_runs),
            None => self.chunk_runs,
        };
        let stream = self.next_stream()?;
        // A stream that runs once does its whole work whatever it is
        // given: it takes one run of the budget, not a chunk's.
        let runs = if self.once[stream] { 1 } else { chunk_runs };
        let chunk = PlannedChunk {
            index: self.next_index,
            stream,
            first_run: self.base + self.planned[stream],
            runs,
        };
        self.next_index += 1;
        self.planned[stream] += runs;
        self.ln_miss[stream] += runs as f64 * self.per_run[stream];
        if let Some(left) = &mut self.left {
            *left -= runs;
        }
        Some(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(p: f64, weight: f64) -> StreamStart {
        StreamStart {
            ln_miss: 0.0,
            clean_runs: 0,
            bound: Some(Probability::new(p).unwrap()),
            weight,
            once: false,
        }
    }

    #[test]
    fn a_run_budget_is_planned_exactly_in_consecutive_ranges() {
        let plan: Vec<PlannedChunk> =
            NightPlan::new(&[stream(0.5, 1.0), stream(0.01, 1.0)], 2, 100, Some(1050)).collect();
        assert_eq!(plan.iter().map(|c| c.runs).sum::<u64>(), 1050);
        assert_eq!(plan.last().unwrap().runs, 50);
        for s in 0..2 {
            let mut next = 2 << 40;
            for c in plan.iter().filter(|c| c.stream == s) {
                assert_eq!(c.first_run, next, "stream {s} ranges are consecutive");
                next += c.runs;
            }
        }
        // The strong stream (p = 1/2) is done after its first chunk: 100
        // runs miss with probability 2^-100, below anything the weak one
        // reaches.
        assert_eq!(plan.iter().filter(|c| c.stream == 0).count(), 1);
    }

    #[test]
    fn weight_and_history_move_runs_to_where_evidence_is_thin() {
        let mut known = stream(0.01, 1.0);
        known.ln_miss = -20.0;
        let plan: Vec<PlannedChunk> = NightPlan::new(
            &[known, stream(0.01, 1.0), stream(0.01, 2.0)],
            0,
            100,
            Some(3000),
        )
        .collect();
        let runs = |s| {
            plan.iter()
                .filter(|c| c.stream == s)
                .map(|c| c.runs)
                .sum::<u64>()
        };
        assert_eq!(
            runs(0),
            100,
            "the stream with history gets its first chunk only"
        );
        assert!(runs(2) > runs(1) * 3 / 2, "{} against {}", runs(2), runs(1));
    }

    #[test]
    fn a_stream_that_runs_once_gets_one_chunk_of_one_run() {
        let once = StreamStart {
            once: true,
            ..stream(0.5, 100.0)
        };
        let plan: Vec<PlannedChunk> =
            NightPlan::new(&[stream(0.5, 1.0), once], 0, 100, Some(1000)).collect();
        let mine: Vec<&PlannedChunk> = plan.iter().filter(|c| c.stream == 1).collect();
        assert_eq!(mine.len(), 1, "{plan:?}");
        assert_eq!((mine[0].index, mine[0].runs), (1, 1));
        assert_eq!(plan.iter().map(|c| c.runs).sum::<u64>(), 1000);
        let endless = NightPlan::new(&[once_only()], 0, 100, None);
        assert_eq!(
            endless.count(),
            1,
            "a time budget ends when nothing can use it"
        );
    }

    fn once_only() -> StreamStart {
        StreamStart {
            once: true,
            ..stream(0.5, 1.0)
        }
    }
}
