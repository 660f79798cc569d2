//! A splitter's configuration, typed: the strategy and the other names parse from and print as the strings callers
//! use, with the errors they see.

use std::str::FromStr;
use std::sync::Arc;

use crate::boundary::{KeepSeparator, Level};
use crate::error::ChunkError;
use crate::semantic::Mode as SemanticMode;
use crate::size::{MaxChars, Unit};
use crate::structure::code::Syntax;
use crate::structure::table::TableFormat;
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
    /// Source code by its syntax tree (see [`crate::structure::code`]): the nodes of a module, then of the bodies
    /// they hold, five levels deep, then blank lines, lines, words; definitions stay whole when they fit.
    Code,
    /// Sentences grouped where their meaning shifts (see [`crate::semantic`]): the caller's cuts, then the text
    /// levels for a segment larger than the size.
    Semantic,
}

/// Fixed strategy: the strong boundaries where windows start anew, so that an edit changes only the windows of the
/// region it touches (see [`crate::assemble::Mode::Fixed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Runs of blank lines and form feeds.
    Paragraph,
    /// Paragraph breaks first, then every line break.
    Line,
}

impl Restart {
    /// The level the engine reports the boundaries at (and names the chunks that end on one after).
    pub fn level(self) -> Level {
        match self {
            Restart::Paragraph => Level::PARAGRAPH,
            Restart::Line => Level::LINE,
        }
    }
}

/// The names of the config's choices, as callers spell them: each enum's one list of (name, value), read both ways
/// (parsing with an error that lists the names, and naming a value).
macro_rules! names {
    ($ty:ty, $arg:literal, $expected:literal, [$(($name:literal, $value:expr)),+ $(,)?]) => {
        impl FromStr for $ty {
            type Err = ChunkError;

            fn from_str(name: &str) -> Result<Self, ChunkError> {
                match name {
                    $($name => Ok($value),)+
                    other => Err(ChunkError::invalid(
                        $arg,
                        format!(concat!($arg, " must be ", $expected, ", got {:?}"), other),
                    )),
                }
            }
        }

        impl $ty {
            /// The names callers give, in the order of the list (aliases included).
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The name callers give it.
            pub fn name(self) -> &'static str {
                // The first name of a value is its own (later ones are aliases).
                [$(($name, $value)),+]
                    .into_iter()
                    .find(|&(_, v)| v == self)
                    .map_or("", |(n, _)| n)
            }
        }
    };
}

names!(
    Strategy,
    "strategy",
    "one of 'recursive', 'sentence', 'paragraph', 'fixed', 'markdown', 'clause', 'table', 'code', 'semantic'",
    [
        ("recursive", Strategy::Recursive),
        ("sentence", Strategy::Sentence),
        ("paragraph", Strategy::Paragraph),
        ("fixed", Strategy::Fixed),
        ("markdown", Strategy::Markdown),
        ("clause", Strategy::Clause),
        ("table", Strategy::Table),
        ("code", Strategy::Code),
        ("semantic", Strategy::Semantic),
    ]
);
names!(
    SemanticMode,
    "mode",
    "one of 'percentile', 'stddev', 'interquartile', 'gradient', 'minima', 'optimal'",
    [
        ("percentile", SemanticMode::Percentile),
        ("stddev", SemanticMode::StdDev),
        ("interquartile", SemanticMode::Interquartile),
        ("gradient", SemanticMode::Gradient),
        ("minima", SemanticMode::Minima),
        ("optimal", SemanticMode::Optimal),
    ]
);
names!(
    Restart,
    "restart",
    "'paragraph', 'line' or None",
    [("paragraph", Restart::Paragraph), ("line", Restart::Line)]
);
names!(
    Unit,
    "unit",
    "'chars' or 'tokens'",
    [
        ("chars", Unit::Chars),
        ("characters", Unit::Chars),
        ("tokens", Unit::Tokens),
    ]
);
names!(
    KeepSeparator,
    "keep_separator",
    "'end' or 'start'",
    [("end", KeepSeparator::End), ("start", KeepSeparator::Start)]
);
names!(
    TableFormat,
    "format",
    "'markdown', 'csv' or 'tsv'",
    [
        ("markdown", TableFormat::Markdown),
        ("csv", TableFormat::Csv),
        ("tsv", TableFormat::Tsv),
    ]
);

/// What a semantic chunker reads in its text besides sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemanticFormat {
    /// Running text: units and cuts at sentences, lines and paragraphs only.
    Text,
    /// Markdown: the structure the markdown strategy reads (see [`crate::structure::markdown`]); units never
    /// straddle a heading or a table, code block or list, and chunks keep to their sections and carry their
    /// title paths and context.
    Markdown,
}

