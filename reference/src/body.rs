//! Resolving one function or thread body: every name becomes a local slot,
//! a global, a folded constant or a declared mutex or condition variable,
//! following docs/LANGUAGE.md's scoping (a `let` is visible after it to the end
//! of its block; a local shadows a global; an assignment to a name with no
//! local in scope stores the global).

use rankcheck_instr::ast::{self, ExprKind as Ast, PlaceKind, StmtKind as AstStmt};

use crate::error::RefError;
use crate::program::{
    BlockId, Expr, ExprId, ExprKind, Function, Place, Slot, Stmt, StmtId, StmtKind,
};
use crate::resolve::{Context, Global};
use crate::value::Value;

/// Resolves a body with `params` in its first slots. The name is filled in
/// by the caller.
pub fn resolve_function(
    cx: &mut Context<'_>,
    params: &[ast::Ident],
    body: &ast::Block,
) -> Result<Function, RefError> {
    let mut resolver = BodyResolver {
        cx,
        scopes: vec![Vec::new()],
        n_slots: 0,
        loops: 0,
    };
    for param in params {
        resolver.declare(&param.name);
    }
    let body = resolver.block(body)?;
    Ok(Function {
        name: String::new(),
        n_slots: resolver.n_slots,
        body,
    })
}

/// The state of resolving one body.
struct BodyResolver<'r, 'a> {
    /// The whole program's context.
    cx: &'r mut Context<'a>,
    /// Locals in scope, innermost scope last; a later entry shadows an
    /// earlier one of the same name.
    scopes: Vec<Vec<(String, Slot)>>,
    /// Slots given out so far.
    n_slots: u32,
    /// How many loops enclose the current statement, for `break` and
    /// `continue`.
    loops: u32,
}

impl BodyResolver<'_, '_> {
    fn declare(&mut self, name: &str) -> Slot {
        let slot = Slot(self.n_slots);
        self.n_slots += 1;
        let scope = self
            .scopes
            .last_mut()
            .expect("invariant: a body has a scope");
        scope.push((name.to_string(), slot));
        slot
    }

