//! THE assembly engine: every strategy turns its boundaries into chunks here.
//!
//! For each chunk, starting at `start`:
//! 1. Greedy mode looks ahead through a window: two chunks' worth of text (sized in bytes from the text seen so far,
//!    and grown when that falls short). Its strongest boundaries are emitted once and serve the chunks that start
//!    inside it. Weaker levels are emitted lazily, only as far as one chunk can reach: words and graphemes are only
//!    scanned when no stronger piece fits.
//! 2. Greedy mode takes the strongest level whose first piece fits, then as many pieces of that level as fit. A
//!    level is only abandoned inside a piece that does not fit; the end of that piece may then merge with what
//!    follows. Fixed mode cuts after the most graphemes that fit, snapped back to a sentence or word boundary
//!    within `snap`, and examines only the cut and its snap zone.
//! 3. Overlap: the next chunk starts at the earliest boundary of the strongest level whose tail fits in `overlap`:
//!    whole words at least in greedy mode (whole data rows inside a table), graphemes in fixed mode. A start that
//!    brings no new content is dropped.
//! 4. Trim: surrounding whitespace is left out of the span and of its size, unless `trim` is off.
//!
//! Work per chunk is bounded, so a text is processed in time linear in its length. The only allocations are
//! buffers reused from chunk to chunk.

use crate::boundary::{
    is_grapheme_boundary, next_grapheme_boundary, prev_grapheme_boundary, Boundary, Emitter, Level,
};
use crate::levels::{Row, Source};
use crate::offsets::{ceil_char_boundary, floor_char_boundary};
use crate::size::Sizer;
use crate::structure::Structure;

/// A chunk: byte offsets into the text, and the level of the boundary it ends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset past the last byte.
    pub end: usize,
    /// The boundary the chunk ends on ([`Level::END`] at the end of the text).
    pub level: Level,
    /// The chunk's size in the sizer's unit.
    pub size: usize,
}

/// How a chunk's end is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Merge the strongest pieces that fit.
    Greedy,
    /// Fill the window, then snap back to a sentence or word boundary within `snap` units.
    Fixed {
        /// How far back (in units) a cut may move to land on a stronger boundary.
        snap: usize,
    },
}

/// The settings of one run of the engine.
#[derive(Debug)]
pub struct Assembler<'a> {
    /// Every source of cuts with the level it reports at (the rows of the strategy's level table).
    pub emitters: &'a [Row],
    /// The distinct levels of `emitters`, strongest first.
    pub levels: &'a [Level],
    /// The sizer measuring chunks.
    pub sizer: &'a dyn Sizer,
    /// Largest chunk size, in the sizer's unit.
    pub capacity: usize,
    /// Largest overlap between consecutive chunks, in the sizer's unit.
    pub overlap: usize,
    /// Chunks smaller than this merge into a neighbour when the result fits.
    pub min_size: usize,
    /// Leave surrounding whitespace out of chunks.
    pub trim: bool,
    /// Greedy or fixed windows.
    pub mode: Mode,
    /// The document's structure, for structural strategies (Markdown, provisions).
    pub structure: Option<&'a Structure>,
    /// The text's line view (see [`crate::boundary::breaks`]), when it is not the text itself: the line-based
    /// (prose) emitters read it instead of the text.
    pub view: Option<&'a str>,
    /// How many of the strongest levels are emitted together (those only the structure reports).
    pub eager: usize,
    /// The capacity of the chunk being assembled: `capacity`, less its context when the context counts.
    pub cap: std::cell::Cell<usize>,
    /// How far the chunk being assembled may reach (the end of its section, for structural strategies).
    pub limit: std::cell::Cell<usize>,
    /// Asked every [`STOP_EVERY`] chunks whether to stop: a caller's way to interrupt a long split.
    pub stop: Stop<'a>,
}

/// A caller's check whether a split should stop; `None` never stops.
#[derive(Clone, Copy, Default)]
pub struct Stop<'a>(pub Option<&'a (dyn Fn() -> bool + 'a)>);

impl std::fmt::Debug for Stop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Stop(Some)"
        } else {
            "Stop(None)"
        })
    }
}

/// How many chunks are made between two stop checks: often enough to stop within milliseconds even when each chunk
/// is thousands of tokens, and rarely enough to cost nothing (the check is the caller's, and may read a clock).
const STOP_EVERY: usize = 16;

/// Units scanned past the capacity: trailing whitespace that trimming removes, and context for look-ahead rules.
const LOOKAHEAD: usize = 32;

/// How many chunks' worth of text a greedy window holds: its strongest boundaries serve several chunks.
const WINDOW_CHUNKS: f64 = 2.0;

