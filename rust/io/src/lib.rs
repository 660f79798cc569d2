//! The outputs of chunkwise, built from the core's chunks and their descriptions: JSON lines ([`jsonl`]), Arrow
//! record batches ([`arrow`]), Parquet files ([`parquet`]), the spool a streamed document waits in before its
//! Parquet rows are written ([`spool`]), a run's chunks measured against a previous run's ([`changes`]), a
//! text's chunks as the bindings take them from the core ([`Prepared`]), and texts given as bytes ([`utf8`]).
//!
//! Pure Rust, no Python: the bindings hand each writer a document's chunks and a sink (`std::io::Write`), and
//! adapt a Python file to that sink. Kept apart from the bindings as polars keeps polars-io apart from its Python
//! crate, so that `cargo test` covers every output.

use chunkwise_core::{Chunk, Description, SpanInfo, Splitter};

pub mod arrow;
pub mod changes;
pub mod columns;
mod describe;
pub mod jsonl;
pub mod parquet;
mod prepared;
pub mod spool;
pub mod utf8;

pub use changes::Changes;
pub use columns::Field;
pub use prepared::Prepared;

/// What a splitter's outputs hold beyond each chunk: whether sizes are token counts, and the splitter (the names of
/// its levels, and which description its chunks carry).
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    /// Sizes are token counts: `token_count` holds them.
    pub tokens: bool,
    pub splitter: &'a Splitter,
}

impl Shape<'_> {
    fn level_name(&self, level: chunkwise_core::Level) -> &'static str {
        self.splitter.level_name(level)
    }

    fn strategy(&self) -> chunkwise_core::Strategy {
        self.splitter.config().strategy
    }
}

/// A document's chunks, in order, with the description of each when its chunker gives one.
#[derive(Debug, Clone, Copy)]
pub struct Chunked<'a> {
    pub chunks: &'a [Chunk],
    pub structure: Option<&'a Description>,
}

impl<'a> Chunked<'a> {
    /// Chunks without a description (a stream's).
    pub fn plain(chunks: &'a [Chunk]) -> Self {
        Self {
            chunks,
            structure: None,
        }
    }

    /// The description of chunk `i`, with the document's.
    pub fn info(&self, i: usize) -> Option<(&'a Description, &'a SpanInfo)> {
        self.structure.map(|d| (d, &d.chunks[i]))
    }
}

/// A document as its outputs name it: its source, and the strategy that chose its chunker and why, when one did
/// (`chunkwise chunk --strategy auto`).
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    pub source: &'a str,
    pub strategy: Option<(&'a str, &'a str)>,
}

impl<'a> Document<'a> {
    pub fn new(source: &'a str, strategy: Option<&'a (String, String)>) -> Self {
        Self {
            source,
            strategy: strategy.map(|(s, r)| (s.as_str(), r.as_str())),
        }
    }
}

/// A chunk id hash as it reads: 16 lowercase hex digits (ASCII). By hand: `format!` cost more than the rest of an
/// id column in `chunk_arrow`.
pub fn hash_id(hash: u64) -> [u8; 16] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 16];
    for (i, digit) in out.iter_mut().enumerate() {
        *digit = HEX[((hash >> (60 - 4 * i)) & 0xf) as usize];
    }
    out
}

/// What joins a chunk's context and its text in its embedding text: one line break after a table header or a fence
/// line (so that the result is still a table or a code block), else a blank line.
pub fn context_sep(info: &SpanInfo) -> &'static str {
    if info.inline_join {
        "\n"
    } else {
        "\n\n"
    }
}

#[cfg(test)]
mod tests;
