//! The static may-alias analysis: for every access site, the variables it
//! may touch at run time.
//!
//! docs/ALGORITHMS.md, Variables: to track a set of variables V, instrument exactly
//! the sites whose *may-set* meets V, where the may-set comes from "an
//! imprecise, static alias analysis (inclusion-based, Andersen style:
//! flow-insensitive, context-insensitive, allocation-site abstraction)".
//! This module is that analysis, over the engine's register IR: Andersen's
//! inclusion constraints (L. O. Andersen, *Program Analysis and
//! Specialization for the C Programming Language*, PhD thesis, DIKU,
//! 1994),
//! solved with a worklist, on registers renamed to webs (S. S. Muchnick,
//! *Advanced Compiler Design and Implementation*, 1997, ch. 16).
//!
//! # The abstraction
//!
//! - An *abstract object* is a [`VarId`]: every object made by one `new`
//!   expression is the object of that allocation site; a global array, a
//!   declared mutex and a declared cond are one object each (the constant
//!   pool names them as `Value::Ref(ObjId(i))`, `Value::Mutex(MutexId(i))`
//!   and `Value::Cond(CondId(i))`).
//! - A *node* is a place that holds a value: each *web* of each function's
//!   registers (below), each function's return value, each global scalar,
//!   each field of each record allocation site (field-sensitive) and the
//!   elements of each array object (smashed: one node for all of an array's
//!   elements). A web stands for every activation of its function, in every
//!   thread and from every call site: the analysis is context-insensitive.
//! - The lowering reuses registers: a temporary that passes one object to a
//!   call may later hold a local bound to another. So that reuse does not
//!   merge unrelated values, each register is first split into webs, the
//!   classic renaming of registers to live ranges: two definitions of a
//!   register that reach a common use (by reaching definitions over the
//!   function's control-flow graph) are one web, and every other pair is
//!   kept apart. This only renames registers; the heap, globals and the
//!   values within one web stay flow-insensitive, as in SSA-based
//!   formulations of Andersen's analysis.
//! - Every instruction is a constraint, whatever its position in the code
//!   (flow-insensitive): `Move` is `pts(dst) ⊇ pts(src)`; a `new` or a
//!   constant reference puts its object in `pts(dst)`; `Call` and `Spawn`
//!   copy arguments into the callee's parameters (registers `0..argc`), and
//!   every `Return` of a function flows to the `dst` of every `Call` of it;
//!   `x = p.f` is `pts(x) ⊇ pts(o.f)` for every `o ∈ pts(p)`, and
//!   `p.f = x` is `pts(o.f) ⊇ pts(x)` for every `o ∈ pts(p)`, and likewise
//!   for array elements. Arithmetic, comparisons, `len`, `self()` and thread
//!   handles carry no reference. Initial values of globals, global arrays
//!   and thread arguments, and of registers when a frame starts, are
//!   integers, booleans or `null`, which point to nothing.
//!
//! # Solving
//!
//! A worklist propagates points-to sets (bit sets over the variables) along
//! copy edges; when a new object reaches the base register of a load or a
//! store, the edge to or from that object's field or element node is added.
//! With N nodes, a set grows at most Q times and each growth pushes it
//! along at most N edges, so the solver is worst-case cubic in the number
//! of nodes (O(N² · Q) set unions, Q ≤ N); in practice, as for Andersen's
//! analysis in general, it is near-linear in the size of the program.
//! Splitting registers into webs visits each instruction at most once per
//! register, in backward searches from the register's uses to the
//! definitions that reach them: O(R · I) for a function of R registers and
//! I instructions at worst, in practice proportional to the total length
//! of the live ranges.
//!
//! # Known imprecision
//!
//! Sound, never exact: a function's webs are shared by all its calls (two
//! call sites passing different objects make both flow to both results);
//! a local assigned twice holds both values everywhere its definitions
//! meet; all elements of an array are one node, and all objects of one
//! allocation site one object; values stored in the heap or in globals
//! are never killed. (Code no path reaches reads registers that hold
//! nothing there, so its sites may touch only what the lowering names:
//! precise, as it never runs.)
//!
//! Field and element accesses keep only the objects on which they can
//! succeed (records whose shape has the field; arrays), and `lock`, `wait`,
//! `signal` keep only mutexes or conds: on anything else the access is a
//! run-time error that touches nothing.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rankcheck_engine::id::{FieldId, FuncId, GlobalId, Reg, SiteId, VarId};
use rankcheck_engine::ir::{Function, Op, Program, VarKind};
use rankcheck_engine::Value;

