//! Preemption-bounded exploration over thread-bounding priority orders:
//! the paper's Algorithm 1 (docs/ALGORITHMS.md, Exhaustive search).
//!
//! A work item is a priority order and the tracked accesses after which the
//! running thread's priority changes; running it replays from the initial
//! state (stateless search). Items run in increasing number of preemptions.
//! While an item with `b` preemptions runs, every later tracked access
//! after which the running thread could go on is a candidate for a child
//! with `b + 1`; a child whose state, priorities and preemptions left were
//! seen already is pruned (see [`super::recorder::child_key`]).

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::executable::Executable;
use crate::id::ThreadId;
use crate::outcome::Outcome;
use crate::priority::{PriorityScheduler, PriorityScheme};
use crate::vm::{Vm, VmBuffers};

use super::orders::Order;
use super::recorder::{child_key, Candidate, Recorder, SCALE};
use super::{ExploreConfig, Explored, FoundBug, Monitor, Progress, Stop};

/// Runs started together and then processed in order. Fixed, so that which
/// runs happen before a stop does not depend on the number of workers.
const BATCH: usize = 256;

/// One work item: an order (by index) and its preemptions, as 1-based
/// counts of tracked accesses, ascending.
#[derive(Clone, Debug)]
struct Item {
    order: u32,
    preemptions: Vec<u64>,
}

impl Item {
    /// Bytes it holds, for the memory cap.
    fn bytes(&self) -> u64 {
        (std::mem::size_of::<Item>() + 8 * self.preemptions.capacity()) as u64
    }
}

/// What running an item gave.
struct Ran {
    outcome: Outcome,
    schedule: Vec<ThreadId>,
    candidates: Vec<Candidate>,
    threads: usize,
    /// The steps after which a change point fired.
    change_steps: Vec<u64>,
}

/// Run one work item.
pub(super) fn run_item(
    exe: &Executable,
    config: &ExploreConfig,
    order: &[i64],
    preemptions: &[u64],
    record: bool,
    buffers: VmBuffers,
) -> (Outcome, Recorder, Vec<ThreadId>, usize, VmBuffers) {
    let n = config.n_threads;
    let initial = order[..n.min(order.len())]
        .iter()
        .map(|p| p * SCALE)
        .collect();
    let changes = preemptions
        .iter()
        .zip(&order[n..])
        .map(|(&at, &p)| (at, p * SCALE))
        .collect();
    let top = (order.len() as i64 + 1) * SCALE;
    let inner = PriorityScheduler::with_order(
        Pcg64Mcg::seed_from_u64(0),
        PriorityScheme::ThreadBounded,
        initial,
        changes,
        (SCALE, top),
    );
    let mut recorder = Recorder::new(inner, n, preemptions, record);
    let mut vm = Vm::with_buffers(exe, config.limits, buffers);
    vm.log_accesses();
    let outcome = vm.run(&mut recorder);
    let schedule = vm.schedule().to_vec();
    let threads = vm.n_threads();
    (outcome, recorder, schedule, threads, vm.into_buffers())
}

/// The effective order of a work item with `used` fragments in play: the
/// ranks of the first `used` entries, so that orders differing only in
/// fragments the item never uses run the same schedule.
fn effective(order: &[i64], used: usize) -> Vec<u32> {
    let prefix = &order[..used.min(order.len())];
    prefix
        .iter()
        .map(|p| prefix.iter().filter(|q| *q < p).count() as u32)
        .collect()
}

/// A hash of an item's run: its effective order and preemptions. Items
/// with equal runs sort next to each other and run once.
fn run_hash(orders: &[Order], n: usize, item: &Item) -> u64 {
    let mut hasher = DefaultHasher::new();
    effective(&orders[item.order as usize], n + item.preemptions.len()).hash(&mut hasher);
    item.preemptions.hash(&mut hasher);
    hasher.finish()
}