    fn local(&self, name: &str) -> Option<Slot> {
        let mut entries = self
            .scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev());
        entries
            .find(|(known, _)| known == name)
            .map(|(_, slot)| *slot)
    }

    /// The global array `name` denotes, unless a local shadows it.
    fn global_array(&self, expr: &ast::Expr) -> Option<crate::program::ArrayId> {
        let Ast::Name(ident) = &expr.kind else {
            return None;
        };
        if self.local(&ident.name).is_some() {
            return None;
        }
        match self.cx.globals.get(&ident.name) {
            Some(Global::Array(array)) => Some(*array),
            _ => None,
        }
    }

    fn line(&self, offset: u32) -> u32 {
        self.cx.lines.line(offset)
    }

    fn block(&mut self, block: &ast::Block) -> Result<BlockId, RefError> {
        self.scopes.push(Vec::new());
        let stmts = block
            .stmts
            .iter()
            .map(|stmt| self.stmt(stmt))
            .collect::<Result<Vec<_>, _>>();
        self.scopes.pop();
        let blocks = &mut self.cx.program.blocks;
        blocks.push(stmts?);
        Ok(BlockId(blocks.len() as u32 - 1))
    }

    fn loop_body(&mut self, block: &ast::Block) -> Result<BlockId, RefError> {
        self.loops += 1;
        let body = self.block(block);
        self.loops -= 1;
        body
    }

    fn stmt(&mut self, stmt: &ast::Stmt) -> Result<StmtId, RefError> {
        let kind = self.stmt_kind(stmt)?;
        let stmts = &mut self.cx.program.stmts;
        stmts.push(Stmt {
            kind,
            line: self.cx.lines.line(stmt.span.start),
        });
        Ok(StmtId(stmts.len() as u32 - 1))
    }

    fn stmt_kind(&mut self, stmt: &ast::Stmt) -> Result<StmtKind, RefError> {
        Ok(match &stmt.kind {
            AstStmt::Let { name, value } => {
                let value = self.expr(value)?;
                StmtKind::Let {
                    slot: self.declare(&name.name),
                    value,
                }
            }
            AstStmt::Assign { target, value } => {
                let place = self.place(target)?;
                let place_line = self.line(target.span.start);
                StmtKind::Assign {
                    place,
                    value: self.expr(value)?,
                    place_line,
                }
            }
            AstStmt::If { arms, else_block } => {
                let arms = arms
                    .iter()
                    .map(|arm| Ok((self.expr(&arm.cond)?, self.block(&arm.body)?)))
                    .collect::<Result<_, RefError>>()?;
                let else_block = else_block.as_ref().map(|b| self.block(b)).transpose()?;
                StmtKind::If { arms, else_block }
            }
            AstStmt::While { cond, body } => StmtKind::While {
                cond: self.expr(cond)?,
                body: self.loop_body(body)?,
            },
            AstStmt::For {
                var,
                start,
                end,
                body,
            } => self.for_loop(var, start, end, body)?,
            AstStmt::Break | AstStmt::Continue => self.jump(stmt)?,
            AstStmt::Return(value) => StmtKind::Return(self.optional(value.as_ref())?),
            AstStmt::Assert { cond, message } => StmtKind::Assert {
                cond: self.expr(cond)?,
                message: message.as_ref().map(|m| m.value.clone()),
            },
            AstStmt::Lock(e) => StmtKind::Lock(self.expr(e)?),
            AstStmt::Unlock(e) => StmtKind::Unlock(self.expr(e)?),
            AstStmt::Sync { mutex, body } => StmtKind::Sync {
                mutex: self.expr(mutex)?,
                body: self.block(body)?,
                end_line: self.line(body.span.end.saturating_sub(1)),
            },
            AstStmt::Wait { cond, mutex } => StmtKind::Wait {
                cond: self.expr(cond)?,
                mutex: self.expr(mutex)?,
            },
            AstStmt::Signal(e) => StmtKind::Signal(self.expr(e)?),
            AstStmt::Broadcast(e) => StmtKind::Broadcast(self.expr(e)?),
            AstStmt::Await(e) => StmtKind::Await(self.expr(e)?),
            AstStmt::Atomic(body) => StmtKind::Atomic(self.block(body)?),
            AstStmt::Yield => StmtKind::Yield,
            AstStmt::Join(e) => StmtKind::Join(self.expr(e)?),
            AstStmt::Print(args) => StmtKind::Print(self.print_args(args)?),
            AstStmt::Expr(e) => StmtKind::Expr(self.expr(e)?),
        })
    }

    fn for_loop(
        &mut self,
        var: &ast::Ident,
        start: &ast::Expr,
        end: &ast::Expr,
        body: &ast::Block,
    ) -> Result<StmtKind, RefError> {
        let start = self.expr(start)?;
        let end = self.expr(end)?;
        self.scopes.push(Vec::new());
        let slot = self.declare(&var.name);
        let body = self.loop_body(body);
        self.scopes.pop();
        Ok(StmtKind::For {
            slot,
            start,
            end,
            body: body?,
        })
    }

    fn jump(&mut self, stmt: &ast::Stmt) -> Result<StmtKind, RefError> {
        let is_break = matches!(stmt.kind, AstStmt::Break);
        if self.loops == 0 {
            let word = if is_break { "break" } else { "continue" };
            return Err(self
                .cx
                .invalid(stmt.span.start, format!("`{word}` outside a loop")));
        }
        Ok(if is_break {
            StmtKind::Break
        } else {
            StmtKind::Continue
        })
    }

    fn print_args(&mut self, args: &[ast::PrintArg]) -> Result<Vec<ExprId>, RefError> {
        args.iter()
            .filter_map(|arg| match arg {
                ast::PrintArg::Expr(e) => Some(self.expr(e)),
                ast::PrintArg::Str(_) => None,
            })
            .collect()
    }

    fn optional(&mut self, expr: Option<&ast::Expr>) -> Result<Option<ExprId>, RefError> {
        expr.map(|e| self.expr(e)).transpose()
    }

    fn place(&mut self, place: &ast::Place) -> Result<Place, RefError> {
        match &place.kind {
            PlaceKind::Name(ident) => self.named_place(ident),
            PlaceKind::Field { base, field } => Ok(Place::Field {
                base: self.expr(base)?,
                field: self.cx.field(&field.name),
            }),
            PlaceKind::Index { base, index } => match self.global_array(base) {
                Some(array) => Ok(Place::GlobalIndex {
                    array,
                    index: self.expr(index)?,
                }),
                None => Ok(Place::Index {
                    base: self.expr(base)?,
                    index: self.expr(index)?,
                }),
            },
        }
    }

    fn named_place(&mut self, ident: &ast::Ident) -> Result<Place, RefError> {
        if let Some(slot) = self.local(&ident.name) {
            return Ok(Place::Local(slot));
        }
        match self.cx.globals.get(&ident.name) {
            Some(Global::Scalar(scalar)) => Ok(Place::Scalar(*scalar)),
            Some(_) => {
                let message = format!("cannot assign to `{}`", ident.name);
                Err(self.cx.invalid(ident.span.start, message))
            }
            None => Err(self.unknown(ident)),
        }
    }

    fn unknown(&self, ident: &ast::Ident) -> RefError {
        self.cx
            .invalid(ident.span.start, format!("unknown name `{}`", ident.name))
    }

    fn expr(&mut self, expr: &ast::Expr) -> Result<ExprId, RefError> {
        let kind = self.expr_kind(expr)?;
        let exprs = &mut self.cx.program.exprs;
        exprs.push(Expr {
            kind,
            line: self.cx.lines.line(expr.span.start),
        });
        Ok(ExprId(exprs.len() as u32 - 1))
    }

    fn exprs(&mut self, exprs: &[ast::Expr]) -> Result<Vec<ExprId>, RefError> {
        exprs.iter().map(|e| self.expr(e)).collect()
    }

    fn expr_kind(&mut self, expr: &ast::Expr) -> Result<ExprKind, RefError> {
        Ok(match &expr.kind {
            Ast::Int(n) => ExprKind::Value(Value::Int(*n)),
            Ast::Bool(b) => ExprKind::Value(Value::Bool(*b)),
            Ast::Null => ExprKind::Value(Value::Null),
            Ast::Name(ident) => self.name(ident)?,
            Ast::Field { base, field } => ExprKind::Field {
                base: self.expr(base)?,
                field: self.cx.field(&field.name),
            },
            Ast::Index { base, index } => match self.global_array(base) {
                Some(array) => ExprKind::GlobalIndex {
                    array,
                    index: self.expr(index)?,
                },
                None => ExprKind::Index {
                    base: self.expr(base)?,
                    index: self.expr(index)?,
                },
            },
            Ast::Call { callee, args } => ExprKind::Call {
                function: self.callee(callee, args.len())?,
                args: self.exprs(args)?,
            },
            Ast::Unary { op, operand, .. } => ExprKind::Unary {
                op: *op,
                operand: self.expr(operand)?,
            },
            Ast::Binary { op, lhs, rhs, .. } => ExprKind::Binary {
                op: *op,
                lhs: self.expr(lhs)?,
                rhs: self.expr(rhs)?,
            },
            Ast::NewRecord(fields) => self.new_record(expr, fields)?,
            Ast::NewArray { len, init } => ExprKind::NewArray {
                site: self.cx.alloc_site(expr.span.start),
                len: self.expr(len)?,
                init: self.optional(init.as_deref())?,
            },
            Ast::NewMutex => ExprKind::NewMutex(self.cx.alloc_site(expr.span.start)),
            Ast::NewCond => ExprKind::NewCond(self.cx.alloc_site(expr.span.start)),
            Ast::Len(base) => match self.global_array(base) {
                Some(array) => ExprKind::GlobalLen(array),
                None => ExprKind::Len(self.expr(base)?),
            },
            Ast::Spawn { callee, args } => ExprKind::Spawn {
                function: self.callee(callee, args.len())?,
                args: self.exprs(args)?,
            },
            Ast::SelfId => ExprKind::SelfId,
        })
    }

    fn new_record(
        &mut self,
        expr: &ast::Expr,
        fields: &[ast::FieldInit],
    ) -> Result<ExprKind, RefError> {
        let site = self.cx.alloc_site(expr.span.start);
        let fields = fields
            .iter()
            .map(|init| Ok((self.cx.field(&init.name.name), self.expr(&init.value)?)))
            .collect::<Result<_, RefError>>()?;
        Ok(ExprKind::NewRecord { site, fields })
    }

    fn name(&mut self, ident: &ast::Ident) -> Result<ExprKind, RefError> {
        if let Some(slot) = self.local(&ident.name) {
            return Ok(ExprKind::Local(slot));
        }
        let not_a_value = |what: &str| {
            let message = format!("`{}` is {what}, not a value", ident.name);
            Err(self.cx.invalid(ident.span.start, message))
        };
        match self.cx.globals.get(&ident.name) {
            Some(Global::Const(n)) => Ok(ExprKind::Value(Value::Int(*n))),
            Some(Global::Scalar(scalar)) => Ok(ExprKind::Scalar(*scalar)),
            Some(Global::Mutex(id)) => Ok(ExprKind::Value(Value::Mutex(*id))),
            Some(Global::Cond(id)) => Ok(ExprKind::Value(Value::Cond(*id))),
            Some(Global::Array(_)) => not_a_value("a global array"),
            Some(Global::Function(..)) => not_a_value("a function"),
            Some(Global::Thread(_)) => not_a_value("a thread"),
            None => Err(self.unknown(ident)),
        }
    }

    fn callee(&self, callee: &ast::Ident, n_args: usize) -> Result<crate::program::FnId, RefError> {
        match self.cx.globals.get(&callee.name) {
            Some(Global::Function(function, n_params)) if *n_params == n_args => Ok(*function),
            Some(Global::Function(_, n_params)) => {
                let message = format!(
                    "`{}` takes {n_params} arguments, but {n_args} were given",
                    callee.name
                );
                Err(self.cx.invalid(callee.span.start, message))
            }
            Some(_) => {
                let message = format!("`{}` is not a function", callee.name);
                Err(self.cx.invalid(callee.span.start, message))
            }
            None => Err(self.unknown(callee)),
        }
    }
}
