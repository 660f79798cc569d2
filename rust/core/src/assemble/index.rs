//! The prose levels without a window. When a strategy's strongest cuts are blank lines alone and sizes add up per
//! char, most chunks are runs of whole paragraphs. Their boundaries are found and measured in one forward pass,
//! block by block (the index), and such a chunk is chosen from them with no window opened: a window would emit and
//! measure the same paragraphs again for every chunk that starts inside it. A chunk that must end inside a paragraph
//! is a run of whole lines when one fits, else of whole sentences, clauses, wraps or words: each level is emitted
//! from the chunk start only as far as its first piece that no longer fits. Only a chunk that not even a word fits
//! in (or one whose choice would read past a stream's horizon) goes to the window.
//!
//! The marks are those a window opened at the chunk start would hold (same boundaries, same sizes), so a chunk is
//! the same whichever path chose it. The paragraph emitter decides a cut from the blank run that makes it and the
//! line after it, not from where its scan started, as long as the scan starts at content: a trimmed chunk start, or
//! a block edge just after a line break that content follows. Sizes only grow along the text, so the last boundary
//! that fits is the one before the first that does not.

use super::window::{content_len, leading_whitespace};
use super::{Assembler, Mark, Mode};
use crate::boundary::breaks::{terminator_at, TERMINATOR_LEADS};
use crate::boundary::{is_grapheme_boundary, Boundary, Emitter, Level};
use crate::levels::Source;
use crate::simd::CharCounts;
use prefetch_index::prefetch_index;

/// Bytes scanned at least per block: enough for the per-block calls to cost nothing, little enough to bound the
/// index's memory.
const BLOCK: usize = 64 * 1024;

/// How far ahead of the chunk being chosen the text is fetched into the cache: past the end of the next block the
/// index scans. The scan's vector loops read faster than memory delivers; fetched a few lines per chunk, as the
/// chunks before it are chosen, the block is in the cache when they come to it.
const FETCH_AHEAD: usize = BLOCK + 16 * 1024;

/// A paragraph boundary and the sizes of the text from the index's origin to it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) pos: usize,
    /// Size of `text[origin..pos]`.
    pub(super) size: usize,
    /// Where the content before `pos` ends (trailing whitespace left out), and the size up to there.
    pub(super) trimmed_end: usize,
    pub(super) trimmed_size: usize,
}

/// The paragraph boundaries a run's index measured, kept for balancing (see `balance`): the whole text's up to
/// `to`, at `level`.
#[derive(Debug, Default)]
pub(super) struct Measured {
    pub(super) entries: Vec<Entry>,
    pub(super) to: usize,
    pub(super) level: Option<Level>,
    /// The boundaries of the weaker levels the chunks chosen inside a paragraph measured: for each, the chunk's
    /// start, the level and the boundary with its sizes from the index's origin, up to the chunk's end. In order.
    pub(super) inner: Vec<(usize, Level, Entry)>,
}

