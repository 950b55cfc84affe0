//! Lowering: name resolution, constant folding and translation of the
//! syntax tree into the engine's register IR.
//!
//! Every shared-memory access becomes its own [`Site`]; every declaration
//! and `new` expression becomes a [`Variable`], so `Q` is known before the
//! program runs. Name errors are collected, not stopped at the first.
//! Constants fold with the `-D` overrides the caller checked.
//!
//! An instruction that stands for another construct (a `for` range's test,
//! a condition, `&&`'s left operand, a `sync` block's lock and unlocks)
//! gets an [`ir::Construct`](Construct) beside it, so that a run-time error
//! is worded in the terms the user wrote. Once every check has passed (the
//! `await` conditions, the synchronisation operands' warnings), the program
//! goes through `optimize`, last, so that every diagnostic is about the
//! code as written.

use std::collections::BTreeMap;

use rankcheck_engine::id::{
    CondId, ConstId, FieldId, FuncId, GlobalId, MutexId, ObjId, PrintId, Reg, ShapeId, SiteId,
    StrId, VarId,
};
use rankcheck_engine::ir::{
    AccessKind, Construct, Function, Global, GlobalArray, Op, PrintArg, Program, Shape, Site,
    ThreadSpec, VarKind, Variable,
};
use rankcheck_engine::{Limits, Span, Value};

use crate::ast::{self, BinaryOp, Block, Expr, ExprKind, ItemKind, PlaceKind, StmtKind, UnaryOp};
use crate::await_check::check_await_conditions;
use crate::diagnostic::Diagnostic;
use crate::optimize::optimize;
use crate::sync_operands::{Declared, Needs, Operand, SyncOperands};

/// The most elements a global array or copies a replicated thread may have.
const MAX_STATIC_COUNT: i64 = 1 << 20;

/// The most elements all global arrays may hold together: the VM's heap
/// limit (`Limits::max_heap_slots`), where they live.
const MAX_GLOBAL_ELEMENTS: u64 = 1 << 24;

/// The construct `kind` names, for an expression where a constant must
/// stand: what the user wrote, in docs/LANGUAGE.md's words.
fn named_construct(kind: &ExprKind) -> &'static str {
    match kind {
        ExprKind::Field { .. } => "a field read",
        ExprKind::Index { .. } => "an array element",
        ExprKind::Call { .. } => "a call",
        ExprKind::Unary {
            op: UnaryOp::Not, ..
        } => "`!`",
        ExprKind::NewRecord(_)
        | ExprKind::NewArray { .. }
        | ExprKind::NewMutex
        | ExprKind::NewCond => "`new`",
        ExprKind::Len(_) => "`len`",
        ExprKind::Spawn { .. } => "`spawn`",
        ExprKind::SelfId => "`self()`",
        _ => "an expression",
    }
}

/// What a program-level name stands for.
#[derive(Clone, Copy, Debug)]
enum Symbol {
    Const(i64),
    Global(GlobalId, VarId),
    Array(ObjId, VarId),
    Mutex(MutexId, VarId),
    Cond(CondId, VarId),
    Function(FuncId, usize),
    Thread,
}

/// Lower a parsed module. `defines` override `const` values (`-D NAME=VALUE`);
/// the caller has checked that each names a `const` of the module. The
/// program comes out optimised (instr/src/optimize.rs): the same behaviour
/// in fewer dispatched instructions.
pub fn lower(
    source: &str,
    module: &ast::Module,
    defines: &BTreeMap<String, i64>,
) -> Result<Lowered, Vec<Diagnostic>> {
    let mut lowerer = Lowerer::new(source);
    lowerer.declare_items(module, defines);
    lowerer.lower_bodies(module);
    lowerer.name_sites_apart();
    if lowerer.errors.is_empty() {
        lowerer.errors = check_await_conditions(&lowerer.program);
    }
    if lowerer.errors.is_empty() {
        let warnings = std::mem::take(&mut lowerer.sync_operands).finish();
        // Last, so that every diagnostic is about the code as written.
        let mut program = lowerer.program;
        optimize(&mut program);
        Ok(Lowered { program, warnings })
    } else {
        Err(lowerer.errors)
    }
}

/// The id of `value` in the constant pool `consts`, added if new.
pub(crate) fn intern_const(consts: &mut Vec<Value>, value: Value) -> ConstId {
    match consts.iter().position(|&v| v == value) {
        Some(i) => ConstId(i as u32),
        None => {
            consts.push(value);
            ConstId(consts.len() as u32 - 1)
        }
    }
}

/// A lowered program, with what the compiler warns of.
pub struct Lowered {
    /// The program.
    pub program: Program,
    /// Statements that fail whenever they run (instr::sync_operands).
    pub warnings: Vec<Diagnostic>,
}

/// The names of a module's `const` items, for checking `-D` overrides.
pub fn const_names(module: &ast::Module) -> Vec<&str> {
    module
        .items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::Const(c) => Some(c.name.name.as_str()),
            _ => None,
        })
        .collect()
}

struct Lowerer<'s> {
    source: &'s str,
    /// Byte offsets where lines start, for naming allocation sites by line.
    line_starts: Vec<usize>,
    program: Program,
    symbols: BTreeMap<String, (Symbol, Span)>,
    errors: Vec<Diagnostic>,
    fields: BTreeMap<String, FieldId>,
    sync_operands: SyncOperands,
}

