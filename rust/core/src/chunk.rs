//! A text's chunks as a caller receives them: the engine's spans with their `str` (code point) offsets, a stable id
//! each, their neighbours' ids and, for a paged text, their pages. Every binding gets the same chunks from here.

use rustc_hash::{FxHashMap, FxHashSet};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use crate::boundary::Level;
use crate::error::ChunkError;
use crate::span::Span;
use crate::splitter::Splitter;
use crate::structure::Description;

/// One chunk of a text: `text[start..end]` in bytes, `chars[char_start..char_end]` in code points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Byte offset of the chunk's first byte in the text.
    pub start: usize,
    /// Byte offset just past the chunk.
    pub end: usize,
    /// `start` in code points (a Python `str` index).
    pub char_start: usize,
    /// `end` in code points.
    pub char_end: usize,
    /// The chunk's size in the splitter's unit.
    pub size: usize,
    /// The strongest boundary the chunk ends at (see [`Splitter::level_name`]).
    pub level: Level,
    /// Stable id: see [`chunk_ids`].
    pub id: u64,
    /// Id of the previous chunk of the text.
    pub prev_id: Option<u64>,
    /// Id of the next chunk of the text.
    pub next_id: Option<u64>,
    /// For a paged text (pages separated by form feeds): the 1-based pages of the chunk's first and last byte.
    pub pages: Option<(usize, usize)>,
}

impl Chunk {
    /// The engine's span of the chunk (byte offsets, level, size).
    pub fn span(&self) -> Span {
        Span {
            start: self.start,
            end: self.end,
            level: self.level,
            size: self.size,
        }
    }
}

/// Checks the offsets of a chunk built by hand (`chunkwise.Chunk(...)`): `end` not before `start`, and `end -
/// start` the length of its text (`len`), which is the source's slice between them; all in the caller's units.
pub fn check_offsets(start: usize, end: usize, len: usize) -> Result<(), ChunkError> {
    if end < start {
        return Err(ChunkError::invalid(
            "end",
            format!("end must be >= start ({start}), got {end}"),
        ));
    }
    if end - start != len {
        return Err(ChunkError::invalid(
            "end",
            format!(
                "end - start must be len(text) ({len}): the text is source[start:end], got {start}..{end}"
            ),
        ));
    }
    Ok(())
}

/// Metadata keys that name a document, in order of preference: the first one a document's metadata holds names it
/// (see [`doc_id_of`]).
pub const DOC_ID_KEYS: [&str; 3] = ["doc_id", "id", "source"];

/// The id of a document whose metadata holds `key: value` (`value` as Python's `str()` renders it), namespaced by
/// the key: a document named by `{"id": "a"}` is not the one named by `{"source": "a"}`. Part of every chunk id of
/// the document (see [`chunk_ids`]), so it must not change.
pub fn doc_id_of(key: &str, value: &str) -> String {
    format!("{key}={value}")
}

/// How a text is read into [`Chunks`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ChunkOptions<'a> {
    /// The document's id (a caller's `doc_id`, `id` or `source`), which namespaces the chunk ids (see
    /// [`chunk_ids`]).
    pub doc_id: Option<&'a str>,
    /// Number the pages even if the text holds no form feed (a document given as pages); a text that holds form
    /// feeds is always numbered.
    pub paged: bool,
}

/// The chunks of a text, with what a structural strategy learns about each.
#[derive(Debug, Clone)]
pub struct Chunks {
    /// The chunks, in order.
    pub chunks: Vec<Chunk>,
    /// Structural strategies (markdown, clause, table): what each chunk learns from the structure, in the order
    /// of `chunks`, and the document's headings.
    pub description: Option<Description>,
}

impl Splitter {
    /// The chunks of `text`, with ids, `str` offsets and pages. Never panics on any input.
    pub fn chunks(&self, text: &str, options: ChunkOptions<'_>) -> Result<Chunks, ChunkError> {
        self.chunks_until(text, options, None)
    }