names!(
    SemanticFormat,
    "format",
    "'text' or 'markdown'",
    [
        ("text", SemanticFormat::Text),
        ("markdown", SemanticFormat::Markdown),
    ]
);

/// The semantic strategy's settings (see [`crate::semantic`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SemanticConfig {
    /// How to decide where to cut.
    pub mode: SemanticMode,
    /// The mode's threshold (`None`: the mode's default, see [`SemanticMode::default_threshold`]).
    pub threshold: Option<f64>,
    /// How many units on each side of a boundary are compared (at least 1).
    pub window: usize,
    /// The optimal mode's target size, in the splitter's unit (`None`: three quarters of the size).
    pub target: Option<usize>,
    /// The least width of a unit embedded, in chars, a CJK char counting two: a run of narrower units (short
    /// lines, fragments) is embedded as one, up to the size (0: every sentence, line and paragraph end ends a unit).
    pub min_unit: usize,
    /// What the text is: running text, or Markdown whose structure the chunks follow.
    pub format: SemanticFormat,
}

/// [`SemanticConfig::min_unit`]'s default: a short English sentence, a Chinese one of 20 chars. (Larger values
/// embed fewer texts but cost retrieval quality: see benches/README.md, "Semantic chunking".)
pub const DEFAULT_MIN_UNIT: usize = 40;

impl Default for SemanticConfig {
    fn default() -> Self {
        Self {
            mode: SemanticMode::Percentile,
            threshold: None,
            window: 1,
            target: None,
            min_unit: DEFAULT_MIN_UNIT,
            format: SemanticFormat::Text,
        }
    }
}

/// Everything a splitter is built from, as the caller gives it: typed, but not yet checked against each other
/// (`overlap < size`...).
#[derive(Debug, Clone)]
pub struct SplitterConfig {
    /// Which levels cut, and how chunks are filled.
    pub strategy: Strategy,
    /// The most units a chunk may hold. `None` only for the table strategy with `rows_per_chunk`: rows are then
    /// the only limit.
    pub size: Option<usize>,
    /// The most units a chunk may repeat from the end of the previous one.
    pub overlap: usize,
    /// Chunks smaller than this merge into a neighbour when the result fits.
    pub min_size: usize,
    /// Greedy strategies: the cuts are chosen again together, for chunk sizes as even as the cap and the levels
    /// allow (see `assemble::balance`).
    pub balance: bool,
    /// Leave whitespace around chunks out of them (and of their size).
    pub trim: bool,
    /// What `size` counts: characters or tokens.
    pub unit: Unit,
    /// Custom separators, strongest first (recursive strategy only).
    pub separators: Option<Vec<String>>,
    /// The separators are regular expressions (in Python `re` syntax), not literal strings.
    pub separators_regex: bool,
    /// Which side of a cut a separator stays on.
    pub keep_separator: KeepSeparator,
    /// Fixed strategy: how far back a cut may snap to a sentence or word boundary.
    pub snap: usize,
    /// Fixed strategy: where windows start anew (`None`: windows follow each other from the start of the text).
    pub restart: Option<Restart>,
    /// The tokenizer that measures `unit = Tokens`.
    pub tokenizer: Option<Arc<TokenCounter>>,
    /// Structural strategies: sibling sections may share a chunk.
    pub merge_sections: bool,
    /// Structural strategies: a chunk's context (heading path, table header) counts toward its size.
    pub size_includes_context: bool,
    /// Table strategy: the table's format.
    pub table_format: TableFormat,
    /// Table strategy: at most this many data rows per chunk (at least 1; `None`: no limit but the size).
    pub rows_per_chunk: Option<usize>,
    /// In tokens: the cap on a chunk's characters (tokens put no bound on them).
    pub max_chars: MaxChars,
    /// Semantic strategy: how the cuts are chosen.
    pub semantic: SemanticConfig,
    /// Code strategy: the language (`None`: detected from each text's content).
    pub language: Option<&'static Syntax>,
}

impl SplitterConfig {
    /// A configuration with the defaults for everything but the strategy and the size.
    pub fn new(strategy: Strategy, size: usize) -> Self {
        Self {
            strategy,
            size: Some(size),
            overlap: 0,
            min_size: 0,
            balance: false,
            trim: true,
            unit: Unit::Chars,
            separators: None,
            separators_regex: false,
            keep_separator: KeepSeparator::End,
            snap: 0,
            restart: None,
            tokenizer: None,
            merge_sections: true,
            size_includes_context: false,
            table_format: TableFormat::Markdown,
            rows_per_chunk: None,
            max_chars: MaxChars::Auto,
            semantic: SemanticConfig::default(),
            language: None,
        }
    }
}