impl<'s> Lowerer<'s> {
    fn new(source: &'s str) -> Lowerer<'s> {
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lowerer {
            source,
            line_starts,
            program: Program::default(),
            symbols: BTreeMap::new(),
            errors: Vec::new(),
            fields: BTreeMap::new(),
            sync_operands: SyncOperands::default(),
        }
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.errors.push(diagnostic);
    }

    fn line_of(&self, span: Span) -> usize {
        self.line_starts
            .partition_point(|&start| start <= span.start as usize)
    }

    /// Allocation sites are named `f:new@LINE`; where one line of a
    /// function has several, each gets its column too (`f:new@LINE:COL`,
    /// counted in characters from 1), so that every variable a report or
    /// `--track` names is one.
    fn name_sites_apart(&mut self) {
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        let sites = || (self.program.vars.iter()).filter(|v| v.kind.is_allocation_site());
        for var in sites() {
            *count.entry(var.name.clone()).or_default() += 1;
        }
        for var in &mut self.program.vars {
            if var.kind.is_allocation_site() && count[&var.name] > 1 {
                let start = var.span.start as usize;
                let line_start =
                    self.line_starts[self.line_starts.partition_point(|&s| s <= start) - 1];
                let column = self.source[line_start..start].chars().count() + 1;
                var.name = format!("{}:{column}", var.name);
            }
        }
    }

    fn add_var(&mut self, name: String, kind: VarKind, span: Span) -> VarId {
        let id = VarId(self.program.vars.len() as u32);
        self.program.vars.push(Variable { name, kind, span });
        id
    }

    fn intern_const(&mut self, value: Value) -> ConstId {
        intern_const(&mut self.program.consts, value)
    }

    fn intern_string(&mut self, text: &str) -> StrId {
        match self.program.strings.iter().position(|s| s == text) {
            Some(i) => StrId(i as u32),
            None => {
                self.program.strings.push(text.to_string());
                StrId(self.program.strings.len() as u32 - 1)
            }
        }
    }

    fn intern_field(&mut self, name: &str) -> FieldId {
        if let Some(&id) = self.fields.get(name) {
            return id;
        }
        let id = FieldId(self.program.fields.len() as u32);
        self.program.fields.push(name.to_string());
        self.fields.insert(name.to_string(), id);
        id
    }

    /// Enter every item's name, fold constants and lay out the globals, so
    /// that bodies can refer to items declared after them.
    fn declare_items(&mut self, module: &ast::Module, defines: &BTreeMap<String, i64>) {
        // Names first, so constants may refer to constants declared later.
        let mut consts: BTreeMap<String, &ast::ConstItem> = BTreeMap::new();
        for item in &module.items {
            let name = match &item.kind {
                ItemKind::Const(c) => &c.name,
                ItemKind::Global(g) => &g.name,
                ItemKind::Mutex(n) | ItemKind::Cond(n) => n,
                ItemKind::Fn(f) => &f.name,
                ItemKind::Thread(t) => &t.name,
            };
            if let Some((_, first)) = self.symbols.get(&name.name) {
                let first = *first;
                self.error(
                    Diagnostic::error(name.span, format!("duplicate name `{}`", name.name))
                        .with_label("defined again here")
                        .with_related(first, "first defined here")
                        .with_note("names are unique across items"),
                );
                continue;
            }
            self.symbols
                .insert(name.name.clone(), (Symbol::Thread, name.span));
            if let ItemKind::Const(c) = &item.kind {
                consts.insert(c.name.name.clone(), c);
            }
        }
        // Constants, with `-D` overrides, in dependency order.
        let mut folding = Vec::new();
        for name in consts.keys() {
            self.fold_named_const(name, &consts, defines, &mut folding);
        }
        let mut function_count = 0u32;
        let mut main = None;
        for item in &module.items {
            let span = item.span;
            match &item.kind {
                ItemKind::Const(_) => {}
                ItemKind::Global(g) => self.declare_global(g, span),
                ItemKind::Mutex(name) => {
                    let var = self.add_var(name.name.clone(), VarKind::Mutex, span);
                    let id = MutexId(self.program.mutexes.len() as u32);
                    self.program.mutexes.push(var);
                    self.define(name, Symbol::Mutex(id, var));
                }
                ItemKind::Cond(name) => {
                    let var = self.add_var(name.name.clone(), VarKind::Cond, span);
                    let id = CondId(self.program.conds.len() as u32);
                    self.program.conds.push(var);
                    self.define(name, Symbol::Cond(id, var));
                }
                ItemKind::Fn(f) => {
                    let id = FuncId(function_count);
                    function_count += 1;
                    self.define(&f.name, Symbol::Function(id, f.params.len()));
                    if f.name.name == "main" {
                        if !f.params.is_empty() {
                            self.error(Diagnostic::error(
                                f.name.span,
                                "`main` takes no parameters: it is the first thread",
                            ));
                        }
                        main = Some(id);
                    }
                }
                ItemKind::Thread(t) => {
                    function_count += 1;
                    self.define(&t.name, Symbol::Thread);
                }
            }
        }
        // Initial threads: main, then thread items in source order.
        if let Some(func) = main {
            self.program.threads.push(ThreadSpec {
                name: "main".into(),
                func,
                args: Vec::new(),
            });
        }
        let mut func = 0u32;
        for item in &module.items {
            match &item.kind {
                ItemKind::Fn(_) => func += 1,
                ItemKind::Thread(t) => {
                    let id = FuncId(func);
                    func += 1;
                    match &t.replication {
                        None => self.program.threads.push(ThreadSpec {
                            name: t.name.name.clone(),
                            func: id,
                            args: Vec::new(),
                        }),
                        Some(rep) => {
                            let Some(count) = self.static_count(&rep.count, "a thread count")
                            else {
                                continue;
                            };
                            let threads = self.program.threads.len() + count as usize;
                            let limit = Limits::default().max_threads;
                            if threads > limit {
                                self.error(Diagnostic::error(
                                    rep.count.span,
                                    format!("the program starts {threads} threads, more than the limit of {limit}"),
                                ));
                                continue;
                            }
                            for copy in 0..count {
                                self.program.threads.push(ThreadSpec {
                                    name: format!("{}[{copy}]", t.name.name),
                                    func: id,
                                    args: vec![Value::Int(copy)],
                                });
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        // A replicated thread of no copies is still a `thread` item: such a
        // program is valid, and ends at once.
        let thread_item =
            (module.items.iter()).any(|item| matches!(item.kind, ItemKind::Thread(_)));
        if main.is_none() && !thread_item && self.errors.is_empty() {
            self.error(
                Diagnostic::error(Span::new(0, 0), "the program has no `main` function and no `thread` item")
                    .with_note("a program starts with `fn main() { ... }` or one or more `thread NAME { ... }` items"),
            );
        }
    }

    fn define(&mut self, name: &ast::Ident, symbol: Symbol) {
        // A duplicate keeps its first definition; the error is already out.
        if let Some(entry) = self.symbols.get_mut(&name.name) {
            if entry.1 == name.span {
                entry.0 = symbol;
            }
        }
    }

    fn fold_named_const(
        &mut self,
        name: &str,
        consts: &BTreeMap<String, &ast::ConstItem>,
        defines: &BTreeMap<String, i64>,
        folding: &mut Vec<String>,
    ) -> Option<i64> {
        if let Some((Symbol::Const(v), _)) = self.symbols.get(name) {
            return Some(*v);
        }
        let item = consts.get(name)?;
        let value = if let Some(&v) = defines.get(name) {
            Some(v)
        } else if folding.iter().any(|n| n == name) {
            self.error(Diagnostic::error(
                item.name.span,
                format!("the value of const `{name}` depends on itself"),
            ));
            None
        } else {
            folding.push(name.to_string());
            let value = self.fold(&item.value, Some((consts, defines, folding)));
            folding.pop();
            value.and_then(|v| match v {
                Value::Int(i) => Some(i),
                other => {
                    self.error(Diagnostic::error(
                        item.value.span,
                        format!("a const must be an integer, found {}", other.type_name()),
                    ));
                    None
                }
            })
        };
        // A const that failed to fold still gets a value, so that its uses
        // do not report errors of their own.
        self.define(&item.name, Symbol::Const(value.unwrap_or(0)));
        value
    }

    /// Evaluate a constant expression: literals, consts and integer
    /// arithmetic. `consts` is given while constants themselves are folded.
    #[allow(clippy::type_complexity)]
    fn fold(
        &mut self,
        expr: &Expr,
        mut consts: Option<(
            &BTreeMap<String, &ast::ConstItem>,
            &BTreeMap<String, i64>,
            &mut Vec<String>,
        )>,
    ) -> Option<Value> {
        let not_constant = |what: &str| {
            Diagnostic::error(expr.span, format!("expected a constant, found {what}"))
                .with_note("constants are integers, `true`, `false`, `null`, const names and arithmetic on them")
        };
        match &expr.kind {
            ExprKind::Int(i) => Some(Value::Int(*i)),
            ExprKind::Bool(b) => Some(Value::Bool(*b)),
            ExprKind::Null => Some(Value::Null),
            ExprKind::Name(name) => {
                let symbol = self.symbols.get(&name.name).map(|s| s.0);
                match symbol {
                    Some(Symbol::Const(v)) => Some(Value::Int(v)),
                    Some(Symbol::Thread)
                        if consts
                            .as_ref()
                            .is_some_and(|c| c.0.contains_key(&name.name)) =>
                    {
                        let (c, d, f) = consts.as_mut()?;
                        self.fold_named_const(&name.name, c, d, f).map(Value::Int)
                    }
                    Some(_) => {
                        self.error(not_constant(&format!(
                            "`{}`, which is not a const",
                            name.name
                        )));
                        None
                    }
                    None => {
                        self.error(Diagnostic::error(
                            name.span,
                            format!("unknown name `{}`", name.name),
                        ));
                        None
                    }
                }
            }
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
                ..
            } => match self.fold(operand, consts)? {
                Value::Int(i) => self.checked(i.checked_neg(), expr.span),
                other => {
                    self.error(not_constant(&format!(
                        "`-` applied to {}",
                        other.type_name()
                    )));
                    None
                }
            },
            ExprKind::Binary { op, lhs, rhs, .. } => {
                let a = self.fold(lhs, consts.as_mut().map(|(c, d, f)| (*c, *d, &mut **f)))?;
                let b = self.fold(rhs, consts)?;
                let (Value::Int(a), Value::Int(b)) = (a, b) else {
                    self.error(not_constant(&format!("`{op}` on non-integers")));
                    return None;
                };
                let result = match op {
                    BinaryOp::Add => a.checked_add(b),
                    BinaryOp::Sub => a.checked_sub(b),
                    BinaryOp::Mul => a.checked_mul(b),
                    BinaryOp::Div if b != 0 => a.checked_div(b),
                    BinaryOp::Rem if b != 0 => a.checked_rem(b),
                    BinaryOp::Div | BinaryOp::Rem => {
                        self.error(Diagnostic::error(
                            expr.span,
                            "division by zero in a constant",
                        ));
                        return None;
                    }
                    _ => {
                        self.error(not_constant(&format!("`{op}`")));
                        return None;
                    }
                };
                self.checked(result, expr.span)
            }
            other => {
                self.error(not_constant(named_construct(other)));
                None
            }
        }
    }

    fn checked(&mut self, value: Option<i64>, span: Span) -> Option<Value> {
        if value.is_none() {
            self.error(Diagnostic::error(span, "integer overflow in a constant"));
        }
        value.map(Value::Int)
    }

    /// A constant count in `0..=MAX_STATIC_COUNT`.
    fn static_count(&mut self, expr: &Expr, what: &str) -> Option<i64> {
        match self.fold(expr, None)? {
            Value::Int(n) if (0..=MAX_STATIC_COUNT).contains(&n) => Some(n),
            Value::Int(n) => {
                self.error(Diagnostic::error(
                    expr.span,
                    format!("{what} must be between 0 and {MAX_STATIC_COUNT}, found {n}"),
                ));
                None
            }
            other => {
                self.error(Diagnostic::error(
                    expr.span,
                    format!("{what} must be an integer, found {}", other.type_name()),
                ));
                None
            }
        }
    }

    fn declare_global(&mut self, global: &ast::GlobalItem, span: Span) {
        let init = match &global.init {
            Some(expr) => self.fold(expr, None).unwrap_or(Value::Int(0)),
            None => Value::Int(0),
        };
        match &global.array_len {
            None => {
                let var = self.add_var(global.name.name.clone(), VarKind::Global, span);
                let id = GlobalId(self.program.globals.len() as u32);
                self.program.globals.push(Global { var, init });
                self.define(&global.name, Symbol::Global(id, var));
            }
            Some(len_expr) => {
                let var = self.add_var(global.name.name.clone(), VarKind::GlobalArray, span);
                let len = self.static_count(len_expr, "an array length").unwrap_or(0);
                let total: u64 = self
                    .program
                    .arrays
                    .iter()
                    .map(|a| u64::from(a.len))
                    .sum::<u64>()
                    + len as u64;
                if total > MAX_GLOBAL_ELEMENTS {
                    self.error(
                        Diagnostic::error(
                            len_expr.span,
                            format!(
                                "the global arrays hold {total} elements in all, more than the heap limit of {MAX_GLOBAL_ELEMENTS}"
                            ),
                        )
                        .with_note("allocate large arrays with `new [N]` where they are needed"),
                    );
                }
                let obj = ObjId(self.program.arrays.len() as u32);
                self.program.arrays.push(GlobalArray {
                    var,
                    len: len as u32,
                    init,
                });
                self.define(&global.name, Symbol::Array(obj, var));
            }
        }
    }

    fn lower_bodies(&mut self, module: &ast::Module) {
        for item in &module.items {
            let function = match &item.kind {
                ItemKind::Fn(f) => self.lower_function(&f.name.name, item.span, &f.params, &f.body),
                ItemKind::Thread(t) => {
                    let params: Vec<ast::Ident> =
                        t.replication.iter().map(|r| r.index.clone()).collect();
                    self.lower_function(&t.name.name, item.span, &params, &t.body)
                }
                _ => continue,
            };
            self.program.functions.push(function);
        }
    }

    fn lower_function(
        &mut self,
        name: &str,
        span: Span,
        params: &[ast::Ident],
        body: &Block,
    ) -> Function {
        let func = FuncId(self.program.functions.len() as u32);
        let mut builder = FunctionBuilder::new(func, name);
        builder.scopes.push(Vec::new());
        for (i, param) in params.iter().enumerate() {
            if params[..i].iter().any(|p| p.name == param.name) {
                self.error(Diagnostic::error(
                    param.span,
                    format!("duplicate parameter `{}`", param.name),
                ));
            }
            let reg = builder.alloc(self, param.span);
            builder.bind(&param.name, reg);
        }
        builder.block(self, body);
        // Falling off the end returns null.
        let r = builder.temp(self, body.span);
        let null = self.intern_const(Value::Null);
        let end = Span::new(body.span.end.saturating_sub(1), body.span.end);
        builder.emit(
            Op::Const {
                dst: r,
                value: null,
            },
            end,
        );
        builder.emit(Op::Return { src: r }, end);
        Function {
            name: name.to_string(),
            span,
            params: params.len() as u16,
            registers: builder.max_regs,
            code: builder.code,
            spans: builder.spans,
            constructs: builder.constructs,
        }
    }
}

/// A region that an early exit must close: a `sync` block's mutex or an
/// `atomic` block.
#[derive(Clone, Copy, Debug)]
enum Region {
    Sync { mutex: Reg, var: Option<VarId> },
    Atomic,
}

/// The innermost loop's jump targets and the regions open at its start.
struct LoopContext {
    continue_target: Option<usize>,
    continue_jumps: Vec<usize>,
    break_jumps: Vec<usize>,
    regions: usize,
}

/// Builds one function's code.
struct FunctionBuilder {
    func: FuncId,
    name: String,
    code: Vec<Op>,
    spans: Vec<Span>,
    /// The instructions that stand for another construct, in emission
    /// (so `pc`) order.
    constructs: Vec<(u32, Construct)>,
    /// Next free register; registers below it are live.
    next_reg: u32,
    max_regs: u16,
    scopes: Vec<Vec<(String, Reg)>>,
    loops: Vec<LoopContext>,
    regions: Vec<Region>,
    too_many_registers: bool,
}

impl FunctionBuilder {
    fn new(func: FuncId, name: &str) -> FunctionBuilder {
        FunctionBuilder {
            func,
            name: name.to_string(),
            code: Vec::new(),
            spans: Vec::new(),
            constructs: Vec::new(),
            next_reg: 0,
            max_regs: 0,
            scopes: Vec::new(),
            loops: Vec::new(),
            regions: Vec::new(),
            too_many_registers: false,
        }
    }

    fn emit(&mut self, op: Op, span: Span) -> usize {
        self.code.push(op);
        self.spans.push(span);
        self.code.len() - 1
    }

    /// [`FunctionBuilder::emit`], for an instruction that stands for
    /// `construct`, so that its run-time errors name what the user wrote.
    fn emit_for(&mut self, construct: Construct, op: Op, span: Span) -> usize {
        let at = self.emit(op, span);
        self.constructs.push((at as u32, construct));
        at
    }

    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.code[at] {
            Op::Jump { target: t }
            | Op::JumpIfFalse { target: t, .. }
            | Op::JumpIfTrue { target: t, .. } => {
                *t = target;
            }
            other => unreachable!("invariant: only forward jumps are patched, found {other:?}"),
        }
    }

    /// A fresh register, live until the enclosing statement or block ends.
    fn alloc(&mut self, lowerer: &mut Lowerer<'_>, span: Span) -> Reg {
        if self.next_reg >= u32::from(u16::MAX) {
            if !self.too_many_registers {
                self.too_many_registers = true;
                lowerer.error(Diagnostic::error(
                    span,
                    format!(
                        "function `{}` needs more than {} registers",
                        self.name,
                        u16::MAX
                    ),
                ));
            }
            return Reg(0);
        }
        let reg = Reg(self.next_reg as u16);
        self.next_reg += 1;
        self.max_regs = self.max_regs.max(self.next_reg as u16);
        reg
    }

    fn temp(&mut self, lowerer: &mut Lowerer<'_>, span: Span) -> Reg {
        self.alloc(lowerer, span)
    }

    fn bind(&mut self, name: &str, reg: Reg) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), reg));
        }
    }