/// Whether two items run the same schedule.
fn same_run(orders: &[Order], n: usize, a: &Item, b: &Item) -> bool {
    let used = n + a.preemptions.len();
    a.preemptions == b.preemptions
        && effective(&orders[a.order as usize], used) == effective(&orders[b.order as usize], used)
}

/// Run `items` on `jobs` workers, in any order; results in item order.
fn run_batch(
    exe: &Executable,
    config: &ExploreConfig,
    orders: &[Order],
    items: &[&Item],
    record: bool,
    buffers: &mut Vec<VmBuffers>,
) -> Vec<Ran> {
    let jobs = config.jobs.clamp(1, items.len().max(1));
    while buffers.len() < jobs {
        buffers.push(VmBuffers::default());
    }
    let run = |item: &Item, buffers: VmBuffers| {
        let (outcome, recorder, schedule, threads, back) = run_item(
            exe,
            config,
            &orders[item.order as usize],
            &item.preemptions,
            record,
            buffers,
        );
        let change_steps = recorder.inner.applied().iter().map(|c| c.step).collect();
        let ran = Ran {
            outcome,
            schedule,
            candidates: recorder.candidates,
            threads,
            change_steps,
        };
        (ran, back)
    };
    if jobs == 1 {
        let mut results = Vec::with_capacity(items.len());
        let mut own = std::mem::take(&mut buffers[0]);
        for item in items {
            let (ran, back) = run(item, own);
            own = back;
            results.push(ran);
        }
        buffers[0] = own;
        return results;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<Ran>> = (0..items.len()).map(|_| None).collect();
    let slots_lock = std::sync::Mutex::new(&mut slots);
    std::thread::scope(|scope| {
        for own in buffers.iter_mut().take(jobs) {
            let (next, slots_lock, run) = (&next, &slots_lock, &run);
            scope.spawn(move || {
                let mut mine = std::mem::take(own);
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let (ran, back) = run(item, mine);
                    mine = back;
                    let mut slots = slots_lock
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    slots[i] = Some(ran);
                }
                *own = mine;
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.unwrap_or_else(|| unreachable!("invariant: every item of a batch ran")))
        .collect()
}

/// Explore `exe` (tracking the variables a search chose; it must observe
/// every site, see [`crate::Instrumentation::observing_all`]) under every
/// order of `orders` up to `config.preemptions` preemptions. `seen` holds
/// the pruning keys already explored for these variables.
pub fn explore(
    exe: &Executable,
    orders: &[Order],
    config: &ExploreConfig,
    seen: &mut HashSet<u64>,
    monitor: &Monitor<'_>,
) -> Explored {
    let n = config.n_threads;
    let mut result = Explored::default();
    let mut buffers = Vec::new();
    let mut queue: Vec<Item> = (0..orders.len() as u32)
        .map(|order| Item {
            order,
            preemptions: Vec::new(),
        })
        .collect();
    for bound in 0..=config.preemptions {
        let record = bound < config.preemptions;
        let mut next: Vec<Item> = Vec::new();
        // Items that run the same schedule form a group, run once; groups
        // go in the order of their first item.
        let groups = group_runs(orders, n, &queue);
        // The groups and their index by hash live as long as the queue.
        let grouping = (groups.len() * 64 + queue.len() * 4) as u64;
        let mut queued_bytes: u64 = queue.iter().map(Item::bytes).sum::<u64>() + grouping;
        let mut next_bytes = 0u64;
        let mut done_items = 0usize;
        for batch in groups.chunks(BATCH) {
            let room = config.max_schedules.saturating_sub(result.schedules);
            if room == 0 {
                result.stop = Some(Stop::Schedules);
                return result;
            }
            let batch = &batch[..batch.len().min(room as usize)];
            let firsts: Vec<&Item> = batch.iter().map(|g| &queue[g[0] as usize]).collect();
            let runs = run_batch(exe, config, orders, &firsts, record, &mut buffers);
            for (group, ran) in batch.iter().zip(runs) {
                result.schedules += 1;
                if ran.threads > n {
                    result.more_threads = Some(ran.threads);
                    return result;
                }
                let first = &queue[group[0] as usize];
                match ran.outcome {
                    Outcome::Bug(bug) => {
                        result
                            .schedules_to_first_bug
                            .get_or_insert(result.schedules);
                        result.bugs.push(FoundBug {
                            bug,
                            schedule: ran.schedule,
                            order: orders[first.order as usize].clone(),
                            preemptions: first.preemptions.clone(),
                            change_steps: ran.change_steps,
                        });
                        if !config.finish_bound {
                            return result;
                        }
                    }
                    Outcome::Pass { .. } if record => {
                        for item in group.iter().map(|&i| &queue[i as usize]) {
                            next_bytes += children(
                                item,
                                &ran.candidates,
                                orders,
                                config,
                                seen,
                                &mut next,
                                &mut result,
                            );
                        }
                    }
                    Outcome::Pass { .. } => {}
                    Outcome::Diverged { .. } => {
                        unreachable!("invariant: the explorer only chooses enabled threads")
                    }
                }
                done_items += group.len();
                queued_bytes -= group
                    .iter()
                    .map(|&i| queue[i as usize].bytes())
                    .sum::<u64>();
            }
            // A hash set entry: the key, and about a byte of control a slot.
            let memory = queued_bytes + next_bytes + seen.capacity() as u64 * 9;
            let progress = Progress {
                schedules: result.schedules,
                pruned: result.pruned,
                items_left: (queue.len() - done_items + next.len()) as u64,
                bound,
                memory,
            };
            if memory > config.max_memory {
                result.stop = Some(Stop::Memory(memory));
                return result;
            }
            if !monitor(&progress) {
                result.stop = Some(Stop::Interrupted);
                return result;
            }
        }
        if !result.bugs.is_empty() {
            return result;
        }
        result.completed_bound = Some(bound);
        if next.is_empty() {
            break;
        }
        queue = next;
    }
    result.exhausted = true;
    result
}

/// The items of `queue` that run the same schedule, grouped, as indices;
/// groups in the order of their first item.
fn group_runs(orders: &[Order], n: usize, queue: &[Item]) -> Vec<Vec<u32>> {
    let mut groups: Vec<Vec<u32>> = Vec::new();
    // Groups by the hash of their run; a hash shared by different runs
    // (a collision) only lists several groups.
    let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, item) in queue.iter().enumerate() {
        let same = by_hash.entry(run_hash(orders, n, item)).or_default();
        match same
            .iter()
            .find(|&&g| same_run(orders, n, &queue[groups[g][0] as usize], item))
        {
            Some(&g) => groups[g].push(i as u32),
            None => {
                same.push(groups.len());
                groups.push(vec![i as u32]);
            }
        }
    }
    groups
}

/// Queue `item`'s children: one per candidate after its last preemption,
/// unless its key was explored. The bytes they hold.
fn children(
    item: &Item,
    candidates: &[Candidate],
    orders: &[Order],
    config: &ExploreConfig,
    seen: &mut HashSet<u64>,
    next: &mut Vec<Item>,
    result: &mut Explored,
) -> u64 {
    let order = &orders[item.order as usize];
    let mut bytes = 0;
    let last = item.preemptions.last().copied().unwrap_or(0);
    let bound = config.preemptions as usize;
    for candidate in candidates.iter().filter(|c| c.at > last) {
        if config.prune {
            let key = child_key(
                candidate,
                order,
                config.n_threads,
                item.preemptions.len(),
                bound,
            );
            if !seen.insert(key) {
                result.pruned += 1;
                continue;
            }
        }
        let mut longer = Vec::with_capacity(item.preemptions.len() + 1);
        longer.extend_from_slice(&item.preemptions);
        longer.push(candidate.at);
        let child = Item {
            order: item.order,
            preemptions: longer,
        };
        bytes += child.bytes();
        next.push(child);
    }
    bytes
}
