//! What several tests of this directory share.

use std::path::PathBuf;

/// The `.rk` files of `examples/`, sorted.
pub fn example_paths() -> Vec<PathBuf> {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut paths: Vec<_> = std::fs::read_dir(&examples)
        .expect("the examples directory")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rk"))
        .collect();
    paths.sort();
    assert!(paths.len() > 5, "examples found: {paths:?}");
    paths
}
