//! From the syntax tree to the resolved [`Program`]: the top level. Checks
//! item names, folds constants, lays out globals, mutexes and condition
//! variables, resolves every body (see [`crate::body`]) and lists the
//! threads that start with the program.

use std::collections::BTreeMap;

use rankcheck_instr::ast::{self, ItemKind, Module};

use crate::body::resolve_function;
use crate::error::RefError;
use crate::fold::Constants;
use crate::lines::LineIndex;
use crate::program::{
    ArrayId, FieldName, FnId, Function, GlobalArray, Program, ScalarId, SyncDecl, ThreadStart,
    VarId,
};
use crate::purity::check_await_conditions;
use crate::value::{ObjId, Value};
use crate::VarKey;

/// The largest array length or replication count docs/LANGUAGE.md allows.
const MAX_COUNT: i64 = 1 << 20;

/// The most elements all global arrays may hold together (docs/LANGUAGE.md,
/// the heap limit).
const MAX_GLOBAL_ELEMENTS: usize = 1 << 24;

/// The most threads a program may start with (docs/LANGUAGE.md, the
/// thread limit).
const MAX_INITIAL_THREADS: usize = 10_000;

/// What a top-level name denotes.
#[derive(Clone, Copy, Debug)]
pub enum Global {
    /// A folded constant.
    Const(i64),
    /// A global scalar.
    Scalar(ScalarId),
    /// A global array.
    Array(ArrayId),
    /// A declared mutex.
    Mutex(ObjId),
    /// A declared condition variable.
    Cond(ObjId),
    /// A function and its number of parameters.
    Function(FnId, usize),
    /// A thread item's body: not callable.
    Thread(FnId),
}

/// What resolving bodies needs and builds.
pub struct Context<'a> {
    /// For error lines and statement lines.
    pub lines: &'a LineIndex,
    /// Top-level names.
    pub globals: BTreeMap<String, Global>,
    /// The program being built.
    pub program: Program,
    /// Allocation sites met so far, by the byte offset of their `new`.
    alloc_sites: BTreeMap<u32, VarId>,
}

impl Context<'_> {
    /// The error `message` at byte `offset`.
    pub fn invalid(&self, offset: u32, message: impl Into<String>) -> RefError {
        RefError::Invalid {
            line: self.lines.line(offset),
            message: message.into(),
        }
    }

    /// The variable of the allocation site whose `new` starts at `offset`.
    pub fn alloc_site(&mut self, offset: u32) -> VarId {
        if let Some(var) = self.alloc_sites.get(&offset) {
            return *var;
        }
        let var = self.new_variable(VarKey::Alloc(offset as usize));
        self.alloc_sites.insert(offset, var);
        var
    }

    /// The interned field name `name`.
    pub fn field(&mut self, name: &str) -> FieldName {
        let fields = &mut self.program.fields;
        let at = fields.iter().position(|known| known == name);
        FieldName(at.unwrap_or_else(|| {
            fields.push(name.to_string());
            fields.len() - 1
        }) as u32)
    }

    fn new_variable(&mut self, key: VarKey) -> VarId {
        self.program.variables.push(key);
        VarId(self.program.variables.len() as u32 - 1)
    }
}

/// Resolves `module` (parsed from `source`) with `defines` overriding its
/// constants.
pub fn resolve(
    source: &str,
    module: &Module,
    defines: &[(String, i64)],
) -> Result<Program, RefError> {
    let lines = LineIndex::new(source);
    let declared = declared_constants(module);
    let mut overrides = BTreeMap::new();
    for (name, value) in defines {
        if !declared.contains_key(name.as_str()) {
            return Err(RefError::UnknownDefine(name.clone()));
        }
        overrides.insert(name.clone(), *value);
    }
    let mut constants = Constants::new(declared, &overrides, &lines);
    let mut cx = Context {
        lines: &lines,
        globals: BTreeMap::new(),
        program: empty_program(),
        alloc_sites: BTreeMap::new(),
    };
    declare_items(&mut cx, module, &mut constants)?;
    resolve_bodies(&mut cx, module)?;
    cx.program.initial_threads = initial_threads(&cx, module, &mut constants)?;
    check_await_conditions(&cx.program)?;
    Ok(cx.program)
}

fn empty_program() -> Program {
    Program {
        exprs: Vec::new(),
        stmts: Vec::new(),
        blocks: Vec::new(),
        functions: Vec::new(),
        initial_threads: Vec::new(),
        scalars: Vec::new(),
        arrays: Vec::new(),
        sync_objects: Vec::new(),
        variables: Vec::new(),
        fields: Vec::new(),
    }
}

fn declared_constants(module: &Module) -> BTreeMap<&str, &ast::Expr> {
    module
        .items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::Const(constant) => Some((constant.name.name.as_str(), &constant.value)),
            _ => None,
        })
        .collect()
}

/// The name an item declares.
fn item_name(kind: &ItemKind) -> &ast::Ident {
    match kind {
        ItemKind::Const(constant) => &constant.name,
        ItemKind::Global(global) => &global.name,
        ItemKind::Mutex(name) | ItemKind::Cond(name) => name,
        ItemKind::Fn(function) => &function.name,
        ItemKind::Thread(thread) => &thread.name,
    }
}

/// Gives every item's name its meaning, in source order: variables of
/// declarations are numbered in that order, and functions get their ids
/// (bodies are resolved later, so a function may call one declared after
/// it).
fn declare_items<'a>(
    cx: &mut Context<'_>,
    module: &'a Module,
    constants: &mut Constants<'a>,
) -> Result<(), RefError> {
    for item in &module.items {
        let name = item_name(&item.kind);
        if cx.globals.contains_key(&name.name) {
            let message = format!("duplicate name `{}`", name.name);
            return Err(cx.invalid(name.span.start, message));
        }
        let meaning = declare_item(cx, &item.kind, constants)?;
        cx.globals.insert(name.name.clone(), meaning);
    }
    Ok(())
}

