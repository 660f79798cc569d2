//! A text's chunks as the bindings take them from the core: offsets, ids, pages, the description and the semantic
//! scores, everything that needs no Python object, computed without the GIL (in parallel for a batch), so that
//! only the building of objects, or the writing of an output, is left.

use chunkwise_core::{Chunk, ChunkError, ChunkOptions, Description, Splitter};

use crate::Chunked;

/// A text's chunks from the core, ready to be built into objects or written out.
#[derive(Debug, Default)]
pub struct Prepared {
    pub chunks: Vec<Chunk>,
    /// What each chunk learns from the document's structure (structural strategies only).
    pub structure: Option<Description>,
    /// Semantic strategy: the distance at each chunk's end, and the mode that chose the cuts.
    pub scores: Option<(Vec<Option<f64>>, &'static str)>,
}

impl Prepared {
    /// Splits `text` and prepares its chunks (see [`ChunkOptions`]). `stop`: asked every few chunks whether to give
    /// up.
    pub fn split(
        splitter: &Splitter,
        text: &str,
        options: ChunkOptions<'_>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Self, ChunkError> {
        let chunks = splitter.chunks_until(text, options, Some(stop))?;
        Ok(Self {
            chunks: chunks.chunks,
            structure: chunks.description,
            scores: None,
        })
    }

    /// Splits `text` by the semantic strategy, given one row of `dim` values for each of its units (see
    /// [`Splitter::semantic_chunks`]).
    pub fn semantic(
        splitter: &Splitter,
        text: &str,
        (vectors, dim): (&[f32], usize),
        options: ChunkOptions<'_>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Self, ChunkError> {
        let got = splitter.semantic_chunks(text, vectors, dim, options, Some(stop))?;
        Ok(Self {
            chunks: got.chunks.chunks,
            structure: got.chunks.description,
            scores: Some((got.scores, splitter.config().semantic.mode.name())),
        })
    }

    /// Chunks of a stream, final and in order (they carry no structure).
    pub fn streamed(chunks: Vec<Chunk>) -> Self {
        Self {
            chunks,
            ..Self::default()
        }
    }

    /// No chunks: those of a missing text (a null in an Arrow column), which is not split at all.
    pub fn none() -> Self {
        Self::default()
    }

    /// The number of chunks.
    pub fn count(&self) -> usize {
        self.chunks.len()
    }

    /// The chunks, in order.
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }

    /// The chunks as the writers take them.
    pub fn chunked(&self) -> Chunked<'_> {
        Chunked {
            chunks: &self.chunks,
            structure: self.structure.as_ref(),
        }
    }

    /// Whether the chunks carry page numbers.
    pub fn paged(&self) -> bool {
        self.chunks.first().is_some_and(|c| c.pages.is_some())
    }
}

#[cfg(test)]
mod tests {
    use chunkwise_core::{SplitterConfig, Strategy};

    use super::*;

    #[test]
    fn prepared_chunks_are_the_cores_with_their_description() {
        let splitter = Splitter::new(SplitterConfig::new(Strategy::Markdown, 40)).unwrap();
        let text = "# Title\n\nA paragraph, éé.\n\n## Next\n\n日本語の文。\u{c}Page two.\n";
        let options = ChunkOptions {
            doc_id: Some("d"),
            paged: false,
        };
        let prepared = Prepared::split(&splitter, text, options, &|| false).unwrap();
        let chunks = splitter.chunks(text, options).unwrap();
        assert_eq!(prepared.chunks(), &chunks.chunks[..]);
        assert_eq!(prepared.count(), chunks.chunks.len());
        assert_eq!(prepared.chunked().structure, chunks.description.as_ref());
        assert!(prepared.paged() && prepared.scores.is_none());
        let stopped = Prepared::split(&splitter, &text.repeat(50), options, &|| true);
        assert!(matches!(stopped, Err(ChunkError::Interrupted)));
        let none = Prepared::none();
        assert_eq!(none.count(), 0);
        assert!(!none.paged() && none.chunked().structure.is_none());
    }
}
