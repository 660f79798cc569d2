//! The strongest level indexed once. When a strategy's strongest cuts are blank lines alone and sizes add up per
//! char, most chunks are runs of whole paragraphs. Their boundaries are found and measured in one forward pass,
//! block by block, and such a chunk is chosen from the index with no window opened: a window would emit and measure
//! the same paragraphs again for every chunk that starts inside it. A chunk that must end inside a paragraph (the
//! first one after its start does not fit) is left to the window and the weaker levels.
//!
//! The index holds the marks a window opened at the chunk start would hold at that level (same boundaries, same
//! sizes), so a chunk is the same whichever path chose it. The paragraph emitter decides a cut from the blank run
//! that makes it and the line after it, not from where its scan started, as long as the scan starts at content: a
//! trimmed chunk start, or a block edge just after a line break that content follows.

use super::{Assembler, Mark, Mode};
use crate::boundary::{is_grapheme_boundary, Boundary, Emitter, Level};
use crate::levels::Source;

/// Bytes scanned at least per block: enough for the per-block calls to cost nothing, little enough to bound the
/// index's memory.
const BLOCK: usize = 64 * 1024;

/// A paragraph boundary and the sizes of the text from the index's origin to it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    pos: usize,
    /// Size of `text[origin..pos]`.
    size: usize,
    /// Where the content before `pos` ends (trailing whitespace left out), and the size up to there.
    trimmed_end: usize,
    trimmed_size: usize,
}

/// The paragraph boundaries ahead of the chunk being assembled, measured from the index's origin.
#[derive(Debug)]
pub(super) struct Index {
    /// The level the paragraph boundaries report at.
    level: Level,
    /// The level of line ends, when they alone make the next level: a chunk inside a paragraph is then a run of
    /// whole lines when one fits, chosen without a window too.
    lines: Option<Level>,
    /// The boundaries scanned and not yet passed, in order; `entries[next..]` lie after the last chunk start.
    entries: Vec<Entry>,
    next: usize,
    /// The text is scanned up to here: a block edge (or the origin, or the end of the text).
    scanned: usize,
    /// The last boundary measured (the origin before the first): the next piece is measured from it.
    last: Entry,
    /// A position at or before the next chunk start, and the size of the text from the origin to it.
    known: (usize, usize),
    /// Scanned to the end of the text (which is not the head of a stream).
    done: bool,
    fresh: Vec<Boundary>,
}