/// The longest run of whitespace (in bytes) a window is stretched over to find the boundary after it.
const MAX_PADDING: usize = 64 * 1024;

/// A candidate end: a boundary with the size of the chunk that would end there.
#[derive(Debug, Clone, Copy)]
struct Mark {
    pos: usize,
    level: Level,
    /// Size of `text[start..pos]`.
    size: usize,
    /// End of the chunk trimmed of trailing whitespace, and its size.
    trimmed_end: usize,
    trimmed_size: usize,
    /// The size `end_of` gives is exact (always, for additive units).
    exact: bool,
}

/// The boundaries of one look-ahead window, computed level by level.
#[derive(Debug, Default)]
struct Window {
    start: usize,
    scan_end: usize,
    /// How many of the assembler's levels have been emitted.
    computed: usize,
    bounds: Vec<Boundary>,
    /// Scratch buffer for the marks that a weaker level leaves unchanged.
    tail: Vec<Mark>,
    /// Scratch buffers for one emitter's output and for merging it in.
    fresh: Vec<Boundary>,
    merged: Vec<Boundary>,
    marks: Vec<Mark>,
    /// Size of the whole window `text[start..scan_end]`.
    units: usize,
    /// Bytes per unit seen in earlier windows, to size the next one.
    bytes_per_unit: f64,
    /// The window is ASCII and the unit counts ASCII bytes: sizes are byte lengths.
    ascii: bool,
    /// Scratch buffers of `measure_estimated`.
    fresh_ends: Vec<usize>,
    sizes: Vec<(usize, bool)>,
    sizer_cache: crate::size::SizerCache,
}

impl<'a> Assembler<'a> {
    /// Appends the spans of `text` to `out`, or stops with [`ChunkError::Interrupted`] when `stop` says so.
    pub fn run(&self, text: &str, out: &mut Vec<Span>) -> Result<(), crate::error::ChunkError> {
        let first = out.len();
        let mut win = Window {
            bytes_per_unit: 1.5,
            ..Window::default()
        };
        let mut pos = 0;
        // The previous chunk: where its boundary is, and where its content ends.
        let (mut prev_cut, mut prev_end) = (0, 0);
        loop {
            let start = if self.trim {
                // A byte order mark that starts the text is no content either.
                let pos = if pos == 0 { bom_len(text) } else { pos };
                // Whitespace that starts a cluster (" \u{301}") stays: a chunk never starts inside one.
                floor_grapheme(text, skip_whitespace(text, pos))
            } else {
                pos
            };
            if start >= text.len() {
                break;
            }
            if let Some(stop) = self.stop.0 {
                if (out.len() - first) % STOP_EVERY == 0 && stop() {
                    return Err(crate::error::ChunkError::Interrupted);
                }
            }
            if let Some(s) = self.structure {
                self.cap
                    .set(s.capacity_at(text, start, self.sizer, self.capacity));
                self.limit.set(s.limit_at(text.len(), start));
            }
            let mark = match self.mode {
                Mode::Greedy => {
                    if !self.reuse(text, start, &mut win) {
                        self.open(text, start, &mut win);
                    }
                    let mark = self.choose(text, &mut win);
                    self.fit_exactly(text, &mut win, mark)
                }
                Mode::Fixed { snap } => self.fixed_cut(text, start, snap, &mut win.fresh),
            };
            let (end, size) = self.end_of(&mark);
            if start < prev_cut && end <= prev_end {
                // The overlap brought no new content: start after the previous chunk instead.
                pos = prev_cut;
                continue;
            }
            out.push(Span {
                start,
                end,
                level: mark.level,
                size,
            });
            (prev_cut, prev_end) = (mark.pos, end);
            pos = match self.mode {
                Mode::Greedy => self.next_start(text, &mut win, &mark),
                Mode::Fixed { .. } => self.fixed_next(text, start, &mark),
            };
        }
        if self.min_size > 0 {
            self.merge_small(text, out, first);
        }
        Ok(())
    }

