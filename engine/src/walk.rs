//! Uniform random walks over events: URW, and its selective variant SURW
//! (Zhao, Wolff, Mathur and Roychoudhury, "Selectively Uniform Concurrency
//! Testing", ASPLOS 2025).
//!
//! A random walk that picks among enabled threads uniformly favours
//! interleavings where the threads alternate early: a thread with many
//! events left is as likely to run as one with a single event left. URW
//! instead picks a thread with probability proportional to the events it
//! has left, which samples every interleaving of the threads' events with
//! the same probability when the counts are right. The counts come from
//! the preparatory runs ([`crate::profile::ThreadProfile`]); a thread's
//! count includes the events of the children it has yet to spawn, since
//! until then their events can only happen after its own spawn.
//!
//! SURW spends that uniformity on the events that matter: the accesses of
//! one target variable per run (chosen by [`surw_targets`] and
//! [`draw_target`]). The thread whose target access comes next is drawn
//! in proportion to the target accesses each thread has left; a thread
//! about to access the target waits ("is held") until the draw names it,
//! and meanwhile the other threads' steps are chosen by weighted partial
//! order sampling ([`crate::pos`]), so that bugs that also need an
//! interleaving elsewhere stay in reach.
//!
//! Kind-weighted SURW (rankcheck's own) weighs each thread's target
//! accesses by one over the number of threads spawned at its place (the
//! profile's `spawn_site`)
//! ([`EventCounts::accesses_by_kind`]), and refines its draw at a spawn
//! rather than drawing again: one thread among many copies of another
//! code then gets even odds of the next target access.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::id::{ThreadId, VarId};
use crate::pos::PosScheduler;
use crate::profile::Profile;
use crate::scheduler::{Point, Scheduler};

/// Consecutive steps free threads may take while others are held at the
/// target: beyond it the free threads are taken to be spinning on
/// something a held thread must do, and a held thread is released.
pub const HELD_STEPS: u32 = 1000;

/// Estimated events per thread id, with the spawn tree that lets a
/// thread's count include its unspawned children's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventCounts {
    /// Events the thread makes itself per run.
    own: Vec<f64>,
    /// Threads each thread spawns, by id.
    children: Vec<Vec<ThreadId>>,
    /// `own` plus every descendant's.
    subtree: Vec<f64>,
}

impl EventCounts {
    /// Counts from per-thread means `own` and each thread's parent. A
    /// parent must have a lower id than its child (it existed first);
    /// other links are ignored.
    pub fn new(own: Vec<f64>, parents: &[Option<ThreadId>]) -> EventCounts {
        let n = own.len().max(parents.len());
        let mut own = own;
        own.resize(n, 0.0);
        let mut children = vec![Vec::new(); n];
        for (child, parent) in parents.iter().enumerate() {
            if let Some(parent) = parent.filter(|p| p.index() < child) {
                children[parent.index()].push(ThreadId(child as u32));
            }
        }
        // Children have higher ids than parents: sum from the last id down.
        let mut subtree = own.clone();
        for t in (0..n).rev() {
            let below: f64 = children[t].iter().map(|c| subtree[c.index()]).sum();
            subtree[t] += below;
        }
        EventCounts {
            own,
            children,
            subtree,
        }
    }

    /// Every step of every thread: what URW weighs.
    pub fn steps(profile: &Profile) -> EventCounts {
        let own = profile.threads.iter().map(|t| t.mean_steps).collect();
        EventCounts::new(own, &parents(profile))
    }

    /// The accesses of `var` (tracked in the preparatory runs): what SURW
    /// weighs.
    pub fn accesses(profile: &Profile, var: VarId) -> EventCounts {
        let own = profile
            .threads
            .iter()
            .map(|t| t.mean_accesses.get(&var).copied().unwrap_or(0.0))
            .collect();
        EventCounts::new(own, &parents(profile))
    }

