//! The shard file format (`docs/HISTORY.md`, Shard files). It lives in
//! `rankcheck_report::shard`, where `rankcheck-rt` writes it too (a Rust
//! test in a campaign); this module re-exports it and adds what the
//! history reads off a record: a failure's identity.

pub use rankcheck_report::shard::*;

use crate::identity::Identity;

/// The identity of a failure `header`'s shard recorded: its program's
/// version and file are the header's (`None` for a program it does not
/// list).
pub fn failure_identity(header: &Header, failure: &FailureRecord) -> Option<Identity> {
    let program = header
        .programs
        .iter()
        .find(|p| p.name == failure.program && p.fingerprint == failure.fingerprint)?;
    Some(Identity::of(
        &failure.signature,
        &program.fingerprint,
        &program.path,
    ))
}
