//! Shrinking a failing schedule (docs/ALGORITHMS.md, Shrinking): search, by
//! deterministic replay, for a smaller schedule that fails the same way
//! (same [`crate::identity::Identity`]), first with fewer preemptions
//! (switches away from a thread that could have gone on, to one that was
//! not just made runnable: as under priorities), then fewer
//! context switches, then fewer steps; then mark the critical switches,
//! those without which the failure is lost.
//!
//! A schedule is reduced to its decisions ([`guided`]): where it did not
//! keep the thread that ran (or, when that one cannot go on, did not take
//! the lowest-numbered thread). Dropping a preemptive decision removes a
//! preemption; dropping any decision, or choosing another thread where the
//! running one stopped, may remove switches or steps. A candidate is kept
//! only when it fails the same way and is smaller, in the order
//! (preemptions, switches, steps), so every step of the search is an
//! improvement and it ends. The decisions are dropped in halves, then
//! quarters, down to one at a time (as delta debugging does), then tried
//! again while anything improves: the result is locally minimal, no
//! single decision can be dropped (as in dejafu's and Hermit's
//! shrinkers). Then preemption bounding looks for a schedule with fewer
//! preemptions anywhere, 0 first, then 1, up to one fewer than found, and
//! shrinks what it finds locally: run to its end, the reported schedule
//! has the fewest preemptions any schedule failing the same way has.
//!
//! The engine never reads the clock: the front end's [`Replayer`] says
//! when to stop, and the search keeps the smallest schedule found so far.

pub mod guided;
mod vm;

pub use guided::{DecisionKey, Decisions, Guided, PointRecord};
pub use vm::VmReplayer;

use crate::id::ThreadId;

/// How big a schedule is; smaller is compared in field order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size {
    /// Preemptions: switches away from a thread that could have gone on,
    /// to one that could run before ([`PointRecord::preemptive`]).
    pub preemptions: u64,
    /// Points where another thread ran than the one before.
    pub switches: u64,
    /// Scheduling points.
    pub steps: u64,
}

impl Size {
    /// The size of a guided run.
    pub fn of(records: &[PointRecord]) -> Size {
        Size {
            preemptions: records.iter().filter(|r| r.preemptive()).count() as u64,
            switches: records.iter().filter(|r| r.switch()).count() as u64,
            steps: records.len() as u64,
        }
    }
}

/// How a replay of a candidate ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It failed the same way as the schedule being shrunk.
    Same,
    /// It passed, or failed another way.
    Other,
    /// Time is up: the search stops without this replay's answer.
    Stop,
}

/// What shrinking replays with: the front end's execution of a program
/// under a [`Guided`] scheduler, and its clock.
pub trait Replayer {
    /// Whether the time for shrinking is up.
    fn out_of_time(&mut self) -> bool;

    /// Run once under `guided`, whatever the time: whether it failed the
    /// same way.
    fn replay_anyway(&mut self, guided: &mut Guided) -> bool;

    /// A smaller schedule was found (for a progress line).
    fn improved(&mut self, _size: Size, _replays: u64) {}

    /// Run once under `guided` unless time is up.
    fn replay(&mut self, guided: &mut Guided) -> Verdict {
        if self.out_of_time() {
            Verdict::Stop
        } else if self.replay_anyway(guided) {
            Verdict::Same
        } else {
            Verdict::Other
        }
    }
}

/// A shrunk schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shrunk {
    /// The schedule: the thread chosen at every point.
    pub schedule: Vec<ThreadId>,
    /// The size of the schedule it started from.
    pub before: Size,
    /// Its size.
    pub after: Size,
    /// The points (from 0) where it preempts: the step after each runs
    /// another thread than one that could have gone on.
    pub preemptions: Vec<u64>,
    /// The points of its critical switches: its decisions without which
    /// it no longer fails the same way.
    pub critical: Vec<u64>,
    /// Replays made.
    pub replays: u64,
    /// Whether the search ran to its end (false: time ran out first, and
    /// this is the smallest schedule found by then).
    pub complete: bool,
}

