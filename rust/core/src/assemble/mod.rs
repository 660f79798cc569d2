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
//!
//! Here: the settings and the run loop (the budget of each chunk, dropping starts that bring nothing new, merging
//! small chunks). `window`: the look-ahead window of boundaries and the size of the chunk ending at each.
//! `greedy`: where a greedy chunk ends and where the next one starts. `fixed`: fixed windows.

mod balance;
mod fixed;
mod greedy;
mod index;
#[cfg(test)]
mod tests;
mod window;

pub(crate) use window::rate_bucket;

use std::cell::Cell;
use window::Window;

use crate::boundary::{
    is_grapheme_boundary, next_grapheme_boundary, prev_grapheme_boundary, Emitter, Level,
};
use crate::levels::Row;
use crate::size::Sizer;
pub use crate::span::Span;
use crate::structure::Structure;

/// How a chunk's end is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Merge the strongest pieces that fit.
    Greedy,
    /// Fill the window, then snap back to a sentence or word boundary within `snap` units.
    Fixed {
        /// How far back (in units) a cut may move to land on a stronger boundary.
        snap: usize,
        /// The weakest level of the boundaries where windows start anew (`None`: never): a window ends at a
        /// boundary of the strongest such level it can hold one of (see `fixed`), and the next one starts there,
        /// without overlap. Only a window that holds none (in a paragraph longer than the size) is cut as above.
        restart: Option<Level>,
    },
}

/// The settings of one run of the engine: built with [`Assembler::new`] and the setters after it.
#[derive(Debug)]
pub struct Assembler<'a> {
    /// Every source of cuts with the level it reports at (the rows of the strategy's level table).
    emitters: &'a [Row],
    /// The distinct levels of `emitters`, strongest first.
    levels: &'a [Level],
    /// The sizer measuring chunks.
    sizer: &'a dyn Sizer,
    /// Largest chunk size, in the sizer's unit.
    capacity: usize,
    /// Largest overlap between consecutive chunks, in the sizer's unit.
    overlap: usize,
    /// Chunks smaller than this merge into a neighbour when the result fits.
    min_size: usize,
    /// Leave surrounding whitespace out of chunks.
    trim: bool,
    /// Greedy or fixed windows.
    mode: Mode,
    /// The document's structure, for structural strategies (Markdown, provisions).
    structure: Option<&'a Structure>,
    /// The text's line view (see [`crate::boundary::breaks`]), when it is not the text itself: the line-based
    /// (prose) emitters read it instead of the text.
    view: Option<&'a str>,
    /// Checks as it goes that a text read without a view needs none (see [`Assembler::checking`]).
    check: Option<&'a ViewCheck>,
    /// How many of the strongest levels are emitted together (those only the structure reports).
    eager: usize,
    /// Asked every [`STOP_EVERY`] chunks whether to stop: a caller's way to interrupt a long split.
    stop: Stop<'a>,
    /// The text is the head of a longer one (a stream): no chunk is made whose choice may read at or past this
    /// position, since what follows in the stream could change it (see [`Assembler::resume`]).
    horizon: Option<usize>,
    /// Whether chunks of the prose levels may be chosen without a window (see `index`): off only in tests, which
    /// compare the two paths.
    index: bool,
    /// Whether the greedy cuts are chosen again together for even sizes (see `balance`).
    balance: bool,
    /// When balancing: the paragraph boundaries the run's index measured, for `balance` to reuse.
    measured: std::cell::RefCell<index::Measured>,
}

/// Where a run of the engine stands before a chunk whose window is new: all it carries from one window to the
/// next. A run stopped at its horizon goes on from here over a longer text, exactly as if it had never stopped.
/// (Within a window the state is larger: weaker levels are emitted from where the window's chunks start, so a
/// run only stops where it opens a window.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resume {
    /// Where the search for the next chunk's start begins (before whitespace is skipped).
    pub pos: usize,
    /// The previous chunk's boundary: a chunk that starts before it (overlap) and ends within the previous
    /// chunk's content brings nothing new, and is dropped.
    pub prev_cut: usize,
    /// The end of the previous chunk's content.
    pub prev_end: usize,
    /// Bytes per unit seen so far, which sizes the next window.
    pub bytes_per_unit: f64,
}

