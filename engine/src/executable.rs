//! A program specialised for one set of tracked variables: the code the VM
//! actually runs.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::await_code::conservative_awaited;
use crate::id::{SiteId, VarId};
use crate::ir::{AccessKind, Op, Program, VarKind};

/// Which variables a search tracks and which access sites it observes.
///
/// A site must be observed whenever it may touch a tracked variable; an
/// observed site that touches an untracked one checks at run time and runs
/// on (docs/ALGORITHMS.md, Variables: `varaccess()`). A write site must also be
/// observed whenever it may touch an *awaited* variable, one an `await`
/// condition may read: such a write may let a blocked thread run, which
/// ends the writer's step (docs/LANGUAGE.md, Steps and scheduling points).
/// Deciding the observed sites precisely is the alias analysis's job (in
/// `instr`); the constructors here are the sound fallback that needs none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instrumentation {
    /// `tracked[v]`: accesses to variable `v` are scheduling points.
    pub tracked: Vec<bool>,
    /// `observed[s]`: access site `s` is compiled in observed form.
    pub observed: Vec<bool>,
    /// `awaited[v]`: an `await` condition may read variable `v`.
    pub awaited: Vec<bool>,
}

impl Instrumentation {
    /// Track every variable and observe every site: each shared access is a
    /// scheduling point (plain PCT, the random scheduler).
    pub fn all(program: &Program) -> Instrumentation {
        Instrumentation {
            tracked: vec![true; program.vars.len()],
            observed: vec![true; program.sites.len()],
            awaited: conservative_awaited(program),
        }
    }

    /// Track nothing: only synchronisation operations are scheduling points,
    /// and no preemption is possible.
    pub fn none(program: &Program) -> Instrumentation {
        Instrumentation::for_vars(program, &[])
    }

    /// Track mutexes and condition variables only (CHESS's choice).
    pub fn sync_only(program: &Program) -> Instrumentation {
        let sync: Vec<VarId> = program
            .vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.kind.is_sync())
            .map(|(i, _)| VarId(i as u32))
            .collect();
        Instrumentation::for_vars(program, &sync)
    }

    /// Track `vars`, observing every site whose variable is one of them or
    /// is not known statically (an access through a reference), and every
    /// write that may touch an awaited variable. Sound for any program; the
    /// alias analysis observes fewer sites.
    pub fn for_vars(program: &Program, vars: &[VarId]) -> Instrumentation {
        let mut tracked = vec![false; program.vars.len()];
        for v in vars {
            tracked[v.index()] = true;
        }
        let awaited = conservative_awaited(program);
        // Accesses through references touch records and arrays made by
        // allocation sites.
        let any_heap =
            |flags: &[bool]| {
                program.vars.iter().zip(flags).any(|(var, &f)| {
                    f && matches!(var.kind, VarKind::NewRecord | VarKind::NewArray)
                })
            };
        let (heap_tracked, heap_awaited) = (any_heap(&tracked), any_heap(&awaited));
        let observed = program
            .sites
            .iter()
            .map(|site| {
                let write = site.kind == AccessKind::Write;
                match site.var {
                    Some(v) => tracked[v.index()] || (write && awaited[v.index()]),
                    None => heap_tracked || (write && heap_awaited),
                }
            })
            .collect();
        Instrumentation {
            tracked,
            observed,
            awaited,
        }
    }

    /// The same tracking with every site observed, so that the VM sees
    /// every access (exhaustive search's happens-before signature and the
    /// variables a trace shows need them). Scheduling points do not change:
    /// an observed untracked access runs on.
    pub fn observing_all(mut self) -> Instrumentation {
        self.observed.iter_mut().for_each(|o| *o = true);
        self
    }

    /// Whether site `site` is observed.
    pub fn observes(&self, site: SiteId) -> bool {
        self.observed[site.index()]
    }
}

/// One heap instance: the `index`-th object (from 0) that allocation site
/// `var` made with call stack `context` in one execution. Exhaustive search
/// can track single instances rather than whole allocation sites, ranked by
/// `index`, the loop-iteration number (docs/ALGORITHMS.md, Exhaustive search).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceKey {
    /// The allocation site.
    pub var: VarId,
    /// A hash of the allocating thread's call stack (the functions and
    /// return points of its frames).
    pub context: u64,
    /// How many objects the same site and call stack made before it in the
    /// execution.
    pub index: u32,
}

