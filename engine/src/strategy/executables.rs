//! The VM's side of tracking: the executable that observes exactly the
//! sites a tracked set needs, built once per set and kept. A strategy says
//! what a run tracks ([`super::Tracked`]); this turns it into what the VM
//! runs.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Tracked;
use crate::executable::{Executable, Instrumentation};
use crate::id::VarId;
use crate::ir::Program;

/// Builds the instrumentation that tracks a set of variables; the alias
/// analysis in `instr` provides it (the engine cannot see syntax).
pub type Instrumenter = Arc<dyn Fn(&Program, &[VarId]) -> Instrumentation + Send + Sync>;

/// The executables of one program by tracked set, built on first use.
/// Each search worker has its own clone, so nothing here is shared between
/// cores.
#[derive(Clone)]
pub struct Executables {
    program: Arc<Program>,
    instrumenter: Option<Instrumenter>,
    every: Option<Executable>,
    by_set: BTreeMap<Vec<VarId>, Executable>,
}

impl Executables {
    /// The executables of `program`, sets instrumented by `instrumenter`.
    pub fn new(program: Arc<Program>, instrumenter: Instrumenter) -> Executables {
        Executables {
            program,
            instrumenter: Some(instrumenter),
            every: None,
            by_set: BTreeMap::new(),
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
    pub fn get(&mut self, tracked: Tracked<'_>) -> &Executable {
        let vars = match tracked {
            Tracked::All => {
                let program = &self.program;
                return self.every.get_or_insert_with(|| {
                    Executable::new(program.clone(), &Instrumentation::all(program))
                });
            }
            Tracked::Vars(vars) => vars,
        };
        if !self.by_set.contains_key(vars) {
            let Some(instrumenter) = &self.instrumenter else {
                panic!("invariant: a strategy that tracks chosen variables has an instrumenter")
            };
            let instrumentation = instrumenter(&self.program, vars);
            let exe = Executable::new(self.program.clone(), &instrumentation);
            self.by_set.insert(vars.to_vec(), exe);
        }
        &self.by_set[vars]
    }
}
