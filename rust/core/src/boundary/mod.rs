//! Boundary emitters. Each kind lives in its own file and only *reports* positions: a [`Boundary`] is a byte
//! offset where a cut may fall, ranked by a [`Level`]. Assembling chunks from them is `assemble`'s job alone.
//!
//! Conventions shared by every emitter:
//! - `emit(text, from, to, level, out)` scans `text[from..to]` and pushes positions `p` with `from < p <= to`, in
//!   increasing order. `text` is the whole document so an emitter may look at context outside the window.
//! - A cut falls *after* trailing punctuation, closing quotes and spaces, so a piece ends with its terminator and the
//!   next piece starts with content ("Hello. |World", "你好。」|世界").

pub mod breaks;
mod chars;
mod clause;
mod dictionary;
mod grapheme;
mod line;
mod paragraph;
mod sentence;
mod separator;
mod word;

pub(crate) use chars::is_cjk;
pub use chars::{is_closing, is_opening, is_pause};
pub use grapheme::{is_grapheme_boundary, next_grapheme_boundary, prev_grapheme_boundary};
pub(crate) use line::starts_with_pause;
pub use separator::{KeepSeparator, Separator};

/// The rank of a boundary: higher cuts are preferred. Strategies may assign their own values (user separators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(pub u8);

impl Level {
    /// Between grapheme clusters: the floor, always available.
    pub const GRAPHEME: Level = Level(1);
    /// Between words (after the whitespace; between CJK characters where words have no spaces; between the
    /// dictionary's words of Thai, Lao, Khmer and Myanmar).
    pub const WORD: Level = Level(2);
    /// A soft wrap of hard-wrapped text: no better than a word for meaning, but it keeps lines whole.
    pub const WRAP: Level = Level(3);
    /// After clause punctuation (, ; : and the CJK 、，；：).
    pub const CLAUSE: Level = Level(4);
    /// After a sentence and its closing quotes.
    pub const SENTENCE: Level = Level(5);
    /// After a line break.
    pub const LINE: Level = Level(6);
    /// After a run of blank lines.
    pub const PARAGRAPH: Level = Level(7);
    /// Document structure (Markdown, numbered provisions), above the text levels. User separators reuse the same
    /// numbers: a strategy has either separators or structure, never both.
    /// The nodes of the deepest body of code that cuts (see [`Level::code`]): levels 8 to 11 are the bodies below
    /// the top level, deepest first, so that code cuts by its syntax above its blank lines and below every block
    /// of a Markdown document.
    pub const CODE_DEEPEST: Level = Level(8);
    /// A top-level definition in a code block (`def`, `class`, `fn`, a closing `}` at column 0), or a node of a
    /// module (the top level of a body of code).
    pub const DEFINITION: Level = Level(12);
    /// Blocks inside a container (a paragraph of a list item, a nested list's items, a quote's paragraphs).
    pub const NESTED: Level = Level(13);
    /// The items of a top-level list, and the cut between a list and the paragraph that leads into it.
    pub const ITEM: Level = Level(14);
    /// Top-level blocks: paragraphs, lists, tables, code blocks, quotes.
    pub const BLOCK: Level = Level(15);
    /// After a thematic break (`---`).
    pub const THEMATIC: Level = Level(16);
    /// The weakest heading level (H6); H1 is `SECTION + 5`.
    pub const SECTION: Level = Level(17);
    /// The first level given to user separators (the last separator gets this one; earlier ones rank higher).
    pub const SEPARATOR_BASE: Level = Level(10);
    /// The end of the text: the strongest boundary of all.
    pub const END: Level = Level(u8::MAX);

    /// How many levels of bodies of code cut: depth 1 (a module's nodes) to 5.
    pub const CODE_DEPTHS: u8 = Level::DEFINITION.0 - Level::CODE_DEEPEST.0 + 1;

    /// The level of a cut before a node of a body of code at `depth` (1, a module's nodes, the strongest, to
    /// [`Level::CODE_DEPTHS`]): between blank lines and the blocks of a document.
    pub fn code(depth: u8) -> Level {
        Level(Level::DEFINITION.0 + 1 - depth.clamp(1, Level::CODE_DEPTHS))
    }

    /// The level of a cut before a heading (or numbered provision) of `depth` 1 (H1) to 6 (deeper ones count as 6).
    pub fn heading(depth: u8) -> Level {
        Level(Level::SECTION.0 + 6 - depth.clamp(1, 6))
    }

    /// The heading depth (1-6) of a section level, if it is one.
    pub fn heading_depth(self) -> Option<u8> {
        (Level::SECTION.0..=Level::SECTION.0 + 5)
            .contains(&self.0)
            .then(|| Level::SECTION.0 + 6 - self.0)
    }
}

/// A position where a cut may fall, and how good a cut it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Boundary {
    /// Byte offset into the text; always a char boundary.
    pub pos: usize,
    /// The rank of the cut.
    pub level: Level,
}

/// The kinds of boundary the engine knows. Each variant's logic is in its own file.
#[derive(Debug, Clone)]
pub enum Emitter {
    /// Runs of blank lines (CRLF aware) and form feeds.
    Paragraph,
    /// Ends of non-blank lines.
    Line,
    /// Soft wraps: line breaks in the middle of a sentence of hard-wrapped text.
    Wrap,
    /// UAX #29 sentences plus CJK terminators, without cutting "3.5", "e.g." or URLs.
    Sentence,
    /// Clause punctuation: ，、；： and ASCII , ; : before a space.
    Clause,
    /// UAX #29 words, Thai, Lao, Khmer and Myanmar words by dictionary; punctuation stays with the word before it.
    Word,
    /// Extended grapheme clusters: the floor no cut goes below.
    Grapheme,
    /// A user separator, literal or regex.
    Separator(Box<Separator>),
}

impl Emitter {
    /// Pushes every boundary in `text[from..to]` (positions `from < p <= to`) with the given level.
    pub fn emit(&self, text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
        match self {
            Emitter::Paragraph => paragraph::emit(text, from, to, level, out),
            Emitter::Line => line::emit(text, from, to, level, out),
            Emitter::Wrap => line::emit_wraps(text, from, to, level, out),
            Emitter::Sentence => sentence::emit(text, from, to, level, out),
            Emitter::Clause => clause::emit(text, from, to, level, out),
            Emitter::Word => word::emit(text, from, to, level, out),
            Emitter::Grapheme => grapheme::emit(text, from, to, level, out),
            Emitter::Separator(sep) => sep.emit(text, from, to, level, out),
        }
    }

    /// Whether this emitter's positions are grapheme boundaries by construction (only the grapheme emitter's: a
    /// UAX #29 word boundary may fall after a Prepend character, or inside a run of regional indicators when the
    /// scan starts in the middle of one). The engine checks the others, so that no cut ever lands inside a
    /// grapheme cluster.
    pub fn grapheme_safe(&self) -> bool {
        matches!(self, Emitter::Grapheme)
    }

    /// Whether this emitter reads prose (sentences, lines, blank lines): it is silenced inside code and tables.
    pub fn is_prose(&self) -> bool {
        matches!(
            self,
            Emitter::Paragraph
                | Emitter::Line
                | Emitter::Wrap
                | Emitter::Sentence
                | Emitter::Clause
        )
    }
}

/// ASCII whitespace that never holds content on a line ("\n" excluded).
#[inline]
pub(crate) fn is_blank_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}