/// The paragraph boundaries ahead of the chunk being assembled, measured from the index's origin.
#[derive(Debug)]
pub(super) struct Index {
    /// The level the paragraph boundaries report at.
    level: Level,
    /// The next levels, as far as line ends, sentence ends, clauses, soft wraps and words alone make them, in this
    /// order (the prose levels): a chunk inside a paragraph is a run of whole lines when one fits, else of whole
    /// sentences, and so on, chosen without a window too. A chunk that not even a word fits in goes to the window.
    weaker: Vec<(Emitter, Level)>,
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
    /// For sizes in chars: the chars of the block last scanned, counted in one pass.
    counts: Option<CharCounts>,
    /// The text is asked into the cache up to here (see [`FETCH_AHEAD`]).
    fetched: usize,
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
        let mut weaker = Vec::new();
        for (&level, emitter) in self.levels[1..].iter().zip([
            Emitter::Line,
            Emitter::Sentence,
            Emitter::Clause,
            Emitter::Wrap,
            Emitter::Word,
        ]) {
            if !only(level, emitter.clone()) {
                break;
            }
            weaker.push((emitter, level));
        }
        let applies = paragraphs && self.index_may_apply();
        let origin_entry = Entry {
            pos: origin,
            size: 0,
            trimmed_end: origin,
            trimmed_size: 0,
        };
        applies.then(|| Index {
            level: strongest,
            weaker,
            entries: Vec::new(),
            next: 0,
            scanned: origin,
            last: origin_entry,
            known: (origin, 0),
            done: false,
            fresh: Vec::new(),
            counts: self.sizer.counts_chars().then(CharCounts::default),
            fetched: origin,
        })
    }

    /// Whether the run's settings let chunks be chosen through the index: greedy mode, trimmed chunks with no
    /// overlap and no structure, sizes that add up per char (the sources of cuts decide the rest).
    fn index_may_apply(&self) -> bool {
        self.index
            && self.mode == Mode::Greedy
            && self.trim
            && self.overlap == 0
            && self.structure.is_none()
            && self.eager == 0
            && self.sizer.is_exact_sum()
            && self.sizer.adds_per_char()
    }

    /// Whether a run chooses its chunks through the paragraph index (and so checks its text as it scans, see
    /// [`Assembler::checking`]).
    pub(crate) fn indexes(&self) -> bool {
        self.paragraph_index(0).is_some()
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
        let ahead = (start + FETCH_AHEAD).min(text.len());
        while index.fetched < ahead {
            prefetch_index(text.as_bytes(), index.fetched);
            index.fetched += 64;
        }
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
                // The boundaries behind the start go before a block comes: the index holds about two blocks,
                // however long the text.
                i -= index.entries.drain(..index.next).len();
                index.next = 0;
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
                    let mut end = e.pos;
                    for weaker in &index.weaker {
                        let counts = index.counts.as_ref();
                        match self.choose_in(
                            text,
                            (start, base),
                            end,
                            weaker,
                            &mut index.fresh,
                            counts,
                        ) {
                            Ok(mark) => return Some(mark),
                            Err(proof) => end = proof,
                        }
                    }
                    return None;
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

    /// The chunk starting at `start` before `end` (a boundary of a stronger level that does not fit) as a run of
    /// whole pieces of `emitter` (lines, sentences, ...): the mark of the last of its boundaries that fits, or else
    /// where the next level's search ends. No boundary past the first content that no longer fits can fit (it
    /// would hold that content), so the level is emitted from the start (as a window would scan it) up to a little
    /// past there, and never further, however long the paragraph or line.
    fn choose_in(
        &self,
        text: &str,
        (start, base): (usize, usize),
        end: usize,
        (emitter, level): &(Emitter, Level),
        fresh: &mut Vec<Boundary>,
        counts: Option<&CharCounts>,
    ) -> Result<Mark, usize> {
        let level = *level;
        let over = self.sizer.advance(text, start, self.capacity).min(end);
        let rest = &text[over..end];
        let content = over + leading_whitespace(rest);
        // Boundaries before `limit` may fit: up to and at the first content that does not.
        let limit = text[content..end]
            .chars()
            .next()
            .map_or(end, |c| content + c.len_utf8());
        // Emitters read the text up to the end of their scan (words, runs of terminators): a little more of it
        // keeps the boundaries before `limit` those of a longer scan.
        let to = crate::offsets::ceil_char_boundary(text, (limit + 64).min(end));
        fresh.clear();
        emitter.emit(self.source(text, emitter), start, to, level, fresh);
        let (mut prev, mut size, mut trimmed_end, mut trimmed_size) = (start, 0, start, 0);
        let mut best = None;
        for b in fresh.iter() {
            if b.pos >= limit {
                break;
            }
            if !is_grapheme_boundary(text, b.pos) {
                continue;
            }
            let (units, content, blank) = self.piece_at(text, prev, b.pos, counts);
            if content > 0 {
                (trimmed_end, trimmed_size) = (prev + content, size + units - blank);
            }
            size += units;
            prev = b.pos;
            if trimmed_end <= start {
                continue;
            }
            if trimmed_size > self.capacity {
                break;
            }
            best = Some(Mark {
                pos: b.pos,
                level,
                size,
                trimmed_end,
                trimmed_size,
                exact: true,
            });
            if self.balance {
                // Measured from the index's origin, for `balance` (the chunk's start is `base` from it).
                self.measured.borrow_mut().inner.push((
                    start,
                    level,
                    Entry {
                        pos: b.pos,
                        size: base + size,
                        trimmed_end,
                        trimmed_size: base + trimmed_size,
                    },
                ));
            }
        }
        best.ok_or(limit)
    }

    /// [`Assembler::piece`] of `text[a..b]`, from the char counts of the block when they cover it.
    fn piece_at(
        &self,
        text: &str,
        a: usize,
        b: usize,
        counts: Option<&CharCounts>,
    ) -> (usize, usize, usize) {
        let seg = &text[a..b];
        match counts {
            Some(counts) if counts.covers(a, b) => {
                let content = content_len(seg);
                let end = counts.before(b);
                (
                    end - counts.before(a),
                    content,
                    end - counts.before(a + content),
                )
            }
            _ => self.piece(seg, false),
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
        let first = (index.scanned + BLOCK).min(limit);
        let mut at = first;
        // Content first, then the break before it: a search per line break would cost a call per blank line in a
        // run of blank lines (a megabyte of them is a megabyte of calls).
        while let Some(off) = source[at..limit].iter().position(|&b| b > b' ') {
            let content = at + off;
            if content > first && source[content - 1] == b'\n' {
                to = Some(content);
                break;
            }
            match memchr::memchr(b'\n', &source[content..limit]) {
                Some(nl) => at = content + nl + 1,
                None => break,
            }
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
        // The text is checked for a line view (when the run reads it without one) as the block's chars are
        // counted, in the cache after the emitter's read.
        let clean = match (self.check, &mut index.counts) {
            (None, Some(counts)) => {
                counts.fill(text, index.scanned, to);
                true
            }
            (None, None) => true,
            (Some(check), Some(counts)) => {
                check.clean_to(text, index.scanned) && {
                    let bytes = text.as_bytes();
                    let found =
                        counts.fill_finding(text, index.scanned, to, TERMINATOR_LEADS, |p| {
                            terminator_at(bytes, p)
                        });
                    check.clean_by(to, found)
                }
            }
            (Some(check), None) => check.clean_to(text, to),
        };
        if !clean {
            return false;
        }
        let mut last = index.last;
        let kept = index.entries.len();
        for b in &index.fresh {
            if !is_grapheme_boundary(text, b.pos) {
                continue;
            }
            last = self.measured(text, last, b.pos, index.counts.as_ref());
            index.entries.push(last);
        }
        if to == text.len() && self.horizon.is_none() {
            index.done = true;
            if last.pos < to {
                last = self.measured(text, last, to, index.counts.as_ref());
                index.entries.push(last);
            }
        }
        index.scanned = to;
        index.last = last;
        if self.balance {
            let mut measured = self.measured.borrow_mut();
            measured.entries.extend_from_slice(&index.entries[kept..]);
            measured.to = to;
            measured.level = Some(index.level);
        }
        true
    }

    /// The entry of a boundary at `pos`, measured from the one before it.
    fn measured(&self, text: &str, prev: Entry, pos: usize, counts: Option<&CharCounts>) -> Entry {
        let (units, content, blank) = self.piece_at(text, prev.pos, pos, counts);
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

#[cfg(test)]
mod tests {
    use crate::assemble::Assembler;
    use crate::boundary::breaks::line_view;
    use crate::boundary::{Emitter, Level};
    use crate::levels::{Levels, Name, Source};
    use crate::size::Chars;
    use crate::span::Span;

    /// Texts of CJK and Latin prose, blank runs with spaces, CRLF, form feeds, wide spaces, indents, long lines and
    /// runs of dashes, emoji and combining marks, made from a fixed seed.
    fn texts() -> Vec<String> {
        const PIECES: [&str; 30] = [
            "中文句子。",
            "这是，一个、测试；",
            "「引用」",
            "」后面",
            "，接着",
            "word ",
            "Hello world. ",
            "e.g. 3.5 ",
            "\n",
            "\n\n",
            "\n  \n",
            "\r\n",
            "\r\n\r\n",
            "   ",
            "\t",
            "\u{3000}",
            "\u{a0}",
            "\x0c",
            "👍🏽",
            "e\u{301}",
            "日本語の文です。",
            ". ",
            "   indented line\n",
            "\n\n\n",
            "\u{2028}",
            "\u{85}",
            "1. item\n",
            "--------------------------------",
            "长长长长长长长长长长长长长长长长长长长长长长长长",
            "Mr. Smith, a long clause; ",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        (0..150)
            .map(|_| {
                let k = 1 + next(150);
                (0..k).map(|_| PIECES[next(PIECES.len())]).collect()
            })
            .collect()
    }

    /// The prose levels as the recursive strategy has them, graphemes last.
    fn prose_levels() -> Levels {
        let mut rows = crate::splitter::prose();
        rows.push((
            Source::Emitter(Emitter::Grapheme),
            Level::GRAPHEME,
            Name::Grapheme,
        ));
        Levels::new(rows)
    }

    #[test]
    fn chunks_chosen_without_a_window_are_the_windows_chunks() {
        same_chunks_both_ways(&texts(), &[1, 3, 8, 33, 200]);
    }

    #[test]
    fn texts_of_many_blocks_are_chunked_as_the_window_does() {
        // Block edges (and the char counts of each block) fall anywhere in these: inside paragraphs of every kind.
        let pieces = texts();
        let long: Vec<String> = (0..3)
            .map(|k| {
                pieces[k * 40..]
                    .iter()
                    .cycle()
                    .take(900)
                    .map(String::as_str)
                    .collect()
            })
            .collect();
        assert!(long.iter().all(|t| t.len() > 3 * super::BLOCK));
        same_chunks_both_ways(&long, &[33, 512]);
    }

    #[test]
    fn the_index_holds_about_two_blocks_however_long_the_text() {
        // 17 blocks of short paragraphs: each block has about 2,300 boundaries.
        let text = "A sentence of a paragraph.\n\n".repeat(40_000);
        let per_block = super::BLOCK / "A sentence of a paragraph.\n\n".len();
        let levels = prose_levels();
        let engine = Assembler::new(levels.rows(), levels.order(), &Chars, 512);
        let mut index = engine.paragraph_index(0).expect("the index applies");
        let (mut start, mut most, mut chunks) = (0, 0, 0);
        while start < text.len() {
            let mark = engine
                .choose_paragraphs(&text, &mut index, start)
                .expect("whole paragraphs fit");
            most = most.max(index.entries.capacity());
            chunks += 1;
            start = crate::assemble::skip_whitespace(&text, mark.pos);
        }
        assert!(chunks > 2000, "{chunks}");
        assert!(
            most <= 4 * per_block,
            "{most} entries held, {per_block} a block"
        );
    }

    fn same_chunks_both_ways(texts: &[String], sizes: &[usize]) {
        let levels = prose_levels();
        for (ti, text) in texts.iter().enumerate() {
            let text = text.as_str();
            let view = line_view(text);
            let view = (view.as_ref() != text).then_some(view.as_ref());
            for &size in sizes {
                // Balanced runs too: the boundaries the index measured are those a window emits and measures.
                for (min_size, balance) in
                    [(0, false), (size / 3, false), (0, true), (size / 3, true)]
                {
                    let engine = || {
                        Assembler::new(levels.rows(), levels.order(), &Chars, size)
                            .min_size(min_size)
                            .balance(balance)
                            .view(view)
                    };
                    let (mut fast, mut window) = (Vec::<Span>::new(), Vec::new());
                    engine().run(text, &mut fast).unwrap();
                    engine().without_index().run(text, &mut window).unwrap();
                    if let Some(i) =
                        (0..fast.len().max(window.len())).find(|&i| fast.get(i) != window.get(i))
                    {
                        panic!(
                            "text {ti} size {size}, min_size {min_size}, balance {balance}, chunk {i}: {:?} != {:?} in {:?}",
                            fast.get(i),
                            window.get(i),
                            &text[crate::offsets::ceil_char_boundary(text, fast.get(i).or(window.get(i)).map_or(0, |s| s.start.saturating_sub(20)))..]
                                .chars()
                                .take(80)
                                .collect::<String>()
                        );
                    }
                }
            }
        }
    }
}