    /// The accesses of `var`, each thread's divided by the number of
    /// threads spawned where it was (its kind, by
    /// [`ThreadProfile::spawn_site`](crate::profile::ThreadProfile)): what
    /// kind-weighted SURW weighs. Copies of one code count as one thread
    /// together, so a single thread of another kind is not crowded out by
    /// many of the same kind.
    pub fn accesses_by_kind(profile: &Profile, var: VarId) -> EventCounts {
        let sites: Vec<_> = profile.threads.iter().map(|t| t.spawn_site).collect();
        let own = profile
            .threads
            .iter()
            .map(|t| {
                let accesses = t.mean_accesses.get(&var).copied().unwrap_or(0.0);
                let kind = t
                    .spawn_site
                    .map_or(1, |site| sites.iter().filter(|&&s| s == Some(site)).count());
                accesses / kind as f64
            })
            .collect();
        EventCounts::new(own, &parents(profile))
    }

    /// The events `thread` has left after making `done` itself, counting
    /// the children it has not spawned yet (`spawned`: how many threads
    /// the execution has created).
    pub fn remaining(&self, thread: ThreadId, done: f64, spawned: usize) -> f64 {
        let t = thread.index();
        let own = (self.own.get(t).copied().unwrap_or(0.0) - done).max(0.0);
        let unspawned: f64 = self.children.get(t).map_or(0.0, |children| {
            children
                .iter()
                .filter(|c| c.index() >= spawned)
                .map(|c| self.subtree[c.index()])
                .sum()
        });
        own + unspawned
    }
}

fn parents(profile: &Profile) -> Vec<Option<ThreadId>> {
    profile.threads.iter().map(|t| t.parent).collect()
}

/// Pick an index with probability proportional to its weight; `None` when
/// every weight is zero.
fn weighted(rng: &mut Pcg64Mcg, weights: &[f64]) -> Option<usize> {
    let total: f64 = weights.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return None;
    }
    let mut left = rng.random::<f64>() * total;
    for (i, &w) in weights.iter().enumerate() {
        if left < w {
            return Some(i);
        }
        left -= w;
    }
    // Rounding can leave a sliver past the last positive weight.
    weights.iter().rposition(|&w| w > 0.0)
}

/// Counts per thread id of what it has done this run.
pub(crate) fn bump(done: &mut Vec<f64>, thread: ThreadId) {
    if done.len() <= thread.index() {
        done.resize(thread.index() + 1, 0.0);
    }
    done[thread.index()] += 1.0;
}

/// What `thread` has done, by `done`.
pub(crate) fn done_of(done: &[f64], thread: ThreadId) -> f64 {
    done.get(thread.index()).copied().unwrap_or(0.0)
}

/// URW: a thread with probability proportional to its remaining steps.
#[derive(Clone, Debug)]
pub struct UrwScheduler {
    rng: Pcg64Mcg,
    counts: Arc<EventCounts>,
    done: Vec<f64>,
    weights: Vec<f64>,
}

impl UrwScheduler {
    /// A scheduler weighing threads by `counts`, with choices fixed by `seed`.
    pub fn new(seed: u64, counts: Arc<EventCounts>) -> UrwScheduler {
        UrwScheduler {
            rng: Pcg64Mcg::seed_from_u64(seed),
            counts,
            done: Vec::new(),
            weights: Vec::new(),
        }
    }
}

impl Scheduler for UrwScheduler {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some(last) = point.last {
            bump(&mut self.done, last);
        }
        if let [only] = point.enabled {
            return *only;
        }
        self.weights.clear();
        for &t in point.enabled {
            // An enabled thread has at least the step it could take now,
            // whatever the estimate says.
            let left = self
                .counts
                .remaining(t, done_of(&self.done, t), point.threads);
            self.weights.push(left.max(1.0));
        }
        let i = weighted(&mut self.rng, &self.weights).unwrap_or(0);
        point.enabled[i]
    }
}

