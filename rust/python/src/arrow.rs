//! The Arrow kernel behind `chunkwise.arrow.chunk_arrow`: the texts of an Arrow string column, read from its buffers
//! (no Python `str` per document), split in parallel with the GIL released, and their chunks handed back as Arrow
//! columns built here (one row per chunk), through the Arrow PyCapsule interface.
//!
//! Selecting the text column of a table and repeating the caller's other columns is left to the Python side
//! (pyarrow), which does both without copying the text.

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, GenericStringBuilder, Int64Builder, ListBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int64Array, OffsetSizeTrait, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use chunkwise_core::{ChunkOptions, Description, SpanInfo};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use pyo3_arrow::input::AnyArray;

use crate::batch::batch_error;
use crate::build::{context_sep, Prepared};
use crate::chunk::hash_id;
use crate::errors::{run, ChunkingError};
use crate::interrupt::Interrupt;
use crate::metadata;
use crate::splitter::PySplitter;

/// The metadata key that `doc_ids` stand for: a chunk's id is the one `chunk_batch` gives a text whose metadata
/// holds `{"doc_id": value}`.
const DOC_ID_KEY: &str = "doc_id";

/// The chunks of every text of `texts` (an Arrow string, large_string or string_view array, or a stream of them),
/// as an Arrow C stream of record batches, one row per chunk, in a PyCapsule (`pyarrow.table` reads it through an
/// object whose `__arrow_c_stream__` returns it). `doc_ids`: an Arrow string array of the same length, each row's
/// document id (null: none); see `DOC_ID_KEY`. `paged`: number the pages of every text, also of one without a form
/// feed (a document given as pages). `id_key`: the metadata key the `doc_ids` stand for (the command line names
/// documents by `source`).
#[pyfunction]
#[pyo3(signature = (splitter, texts, doc_ids=None, paged=false, id_key=DOC_ID_KEY))]
pub(crate) fn chunk_arrow<'py>(
    py: Python<'py>,
    splitter: &Bound<'py, PySplitter>,
    texts: AnyArray,
    doc_ids: Option<AnyArray>,
    paged: bool,
    id_key: &str,
) -> PyResult<Bound<'py, PyCapsule>> {
    let splitter = splitter.get();
    let arrays = read_all("texts", texts)?;
    let (strs, large) = strings(py, "texts", &arrays)?;
    let ids: Vec<Option<String>> = match doc_ids {
        Some(d) => {
            let arrays = read_all("doc_ids", d)?;
            let (given, _) = strings(py, "doc_ids", &arrays)?;
            if given.len() != strs.len() {
                return Err(ChunkingError::new_err(format!(
                    "doc_ids must have one entry per text ({}), got {}",
                    strs.len(),
                    given.len()
                )));
            }
            given
                .into_iter()
                .map(|v| v.map(|v| metadata::doc_id_of(id_key, v)))
                .collect()
        }
        None => vec![None; strs.len()],
    };
    // A null text has no chunks, and is not split: a chunker that refuses an empty text (a table) takes a null.
    let texts: Vec<&str> = strs.iter().map(|t| t.unwrap_or("")).collect();
    let interrupt = Interrupt::new();
    let stop = splitter.stop(&interrupt);
    let prepared = splitter.for_all(py, &texts, &interrupt, |i, t| {
        if strs[i].is_none() {
            return Ok(Prepared::none());
        }
        let options = ChunkOptions {
            doc_id: ids[i].as_deref(),
            paged,
        };
        Prepared::split(&splitter.inner, t, options, &stop)
    })?;
    let prepared = prepared
        .into_iter()
        .enumerate()
        .map(|(i, p)| p.map_err(|e| batch_error(i, e)))
        .collect::<PyResult<Vec<_>>>()?;
    let shape = Shape {
        tokens: splitter.has_tokenizer(),
        structural: splitter.inner.is_structural(),
        code: splitter.inner.config().strategy == chunkwise_core::Strategy::Code,
        fences: splitter.inner.config().strategy == chunkwise_core::Strategy::Markdown,
    };
    let level_name = |l| splitter.inner.level_name(l);
    let build = || {
        use rayon::prelude::*;
        let large = large || needs_large(&texts, &prepared);
        // Record batches of whole texts, built in parallel.
        groups(&prepared)
            .into_par_iter()
            .map(|r| {
                let (texts, prepared) = (&texts[r.clone()], &prepared[r.clone()]);
                if large {
                    columns::<i64>(texts, prepared, (r.start, 0), shape, &level_name)
                } else {
                    columns::<i32>(texts, prepared, (r.start, 0), shape, &level_name)
                }
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let batches = run(py, true, "building the Arrow columns", build)?
        .map_err(|e| ChunkingError::new_err(format!("building the Arrow columns: {e}")))?;
    capsule(py, batches)
}

/// About how many bytes of chunk text a record batch of the output holds.
const BATCH_BYTES: usize = 1 << 20;

/// The texts of each record batch of the output: whole texts, about [`BATCH_BYTES`] of chunks each, at least one
/// batch (even of no text: it carries the schema).
fn groups(prepared: &[Prepared]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, p) in prepared.iter().enumerate() {
        bytes += p.chunks().iter().map(|c| c.end - c.start).sum::<usize>();
        if bytes >= BATCH_BYTES {
            out.push(start..i + 1);
            (start, bytes) = (i + 1, 0);
        }
    }
    if start < prepared.len() || out.is_empty() {
        out.push(start..prepared.len());
    }
    out
}

/// Every array of an Arrow array or stream of strings, in order; string_view arrays as binary_view ones, whose
/// values are read as bytes (a `&str` of a string_view value would be assumed UTF-8 before [`strings`] checks it).
/// Binary and large_binary arrays are taken too (their values are checked as UTF-8 like the others): the command
/// line hands over the bytes of files it read, which a cast to strings would check a second time.
fn read_all(arg: &str, data: AnyArray) -> PyResult<Vec<ArrayRef>> {
    let arrays = data
        .into_reader()?
        .collect::<Result<Vec<_>, ArrowError>>()
        .map_err(|e| {
            ChunkingError::new_err(format!("{arg}: reading the Arrow data failed: {e}"))
        })?;
    arrays
        .into_iter()
        .map(|a| match a.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => {
                Ok(a)
            }
            DataType::Utf8View => {
                Ok(Arc::new(a.as_string_view().clone().to_binary_view()) as ArrayRef)
            }
            other => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{arg} must be Arrow strings (string, large_string or string_view), got {other}"
            ))),
        })
        .collect()
}

