//! Byte offsets to 1-based line numbers: failures are compared by line.

/// Where each line of a source text starts.
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset of the first byte of each line, in order.
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `source`.
    pub fn new(source: &str) -> LineIndex {
        let newlines = source.match_indices('\n').map(|(at, _)| at + 1);
        LineIndex {
            starts: std::iter::once(0).chain(newlines).collect(),
        }
    }

    /// The 1-based line holding byte `offset`.
    pub fn line(&self, offset: u32) -> u32 {
        let offset = offset as usize;
        let after = self.starts.partition_point(|&start| start <= offset);
        after as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_from_one_and_a_newline_ends_its_line() {
        let index = LineIndex::new("ab\ncd\n\nx");
        assert_eq!(index.line(0), 1);
        assert_eq!(index.line(2), 1);
        assert_eq!(index.line(3), 2);
        assert_eq!(index.line(6), 3);
        assert_eq!(index.line(7), 4);
    }
}
