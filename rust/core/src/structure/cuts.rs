//! A structure made of a caller's cuts (a semantic chunker's, see [`crate::semantic`]): each cut is a boundary of
//! one level, stronger than the text levels, and a chunk never runs past the next cut; softer cuts, one level
//! below, are where a segment too large for one chunk is best cut. A segment between two cuts
//! that fits is one chunk; a larger one is cut by the engine at the text levels, so the size cap stays exact.

use super::Structure;
use crate::boundary::{Boundary, Level};

impl Structure {
    /// The structure of `cuts` reported at `level`, and of `soft` cuts reported at `soft_level` (byte offsets into
    /// a text of `text_len` bytes, each a grapheme boundary; in any order): a chunk never runs past the next of
    /// `cuts`, and may take several soft pieces, or overlap across a soft cut, as it does across a paragraph.
    /// Cuts at the text's edges are dropped.
    pub fn from_cuts(
        text_len: usize,
        (cuts, level): (&[usize], Level),
        (soft, soft_level): (&[usize], Level),
    ) -> Self {
        let inside = |p: &&usize| **p > 0 && **p < text_len;
        let mut hard: Vec<usize> = cuts.iter().filter(inside).copied().collect();
        hard.sort_unstable();
        hard.dedup();
        let mut s = Structure {
            merge_sections: true,
            ..Structure::default()
        };
        for &pos in &hard {
            s.bounds.push(Boundary { pos, level });
        }
        for &pos in soft.iter().filter(inside) {
            if hard.binary_search(&pos).is_err() {
                s.bounds.push(Boundary {
                    pos,
                    level: soft_level,
                });
            }
        }
        s.bounds.sort_by_key(|b| b.pos);
        s.bounds.dedup_by_key(|b| b.pos);
        s.cuts = hard;
        s
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
        let s = Structure::from_cuts(
            100,
            (&[40, 10, 0, 100, 40], Level::THEMATIC),
            (&[20, 40], Level::BLOCK),
        );
        assert_eq!(s.cuts, [10, 40]);
        let levels: Vec<(usize, Level)> = s.bounds.iter().map(|b| (b.pos, b.level)).collect();
        assert_eq!(
            levels,
            [
                (10, Level::THEMATIC),
                (20, Level::BLOCK),
                (40, Level::THEMATIC)
            ]
        );
        assert_eq!(s.limit_at(100, 0), 10);
        assert_eq!(s.limit_at(100, 10), 40);
        assert_eq!(s.limit_at(100, 25), 40);
        assert_eq!(s.limit_at(100, 40), 100);
    }
}
