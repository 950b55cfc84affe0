//! The words of a run-time error: what the user wrote where an instruction
//! stands for another construct ([`Construct`]: a `for` range's test is an
//! `Lt`, a `sync` block a `Lock`).
//!
//! The interpreter words an error by its instruction ("the left operand of
//! `<`", "a condition", "`lock`"); turning that into the construct's words
//! happens here, once the fault has left the interpreter, so that its hot
//! loop keeps nothing alive for messages it almost never builds.

use crate::ir::Construct;
use crate::outcome::BugKind;

use super::{Fault, Vm};

/// `message`, raised by an instruction that stands for `construct`, in the
/// construct's words: the instruction's own subject at the start of the
/// message is replaced by what the user wrote.
pub(super) fn reword(construct: Construct, message: String) -> String {
    let subjects: &[(&str, &str)] = match construct {
        Construct::ForRange => &[
            ("the left operand of `<`", "a `for` range's start"),
            ("the right operand of `<`", "a `for` range's end"),
        ],
        Construct::If => &[("a condition", "an `if` condition")],
        Construct::While => &[("a condition", "a `while` condition")],
        Construct::And => &[("a condition", "the left operand of `&&`")],
        Construct::Or => &[("a condition", "the left operand of `||`")],
        Construct::Sync => &[
            ("`lock`", "`sync`"),
            ("`unlock` of", "leaving `sync` unlocks"),
        ],
    };
    for (subject, words) in subjects {
        if let Some(rest) = message.strip_prefix(subject) {
            return format!("{words}{rest}");
        }
    }
    message
}

impl Vm<'_> {
    /// The fault's message in the words of the construct its instruction
    /// stands for, if it stands for one. Out of line: the scheduling loop
    /// into which the interpreter is inlined only calls it on a failure.
    #[cold]
    #[inline(never)]
    pub(super) fn in_words(&self, fault: &Fault) -> String {
        let program = self.exe.program();
        match program.construct_at(fault.loc.func, fault.loc.pc as usize) {
            Some(construct) if fault.kind == BugKind::Error => {
                reword(construct, fault.message.clone())
            }
            _ => fault.message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instructions_subject_becomes_the_constructs() {
        let reworded = |construct, message: &str| reword(construct, message.to_string());
        assert_eq!(
            reworded(
                Construct::ForRange,
                "the right operand of `<` needs an int, found bool"
            ),
            "a `for` range's end needs an int, found bool"
        );
        assert_eq!(
            reworded(Construct::Or, "a condition must be a bool, found int"),
            "the left operand of `||` must be a bool, found int"
        );
        assert_eq!(
            reworded(
                Construct::Sync,
                "`unlock` of mutex `m`, which is not locked"
            ),
            "leaving `sync` unlocks mutex `m`, which is not locked"
        );
        // Another message at the same instruction (none today) stays.
        assert_eq!(
            reworded(Construct::Sync, "heap exhausted"),
            "heap exhausted"
        );
    }
}