/// The result of the alias analysis of one [`Program`]: every site's
/// may-set, and the inverse, every variable's sites.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsTo {
    /// `may[s]`: the variables site `s` may touch, sorted, without
    /// duplicates.
    may: Vec<Vec<VarId>>,
    /// `touching[v]`: the sites whose may-set holds `v`, sorted.
    touching: Vec<Vec<SiteId>>,
}

impl PointsTo {
    /// Analyse `program` (docs/ALGORITHMS.md, Variables). See the module
    /// documentation for the abstraction and the cost.
    ///
    /// # Panics
    /// If the program breaks an IR invariant: an instruction names a
    /// register beyond its function's frame, or the constant pool holds a
    /// reference, mutex or cond that no declaration made.
    pub fn analyze(program: &Program) -> PointsTo {
        let layout = Layout::new(program);
        let mut solver = Solver::new(layout.n_nodes, program.vars.len());
        layout.constraints(program, &mut solver);
        solver.solve(&layout);
        let may = layout.may_sets(program, &solver.pts);
        let mut touching = vec![Vec::new(); program.vars.len()];
        for (site, vars) in may.iter().enumerate() {
            for var in vars {
                touching[var.index()].push(SiteId(site as u32));
            }
        }
        PointsTo { may, touching }
    }

    /// The variables site `site` may touch at run time, sorted and without
    /// duplicates: exactly the global for a global read or write; for a
    /// field or element access, the records or arrays its base may refer
    /// to; for `lock`, `unlock`, `signal` and `broadcast`, the mutexes or
    /// conds its operand may be; for `wait`, both its cond's and its
    /// mutex's; and always the variable the lowering names
    /// ([`rankcheck_engine::ir::Site::var`]). Sound: every variable the site
    /// touches in some execution is here.
    ///
    /// # Panics
    /// If `site` is not a site of the analysed program.
    pub fn may_access(&self, site: SiteId) -> &[VarId] {
        &self.may[site.index()]
    }

    /// The sites whose may-set holds `var`, sorted.
    ///
    /// # Panics
    /// If `var` is not a variable of the analysed program.
    pub fn sites_touching(&self, var: VarId) -> &[SiteId] {
        &self.touching[var.index()]
    }

    /// How many sites the analysed program has.
    pub fn n_sites(&self) -> usize {
        self.may.len()
    }

    /// How many variables the analysed program has (`Q`).
    pub fn n_vars(&self) -> usize {
        self.touching.len()
    }
}

// ----- What instructions do to registers -----

/// What one instruction does to its frame's registers and where control
/// goes next: the only facts the web construction relies on.
struct Operands {
    /// The register it writes, and whether it always overwrites it
    /// (`false`: it may leave the old value, as `ForStep` on its last
    /// iteration).
    def: Option<(Reg, bool)>,
    /// The registers it reads whose values may be references that flow on
    /// or name the location it touches. Integer-only operands are left out:
    /// no reference is read through them.
    uses: Vec<Reg>,
    /// Whether control may go on to the next instruction.
    falls_through: bool,
    /// Where else control may go.
    jump: Option<u32>,
}

/// Registers `first..first + count`.
pub(crate) fn register_range(first: Reg, count: usize) -> Vec<Reg> {
    (0..count)
        .map(|k| {
            let reg = usize::from(first.0) + k;
            Reg(u16::try_from(reg)
                .unwrap_or_else(|_| unreachable!("invariant: argument registers fit a frame")))
        })
        .collect()
}

