//! Strategies as configurations of the one engine: each is one table of levels (which source reports cuts at
//! which level, and the level's name) and a mode.

use rayon::prelude::*;

use crate::assemble::{Assembler, Mode, Span, Stop};
pub use crate::boundary::KeepSeparator;
use crate::boundary::{Emitter, Level};
use crate::error::ChunkError;
use crate::levels::{Levels, Name, Row, Source};
use crate::structure::{self, Description, Structure};
use std::sync::Arc;

use crate::size::{CharCapped, Chars, MaxChars, Sizer, Unit};
use crate::tokens::TokenCounter;

/// The chunking strategies of the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Paragraphs > lines > sentences > clauses > words > graphemes, or the caller's separators > graphemes.
    Recursive,
    /// Whole sentences merged up to the size; line and paragraph ends count as sentence ends.
    Sentence,
    /// Whole paragraphs merged up to the size; an oversized one falls to sentences, clauses, words.
    Paragraph,
    /// Windows of `size` cut at grapheme boundaries, optionally snapped back to a sentence or word boundary.
    Fixed,
    /// Markdown: sections by heading level > thematic breaks > blocks > list items > rows and code lines > the
    /// text levels; tables, code and lists stay whole when they fit.
    Markdown,
    /// Legal and policy text: numbered provisions (第X章/条, Article N, § N, 1.1, (a) ...) as sections by depth,
    /// then paragraphs, lines, sentences, clauses, words.
    Clause,
    /// One table (Markdown, CSV or TSV): cut between rows, the header repeated in each piece's context.
    Table,
}

impl Strategy {
    /// Parses a strategy name.
    pub fn parse(name: &str) -> Result<Self, ChunkError> {
        match name {
            "recursive" => Ok(Strategy::Recursive),
            "sentence" => Ok(Strategy::Sentence),
            "paragraph" => Ok(Strategy::Paragraph),
            "fixed" => Ok(Strategy::Fixed),
            "markdown" => Ok(Strategy::Markdown),
            "clause" => Ok(Strategy::Clause),
            "table" => Ok(Strategy::Table),
            other => Err(ChunkError::invalid(
                "strategy",
                format!(
                    "strategy must be one of 'recursive', 'sentence', 'paragraph', 'fixed', 'markdown', \
                     'clause', 'table', got {other:?}"
                ),
            )),
        }
    }
}

/// Everything a splitter is built from, as the caller gives it (unvalidated).
#[derive(Debug, Clone)]
pub struct SplitterConfig {
    pub strategy: Strategy,
    pub size: i64,
    pub overlap: i64,
    pub min_size: i64,
    pub trim: bool,
    pub unit: String,
    /// Custom separators, strongest first (recursive strategy only).
    pub separators: Option<Vec<String>>,
    pub separators_regex: bool,
    pub keep_separator: KeepSeparator,
    /// Fixed strategy: how far back a cut may snap to a sentence or word boundary.
    pub snap: i64,
    /// The tokenizer that measures `unit = "tokens"`.
    pub tokenizer: Option<Arc<TokenCounter>>,
    /// Structural strategies: sibling sections may share a chunk.
    pub merge_sections: bool,
    /// Structural strategies: a chunk's context (heading path, table header) counts toward its size.
    pub size_includes_context: bool,
    /// Table strategy: "markdown", "csv" or "tsv".
    pub table_format: String,
    /// Table strategy: at most this many data rows per chunk (0: no limit but the size).
    pub rows_per_chunk: i64,
    /// In tokens: the cap on a chunk's characters (tokens put no bound on them).
    pub max_chars: MaxChars,
}