/// Time ran out.
struct Stopped;

/// How many decisions are tried for criticality even when time is up: a
/// shrunk schedule's few switches get their marks, a huge one that time
/// cut short does not hold the report up.
const CRITICAL_AFTER_TIME: usize = 16;

/// Shrink `schedule`, which fails under `replayer`. `None` when replaying
/// it does not fail the same way (or time is up before it did).
pub fn shrink(schedule: &[ThreadId], replayer: &mut dyn Replayer) -> Option<Shrunk> {
    let mut first = Guided::schedule(schedule);
    if replayer.replay(&mut first) != Verdict::Same {
        return None;
    }
    Some(shrink_from(first, replayer))
}

/// Shrink from `first`, a run under [`Guided::schedule`] that failed the
/// way `replayer` compares with (a front end that has just run the
/// failing schedule for its trace, under a [`Guided`], saves a replay).
pub fn shrink_from(first: Guided, replayer: &mut dyn Replayer) -> Shrunk {
    let before = Size::of(first.records());
    let mut shrinker = Shrinker {
        replayer,
        size: before,
        best: first,
        replays: 1,
    };
    let searched = shrinker.search();
    let critical = shrinker.critical();
    let records = shrinker.best.records();
    Shrunk {
        schedule: shrinker.best.taken(),
        before,
        after: shrinker.size,
        preemptions: points(records, PointRecord::preemptive),
        critical,
        replays: shrinker.replays,
        complete: searched.is_ok(),
    }
}

/// The points whose record `pick` keeps.
fn points(records: &[PointRecord], pick: fn(&PointRecord) -> bool) -> Vec<u64> {
    (0..records.len() as u64)
        .filter(|&i| pick(&records[i as usize]))
        .collect()
}

/// Whether a point is a decision: not what the default would choose.
fn decision(record: &PointRecord) -> bool {
    record.chosen != record.default
}

/// The search's state: the smallest failing run so far.
struct Shrinker<'r> {
    replayer: &'r mut dyn Replayer,
    best: Guided,
    size: Size,
    replays: u64,
}

