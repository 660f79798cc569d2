//! A structure made of a caller's cuts (a semantic chunker's, see [`crate::semantic`]): each cut is a boundary of
//! one level, stronger than the text levels, and a chunk never runs past the next cut; softer cuts, one level
//! below, are where a segment too large for one chunk is best cut. A segment between two cuts
//! that fits is one chunk; a larger one is cut by the engine at the text levels, so the size cap stays exact.

use super::Structure;
use crate::boundary::Level;

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
        let mut s = Structure {
            merge_sections: true,
            ..Structure::default()
        };
        s.add_cuts(text_len, cuts, level);
        let mut soft: Vec<usize> = soft.iter().filter(inside).copied().collect();
        soft.sort_unstable();
        for pos in soft {
            if s.cuts.binary_search(&pos).is_err() {
                s.push_bound(pos, soft_level);
            }
        }
        s
    }

    /// Adds a caller's `cuts` at `level` to a parsed structure (see [`Structure::from_cuts`]): a chunk never runs
    /// past the next of them, nor past the end of its section. At a position that is a cut already (a heading),
    /// the stronger level stays.
    pub fn add_cuts(&mut self, text_len: usize, cuts: &[usize], level: Level) {
        let mut hard: Vec<usize> = cuts
            .iter()
            .filter(|&&p| p > 0 && p < text_len)
            .copied()
            .collect();
        hard.sort_unstable();
        hard.dedup();
        for &pos in &hard {
            self.push_bound(pos, level);
        }
        self.cuts = hard;
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