/// SURW: accesses of the target variable in a uniformly sampled order,
/// everything else by a random walk.
#[derive(Clone, Debug)]
pub struct SurwScheduler {
    rng: Pcg64Mcg,
    target: Option<VarId>,
    counts: Arc<EventCounts>,
    /// Target accesses made per thread this run.
    done: Vec<f64>,
    /// The thread whose target access comes next, once drawn, and how
    /// many threads existed then.
    intended: Option<ThreadId>,
    drawn_among: usize,
    /// Steps free threads took since the last target access.
    free_steps: u32,
    /// Whether a spawn refines the draw rather than redrawing.
    refine: bool,
    weights: Vec<f64>,
    free: Vec<ThreadId>,
    /// Decides among the free threads: weighted partial order sampling.
    elsewhere: PosScheduler,
}

impl SurwScheduler {
    /// A scheduler for target `target` (none: weighted POS only) whose
    /// threads' target accesses are estimated by `counts` and steps by
    /// `steps`, with choices fixed by `seed`.
    pub fn new(
        seed: u64,
        target: Option<VarId>,
        counts: Arc<EventCounts>,
        steps: Arc<EventCounts>,
    ) -> SurwScheduler {
        SurwScheduler {
            rng: Pcg64Mcg::seed_from_u64(seed),
            target,
            counts,
            done: Vec::new(),
            intended: None,
            drawn_among: 0,
            free_steps: 0,
            refine: false,
            weights: Vec::new(),
            free: Vec::new(),
            elsewhere: PosScheduler::weighted(seed ^ 0x5eed_e15e_0000_0001, steps),
        }
    }

    /// This scheduler, refining its draw at a spawn rather than drawing
    /// again (kind-weighted SURW's rule; see `after_spawn`).
    pub fn refining(mut self) -> SurwScheduler {
        self.refine = true;
        self
    }

    /// The thread whose target access must come next, if drawn.
    pub fn intended(&self) -> Option<ThreadId> {
        self.intended
    }

    /// Whether `thread`'s next operation accesses the target.
    fn at_target(&self, point: &Point<'_>, thread: ThreadId) -> bool {
        self.target.is_some()
            && point
                .pending(thread)
                .is_some_and(|p| p.location.is_some() && p.var == self.target)
    }

    /// Draw the thread whose target access comes next among `candidates`,
    /// by the target accesses each has left; a thread about to access the
    /// target has at least that one.
    fn draw(&mut self, point: &Point<'_>, candidates: &[ThreadId]) -> Option<ThreadId> {
        self.weights.clear();
        for &t in candidates {
            let left = self
                .counts
                .remaining(t, done_of(&self.done, t), point.threads);
            let floor = if self.at_target(point, t) { 1.0 } else { 0.0 };
            self.weights.push(left.max(floor));
        }
        weighted(&mut self.rng, &self.weights).map(|i| candidates[i])
    }

    /// The free (not held) thread whose next operation has the highest
    /// weighted-POS priority, if any.
    fn free_choice(&mut self, point: &Point<'_>) -> Option<ThreadId> {
        let mut free = std::mem::take(&mut self.free);
        free.clear();
        free.extend(
            point
                .enabled
                .iter()
                .copied()
                .filter(|&t| !self.at_target(point, t)),
        );
        let chosen = (!free.is_empty()).then(|| self.elsewhere.highest(point, &free));
        self.free = free;
        chosen
    }

    /// A thread was drawn for its children's accesses too; now that one
    /// is spawned, each stands for itself. SURW draws again among every
    /// thread; with `refine`, only a draw that named the spawning thread
    /// is refined, between it and its new children by their weights, so
    /// that the draw keeps its odds.
    fn after_spawn(&mut self, point: &Point<'_>) {
        let spawner = self.intended.filter(|&i| point.last == Some(i));
        self.intended = match spawner {
            Some(i) if self.refine => {
                let mut candidates = vec![i];
                candidates.extend((self.drawn_among..point.threads).map(|t| ThreadId(t as u32)));
                self.draw(point, &candidates)
            }
            _ if self.refine => self.intended,
            _ => None,
        };
        self.drawn_among = point.threads;
    }

