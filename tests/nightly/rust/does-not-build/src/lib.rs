//! A crate with a type error: `rankcheck nightly` must name its entry.

/// Not a number.
pub fn answer() -> u32 {
    "forty-two"
}