    fn local(&self, name: &str) -> Option<Reg> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.iter().rev().find(|(n, _)| n == name).map(|&(_, r)| r))
    }

    fn site(
        &mut self,
        lowerer: &mut Lowerer<'_>,
        span: Span,
        kind: AccessKind,
        var: Option<VarId>,
    ) -> SiteId {
        let text: String = lowerer
            .source
            .get(span.range())
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let text = if text.chars().count() > 40 {
            format!("{}...", text.chars().take(37).collect::<String>())
        } else {
            text
        };
        let id = SiteId(lowerer.program.sites.len() as u32);
        lowerer.program.sites.push(Site {
            span,
            kind,
            func: self.func,
            var,
            text,
        });
        id
    }

    fn block(&mut self, lowerer: &mut Lowerer<'_>, block: &Block) {
        let mark = self.next_reg;
        self.scopes.push(Vec::new());
        for stmt in &block.stmts {
            self.stmt(lowerer, stmt);
        }
        self.scopes.pop();
        self.next_reg = mark;
    }

    /// Close the regions above `depth`, innermost first, for an early exit
    /// at `span`.
    fn close_regions(&mut self, lowerer: &mut Lowerer<'_>, depth: usize, span: Span) {
        for i in (depth..self.regions.len()).rev() {
            match self.regions[i] {
                Region::Sync { mutex, var } => {
                    let site = self.site(lowerer, span, AccessKind::Unlock, var);
                    self.emit_for(Construct::Sync, Op::Unlock { mutex, site }, span);
                }
                Region::Atomic => {
                    self.emit(Op::AtomicEnd, span);
                }
            }
        }
    }

    #[allow(clippy::too_many_lines)]
    fn stmt(&mut self, lowerer: &mut Lowerer<'_>, stmt: &ast::Stmt) {
        let mark = self.next_reg;
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Let { name, value } => {
                let reg = self.alloc(lowerer, name.span);
                self.expr_into(lowerer, value, reg);
                self.bind(&name.name, reg);
                // The local stays live: do not release its register.
                return;
            }
            StmtKind::Assign { target, value } => match &target.kind {
                PlaceKind::Name(name) => {
                    if let Some(reg) = self.local(&name.name) {
                        self.expr_into(lowerer, value, reg);
                    } else {
                        match lowerer.symbols.get(&name.name).map(|s| s.0) {
                            Some(Symbol::Global(global, var)) => {
                                lowerer.sync_operands.assigned(global);
                                let src = self.expr(lowerer, value);
                                let site =
                                    self.site(lowerer, name.span, AccessKind::Write, Some(var));
                                self.emit(Op::SetGlobalObserved { global, src, site }, span);
                            }
                            Some(symbol) => {
                                let what = describe(symbol);
                                lowerer.error(Diagnostic::error(
                                    name.span,
                                    format!("cannot assign to `{}`: it is {what}", name.name),
                                ));
                            }
                            None => lowerer.error(unknown_name(name)),
                        }
                    }
                }
                PlaceKind::Field { base, field } => {
                    let obj = self.expr(lowerer, base);
                    let src = self.expr(lowerer, value);
                    let field = lowerer.intern_field(&field.name);
                    let site = self.site(lowerer, target.span, AccessKind::Write, None);
                    self.emit(
                        Op::SetFieldObserved {
                            obj,
                            field,
                            src,
                            site,
                        },
                        target.span,
                    );
                }
                PlaceKind::Index { base, index } => {
                    let (array, var) = self.array_base(lowerer, base);
                    let index = self.expr(lowerer, index);
                    let src = self.expr(lowerer, value);
                    let site = self.site(lowerer, target.span, AccessKind::Write, var);
                    self.emit(
                        Op::SetIndexObserved {
                            array,
                            index,
                            src,
                            site,
                        },
                        target.span,
                    );
                }
            },
            StmtKind::If { arms, else_block } => {
                let mut end_jumps = Vec::new();
                for arm in arms {
                    let cond = self.expr(lowerer, &arm.cond);
                    let jump = Op::JumpIfFalse { cond, target: 0 };
                    let skip = self.emit_for(Construct::If, jump, arm.cond.span);
                    self.next_reg = mark;
                    self.block(lowerer, &arm.body);
                    end_jumps.push(self.emit(Op::Jump { target: 0 }, arm.span));
                    let here = self.here();
                    self.patch(skip, here);
                }
                if let Some(block) = else_block {
                    self.block(lowerer, block);
                }
                let here = self.here();
                for jump in end_jumps {
                    self.patch(jump, here);
                }
            }
            StmtKind::While { cond, body } => {
                let top = self.here();
                let c = self.expr(lowerer, cond);
                let jump = Op::JumpIfFalse { cond: c, target: 0 };
                let exit = self.emit_for(Construct::While, jump, cond.span);
                self.next_reg = mark;
                self.loops.push(LoopContext {
                    continue_target: Some(top as usize),
                    continue_jumps: Vec::new(),
                    break_jumps: vec![exit],
                    regions: self.regions.len(),
                });
                self.block(lowerer, body);
                self.emit(Op::Loop { target: top }, span);
                self.end_loop();
            }
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                // Hidden counter and bound: the bounds are evaluated once,
                // and assigning the loop variable does not change the count.
                let counter = self.alloc(lowerer, start.span);
                self.expr_into(lowerer, start, counter);
                let bound = self.alloc(lowerer, end.span);
                self.expr_into(lowerer, end, bound);
                let more = self.temp(lowerer, span);
                self.emit_for(
                    Construct::ForRange,
                    Op::Lt {
                        dst: more,
                        lhs: counter,
                        rhs: bound,
                    },
                    Span::new(start.span.start, end.span.end),
                );
                let exit = self.emit(
                    Op::JumpIfFalse {
                        cond: more,
                        target: 0,
                    },
                    span,
                );
                self.loops.push(LoopContext {
                    continue_target: None,
                    continue_jumps: Vec::new(),
                    break_jumps: vec![exit],
                    regions: self.regions.len(),
                });
                let body_top = self.here();
                self.scopes.push(Vec::new());
                let i = self.alloc(lowerer, var.span);
                self.emit(
                    Op::Move {
                        dst: i,
                        src: counter,
                    },
                    var.span,
                );
                self.bind(&var.name, i);
                self.block(lowerer, body);
                self.scopes.pop();
                let step_at = self.here();
                let context = self
                    .loops
                    .last_mut()
                    .unwrap_or_else(|| unreachable!("invariant: loop context pushed"));
                let jumps = std::mem::take(&mut context.continue_jumps);
                for jump in jumps {
                    self.patch(jump, step_at);
                }
                self.emit(
                    Op::ForStep {
                        counter,
                        bound,
                        target: body_top,
                    },
                    span,
                );
                self.end_loop();
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(stmt.kind, StmtKind::Break);
                let Some(depth) = self.loops.last().map(|l| l.regions) else {
                    let word = if is_break { "break" } else { "continue" };
                    lowerer.error(Diagnostic::error(span, format!("`{word}` outside a loop")));
                    return;
                };
                self.close_regions(lowerer, depth, span);
                let context = self
                    .loops
                    .last()
                    .unwrap_or_else(|| unreachable!("invariant: checked above"));
                match (is_break, context.continue_target) {
                    (false, Some(top)) => {
                        self.emit(Op::Loop { target: top as u32 }, span);
                    }
                    _ => {
                        let jump = self.emit(Op::Jump { target: 0 }, span);
                        let context = self
                            .loops
                            .last_mut()
                            .unwrap_or_else(|| unreachable!("invariant: checked above"));
                        if is_break {
                            context.break_jumps.push(jump);
                        } else {
                            context.continue_jumps.push(jump);
                        }
                    }
                }
            }
            StmtKind::Return(value) => {
                let src = match value {
                    Some(e) => self.expr(lowerer, e),
                    None => self.constant(lowerer, Value::Null, span),
                };
                self.close_regions(lowerer, 0, span);
                self.emit(Op::Return { src }, span);
            }
            StmtKind::Assert { cond, message } => {
                let c = self.expr(lowerer, cond);
                let message = message.as_ref().map(|m| lowerer.intern_string(&m.value));
                self.emit(Op::Assert { cond: c, message }, span);
            }
            StmtKind::Lock(m) | StmtKind::Unlock(m) => {
                let unlock = matches!(stmt.kind, StmtKind::Unlock(_));
                let op = if unlock { "unlock" } else { "lock" };
                let (mutex, var) = self.sync_operand(lowerer, m, op, Needs::Mutex);
                let kind = if unlock {
                    AccessKind::Unlock
                } else {
                    AccessKind::Lock
                };
                let site = self.site(lowerer, span, kind, var);
                let op = if unlock {
                    Op::Unlock { mutex, site }
                } else {
                    Op::Lock { mutex, site }
                };
                self.emit(op, span);
            }
            StmtKind::Sync { mutex: m, body } => {
                self.check_sync_operand(lowerer, m, "sync", Needs::Mutex);
                let mutex = self.alloc(lowerer, m.span);
                let var = self.static_var(lowerer, m);
                self.expr_into(lowerer, m, mutex);
                let site = self.site(lowerer, m.span, AccessKind::Lock, var);
                self.emit_for(Construct::Sync, Op::Lock { mutex, site }, m.span);
                self.regions.push(Region::Sync { mutex, var });
                self.block(lowerer, body);
                self.regions.pop();
                let end = Span::new(body.span.end.saturating_sub(1), body.span.end);
                let site = self.site(lowerer, end, AccessKind::Unlock, var);
                self.emit_for(Construct::Sync, Op::Unlock { mutex, site }, end);
            }
            StmtKind::Wait { cond, mutex } => {
                let operands = [
                    self.sync_operand_kind(lowerer, cond, "wait", Needs::Cond),
                    self.sync_operand_kind(lowerer, mutex, "wait", Needs::Mutex),
                ];
                lowerer.sync_operands.check_wait(span, operands);
                let (c, var) = (self.expr(lowerer, cond), self.static_var(lowerer, cond));
                let m = self.expr(lowerer, mutex);
                let site = self.site(lowerer, span, AccessKind::Wait, var);
                self.emit(
                    Op::Wait {
                        cond: c,
                        mutex: m,
                        site,
                    },
                    span,
                );
            }
            StmtKind::Signal(c) | StmtKind::Broadcast(c) => {
                let broadcast = matches!(stmt.kind, StmtKind::Broadcast(_));
                let op = if broadcast { "broadcast" } else { "signal" };
                let (cond, var) = self.sync_operand(lowerer, c, op, Needs::Cond);
                let kind = if broadcast {
                    AccessKind::Broadcast
                } else {
                    AccessKind::Signal
                };
                let site = self.site(lowerer, span, kind, var);
                let op = if broadcast {
                    Op::Broadcast { cond, site }
                } else {
                    Op::Signal { cond, site }
                };
                self.emit(op, span);
            }
            StmtKind::Await(cond) => {
                let retry = self.emit(Op::AwaitBegin, span) as u32;
                let c = self.expr(lowerer, cond);
                self.emit(Op::AwaitCheck { cond: c, retry }, span);
            }
            StmtKind::Atomic(body) => {
                self.emit(Op::AtomicBegin, span);
                self.regions.push(Region::Atomic);
                self.block(lowerer, body);
                self.regions.pop();
                let end = Span::new(body.span.end.saturating_sub(1), body.span.end);
                self.emit(Op::AtomicEnd, end);
            }
            StmtKind::Yield => {
                self.emit(Op::Yield, span);
            }
            StmtKind::Join(handle) => {
                let thread = self.expr(lowerer, handle);
                self.emit(Op::Join { thread }, span);
            }
            StmtKind::Print(args) => {
                let mut lowered = Vec::new();
                for arg in args {
                    lowered.push(match arg {
                        ast::PrintArg::Str(s) => PrintArg::Str(lowerer.intern_string(&s.value)),
                        ast::PrintArg::Expr(e) => PrintArg::Reg(self.expr(lowerer, e)),
                    });
                }
                let print = PrintId(lowerer.program.prints.len() as u32);
                lowerer.program.prints.push(lowered);
                self.emit(Op::Print { print }, span);
            }
            StmtKind::Expr(e) => {
                self.expr(lowerer, e);
            }
        }
        self.next_reg = mark;
    }

    fn end_loop(&mut self) {
        let Some(context) = self.loops.pop() else {
            unreachable!("invariant: loop context pushed")
        };
        let here = self.here();
        for jump in context.break_jumps {
            self.patch(jump, here);
        }
    }

    /// The variable a mutex or cond operand names when it is a declared one.
    fn static_var(&self, lowerer: &Lowerer<'_>, expr: &Expr) -> Option<VarId> {
        let ExprKind::Name(name) = &expr.kind else {
            return None;
        };
        if self.local(&name.name).is_some() {
            return None;
        }
        match lowerer.symbols.get(&name.name).map(|s| s.0) {
            Some(Symbol::Mutex(_, var) | Symbol::Cond(_, var)) => Some(var),
            _ => None,
        }
    }

    fn sync_operand(
        &mut self,
        lowerer: &mut Lowerer<'_>,
        expr: &Expr,
        op: &'static str,
        needs: Needs,
    ) -> (Reg, Option<VarId>) {
        self.check_sync_operand(lowerer, expr, op, needs);
        let var = self.static_var(lowerer, expr);
        (self.expr(lowerer, expr), var)
    }

    /// Warn of an operand named by a declaration that can never hold what
    /// `op` needs (instr::sync_operands).
    fn check_sync_operand(
        &self,
        lowerer: &mut Lowerer<'_>,
        expr: &Expr,
        op: &'static str,
        needs: Needs,
    ) {
        if let Some((operand, declared)) = self.sync_operand_kind(lowerer, expr, op, needs) {
            lowerer.sync_operands.check(operand, declared);
        }
    }

    /// A name operand and what its declaration says it holds; `None` for
    /// a local or any other expression, whose kind shows only when it runs.
    fn sync_operand_kind(
        &self,
        lowerer: &Lowerer<'_>,
        expr: &Expr,
        op: &'static str,
        needs: Needs,
    ) -> Option<(Operand, Declared)> {
        let ExprKind::Name(name) = &expr.kind else {
            return None;
        };
        if self.local(&name.name).is_some() {
            return None;
        }
        let declared = match lowerer.symbols.get(&name.name).map(|s| s.0)? {
            Symbol::Mutex(..) => Declared::Mutex,
            Symbol::Cond(..) => Declared::Cond,
            Symbol::Global(global, _) => Declared::Global(global),
            symbol @ (Symbol::Const(_) | Symbol::Array(..)) => Declared::Other(describe(symbol)),
            _ => return None,
        };
        let operand = Operand {
            op,
            needs,
            name: name.name.clone(),
            span: expr.span,
        };
        Some((operand, declared))
    }

    /// The array operand of an index or `len`: a global array by name, or
    /// any expression.
    fn array_base(&mut self, lowerer: &mut Lowerer<'_>, base: &Expr) -> (Reg, Option<VarId>) {
        if let ExprKind::Name(name) = &base.kind {
            if self.local(&name.name).is_none() {
                if let Some(Symbol::Array(obj, var)) = lowerer.symbols.get(&name.name).map(|s| s.0)
                {
                    let reg = self.constant(lowerer, Value::Ref(obj), base.span);
                    return (reg, Some(var));
                }
            }
        }
        (self.expr(lowerer, base), None)
    }

    fn constant(&mut self, lowerer: &mut Lowerer<'_>, value: Value, span: Span) -> Reg {
        let dst = self.temp(lowerer, span);
        let value = lowerer.intern_const(value);
        self.emit(Op::Const { dst, value }, span);
        dst
    }

    /// Evaluate `expr` into some register: a local's own register when the
    /// expression is just that local, a fresh temporary otherwise.
    fn expr(&mut self, lowerer: &mut Lowerer<'_>, expr: &Expr) -> Reg {
        if let ExprKind::Name(name) = &expr.kind {
            if let Some(reg) = self.local(&name.name) {
                return reg;
            }
        }
        let dst = self.temp(lowerer, expr.span);
        self.expr_into(lowerer, expr, dst);
        dst
    }

    /// Evaluate `expr` into `dst`.
    #[allow(clippy::too_many_lines)]
    fn expr_into(&mut self, lowerer: &mut Lowerer<'_>, expr: &Expr, dst: Reg) {
        let span = expr.span;
        let mark = self.next_reg;
        match &expr.kind {
            ExprKind::Int(i) => self.load_const(lowerer, dst, Value::Int(*i), span),
            ExprKind::Bool(b) => self.load_const(lowerer, dst, Value::Bool(*b), span),
            ExprKind::Null => self.load_const(lowerer, dst, Value::Null, span),
            ExprKind::Name(name) => {
                if let Some(reg) = self.local(&name.name) {
                    if reg != dst {
                        self.emit(Op::Move { dst, src: reg }, span);
                    }
                } else {
                    match lowerer.symbols.get(&name.name).map(|s| s.0) {
                        Some(Symbol::Const(v)) => {
                            self.load_const(lowerer, dst, Value::Int(v), span)
                        }
                        Some(Symbol::Global(global, var)) => {
                            let site = self.site(lowerer, span, AccessKind::Read, Some(var));
                            self.emit(Op::GetGlobalObserved { dst, global, site }, span);
                        }
                        Some(Symbol::Mutex(m, _)) => {
                            self.load_const(lowerer, dst, Value::Mutex(m), span)
                        }
                        Some(Symbol::Cond(c, _)) => {
                            self.load_const(lowerer, dst, Value::Cond(c), span)
                        }
                        Some(Symbol::Array(..)) => lowerer.error(
                            Diagnostic::error(
                                span,
                                format!("global array `{}` is not a value", name.name),
                            )
                            .with_note("index it (`a[i]`) or measure it (`len(a)`)"),
                        ),
                        Some(symbol @ (Symbol::Function(..) | Symbol::Thread)) => {
                            lowerer.error(Diagnostic::error(
                                span,
                                format!("`{}` is {}, not a value", name.name, describe(symbol)),
                            ))
                        }
                        None => lowerer.error(unknown_name(name)),
                    }
                }
            }
            ExprKind::Field { base, field } => {
                let obj = self.expr(lowerer, base);
                let field = lowerer.intern_field(&field.name);
                let site = self.site(lowerer, span, AccessKind::Read, None);
                self.emit(
                    Op::GetFieldObserved {
                        dst,
                        obj,
                        field,
                        site,
                    },
                    span,
                );
            }
            ExprKind::Index { base, index } => {
                let (array, var) = self.array_base(lowerer, base);
                let index = self.expr(lowerer, index);
                let site = self.site(lowerer, span, AccessKind::Read, var);
                self.emit(
                    Op::GetIndexObserved {
                        dst,
                        array,
                        index,
                        site,
                    },
                    span,
                );
            }
            ExprKind::Call { callee, args } | ExprKind::Spawn { callee, args } => {
                let spawn = matches!(expr.kind, ExprKind::Spawn { .. });
                let Some(func) = self.callee(lowerer, callee, args.len(), span) else {
                    self.next_reg = mark;
                    return;
                };
                let first = self.next_reg;
                let arg_regs: Vec<Reg> = args.iter().map(|a| self.alloc(lowerer, a.span)).collect();
                for (arg, &reg) in args.iter().zip(&arg_regs) {
                    self.expr_into(lowerer, arg, reg);
                }
                let args_reg = Reg(first.min(u32::from(u16::MAX)) as u16);
                let argc = args.len() as u16;
                let op = if spawn {
                    Op::Spawn {
                        dst,
                        func,
                        args: args_reg,
                        argc,
                    }
                } else {
                    Op::Call {
                        dst,
                        func,
                        args: args_reg,
                        argc,
                    }
                };
                self.emit(op, span);
            }
            ExprKind::Unary { op, operand, .. } => {
                let src = self.expr(lowerer, operand);
                let op = match op {
                    UnaryOp::Neg => Op::Neg { dst, src },
                    UnaryOp::Not => Op::Not { dst, src },
                };
                self.emit(op, span);
            }
            ExprKind::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                lhs,
                rhs,
                ..
            } => {
                // Short circuit: result = lhs; if that decides, skip rhs. The
                // result goes through a temporary because `dst` may be a
                // local that `rhs` reads.
                let result = self.temp(lowerer, span);
                self.expr_into(lowerer, lhs, result);
                let skip = match op {
                    BinaryOp::And => self.emit_for(
                        Construct::And,
                        Op::JumpIfFalse {
                            cond: result,
                            target: 0,
                        },
                        lhs.span,
                    ),
                    _ => self.emit_for(
                        Construct::Or,
                        Op::JumpIfTrue {
                            cond: result,
                            target: 0,
                        },
                        lhs.span,
                    ),
                };
                self.expr_into(lowerer, rhs, result);
                let here = self.here();
                self.patch(skip, here);
                self.emit(Op::Move { dst, src: result }, span);
            }
            ExprKind::Binary { op, lhs, rhs, .. } => {
                let lhs = self.expr(lowerer, lhs);
                let rhs = self.expr(lowerer, rhs);
                let op = match op {
                    BinaryOp::Add => Op::Add { dst, lhs, rhs },
                    BinaryOp::Sub => Op::Sub { dst, lhs, rhs },
                    BinaryOp::Mul => Op::Mul { dst, lhs, rhs },
                    BinaryOp::Div => Op::Div { dst, lhs, rhs },
                    BinaryOp::Rem => Op::Rem { dst, lhs, rhs },
                    BinaryOp::Lt => Op::Lt { dst, lhs, rhs },
                    BinaryOp::Le => Op::Le { dst, lhs, rhs },
                    BinaryOp::Gt => Op::Gt { dst, lhs, rhs },
                    BinaryOp::Ge => Op::Ge { dst, lhs, rhs },
                    BinaryOp::Eq => Op::Eq { dst, lhs, rhs },
                    BinaryOp::Ne => Op::Ne { dst, lhs, rhs },
                    BinaryOp::And | BinaryOp::Or => unreachable!("invariant: handled above"),
                };
                self.emit(op, span);
            }
            ExprKind::NewRecord(fields) => {
                let var = self.allocation_site(lowerer, VarKind::NewRecord, span);
                let shape = ShapeId(lowerer.program.shapes.len() as u32);
                let field_ids = fields
                    .iter()
                    .map(|f| lowerer.intern_field(&f.name.name))
                    .collect();
                lowerer.program.shapes.push(Shape { fields: field_ids });
                let first = self.next_reg;
                let regs: Vec<Reg> = fields
                    .iter()
                    .map(|f| self.alloc(lowerer, f.value.span))
                    .collect();
                for (field, &reg) in fields.iter().zip(&regs) {
                    self.expr_into(lowerer, &field.value, reg);
                }
                let args = Reg(first.min(u32::from(u16::MAX)) as u16);
                self.emit(
                    Op::NewRecord {
                        dst,
                        shape,
                        args,
                        var,
                    },
                    span,
                );
            }
            ExprKind::NewArray { len, init } => {
                let var = self.allocation_site(lowerer, VarKind::NewArray, span);
                let len = self.expr(lowerer, len);
                let init = match init {
                    Some(e) => self.expr(lowerer, e),
                    None => self.constant(lowerer, Value::Int(0), span),
                };
                self.emit(
                    Op::NewArray {
                        dst,
                        len,
                        init,
                        var,
                    },
                    span,
                );
            }
            ExprKind::NewMutex => {
                let var = self.allocation_site(lowerer, VarKind::NewMutex, span);
                self.emit(Op::NewMutex { dst, var }, span);
            }
            ExprKind::NewCond => {
                let var = self.allocation_site(lowerer, VarKind::NewCond, span);
                self.emit(Op::NewCond { dst, var }, span);
            }
            ExprKind::Len(array) => {
                let (array, _) = self.array_base(lowerer, array);
                self.emit(Op::Len { dst, array }, span);
            }
            ExprKind::SelfId => {
                self.emit(Op::SelfId { dst }, span);
            }
        }
        self.next_reg = mark;
    }

    fn load_const(&mut self, lowerer: &mut Lowerer<'_>, dst: Reg, value: Value, span: Span) {
        let value = lowerer.intern_const(value);
        self.emit(Op::Const { dst, value }, span);
    }

    fn allocation_site(&mut self, lowerer: &mut Lowerer<'_>, kind: VarKind, span: Span) -> VarId {
        let name = format!("{}:new@{}", self.name, lowerer.line_of(span));
        lowerer.add_var(name, kind, span)
    }

    /// The function a call or spawn names, with its arity checked.
    fn callee(
        &mut self,
        lowerer: &mut Lowerer<'_>,
        callee: &ast::Ident,
        argc: usize,
        span: Span,
    ) -> Option<FuncId> {
        match lowerer.symbols.get(&callee.name).map(|s| s.0) {
            Some(Symbol::Function(func, params)) => {
                if params != argc {
                    let plural = if params == 1 { "" } else { "s" };
                    lowerer.error(
                        Diagnostic::error(
                            span,
                            format!(
                                "`{}` takes {params} argument{plural}, but {argc} {} given",
                                callee.name,
                                if argc == 1 { "was" } else { "were" }
                            ),
                        )
                        .with_label(format!(
                            "{argc} argument{}",
                            if argc == 1 { "" } else { "s" }
                        )),
                    );
                    return None;
                }
                Some(func)
            }
            Some(Symbol::Thread) => {
                lowerer.error(
                    Diagnostic::error(
                        callee.span,
                        format!("`{}` is a thread, not a function", callee.name),
                    )
                    .with_note("thread items start with the program; spawn a `fn` instead"),
                );
                None
            }
            Some(symbol) => {
                lowerer.error(Diagnostic::error(
                    callee.span,
                    format!("`{}` is {}, not a function", callee.name, describe(symbol)),
                ));
                None
            }
            None => {
                lowerer.error(Diagnostic::error(
                    callee.span,
                    format!("unknown function `{}`", callee.name),
                ));
                None
            }
        }
    }
}

fn unknown_name(name: &ast::Ident) -> Diagnostic {
    Diagnostic::error(name.span, format!("unknown name `{}`", name.name))
}

/// "a const", "a global", ... for messages.
fn describe(symbol: Symbol) -> &'static str {
    match symbol {
        Symbol::Const(_) => "a const",
        Symbol::Global(..) => "a global",
        Symbol::Array(..) => "a global array",
        Symbol::Mutex(..) => "a mutex",
        Symbol::Cond(..) => "a condition variable",
        Symbol::Function(..) => "a function",
        Symbol::Thread => "a thread",
    }
}
