//! Any text as a replay file: parsing never panics, and a file that parses
//! writes back to text that parses to the same file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rankcheck_engine::ReplayFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(file) = ReplayFile::parse(text) {
        assert_eq!(ReplayFile::parse(&file.to_text()), Ok(file));
    }
});