impl Shrinker<'_> {
    /// Shrink the schedule found locally (drop preemptions, then any
    /// decision, then retarget forced switches, while any of them finds
    /// something smaller), then look for one with fewer preemptions
    /// anywhere, fewest first, and shrink what it finds the same way.
    fn search(&mut self) -> Result<(), Stopped> {
        self.local()?;
        for budget in 0..self.size.preemptions {
            if self.bounded(Vec::new(), budget)? {
                return self.local();
            }
        }
        Ok(())
    }

    /// Drop and retarget decisions while anything improves.
    fn local(&mut self) -> Result<(), Stopped> {
        loop {
            let fewer_preemptions = self.drop_decisions(PointRecord::preemptive)?;
            let fewer_decisions = self.drop_decisions(decision)?;
            let retargeted = self.retarget()?;
            if !(fewer_preemptions || fewer_decisions || retargeted) {
                return Ok(());
            }
        }
    }

    /// Every schedule that follows `prefix`, then deviates from the
    /// default with at most `budget` preemptions (and any choice where
    /// the running thread stopped), depth first: preemption bounding
    /// (Musuvathi and Qadeer, PLDI 2007), each schedule run once, as it
    /// first deviates. Whether one failed the same way and was kept.
    fn bounded(&mut self, prefix: Vec<ThreadId>, budget: u64) -> Result<bool, Stopped> {
        let mut guided = Guided::schedule(&prefix);
        let verdict = self.run(&mut guided)?;
        if verdict == Verdict::Same && Size::of(guided.records()) < self.size {
            return Ok(self.keep(guided));
        }
        let records = guided.records();
        for (point, record) in records.iter().enumerate().skip(prefix.len()) {
            for &other in record.enabled.iter().filter(|&&t| t != record.chosen) {
                let cost = u64::from(record.costs(other));
                if cost > budget {
                    continue;
                }
                let mut next: Vec<ThreadId> = records[..point].iter().map(|r| r.chosen).collect();
                next.push(other);
                if self.bounded(next, budget - cost)? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Replay `decisions`; keep the run if it fails the same way and is
    /// smaller. Whether it was kept.
    fn attempt(&mut self, decisions: Decisions) -> Result<bool, Stopped> {
        let mut guided = Guided::decisions(decisions);
        if self.run(&mut guided)? != Verdict::Same {
            return Ok(false);
        }
        Ok(self.keep(guided))
    }

    /// Keep a run that failed the same way if it is smaller; whether it
    /// was.
    fn keep(&mut self, guided: Guided) -> bool {
        let size = Size::of(guided.records());
        if size >= self.size {
            return false;
        }
        self.best = guided;
        self.size = size;
        self.replayer.improved(size, self.replays);
        true
    }

    fn run(&mut self, guided: &mut Guided) -> Result<Verdict, Stopped> {
        self.replays += 1;
        match self.replayer.replay(guided) {
            Verdict::Stop => Err(Stopped),
            verdict => Ok(verdict),
        }
    }

    /// The keys of the best run's decisions that `pick` keeps.
    fn keys(&self, pick: fn(&PointRecord) -> bool) -> Vec<DecisionKey> {
        self.best
            .records()
            .iter()
            .filter(|r| decision(r) && pick(r))
            .map(|r| r.key)
            .collect()
    }

    /// Drop the decisions `pick` keeps, in chunks of half of them, then a
    /// quarter, down to one at a time. Whether anything was dropped.
    fn drop_decisions(&mut self, pick: fn(&PointRecord) -> bool) -> Result<bool, Stopped> {
        let mut dropped = false;
        let mut chunk = (self.keys(pick).len() / 2).max(1);
        loop {
            let mut start = 0;
            loop {
                let keys = self.keys(pick);
                if start >= keys.len() {
                    break;
                }
                let mut candidate = self.best.taken_decisions();
                for key in &keys[start..(start + chunk).min(keys.len())] {
                    candidate.remove(key);
                }
                if self.attempt(candidate)? {
                    dropped = true;
                } else {
                    start += chunk;
                }
            }
            if chunk == 1 {
                return Ok(dropped);
            }
            chunk /= 2;
        }
    }

    /// Where the running thread stopped (blocked, finished, or at the
    /// start) and others could run, try each other thread. Whether any
    /// was kept.
    fn retarget(&mut self) -> Result<bool, Stopped> {
        let mut kept = false;
        let mut point = 0;
        while let Some(record) = self.best.records().get(point) {
            point += 1;
            if record.last_enabled || record.enabled.len() < 2 {
                continue;
            }
            let (key, chosen) = (record.key, record.chosen);
            let others: Vec<ThreadId> = record
                .enabled
                .iter()
                .copied()
                .filter(|&t| t != chosen)
                .collect();
            for thread in others {
                let mut candidate = self.best.taken_decisions();
                candidate.insert(key, thread);
                if self.attempt(candidate)? {
                    kept = true;
                    break;
                }
            }
        }
        Ok(kept)
    }

    /// The points of the best run's decisions that it cannot do without:
    /// after time is up, only the first [`CRITICAL_AFTER_TIME`] are tried.
    fn critical(&mut self) -> Vec<u64> {
        let decisions = self.best.taken_decisions();
        let mut critical = Vec::new();
        for (tried, point) in points(self.best.records(), decision)
            .into_iter()
            .enumerate()
        {
            if tried >= CRITICAL_AFTER_TIME && self.replayer.out_of_time() {
                break;
            }
            let key = self.best.records()[point as usize].key;
            let mut without = decisions.clone();
            without.remove(&key);
            self.replays += 1;
            if !self.replayer.replay_anyway(&mut Guided::decisions(without)) {
                critical.push(point);
            }
        }
        critical
    }
}