/// The texts of the arrays of [`read_all`], borrowed from their buffers (`None` for a null), and whether they are
/// large_string. Each is checked to be UTF-8 (in parallel, with the GIL released): the Arrow C Data Interface hands
/// buffers over unchecked.
fn strings<'a>(
    py: Python<'_>,
    arg: &str,
    arrays: &'a [ArrayRef],
) -> PyResult<(Vec<Option<&'a str>>, bool)> {
    let mut raw: Vec<Option<&'a [u8]>> = Vec::with_capacity(arrays.iter().map(|a| a.len()).sum());
    let mut large = false;
    for array in arrays {
        match array.data_type() {
            DataType::LargeUtf8 => {
                large = true;
                offset_bytes(arg, array.as_string::<i64>(), &mut raw)?;
            }
            DataType::Binary => offset_bytes(arg, array.as_binary::<i32>(), &mut raw)?,
            DataType::LargeBinary => {
                large = true;
                offset_bytes(arg, array.as_binary::<i64>(), &mut raw)?;
            }
            DataType::BinaryView => {
                let view = array.as_binary_view();
                raw.extend((0..view.len()).map(|i| (!view.is_null(i)).then(|| view.value(i))));
            }
            _ => offset_bytes(arg, array.as_string::<i32>(), &mut raw)?,
        }
    }
    let checked = py.detach(|| {
        use rayon::prelude::*;
        raw.par_iter()
            .enumerate()
            .map(|(i, b)| match b {
                None => Ok(None),
                Some(b) => simdutf8::compat::from_utf8(b).map(Some).map_err(|e| (i, e)),
            })
            .collect::<Result<Vec<_>, _>>()
    });
    let texts = checked
        .map_err(|(i, e)| ChunkingError::new_err(format!("{arg}[{i}] is not valid UTF-8: {e}")))?;
    Ok((texts, large))
}

