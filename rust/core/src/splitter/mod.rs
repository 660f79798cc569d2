//! Strategies as configurations of the one engine: each is one table of levels (which source reports cuts at
//! which level, and the level's name) and a mode.

use rayon::prelude::*;

use crate::assemble::{Assembler, Mode, Resume, ViewCheck};
pub use crate::boundary::KeepSeparator;
use crate::boundary::{Emitter, Level};
use crate::error::ChunkError;
use crate::levels::{Levels, Name, Row, Source};
use crate::span::Span;
pub use crate::structure::table::TableFormat;
use crate::structure::{self, Description, Structure};
use std::borrow::Cow;
use std::sync::Arc;

use crate::size::{CharCapped, Chars, MaxChars, Sizer, Unit};

mod config;
mod semantic;

pub use config::{
    Restart, SemanticConfig, SemanticFormat, SplitterConfig, Strategy, DEFAULT_MIN_UNIT,
};
pub use semantic::SemanticChunks;

/// The line view of `text` (see [`crate::boundary::breaks`]) when it is a copy: a view that is the text itself is
/// no view for the engine.
pub(crate) fn line_view(text: &str) -> Option<String> {
    match crate::boundary::breaks::line_view(text) {
        Cow::Owned(v) => Some(v),
        Cow::Borrowed(_) => None,
    }
}

/// The capacity of a chunk limited by rows only: larger than any text, and small enough that the engine's sums of
/// sizes cannot overflow.
const ROWS_ONLY_CAPACITY: usize = usize::MAX >> 2;

/// Texts measured in tokens from this many bytes are counted on all threads (see [`Splitter::run_parallel`]). (The
/// unit tests take small texts, and a reach short enough that runs sometimes fail to meet.)
const PARALLEL_MIN_BYTES: usize = if cfg!(test) { 48 << 10 } else { 4 << 20 };
/// How far past the next segment's start the run of a segment goes, at least, to meet the next one's run: this
/// many bytes, and this many per unit of the chunks' size.
const PARALLEL_REACH_BYTES: usize = if cfg!(test) { 1 << 10 } else { 256 << 10 };
const PARALLEL_REACH_PER_UNIT: usize = if cfg!(test) { 2 } else { 64 };

/// How often segments were joined where two runs met, and where they never did (for the tests to see both).
#[cfg(test)]
static SEGMENTS_MET: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
#[cfg(test)]
static SEGMENTS_MISSED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
#[cfg(test)]
static SEGMENTS_SKIPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The first chunk after which two runs of the engine stand alike: `(i, j)` with `a[i] == b[j]`, their estimates of
/// bytes per unit in the same bucket (which sizes the next window alike), the earliest in the text. States come in
/// the order of their positions.
fn meeting(a: &[Resume], b: &[Resume]) -> Option<(usize, usize)> {
    use crate::assemble::rate_bucket;
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (&a[i], &b[j]);
        if (x.pos, x.prev_cut, x.prev_end) == (y.pos, y.prev_cut, y.prev_end)
            && rate_bucket(x.bytes_per_unit) == rate_bucket(y.bytes_per_unit)
        {
            return Some((i, j));
        }
        if (x.pos, x.prev_cut) < (y.pos, y.prev_cut) {
            i += 1;
        } else {
            j += 1;
        }
    }
    None
}

/// A validated, immutable splitter: safe to share between threads.
#[derive(Debug)]
pub struct Splitter {
    config: SplitterConfig,
    capacity: usize,
    overlap: usize,
    min_size: usize,
    mode: Mode,
    /// Which source reports cuts at which level, and the name of each level.
    levels: Levels,
    unit: Unit,
    /// What the engine measures with: the unit's sizer, under the character cap in tokens.
    sizer: Arc<dyn Sizer>,
    /// The character cap, when there is one: chunks the cap measured get their exact size back from it.
    capped: Option<Arc<CharCapped>>,
}

/// A row of an emitter at `level`, named after the emitter.
fn scan(emitter: Emitter, level: Level) -> Row {
    let name = Name::of(&emitter);
    (Source::Emitter(emitter), level, name)
}

/// A row of the structure's cuts at `level`.
fn parsed(level: Level, name: Name) -> Row {
    (Source::Structure, level, name)
}

/// The text levels: blank lines, lines, sentences, clauses, soft wraps, words (graphemes are added to every
/// strategy).
pub(crate) fn prose() -> Vec<Row> {
    use Emitter::*;
    vec![
        scan(Paragraph, Level::PARAGRAPH),
        scan(Line, Level::LINE),
        scan(Sentence, Level::SENTENCE),
        scan(Clause, Level::CLAUSE),
        scan(Wrap, Level::WRAP),
        scan(Word, Level::WORD),
    ]
}

/// The six heading levels of a structure, H1 first.
fn sections() -> impl Iterator<Item = Row> {
    (1..=6).map(|d| parsed(Level::heading(d), Name::Section))
}

