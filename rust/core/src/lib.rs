//! chunkwise-core: boundary scanning and chunk assembly, in byte offsets, with no Python in sight.
//!
//! The pieces:
//! - [`boundary`]: one emitter per kind of boundary; each only reports ranked byte positions.
//! - [`assemble`]: the one engine that turns those positions into chunks (merge, overlap, trim, min size).
//! - [`size`]: how a chunk is measured: the `Sizer` trait, and characters.
//! - [`tokens`]: sizes in tokens (HF tokenizers, tiktoken, callables), exact, with a memo of pieces.
//! - [`Span`]: a chunk as the engine gives it, in byte offsets.
//! - [`chunk`]: a text's chunks as callers get them: `str` offsets, stable ids, pages.
//! - [`offsets`]: byte offsets to Python `str` (code point) offsets, incrementally.
//! - [`structure`]: a document's structure (Markdown, tables, provisions): its model, one parser per format, the
//!   rules the engine asks of it, and what each chunk learns from it.
//! - [`levels`]: a strategy's table of levels: the source of each level's cuts (an emitter, or the structure) and
//!   its name.
//! - [`semantic`]: where a text's topic shifts, from one vector per sentence (distance curves, thresholds, an
//!   optimal segmentation); the cuts are assembled by the engine like any other.
//! - [`splitter`]: the strategies, each one table of levels for the engine.
//! - [`stream`]: the chunks of a text that arrives in pieces, equal to those of the whole text.
//! - [`parallel`]: a batch's items worked on in parallel, the results in order, the caller able to stop it
//!   ([`interrupt`]); [`panic`]: a panic caught as an error naming what was being done.
//! - `simd`: where the bytes of a class are (line breaks, char starts), 64 bytes at a time, for the emitters and
//!   the engine's measuring.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod assemble;
pub mod boundary;
pub mod chunk;
pub mod error;
pub mod interrupt;
pub mod langchain;
pub mod levels;
pub mod lines;
pub mod offsets;
pub mod panic;
pub mod parallel;
pub mod record;
pub mod semantic;
mod simd;
pub mod size;
mod span;
pub mod splitter;
pub mod stream;
pub mod structure;
mod tiktoken;
pub mod tokens;

pub use assemble::{Mode, Resume};
pub use boundary::Level;
pub use chunk::{Chunk, ChunkIter, ChunkOptions, Chunks};
pub use error::ChunkError;
pub use size::{MaxChars, Unit};
pub use span::Span;
pub use splitter::{
    KeepSeparator, Restart, SemanticConfig, SemanticFormat, Splitter, SplitterConfig, Strategy,
    TableFormat, DEFAULT_MIN_UNIT,
};
pub use stream::ChunkStream;
pub use structure::{Description, SpanInfo, Structure};
pub use tiktoken::registry as tiktoken_encodings;
pub use tokens::{CountFn, ModelFiles, PieceRule, TokenCounter};