/// The values of a string or binary array (of either offset size) as bytes, from its offsets and data.
fn offset_bytes<'a, T: arrow_array::types::ByteArrayType>(
    arg: &str,
    array: &'a arrow_array::GenericByteArray<T>,
    out: &mut Vec<Option<&'a [u8]>>,
) -> PyResult<()> {
    let (offsets, data) = (array.value_offsets(), array.value_data());
    for i in 0..array.len() {
        if array.is_null(i) {
            out.push(None);
            continue;
        }
        let (start, end) = (
            arrow_buffer::ArrowNativeType::as_usize(offsets[i]),
            arrow_buffer::ArrowNativeType::as_usize(offsets[i + 1]),
        );
        let bytes = data.get(start..end).ok_or_else(|| {
            ChunkingError::new_err(format!(
                "{arg}[{}]: its Arrow offsets point outside the data",
                out.len()
            ))
        })?;
        out.push(Some(bytes));
    }
    Ok(())
}

/// Which columns the output has: they depend on the chunker only, never on the data, so that every batch of a
/// dataset gets the same schema.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// `token_count`, for a chunker that measures in tokens.
    tokens: bool,
    /// The description of each chunk (title path, type, rows...), for a structural chunker.
    structural: bool,
    /// A code chunk's description instead (language, symbol path, lines, node types...), for the code chunker.
    code: bool,
    /// The code keys of chunks of code blocks too (symbol path, lines, node types, note), for the Markdown chunker.
    fences: bool,
}