/// A [`Program`] with its accesses in plain or observed form according to
/// an [`Instrumentation`].
#[derive(Clone, Debug)]
pub struct Executable {
    program: Arc<Program>,
    /// `code[f]` is function `f`'s code, specialised.
    pub(crate) code: Vec<Vec<Op>>,
    /// `tracked[v]`, as in the instrumentation.
    pub(crate) tracked: Vec<bool>,
    /// `awaited[v]`, as in the instrumentation.
    pub(crate) awaited: Vec<bool>,
    /// `field_slots[shape * n_fields + field]`: the slot of `field` in
    /// records of `shape`, or [`NO_SLOT`].
    pub(crate) field_slots: Vec<u32>,
    /// `split[v]`: allocation site `v` is tracked by instance, only the
    /// objects listed in `instances`.
    pub(crate) split: Vec<bool>,
    /// The tracked instances of split allocation sites.
    pub(crate) instances: BTreeSet<InstanceKey>,
    /// Whether every site is observed: needed to see every thread's next
    /// operation (see [`crate::Scheduler::wants_pending`]).
    pub(crate) observes_all: bool,
}

/// Marks a field that a record shape does not have.
pub(crate) const NO_SLOT: u32 = u32::MAX;

impl Executable {
    /// Specialise `program` for `instrumentation`.
    ///
    /// # Panics
    /// If the instrumentation was made for a program with a different number
    /// of variables or sites (invariant: an instrumentation belongs to one
    /// program).
    pub fn new(program: Arc<Program>, instrumentation: &Instrumentation) -> Executable {
        Executable::with_instances(program, instrumentation, &[])
    }

    /// Specialise `program` for `instrumentation`, and track the
    /// allocation sites of `instances` by instance: of their objects, only
    /// those listed are tracked. The instrumentation must track (and so
    /// observe the sites of) every site an instance belongs to.
    ///
    /// # Panics
    /// As [`Executable::new`].
    pub fn with_instances(
        program: Arc<Program>,
        instrumentation: &Instrumentation,
        instances: &[InstanceKey],
    ) -> Executable {
        assert_eq!(
            instrumentation.tracked.len(),
            program.vars.len(),
            "instrumentation/program mismatch"
        );
        assert_eq!(
            instrumentation.observed.len(),
            program.sites.len(),
            "instrumentation/program mismatch"
        );
        assert_eq!(
            instrumentation.awaited.len(),
            program.vars.len(),
            "instrumentation/program mismatch"
        );
        let code = program
            .functions
            .iter()
            .map(|function| {
                function
                    .code
                    .iter()
                    .map(|op| match op.memory_site() {
                        Some(site) => op.with_observation(instrumentation.observes(site)),
                        None => *op,
                    })
                    .collect()
            })
            .collect();
        let n_fields = program.fields.len();
        let mut field_slots = vec![NO_SLOT; program.shapes.len() * n_fields];
        for (shape_index, shape) in program.shapes.iter().enumerate() {
            for (slot, field) in shape.fields.iter().enumerate() {
                field_slots[shape_index * n_fields + field.index()] = slot as u32;
            }
        }
        let mut split = vec![false; program.vars.len()];
        let mut tracked = instrumentation.tracked.clone();
        for key in instances {
            split[key.var.index()] = true;
            tracked[key.var.index()] = true;
        }
        Executable {
            program,
            code,
            tracked,
            awaited: instrumentation.awaited.clone(),
            observes_all: instrumentation.observed.iter().all(|&o| o),
            field_slots,
            split,
            instances: instances.iter().copied().collect(),
        }
    }

    /// The program it runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The shared program.
    pub fn program_arc(&self) -> &Arc<Program> {
        &self.program
    }

    /// Whether variable `var` is tracked.
    pub fn is_tracked(&self, var: VarId) -> bool {
        self.tracked[var.index()]
    }
}