impl Default for Resume {
    /// The start of a text.
    fn default() -> Self {
        Resume {
            pos: 0,
            prev_cut: 0,
            prev_end: 0,
            bytes_per_unit: 1.5,
        }
    }
}

impl Resume {
    /// The same state in a text that lost its first `dropped` bytes.
    pub fn shifted(self, dropped: usize) -> Resume {
        Resume {
            pos: self.pos - dropped,
            prev_cut: self.prev_cut.saturating_sub(dropped),
            prev_end: self.prev_end.saturating_sub(dropped),
            ..self
        }
    }
}

/// A caller's check whether a split should stop; `None` never stops.
#[derive(Clone, Copy, Default)]
struct Stop<'a>(Option<&'a (dyn Fn() -> bool + Sync + 'a)>);

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

/// What the chunk being assembled may take. The structure changes it from one section to the next, so it is
/// computed for each chunk and handed to the steps that choose its end.
#[derive(Debug, Clone, Copy)]
struct Budget {
    /// The chunk's capacity: `capacity`, less its context when the context counts.
    cap: usize,
    /// How far the chunk may reach (the end of its section, for structural strategies).
    limit: usize,
}

/// How far a run reading its text without a line view found it to need none (see [`Assembler::checking`]).
#[derive(Debug, Default)]
pub(crate) struct ViewCheck {
    /// `text[..clean]` holds no terminator that needs a view.
    clean: Cell<usize>,
    /// It holds one: the run stopped early.
    found: Cell<bool>,
}

impl ViewCheck {
    /// Whether the text of a finished run needs a line view after all: in what the run checked, or after it.
    /// (A byte order mark at its start is the caller's to see before the run.)
    pub(crate) fn needs_view(&self, text: &str) -> bool {
        self.found.get()
            || crate::boundary::breaks::terminator_in(text, self.clean.get(), text.len())
    }

    /// Checks `text` from where it is clean to `to`: false (and found) when it needs a view.
    fn clean_to(&self, text: &str, to: usize) -> bool {
        let from = self.clean.get();
        from >= to || self.clean_by(to, crate::boundary::breaks::terminator_in(text, from, to))
    }

    /// Records that the text up to `to` (from where it was clean) held a terminator (`found`) or not: false when it
    /// did.
    fn clean_by(&self, to: usize, found: bool) -> bool {
        if found {
            self.found.set(true);
        } else {
            self.clean.set(to);
        }
        !found
    }
}

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

impl<'a> Assembler<'a> {
    /// An engine over `emitters` (reporting the distinct `levels`, strongest first) measuring with `sizer`, for
    /// chunks of at most `capacity` units: greedy, trimmed, with no overlap, no minimum size, no structure, no line
    /// view, and never stopped, until the setters below say otherwise.
    pub fn new(
        emitters: &'a [Row],
        levels: &'a [Level],
        sizer: &'a dyn Sizer,
        capacity: usize,
    ) -> Self {
        Self {
            emitters,
            levels,
            sizer,
            capacity,
            overlap: 0,
            min_size: 0,
            trim: true,
            mode: Mode::Greedy,
            structure: None,
            view: None,
            check: None,
            eager: 0,
            stop: Stop::default(),
            horizon: None,
            index: true,
            balance: false,
            measured: Default::default(),
        }
    }

    /// Every greedy chunk chosen through a window, as the index path must match.
    #[cfg(test)]
    fn without_index(mut self) -> Self {
        self.index = false;
        self
    }

    /// The largest overlap between consecutive chunks, in the sizer's unit.
    pub fn overlap(mut self, overlap: usize) -> Self {
        self.overlap = overlap;
        self
    }

    /// Chunks smaller than `min_size` merge into a neighbour when the result fits.
    pub fn min_size(mut self, min_size: usize) -> Self {
        self.min_size = min_size;
        self
    }

    /// Whether surrounding whitespace is left out of chunks.
    pub fn trim(mut self, trim: bool) -> Self {
        self.trim = trim;
        self
    }

    /// Whether greedy cuts are chosen again together, for chunk sizes as even as the cap and the levels allow
    /// (see `balance`). Only [`Assembler::run`] balances: a stream's chunks are final as they come.
    pub fn balance(mut self, balance: bool) -> Self {
        self.balance = balance;
        self
    }

    /// Greedy or fixed windows.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The document's structure (structural strategies), and how many of the strongest levels it alone reports
    /// (they are emitted together).
    pub fn structure(mut self, structure: Option<&'a Structure>, eager: usize) -> Self {
        self.structure = structure;
        self.eager = eager;
        self
    }

    /// The text's line view (see [`crate::boundary::breaks`]) when it is not the text itself.
    pub fn view(mut self, view: Option<&'a str>) -> Self {
        self.view = view;
        self
    }

    /// Reads the text with no line view, `check` finding block by block, as the paragraph index scans the text,
    /// whether it needs one (for texts of any length, a check of each block while it is in the cache costs less
    /// than one pass over the whole text before the run). A run that finds it does stops early, with chunks to be
    /// dropped: the caller runs again through a view. Only a run with the index checks (see
    /// [`Assembler::indexes`]), and the text past the last block it scanned is the caller's to check
    /// ([`ViewCheck::needs_view`]).
    pub(crate) fn checking(mut self, check: Option<&'a ViewCheck>) -> Self {
        self.check = check;
        self
    }

    /// Asked every few chunks whether to stop ([`crate::ChunkError::Interrupted`]).
    pub fn stop(mut self, stop: Option<&'a (dyn Fn() -> bool + Sync + 'a)>) -> Self {
        self.stop = Stop(stop);
        self
    }

    /// Treats the text as the head of a longer one: [`Assembler::resume`] stops before any chunk whose choice may
    /// read text at or past `horizon`. Emitters read a little context past the window they scan, so the caller
    /// keeps a margin of text after the horizon (see `crate::stream`).
    pub fn horizon(mut self, horizon: Option<usize>) -> Self {
        self.horizon = horizon;
        self
    }

    /// Appends the spans of `text` to `out`, or stops with [`ChunkError::Interrupted`] when `stop` says so.
    pub fn run(&self, text: &str, out: &mut Vec<Span>) -> Result<(), crate::error::ChunkError> {
        let first = out.len();
        self.resume(text, Resume::default(), out)?;
        self.finish(text, out, first);
        Ok(())
    }

    /// What [`Assembler::run`] does after the chunks of its run are in `out[first..]`: balance them, merge the
    /// small ones.
    pub fn finish(&self, text: &str, out: &mut Vec<Span>, first: usize) {
        let found = self.check.is_some_and(|c| c.found.get());
        if self.balance && self.mode == Mode::Greedy && !found {
            self.balance_spans(text, out, first);
        }
        if self.min_size > 0 && !found {
            self.merge_small(text, out, first);
        }
    }

    /// Appends the spans of `text` from the state `from` to `out`, without merging small chunks. Returns where the
    /// run stopped when a chunk's choice would have read past the horizon (`None`: the text is done).
    pub fn resume(
        &self,
        text: &str,
        from: Resume,
        out: &mut Vec<Span>,
    ) -> Result<Option<Resume>, crate::error::ChunkError> {
        self.resume_recording(text, from, out, None)
    }

    /// [`Assembler::resume`], pushing to `states` (when given) the state after each chunk it pushes to `out`: where
    /// a run from that state would go on. Two runs that reach the same state go on alike (the window's estimate of
    /// bytes per unit only sizes windows, never moves a cut).
    pub fn resume_recording(
        &self,
        text: &str,
        from: Resume,
        out: &mut Vec<Span>,
        mut states: Option<&mut Vec<Resume>>,
    ) -> Result<Option<Resume>, crate::error::ChunkError> {
        let first = out.len();
        let mut win = Window::new(from.bytes_per_unit);
        let mut index = None;
        let mut pos = from.pos;
        // The previous chunk: where its boundary is, and where its content ends.
        let (mut prev_cut, mut prev_end) = (from.prev_cut, from.prev_end);
        let stopped = |pos, prev_cut, prev_end, bytes_per_unit| {
            Ok(Some(Resume {
                pos,
                prev_cut,
                prev_end,
                bytes_per_unit,
            }))
        };
        loop {
            let start = if self.trim {
                // A byte order mark that starts the text is no content either.
                let pos = if pos == 0 { bom_len(text) } else { pos };
                // Whitespace that starts a cluster (" \u{301}") stays: a chunk never starts inside one.
                floor_grapheme(text, skip_whitespace(text, pos))
            } else {
                pos
            };
            if self.horizon.is_some_and(|h| start >= h) {
                return stopped(pos, prev_cut, prev_end, win.bytes_per_unit());
            }
            if start >= text.len() {
                break;
            }
            if let Some(stop) = self.stop.0 {
                if (out.len() - first).is_multiple_of(STOP_EVERY) && stop() {
                    return Err(crate::error::ChunkError::Interrupted);
                }
            }
            let mark = match self.mode {
                Mode::Greedy => {
                    let index = index.get_or_insert_with(|| self.paragraph_index(start));
                    if let Some(mark) = index
                        .as_mut()
                        .and_then(|index| self.choose_paragraphs(text, index, start))
                    {
                        mark
                    } else {
                        if self.check.is_some_and(|c| c.found.get()) {
                            // The text needs a line view: the caller runs again through one.
                            return Ok(None);
                        }
                        if !self.reuse(text, start, &mut win) {
                            let rate = win.bytes_per_unit();
                            self.open(text, start, &mut win);
                            // The window's choices read up to its end (and the context after it).
                            if self.horizon.is_some_and(|h| win.scan_end() >= h) {
                                return stopped(pos, prev_cut, prev_end, rate);
                            }
                        }
                        let budget = self.budget(text, start);
                        let mark = self.choose(text, &mut win, budget);
                        self.fit_exactly(text, &mut win, mark, budget)
                    }
                }
                Mode::Fixed { snap, restart } => {
                    let (mark, reach) =
                        self.fixed_window(text, start, snap, restart, &mut win.fresh);
                    // A fixed window reads up to `reach` (and the context after it), and carries nothing to the
                    // next.
                    if self.horizon.is_some_and(|h| reach >= h) {
                        return stopped(pos, prev_cut, prev_end, win.bytes_per_unit());
                    }
                    mark
                }
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
            if let Some(states) = states.as_deref_mut() {
                states.push(Resume {
                    pos,
                    prev_cut,
                    prev_end,
                    bytes_per_unit: win.bytes_per_unit(),
                });
            }
        }
        Ok(None)
    }

    /// What the chunk starting at `start` may take.
    #[inline]
    fn budget(&self, text: &str, start: usize) -> Budget {
        match self.structure {
            Some(s) => Budget {
                cap: s.capacity_at(text, start, self.sizer, self.capacity),
                limit: s.limit_at(text.len(), start),
            },
            None => Budget {
                cap: self.capacity,
                limit: usize::MAX,
            },
        }
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

    /// The end and size of the chunk that a mark closes.
    #[inline]
    fn end_of(&self, m: &Mark) -> (usize, usize) {
        if self.trim {
            (m.trimmed_end, m.trimmed_size)
        } else {
            (m.pos, m.size)
        }
    }

    /// Merges each chunk smaller than `min_size` into the chunk before it (or the first into the next) when the
    /// merged chunk fits.
    fn merge_small(&self, text: &str, spans: &mut Vec<Span>, first: usize) {
        let mut k = first;
        for i in first..spans.len() {
            let cur = spans[i];
            if k > first {
                if let Some(merged) = self.merged(text, &spans[k - 1], &cur) {
                    spans[k - 1] = merged;
                    continue;
                }
            }
            spans[k] = cur;
            k += 1;
        }
        spans.truncate(k);
    }

    /// `prev` and `cur` as one chunk, when either is smaller than `min_size` and the two fit together.
    pub fn merged(&self, text: &str, prev: &Span, cur: &Span) -> Option<Span> {
        // Never across a heading, nor (a caller's cut being no barrier) past the end of `prev`'s section.
        let barrier = self.structure.is_some_and(|s| {
            prev.level.heading_depth().is_some()
                || cur.end > s.section_limit(text.len(), prev.start)
        });
        if barrier || (cur.size >= self.min_size && prev.size >= self.min_size) {
            return None;
        }
        let merged = self.sizer.size(&text[prev.start..cur.end]);
        let cap = self.structure.map_or(self.capacity, |s| {
            s.capacity_at(text, prev.start, self.sizer, self.capacity)
        });
        (merged <= cap).then_some(Span {
            start: prev.start,
            end: cur.end,
            level: cur.level,
            size: merged,
        })
    }
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
    pos + window::leading_whitespace(&text[pos..])
}
