//! Fixed mode: windows of the most graphemes that fit, snapped back to a stronger boundary within `snap`, and
//! overlapping by graphemes; or, restarting at strong boundaries, windows of as many whole paragraphs as fit (whole
//! lines inside a paragraph longer than one, with restarts at lines), cut as above only inside a piece longer than
//! a window.
//!
//! Restarts make windows edit-stable: where a window ends depends only on the text from its start, and every
//! window that holds a boundary starts at one. An edit changes the window it falls in; the windows after it start
//! where they started before as soon as one of them ends where it ended before (usually the next one), and from
//! there on are the same.

use super::{ceil_grapheme, floor_grapheme, next_char, skip_whitespace, Assembler, Mark, Mode};
use crate::boundary::{
    is_grapheme_boundary, next_grapheme_boundary, prev_grapheme_boundary, Boundary, Level,
};
use crate::levels::Source;
use crate::offsets::{ceil_char_boundary, floor_char_boundary};

/// How many restart boundaries that fit by position may be measured and found too large (tokens are not monotonic)
/// before the window falls back to a fixed cut: a bound on the work per window.
const RESTART_TRIES: usize = 4;

impl Assembler<'_> {
    /// A fixed window from `start`, and how far its choice read. With `restart`, the window ends at a boundary of
    /// that level or a stronger one ([`Assembler::restart_cut`]); without one, or when it holds none, it is a fixed
    /// cut ([`Assembler::fixed_cut`]).
    pub(super) fn fixed_window(
        &self,
        text: &str,
        start: usize,
        snap: usize,
        restart: Option<Level>,
        scratch: &mut Vec<Boundary>,
    ) -> (Mark, usize) {
        let fit = self.sizer.advance(text, start, self.capacity);
        let mut reach = 0;
        if let Some(level) = restart {
            let found;
            (found, reach) = self.restart_cut(text, start, fit, level, scratch);
            if let Some(mark) = found {
                return (mark, reach);
            }
        }
        let mark = self.fixed_cut(text, start, fit, snap, restart, scratch);
        (mark, reach.max(mark.pos))
    }

    /// The window from `start` that ends at a boundary of the strongest level, `level` or above, that it can hold
    /// one of (`fit`: the end of the longest prefix that fits): the last such paragraph break, or the anchored line
    /// break; and how far the scan read. None when the rest of the text fits (its end is the cut) or no boundary
    /// does.
    ///
    /// The strongest level first, as in greedy mode: with restarts at lines, whole paragraphs fill a window when
    /// one fits, and lines only when none does. Windows then end where the paragraphs end, so that a window after
    /// an edit ends where it ended before at the first paragraph break both reach; lines of much the same length
    /// (a hard-wrapped text, a man page) packed across paragraphs would keep a shifted packing for many windows.
    /// Inside a paragraph, a window of lines ends at an anchor (see below).
    fn restart_cut(
        &self,
        text: &str,
        start: usize,
        fit: usize,
        level: Level,
        scratch: &mut Vec<Boundary>,
    ) -> (Option<Mark>, usize) {
        if fit >= text.len() {
            return (None, text.len());
        }
        // A paragraph boundary falls after the blank lines that end the paragraph, so the scan goes past the
        // whitespace after the fit (and a little further, for the context an emitter reads); it starts a little
        // before `start` so that a run of blank lines is seen whole.
        let from = floor_char_boundary(text, start.saturating_sub(32));
        let to = ceil_char_boundary(text, (skip_whitespace(text, fit) + 16).min(text.len()));
        // The strongest level first: the levels above lines over the whole window.
        self.restarts(
            text,
            (from, to),
            start,
            |l| l >= level && l > Level::LINE,
            scratch,
        );
        let found = self.last_fitting(text, start, fit, scratch);
        if found.is_some() || level != Level::LINE {
            return (found, to);
        }
        // Lines (of a paragraph longer than a window) end a window at the line break of the highest anchor in its
        // last third, not at the last one that fits: lines of much the same length (code, a man page) would keep
        // the packing an edit shifted until the paragraph ends, while two windows whose last thirds overlap mostly
        // pick the same anchor. Lines are the most numerous breaks: only the last third is scanned for them (from
        // the start of a line, so that the emitters see whole lines), unless it holds none that fits.
        let least = self
            .sizer
            .advance(text, start, self.capacity - self.capacity / 3)
            .clamp(from, to);
        let mid =
            memchr::memrchr(b'\n', &text.as_bytes()[from..least]).map_or(from, |i| from + i + 1);
        self.restarts(text, (mid, to), start, |l| l == Level::LINE, scratch);
        let fits = |b: &&Boundary| self.end_of_content(text, start, b.pos) <= fit;
        if scratch
            .iter()
            .find(fits)
            .is_some_and(|b| b.pos < text.len())
        {
            let pick = scratch
                .iter()
                .filter(fits)
                .filter(|b| self.end_of_content(text, start, b.pos) >= least)
                .max_by_key(|b| (anchor(text, b.pos), b.pos));
            if let Some(b) = pick {
                let mark = self.fixed_mark(text, start, b.pos, b.level);
                if self.sizer.is_exact_sum() || self.end_of(&mark).1 <= self.capacity {
                    return (Some(mark), to);
                }
            }
        }
        let mut found = self.last_fitting(text, start, fit, scratch);
        if found.is_none() && mid > from {
            self.restarts(text, (from, mid), start, |l| l == Level::LINE, scratch);
            found = self.last_fitting(text, start, fit, scratch);
        }
        (found, to)
    }

    /// The restart boundaries after `start` of the levels `take` keeps, found in `range`, into `out`: strongest
    /// level first, then last first.
    fn restarts(
        &self,
        text: &str,
        (from, to): (usize, usize),
        start: usize,
        take: impl Fn(Level) -> bool,
        out: &mut Vec<Boundary>,
    ) {
        out.clear();
        for (source, l, _) in self.emitters.iter().filter(|(_, l, _)| take(*l)) {
            if let Source::Emitter(emitter) = source {
                emitter.emit(self.source(text, emitter), from, to, *l, out);
            }
        }
        // The line view spells some terminators with more than one line break: only char (and cluster) boundaries
        // of the text are cuts.
        out.retain(|b| b.pos > start && is_grapheme_boundary(text, b.pos));
        out.sort_unstable_by_key(|b| std::cmp::Reverse((b.level, b.pos)));
    }

    /// The end of the content of `text[start..pos]`: trailing whitespace does not count, when trimmed.
    fn end_of_content(&self, text: &str, start: usize, pos: usize) -> usize {
        if self.trim {
            start + text[start..pos].trim_end().len()
        } else {
            pos
        }
    }

    /// The window from `start` to the first of `candidates` (in their order) that fits.
    fn last_fitting(
        &self,
        text: &str,
        start: usize,
        fit: usize,
        candidates: &[Boundary],
    ) -> Option<Mark> {
        let mut tries = 0;
        for b in candidates {
            if self.end_of_content(text, start, b.pos) > fit {
                continue;
            }
            let level = if b.pos == text.len() {
                Level::END
            } else {
                b.level
            };
            let mark = self.fixed_mark(text, start, b.pos, level);
            if self.sizer.is_exact_sum() || self.end_of(&mark).1 <= self.capacity {
                return Some(mark);
            }
            tries += 1;
            if tries == RESTART_TRIES {
                break;
            }
        }
        None
    }

    /// A fixed window from `start`: the most graphemes that fit (those up to `fit`, the end of the longest prefix
    /// that fits), cut back to a sentence or word boundary within `snap` units when there is one. No look-ahead
    /// window: only the cut and its snap zone are examined (not the boundaries of `restart`).
    fn fixed_cut(
        &self,
        text: &str,
        start: usize,
        fit: usize,
        snap: usize,
        restart: Option<Level>,
        scratch: &mut Vec<Boundary>,
    ) -> Mark {
        let mut raw = fit;
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
                .filter(|(_, l, _)| *l > Level::GRAPHEME && restart.is_none_or(|r| *l < r))
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
        let mut m = self.fixed_mark(text, start, cut, level);
        // Tokens are not monotonic ("hugging" can be one token and "huggin" two): a shorter cut than the longest
        // prefix that fits may not fit. Step back one cluster at a time until it does.
        let first = ceil_grapheme(text, next_char(text, start));
        while !self.sizer.is_exact_sum() && self.end_of(&m).1 > self.capacity && m.pos > first {
            m = self.fixed_mark(
                text,
                start,
                prev_grapheme_boundary(text, m.pos).max(first),
                Level::GRAPHEME,
            );
        }
        m
    }

    /// The mark of the window `text[start..cut]`, measured.
    fn fixed_mark(&self, text: &str, start: usize, cut: usize, level: Level) -> Mark {
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
    }

    /// Where the window after a fixed one starts: `overlap` units before its end, at a grapheme boundary inside it;
    /// at its end when it ended at a restart boundary.
    pub(super) fn fixed_next(&self, text: &str, start: usize, mark: &Mark) -> usize {
        let (end, size) = self.end_of(mark);
        let restarts = matches!(self.mode, Mode::Fixed { restart: Some(l), .. } if mark.level >= l);
        if self.overlap == 0 || mark.pos >= text.len() || size <= self.overlap || restarts {
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

/// The anchor of a line break at `pos`: a hash (FNV-1a) of the text just before it, so that it depends on nothing
/// else, wherever the window holding it starts.
fn anchor(text: &str, pos: usize) -> u64 {
    let bytes = &text.as_bytes()[pos.saturating_sub(32)..pos];
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use crate::{Level, Restart, Span, Splitter, SplitterConfig, Strategy};

    /// Fixed windows of `size` chars restarting at `restart`, changed by `with`.
    fn windows(size: usize, restart: Restart, with: impl FnOnce(&mut SplitterConfig)) -> Splitter {
        let mut c = SplitterConfig::new(Strategy::Fixed, size);
        c.restart = Some(restart);
        with(&mut c);
        Splitter::new(c).unwrap()
    }

    /// The texts of the spans, after checking that each is a non-empty slice of at most `size` chars (or one
    /// grapheme cluster).
    fn texts<'t>(splitter: &Splitter, text: &'t str) -> Vec<&'t str> {
        let size = splitter.config().size.unwrap();
        let spans: Vec<Span> = splitter.split(text).unwrap();
        spans
            .iter()
            .map(|s| {
                let piece = text.get(s.start..s.end).expect("char boundaries");
                let one_cluster = crate::boundary::next_grapheme_boundary(text, s.start) == s.end;
                assert!(!piece.is_empty() && s.size == piece.chars().count());
                assert!(s.size <= size || one_cluster, "{piece:?} over {size}");
                piece
            })
            .collect()
    }

    #[test]
    fn whole_paragraphs_fill_a_window_and_the_next_starts_at_a_paragraph() {
        let text = "One.\n\nTwo two.\n\nThree three three.\n\nFour.";
        let s = windows(20, Restart::Paragraph, |_| {});
        assert_eq!(
            texts(&s, text),
            ["One.\n\nTwo two.", "Three three three.", "Four."]
        );
        let levels: Vec<Level> = s.split(text).unwrap().iter().map(|s| s.level).collect();
        assert_eq!(levels, [Level::PARAGRAPH, Level::PARAGRAPH, Level::END]);
        // No overlap across a restart: the paragraph break is where the text starts anew.
        let overlapping = windows(20, Restart::Paragraph, |c| c.overlap = 5);
        assert_eq!(texts(&overlapping, text), texts(&s, text));
    }

    #[test]
    fn a_long_paragraph_is_cut_into_fixed_windows_and_its_tail_takes_what_fits() {
        let text = "abcdefghijklmnopqrstuv\n\nok\n\nlast one here";
        let s = windows(10, Restart::Paragraph, |c| c.overlap = 2);
        assert_eq!(
            texts(&s, text),
            [
                "abcdefghij",
                "ijklmnopqr",
                "qrstuv\n\nok",
                "last one h",
                "here"
            ]
        );
        // With snap the fixed windows inside the paragraph snap back to a word end, as without restarts.
        let text = "alpha beta gamma delta epsilon\n\nzeta";
        let s = windows(12, Restart::Paragraph, |c| c.snap = 6);
        assert_eq!(
            texts(&s, text),
            ["alpha beta", "gamma delta", "epsilon", "zeta"]
        );
    }

    #[test]
    fn restarts_at_lines_prefer_paragraph_breaks() {
        let text = "a1\na2\n\nb1\nb2\nb3\nb4\nb5\nb6";
        let lines = windows(13, Restart::Line, |_| {});
        // Lines only inside a paragraph that does not fit; a window never takes a line across a paragraph break
        // when the paragraph before it fits.
        assert_eq!(texts(&lines, text), ["a1\na2", "b1\nb2\nb3\nb4", "b5\nb6"]);
        let levels: Vec<Level> = lines.split(text).unwrap().iter().map(|s| s.level).collect();
        assert_eq!(levels, [Level::PARAGRAPH, Level::LINE, Level::END]);
        assert_eq!(lines.level_name(Level::LINE), "line");
        // Restarts at paragraphs cut the second paragraph into full windows.
        let paragraphs = windows(13, Restart::Paragraph, |_| {});
        assert_eq!(
            texts(&paragraphs, text),
            ["a1\na2", "b1\nb2\nb3\nb4\nb", "5\nb6"]
        );
    }

    #[test]
    fn an_edit_changes_only_the_windows_near_it() {
        let paragraph = |i: usize| format!("Paragraph {i} {}", "word ".repeat(i * 7 % 13));
        let doc: Vec<String> = (0..60).map(paragraph).collect();
        let text = doc.join("\n\n");
        let mut edited = doc.clone();
        edited[3].insert_str(0, "A sentence inserted here. ");
        let edited = edited.join("\n\n");
        for restart in [Restart::Paragraph, Restart::Line] {
            for overlap in [0, 10] {
                let s = windows(120, restart, |c| c.overlap = overlap);
                let (before, after) = (texts(&s, &text), texts(&s, &edited));
                let changed = before.iter().filter(|t| !after.contains(t)).count();
                assert!(changed <= 3, "{restart:?}: {changed} of {}", before.len());
                // Without restarts every window after the edit moves.
                let plain = Splitter::new(SplitterConfig::new(Strategy::Fixed, 120)).unwrap();
                let (before, after) = (texts(&plain, &text), texts(&plain, &edited));
                assert!(before.iter().filter(|t| !after.contains(t)).count() > before.len() / 2);
            }
        }
    }

    #[test]
    fn windows_of_lines_of_one_length_resynchronise_after_an_edit() {
        // One paragraph of lines of the same length: the last line that fits would end every window after the
        // edit one line later than before, down to the end of the paragraph.
        let lines: Vec<String> = (0..400)
            .map(|i| format!("    value_{i:03} = f(x)"))
            .collect();
        let text = lines.join("\n");
        let mut edited = lines.clone();
        edited.insert(5, "    inserted = 1".to_owned());
        let edited = edited.join("\n");
        let s = windows(100, Restart::Line, |_| {});
        let (before, after) = (texts(&s, &text), texts(&s, &edited));
        let changed = before.iter().filter(|t| !after.contains(t)).count();
        assert!(changed <= 6, "{changed} of {}", before.len());
        // Each window but the last ends at a line break in its last third.
        let last = before.len() - 1;
        assert!(before[..last].iter().all(|t| t.chars().count() >= 66));
    }

    #[test]
    fn edge_cases_keep_the_invariants() {
        for text in [
            "",
            "\n\n\n",
            "éé",
            "e\u{301}e\u{301}\n\ne\u{301}",
            "a\r\nb\r\n\r\nc",
            "a\u{2029}b\u{2028}c\u{85}d\x0be\x0cf",
            "\u{feff}x\n\ny",
            "。」\n\n」你好",
            "word\n\n, continued\n\nnext",
        ] {
            for restart in [Restart::Paragraph, Restart::Line] {
                for (size, overlap) in [(1, 0), (2, 1), (3, 0), (5, 2), (40, 0)] {
                    for trim in [true, false] {
                        let s = windows(size, restart, |c| {
                            c.overlap = overlap;
                            c.trim = trim;
                        });
                        let pieces = texts(&s, text);
                        if trim {
                            assert!(pieces.iter().all(|p| p.trim() == *p), "{text:?}");
                        } else if overlap == 0 {
                            assert_eq!(pieces.concat(), text, "{restart:?} {size}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn restart_is_for_the_fixed_strategy_only() {
        let mut c = SplitterConfig::new(Strategy::Recursive, 10);
        c.restart = Some(Restart::Line);
        assert_eq!(
            Splitter::new(c).unwrap_err().to_string(),
            "restart is only used by the fixed strategy"
        );
        assert_eq!(
            "lines".parse::<Restart>().unwrap_err().to_string(),
            r#"restart must be 'paragraph', 'line' or None, got "lines""#
        );
        assert_eq!("line".parse::<Restart>().unwrap().name(), "line");
    }
}