    /// [`Splitter::chunks`], asking `stop` every few chunks whether to give up (see
    /// [`Splitter::split_structured_until`]).
    pub fn chunks_until(
        &self,
        text: &str,
        options: ChunkOptions<'_>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<Chunks, ChunkError> {
        let (spans, structure) = self.split_structured_until(text, stop)?;
        Ok(self.chunks_of(text, &spans, structure, options))
    }

    /// The spans of `text` and their description (structural strategies): what [`Splitter::chunk_iter`] turns into
    /// chunks one at a time, for a writer that streams them into its output rather than holding a vector of them
    /// (a [`Chunk`] is several times the size of its [`Span`]).
    pub fn spans_until(
        &self,
        text: &str,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(Vec<Span>, Option<Description>), ChunkError> {
        let (spans, structure) = self.split_structured_until(text, stop)?;
        let description = structure.map(|s| self.describe(text, &spans, &s));
        Ok((spans, description))
    }

    /// The chunks of `text` that the engine made as `spans` (with the document's `structure`, for a structural
    /// strategy).
    pub(crate) fn chunks_of(
        &self,
        text: &str,
        spans: &[Span],
        structure: Option<crate::structure::Structure>,
        options: ChunkOptions<'_>,
    ) -> Chunks {
        let description = structure.map(|s| self.describe(text, spans, &s));
        Chunks {
            chunks: self.chunk_iter(text, spans, options).collect(),
            description,
        }
    }

    /// The chunks of `text` that the engine made as `spans`, one at a time, in order: those of
    /// [`Splitter::chunks`] for the spans it splits into.
    pub fn chunk_iter<'a>(
        &'a self,
        text: &'a str,
        spans: &'a [Span],
        options: ChunkOptions<'_>,
    ) -> ChunkIter<'a> {
        let mut ids = Ids::new(match options.doc_id {
            Some(d) => DocKey::Id(d),
            None => DocKey::Text(text),
        });
        ids.seen.reserve(spans.len());
        ChunkIter {
            text,
            spans,
            next: 0,
            chars: self.char_span_iter(text, spans),
            ids,
            id: None,
            prev_id: None,
            breaks: crate::offsets::page_breaks(text, options.paged),
        }
    }
}

/// The chunks of a text, one at a time: see [`Splitter::chunk_iter`].
#[derive(Debug)]
pub struct ChunkIter<'a> {
    text: &'a str,
    spans: &'a [Span],
    /// The index of the next chunk.
    next: usize,
    chars: crate::splitter::CharSpans<'a>,
    ids: Ids,
    /// The next chunk's id, computed as the one before's `next_id`.
    id: Option<u64>,
    prev_id: Option<u64>,
    /// The form feeds of a paged text (see [`crate::offsets::page_breaks`]).
    breaks: Option<Vec<usize>>,
}

