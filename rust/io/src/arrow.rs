//! Arrow record batches of chunks (`chunkwise.arrow.chunk_arrow`): one row per chunk, built column by column from
//! the documents' spans, in parallel, a batch of whole documents at a time. Which columns a batch has depends on
//! the chunker only, never on the data, so that every batch of a dataset gets the same schema.
//!
//! The chunks are made from the spans one at a time as the columns are built (`Splitter::chunk_iter`), never held
//! all at once: a `Chunk` is several times the size of its span, and a document of hundreds of MB has millions of
//! them. What a call holds beyond its input and its output is the spans, and the hashes that tell repeated chunk
//! texts apart in the ids (benches/README.md, "A huge document").

use std::sync::Arc;

use arrow_array::builder::GenericStringBuilder;
use arrow_array::{ArrayRef, Int64Array, OffsetSizeTrait, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use chunkwise_core::record::{key, Formats, Key, Role};
use chunkwise_core::{ChunkOptions, Description, Span, SpanInfo};

use crate::describe::MetadataRows;
use crate::{context_sep, hash_id, Shape};

pub mod texts;

pub use texts::Error;

/// A document's spans as the core split them (`Splitter::spans_until`), with their description and the options
/// that make their chunks' ids and pages.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spanned<'a> {
    pub spans: &'a [Span],
    pub structure: Option<&'a Description>,
    pub options: ChunkOptions<'a>,
}

impl<'a> Spanned<'a> {
    /// The description of chunk `i`, with the document's.
    fn info(&self, i: usize) -> Option<(&'a Description, &'a SpanInfo)> {
        self.structure.map(|d| (d, &d.chunks[i]))
    }

    /// The bytes of the chunks' texts.
    fn text_bytes(&self) -> usize {
        self.spans.iter().map(|s| s.end - s.start).sum()
    }
}

