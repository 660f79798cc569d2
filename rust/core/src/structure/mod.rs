//! Document structure: what a parser finds in one text (sections, blocks, title paths), the rules the engine asks
//! of it, and what each chunk learns from it. Parsers never assemble chunks.
//!
//! - `model`: the [`Structure`] a parser fills, in byte offsets: cuts ranked by [`Level`](crate::Level),
//!   verbatim ranges (code, tables) where prose emitters are silenced, blocks (with what their pieces need to be
//!   read alone: a table's header, a fence line, a list's lead-in) and headings.
//! - `rules`: what the engine asks, chunk by chunk: the cuts of a level, the cuts of other sources to drop, how far
//!   a chunk may reach, where a merge of sections stops, the capacity a chunk's context leaves, table overlap.
//! - `describe`: the description of each chunk ([`Description`]): title path, context, type, table rows.
//! - [`detect`]: what kind of document a text is (Markdown, code, a table, provisions, prose), for a caller that
//!   picks the strategy per document.
//! - `cuts`: a structure made of a caller's cuts (a semantic chunker's), which no chunk runs past.
//! - One file per parser: [`markdown`] (pulldown-cmark), [`table`] (Markdown, CSV, TSV), [`provisions`]
//!   (numbered provisions of legal text), [`code`] (source code, tree-sitter). Each ends with a `Structure`.
//!
//! The engine sees only a `Structure`, and a strategy declares the levels it reports as
//! [`Source::Structure`](crate::levels::Source) rows of its level table. So the next two members are one file and
//! one table each, the engine untouched, as the code-syntax parser was (its definitions are blocks, its symbols
//! the chunks' title paths, their signatures the context). A parsed document's typed elements (headings with
//! levels, paragraphs, tables with captions, code) are not a parser of their own: [`elements`] writes them as one
//! Markdown text, with each element's range, for the Markdown parser.

pub mod code;
mod cuts;
mod describe;
pub mod detect;
pub mod elements;
pub mod markdown;
mod model;
pub mod provisions;
mod rules;
pub mod table;

pub use code::CodeSpan;
pub use describe::{join, ChunkType, Description, SpanInfo, TableRows};
pub use model::{Block, BlockKind, Heading, Rendered, Structure};
pub(crate) use rules::LastCapacity;
