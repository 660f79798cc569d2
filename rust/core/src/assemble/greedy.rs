//! Greedy mode: where a chunk ends (the strongest level whose pieces fit, as many of them as fit) and where the
//! next one starts (its overlap, made of whole words at least).

use super::window::Window;
use super::{Assembler, Budget, Mark};
use crate::boundary::{next_grapheme_boundary, Level};

impl Assembler<'_> {
    /// For units that do not add up, the chunk a mark closes is counted exactly; if it does not fit after all, the
    /// latest earlier end that fits exactly is taken, preferring strong levels as `choose` does.
    pub(super) fn fit_exactly(
        &self,
        text: &str,
        win: &mut Window,
        mark: Mark,
        budget: Budget,
    ) -> Mark {
        if self.sizer.is_exact_sum() {
            return mark;
        }
        let start = win.start;
        let exact = |win: &Window, m: &Mark| {
            if m.exact {
                return *m;
            }
            let (end, _) = self.end_of(m);
            let size = self
                .sizer
                .size_in_window(text, start, end, &win.sizer_cache);
            Mark {
                size,
                trimmed_size: size,
                exact: true,
                ..*m
            }
        };
        let checked = exact(win, &mark);
        if self.end_of(&checked).1 <= budget.cap {
            return checked;
        }
        let limit = self.end_of(&mark).0;
        let first = self
            .levels
            .iter()
            .position(|&l| l <= mark.level)
            .unwrap_or(self.levels.len() - 1);
        for li in first..self.levels.len() {
            self.ensure(text, win, li);
            let level = self.levels[li];
            let candidates: Vec<Mark> = win
                .marks
                .iter()
                .filter(|m| m.level >= level)
                .filter(|m| {
                    let end = self.end_of(m).0;
                    end > start && end < limit
                })
                .copied()
                .collect();
            for m in candidates.iter().rev() {
                let checked = exact(win, m);
                if self.end_of(&checked).1 <= budget.cap {
                    return checked;
                }
            }
        }
        let m = self.oversized_grapheme(text, win);
        exact(win, &m)
    }

    /// Picks where the greedy chunk starting at `win.start` ends, within `budget`.
    pub(super) fn choose(&self, text: &str, win: &mut Window, budget: Budget) -> Mark {
        let start = win.start;
        // A piece of nothing but headings is no chunk of its own while a weaker level can add to it.
        let mut headings_only = None;
        for li in 0..self.levels.len() {
            self.ensure(text, win, li);
            let level = self.levels[li];
            let mut best = None;
            for m in win.marks.iter().filter(|m| m.level >= level) {
                let (end, size) = self.end_of(m);
                if end <= start {
                    continue;
                }
                if size > budget.cap || m.pos > budget.limit {
                    break;
                }
                best = Some(*m);
                if self
                    .structure
                    .is_some_and(|s| s.stops(m.level, level) && !s.headings_only(start, m.pos))
                {
                    break;
                }
            }
            if let Some(m) = best {
                if li + 1 < self.levels.len()
                    && self
                        .structure
                        .is_some_and(|s| s.headings_only(start, m.pos))
                {
                    headings_only.get_or_insert(m);
                    continue;
                }
                return m;
            }
        }
        headings_only.unwrap_or_else(|| self.oversized_grapheme(text, win))
    }

    /// Nothing fits: the chunk is the first grapheme cluster, however large.
    fn oversized_grapheme(&self, text: &str, win: &mut Window) -> Mark {
        let start = win.start;
        self.ensure(text, win, self.levels.len() - 1);
        if let Some(m) = win.marks.iter().find(|m| self.end_of(m).0 > start) {
            return *m;
        }
        // A single cluster longer than the window (a letter with thousands of combining marks).
        let pos = next_grapheme_boundary(text, start);
        let size = self.sizer.size(&text[start..pos]);
        Mark {
            pos,
            level: if pos == text.len() {
                Level::END
            } else {
                Level::GRAPHEME
            },
            size,
            trimmed_end: pos,
            trimmed_size: size,
            exact: true,
        }
    }

    /// Where the chunk after the one closed by `mark` starts: `mark.pos`, or earlier to overlap.
    pub(super) fn next_start(&self, text: &str, win: &mut Window, mark: &Mark) -> usize {
        if self.overlap == 0 || mark.pos >= text.len() {
            return mark.pos;
        }
        let (end, size) = self.end_of(mark);
        let mut start = win.start;
        if self.structure.is_some() {
            // No overlap across a heading: a section's chunks never begin with the end of the one before.
            if mark.level >= Level::SECTION {
                return mark.pos;
            }
            if let Some(h) = win
                .marks
                .iter()
                .rev()
                .find(|m| m.level >= Level::SECTION && m.pos < end)
            {
                start = start.max(h.pos.saturating_sub(1));
            }
        }
        let fits = |m: &&Mark| {
            size - m.size.min(size) <= self.overlap
                && (self.sizer.is_exact_sum()
                    || self.sizer.size(text[m.pos..end].trim_start()) <= self.overlap)
        };
        if let Some(rows) = self
            .structure
            .and_then(|s| s.table_overlap(win.start, mark.pos))
        {
            // A chunk cut between the rows of a table overlaps by whole data rows, which the structure names: any
            // row start is as good as another, whatever its level (the first row's is a weak one).
            if let Some(li) = self.levels.iter().rposition(|&l| l >= Level::WRAP) {
                self.ensure(text, win, li);
            }
            return win
                .marks
                .iter()
                .filter(|m| m.pos > start && m.pos < end && rows.binary_search(&m.pos).is_ok())
                .find(fits)
                .map_or(mark.pos, |m| m.pos);
        }
        // The overlap is made of whole words at least (and of whole rows inside a table).
        for li in 0..self.levels.len() {
            let level = self.levels[li];
            if level < Level::WORD {
                continue;
            }
            self.ensure(text, win, li);
            let found = win
                .marks
                .iter()
                .filter(|m| m.level >= level && m.pos > start && m.pos < end)
                .filter(fits)
                .find(|m| self.structure.is_none_or(|s| s.may_start_overlap(m.pos)));
            if let Some(m) = found {
                return m.pos;
            }
        }
        mark.pos
    }
}