    /// Run `thread`'s target access.
    fn release(&mut self, point: &Point<'_>, thread: ThreadId) -> ThreadId {
        bump(&mut self.done, thread);
        self.intended = None;
        self.free_steps = 0;
        self.elsewhere.ran(point, thread);
        thread
    }
}

impl Scheduler for SurwScheduler {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        self.elsewhere.observe(point);
        if self.drawn_among != point.threads {
            self.after_spawn(point);
        }
        if let Some(i) = self.intended {
            if point.is_enabled(i) && self.at_target(point, i) {
                return self.release(point, i);
            }
        }
        if self.intended.is_none() {
            self.intended = self.draw(point, point.enabled);
            self.drawn_among = point.threads;
            if let Some(i) = self.intended.filter(|&i| self.at_target(point, i)) {
                return self.release(point, i);
            }
        }
        let held = point.enabled.iter().any(|&t| self.at_target(point, t));
        if !held || self.free_steps < HELD_STEPS {
            if let Some(free) = self.free_choice(point) {
                self.free_steps += u32::from(held);
                self.elsewhere.ran(point, free);
                return free;
            }
        }
        // Every enabled thread is held, and the intended one cannot get to
        // its target access (blocked, or spinning on a held thread): the
        // next target access is drawn among those that can happen now.
        let held: Vec<ThreadId> = point
            .enabled
            .iter()
            .copied()
            .filter(|&t| self.at_target(point, t))
            .collect();
        let next = self.draw(point, &held).unwrap_or(held[0]);
        self.release(point, next)
    }

    fn wants_pending(&self) -> bool {
        true
    }
}

/// The variables SURW may target, with the weight each is drawn with: those
/// some run wrote (a mutex's operations count as writes) and that at
/// least `max(2, n/2)` threads touched in one run (`n`: the most threads
/// of any run), weighted by their mean accesses per run. When no variable
/// is touched by that many threads, those touched by two or more.
pub fn surw_targets(profile: &Profile) -> Vec<(VarId, f64)> {
    let candidates = |least: usize| -> Vec<(VarId, f64)> {
        profile
            .vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.writes > 0 && v.max_threads >= least && v.mean_accesses > 0.0)
            .map(|(i, v)| (VarId(i as u32), v.mean_accesses))
            .collect()
    };
    let shared = candidates((profile.max_threads / 2).max(2));
    if shared.is_empty() {
        candidates(2)
    } else {
        shared
    }
}