impl Iterator for ChunkIter<'_> {
    type Item = Chunk;

    fn next(&mut self) -> Option<Chunk> {
        let s = *self.spans.get(self.next)?;
        let (char_start, char_end) = self.chars.next()?;
        let bytes = self.text.as_bytes();
        let id = match self.id.take() {
            Some(id) => id,
            None => self.ids.next(&bytes[s.start..s.end]),
        };
        self.next += 1;
        let next_id = self
            .spans
            .get(self.next)
            .map(|n| self.ids.next(&bytes[n.start..n.end]));
        self.id = next_id;
        let prev_id = self.prev_id.replace(id);
        Some(Chunk {
            start: s.start,
            end: s.end,
            char_start,
            char_end,
            size: s.size,
            level: s.level,
            id,
            prev_id,
            next_id,
            pages: self
                .breaks
                .as_deref()
                .map(|b| crate::offsets::span_pages(b, &s)),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.spans.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for ChunkIter<'_> {}

/// The ids of the chunks `spans` of `text`: each a hash of the document, the chunk's text and which occurrence of
/// that text it is among the document's chunks (0 for the first chunk with that exact text, 1 for the next...).
/// Not of the offsets: an edit before a chunk shifts them, and its id must not change. `doc_id`: the document's
/// id; without one, a digest of the whole text stands for the document, so that equal chunk texts of different
/// documents do not collide (and every id changes with any edit).
pub fn chunk_ids(text: &str, spans: &[Span], doc_id: Option<&str>) -> Vec<u64> {
    level_ids(
        text,
        spans.iter().map(|s| &text.as_bytes()[s.start..s.end]),
        doc_id,
        0,
    )
}

/// The ids of the chunks of one level of a hierarchy of chunks over `text` (HierarchicalChunker's), given by their
/// texts (`chunks`): the ids [`chunk_ids`] gives at level 0, namespaced by the level below it too, so that the
/// same passage at two levels has two ids.
pub fn level_ids<'a>(
    text: &str,
    chunks: impl ExactSizeIterator<Item = &'a [u8]>,
    doc_id: Option<&str>,
    level: u32,
) -> Vec<u64> {
    let mut ids = Ids::new(match doc_id {
        Some(d) => DocKey::Id(d),
        None => DocKey::Text(text),
    });
    if level > 0 {
        ids.doc = xxh3_64_with_seed(&level.to_le_bytes(), ids.doc);
    }
    ids.seen.reserve(chunks.len());
    chunks.map(|c| ids.next(c)).collect()
}

/// What namespaces a document's chunk ids.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DocKey<'a> {
    /// The caller's document id.
    Id(&'a str),
    /// The whole text, standing for a document without an id.
    Text(&'a str),
}

/// The ids of a document's chunks, one chunk text after the other (see [`chunk_ids`]).
#[derive(Debug)]
pub(crate) struct Ids {
    doc: u64,
    /// The (hashed) texts seen so far: most are seen once, and a set of them is half the size of a map of counts
    /// (a stream of gigabytes keeps millions).
    seen: FxHashSet<u64>,
    /// How many chunks had each text that was seen more than once.
    repeated: FxHashMap<u64, u64>,
}

impl Ids {
    pub(crate) fn new(doc: DocKey<'_>) -> Self {
        // Seeds keep a document id apart from a text that happens to hold the same bytes.
        let doc = match doc {
            DocKey::Id(d) => xxh3_64_with_seed(d.as_bytes(), 1),
            DocKey::Text(t) => xxh3_64_with_seed(t.as_bytes(), 0),
        };
        Self {
            doc,
            seen: FxHashSet::default(),
            repeated: FxHashMap::default(),
        }
    }

    /// The id of the next chunk, whose text is `chunk`.
    pub(crate) fn next(&mut self, chunk: &[u8]) -> u64 {
        // One pass over the chunk's bytes, seeded with the document.
        let id = xxh3_64_with_seed(chunk, self.doc);
        if self.seen.insert(id) {
            return id;
        }
        let count = self.repeated.entry(id).or_insert(1);
        let occurrence = *count;
        *count += 1;
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&id.to_le_bytes());
        key[8..].copy_from_slice(&occurrence.to_le_bytes());
        xxh3_64(&key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_named_by_its_key_and_value() {
        assert_eq!(doc_id_of("source", "a.md"), "source=a.md");
        let text = "one two";
        let spans = [Span {
            start: 0,
            end: 7,
            level: Level::END,
            size: 0,
        }];
        let ids = |key| chunk_ids(text, &spans, Some(&doc_id_of(key, "a")));
        assert_ne!(ids("id"), ids("source"));
        assert_eq!(ids("id"), ids("id"));
    }

    #[test]
    fn level_ids_are_chunk_ids_at_level_0_and_apart_at_other_levels() {
        let text = "one two. one two. three";
        let spans: Vec<Span> = [(0, 8), (9, 17), (18, 23)]
            .iter()
            .map(|&(start, end)| Span {
                start,
                end,
                level: Level::END,
                size: 0,
            })
            .collect();
        let pieces = || spans.iter().map(|s| &text.as_bytes()[s.start..s.end]);
        for doc in [None, Some("doc_id=a")] {
            let zero = level_ids(text, pieces(), doc, 0);
            assert_eq!(zero, chunk_ids(text, &spans, doc));
            // The repeated text gets two ids.
            assert_ne!(zero[0], zero[1]);
            let one = level_ids(text, pieces(), doc, 1);
            assert!(zero.iter().all(|id| !one.contains(id)));
            assert_eq!(one, level_ids(text, pieces(), doc, 1));
        }
        assert_ne!(
            level_ids(text, pieces(), Some("doc_id=a"), 1),
            level_ids(text, pieces(), Some("doc_id=b"), 1)
        );
    }
    use crate::{SplitterConfig, Strategy};

    fn splitter(strategy: Strategy, size: usize) -> Splitter {
        Splitter::new(SplitterConfig::new(strategy, size)).unwrap()
    }

    #[test]
    fn chunks_carry_char_offsets_ids_and_neighbours() {
        let text = "éé aa. éé aa. éé aa.";
        let got = splitter(Strategy::Recursive, 7)
            .chunks(text, ChunkOptions::default())
            .unwrap();
        assert!(got.description.is_none());
        let chars: Vec<char> = text.chars().collect();
        for (i, c) in got.chunks.iter().enumerate() {
            let slice: String = chars[c.char_start..c.char_end].iter().collect();
            assert_eq!(slice, &text[c.start..c.end]);
            assert_eq!(c.prev_id, i.checked_sub(1).map(|p| got.chunks[p].id));
            assert_eq!(c.next_id, got.chunks.get(i + 1).map(|n| n.id));
            assert_eq!(c.pages, None);
        }
        // The same text three times: three occurrences, three ids.
        let ids: std::collections::HashSet<u64> = got.chunks.iter().map(|c| c.id).collect();
        assert_eq!((got.chunks.len(), ids.len()), (3, 3));
    }

    #[test]
    fn ids_depend_on_the_document_not_the_offsets() {
        let s = splitter(Strategy::Paragraph, 5);
        let ids = |text: &str, doc_id| {
            let opts = ChunkOptions {
                doc_id,
                paged: false,
            };
            let chunks = s.chunks(text, opts).unwrap().chunks;
            chunks.iter().map(|c| c.id).collect::<Vec<_>>()
        };
        let (a, b) = (
            ids("one\n\ntwo", Some("d")),
            ids("zero\n\none\n\ntwo", Some("d")),
        );
        assert_eq!(a, b[1..]);
        assert_ne!(ids("one\n\ntwo", Some("e")), a);
        // Without a document id, the whole text stands for it: any edit changes every id.
        assert_ne!(ids("one\n\ntwo", None)[0], ids("one\n\ntwo!", None)[0]);
    }

    #[test]
    fn a_paged_text_numbers_pages() {
        let s = splitter(Strategy::Recursive, 5);
        let paged = ChunkOptions {
            doc_id: None,
            paged: true,
        };
        let pages = |text, options| {
            let chunks = s.chunks(text, options).unwrap().chunks;
            chunks.iter().map(|c| c.pages).collect::<Vec<_>>()
        };
        assert_eq!(
            pages("one\x0ctwo", ChunkOptions::default()),
            [Some((1, 1)), Some((2, 2))]
        );
        assert_eq!(pages("one", paged), [Some((1, 1))]);
        assert_eq!(pages("one", ChunkOptions::default()), [None]);
    }

    #[test]
    fn structural_strategies_describe_each_chunk() {
        let got = splitter(Strategy::Markdown, 20)
            .chunks(
                "# Title\n\nSome text here.\n\n## Sub\n\nMore.",
                ChunkOptions::default(),
            )
            .unwrap();
        let description = got.description.unwrap();
        assert_eq!(description.chunks.len(), got.chunks.len());
        assert_eq!(description.headings.len(), 2);
        assert!(description.chunks.iter().any(|i| i.path == [0, 1]));
    }
}
