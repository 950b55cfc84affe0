//! Any bytes through the front end: parsing and lowering never panic; a
//! rejected program has at least one diagnostic, each with a span inside
//! the source.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rankcheck_instr::{compile, CompileError};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(CompileError::Diagnostics(diagnostics)) = compile(source, &[]) {
        assert!(!diagnostics.is_empty(), "a rejected program has a diagnostic");
        for d in &diagnostics {
            assert!(
                d.span.end as usize <= source.len(),
                "a diagnostic's span lies in the source"
            );
        }
    }
});
