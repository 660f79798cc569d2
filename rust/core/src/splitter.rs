//! Strategies as configurations of the one engine: which emitters run, at which levels, in which mode.

use rayon::prelude::*;

use crate::assemble::{Assembler, Mode, Span};
pub use crate::boundary::KeepSeparator;
use crate::boundary::{Emitter, Level};
use crate::error::ChunkError;
use std::sync::Arc;

use crate::size::{Chars, Sizer, Unit};
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
}

impl Strategy {
    /// Parses a strategy name.
    pub fn parse(name: &str) -> Result<Self, ChunkError> {
        match name {
            "recursive" => Ok(Strategy::Recursive),
            "sentence" => Ok(Strategy::Sentence),
            "paragraph" => Ok(Strategy::Paragraph),
            "fixed" => Ok(Strategy::Fixed),
            other => Err(ChunkError::invalid(
                "strategy",
                format!("strategy must be one of 'recursive', 'sentence', 'paragraph', 'fixed', got {other:?}"),
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
    emitters: Vec<(Emitter, Level)>,
    levels: Vec<Level>,
    unit: Unit,
    sizer: Arc<dyn Sizer>,
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
        let emitters = Self::emitters(&config, snap)?;
        let mut levels: Vec<Level> = emitters.iter().map(|(_, l)| *l).collect();
        levels.sort_unstable_by(|a, b| b.cmp(a));
        levels.dedup();
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
            emitters,
            levels,
            unit,
            sizer,
        })
    }

    fn emitters(config: &SplitterConfig, snap: usize) -> Result<Vec<(Emitter, Level)>, ChunkError> {
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
                        Ok((
                            Separator(Box::new(sep)),
                            Level(Level::SEPARATOR_BASE.0 + (n - 1 - i) as u8),
                        ))
                    })
                    .collect::<Result<Vec<_>, ChunkError>>()?
            }
            (Strategy::Recursive, None) => vec![
                (Paragraph, Level::PARAGRAPH),
                (Line, Level::LINE),
                (Sentence, Level::SENTENCE),
                (Clause, Level::CLAUSE),
                (Wrap, Level::WRAP),
                (Word, Level::WORD),
            ],
            (Strategy::Sentence, _) => vec![
                (Paragraph, Level::SENTENCE),
                (Line, Level::SENTENCE),
                (Sentence, Level::SENTENCE),
                (Clause, Level::CLAUSE),
                (Wrap, Level::WRAP),
                (Word, Level::WORD),
            ],
            (Strategy::Paragraph, _) => vec![
                (Paragraph, Level::PARAGRAPH),
                (Sentence, Level::SENTENCE),
                (Clause, Level::CLAUSE),
                (Wrap, Level::WRAP),
                (Word, Level::WORD),
            ],
            (Strategy::Fixed, _) if snap > 0 => {
                vec![(Sentence, Level::SENTENCE), (Word, Level::WORD)]
            }
            (Strategy::Fixed, _) => vec![],
        };
        out.push((Grapheme, Level::GRAPHEME));
        Ok(out)
    }

    /// The configuration the splitter was built from.
    pub fn config(&self) -> &SplitterConfig {
        &self.config
    }

    /// The spans (byte offsets) of the chunks of `text`.
    pub fn split(&self, text: &str) -> Vec<Span> {
        let mut out = Vec::new();
        self.assembler().run(text, &mut out);
        out
    }

    /// The spans of many texts, in parallel on all cores.
    pub fn split_batch<T: AsRef<str> + Sync>(&self, texts: &[T]) -> Vec<Vec<Span>> {
        texts.par_iter().map(|t| self.split(t.as_ref())).collect()
    }

    /// The name of a level as chunks report it: "paragraph", "sentence", ..., "separator", "end".
    pub fn level_name(&self, level: Level) -> &'static str {
        if level == Level::END {
            return "end";
        }
        if self.config.strategy == Strategy::Sentence && level == Level::SENTENCE {
            return "sentence";
        }
        self.emitters
            .iter()
            .find(|(_, l)| *l == level)
            .map_or("grapheme", |(e, _)| e.name())
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
        self.sizer.size(text)
    }

    fn assembler(&self) -> Assembler<'_> {
        Assembler {
            emitters: &self.emitters,
            levels: &self.levels,
            sizer: self.sizer.as_ref(),
            capacity: self.capacity,
            overlap: self.overlap,
            min_size: self.min_size,
            trim: self.config.trim,
            mode: self.mode,
        }
    }
}
