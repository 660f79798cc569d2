//! A structure made of a caller's cuts (a semantic chunker's, see [`crate::semantic`]): each cut is a boundary of
//! one level, stronger than the text levels, and a chunk never runs past the next cut. A segment between two cuts
//! that fits is one chunk; a larger one is cut by the engine at the text levels, so the size cap stays exact.

use super::Structure;
use crate::boundary::{Boundary, Level};

impl Structure {
    /// The structure of `cuts` (byte offsets into a text of `text_len` bytes, each a grapheme boundary; in any
    /// order) reported at `level`. Cuts at the text's edges are dropped.
    pub fn from_cuts(text_len: usize, cuts: &[usize], level: Level) -> Self {
        let mut positions: Vec<usize> = cuts
            .iter()
            .copied()
            .filter(|&p| p > 0 && p < text_len)
            .collect();
        positions.sort_unstable();
        positions.dedup();
        Structure {
            bounds: positions
                .iter()
                .map(|&pos| Boundary { pos, level })
                .collect(),
            cuts: positions,
            merge_sections: true,
            ..Structure::default()
        }
    }

    /// The first cut after `start`, if any.
    pub(crate) fn next_cut(&self, start: usize) -> Option<usize> {
        let i = self.cuts.partition_point(|&c| c <= start);
        self.cuts.get(i).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_limit_chunks_to_the_next_cut() {
        let s = Structure::from_cuts(100, &[40, 10, 0, 100, 40], Level::THEMATIC);
        assert_eq!(s.cuts, [10, 40]);
        assert_eq!(s.limit_at(100, 0), 10);
        assert_eq!(s.limit_at(100, 10), 40);
        assert_eq!(s.limit_at(100, 25), 40);
        assert_eq!(s.limit_at(100, 40), 100);
    }
}