/// The cuts of code by its syntax (see [`structure::code`]): before the nodes of a module, then of the bodies
/// below, down to the cut depths.
fn code_rows() -> impl Iterator<Item = Row> {
    (1..=Level::CODE_DEPTHS).map(|d| {
        let name = if d == 1 {
            Name::Definition
        } else {
            Name::NestedBlock
        };
        parsed(Level::code(d), name)
    })
}

/// The markdown strategy's levels: sections by heading depth, then the blocks, then the text levels.
fn markdown_rows() -> impl Iterator<Item = Row> {
    sections()
        .chain([
            parsed(Level::THEMATIC, Name::ThematicBreak),
            parsed(Level::BLOCK, Name::Block),
            parsed(Level::ITEM, Name::Item),
            parsed(Level::NESTED, Name::NestedBlock),
        ])
        // The bodies of a code block, by its syntax when its language is known (by the words a definition starts
        // with when not: the first only); its blank lines, lines and soft wraps.
        .chain(code_rows())
        .chain([
            parsed(Level::PARAGRAPH, Name::Paragraph),
            parsed(Level::LINE, Name::Line),
            parsed(Level::WRAP, Name::Wrap),
        ])
        .chain(prose())
}

impl Splitter {
    /// Validates the configuration and builds the splitter.
    pub fn new(mut config: SplitterConfig) -> Result<Self, ChunkError> {
        if config.size.is_none() {
            // A tokenizer that knows its model's window: the chunks take what the model embeds.
            config.size = config.tokenizer.as_ref().and_then(|t| t.max_tokens());
        }
        if config.rows_per_chunk == Some(0) {
            return Err(ChunkError::invalid(
                "rows_per_chunk",
                "rows_per_chunk must be >= 1, got 0",
            ));
        }
        let capacity = match config.size {
            Some(0) => return Err(ChunkError::invalid("size", "size must be >= 1, got 0")),
            Some(size) => size,
            None if config.strategy == Strategy::Table && config.rows_per_chunk.is_some() => {
                return Self::rows_only(config);
            }
            None if config.strategy == Strategy::Table => {
                return Err(ChunkError::invalid(
                    "size",
                    "TableChunker needs size or rows_per_chunk (or both), got neither",
                ))
            }
            None => {
                return Err(ChunkError::invalid(
                    "size",
                    "size may be left out only with a tokenizer that knows its model's window \
                     (Tokenizer.for_model), or by the table strategy with rows_per_chunk",
                ))
            }
        };
        let overlap = config.overlap;
        if overlap >= capacity {
            return Err(ChunkError::invalid(
                "overlap",
                format!(
                    "overlap must be < size (0..={}), got {overlap}",
                    capacity - 1
                ),
            ));
        }
        let min_size = config.min_size;
        if min_size > capacity {
            return Err(ChunkError::invalid(
                "min_size",
                format!("min_size must be <= size (0..={capacity}), got {min_size}"),
            ));
        }
        let snap = config.snap;
        if snap >= capacity {
            return Err(ChunkError::invalid(
                "snap",
                format!("snap must be < size (0..={}), got {snap}", capacity - 1),
            ));
        }
        Self::build(config, capacity)
    }

    /// The table strategy limited by `rows_per_chunk` alone: no size, so no bound on overlap or min_size and no
    /// character cap in tokens (a cap is a share of the size).
    fn rows_only(mut config: SplitterConfig) -> Result<Self, ChunkError> {
        config.max_chars =
            match config.max_chars {
                MaxChars::Auto | MaxChars::Off => MaxChars::Off,
                MaxChars::Limit(_) => return Err(ChunkError::invalid(
                    "max_chars",
                    "max_chars caps a chunk of size tokens: give size too, or leave max_chars out",
                )),
            };
        Self::build(config, ROWS_ONLY_CAPACITY)
    }

