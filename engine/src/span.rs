//! Byte spans into a program's source text.

use std::fmt;
use std::ops::Range;

/// A half-open byte range `start..end` into the source text of one program.
///
/// Spans are byte offsets, never lines and columns: those are computed only
/// when a diagnostic or a report is rendered, by the one piece of code that
/// holds the source text (see `ARCHITECTURE.md`). Every AST node and every IR
/// instruction carries one, so a trace points back at the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// First byte of the spanned text.
    pub start: u32,
    /// One past the last byte of the spanned text.
    pub end: u32,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: u32, end: u32) -> Span {
        debug_assert!(start <= end, "span start after its end");
        Span { start, end }
    }

    /// The smallest span that covers both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// The byte range, for slicing the source text.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}