/// The [`Operands`] of `op`. Exhaustive on purpose: a new instruction must
/// say what it reads, writes and where it goes, or webs may split a value
/// that flows and the analysis become unsound.
fn operands(program: &Program, op: &Op) -> Operands {
    let mut operands = Operands {
        def: None,
        uses: Vec::new(),
        falls_through: true,
        jump: None,
    };
    let write = |reg: Reg| Some((reg, true));
    match *op {
        Op::Const { dst, .. }
        | Op::Neg { dst, .. }
        | Op::Not { dst, .. }
        | Op::Add { dst, .. }
        | Op::Sub { dst, .. }
        | Op::Mul { dst, .. }
        | Op::Div { dst, .. }
        | Op::Rem { dst, .. }
        | Op::Lt { dst, .. }
        | Op::Le { dst, .. }
        | Op::Gt { dst, .. }
        | Op::Ge { dst, .. }
        | Op::Eq { dst, .. }
        | Op::Ne { dst, .. }
        | Op::Len { dst, .. }
        | Op::SelfId { dst }
        | Op::GetGlobal { dst, .. }
        | Op::GetGlobalObserved { dst, .. }
        | Op::NewMutex { dst, .. }
        | Op::NewCond { dst, .. } => operands.def = write(dst),
        Op::Move { dst, src } => {
            operands.def = write(dst);
            operands.uses = vec![src];
        }
        Op::Jump { target } | Op::Loop { target } => {
            operands.falls_through = false;
            operands.jump = Some(target);
        }
        Op::ForStep {
            counter, target, ..
        } => {
            operands.def = Some((counter, false));
            operands.jump = Some(target);
        }
        Op::JumpIfFalse { target, .. } | Op::JumpIfTrue { target, .. } => {
            operands.jump = Some(target);
        }
        Op::AwaitCheck { retry, .. } => operands.jump = Some(retry),
        Op::Call {
            dst, args, argc, ..
        }
        | Op::Spawn {
            dst, args, argc, ..
        } => {
            operands.def = write(dst);
            operands.uses = register_range(args, usize::from(argc));
        }
        Op::Return { src } => {
            operands.uses = vec![src];
            operands.falls_through = false;
        }
        Op::SetGlobal { src, .. } | Op::SetGlobalObserved { src, .. } => {
            operands.uses = vec![src];
        }
        Op::GetField { dst, obj, .. } | Op::GetFieldObserved { dst, obj, .. } => {
            operands.def = write(dst);
            operands.uses = vec![obj];
        }
        Op::SetField { obj, src, .. } | Op::SetFieldObserved { obj, src, .. } => {
            operands.uses = vec![obj, src];
        }
        Op::GetIndex { dst, array, .. } | Op::GetIndexObserved { dst, array, .. } => {
            operands.def = write(dst);
            operands.uses = vec![array];
        }
        Op::SetIndex { array, src, .. } | Op::SetIndexObserved { array, src, .. } => {
            operands.uses = vec![array, src];
        }
        Op::NewRecord {
            dst, shape, args, ..
        } => {
            operands.def = write(dst);
            operands.uses = register_range(args, program.shapes[shape.index()].fields.len());
        }
        Op::NewArray { dst, init, .. } => {
            operands.def = write(dst);
            operands.uses = vec![init];
        }
        Op::Lock { mutex, .. } | Op::Unlock { mutex, .. } => operands.uses = vec![mutex],
        Op::Wait { cond, mutex, .. } => operands.uses = vec![cond, mutex],
        Op::Signal { cond, .. } | Op::Broadcast { cond, .. } => operands.uses = vec![cond],
        Op::Join { .. }
        | Op::Yield
        | Op::AwaitBegin
        | Op::AtomicBegin
        | Op::AtomicEnd
        | Op::Assert { .. }
        | Op::Print { .. } => {}
    }
    operands
}

/// Disjoint sets of definitions.
struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        let mut root = x;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        while self.parent[x] != root {
            let next = self.parent[x];
            self.parent[x] = root;
            x = next;
        }
        root
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        // The smaller element becomes the root: deterministic numbering.
        if a < b {
            self.parent[b] = a;
        } else if b < a {
            self.parent[a] = b;
        }
    }
}

/// One function's registers split into webs (see the module
/// documentation): definitions that reach a common use are one web.
struct Webs {
    /// `def[pc]`: the web of the register instruction `pc` writes.
    def: Vec<Option<usize>>,
    /// The web each instruction reads from each register in its
    /// [`Operands::uses`], by `(pc, register)`.
    uses: BTreeMap<(usize, u16), usize>,
    /// `entry[r]`: the web of register `r` as the frame starts: a
    /// parameter, or `null`.
    entry: Vec<usize>,
    /// How many webs.
    count: usize,
}

