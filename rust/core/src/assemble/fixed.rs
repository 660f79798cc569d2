//! Fixed mode: windows of the most graphemes that fit, snapped back to a stronger boundary within `snap`, and
//! overlapping by graphemes.

use super::{ceil_grapheme, floor_grapheme, next_char, skip_whitespace, Assembler, Mark};
use crate::boundary::{
    is_grapheme_boundary, next_grapheme_boundary, prev_grapheme_boundary, Boundary, Level,
};
use crate::levels::Source;
use crate::offsets::{ceil_char_boundary, floor_char_boundary};

impl Assembler<'_> {
    /// A fixed window from `start`: the most graphemes that fit, cut back to a sentence or word boundary within
    /// `snap` units when there is one. No look-ahead window: only the cut and its snap zone are examined.
    pub(super) fn fixed_cut(
        &self,
        text: &str,
        start: usize,
        snap: usize,
        scratch: &mut Vec<Boundary>,
    ) -> Mark {
        let mut raw = self.sizer.advance(text, start, self.capacity);
        if self.trim {
            raw = skip_whitespace(text, raw); // trailing whitespace is trimmed away: it does not count
        }
        let mut cut = floor_grapheme(text, raw);
        if cut <= start {
            cut = ceil_grapheme(text, next_char(text, start)); // one cluster larger than the window
        }
        let mut level = if cut == text.len() {
            Level::END
        } else {
            Level::GRAPHEME
        };
        if snap > 0 && cut < text.len() {
            scratch.clear();
            // Only the snap zone is scanned: from `snap` units before the cut (and a little context before that)
            // to a little past it, so that a boundary at the cut itself is seen.
            // (At most the cut: with tokens the longest prefix within the smaller budget can reach past it, over
            // whitespace that counts nothing or where counts are not monotonic.)
            let zone = self
                .sizer
                .advance(
                    text,
                    start,
                    self.sizer.size(&text[start..cut]).saturating_sub(snap),
                )
                .min(cut);
            let from_pos = floor_char_boundary(text, zone.saturating_sub(32).max(start));
            let to = ceil_char_boundary(text, (cut + 16).min(text.len()));
            for (source, l, _) in self
                .emitters
                .iter()
                .filter(|(_, l, _)| *l > Level::GRAPHEME)
            {
                let Source::Emitter(emitter) = source else {
                    continue; // fixed windows read no structure
                };
                let from = scratch.len();
                emitter.emit(self.source(text, emitter), from_pos, to, *l, scratch);
                if !emitter.grapheme_safe() {
                    let mut k = from;
                    for i in from..scratch.len() {
                        if is_grapheme_boundary(text, scratch[i].pos) {
                            scratch[k] = scratch[i];
                            k += 1;
                        }
                    }
                    scratch.truncate(k);
                }
            }
            let snapped = scratch
                .iter()
                .filter(|b| {
                    b.pos > start
                        && b.pos <= cut
                        && self.sizer.size(text[b.pos..cut].trim_end()) <= snap
                })
                .max_by_key(|b| (b.level, b.pos));
            if let Some(b) = snapped {
                (cut, level) = (b.pos, b.level);
            }
        }
        let mark = |cut: usize, level: Level| {
            let size = self.sizer.size(&text[start..cut]);
            let kept = text[start..cut].trim_end().len();
            let trimmed_size = if kept == cut - start {
                size
            } else {
                self.sizer.size(&text[start..start + kept])
            };
            Mark {
                pos: cut,
                level,
                size,
                trimmed_end: start + kept,
                trimmed_size,
                exact: true,
            }
        };
        let mut m = mark(cut, level);
        // Tokens are not monotonic ("hugging" can be one token and "huggin" two): a shorter cut than the longest
        // prefix that fits may not fit. Step back one cluster at a time until it does.
        let first = ceil_grapheme(text, next_char(text, start));
        while !self.sizer.is_exact_sum() && self.end_of(&m).1 > self.capacity && m.pos > first {
            m = mark(
                prev_grapheme_boundary(text, m.pos).max(first),
                Level::GRAPHEME,
            );
        }
        m
    }

    /// Where the window after a fixed one starts: `overlap` units before its end, at a grapheme boundary inside it.
    pub(super) fn fixed_next(&self, text: &str, start: usize, mark: &Mark) -> usize {
        let (end, size) = self.end_of(mark);
        if self.overlap == 0 || mark.pos >= text.len() || size <= self.overlap {
            return mark.pos;
        }
        let target = size - self.overlap;
        let mut at = self.sizer.advance(text, start, target);
        if self.sizer.size(&text[start..at]) < target {
            at = next_char(text, at);
        }
        let mut at = ceil_grapheme(text, at);
        // With tokens, the tail can count more than the difference of the two sizes: move in until it fits.
        while !self.sizer.is_exact_sum()
            && at > start
            && at < end
            && self.sizer.size(text[at..end].trim_start()) > self.overlap
        {
            at = next_grapheme_boundary(text, at);
        }
        if at > start && at < end {
            at
        } else {
            mark.pos
        }
    }
}