    /// Builds the splitter once `size`, `overlap`, `min_size` and `snap` are checked against each other.
    fn build(config: SplitterConfig, capacity: usize) -> Result<Self, ChunkError> {
        let (overlap, min_size, snap) = (config.overlap, config.min_size, config.snap);
        let unit = config.unit;
        let sizer: Arc<dyn Sizer> = match (unit, &config.tokenizer) {
            (Unit::Chars, None) => Arc::new(Chars),
            (Unit::Tokens, Some(t)) => t.clone(),
            (Unit::Tokens, None) => {
                return Err(ChunkError::invalid(
                    "tokenizer",
                    "unit='tokens' needs a tokenizer",
                ))
            }
            (Unit::Chars, Some(_)) => {
                return Err(ChunkError::invalid(
                    "unit",
                    "a tokenizer measures in tokens: pass unit='tokens' (or leave unit out)",
                ))
            }
        };
        let capped =
            match (unit, config.max_chars) {
                (_, MaxChars::Off) | (Unit::Chars, MaxChars::Auto) => None,
                (Unit::Chars, MaxChars::Limit(_)) => return Err(ChunkError::invalid(
                    "max_chars",
                    "max_chars caps chunks measured in tokens; in characters the size is the cap \
                     (leave max_chars out, or measure in tokens)",
                )),
                (Unit::Tokens, MaxChars::Auto) => Some(Arc::new(CharCapped::new(
                    sizer.clone(),
                    capacity,
                    capacity.saturating_mul(CharCapped::DEFAULT_CHARS_PER_UNIT),
                )?)),
                (Unit::Tokens, MaxChars::Limit(n)) => {
                    Some(Arc::new(CharCapped::new(sizer.clone(), capacity, n)?))
                }
            };
        let sizer: Arc<dyn Sizer> = match &capped {
            Some(c) => c.clone(),
            None => sizer,
        };
        let fixed = sizer.size("");
        if fixed >= capacity {
            return Err(ChunkError::invalid(
                "size",
                format!("size must be > {fixed}, the special tokens added to every chunk, got {capacity}"),
            ));
        }
        if config.separators.is_some() && config.strategy != Strategy::Recursive {
            return Err(ChunkError::invalid(
                "separators",
                "separators are only used by the recursive strategy",
            ));
        }
        if config.balance {
            Self::check_balance(&config)?;
        }
        if config.restart.is_some() && config.strategy != Strategy::Fixed {
            return Err(ChunkError::invalid(
                "restart",
                "restart is only used by the fixed strategy",
            ));
        }
        if config.strategy == Strategy::Semantic {
            Self::check_semantic(&config.semantic, capacity)?;
        }
        let levels = Self::levels_of(&config, snap)?;
        let mode = match config.strategy {
            Strategy::Fixed => Mode::Fixed {
                snap,
                restart: config.restart.map(Restart::level),
            },
            _ => Mode::Greedy,
        };
        Ok(Self {
            config,
            capacity,
            overlap,
            min_size,
            mode,
            levels,
            unit,
            sizer,
            capped,
        })
    }

    /// Balanced cuts are greedy cuts chosen again: a strategy that makes no greedy cuts, or overlaps them, has none.
    fn check_balance(config: &SplitterConfig) -> Result<(), ChunkError> {
        let refused = match config.strategy {
            Strategy::Fixed => Some("fixed windows are cut by position, not chosen: use the recursive strategy"),
            Strategy::Semantic => {
                Some("the semantic strategy chooses its cuts by meaning: its mode='optimal' evens sizes")
            }
            _ if config.overlap > 0 => Some(
                "balanced chunks do not overlap (each cut is chosen with the ones around it): set overlap=0",
            ),
            _ => None,
        };
        match refused {
            Some(why) => Err(ChunkError::invalid(
                "balance",
                format!("balance=True does not apply here: {why}"),
            )),
            None => Ok(()),
        }
    }

