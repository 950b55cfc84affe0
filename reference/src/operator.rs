//! The operators of docs/LANGUAGE.md "Expressions": checked 64-bit arithmetic,
//! comparisons of integers, equality of any values, boolean `!`, and the
//! first half of the short-circuit `&&` and `||`. Errors are the reasons of
//! run-time errors.

use rankcheck_instr::ast::{BinaryOp, UnaryOp};

use crate::value::Value;

/// `-v` or `!v`.
pub fn unary(op: UnaryOp, operand: Value) -> Result<Value, String> {
    match (op, operand) {
        (UnaryOp::Neg, Value::Int(n)) => n.checked_neg().map(Value::Int).ok_or_else(overflow),
        (UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
        (UnaryOp::Neg, other) => Err(wrong_type("-", "an int", other)),
        (UnaryOp::Not, other) => Err(wrong_type("!", "a bool", other)),
    }
}

/// `&&` or `||` once the left operand is known: `Some(value)` when the
/// right operand is not needed, `None` when the value is the right operand's.
pub fn short_circuit(op: BinaryOp, left: Value) -> Result<Option<Value>, String> {
    match (op, left) {
        (BinaryOp::And, Value::Bool(false)) => Ok(Some(Value::Bool(false))),
        (BinaryOp::Or, Value::Bool(true)) => Ok(Some(Value::Bool(true))),
        (_, Value::Bool(_)) => Ok(None),
        (op, other) => Err(wrong_type(op.as_str(), "a bool", other)),
    }
}

/// `left OP right` for every operator but `&&` and `||`.
pub fn binary(op: BinaryOp, left: Value, right: Value) -> Result<Value, String> {
    match op {
        BinaryOp::Eq => Ok(Value::Bool(left == right)),
        BinaryOp::Ne => Ok(Value::Bool(left != right)),
        BinaryOp::And | BinaryOp::Or => {
            panic!("invariant: short-circuit operators are evaluated by short_circuit")
        }
        _ => {
            let (Value::Int(a), Value::Int(b)) = (left, right) else {
                let culprit = if matches!(left, Value::Int(_)) {
                    right
                } else {
                    left
                };
                return Err(wrong_type(op.as_str(), "ints", culprit));
            };
            integer(op, a, b)
        }
    }
}

fn integer(op: BinaryOp, a: i64, b: i64) -> Result<Value, String> {
    let arithmetic = |result: Option<i64>| result.map(Value::Int).ok_or_else(overflow);
    match op {
        BinaryOp::Add => arithmetic(a.checked_add(b)),
        BinaryOp::Sub => arithmetic(a.checked_sub(b)),
        BinaryOp::Mul => arithmetic(a.checked_mul(b)),
        // Rust's `/` and `%` round toward zero and give the remainder the
        // dividend's sign, as docs/LANGUAGE.md asks; `i64::MIN / -1` and
        // `i64::MIN % -1` do not fit and count as overflow.
        BinaryOp::Div if b == 0 => Err("division by zero".to_string()),
        BinaryOp::Rem if b == 0 => Err("remainder by zero".to_string()),
        BinaryOp::Div => arithmetic(a.checked_div(b)),
        BinaryOp::Rem => arithmetic(a.checked_rem(b)),
        BinaryOp::Lt => Ok(Value::Bool(a < b)),
        BinaryOp::Le => Ok(Value::Bool(a <= b)),
        BinaryOp::Gt => Ok(Value::Bool(a > b)),
        BinaryOp::Ge => Ok(Value::Bool(a >= b)),
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::And | BinaryOp::Or => {
            panic!("invariant: only arithmetic and ordering reach integer()")
        }
    }
}

fn overflow() -> String {
    "integer overflow".to_string()
}

/// The reason of a type error: `what` needed `expected`, found `found`.
pub fn wrong_type(what: &str, expected: &str, found: Value) -> String {
    format!("`{what}` needs {expected}, found {}", found.type_name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_rounds_toward_zero_and_remainder_takes_the_dividends_sign() {
        let div = binary(BinaryOp::Div, Value::Int(-7), Value::Int(2));
        let rem = binary(BinaryOp::Rem, Value::Int(-7), Value::Int(2));
        assert_eq!(div, Ok(Value::Int(-3)));
        assert_eq!(rem, Ok(Value::Int(-1)));
    }

    #[test]
    fn overflow_and_zero_divisors_are_errors() {
        assert!(binary(BinaryOp::Add, Value::Int(i64::MAX), Value::Int(1)).is_err());
        assert!(binary(BinaryOp::Div, Value::Int(i64::MIN), Value::Int(-1)).is_err());
        assert!(binary(BinaryOp::Rem, Value::Int(1), Value::Int(0)).is_err());
        assert!(unary(UnaryOp::Neg, Value::Int(i64::MIN)).is_err());
    }

    #[test]
    fn values_of_different_types_are_unequal() {
        let eq = binary(BinaryOp::Eq, Value::Int(0), Value::Bool(false));
        assert_eq!(eq, Ok(Value::Bool(false)));
        assert!(binary(BinaryOp::Lt, Value::Int(0), Value::Null).is_err());
    }

    #[test]
    fn short_circuit_needs_a_bool_on_the_left_only() {
        assert_eq!(short_circuit(BinaryOp::And, Value::Bool(true)), Ok(None));
        assert_eq!(
            short_circuit(BinaryOp::Or, Value::Bool(true)),
            Ok(Some(Value::Bool(true)))
        );
        assert!(short_circuit(BinaryOp::And, Value::Int(1)).is_err());
    }
}