impl Webs {
    /// Split `function`'s registers. For each register, a backward search
    /// from each of its uses finds the definitions that reach it, and joins
    /// the use with them. Where a search meets a point an earlier search of
    /// the same register went through, every definition reaching that point
    /// is already joined with the earlier use, so joining the two uses is
    /// exact and the search stops: each instruction is visited at most once
    /// per register.
    fn new(program: &Program, function: &Function) -> Webs {
        let code = &function.code;
        let n = code.len();
        let registers = usize::from(function.registers);
        let ops: Vec<Operands> = code.iter().map(|op| operands(program, op)).collect();
        let in_frame = |reg: Reg| {
            let r = usize::from(reg.0);
            assert!(
                r < registers,
                "invariant: a register lies inside its function's frame"
            );
            r
        };
        let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (pc, operands) in ops.iter().enumerate() {
            let next = operands.falls_through.then_some(pc + 1);
            let jump = operands.jump.map(|target| target as usize);
            for successor in next.into_iter().chain(jump).filter(|&s| s < n) {
                if !predecessors[successor].contains(&pc) {
                    predecessors[successor].push(pc);
                }
            }
        }
        // Union-find elements: `r` is register r's value at entry, then one
        // per writing instruction, then one per use.
        let mut def_at = vec![None; n];
        let mut elements = registers;
        for (pc, operands) in ops.iter().enumerate() {
            if let Some((reg, _)) = operands.def {
                in_frame(reg);
                def_at[pc] = Some(elements);
                elements += 1;
            }
        }
        let mut uses_of: Vec<Vec<(usize, usize)>> = vec![Vec::new(); registers];
        for (pc, operands) in ops.iter().enumerate() {
            for &reg in &operands.uses {
                let r = in_frame(reg);
                if uses_of[r].last().map(|&(at, _)| at) != Some(pc) {
                    uses_of[r].push((pc, elements));
                    elements += 1;
                }
            }
        }
        let mut sets = UnionFind::new(elements);
        // `visited[pc] == r + 1`: a search of register r went through the
        // point just before `pc`, for the use `owner[pc]`.
        let mut visited = vec![0usize; n];
        let mut owner = vec![0usize; n];
        let mut stack = Vec::new();
        for (r, uses) in uses_of.iter().enumerate() {
            for &(pc, used) in uses {
                stack.push(pc);
                while let Some(at) = stack.pop() {
                    if visited[at] == r + 1 {
                        sets.union(used, owner[at]);
                        continue;
                    }
                    visited[at] = r + 1;
                    owner[at] = used;
                    if at == 0 {
                        sets.union(used, r);
                    }
                    for &before in &predecessors[at] {
                        match (ops[before].def, def_at[before]) {
                            (Some((reg, overwrites)), Some(def)) if usize::from(reg.0) == r => {
                                sets.union(used, def);
                                if !overwrites {
                                    stack.push(before);
                                }
                            }
                            _ => stack.push(before),
                        }
                    }
                }
            }
        }
        let mut web_of_root = vec![usize::MAX; elements];
        let mut count = 0;
        let mut web = |element: usize| {
            let root = sets.find(element);
            if web_of_root[root] == usize::MAX {
                web_of_root[root] = count;
                count += 1;
            }
            web_of_root[root]
        };
        let entry = (0..registers).map(&mut web).collect();
        let def = def_at.iter().map(|d| d.map(&mut web)).collect();
        let mut read = BTreeMap::new();
        for (r, uses) in uses_of.iter().enumerate() {
            for &(pc, used) in uses {
                read.insert((pc, r as u16), web(used));
            }
        }
        Webs {
            def,
            uses: read,
            entry,
            count,
        }
    }
}

// ----- Constraints and their solution -----

/// A set of variables, one bit each, so that unions are word operations and
/// iteration is in id order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Bits {
    words: Vec<u64>,
}

impl Bits {
    fn with_capacity(n_vars: usize) -> Bits {
        Bits {
            words: vec![0; n_vars.div_ceil(64)],
        }
    }