/// Run `seed`'s target among `targets`, drawn by weight from a generator
/// of its own (so the scheduler's choices do not shift with it).
pub fn draw_target(targets: &[(VarId, f64)], seed: u64) -> Option<VarId> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x7a26_e75e_1ec7);
    let weights: Vec<f64> = targets.iter().map(|(_, w)| *w).collect();
    weighted(&mut rng, &weights).map(|i| targets[i].0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::{positions, Event, Location, Pending};

    /// Thread 0 spawns 1, which spawns 2.
    fn chain() -> EventCounts {
        EventCounts::new(
            vec![4.0, 3.0, 2.0],
            &[None, Some(ThreadId(0)), Some(ThreadId(1))],
        )
    }

    #[test]
    fn a_thread_counts_the_events_of_the_children_it_has_yet_to_spawn() {
        let counts = chain();
        assert_eq!(counts.remaining(ThreadId(0), 0.0, 1), 9.0);
        assert_eq!(counts.remaining(ThreadId(0), 1.0, 1), 8.0);
        assert_eq!(counts.remaining(ThreadId(0), 1.0, 2), 3.0);
        assert_eq!(counts.remaining(ThreadId(1), 0.0, 2), 5.0);
        assert_eq!(counts.remaining(ThreadId(1), 5.0, 3), 0.0);
        assert_eq!(counts.remaining(ThreadId(7), 0.0, 8), 0.0);
    }

    /// Two threads with 1 and 3 steps left: URW runs the second first
    /// three times in four (the interleavings of one event with three
    /// where the single event is not first), where a uniform pick among
    /// threads would say one in two.
    #[test]
    fn urw_picks_threads_in_proportion_to_their_remaining_steps() {
        let counts = Arc::new(EventCounts::new(vec![1.0, 3.0], &[None, None]));
        let enabled = [ThreadId(0), ThreadId(1)];
        let position = positions(&enabled, 2);
        let point = Point::new(None, Event::START, &enabled, &enabled, &position);
        let trials = 20_000;
        let second = (0..trials)
            .filter(|&seed| UrwScheduler::new(seed, counts.clone()).choose(&point) == ThreadId(1))
            .count();
        let share = second as f64 / trials as f64;
        assert!((share - 0.75).abs() < 0.02, "share {share}");
    }

    fn access(var: u32) -> Pending {
        Pending {
            location: Some(Location::Global(var)),
            var: Some(VarId(var)),
            write: true,
        }
    }

    /// Threads 0 and 1 are about to access the target x (var 0), thread 2
    /// another variable. Until the draw names a thread at x, thread 2 runs;
    /// a thread at x runs only when drawn.
    #[test]
    fn surw_holds_target_accesses_until_their_thread_is_drawn() {
        let counts = Arc::new(EventCounts::new(vec![1.0, 1.0, 0.0], &[]));
        let enabled = [ThreadId(0), ThreadId(1), ThreadId(2)];
        let position = positions(&enabled, 3);
        let pending = [access(0), access(0), access(1)];
        let mut point = Point::new(None, Event::START, &enabled, &enabled, &position);
        point.pending = &pending;
        let mut firsts = [0; 3];
        for seed in 0..2000 {
            let mut surw = SurwScheduler::new(seed, Some(VarId(0)), counts.clone(), Arc::default());
            let chosen = surw.choose(&point);
            firsts[chosen.index()] += 1;
            // Thread 2 has no target access left: it is never drawn, so
            // the draw always names a thread at x, which runs at once.
            assert_ne!(chosen, ThreadId(2), "seed {seed}");
            assert_eq!(surw.intended(), None, "seed {seed}");
        }
        assert!(firsts[0] > 900 && firsts[1] > 900, "{firsts:?}");
    }

    /// When the drawn thread is not at the target yet, the free threads
    /// run and the held one waits.
    #[test]
    fn surw_runs_free_threads_while_the_intended_one_gets_to_the_target() {
        let counts = Arc::new(EventCounts::new(vec![1.0, 5.0], &[]));
        let enabled = [ThreadId(0), ThreadId(1)];
        let position = positions(&enabled, 2);
        // Thread 0 at x; thread 1 elsewhere but with five x accesses to come.
        let pending = [access(0), access(1)];
        let mut point = Point::new(None, Event::START, &enabled, &enabled, &position);
        point.pending = &pending;
        for seed in 0..200 {
            let mut surw = SurwScheduler::new(seed, Some(VarId(0)), counts.clone(), Arc::default());
            let chosen = surw.choose(&point);
            match surw.intended() {
                // Thread 1 drawn: thread 0 is held, thread 1 runs.
                Some(ThreadId(1)) => assert_eq!(chosen, ThreadId(1)),
                // Thread 0 drawn: its access runs at once.
                None => assert_eq!(chosen, ThreadId(0)),
                other => panic!("seed {seed}: intended {other:?}"),
            }
        }
    }

    /// Threads 0 and 1 exist and thread 0 is about to spawn thread 2; none
    /// is at the target. Thread 0 has one target access of its own and
    /// stands for its child's one, thread 1 has one.
    fn spawn_ahead() -> (Arc<EventCounts>, [Pending; 3]) {
        let counts = EventCounts::new(
            vec![1.0, 1.0, 1.0],
            &[None, Some(ThreadId(0)), Some(ThreadId(0))],
        );
        (Arc::new(counts), [access(1), access(1), access(1)])
    }

    /// At a spawn, kind-weighted SURW keeps a draw that named another
    /// thread, and splits one that named the spawner between it and the
    /// child by their accesses left (one each here).
    #[test]
    fn a_refining_surw_splits_only_the_spawners_draw_at_a_spawn() {
        let (counts, pending) = spawn_ahead();
        let before = [ThreadId(0), ThreadId(1)];
        let before_position = positions(&before, 2);
        let mut start = Point::new(None, Event::START, &before, &before, &before_position);
        start.pending = &pending[..2];
        let after = [ThreadId(0), ThreadId(1), ThreadId(2)];
        let after_position = positions(&after, 3);
        let spawned = Event {
            kind: crate::EventKind::Spawn,
            ..Event::START
        };
        let mut spawn = Point::new(Some(ThreadId(0)), spawned, &after, &after, &after_position);
        spawn.pending = &pending;
        let mut split = [0; 3];
        for seed in 0..2000 {
            let mut surw =
                SurwScheduler::new(seed, Some(VarId(0)), counts.clone(), Arc::default()).refining();
            surw.choose(&start);
            let drawn = surw.intended().expect("a draw");
            surw.choose(&spawn);
            let now = surw.intended().expect("a draw");
            if drawn == ThreadId(1) {
                assert_eq!(now, ThreadId(1), "seed {seed}");
            } else {
                split[now.index()] += 1;
            }
        }
        // Thread 0 was drawn two times in three, then half of those go
        // to the child.
        assert!(split[0] > 550 && split[2] > 550, "{split:?}");
    }

    /// Main (thread 0) spawns three threads at one place and one at
    /// another, each with one target access: each of the three weighs a
    /// third, the fourth one, and main stands for all of them.
    #[test]
    fn kind_weights_divide_a_thread_by_the_threads_spawned_where_it_was() {
        use crate::id::FuncId;
        use crate::profile::ThreadProfile;
        use crate::scheduler::Loc;
        let child = |pc| ThreadProfile {
            parent: Some(ThreadId(0)),
            spawn_site: Some(Loc {
                func: FuncId(0),
                pc,
            }),
            mean_steps: 2.0,
            mean_accesses: [(VarId(0), 1.0)].into(),
        };
        let mut profile = profile_of(Vec::new());
        profile.threads = vec![
            ThreadProfile::default(),
            child(5),
            child(5),
            child(5),
            child(9),
        ];
        let counts = EventCounts::accesses_by_kind(&profile, VarId(0));
        assert!((counts.remaining(ThreadId(1), 0.0, 5) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(counts.remaining(ThreadId(4), 0.0, 5), 1.0);
        assert!((counts.remaining(ThreadId(0), 0.0, 1) - 2.0).abs() < 1e-12);
        let plain = EventCounts::accesses(&profile, VarId(0));
        assert_eq!(plain.remaining(ThreadId(0), 0.0, 1), 4.0);
    }

    fn profile_of(vars: Vec<crate::profile::VarProfile>) -> Profile {
        Profile {
            runs: 1,
            max_threads: 6,
            max_accesses: 0,
            max_steps: 0,
            vars,
            failure: None,
            instances: Vec::new(),
            threads: Vec::new(),
        }
    }

    #[test]
    fn targets_are_written_shared_variables_drawn_by_accesses() {
        use crate::profile::VarProfile;
        let var = |mean: f64, threads: usize, writes: u64| VarProfile {
            max_accesses: mean as u64,
            mean_accesses: mean,
            max_threads: threads,
            writes,
        };
        let profile = profile_of(vec![
            var(10.0, 3, 1),
            var(30.0, 3, 2),
            var(50.0, 6, 0),
            var(9.0, 2, 4),
        ]);
        let targets = surw_targets(&profile);
        assert_eq!(targets, vec![(VarId(0), 10.0), (VarId(1), 30.0)]);
        let ones = (0..4000)
            .filter(|&seed| draw_target(&targets, seed) == Some(VarId(1)))
            .count();
        assert!((2800..3200).contains(&ones), "{ones}");
    }
}