    /// The strategy's table of levels.
    fn levels_of(config: &SplitterConfig, snap: usize) -> Result<Levels, ChunkError> {
        use Emitter::*;
        let mut out = match (config.strategy, &config.separators) {
            (Strategy::Recursive, Some(seps)) => {
                if seps.len() > 200 {
                    return Err(ChunkError::invalid(
                        "separators",
                        format!("at most 200 separators, got {}", seps.len()),
                    ));
                }
                let n = seps.len();
                seps.iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let sep = crate::boundary::Separator::new(
                            s,
                            config.separators_regex,
                            config.keep_separator,
                            i,
                        )?;
                        Ok(scan(
                            Separator(Box::new(sep)),
                            Level(Level::SEPARATOR_BASE.0 + (n - 1 - i) as u8),
                        ))
                    })
                    .collect::<Result<Vec<_>, ChunkError>>()?
            }
            (Strategy::Recursive, None) => prose(),
            // Line and paragraph ends count as sentence ends, and are named so.
            (Strategy::Sentence, _) => vec![
                (Source::Emitter(Paragraph), Level::SENTENCE, Name::Sentence),
                (Source::Emitter(Line), Level::SENTENCE, Name::Sentence),
                scan(Sentence, Level::SENTENCE),
                scan(Clause, Level::CLAUSE),
                scan(Wrap, Level::WRAP),
                scan(Word, Level::WORD),
            ],
            (Strategy::Paragraph, _) => vec![
                scan(Paragraph, Level::PARAGRAPH),
                scan(Sentence, Level::SENTENCE),
                scan(Clause, Level::CLAUSE),
                scan(Wrap, Level::WRAP),
                scan(Word, Level::WORD),
            ],
            (Strategy::Fixed, _) => {
                // Restarts at lines take every line break, soft wraps too, after paragraph breaks (the stronger
                // level: see the fixed mode).
                let line = |e| (Source::Emitter(e), Level::LINE, Name::Line);
                let mut rows = match config.restart {
                    None => vec![],
                    Some(Restart::Paragraph) => vec![scan(Paragraph, Level::PARAGRAPH)],
                    Some(Restart::Line) => {
                        vec![scan(Paragraph, Level::PARAGRAPH), line(Line), line(Wrap)]
                    }
                };
                if snap > 0 {
                    rows.extend([scan(Sentence, Level::SENTENCE), scan(Word, Level::WORD)]);
                }
                rows
            }
            (Strategy::Table, _) => vec![
                parsed(Level::LINE, Name::Row),
                // The weak cuts around the header row (taken when the header and the first row do not fit
                // together) are no text level: they read as the floor.
                parsed(Level::WRAP, Name::Grapheme),
                scan(Word, Level::WORD),
            ],
            (Strategy::Clause, _) => sections().chain(prose()).collect(),
            (Strategy::Semantic, _) if config.semantic.format == SemanticFormat::Markdown => {
                // The cuts above the headings: a segment between two that fits is one chunk, sibling sections
                // and all; a larger one is cut as the markdown strategy cuts it.
                std::iter::once(parsed(semantic::SECTION_CUT, Name::Semantic))
                    .chain(markdown_rows())
                    .collect()
            }
            (Strategy::Semantic, _) => [
                parsed(semantic::CUT, Name::Semantic),
                parsed(semantic::SOFT_CUT, Name::Semantic),
            ]
            .into_iter()
            .chain(prose())
            .collect(),
            // Blank lines, lines and words are the fallback inside a node too large for a chunk and deeper than the
            // cut depths, in error regions, and everywhere in a text of no known language.
            (Strategy::Code, _) => code_rows()
                .chain([
                    scan(Paragraph, Level::PARAGRAPH),
                    scan(Line, Level::LINE),
                    scan(Word, Level::WORD),
                ])
                .collect(),
            (Strategy::Markdown, _) => markdown_rows().collect(),
        };
        out.push(scan(Grapheme, Level::GRAPHEME));
        Ok(Levels::new(out))
    }

    /// The configuration the splitter was built from.
    pub fn config(&self) -> &SplitterConfig {
        &self.config
    }

    /// The spans (byte offsets) of the chunks of `text`, or why the text cannot be read (the table strategy's text
    /// is not a table). Never panics on any input.
    pub fn split(&self, text: &str) -> Result<Vec<Span>, ChunkError> {
        Ok(self.split_structured(text)?.0)
    }

    /// The spans of the chunks of `text`, with the document's structure for a structural strategy.
    pub fn split_structured(
        &self,
        text: &str,
    ) -> Result<(Vec<Span>, Option<Structure>), ChunkError> {
        self.split_structured_until(text, None)
    }

    /// [`Splitter::split_structured`], asking `stop` every few chunks whether to give up
    /// ([`ChunkError::Interrupted`]). Reading the structure (before the first chunk) is not interrupted.
    pub fn split_structured_until(
        &self,
        text: &str,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(Vec<Span>, Option<Structure>), ChunkError> {
        if self.config.strategy == Strategy::Semantic {
            return Err(semantic::needs_vectors());
        }
        if let Some(out) = self.run_parallel(text, stop)? {
            return Ok((out, None));
        }
        if let Some(out) = self.run_unviewed(text, stop)? {
            return Ok((out, None));
        }
        let view = self.view(text);
        let view = view.as_deref();
        let structure = self.structure(text, view)?;
        let out = self.run(text, structure.as_ref(), view, stop)?;
        Ok((out, structure))
    }

    /// The spans of a long `text` measured in tokens, counted on all of rayon's threads: `None` for a text this does
    /// not take (short, one thread, a structure, sizes from a caller's function).
    ///
    /// The text is cut into segments, and a run of the engine starts at each, in parallel, going a little past the
    /// next one's start. A run's chunks depend only on where it stands (its [`Resume`] state), so where the run of
    /// one segment and the run of the next reach the same state, the next one's chunks from there are the single
    /// run's chunks: the segments are joined there. Where they never meet, the text is run on from the last state
    /// on this thread until they do. The chunks are those of one run, whatever the number of threads.
    fn run_parallel(
        &self,
        text: &str,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<Option<Vec<Span>>, ChunkError> {
        // The cheap checks first: asking rayon for its threads starts its pool.
        let native = self
            .config
            .tokenizer
            .as_ref()
            .is_some_and(|t| t.is_native());
        if text.len() < PARALLEL_MIN_BYTES
            || self.config.unit != Unit::Tokens
            || !native
            || self.is_structural()
        {
            return Ok(None);
        }
        let threads = rayon::current_num_threads();
        if threads < 2 {
            return Ok(None);
        }
        let view = self.view(text);
        let view = view.as_deref();
        // Several segments a thread, so that a thread that finishes early takes another; none under a few MB.
        let n = (4 * threads)
            .min(text.len() / (PARALLEL_MIN_BYTES / 4))
            .max(2);
        let starts: Vec<usize> = (0..n)
            .map(|k| crate::offsets::floor_char_boundary(text, k * (text.len() / n)))
            .collect();
        // How far past the next segment's start a run goes to meet that segment's run: many chunks' worth.
        let reach = PARALLEL_REACH_BYTES.max(self.capacity.saturating_mul(PARALLEL_REACH_PER_UNIT));
        let horizon = |k: usize| {
            starts
                .get(k + 1)
                .map(|&next| next.saturating_add(reach))
                .filter(|&h| h < text.len())
        };
        let engine =
            |horizon: Option<usize>| self.assembler(None, view).stop(stop).horizon(horizon);
        // Two runs meet where both end a chunk at the same boundary, which a text of words gives them soon: chunks
        // end at the strongest boundary that fits. A run with no space or line break (a character repeated, one long
        // word, a line of punctuation) ends its chunks at the same sizes from wherever it starts, so a run started
        // elsewhere in it never meets the single run: the work would be done twice. Such a segment is left to the
        // single run.
        let runs_apart = |k: usize| {
            let to = text.len().min(starts[k].saturating_add(reach));
            k == 0 || memchr::memchr2(b' ', b'\n', &text.as_bytes()[starts[k]..to]).is_some()
        };
        type Segment = (Vec<Span>, Vec<Resume>, Option<Resume>);
        let runs: Vec<Result<Option<Segment>, ChunkError>> = (0..n)
            .into_par_iter()
            .map(|k| {
                if !runs_apart(k) {
                    return Ok(None);
                }
                let from = match k {
                    0 => Resume::default(),
                    _ => Resume {
                        pos: starts[k],
                        prev_cut: starts[k],
                        prev_end: starts[k],
                        ..Resume::default()
                    },
                };
                let (mut out, mut states) = (Vec::new(), Vec::new());
                let end =
                    engine(horizon(k)).resume_recording(text, from, &mut out, Some(&mut states))?;
                Ok(Some((out, states, end)))
            })
            .collect();
        let mut runs = runs.into_iter();
        let (mut out, mut states, mut end) = runs
            .next()
            .expect("two segments at least")?
            .expect("the first segment runs");
        for (k, run) in runs.enumerate().map(|(i, r)| (i + 1, r)) {
            let Some(from) = end else {
                break; // the single run reached the end of the text
            };
            let run = run?;
            #[cfg(test)]
            if run.is_none() {
                SEGMENTS_SKIPPED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            match run.and_then(|(seg, seg_states, seg_end)| {
                meeting(&states, &seg_states).map(|m| (m, seg, seg_states, seg_end))
            }) {
                Some(((i, j), seg, seg_states, seg_end)) => {
                    #[cfg(test)]
                    SEGMENTS_MET.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    out.truncate(i + 1);
                    states.truncate(i + 1);
                    out.extend_from_slice(&seg[j + 1..]);
                    states.extend_from_slice(&seg_states[j + 1..]);
                    end = seg_end;
                }
                None => {
                    #[cfg(test)]
                    SEGMENTS_MISSED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    // The runs never met: the single run goes on over this segment itself.
                    end = engine(horizon(k)).resume_recording(
                        text,
                        from,
                        &mut out,
                        Some(&mut states),
                    )?;
                }
            }
        }
        if let Some(from) = end {
            engine(None).resume_recording(text, from, &mut out, None)?;
        }
        self.assembler(None, view).finish(text, &mut out, 0);
        self.report_sizes(text, &mut out);
        Ok(Some(out))
    }

    /// The spans of `text` by a run that reads it with no line view and checks, block by block as it goes, that it
    /// needs none: `None` when it does, or when the strategy's run cannot check (a structure, or chunks not chosen
    /// through the paragraph index), so that a view is to be made first. Texts needing no view are most texts, and
    /// a pass over a large one before the run reads it all from memory twice.
    fn run_unviewed(
        &self,
        text: &str,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<Option<Vec<Span>>, ChunkError> {
        let engine = self.assembler(None, None);
        if self.is_structural() || text.starts_with('\u{feff}') || !engine.indexes() {
            return Ok(None);
        }
        let check = ViewCheck::default();
        let mut out = Vec::new();
        engine
            .checking(Some(&check))
            .stop(stop)
            .run(text, &mut out)?;
        if check.needs_view(text) {
            return Ok(None);
        }
        self.report_sizes(text, &mut out);
        Ok(Some(out))
    }

    /// The spans of `text` by the engine with `structure`, read through its line `view` (when it is a copy).
    fn run(
        &self,
        text: &str,
        structure: Option<&Structure>,
        view: Option<&str>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<Vec<Span>, ChunkError> {
        let mut out = Vec::new();
        self.assembler(structure, view)
            .stop(stop)
            .run(text, &mut out)?;
        self.report_sizes(text, &mut out);
        Ok(out)
    }

    /// The line-based readers see every line terminator as LF: a copy of the text for the rare text that needs
    /// one (see [`crate::boundary::breaks`]), when the strategy has such readers.
    fn view(&self, text: &str) -> Option<String> {
        self.reads_lines().then(|| line_view(text)).flatten()
    }

    /// The measure of a capped tokenizer is the larger of tokens and the cap's share of the size: report tokens.
    pub(crate) fn report_sizes(&self, text: &str, spans: &mut [Span]) {
        if let Some(capped) = &self.capped {
            for s in spans {
                s.size = capped.reported(&text[s.start..s.end], s.size);
            }
        }
    }

    /// Part of a streamed text (see [`crate::stream`]): the spans of `text` from the state `from`, stopping before
    /// any chunk whose choice may read at or past `horizon` (`None`: `text` is the end of the stream). Small chunks
    /// are not merged: the stream merges them with [`Splitter::merged`] as they come. Structural strategies read
    /// the whole document and do not stream.
    pub(crate) fn split_part(
        &self,
        text: &str,
        from: Resume,
        horizon: Option<usize>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(Vec<Span>, Option<Resume>), ChunkError> {
        let view = self.view(text);
        let view = view.as_deref();
        let mut out = Vec::new();
        let resume = self
            .assembler(None, view)
            .stop(stop)
            .horizon(horizon)
            .resume(text, from, &mut out)?;
        Ok((out, resume))
    }

    /// `prev` and `cur` of a streamed text as one chunk, when the strategy's `min_size` merges them (as
    /// [`Splitter::split`] does after its run).
    pub(crate) fn merged(&self, text: &str, prev: &Span, cur: &Span) -> Option<Span> {
        self.assembler(None, None).merged(text, prev, cur)
    }

    /// Whether small chunks are merged into their neighbours.
    pub(crate) fn merges_small(&self) -> bool {
        self.min_size > 0
    }

    /// What each span learns from the structure: title path, context, chunk type, table rows.
    pub fn describe(&self, text: &str, spans: &[Span], structure: &Structure) -> Description {
        structure.describe(text, spans, self.sizer.as_ref(), self.capacity)
    }

    /// Whether the strategy reads the document's structure (its chunks carry a title path and a type).
    pub fn is_structural(&self) -> bool {
        match self.config.strategy {
            Strategy::Markdown | Strategy::Clause | Strategy::Table | Strategy::Code => true,
            Strategy::Semantic => self.config.semantic.format == SemanticFormat::Markdown,
            _ => false,
        }
    }

    /// Whether any source reads lines (and so needs the text's line view).
    fn reads_lines(&self) -> bool {
        self.is_structural() || self.levels.reads_prose()
    }

    /// The document's structure, parsed from the line view when there is one (`view`).
    fn structure(&self, text: &str, view: Option<&str>) -> Result<Option<Structure>, ChunkError> {
        let lines = view.unwrap_or(text);
        let mut s = match self.config.strategy {
            Strategy::Markdown => structure::markdown::parse(lines),
            Strategy::Semantic if self.is_structural() => structure::markdown::parse(lines),
            Strategy::Clause => structure::provisions::parse(lines),
            Strategy::Code => {
                use structure::code::Syntax;
                // Bytes that are not text (a binary file named .py) are not parsed: lines only, in linear time.
                let syntax = (!Syntax::looks_binary(lines))
                    .then(|| self.config.language.or_else(|| Syntax::detect(lines)))
                    .flatten();
                structure::code::parse(lines, syntax)
            }
            Strategy::Table => {
                let format = self.config.table_format;
                let rows = self.config.rows_per_chunk.unwrap_or(0);
                structure::table::parse(lines, format, rows)?
            }
            _ => return Ok(None),
        };
        if view.is_some() {
            // Positions read off the view that fall inside a multi-byte terminator move to a char boundary.
            s.snap_to_chars(text);
        }
        s.merge_sections = self.config.merge_sections && self.config.rows_per_chunk.is_none();
        s.size_includes_context = self.config.size_includes_context;
        s.seal(text, self.sizer.as_ref(), self.capacity);
        Ok(Some(s))
    }

    /// [`Splitter::split`] for many texts, in parallel on all cores: one result a text, so that a text that cannot
    /// be read fails alone.
    pub fn split_batch<T: AsRef<str> + Sync>(
        &self,
        texts: &[T],
    ) -> Vec<Result<Vec<Span>, ChunkError>> {
        texts.par_iter().map(|t| self.split(t.as_ref())).collect()
    }

    /// The strategy's table of levels: which source reports cuts at which level, and each level's name.
    pub fn levels(&self) -> &Levels {
        &self.levels
    }

    /// The name of a level as chunks report it: "paragraph", "sentence", ..., "separator", "end".
    pub fn level_name(&self, level: Level) -> &'static str {
        self.levels.name(level).as_str()
    }

    /// The `str` (code point) offsets of `spans` of `text` (see [`Splitter::char_span_iter`]).
    pub fn char_spans(&self, text: &str, spans: &[Span]) -> Vec<(usize, usize)> {
        self.char_span_iter(text, spans).collect()
    }

    /// The `str` (code point) offsets of `spans` of `text`, one span at a time. In characters a span's size is its
    /// length, so only the text between a chunk's end and the next one's start is counted (whitespace, or the
    /// overlap counted back), not the text again: a pass over a large text reads it from memory, where the split
    /// read it block by block in the cache.
    pub(crate) fn char_span_iter<'a>(&self, text: &'a str, spans: &'a [Span]) -> CharSpans<'a> {
        let ascii = text.is_ascii();
        let counted = if self.unit == Unit::Chars {
            None
        } else {
            Some(crate::offsets::CharCursor::new(text, ascii))
        };
        CharSpans {
            text,
            spans,
            next: 0,
            starts: crate::offsets::CharCursor::new(text, ascii),
            ends: counted,
            // Of a large text only a line around each chunk's end is read, long after the split read it: asked for
            // a few chunks ahead, the lines come from memory together rather than one after the other.
            ahead: if ascii { 0 } else { 8 },
        }
    }

    /// The size of `text` in the splitter's unit.
    pub fn size_of(&self, text: &str) -> usize {
        match &self.capped {
            Some(c) => c.inner().size(text),
            None => self.sizer.size(text),
        }
    }

    fn assembler<'a>(
        &'a self,
        structure: Option<&'a Structure>,
        view: Option<&'a str>,
    ) -> Assembler<'a> {
        Assembler::new(
            self.levels.rows(),
            self.levels.order(),
            self.sizer.as_ref(),
            self.capacity,
        )
        .overlap(self.overlap)
        .min_size(self.min_size)
        .balance(self.config.balance)
        .trim(self.config.trim)
        .mode(self.mode)
        .structure(structure, self.levels.eager())
        .view(view)
    }
}

/// The `str` offsets of spans, one at a time: see [`Splitter::char_span_iter`].
#[derive(Debug)]
pub(crate) struct CharSpans<'a> {
    text: &'a str,
    spans: &'a [Span],
    next: usize,
    starts: crate::offsets::CharCursor<'a>,
    /// A second cursor for the ends, in a unit other than characters (where a span's size is not its length).
    ends: Option<crate::offsets::CharCursor<'a>>,
    ahead: usize,
}

impl Iterator for CharSpans<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let s = self.spans.get(self.next)?;
        self.next += 1;
        if let Some(ends) = &mut self.ends {
            return Some((self.starts.to_char(s.start), ends.to_char(s.end)));
        }
        if let Some(ahead) = self
            .spans
            .get(self.next - 1 + self.ahead)
            .filter(|_| self.ahead > 0)
        {
            prefetch_index::prefetch_index(self.text.as_bytes(), ahead.end);
        }
        let start = self.starts.to_char(s.start);
        let end = start + s.size;
        self.starts.set(s.end, end);
        Some((start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    #[test]
    fn a_text_checked_as_it_is_read_is_chunked_as_through_its_line_view() {
        // Three blocks of the paragraph index, with a terminator that needs a view at the start, inside the first
        // block, at a block's end, and in the text the index never scans (after the last chunk it chose).
        let base = "Line one of a paragraph.\nAnd line two goes on.\n\n".repeat(4000);
        let places = [
            0,
            10,
            64 * 1024 + 5,
            base.len() / 2,
            base.len() - 2,
            base.len(),
        ];
        for strategy in [Strategy::Recursive, Strategy::Sentence, Strategy::Paragraph] {
            for size in [64, 512, 4096] {
                let s = Splitter::new(SplitterConfig::new(strategy, size)).unwrap();
                // The sentence strategy's strongest cuts are not blank lines: no index, a view made first.
                let indexes = s.assembler(None, None).indexes();
                assert_eq!(indexes, strategy != Strategy::Sentence);
                let plain = s.run_unviewed(&base, None).unwrap();
                assert_eq!(plain.is_some(), indexes);
                let unchecked = s.run(&base, None, None, None).unwrap();
                assert!(plain.is_none_or(|plain| plain == unchecked));
                assert_eq!(s.split(&base).unwrap(), unchecked);
                for term in ["\r", "\x0b", "\u{85}", "\u{2028}", "\u{2029}"] {
                    for &at in &places {
                        let at = crate::offsets::ceil_char_boundary(&base, at);
                        // A dot after it: a CR that an LF follows is a CRLF.
                        let text = format!("{}{term}.{}", &base[..at], &base[at..]);
                        assert_eq!(
                            s.run_unviewed(&text, None).unwrap(),
                            None,
                            "{term:?} at {at}"
                        );
                        let view = s.view(&text);
                        assert!(view.is_some());
                        let through_view = s.run(&text, None, view.as_deref(), None).unwrap();
                        assert_eq!(s.split(&text).unwrap(), through_view, "{term:?} at {at}");
                    }
                }
            }
        }
    }

    #[test]
    fn names_parse_both_ways_with_the_errors_callers_see() {
        for s in [
            "recursive",
            "sentence",
            "paragraph",
            "fixed",
            "markdown",
            "clause",
            "table",
        ] {
            assert_eq!(s.parse::<Strategy>().unwrap().name(), s);
        }
        assert_eq!("characters".parse::<Unit>().unwrap().name(), "chars");
        assert_eq!("start".parse::<KeepSeparator>().unwrap().name(), "start");
        assert_eq!("tsv".parse::<TableFormat>().unwrap().name(), "tsv");
        let err = |e: ChunkError| e.to_string();
        assert_eq!(
            err("xlsx".parse::<TableFormat>().unwrap_err()),
            r#"format must be 'markdown', 'csv' or 'tsv', got "xlsx""#
        );
        assert_eq!(
            err("both".parse::<KeepSeparator>().unwrap_err()),
            r#"keep_separator must be 'end' or 'start', got "both""#
        );
        assert!(
            err("Table".parse::<Strategy>().unwrap_err()).starts_with("strategy must be one of")
        );
    }

    #[test]
    fn a_table_may_be_limited_by_rows_alone() {
        let text = "| a | b |\n|---|---|\n".to_owned() + &"| 1 | 2 |\n".repeat(5);
        let rows = |size, rows_per_chunk, max_chars| {
            let mut config = SplitterConfig::new(Strategy::Table, 1);
            config.size = size;
            config.rows_per_chunk = rows_per_chunk;
            config.max_chars = max_chars;
            config.overlap = 100;
            Splitter::new(config).map(|s| s.split(&text).unwrap().len())
        };
        // No size: no bound on the overlap (one row of two repeated: rows 0-2, 1-3, 2-4, 3-5), no character cap.
        assert_eq!(rows(None, Some(2), MaxChars::Auto), Ok(4));
        assert_eq!(rows(None, Some(5), MaxChars::Off), Ok(1));
        let message = |r: Result<usize, ChunkError>| r.unwrap_err().to_string();
        assert!(message(rows(None, None, MaxChars::Auto)).contains("size or rows_per_chunk"));
        assert!(message(rows(None, Some(2), MaxChars::Limit(500))).starts_with("max_chars caps"));
        assert_eq!(
            message(rows(Some(400), Some(0), MaxChars::Auto)),
            "rows_per_chunk must be >= 1, got 0"
        );
        let mut config = SplitterConfig::new(Strategy::Recursive, 1);
        config.size = None;
        config.rows_per_chunk = Some(2);
        assert!(Splitter::new(config).is_err());
    }

    #[test]
    fn a_long_text_in_tokens_is_cut_on_all_threads_as_on_one() {
        let counter = Arc::new(crate::TokenCounter::tiktoken("cl100k_base").unwrap());
        let on = |threads: usize, splitter: &Splitter, text: &str| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| splitter.split(text).unwrap())
        };
        let mut texts = crate::tiktoken::testdata::corpus(160_000);
        let all: String = texts.iter().map(|(_, t)| t.as_str()).collect();
        // Words longer than a chunk and rules of dashes, after prose: chunks end inside pieces.
        let words: String = (0..400)
            .map(|i| format!("{} {} ", "xyzzy".repeat(20 + i % 300), "-".repeat(200 + i)))
            .collect();
        let words = format!("{}{words}", &texts[0].1);
        // Runs with no space between prose: the segments that start inside them are left to the single run.
        let runs = format!(
            "{}{}{}{}",
            &texts[0].1[..20_000],
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(3000),
            "a".repeat(100_000),
            &texts[0].1[20_000..]
        );
        texts.push(("all", all));
        texts.push(("words", words));
        texts.push(("runs", runs));
        for (name, text) in texts {
            for (strategy, size, overlap) in [
                (Strategy::Recursive, 16, 0),
                (Strategy::Recursive, 64, 20),
                (Strategy::Recursive, 256, 0),
                (Strategy::Sentence, 48, 0),
                (Strategy::Fixed, 32, 8),
            ] {
                let mut config = SplitterConfig::new(strategy, size);
                config.tokenizer = Some(counter.clone());
                config.unit = Unit::Tokens;
                config.overlap = overlap;
                let splitter = Splitter::new(config).unwrap();
                let one = on(1, &splitter, &text);
                for threads in [2, 3, 8] {
                    assert_eq!(
                        on(threads, &splitter, &text),
                        one,
                        "{name} {strategy:?} {size} {overlap} {threads}"
                    );
                }
            }
        }
        // Every way of joining segments ran: where two runs met, where the single run went on by itself, and over
        // segments that did not run apart.
        let (met, missed) = (SEGMENTS_MET.load(Relaxed), SEGMENTS_MISSED.load(Relaxed));
        let skipped = SEGMENTS_SKIPPED.load(Relaxed);
        assert!(
            met > 10 && missed > 0 && skipped > 0,
            "met {met}, missed {missed}, skipped {skipped}"
        );
    }

    #[test]
    fn a_stop_check_interrupts_the_split() {
        let splitter = Splitter::new(SplitterConfig::new(Strategy::Recursive, 10)).unwrap();
        let text = "Some words here. ".repeat(200);
        let whole = splitter.split_structured(&text).unwrap().0;
        // Never stopping gives the usual chunks, asked every few chunks.
        let asked = AtomicUsize::new(0);
        let never = || {
            asked.fetch_add(1, Relaxed);
            false
        };
        assert_eq!(
            splitter
                .split_structured_until(&text, Some(&never))
                .unwrap()
                .0,
            whole
        );
        let asked = asked.into_inner();
        assert!(asked > 1 && asked < whole.len());
        // Stopping at the third check.
        let calls = AtomicUsize::new(0);
        let third = || calls.fetch_add(1, Relaxed) + 1 == 3;
        assert_eq!(
            splitter
                .split_structured_until(&text, Some(&third))
                .unwrap_err(),
            ChunkError::Interrupted
        );
        assert_eq!(calls.into_inner(), 3);
    }
}