fn declare_item<'a>(
    cx: &mut Context<'_>,
    kind: &'a ItemKind,
    constants: &mut Constants<'a>,
) -> Result<Global, RefError> {
    match kind {
        ItemKind::Const(constant) => Ok(Global::Const(constants.value(&constant.name.name)?)),
        ItemKind::Global(global) => declare_global(cx, global, constants),
        ItemKind::Mutex(name) => Ok(Global::Mutex(declare_sync(cx, name, true))),
        ItemKind::Cond(name) => Ok(Global::Cond(declare_sync(cx, name, false))),
        ItemKind::Fn(function) => {
            let id = declare_function(cx, &function.name.name);
            Ok(Global::Function(id, function.params.len()))
        }
        ItemKind::Thread(thread) => Ok(Global::Thread(declare_function(cx, &thread.name.name))),
    }
}

fn declare_global<'a>(
    cx: &mut Context<'_>,
    global: &'a ast::GlobalItem,
    constants: &mut Constants<'a>,
) -> Result<Global, RefError> {
    let init = match &global.init {
        Some(expr) => constants.fold(expr)?,
        None => Value::Int(0),
    };
    let var = cx.new_variable(VarKey::Decl(global.name.name.clone()));
    let program = &mut cx.program;
    match &global.array_len {
        None => {
            program.scalars.push((var, init));
            Ok(Global::Scalar(ScalarId(program.scalars.len() as u32 - 1)))
        }
        Some(len_expr) => {
            let len = constants.fold_count(len_expr, MAX_COUNT)?;
            let total = program.arrays.iter().map(|a| a.len).sum::<usize>() + len;
            if total > MAX_GLOBAL_ELEMENTS {
                return Err(cx.invalid(
                    len_expr.span.start,
                    format!(
                        "the global arrays hold {total} elements in all, more than the heap limit"
                    ),
                ));
            }
            program.arrays.push(GlobalArray { var, len, init });
            Ok(Global::Array(ArrayId(program.arrays.len() as u32 - 1)))
        }
    }
}

fn declare_sync(cx: &mut Context<'_>, name: &ast::Ident, is_mutex: bool) -> ObjId {
    let var = cx.new_variable(VarKey::Decl(name.name.clone()));
    let objects = &mut cx.program.sync_objects;
    objects.push(SyncDecl { var, is_mutex });
    ObjId(objects.len() as u32 - 1)
}

/// Reserves a function id; [`resolve_bodies`] fills the function in, in the
/// same (source) order.
fn declare_function(cx: &mut Context<'_>, name: &str) -> FnId {
    let functions = &mut cx.program.functions;
    functions.push(Function {
        name: name.to_string(),
        n_slots: 0,
        body: crate::program::BlockId(u32::MAX),
    });
    FnId(functions.len() as u32 - 1)
}

fn resolve_bodies(cx: &mut Context<'_>, module: &Module) -> Result<(), RefError> {
    let bodies = module.items.iter().filter_map(|item| match &item.kind {
        ItemKind::Fn(function) => Some((&function.params[..], &function.body)),
        ItemKind::Thread(thread) => {
            let index = thread
                .replication
                .as_ref()
                .map(|r| std::slice::from_ref(&r.index));
            Some((index.unwrap_or(&[]), &thread.body))
        }
        _ => None,
    });
    for (id, (params, body)) in bodies.enumerate() {
        let function = resolve_function(cx, params, body)?;
        let slot = &mut cx.program.functions[id];
        *slot = Function {
            name: std::mem::take(&mut slot.name),
            ..function
        };
    }
    Ok(())
}

/// `main` (a function `main`, which takes no parameters) first, then every
/// thread item in source order, replicated copies in index order.
fn initial_threads<'a>(
    cx: &Context<'_>,
    module: &'a Module,
    constants: &mut Constants<'a>,
) -> Result<Vec<ThreadStart>, RefError> {
    let mut threads = Vec::new();
    let main = module.items.iter().find_map(|item| match &item.kind {
        ItemKind::Fn(function) if function.name.name == "main" => Some(function),
        _ => None,
    });
    if let Some(main) = main.filter(|main| !main.params.is_empty()) {
        return Err(cx.invalid(main.name.span.start, "`main` takes no parameters"));
    }
    if let Some(Global::Function(function, 0)) = cx.globals.get("main") {
        threads.push(ThreadStart {
            function: *function,
            args: Vec::new(),
        });
    }
    let mut any_thread_item = false;
    for item in &module.items {
        let ItemKind::Thread(thread) = &item.kind else {
            continue;
        };
        any_thread_item = true;
        let Some(Global::Thread(id)) = cx.globals.get(&thread.name.name).copied() else {
            panic!("invariant: every thread item was declared");
        };
        match &thread.replication {
            None => threads.push(ThreadStart {
                function: id,
                args: Vec::new(),
            }),
            Some(replication) => {
                let copies = constants.fold_count(&replication.count, MAX_COUNT)?;
                let starts = threads.len() + copies;
                if starts > MAX_INITIAL_THREADS {
                    return Err(cx.invalid(
                        replication.count.span.start,
                        format!(
                            "the program starts {starts} threads, more than the limit of {MAX_INITIAL_THREADS}"
                        ),
                    ));
                }
                threads.extend((0..copies).map(|k| ThreadStart {
                    function: id,
                    args: vec![Value::Int(k as i64)],
                }));
            }
        }
    }
    if threads.is_empty() && !any_thread_item {
        let message = "the program has no `main` function and no `thread` item";
        return Err(cx.invalid(0, message));
    }
    Ok(threads)
}
