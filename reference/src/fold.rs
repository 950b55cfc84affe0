//! Constant folding: `const` values (with `-D` overrides, in any order,
//! cycles refused), global initialisers, array lengths and replication
//! counts. The operators mean what they mean at run time (see
//! [`crate::operator`]).

use std::collections::{BTreeMap, BTreeSet};

use rankcheck_instr::ast::{BinaryOp, Expr, ExprKind, UnaryOp};

use crate::error::RefError;
use crate::lines::LineIndex;
use crate::operator;
use crate::value::Value;

/// The program's constants, folded on demand so that a constant may use one
/// declared later.
pub struct Constants<'a> {
    /// Each `const`'s expression, by name.
    declared: BTreeMap<&'a str, &'a Expr>,
    /// `-D` values, which replace the declared ones.
    overrides: &'a BTreeMap<String, i64>,
    /// Values folded so far.
    folded: BTreeMap<&'a str, i64>,
    /// Constants being folded, to catch one that depends on itself.
    in_progress: BTreeSet<&'a str>,
    /// For error lines.
    lines: &'a LineIndex,
}

impl<'a> Constants<'a> {
    /// The constants `declared`, with `overrides` winning.
    pub fn new(
        declared: BTreeMap<&'a str, &'a Expr>,
        overrides: &'a BTreeMap<String, i64>,
        lines: &'a LineIndex,
    ) -> Constants<'a> {
        Constants {
            declared,
            overrides,
            folded: BTreeMap::new(),
            in_progress: BTreeSet::new(),
            lines,
        }
    }

    /// Whether `name` is a declared constant.
    pub fn contains(&self, name: &str) -> bool {
        self.declared.contains_key(name)
    }

    /// The value of constant `name`, which must be declared.
    pub fn value(&mut self, name: &'a str) -> Result<i64, RefError> {
        if let Some(value) = self.overrides.get(name) {
            return Ok(*value);
        }
        if let Some(value) = self.folded.get(name) {
            return Ok(*value);
        }
        let expr = self.declared[name];
        if !self.in_progress.insert(name) {
            return Err(self.invalid(expr, format!("constant `{name}` depends on itself")));
        }
        let value = match self.fold(expr)? {
            Value::Int(value) => value,
            other => {
                let found = other.type_name();
                return Err(self.invalid(
                    expr,
                    format!("a constant must be an integer, found {found}"),
                ));
            }
        };
        self.in_progress.remove(name);
        self.folded.insert(name, value);
        Ok(value)
    }

    /// Folds a constant expression: literals, constants and integer
    /// arithmetic (docs/LANGUAGE.md: "an integer expression over
    /// constants, `true`, `false` or `null`"); `!`, comparisons, `==` and
    /// the short-circuit operators are not constant.
    pub fn fold(&mut self, expr: &'a Expr) -> Result<Value, RefError> {
        match &expr.kind {
            ExprKind::Int(value) => Ok(Value::Int(*value)),
            ExprKind::Bool(value) => Ok(Value::Bool(*value)),
            ExprKind::Null => Ok(Value::Null),
            ExprKind::Name(ident) if self.contains(&ident.name) => {
                Ok(Value::Int(self.value(&ident.name)?))
            }
            ExprKind::Unary {
                op: UnaryOp::Not, ..
            } => Err(self.invalid(expr, "expected a constant, found `!`".to_string())),
            ExprKind::Unary { op, operand, .. } => {
                let operand = self.fold(operand)?;
                operator::unary(*op, operand).map_err(|reason| self.invalid(expr, reason))
            }
            ExprKind::Binary { op, lhs, rhs, .. } => self.fold_binary(expr, *op, lhs, rhs),
            _ => Err(self.invalid(expr, "expected a constant expression".to_string())),
        }
    }

    /// Folds a constant integer in `0..=max`, such as an array length.
    pub fn fold_count(&mut self, expr: &'a Expr, max: i64) -> Result<usize, RefError> {
        match self.fold(expr)? {
            Value::Int(value) if (0..=max).contains(&value) => Ok(value as usize),
            other => Err(self.invalid(
                expr,
                format!("expected a constant between 0 and {max}, found {other}"),
            )),
        }
    }

    fn fold_binary(
        &mut self,
        expr: &Expr,
        op: BinaryOp,
        lhs: &'a Expr,
        rhs: &'a Expr,
    ) -> Result<Value, RefError> {
        let arithmetic = matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
        );
        if !arithmetic {
            let found = format!("expected a constant, found `{}`", op.as_str());
            return Err(self.invalid(expr, found));
        }
        let left = self.fold(lhs)?;
        let right = self.fold(rhs)?;
        operator::binary(op, left, right).map_err(|reason| self.invalid(expr, reason))
    }

    fn invalid(&self, expr: &Expr, message: String) -> RefError {
        RefError::Invalid {
            line: self.lines.line(expr.span.start),
            message,
        }
    }
}