    fn insert(&mut self, var: VarId) -> bool {
        let (word, bit) = (var.index() / 64, var.index() % 64);
        let before = self.words[word];
        self.words[word] |= 1 << bit;
        self.words[word] != before
    }

    /// `self ∪= other`; whether `self` grew.
    fn union_with(&mut self, other: &Bits) -> bool {
        let mut grew = false;
        for (mine, theirs) in self.words.iter_mut().zip(&other.words) {
            let before = *mine;
            *mine |= theirs;
            grew |= *mine != before;
        }
        grew
    }

    /// The members of `self` not in `other`.
    fn minus(&self, other: &Bits) -> Bits {
        Bits {
            words: self
                .words
                .iter()
                .zip(&other.words)
                .map(|(mine, theirs)| mine & !theirs)
                .collect(),
        }
    }

    fn iter(&self) -> impl Iterator<Item = VarId> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            (0..64)
                .filter(move |bit| word & (1 << bit) != 0)
                .map(move |bit| VarId((w * 64 + bit) as u32))
        })
    }
}

/// What a load or store reaches inside an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Content {
    /// A record's field.
    Field(FieldId),
    /// An array's elements, all of them.
    Element,
}

/// Where each node sits: the webs of every function, then return values,
/// then globals, then fields and elements of the abstract objects.
struct Layout {
    n_nodes: usize,
    webs: Vec<Webs>,
    /// `web_base[f]`: the node of web 0 of function `f`.
    web_base: Vec<usize>,
    return_base: usize,
    global_base: usize,
    /// The node of field `f` of record allocation site `v`, for every field
    /// the site's shape has.
    fields: BTreeMap<(VarId, FieldId), usize>,
    /// `elements[v]`: the element node of array object `v`, if it is one.
    elements: Vec<Option<usize>>,
}

impl Layout {
    fn new(program: &Program) -> Layout {
        let webs: Vec<Webs> = program
            .functions
            .iter()
            .map(|function| Webs::new(program, function))
            .collect();
        let mut n_nodes = 0;
        let mut web_base = Vec::with_capacity(webs.len());
        for function in &webs {
            web_base.push(n_nodes);
            n_nodes += function.count;
        }
        let return_base = n_nodes;
        n_nodes += program.functions.len();
        let global_base = n_nodes;
        n_nodes += program.globals.len();
        let mut fields = BTreeMap::new();
        for function in &program.functions {
            for op in &function.code {
                if let Op::NewRecord { shape, var, .. } = *op {
                    for &field in &program.shapes[shape.index()].fields {
                        fields.entry((var, field)).or_insert_with(|| {
                            n_nodes += 1;
                            n_nodes - 1
                        });
                    }
                }
            }
        }
        let mut elements = vec![None; program.vars.len()];
        for (index, var) in program.vars.iter().enumerate() {
            if matches!(var.kind, VarKind::NewArray | VarKind::GlobalArray) {
                elements[index] = Some(n_nodes);
                n_nodes += 1;
            }
        }
        Layout {
            n_nodes,
            webs,
            web_base,
            return_base,
            global_base,
            fields,
            elements,
        }
    }

    /// The node instruction `pc` of function `func` reads from `reg`.
    fn read(&self, func: usize, pc: usize, reg: Reg) -> usize {
        let Some(&web) = self.webs[func].uses.get(&(pc, reg.0)) else {
            unreachable!("invariant: every register read for a reference has a web")
        };
        self.web_base[func] + web
    }

    /// The node instruction `pc` of function `func` writes.
    fn written(&self, func: usize, pc: usize) -> usize {
        let Some(web) = self.webs[func].def[pc] else {
            unreachable!("invariant: a writing instruction has a web")
        };
        self.web_base[func] + web
    }

    /// The node of parameter `index` of `func`.
    fn parameter(&self, func: FuncId, index: usize) -> usize {
        let Some(&web) = self.webs[func.index()].entry.get(index) else {
            unreachable!("invariant: a function's frame holds its parameters")
        };
        self.web_base[func.index()] + web
    }

    fn return_value(&self, func: FuncId) -> usize {
        self.return_base + func.index()
    }

    fn global(&self, global: GlobalId) -> usize {
        self.global_base + global.index()
    }