impl Assembler<'_> {
    /// The index of the strongest level for a run from `origin` (a trimmed chunk start), when it applies: greedy
    /// mode, trimmed chunks with no overlap and no structure, sizes that add up per char, and blank lines as the
    /// only source of the strongest level.
    pub(super) fn paragraph_index(&self, origin: usize) -> Option<Index> {
        let strongest = *self.levels.first()?;
        let only = |level: Level, emitter: Emitter| {
            let mut sources = self.emitters.iter().filter(|(_, l, _)| *l == level);
            matches!(sources.next(), Some((Source::Emitter(e), _, _)) if std::mem::discriminant(e) == std::mem::discriminant(&emitter))
                && sources.next().is_none()
        };
        let paragraphs = only(strongest, Emitter::Paragraph);
        let lines = self
            .levels
            .get(1)
            .copied()
            .filter(|&level| only(level, Emitter::Line));
        let applies = paragraphs
            && self.mode == Mode::Greedy
            && self.trim
            && self.overlap == 0
            && self.structure.is_none()
            && self.eager == 0
            && self.sizer.is_exact_sum()
            && self.sizer.adds_per_char();
        let origin_entry = Entry {
            pos: origin,
            size: 0,
            trimmed_end: origin,
            trimmed_size: 0,
        };
        applies.then(|| Index {
            level: strongest,
            lines,
            entries: Vec::new(),
            next: 0,
            scanned: origin,
            last: origin_entry,
            known: (origin, 0),
            done: false,
            fresh: Vec::new(),
        })
    }

    /// The chunk starting at `start` (a trimmed start, at or after the previous one's end) as a run of whole
    /// paragraphs: the mark of the last paragraph boundary that fits, as `choose` would find it in a window. `None`
    /// when none fits, or when telling would read past the horizon: the window decides then.
    pub(super) fn choose_paragraphs(
        &self,
        text: &str,
        index: &mut Index,
        start: usize,
    ) -> Option<Mark> {
        // The boundaries at or before the start are behind: the last of them measures the start.
        loop {
            while let Some(e) = index.entries.get(index.next).filter(|e| e.pos <= start) {
                if e.pos > index.known.0 {
                    index.known = (e.pos, e.size);
                }
                index.next += 1;
            }
            if index.next < index.entries.len() || index.done {
                break;
            }
            // Passed boundaries are dropped before new ones come, so the index holds about a block.
            index.entries.clear();
            index.next = 0;
            if !self.scan_block(text, index) {
                return None;
            }
        }
        let (at, size_at) = index.known;
        let base = size_at + self.sizer.size(&text[at..start]);
        index.known = (start, base);
        let mut best = None;
        let mut i = index.next;
        loop {
            let Some(&e) = index.entries.get(i) else {
                if index.done {
                    break;
                }
                if !self.scan_block(text, index) {
                    return None;
                }
                continue;
            };
            i += 1;
            if e.trimmed_end <= start {
                continue; // nothing but whitespace before it
            }
            if e.trimmed_size - base > self.capacity {
                if best.is_none() {
                    // The chunk ends inside the paragraph that ends at `e`.
                    return index.lines.and_then(|level| {
                        self.choose_lines(text, start, e.pos, level, &mut index.fresh)
                    });
                }
                break;
            }
            best = Some(e);
        }
        best.map(|e| Mark {
            pos: e.pos,
            level: if index.done && e.pos == text.len() {
                Level::END
            } else {
                index.level
            },
            size: e.size - base,
            trimmed_end: e.trimmed_end,
            trimmed_size: e.trimmed_size - base,
            exact: true,
        })
    }

    /// The chunk starting at `start` inside a paragraph that ends at `end` (too far to fit) as a run of whole lines:
    /// the mark of the last line end that fits, or `None` when none does. Lines are emitted from the start a piece at
    /// a time, until a line end that does not fit.
    fn choose_lines(
        &self,
        text: &str,
        start: usize,
        end: usize,
        level: Level,
        fresh: &mut Vec<Boundary>,
    ) -> Option<Mark> {
        let source = self.source(text, &Emitter::Line);
        let bytes = source.as_bytes();
        // The first piece reaches the line break after the content that no longer fits: no line end before it is
        // too big, and the one after it is, unless trailing whitespace is all that lies between.
        let over = self.sizer.advance(text, start, self.capacity).min(end);
        let mut to = memchr::memchr(b'\n', &bytes[over..end]).map_or(end, |nl| over + nl + 1);
        let (mut from, mut prev) = (start, start);
        let (mut size, mut trimmed_end, mut trimmed_size) = (0, start, 0);
        let mut best = None;
        loop {
            fresh.clear();
            Emitter::Line.emit(source, from, to, level, fresh);
            for b in fresh.iter() {
                if b.pos >= end || !is_grapheme_boundary(text, b.pos) {
                    continue;
                }
                let (units, content, blank) = self.piece(&text[prev..b.pos], false);
                if content > 0 {
                    (trimmed_end, trimmed_size) = (prev + content, size + units - blank);
                }
                size += units;
                prev = b.pos;
                if trimmed_end <= start {
                    continue;
                }
                if trimmed_size > self.capacity {
                    return best;
                }
                best = Some(Mark {
                    pos: b.pos,
                    level,
                    size,
                    trimmed_end,
                    trimmed_size,
                    exact: true,
                });
            }
            if to >= end {
                return best; // the paragraph's end does not fit
            }
            from = to;
            let ahead = (to + 1024).min(end);
            to = memchr::memchr(b'\n', &bytes[ahead..end]).map_or(end, |nl| ahead + nl + 1);
        }
    }

    /// Scans the next block of the text for paragraph boundaries and measures them. False when nothing more may be
    /// read (the horizon is reached) or the text is done.
    fn scan_block(&self, text: &str, index: &mut Index) -> bool {
        let source = self.source(text, &Emitter::Paragraph).as_bytes();
        let limit = self.horizon.map_or(text.len(), |h| h.min(text.len()));
        if index.done || index.scanned >= limit {
            return false;
        }
        // The block ends just after a line break that content follows: the scan of the next block starts in the
        // state a scan of the whole text would be in there.
        let mut to = None;
        let mut at = (index.scanned + BLOCK).min(limit);
        while let Some(off) = memchr::memchr(b'\n', &source[at..limit]) {
            let edge = at + off + 1;
            if source.get(edge).is_some_and(|&b| b > b' ') {
                to = Some(edge);
                break;
            }
            at = edge;
        }
        let to = match to {
            Some(edge) => edge,
            None if self.horizon.is_none() => text.len(),
            None => return false,
        };
        index.fresh.clear();
        Emitter::Paragraph.emit(
            self.source(text, &Emitter::Paragraph),
            index.scanned,
            to,
            index.level,
            &mut index.fresh,
        );
        let mut last = index.last;
        for b in &index.fresh {
            if !is_grapheme_boundary(text, b.pos) {
                continue;
            }
            last = self.measured(text, last, b.pos);
            index.entries.push(last);
        }
        index.scanned = to;
        if to == text.len() && self.horizon.is_none() {
            index.done = true;
            if last.pos < to {
                last = self.measured(text, last, to);
                index.entries.push(last);
            }
        }
        index.last = last;
        true
    }

    /// The entry of a boundary at `pos`, measured from the one before it.
    fn measured(&self, text: &str, prev: Entry, pos: usize) -> Entry {
        let (units, content, blank) = self.piece(&text[prev.pos..pos], false);
        let (trimmed_end, trimmed_size) = if content > 0 {
            (prev.pos + content, prev.size + units - blank)
        } else {
            (prev.trimmed_end, prev.trimmed_size)
        };
        Entry {
            pos,
            size: prev.size + units,
            trimmed_end,
            trimmed_size,
        }
    }
}
