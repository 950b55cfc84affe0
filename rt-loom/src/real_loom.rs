//! The real loom crate met inside a model: a dependency of the crate
//! under test uses loom (behind its `loom` feature or `cfg(loom)`) and
//! kept the published loom, which the rename of the crate's own `loom`
//! dependency does not reach. loom's types work only inside loom's own
//! model, so every execution panics in loom's scheduler ("cannot access
//! Loom execution state from outside a Loom model"). That panic is no
//! concurrency bug, so the model fails with the setup error and its
//! remedy, the `[patch.crates-io]` that puts rankcheck-loom in loom's
//! place everywhere (the `as-loom` package).

use std::any::Any;
use std::panic::{self, AssertUnwindSafe, Location};

/// Runs `model` (the model called at `place`); should it panic naming a
/// source file of the published loom, panics with the setup error instead
/// (the panic's own report has been printed above it by then).
pub(crate) fn named_in_failure(place: &Location<'_>, model: impl FnOnce()) {
    let Err(payload) = panic::catch_unwind(AssertUnwindSafe(model)) else {
        return;
    };
    match message(&*payload).and_then(real_loom_file) {
        Some(file) => panic!("{}", setup_error(place, file)),
        None => panic::resume_unwind(payload),
    }
}

/// A panic's message, when it is text.
fn message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
}

/// The first path in `text` into a published loom's sources
/// (`.../loom-0.7.2/src/rt/scheduler.rs`), from its `loom-` folder on.
fn real_loom_file(text: &str) -> Option<&str> {
    text.match_indices("loom-").find_map(|(at, _)| {
        let after_folder = text[at..].split_once('/')?;
        let version = after_folder.0.strip_prefix("loom-")?;
        let published = version.starts_with(|c: char| c.is_ascii_digit())
            && text[..at].ends_with('/')
            && after_folder.1.starts_with("src/");
        let end = text[at..]
            .find(|c: char| c.is_whitespace() || c == ':' || c == ')')
            .map_or(text.len(), |n| at + n);
        published.then(|| &text[at..end])
    })
}

/// The error, its cause and the patch that cures it.
fn setup_error(place: &Location<'_>, file: &str) -> String {
    let as_loom = concat!(env!("CARGO_MANIFEST_DIR"), "/as-loom");
    format!(
        "loom model at {place}: the code under test called the published loom crate ({file}), \
         not rankcheck-loom, so the failure above is no concurrency bug. A dependency of this \
         crate uses loom (behind its `loom` feature or `cfg(loom)`) and kept the real one, whose \
         types work only inside loom's own model. Put rankcheck-loom in loom's place in the \
         whole dependency graph, in the top Cargo.toml:\n\n\
         [patch.crates-io]\n\
         loom = {{ path = \"{as_loom}\" }}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registry_loom_file_is_named() {
        let report = "error[panic]: cannot access Loom execution state\n   ┌─ \
                      /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/loom-0.7.2/src/rt/scheduler.rs:128:13";
        assert_eq!(
            real_loom_file(report),
            Some("loom-0.7.2/src/rt/scheduler.rs")
        );
    }

    #[test]
    fn the_crates_own_files_and_rankcheck_loom_are_not() {
        for text in [
            "panicked at src/tests/models.rs:38:5",
            "at /work/rankcheck/rt-loom/src/model.rs:12:1",
            "at /home/me/rankcheck-loom-0.1.0/src/lib.rs:3:1",
            "at /home/me/my-loom-tests/src/lib.rs:3:1",
            "loom-0.7.2 is installed",
        ] {
            assert_eq!(real_loom_file(text), None, "{text}");
        }
    }

    #[test]
    fn the_error_names_the_model_the_file_and_the_patch() {
        let error = setup_error(Location::caller(), "loom-0.7.2/src/rt/scheduler.rs");
        assert!(error.contains("real_loom.rs"), "{error}");
        assert!(error.contains("loom-0.7.2/src/rt/scheduler.rs"), "{error}");
        assert!(
            error.contains("[patch.crates-io]\nloom = { path = \""),
            "{error}"
        );
        assert!(error.contains("rt-loom/as-loom\" }"), "{error}");
    }
}