    /// The node `content` of abstract object `var`, if it has one: loads and
    /// stores on objects without it are run-time errors.
    fn content(&self, var: VarId, content: Content) -> Option<usize> {
        match content {
            Content::Field(field) => self.fields.get(&(var, field)).copied(),
            Content::Element => self.elements[var.index()],
        }
    }

    /// The object a constant refers to, if any.
    fn constant_object(program: &Program, value: Value) -> Option<VarId> {
        const DECLARED: &str = "invariant: the constant pool names declared objects only";
        match value {
            Value::Ref(obj) => Some(program.arrays.get(obj.index()).expect(DECLARED).var),
            Value::Mutex(mutex) => Some(*program.mutexes.get(mutex.index()).expect(DECLARED)),
            Value::Cond(cond) => Some(*program.conds.get(cond.index()).expect(DECLARED)),
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Thread(_) => None,
        }
    }

    /// Turn every instruction into its constraints.
    #[allow(clippy::too_many_lines)]
    fn constraints(&self, program: &Program, solver: &mut Solver) {
        for (f, function) in program.functions.iter().enumerate() {
            for (pc, op) in function.code.iter().enumerate() {
                let read = |reg: Reg| self.read(f, pc, reg);
                let written = || self.written(f, pc);
                // Arguments into the callee's parameters, for calls and
                // spawns.
                let pass = |solver: &mut Solver, callee: FuncId, args: Reg, argc: u16| {
                    for (k, arg) in register_range(args, usize::from(argc))
                        .into_iter()
                        .enumerate()
                    {
                        solver.edge(read(arg), self.parameter(callee, k));
                    }
                };
                // Exhaustive on purpose: a new instruction must say how
                // values flow through it, or the analysis may become unsound.
                match *op {
                    Op::Const { value, .. } => {
                        let constant = program.consts[value.index()];
                        if let Some(var) = Self::constant_object(program, constant) {
                            solver.base(written(), var);
                        }
                    }
                    Op::Move { src, .. } => solver.edge(read(src), written()),
                    Op::Neg { .. }
                    | Op::Not { .. }
                    | Op::Add { .. }
                    | Op::Sub { .. }
                    | Op::Mul { .. }
                    | Op::Div { .. }
                    | Op::Rem { .. }
                    | Op::Lt { .. }
                    | Op::Le { .. }
                    | Op::Gt { .. }
                    | Op::Ge { .. }
                    | Op::Eq { .. }
                    | Op::Ne { .. }
                    | Op::Len { .. }
                    | Op::SelfId { .. } => {}
                    Op::Jump { .. }
                    | Op::Loop { .. }
                    | Op::ForStep { .. }
                    | Op::JumpIfFalse { .. }
                    | Op::JumpIfTrue { .. } => {}
                    Op::Call {
                        func: callee,
                        args,
                        argc,
                        ..
                    } => {
                        pass(solver, callee, args, argc);
                        solver.edge(self.return_value(callee), written());
                    }
                    // The spawned function's result is dropped; `dst` gets a
                    // thread handle.
                    Op::Spawn {
                        func: callee,
                        args,
                        argc,
                        ..
                    } => pass(solver, callee, args, argc),
                    Op::Return { src } => {
                        solver.edge(read(src), self.return_value(FuncId(f as u32)));
                    }
                    Op::GetGlobal { global, .. } | Op::GetGlobalObserved { global, .. } => {
                        solver.edge(self.global(global), written());
                    }
                    Op::SetGlobal { global, src, .. }
                    | Op::SetGlobalObserved { global, src, .. } => {
                        solver.edge(read(src), self.global(global));
                    }
                    Op::GetField { obj, field, .. } | Op::GetFieldObserved { obj, field, .. } => {
                        solver.load(read(obj), Content::Field(field), written());
                    }
                    Op::SetField {
                        obj, field, src, ..
                    }
                    | Op::SetFieldObserved {
                        obj, field, src, ..
                    } => {
                        solver.store(read(obj), Content::Field(field), read(src));
                    }
                    Op::GetIndex { array, .. } | Op::GetIndexObserved { array, .. } => {
                        solver.load(read(array), Content::Element, written());
                    }
                    Op::SetIndex { array, src, .. } | Op::SetIndexObserved { array, src, .. } => {
                        solver.store(read(array), Content::Element, read(src));
                    }
                    Op::NewRecord {
                        shape, args, var, ..
                    } => {
                        solver.base(written(), var);
                        let fields = &program.shapes[shape.index()].fields;
                        for (&field, arg) in fields.iter().zip(register_range(args, fields.len())) {
                            let Some(node) = self.content(var, Content::Field(field)) else {
                                unreachable!("invariant: every field of a shape has a node")
                            };
                            solver.edge(read(arg), node);
                        }
                    }
                    Op::NewArray { init, var, .. } => {
                        solver.base(written(), var);
                        let Some(node) = self.content(var, Content::Element) else {
                            unreachable!(
                                "invariant: an array allocation site is a NewArray variable"
                            )
                        };
                        solver.edge(read(init), node);
                    }
                    Op::NewMutex { var, .. } | Op::NewCond { var, .. } => {
                        solver.base(written(), var);
                    }
                    Op::Lock { .. }
                    | Op::Unlock { .. }
                    | Op::Wait { .. }
                    | Op::Signal { .. }
                    | Op::Broadcast { .. }
                    | Op::Join { .. }
                    | Op::Yield
                    | Op::AwaitBegin
                    | Op::AwaitCheck { .. }
                    | Op::AtomicBegin
                    | Op::AtomicEnd
                    | Op::Assert { .. }
                    | Op::Print { .. } => {}
                }
            }
        }
    }