    /// Resets the window to start at `start`, reaching past every end that could fit, and emits the strongest
    /// level. The window's byte length is estimated from the text seen so far; when it turns out to hold too few
    /// units, it doubles and the level is emitted again.
    fn open(&self, text: &str, start: usize, win: &mut Window) {
        let want = self.capacity.saturating_add(LOOKAHEAD);
        // A window holds several chunks (see `reuse`).
        let mut len = (want as f64 * win.bytes_per_unit * WINDOW_CHUNKS) as usize + 16;
        let mut padded = false;
        loop {
            let mut end = ceil_char_boundary(text, start.saturating_add(len).min(text.len()));
            if self.trim && ends_in_whitespace(text, end) {
                // The window ends in a run of whitespace (padding, blank lines): trimmed away, it costs nothing, so
                // look past it to the boundary that ends it, unless the run is huge (then the cut falls before it).
                let limit = ceil_char_boundary(text, text.len().min(end + MAX_PADDING));
                match text[end..limit].find(|c: char| !c.is_whitespace()) {
                    Some(run) => end = ceil_char_boundary(text, (end + run + 16).min(text.len())),
                    None if limit == text.len() => end = text.len(),
                    None => {}
                }
                padded = end > start + len;
            }
            win.start = start;
            win.scan_end = end;
            win.ascii = self.sizer.ascii_is_bytes() && text.as_bytes()[start..end].is_ascii();
            win.computed = 0;
            win.bounds.clear();
            win.marks.clear();
            self.ensure(text, win, 0);
            if win.units >= want || end == text.len() {
                break;
            }
            len *= 2;
        }
        if win.units > 0 && !padded {
            win.bytes_per_unit = (win.scan_end - start) as f64 / win.units as f64;
        }
    }

    /// Moves the window's start forward to `start` when the rest of the window still reaches past every end that
    /// could fit: its strongest boundaries stay valid and only their sizes shift. Weaker levels were only emitted
    /// near the old start, so they are dropped, to be emitted again near the new one. False: open a new window.
    fn reuse(&self, text: &str, start: usize, win: &mut Window) -> bool {
        if win.computed == 0 || start < win.start || start >= win.scan_end {
            return false;
        }
        if !self.sizer.is_exact_sum() {
            return false; // estimated sizes are not shifted: the window is measured again from the new start
        }
        let kept = win.marks.partition_point(|m| m.pos <= start);
        let (from, from_size) = match kept.checked_sub(1) {
            Some(i) => (win.marks[i].pos, win.marks[i].size),
            None => (win.start, 0),
        };
        let gap = &text[from..start];
        let base = from_size
            + if win.ascii {
                gap.len()
            } else {
                self.sizer.size(gap)
            };
        if win.units - base < self.capacity.saturating_add(LOOKAHEAD) && win.scan_end < text.len() {
            return false;
        }
        win.marks.drain(..kept);
        let dropped = win.bounds.partition_point(|b| b.pos <= start);
        win.bounds.drain(..dropped);
        let keep = self.eager.max(1);
        if win.computed > keep {
            let weakest = self.levels[keep - 1];
            win.bounds.retain(|b| b.level >= weakest);
            win.marks.retain(|m| m.level >= weakest);
            win.computed = keep;
        }
        for m in &mut win.marks {
            m.size -= base;
            if m.trimmed_end <= start {
                (m.trimmed_end, m.trimmed_size) = (start, 0);
            } else {
                m.trimmed_size -= base;
            }
        }
        win.units -= base;
        win.start = start;
        true
    }