/// An Arrow C stream of `batches` (at least one: it carries the schema), in a PyCapsule.
fn capsule(py: Python<'_>, batches: Vec<RecordBatch>) -> PyResult<Bound<'_, PyCapsule>> {
    let schema = batches[0].schema();
    let reader = arrow_array::RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let stream = arrow_array::ffi_stream::FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}

/// Whether some string column could pass the 2 GiB that a `string` column (32-bit offsets) can hold: a bound on
/// the bytes of the largest one.
fn needs_large(texts: &[&str], prepared: &[Prepared]) -> bool {
    let mut total = 0usize;
    for p in prepared {
        total += p
            .chunks()
            .iter()
            .map(|c| c.end - c.start + 16)
            .sum::<usize>();
        if let Some(d) = p.structure() {
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
/// `first_index`: the index of the first chunk of the first text (a part of a stream starts past 0).
fn columns<O: OffsetSizeTrait>(
    texts: &[&str],
    prepared: &[Prepared],
    (first_row, first_index): (usize, usize),
    shape: Shape,
    level_name: &(dyn Fn(chunkwise_core::Level) -> &'static str + Sync),
) -> Result<RecordBatch, ArrowError> {
    let n: usize = prepared.iter().map(Prepared::count).sum();
    let text_bytes: usize = prepared
        .iter()
        .flat_map(|p| p.chunks().iter().map(|c| c.end - c.start))
        .sum();
    let ints = |f: &dyn Fn(usize, usize, &chunkwise_core::Chunk) -> i64| -> ArrayRef {
        let mut v = Vec::with_capacity(n);
        for (row, p) in prepared.iter().enumerate() {
            for (i, c) in p.chunks().iter().enumerate() {
                v.push(f(row, i, c));
            }
        }
        Arc::new(Int64Array::from(v))
    };
    let string = |capacity: usize| GenericStringBuilder::<O>::with_capacity(n, capacity);
    let mut text = string(text_bytes);
    let mut level = string(n * 8);
    let mut ids: Vec<u8> = Vec::with_capacity(n * 16);
    let (mut has_prev, mut has_next) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut page_start, mut page_end) = (
        Int64Builder::with_capacity(n),
        Int64Builder::with_capacity(n),
    );
    for (p, t) in prepared.iter().zip(texts) {
        for c in p.chunks() {
            text.append_value(&t[c.start..c.end]);
            level.append_value(level_name(c.level));
            ids.extend_from_slice(&hash_id(c.id));
            has_prev.push(c.prev_id.is_some());
            has_next.push(c.next_id.is_some());
            page_start.append_option(c.pages.map(|(first, _)| first as i64));
            page_end.append_option(c.pages.map(|(_, last)| last as i64));
        }
    }
    let text: ArrayRef = Arc::new(text.finish());
    let string_type = text.data_type().clone();
    let mut fields: Vec<(Field, ArrayRef)> = vec![
        (
            Field::new("row", DataType::Int64, false),
            ints(&|row, _, _| (first_row + row) as i64),
        ),
        (
            Field::new("index", DataType::Int64, false),
            ints(&|row, i, _| (if row == 0 { first_index + i } else { i }) as i64),
        ),
        (Field::new("text", string_type.clone(), false), text.clone()),
        (
            Field::new("start", DataType::Int64, false),
            ints(&|_, _, c| c.char_start as i64),
        ),
        (
            Field::new("end", DataType::Int64, false),
            ints(&|_, _, c| c.char_end as i64),
        ),
        (
            Field::new("size", DataType::Int64, false),
            ints(&|_, _, c| c.size as i64),
        ),
    ];
    if shape.tokens {
        fields.push((
            Field::new("token_count", DataType::Int64, false),
            ints(&|_, _, c| c.size as i64),
        ));
    }
    fields.push((
        Field::new("level", string_type.clone(), false),
        Arc::new(level.finish()),
    ));
    let [id, prev_id, next_id] = id_columns::<O>(ids, has_prev, has_next)?;
    fields.push((Field::new("id", string_type.clone(), false), id));
    fields.push((Field::new("prev_id", string_type.clone(), true), prev_id));
    fields.push((Field::new("next_id", string_type.clone(), true), next_id));
    let described = prepared.iter().any(|p| p.structure().is_some());
    let (context, embedding) = if described {
        contexts::<O>(texts, prepared, n, text_bytes)
    } else {
        // No chunk has a context: every embedding text is the chunk's text, and the column shares its buffers.
        (empty_strings::<O>(n), text)
    };
    fields.push((Field::new("context", string_type.clone(), false), context));
    fields.push((Field::new("embedding_text", string_type, false), embedding));
    if shape.code {
        fields.extend(code_columns::<O>(prepared, n));
    } else if shape.structural {
        fields.extend(description_columns::<O>(prepared, n));
        if shape.fences {
            fields.extend(fence_columns::<O>(prepared, n));
        }
    }
    fields.push((
        Field::new("page_start", DataType::Int64, true),
        Arc::new(page_start.finish()),
    ));
    fields.push((
        Field::new("page_end", DataType::Int64, true),
        Arc::new(page_end.finish()),
    ));
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = fields.into_iter().unzip();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
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
    prepared: &[Prepared],
    n: usize,
    text_bytes: usize,
) -> (ArrayRef, ArrayRef) {
    let mut context = GenericStringBuilder::<O>::with_capacity(n, 0);
    let mut embedding = GenericStringBuilder::<O>::with_capacity(n, text_bytes);
    for (p, t) in prepared.iter().zip(texts) {
        for (i, c) in p.chunks().iter().enumerate() {
            let text = &t[c.start..c.end];
            let info = p.structure().map(|d| &d.chunks[i]);
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

/// The columns of a structural chunker's description, named as the keys of `Chunk.metadata`
/// (`metadata::STRUCTURE_KEYS`, then `context_shortened`): `title_path` (list of strings), `headings` (their
/// depths), `chunk_type`, `row_start`/`row_end`/`total_rows` (null outside a table), `language` (null outside a code
/// block, and for a block without one), `context_shortened`.
fn description_columns<O: OffsetSizeTrait>(
    prepared: &[Prepared],
    n: usize,
) -> Vec<(Field, ArrayRef)> {
    let mut title_path = ListBuilder::new(GenericStringBuilder::<O>::new());
    let mut headings = ListBuilder::new(Int64Builder::new());
    let mut chunk_type = GenericStringBuilder::<O>::with_capacity(n, n * 8);
    let mut rows: [Int64Builder; 3] = std::array::from_fn(|_| Int64Builder::with_capacity(n));
    let mut language = GenericStringBuilder::<O>::new();
    let mut shortened = BooleanBuilder::with_capacity(n);
    for p in prepared {
        for i in 0..p.count() {
            match p.structure().map(|d| (d, &d.chunks[i])) {
                Some((d, info)) => {
                    for title in d.title_path(info) {
                        title_path.values().append_value(title);
                    }
                    title_path.append(true);
                    for &h in &info.path {
                        headings
                            .values()
                            .append_value(i64::from(d.headings[h].depth));
                    }
                    headings.append(true);
                    chunk_type.append_value(info.kind.as_str());
                    for (k, b) in rows.iter_mut().enumerate() {
                        b.append_option(info.rows.map(|r| [r.0, r.1, r.2][k] as i64));
                    }
                    language.append_option(info.language.as_ref().and_then(|l| l.as_deref()));
                    shortened.append_value(info.context_shortened);
                }
                None => {
                    title_path.append(true);
                    headings.append(true);
                    chunk_type.append_value("");
                    for b in &mut rows {
                        b.append_null();
                    }
                    language.append_null();
                    shortened.append_value(false);
                }
            }
        }
    }
    let title_path: ArrayRef = Arc::new(title_path.finish());
    let headings: ArrayRef = Arc::new(headings.finish());
    let chunk_type: ArrayRef = Arc::new(chunk_type.finish());
    let [row_start, row_end, total_rows] = rows.map(|mut b| Arc::new(b.finish()) as ArrayRef);
    let language: ArrayRef = Arc::new(language.finish());
    let arrays = [
        title_path, headings, chunk_type, row_start, row_end, total_rows, language,
    ];
    let mut out: Vec<(Field, ArrayRef)> = metadata::STRUCTURE_KEYS
        .iter()
        .zip(arrays)
        .map(|(name, a)| {
            let nullable = matches!(*name, "row_start" | "row_end" | "total_rows" | "language");
            (Field::new(*name, a.data_type().clone(), nullable), a)
        })
        .collect();
    out.push((
        Field::new("context_shortened", DataType::Boolean, false),
        Arc::new(shortened.finish()),
    ));
    out
}

/// The code keys of chunks (`symbol_path`, `start_line`, `end_line`, `node_types`, `note`), row by row.
struct CodeKeys<O: OffsetSizeTrait> {
    symbol_path: ListBuilder<GenericStringBuilder<O>>,
    lines: [Int64Builder; 2],
    node_types: ListBuilder<GenericStringBuilder<O>>,
    note: GenericStringBuilder<O>,
}

impl<O: OffsetSizeTrait> CodeKeys<O> {
    fn new(n: usize) -> Self {
        Self {
            symbol_path: ListBuilder::new(GenericStringBuilder::<O>::new()),
            lines: std::array::from_fn(|_| Int64Builder::with_capacity(n)),
            node_types: ListBuilder::new(GenericStringBuilder::<O>::new()),
            note: GenericStringBuilder::<O>::new(),
        }
    }

    /// The keys of a chunk that is code (null ones for one that is not).
    fn push(&mut self, described: Option<(&Description, &SpanInfo)>) {
        let code = described.and_then(|(_, info)| info.code.as_ref());
        if let Some((d, info)) = described.filter(|_| code.is_some()) {
            for symbol in d.symbol_path(info) {
                self.symbol_path.values().append_value(symbol);
            }
        }
        self.symbol_path.append(code.is_some());
        self.lines[0].append_option(code.map(|c| c.lines.0 as i64));
        self.lines[1].append_option(code.map(|c| c.lines.1 as i64));
        for node in code.into_iter().flat_map(|c| &c.node_types) {
            self.node_types.values().append_value(node);
        }
        self.node_types.append(code.is_some());
        self.note.append_option(code.and_then(|c| c.note));
    }

    /// `(name, column)` of each key, in the order of `Chunk.metadata`.
    fn finish(mut self) -> [(&'static str, ArrayRef); 5] {
        let [start_line, end_line] = self.lines.map(|mut b| Arc::new(b.finish()) as ArrayRef);
        [
            ("symbol_path", Arc::new(self.symbol_path.finish())),
            ("start_line", start_line),
            ("end_line", end_line),
            ("node_types", Arc::new(self.node_types.finish())),
            ("note", Arc::new(self.note.finish())),
        ]
    }
}

/// The columns of a code chunk's description, named and ordered as the keys of its `Chunk.metadata`: `language`
/// (null for a text of no known language), `symbol_path` (list of strings), `start_line`, `end_line`, `node_types`
/// (list of strings), `chunk_type`, `note` (null unless the chunk was cut at lines), `context_shortened`. (Every
/// chunk of the code chunker has the code keys; their columns are nullable as the Markdown chunker's are.)
fn code_columns<O: OffsetSizeTrait>(prepared: &[Prepared], n: usize) -> Vec<(Field, ArrayRef)> {
    let mut language = GenericStringBuilder::<O>::new();
    let mut keys = CodeKeys::<O>::new(n);
    let mut chunk_type = GenericStringBuilder::<O>::with_capacity(n, n * 4);
    let mut shortened = BooleanBuilder::with_capacity(n);
    for p in prepared {
        for i in 0..p.count() {
            let described = p.structure().map(|d| (d, &d.chunks[i]));
            language.append_option(
                described
                    .and_then(|(_, info)| info.language.as_ref())
                    .and_then(|l| l.as_deref()),
            );
            keys.push(described);
            chunk_type.append_value(described.map_or("", |(_, info)| info.kind.as_str()));
            shortened.append_value(described.is_some_and(|(_, info)| info.context_shortened));
        }
    }
    let [symbol_path, start_line, end_line, node_types, note] = keys.finish();
    let columns = [
        (("language", Arc::new(language.finish()) as ArrayRef), true),
        (symbol_path, true),
        (start_line, true),
        (end_line, true),
        (node_types, true),
        (("chunk_type", Arc::new(chunk_type.finish())), false),
        (note, true),
        (("context_shortened", Arc::new(shortened.finish())), false),
    ];
    columns
        .into_iter()
        .map(|((name, a), nullable)| (Field::new(name, a.data_type().clone(), nullable), a))
        .collect()
}

/// The code keys of a Markdown chunker's chunks of a code block of a known language (see `CodeKeys`), each column
/// null where a chunk is not such code.
fn fence_columns<O: OffsetSizeTrait>(prepared: &[Prepared], n: usize) -> Vec<(Field, ArrayRef)> {
    let mut keys = CodeKeys::<O>::new(n);
    for p in prepared {
        for i in 0..p.count() {
            keys.push(p.structure().map(|d| (d, &d.chunks[i])));
        }
    }
    keys.finish()
        .into_iter()
        .map(|(name, a)| (Field::new(name, a.data_type().clone(), true), a))
        .collect()
}