    /// Every site's may-set, read off the solution `pts`.
    fn may_sets(&self, program: &Program, pts: &[Bits]) -> Vec<Vec<VarId>> {
        // What the lowering names is certain; it also covers sites in code
        // no path reaches, whose registers hold nothing there.
        let mut may: Vec<BTreeSet<VarId>> = program
            .sites
            .iter()
            .map(|site| site.var.into_iter().collect())
            .collect();
        let kind = |var: VarId| program.vars[var.index()].kind;
        let is_mutex = |var: VarId| matches!(kind(var), VarKind::Mutex | VarKind::NewMutex);
        let is_cond = |var: VarId| matches!(kind(var), VarKind::Cond | VarKind::NewCond);
        for (f, function) in program.functions.iter().enumerate() {
            for (pc, op) in function.code.iter().enumerate() {
                let targets = |reg: Reg| pts[self.read(f, pc, reg)].iter();
                let has =
                    |content: Content| move |&var: &VarId| self.content(var, content).is_some();
                let (site, vars): (SiteId, Vec<VarId>) = match *op {
                    Op::GetGlobal { global, site, .. }
                    | Op::GetGlobalObserved { global, site, .. }
                    | Op::SetGlobal { global, site, .. }
                    | Op::SetGlobalObserved { global, site, .. } => {
                        (site, vec![program.globals[global.index()].var])
                    }
                    Op::GetField {
                        obj, field, site, ..
                    }
                    | Op::GetFieldObserved {
                        obj, field, site, ..
                    }
                    | Op::SetField {
                        obj, field, site, ..
                    }
                    | Op::SetFieldObserved {
                        obj, field, site, ..
                    } => (
                        site,
                        targets(obj).filter(has(Content::Field(field))).collect(),
                    ),
                    Op::GetIndex { array, site, .. }
                    | Op::GetIndexObserved { array, site, .. }
                    | Op::SetIndex { array, site, .. }
                    | Op::SetIndexObserved { array, site, .. } => {
                        (site, targets(array).filter(has(Content::Element)).collect())
                    }
                    Op::Lock { mutex, site } | Op::Unlock { mutex, site } => {
                        (site, targets(mutex).filter(|&v| is_mutex(v)).collect())
                    }
                    Op::Signal { cond, site } | Op::Broadcast { cond, site } => {
                        (site, targets(cond).filter(|&v| is_cond(v)).collect())
                    }
                    // `wait` touches the cond when it blocks and the mutex
                    // when it relocks.
                    Op::Wait { cond, mutex, site } => (
                        site,
                        targets(cond)
                            .filter(|&v| is_cond(v))
                            .chain(targets(mutex).filter(|&v| is_mutex(v)))
                            .collect(),
                    ),
                    _ => continue,
                };
                may[site.index()].extend(vars);
            }
        }
        may.into_iter()
            .map(|set| set.into_iter().collect())
            .collect()
    }
}