    /// What `emitter` reads: the line view for the line-based emitters, else the text.
    fn source<'t>(&self, text: &'t str, emitter: &Emitter) -> &'t str
    where
        'a: 't,
    {
        match self.view {
            Some(view) if emitter.is_prose() => view,
            _ => text,
        }
    }

    /// Emits the boundaries of levels `0..=li` in the window, if not done yet, and recomputes the marks.
    fn ensure(&self, text: &str, win: &mut Window, li: usize) {
        if win.computed > li {
            return;
        }
        // Levels reported by the structure alone cost nothing to emit: they come all at once, measured once.
        let li = if win.computed == 0 {
            li.max(self.eager.max(1) - 1)
        } else {
            li
        };
        let lowest = self.levels[li];
        let above = win.computed.checked_sub(1).map(|i| self.levels[i]);
        let (start, mut scan_end) = (win.start, win.scan_end);
        if win.computed > 0 {
            // Below the strongest level, emit only as far as a chunk could reach: past the first boundary whose
            // size is beyond it, there is nothing a weaker cut could do.
            let reach = self.capacity.saturating_add(LOOKAHEAD);
            let past = win.marks.partition_point(|m| m.size < reach);
            scan_end = win.marks.get(past).map_or(scan_end, |m| m.pos);
        }
        let keep = |pos: usize| pos > start && (pos < scan_end || scan_end == text.len());
        for (source, level, _) in self.emitters {
            if *level < lowest || above.is_some_and(|a| *level >= a) {
                continue;
            }
            // Each source's output is sorted: merge it into the sorted bounds rather than sort them again.
            win.fresh.clear();
            match (source, self.structure) {
                (Source::Emitter(emitter), _) => emitter.emit(
                    self.source(text, emitter),
                    start,
                    scan_end,
                    *level,
                    &mut win.fresh,
                ),
                (Source::Structure, Some(s)) => s.emit(start, scan_end, *level, &mut win.fresh),
                (Source::Structure, None) => {}
            }
            if let Some(s) = self.structure {
                // Graphemes are the floor: a chunk that nothing else fits in may still end between two of them.
                s.filter(&mut win.fresh, source);
            }
            let safe = source.grapheme_safe();
            // A boundary at the edge of a window that stops short of the text end is an artefact of the window.
            win.fresh
                .retain(|b| keep(b.pos) && (safe || is_grapheme_boundary(text, b.pos)));
            merge_max(&win.bounds, &win.fresh, &mut win.merged);
            std::mem::swap(&mut win.bounds, &mut win.merged);
        }
        if win.computed == 0 && scan_end == text.len() && start < scan_end {
            win.bounds.retain(|b| b.pos != scan_end);
            win.bounds.push(Boundary {
                pos: scan_end,
                level: Level::END,
            });
        }
        win.computed = li + 1;
        self.measure(text, win, scan_end);
    }

    /// Computes the size of the chunk ending at each boundary of the window, in one pass.
    /// Marks past `upto` are kept as they are: only boundaries up to it were added.
    fn measure(&self, text: &str, win: &mut Window, upto: usize) {
        if !self.sizer.is_exact_sum() {
            self.measure_estimated(text, win);
            return;
        }
        let whole = upto >= win.scan_end;
        let past = win.marks.partition_point(|m| m.pos <= upto);
        win.tail.clear();
        if !whole {
            win.tail.extend_from_slice(&win.marks[past..]);
        }
        win.marks.clear();
        let (mut prev, mut size) = (win.start, 0);
        let (mut trimmed_end, mut trimmed_size) = (win.start, 0);
        let ascii = win.ascii;
        let size_of = |s: &str| if ascii { s.len() } else { self.sizer.size(s) };
        for b in win.bounds.iter().take_while(|b| whole || b.pos <= upto) {
            let seg = &text[prev..b.pos];
            let content = if ascii {
                trim_ascii_end(seg)
            } else {
                seg.trim_end()
            };
            if content.is_empty() {
                size += size_of(seg);
            } else {
                trimmed_size = size + size_of(content);
                trimmed_end = prev + content.len();
                size = trimmed_size + size_of(&seg[content.len()..]);
            }
            win.marks.push(Mark {
                pos: b.pos,
                level: b.level,
                size,
                trimmed_end,
                trimmed_size,
                exact: true,
            });
            prev = b.pos;
        }
        if whole {
            win.units = size + size_of(&text[prev..win.scan_end]);
        } else {
            win.marks.extend_from_slice(&win.tail);
        }
    }

    /// `measure` for units that do not add up (tokens): every mark's sizes come from one call of
    /// [`Sizer::prefix_sizes`] over the window, which counts the window's pieces once.
    fn measure_estimated(&self, text: &str, win: &mut Window) {
        let start = win.start;
        let mut ends = std::mem::take(&mut win.fresh_ends);
        ends.clear();
        let mut prev = start;
        let mut content_ends = Vec::with_capacity(win.bounds.len());
        let mut trimmed_end = start;
        for b in &win.bounds {
            let content = text[prev..b.pos].trim_end();
            if !content.is_empty() {
                trimmed_end = prev + content.len();
            }
            content_ends.push(trimmed_end);
            ends.push(trimmed_end);
            ends.push(b.pos);
            prev = b.pos;
        }
        ends.push(win.scan_end);
        let mut sizes = std::mem::take(&mut win.sizes);
        self.sizer
            .prefix_sizes(text, start, &ends, &mut sizes, &mut win.sizer_cache);
        win.marks.clear();
        for (i, b) in win.bounds.iter().enumerate() {
            let ((trimmed_size, trimmed_exact), (size, exact)) = (sizes[2 * i], sizes[2 * i + 1]);
            win.marks.push(Mark {
                pos: b.pos,
                level: b.level,
                size,
                trimmed_end: content_ends[i],
                trimmed_size,
                exact: if self.trim { trimmed_exact } else { exact },
            });
        }
        win.units = sizes.last().map_or(0, |s| s.0);
        win.fresh_ends = ends;
        win.sizes = sizes;
    }

    /// For units that do not add up, the chunk a mark closes is counted exactly; if it does not fit after all, the
    /// latest earlier end that fits exactly is taken, preferring strong levels as `choose` does.
    fn fit_exactly(&self, text: &str, win: &mut Window, mark: Mark) -> Mark {
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
        if self.end_of(&checked).1 <= self.cap.get() {
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
                if self.end_of(&checked).1 <= self.cap.get() {
                    return checked;
                }
            }
        }
        let m = self.oversized_grapheme(text, win);
        exact(win, &m)
    }

    /// The end and size of the chunk that a mark closes.
    #[inline]
    fn end_of(&self, m: &Mark) -> (usize, usize) {
        if self.trim {
            (m.trimmed_end, m.trimmed_size)
        } else {
            (m.pos, m.size)
        }
    }

    /// Picks where the greedy chunk starting at `win.start` ends.
    fn choose(&self, text: &str, win: &mut Window) -> Mark {
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
                if size > self.cap.get() || m.pos > self.limit.get() {
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
    fn next_start(&self, text: &str, win: &mut Window, mark: &Mark) -> usize {
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

    /// A fixed window from `start`: the most graphemes that fit, cut back to a sentence or word boundary within
    /// `snap` units when there is one. No look-ahead window: only the cut and its snap zone are examined.
    fn fixed_cut(
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
    fn fixed_next(&self, text: &str, start: usize, mark: &Mark) -> usize {
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

    /// Merges each chunk smaller than `min_size` into the chunk before it (or the first into the next) when the
    /// merged chunk fits.
    fn merge_small(&self, text: &str, spans: &mut Vec<Span>, first: usize) {
        let size = |a: usize, b: usize| self.sizer.size(&text[a..b]);
        let mut k = first;
        for i in first..spans.len() {
            let cur = spans[i];
            if k > first {
                let prev = spans[k - 1];
                let barrier = self.structure.is_some() && prev.level >= Level::SECTION;
                let small = !barrier && (cur.size < self.min_size || prev.size < self.min_size);
                let merged = if small {
                    size(prev.start, cur.end)
                } else {
                    usize::MAX
                };
                let cap = self.structure.map_or(self.capacity, |s| {
                    s.capacity_at(text, prev.start, self.sizer, self.capacity)
                });
                if merged <= cap {
                    spans[k - 1] = Span {
                        start: prev.start,
                        end: cur.end,
                        level: cur.level,
                        size: merged,
                    };
                    continue;
                }
            }
            spans[k] = cur;
            k += 1;
        }
        spans.truncate(k);
    }
}

/// Merges two sorted boundary lists into `out`, one boundary per position, at the higher level of the two.
fn merge_max(a: &[Boundary], b: &[Boundary], out: &mut Vec<Boundary>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.pos == y.pos => {
                i += 1;
                j += 1;
                Boundary {
                    pos: x.pos,
                    level: x.level.max(y.level),
                }
            }
            (Some(x), Some(y)) if x.pos < y.pos => {
                i += 1;
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => unreachable!("loop condition"),
        };
        match out.last_mut() {
            Some(last) if last.pos == next.pos => last.level = last.level.max(next.level),
            _ => out.push(next),
        }
    }
}

/// `s` without trailing ASCII whitespace, as `str::trim_end` would strip it (vertical tab included).
#[inline]
fn trim_ascii_end(s: &str) -> &str {
    let kept = s
        .bytes()
        .rev()
        .skip_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .count();
    &s[..kept]
}

/// The last grapheme cluster boundary at or before `pos`.
fn floor_grapheme(text: &str, pos: usize) -> usize {
    if is_grapheme_boundary(text, pos) {
        pos
    } else {
        prev_grapheme_boundary(text, pos)
    }
}

/// The first grapheme cluster boundary at or after `pos`.
fn ceil_grapheme(text: &str, pos: usize) -> usize {
    if is_grapheme_boundary(text, pos) {
        pos
    } else {
        next_grapheme_boundary(text, pos)
    }
}

/// The char boundary after the char at `pos` (or the text length).
fn next_char(text: &str, pos: usize) -> usize {
    text[pos..]
        .chars()
        .next()
        .map_or(text.len(), |c| pos + c.len_utf8())
}

/// Whether a window ending at `end` (short of the text end) stops inside a run of whitespace.
fn ends_in_whitespace(text: &str, end: usize) -> bool {
    end < text.len()
        && text[end..].chars().next().is_some_and(char::is_whitespace)
        && text[..end]
            .chars()
            .next_back()
            .is_some_and(char::is_whitespace)
}

/// The length of the byte order mark that starts `text`, if any.
fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    }
}

/// The first position at or after `pos` that is not whitespace (or the text length).
fn skip_whitespace(text: &str, pos: usize) -> usize {
    let rest = &text[pos..];
    pos + (rest.len() - rest.trim_start().len())
}