impl SplitterConfig {
    /// A configuration with the defaults for everything but the strategy and the size.
    pub fn new(strategy: Strategy, size: i64) -> Self {
        Self {
            strategy,
            size,
            overlap: 0,
            min_size: 0,
            trim: true,
            unit: "chars".to_owned(),
            separators: None,
            separators_regex: false,
            keep_separator: KeepSeparator::End,
            snap: 0,
            tokenizer: None,
            merge_sections: true,
            size_includes_context: false,
            table_format: "markdown".to_owned(),
            rows_per_chunk: 0,
            max_chars: MaxChars::Auto,
        }
    }
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
fn prose() -> Vec<Row> {
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

/// Parses a table format name.
fn table_format(name: &str) -> Result<structure::table::TableFormat, ChunkError> {
    use structure::table::TableFormat;
    match name {
        "markdown" => Ok(TableFormat::Markdown),
        "csv" => Ok(TableFormat::Csv),
        "tsv" => Ok(TableFormat::Tsv),
        other => Err(ChunkError::invalid(
            "format",
            format!("format must be 'markdown', 'csv' or 'tsv', got {other:?}"),
        )),
    }
}

fn non_negative(arg: &'static str, value: i64) -> Result<usize, ChunkError> {
    usize::try_from(value)
        .map_err(|_| ChunkError::invalid(arg, format!("{arg} must be >= 0, got {value}")))
}

impl Splitter {
    /// Validates the configuration and builds the splitter.
    pub fn new(config: SplitterConfig) -> Result<Self, ChunkError> {
        if config.size < 1 {
            return Err(ChunkError::invalid(
                "size",
                format!("size must be >= 1, got {}", config.size),
            ));
        }
        let capacity = config.size as usize;
        let overlap = non_negative("overlap", config.overlap)?;
        if overlap >= capacity {
            return Err(ChunkError::invalid(
                "overlap",
                format!(
                    "overlap must be < size (0..={}), got {overlap}",
                    capacity - 1
                ),
            ));
        }
        let min_size = non_negative("min_size", config.min_size)?;
        if min_size > capacity {
            return Err(ChunkError::invalid(
                "min_size",
                format!("min_size must be <= size (0..={capacity}), got {min_size}"),
            ));
        }
        let snap = non_negative("snap", config.snap)?;
        if snap >= capacity {
            return Err(ChunkError::invalid(
                "snap",
                format!("snap must be < size (0..={}), got {snap}", capacity - 1),
            ));
        }
        let unit = Unit::parse(&config.unit)?;
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
                    let n = usize::try_from(n).map_err(|_| {
                        ChunkError::invalid(
                            "max_chars",
                            format!("max_chars must be >= size ({capacity}), got {n}"),
                        )
                    })?;
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
        if config.strategy == Strategy::Table {
            table_format(&config.table_format)?;
        }
        non_negative("rows_per_chunk", config.rows_per_chunk)?;
        let levels = Self::levels_of(&config, snap)?;
        let mode = match config.strategy {
            Strategy::Fixed => Mode::Fixed { snap },
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
            (Strategy::Fixed, _) if snap > 0 => {
                vec![scan(Sentence, Level::SENTENCE), scan(Word, Level::WORD)]
            }
            (Strategy::Fixed, _) => vec![],
            (Strategy::Table, _) => vec![
                parsed(Level::LINE, Name::Row),
                // The weak cuts around the header row (taken when the header and the first row do not fit
                // together) are no text level: they read as the floor.
                parsed(Level::WRAP, Name::Grapheme),
                scan(Word, Level::WORD),
            ],
            (Strategy::Clause, _) => sections().chain(prose()).collect(),
            (Strategy::Markdown, _) => sections()
                .chain([
                    parsed(Level::THEMATIC, Name::ThematicBreak),
                    parsed(Level::BLOCK, Name::Block),
                    parsed(Level::ITEM, Name::Item),
                    parsed(Level::NESTED, Name::NestedBlock),
                    parsed(Level::DEFINITION, Name::Definition),
                    // Blank lines, lines and soft wraps of code blocks.
                    parsed(Level::PARAGRAPH, Name::Paragraph),
                    parsed(Level::LINE, Name::Line),
                    parsed(Level::WRAP, Name::Wrap),
                ])
                .chain(prose())
                .collect(),
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
        stop: Option<&dyn Fn() -> bool>,
    ) -> Result<(Vec<Span>, Option<Structure>), ChunkError> {
        // The line-based readers see every line terminator as LF (a copy only for the rare text that needs it).
        let view = if self.reads_lines() {
            crate::boundary::breaks::line_view(text)
        } else {
            std::borrow::Cow::Borrowed(text)
        };
        let view = match &view {
            std::borrow::Cow::Owned(v) => Some(v.as_str()),
            std::borrow::Cow::Borrowed(_) => None,
        };
        let structure = self.structure(text, view)?;
        let mut out = Vec::new();
        let mut assembler = self.assembler(structure.as_ref(), view);
        assembler.stop = Stop(stop);
        assembler.run(text, &mut out)?;
        if let Some(capped) = &self.capped {
            // The measure is the larger of tokens and the cap's share of the size: report tokens.
            for s in &mut out {
                s.size = capped.reported(&text[s.start..s.end], s.size);
            }
        }
        Ok((out, structure))
    }

    /// What each span learns from the structure: title path, context, chunk type, table rows.
    pub fn describe(&self, text: &str, spans: &[Span], structure: &Structure) -> Description {
        structure.describe(text, spans, self.sizer.as_ref(), self.capacity)
    }

    /// Whether the strategy reads the document's structure (its chunks carry a title path and a type).
    pub fn is_structural(&self) -> bool {
        matches!(
            self.config.strategy,
            Strategy::Markdown | Strategy::Clause | Strategy::Table
        )
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
            Strategy::Clause => structure::provisions::parse(lines),
            Strategy::Table => {
                let format = table_format(&self.config.table_format)?;
                structure::table::parse(lines, format, self.config.rows_per_chunk as usize)?
            }
            _ => return Ok(None),
        };
        if view.is_some() {
            // Positions read off the view that fall inside a multi-byte terminator move to a char boundary.
            s.snap_to_chars(text);
        }
        s.merge_sections = self.config.merge_sections && self.config.rows_per_chunk == 0;
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

    /// The `str` (code point) offsets of `spans` of `text`. In characters a span's size is its length, so only the
    /// starts are counted.
    pub fn char_spans(&self, text: &str, spans: &[Span]) -> Vec<(usize, usize)> {
        if self.unit != Unit::Chars {
            return crate::offsets::char_spans(text, spans);
        }
        let mut starts = crate::offsets::CharCursor::new(text, text.is_ascii());
        spans
            .iter()
            .map(|s| {
                let start = starts.to_char(s.start);
                (start, start + s.size)
            })
            .collect()
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
        Assembler {
            structure,
            view,
            cap: std::cell::Cell::new(self.capacity),
            limit: std::cell::Cell::new(usize::MAX),
            eager: self.levels.eager(),
            emitters: self.levels.rows(),
            levels: self.levels.order(),
            sizer: self.sizer.as_ref(),
            capacity: self.capacity,
            overlap: self.overlap,
            min_size: self.min_size,
            trim: self.config.trim,
            mode: self.mode,
            stop: Stop::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_stop_check_interrupts_the_split() {
        let splitter = Splitter::new(SplitterConfig::new(Strategy::Recursive, 10)).unwrap();
        let text = "Some words here. ".repeat(200);
        let whole = splitter.split_structured(&text).unwrap().0;
        // Never stopping gives the usual chunks, asked every few chunks.
        let asked = Cell::new(0);
        let never = || {
            asked.set(asked.get() + 1);
            false
        };
        assert_eq!(
            splitter
                .split_structured_until(&text, Some(&never))
                .unwrap()
                .0,
            whole
        );
        assert!(asked.get() > 1 && asked.get() < whole.len());
        // Stopping at the third check.
        let calls = Cell::new(0);
        let third = || {
            calls.set(calls.get() + 1);
            calls.get() == 3
        };
        assert_eq!(
            splitter
                .split_structured_until(&text, Some(&third))
                .unwrap_err(),
            ChunkError::Interrupted
        );
        assert_eq!(calls.get(), 3);
    }
}