/// The worklist solver of the inclusion constraints.
struct Solver {
    /// `pts[n]`: what node `n` may point to (the solution so far).
    pts: Vec<Bits>,
    /// `applied[n]`: the objects of `pts[n]` whose load and store edges
    /// have been added.
    applied: Vec<Bits>,
    /// Copy edges: `pts[m] ⊇ pts[n]` for every `m` in `copies[n]`.
    copies: Vec<BTreeSet<usize>>,
    /// `loads[n]`: `(content, dst)` for every `dst = n.content`.
    loads: Vec<Vec<(Content, usize)>>,
    /// `stores[n]`: `(content, src)` for every `n.content = src`.
    stores: Vec<Vec<(Content, usize)>>,
    worklist: VecDeque<usize>,
    /// `queued[n]`: `n` is on the worklist.
    queued: Vec<bool>,
}

impl Solver {
    fn new(n_nodes: usize, n_vars: usize) -> Solver {
        Solver {
            pts: vec![Bits::with_capacity(n_vars); n_nodes],
            applied: vec![Bits::with_capacity(n_vars); n_nodes],
            copies: vec![BTreeSet::new(); n_nodes],
            loads: vec![Vec::new(); n_nodes],
            stores: vec![Vec::new(); n_nodes],
            worklist: VecDeque::new(),
            queued: vec![false; n_nodes],
        }
    }

    fn push(&mut self, node: usize) {
        if !self.queued[node] {
            self.queued[node] = true;
            self.worklist.push_back(node);
        }
    }

    /// `var ∈ pts(node)`.
    fn base(&mut self, node: usize, var: VarId) {
        if self.pts[node].insert(var) {
            self.push(node);
        }
    }

    /// `pts(to) ⊇ pts(from)`.
    fn edge(&mut self, from: usize, to: usize) {
        if from != to && self.copies[from].insert(to) {
            let (source, target) = pair(&mut self.pts, from, to);
            if target.union_with(source) {
                self.push(to);
            }
        }
    }

    /// `pts(dst) ⊇ pts(o.content)` for every `o ∈ pts(base)`.
    fn load(&mut self, base: usize, content: Content, dst: usize) {
        self.loads[base].push((content, dst));
    }

    /// `pts(o.content) ⊇ pts(src)` for every `o ∈ pts(base)`.
    fn store(&mut self, base: usize, content: Content, src: usize) {
        self.stores[base].push((content, src));
    }

    /// Run the worklist to the least solution. Every load and store is
    /// known before this starts, and every node whose set is not empty is
    /// on the worklist.
    fn solve(&mut self, layout: &Layout) {
        while let Some(node) = self.worklist.pop_front() {
            self.queued[node] = false;
            // Objects new at this node get their load and store edges, once
            // per (object, base) pair.
            let fresh = self.pts[node].minus(&self.applied[node]);
            self.applied[node].union_with(&fresh);
            let loads = self.loads[node].clone();
            let stores = self.stores[node].clone();
            for var in fresh.iter() {
                for &(content, dst) in &loads {
                    if let Some(inner) = layout.content(var, content) {
                        self.edge(inner, dst);
                    }
                }
                for &(content, src) in &stores {
                    if let Some(inner) = layout.content(var, content) {
                        self.edge(src, inner);
                    }
                }
            }
            let targets: Vec<usize> = self.copies[node].iter().copied().collect();
            for target in targets {
                let (source, sink) = pair(&mut self.pts, node, target);
                if sink.union_with(source) {
                    self.push(target);
                }
            }
        }
    }
}

/// Shared access to `items[from]` and mutable access to `items[to]`
/// (`from != to`).
fn pair<T>(items: &mut [T], from: usize, to: usize) -> (&T, &mut T) {
    assert_ne!(from, to, "invariant: a copy edge joins two nodes");
    if from < to {
        let (low, high) = items.split_at_mut(to);
        (&low[from], &mut high[0])
    } else {
        let (low, high) = items.split_at_mut(from);
        (&high[0], &mut low[to])
    }
}