/// The record batches of the chunks of `texts` (`chunks[i]` the spans of `texts[i]`), at least one (even of no
/// text: it carries the schema); the strings `large_string` when `large` (or when a column could pass 2 GiB). `one`:
/// a single batch, whose columns are each one array (a list of chunks per document is built over them without a
/// copy), else batches of about [`BATCH_BYTES`] of chunk text, built in parallel.
pub fn batches(
    texts: &[&str],
    chunks: &[Spanned<'_>],
    shape: Shape<'_>,
    large: bool,
    one: bool,
) -> Result<Vec<RecordBatch>, ArrowError> {
    use rayon::prelude::*;
    let large = large || needs_large(texts, chunks);
    let groups = if one {
        std::iter::once(0..chunks.len()).collect()
    } else {
        groups(chunks)
    };
    groups
        .into_par_iter()
        .map(|r| {
            let (texts, chunks) = (&texts[r.clone()], &chunks[r.clone()]);
            if large {
                columns::<i64>(texts, chunks, (r.start, 0), shape)
            } else {
                columns::<i32>(texts, chunks, (r.start, 0), shape)
            }
        })
        .collect()
}

/// About how many bytes of chunk text a record batch of the output holds.
const BATCH_BYTES: usize = 1 << 20;

/// The texts of each record batch of the output: whole texts, about [`BATCH_BYTES`] of chunks each, at least one
/// batch (even of no text: it carries the schema).
fn groups(chunks: &[Spanned<'_>]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, p) in chunks.iter().enumerate() {
        bytes += p.text_bytes();
        if bytes >= BATCH_BYTES {
            out.push(start..i + 1);
            (start, bytes) = (i + 1, 0);
        }
    }
    if start < chunks.len() || out.is_empty() {
        out.push(start..chunks.len());
    }
    out
}

/// Whether some string column could pass the 2 GiB that a `string` column (32-bit offsets) can hold: a bound on
/// the bytes of the largest one.
fn needs_large(texts: &[&str], chunks: &[Spanned<'_>]) -> bool {
    let mut total = 0usize;
    for p in chunks {
        total += p.text_bytes() + 16 * p.spans.len();
        if let Some(d) = p.structure {
            for info in &d.chunks {
                let titles: usize = d.title_path(info).map(str::len).sum();
                let nodes: usize = info
                    .code
                    .as_ref()
                    .map_or(0, |c| c.node_types.iter().map(String::len).sum());
                let embedding = info.embedding.as_ref().map_or(0, String::len);
                total += 2 * info.context.len() + titles + nodes + embedding + 2;
            }
        }
    }
    // The text bytes count twice: once in `text`, once in `embedding_text`.
    let texts: usize = texts.iter().map(|t| t.len()).sum();
    total + texts > i32::MAX as usize
}

/// The output columns of `texts`, the first of which is row `first_row` (string columns with offsets of type `O`);
/// `first_index`: the index of the first chunk of the first text (a part of a stream starts past 0). The columns
/// are the record's: those Arrow writes that are not metadata, in their Arrow order (`token_count` only in tokens),
/// then the metadata keys of the chunker (`record::Column::written_for`), in the record's order.
fn columns<O: OffsetSizeTrait>(
    texts: &[&str],
    chunks: &[Spanned<'_>],
    (first_row, first_index): (usize, usize),
    shape: Shape<'_>,
) -> Result<RecordBatch, ArrowError> {
    let n: usize = chunks.iter().map(|p| p.spans.len()).sum();
    let text_bytes: usize = chunks.iter().map(Spanned::text_bytes).sum();
    let string = |capacity: usize| GenericStringBuilder::<O>::with_capacity(n, capacity);
    let mut text = string(text_bytes);
    let mut level = string(n * 8);
    let mut ids: Vec<u8> = Vec::with_capacity(n * 16);
    let (mut has_prev, mut has_next) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let [mut rows, mut indexes, mut starts, mut ends, mut sizes]: [Vec<i64>; 5] =
        std::array::from_fn(|_| Vec::with_capacity(n));
    let mut metadata = MetadataRows::<O>::new(metadata_columns(shape), n);
    for (row, (p, t)) in chunks.iter().zip(texts).enumerate() {
        let first = if row == 0 { first_index } else { 0 };
        for (i, c) in shape.splitter.chunk_iter(t, p.spans, p.options).enumerate() {
            text.append_value(&t[c.start..c.end]);
            level.append_value(shape.level_name(c.level));
            ids.extend_from_slice(&hash_id(c.id));
            has_prev.push(c.prev_id.is_some());
            has_next.push(c.next_id.is_some());
            rows.push((first_row + row) as i64);
            indexes.push((first + i) as i64);
            starts.push(c.char_start as i64);
            ends.push(c.char_end as i64);
            sizes.push(c.size as i64);
            metadata.push(None, p.info(i), c.pages);
        }
    }
    let ints = |v: Vec<i64>| -> ArrayRef { Arc::new(Int64Array::from(v)) };
    let (rows, indexes, starts, ends, sizes) = (
        ints(rows),
        ints(indexes),
        ints(starts),
        ints(ends),
        ints(sizes),
    );
    let text: ArrayRef = Arc::new(text.finish());
    let level: ArrayRef = Arc::new(level.finish());
    let [id, prev_id, next_id] = id_columns::<O>(ids, has_prev, has_next)?;
    let described = chunks.iter().any(|p| p.structure.is_some());
    let (context, embedding) = if described {
        contexts::<O>(texts, chunks, n, text_bytes)
    } else {
        // No chunk has a context: every embedding text is the chunk's text, and the column shares its buffers.
        (empty_strings::<O>(n), text.clone())
    };
    let mut fields: Vec<(Field, ArrayRef)> = Vec::new();
    for key in field_columns(shape.tokens) {
        let array = match key {
            key::ROW => rows.clone(),
            key::INDEX => indexes.clone(),
            key::TEXT => text.clone(),
            key::START => starts.clone(),
            key::END => ends.clone(),
            // In tokens `size` and `token_count` hold the same values: one array.
            key::SIZE | key::TOKEN_COUNT => sizes.clone(),
            key::LEVEL => level.clone(),
            key::ID => id.clone(),
            key::PREV_ID => prev_id.clone(),
            key::NEXT_ID => next_id.clone(),
            key::CONTEXT => context.clone(),
            key::EMBEDDING_TEXT => embedding.clone(),
            other => {
                return Err(ArrowError::SchemaError(format!(
                    "chunk_arrow has no values for the column {:?}",
                    other.name()
                )))
            }
        };
        fields.push((table_field(key, array.data_type(), shape.tokens), array));
    }
    for (key, nullable, array) in metadata.finish() {
        fields.push((
            Field::new(key.name(), array.data_type().clone(), nullable),
            array,
        ));
    }
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = fields.into_iter().unzip();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

/// The columns of `chunk_arrow` that are not metadata, in their Arrow order: `token_count` only in tokens.
fn field_columns(tokens: bool) -> Vec<Key> {
    let mut keys: Vec<Key> = Key::all()
        .filter(|k| k.column().arrow_at.is_some())
        .filter(|&k| tokens || k != key::TOKEN_COUNT)
        .collect();
    keys.sort_by_key(|k| k.column().arrow_at);
    keys
}

/// The metadata columns of the chunker's table, in the record's order, and whether each may be null.
fn metadata_columns(shape: Shape<'_>) -> Vec<(Key, bool)> {
    let chunker = shape.strategy().name();
    Key::all()
        .map(|k| (k, k.column()))
        .filter(|(_, c)| {
            c.role == Role::Metadata && c.formats.has(Formats::ARROW) && c.written_for(chunker)
        })
        .map(|(k, c)| (k, c.nullable_in(false, shape.tokens)))
        .collect()
}

/// The Arrow field of `key`, of type `data_type`.
fn table_field(key: Key, data_type: &DataType, tokens: bool) -> Field {
    Field::new(
        key.name(),
        data_type.clone(),
        key.column().nullable_in(false, tokens),
    )
}

/// The `id`, `prev_id` and `next_id` columns, over one buffer of ids (16 bytes each, in chunk order): a chunk's
/// previous chunk is the one before it in the column, its next one the one after (the first and last chunk of a
/// text have none), so the three columns differ only by their offsets, shifted by one id, and nulls.
fn id_columns<O: OffsetSizeTrait>(
    ids: Vec<u8>,
    has_prev: Vec<bool>,
    has_next: Vec<bool>,
) -> Result<[ArrayRef; 3], ArrowError> {
    let n = has_prev.len();
    let values = arrow_buffer::Buffer::from_vec(ids);
    let offset = |k: usize| {
        O::from_usize(16 * k)
            .ok_or_else(|| ArrowError::ComputeError("too many ids for a string column".into()))
    };
    let column = |offsets: Result<Vec<O>, ArrowError>,
                  valid: Option<Vec<bool>>|
     -> Result<ArrayRef, ArrowError> {
        let offsets = arrow_buffer::OffsetBuffer::new(offsets?.into());
        let nulls = valid.map(arrow_buffer::NullBuffer::from);
        Ok(Arc::new(arrow_array::GenericStringArray::<O>::try_new(
            offsets,
            values.clone(),
            nulls,
        )?))
    };
    let id = column((0..=n).map(offset).collect(), None)?;
    // Entry k spans id k - 1 (entry 0 is empty, and null).
    let prev = column(
        std::iter::once(0).chain(0..n).map(offset).collect(),
        Some(has_prev),
    )?;
    // Entry k spans id k + 1 (the last entry is empty, and null).
    let next = column(
        (1..=n).chain(std::iter::once(n)).map(offset).collect(),
        Some(has_next),
    )?;
    Ok([id, prev, next])
}

/// `n` empty strings.
fn empty_strings<O: OffsetSizeTrait>(n: usize) -> ArrayRef {
    Arc::new(arrow_array::GenericStringArray::<O>::new(
        arrow_buffer::OffsetBuffer::new_zeroed(n),
        arrow_buffer::Buffer::from_vec(Vec::<u8>::new()),
        None,
    ))
}

/// The `context` and `embedding_text` columns of texts whose chunks may carry a context (see `Chunk.embedding_text`:
/// the chunker's own rendering, else the context, its separator and the text, else the text).
fn contexts<O: OffsetSizeTrait>(
    texts: &[&str],
    chunks: &[Spanned<'_>],
    n: usize,
    text_bytes: usize,
) -> (ArrayRef, ArrayRef) {
    let mut context = GenericStringBuilder::<O>::with_capacity(n, 0);
    let mut embedding = GenericStringBuilder::<O>::with_capacity(n, text_bytes);
    for (p, t) in chunks.iter().zip(texts) {
        for (i, c) in p.spans.iter().enumerate() {
            let text = &t[c.start..c.end];
            let info = p.info(i).map(|(_, info)| info);
            match info {
                Some(info) => {
                    context.append_value(&info.context);
                    match &info.embedding {
                        Some(e) => embedding.append_value(e),
                        None if info.context.is_empty() => embedding.append_value(text),
                        None => {
                            use std::fmt::Write;
                            let _ =
                                write!(embedding, "{}{}{text}", info.context, context_sep(info));
                            embedding.append_value("");
                        }
                    }
                }
                None => {
                    context.append_value("");
                    embedding.append_value(text);
                }
            }
        }
    }
    (Arc::new(context.finish()), Arc::new(embedding.finish()))
}

#[cfg(test)]
mod tests;
