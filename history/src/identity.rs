//! What makes two failures the same failure (docs/HISTORY.md, Failure
//! identity): the program's version, the failure's kind, its place (file,
//! line, column) and its message with the values of the run masked. What
//! else a sighting shows (the thread instances that ran, the variables its
//! interleaving raced on, the unmasked message, the schedule) is a
//! [`Variant`] of the failure, counted under it, never a failure of its own.

use rankcheck_engine::identity::masked;

use crate::record::Signature;

/// What identifies a failure across runs, shards and nights.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Identity {
    /// The program version's fingerprint (its source and `-D` values).
    pub fingerprint: String,
    /// `assert`, `error`, `deadlock` or `step-limit`.
    pub kind: String,
    /// The program's file, as the suite names it.
    pub file: String,
    /// The 1-based source line.
    pub line: u64,
    /// The 1-based column.
    pub column: u64,
    /// The message, with the values of the run masked (as the engine's
    /// identity gives it; numbers masked for a record without one).
    pub message: String,
}

impl Identity {
    /// The identity of a failure recorded with `signature` on the version
    /// `fingerprint` of the program read from `file` (a Rust test's
    /// signature names its own file, which wins).
    pub fn of(signature: &Signature, fingerprint: &str, file: &str) -> Identity {
        Identity {
            fingerprint: fingerprint.to_string(),
            kind: signature.kind.clone(),
            file: signature.file.clone().unwrap_or_else(|| file.to_string()),
            line: signature.line,
            column: signature.column,
            message: signature
                .masked
                .clone()
                .unwrap_or_else(|| masked(&signature.message)),
        }
    }

    /// A short stable key: FNV-1a (64 bits) over the fields, as hex.
    pub fn key(&self) -> String {
        fnv_key(&[
            &self.fingerprint,
            &self.kind,
            &self.file,
            &self.line.to_string(),
            &self.column.to_string(),
            &self.message,
        ])
    }
}

/// How one sighting of a failure differed from another: never a new
/// failure, a variant counted under it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Variant {
    /// The message as the run gave it.
    pub message: String,
    /// The variables its interleaving raced on, sorted.
    pub variables: Vec<String>,
    /// The functions of the threads that ran, sorted.
    pub threads: Vec<String>,
}

impl Variant {
    /// The variant a sighting recorded with `signature` is.
    pub fn of(signature: &Signature) -> Variant {
        Variant {
            message: signature.message.clone(),
            variables: signature.variables.clone(),
            threads: signature.threads.clone(),
        }
    }

    /// A short stable key within its failure.
    pub fn key(&self) -> String {
        fnv_key(&[
            &self.message,
            &self.variables.join("\u{1}"),
            &self.threads.join("\u{1}"),
        ])
    }
}

/// FNV-1a (64 bits) over the fields joined by NUL, as hex.
pub(crate) fn fnv_key(fields: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            hash = fnv_byte(hash, 0);
        }
        for byte in field.bytes() {
            hash = fnv_byte(hash, byte);
        }
    }
    format!("{hash:016x}")
}

fn fnv_byte(hash: u64, byte: u8) -> u64 {
    (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_identity_ignores_the_variant() {
        let signature = |message: &str, variables: &[&str], threads: &[&str]| Signature {
            kind: "assert".into(),
            file: None,
            line: 16,
            column: 5,
            message: message.into(),
            masked: None,
            variables: variables.iter().map(|v| v.to_string()).collect(),
            threads: threads.iter().map(|t| t.to_string()).collect(),
        };
        let a = signature("got 3", &["x"], &["main", "setter"]);
        let b = signature("got 4", &["x", "y"], &["main"]);
        assert_eq!(
            Identity::of(&a, "f", "p.rk").key(),
            Identity::of(&b, "f", "p.rk").key()
        );
        assert_ne!(Variant::of(&a).key(), Variant::of(&b).key());
        assert_ne!(
            Identity::of(&a, "f", "p.rk").key(),
            Identity::of(&a, "g", "p.rk").key()
        );
    }
}
