//! The VM's side of tracking: the executable that observes exactly the
//! sites a tracked set needs, built once per set and kept. A strategy says
//! what a run tracks ([`super::Tracked`]); this turns it into what the VM
//! runs.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::Tracked;
use crate::executable::{Executable, Instrumentation};
use crate::id::VarId;
use crate::ir::Program;

/// Builds the instrumentation that tracks a set of variables; the alias
/// analysis in `instr` provides it (the engine cannot see syntax).
pub type Instrumenter = Arc<dyn Fn(&Program, &[VarId]) -> Instrumentation + Send + Sync>;

/// The executables of one program by tracked set, built on first use.
/// Each search worker has its own clone and looks an executable up in its
/// own map, so the per-run lookup takes no lock; an executable is built
/// once for all clones (the first worker to need it builds it into the
/// shared map), so searches in many short calls, such as a nightly
/// campaign's chunks, do not instrument the program again each time.
#[derive(Clone)]
pub struct Executables {
    program: Arc<Program>,
    instrumenter: Option<Instrumenter>,
    every: Option<Arc<Executable>>,
    by_set: BTreeMap<Vec<VarId>, Arc<Executable>>,
    shared: Arc<Shared>,
}

/// What every clone of one [`Executables`] has built.
#[derive(Default)]
struct Shared {
    every: OnceLock<Arc<Executable>>,
    by_set: Mutex<BTreeMap<Vec<VarId>, Arc<Executable>>>,
}

impl Executables {
    /// The executables of `program`, sets instrumented by `instrumenter`.
    pub fn new(program: Arc<Program>, instrumenter: Instrumenter) -> Executables {
        Executables {
            program,
            instrumenter: Some(instrumenter),
            every: None,
            by_set: BTreeMap::new(),
            shared: Arc::default(),
        }
    }

    /// For strategies that track every variable (random, sampling): no
    /// alias analysis is needed.
    pub fn every_variable(program: Arc<Program>) -> Executables {
        Executables {
            program,
            instrumenter: None,
            every: None,
            by_set: BTreeMap::new(),
            shared: Arc::default(),
        }
    }

    /// The program.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The executable that tracks `tracked`.
    ///
    /// # Panics
    /// For a set of variables when built by [`Executables::every_variable`]
    /// (invariant: a strategy that draws variables comes with an
    /// instrumenter).
    pub fn get(&mut self, tracked: Tracked<'_>) -> &Arc<Executable> {
        let vars = match tracked {
            Tracked::All => {
                let (program, shared) = (&self.program, &self.shared);
                return self.every.get_or_insert_with(|| {
                    shared
                        .every
                        .get_or_init(|| {
                            Arc::new(Executable::new(
                                program.clone(),
                                &Instrumentation::all(program),
                            ))
                        })
                        .clone()
                });
            }
            Tracked::Vars(vars) => vars,
        };
        if !self.by_set.contains_key(vars) {
            let exe = self.shared_for(vars);
            self.by_set.insert(vars.to_vec(), exe);
        }
        &self.by_set[vars]
    }

    /// The executable of `vars` from the map every clone shares, built
    /// there if no clone has built it yet.
    fn shared_for(&self, vars: &[VarId]) -> Arc<Executable> {
        let mut built = self
            .shared
            .by_set
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(exe) = built.get(vars) {
            return exe.clone();
        }
        let Some(instrumenter) = &self.instrumenter else {
            panic!("invariant: a strategy that tracks chosen variables has an instrumenter")
        };
        let instrumentation = instrumenter(&self.program, vars);
        let exe = Arc::new(Executable::new(self.program.clone(), &instrumentation));
        built.insert(vars.to_vec(), exe.clone());
        exe
    }
}
