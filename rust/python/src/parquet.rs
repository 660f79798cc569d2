//! Parquet rows of chunks, written here for the command line (`chunkwise chunk --format parquet`), the way
//! `JsonLines` writes lines: the texts of a batch are split in parallel with the GIL released while the rows of
//! those already split are encoded (arrow-rs's `parquet`) and written to the file, a piece of rows at a time. Memory
//! holds the texts, their chunks' offsets, one piece and the row group being encoded: never a whole batch of rows,
//! and no Python object per chunk.
//!
//! The columns, their types and their nullability are those of the JSON lines' fields, with `metadata` flattened
//! into the columns of `STRUCTURE_COLUMNS` and `PAGE_COLUMNS` (see `chunkwise._writers`).

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::builder::{BooleanBuilder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{new_null_array, ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field as ArrowField, Schema, SchemaRef};
use chunkwise_core::{Chunk, Description, SpanInfo};
use parquet::arrow::ArrowWriter;
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::build::context_sep;
use crate::chunk::hash_id;
use crate::errors::{internal, wrong_type, ChunkingError, Panic};
use crate::jsonl::{each_document, parse_fields, write_piece, Changes, Field};
use crate::splitter::PySplitter;

/// Rows of a row group at most, and about how many bytes it holds encoded: the encoder holds a row group's pages
/// (and its column writers' buffers) until the row group is written, so its size is most of the memory writing
/// takes beyond the texts.
const ROW_GROUP_ROWS: usize = 8192;
const ROW_GROUP_BYTES: usize = 1 << 20;

/// The size of a data page, and the rows encoded at a time (after which the page size is checked): small pages
/// keep the encoder's buffers small.
const PAGE_BYTES: usize = 64 << 10;
const PAGE_ROWS: usize = 128;

/// Rows handed to the encoder at a time, at most, or about this many bytes of chunk text.
const PIECE_ROWS: usize = 1024;
const PIECE_BYTES: usize = 256 << 10;

/// The values `compression` takes (`--compression`), and the codec of each.
const CODECS: [&str; 6] = ["snappy", "zstd", "lz4", "gzip", "brotli", "none"];

fn codec(name: &str) -> Option<Compression> {
    Some(match name {
        "snappy" => Compression::SNAPPY,
        "zstd" => Compression::ZSTD(ZstdLevel::default()),
        // The codec pyarrow writes for "lz4" (the format's LZ4 with Hadoop's framing is deprecated).
        "lz4" => Compression::LZ4_RAW,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "brotli" => Compression::BROTLI(BrotliLevel::default()),
        "none" => Compression::UNCOMPRESSED,
        _ => return None,
    })
}

/// A column of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Text,
    Start,
    End,
    Source,
    Index,
    Id,
    PrevId,
    NextId,
    Level,
    Size,
    TokenCount,
    Context,
    EmbeddingText,
    TitlePath,
    Headings,
    ChunkType,
    RowStart,
    RowEnd,
    TotalRows,
    Language,
    ContextShortened,
    PageStart,
    PageEnd,
    Change,
}

/// The columns `metadata` stands for: a structural chunker's description (named as `chunk.metadata`'s keys), then a
/// paged document's pages.
const STRUCTURE: [Column; 8] = [
    Column::TitlePath,
    Column::Headings,
    Column::ChunkType,
    Column::RowStart,
    Column::RowEnd,
    Column::TotalRows,
    Column::Language,
    Column::ContextShortened,
];
const PAGES: [Column; 2] = [Column::PageStart, Column::PageEnd];

impl Column {
    fn name(self) -> &'static str {
        match self {
            Column::Text => "text",
            Column::Start => "start",
            Column::End => "end",
            Column::Source => "source",
            Column::Index => "index",
            Column::Id => "id",
            Column::PrevId => "prev_id",
            Column::NextId => "next_id",
            Column::Level => "level",
            Column::Size => "size",
            Column::TokenCount => "token_count",
            Column::Context => "context",
            Column::EmbeddingText => "embedding_text",
            Column::TitlePath => "title_path",
            Column::Headings => "headings",
            Column::ChunkType => "chunk_type",
            Column::RowStart => "row_start",
            Column::RowEnd => "row_end",
            Column::TotalRows => "total_rows",
            Column::Language => "language",
            Column::ContextShortened => "context_shortened",
            Column::PageStart => "page_start",
            Column::PageEnd => "page_end",
            Column::Change => "change",
        }
    }

    fn data_type(self) -> DataType {
        match self {
            Column::Start
            | Column::End
            | Column::Index
            | Column::Size
            | Column::TokenCount
            | Column::RowStart
            | Column::RowEnd
            | Column::TotalRows
            | Column::PageStart
            | Column::PageEnd => DataType::Int64,
            Column::TitlePath => DataType::new_list(DataType::Utf8, true),
            Column::Headings => DataType::new_list(DataType::Int64, true),
            Column::ContextShortened => DataType::Boolean,
            _ => DataType::Utf8,
        }
    }

    /// Whether the column can hold nulls: a chunk may have no such value (`token_count` in characters; the
    /// description's columns of a chunker that has none).
    fn nullable(self, tokens: bool) -> bool {
        match self {
            Column::TokenCount => !tokens,
            Column::PrevId
            | Column::NextId
            | Column::Change
            | Column::PageStart
            | Column::PageEnd => true,
            c => STRUCTURE.contains(&c),
        }
    }

    /// Few distinct values: dictionary-encoded.
    fn repeats(self) -> bool {
        matches!(
            self,
            Column::Source | Column::Level | Column::ChunkType | Column::Language | Column::Change
        )
    }

    /// Min/max statistics, where a reader can skip row groups by them: not of the texts and hashes, where they cost
    /// a good part of the writing and skip nothing.
    fn ordered(self) -> bool {
        !matches!(
            self,
            Column::Text
                | Column::EmbeddingText
                | Column::Context
                | Column::Id
                | Column::PrevId
                | Column::NextId
                | Column::TitlePath
                | Column::Headings
        )
    }
}

/// Where the encoder thread puts the bytes of the file, for the calling thread to write to the Python file (which
/// needs the GIL: the encoder thread never waits for it).
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<Vec<u8>>>>);

impl Sink {
    /// The bytes written since the last call, in the order written.
    fn take(&self) -> Vec<Vec<u8>> {
        std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

impl Write for Sink {
    /// Keeps `buf` as a block of its own: the encoder writes a page (or a buffer of small writes) at a time, and a
    /// block is freed as soon as it is written to the file, where one growing buffer would be reallocated.
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(buf.to_vec());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The thread that encodes the pieces of rows, in order, while the next ones are chunked (also across batches: the
/// last rows of a batch are encoded while the next batch is read and split).
struct Encoder {
    pieces: std::sync::mpsc::SyncSender<RecordBatch>,
    thread: std::thread::JoinHandle<Result<parquet::errors::Result<()>, Panic>>,
}

/// How a run writes its rows: the columns, in order, the encoder (until `close`), and a previous run's chunk ids
/// (for `change`), with what this run has written so far measured against them.
#[pyclass(module = "chunkwise._core", name = "ParquetRows", frozen)]
pub(crate) struct ParquetRows {
    columns: Vec<Column>,
    schema: SchemaRef,
    /// Until `close`.
    encoder: Mutex<Option<Encoder>>,
    /// The bytes encoded, not yet written to the file.
    sink: Sink,
    /// The file's `write` method.
    write: Py<PyAny>,
    changes: Changes,
}

impl std::fmt::Debug for ParquetRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRows")
            .field("columns", &self.columns)
            .finish_non_exhaustive()
    }
}

#[pymethods]
impl ParquetRows {
    /// Rows to `file` (a binary file: its `write` takes `bytes`). `fields`: the names of the fields of each row, in
    /// order (as `JsonLines` takes them; `metadata` stands for the description's columns when `structural`, then
    /// the pages); `previous`: the chunk ids of a previous run, which make `change` available; `tokens`: sizes are
    /// token counts (`token_count` holds no null); `compression`: the codec of the pages.
    #[new]
    #[pyo3(signature = (file, fields, previous=None, structural=false, tokens=false, compression="snappy"))]
    fn new(
        file: &Bound<'_, PyAny>,
        fields: &Bound<'_, PyAny>,
        previous: Option<&Bound<'_, PyAny>>,
        structural: bool,
        tokens: bool,
        compression: &str,
    ) -> PyResult<Self> {
        let changes = Changes::new(previous)?;
        let mut columns = Vec::new();
        for field in parse_fields(fields, &changes)? {
            match field {
                Field::Metadata => {
                    if structural {
                        columns.extend(STRUCTURE);
                    }
                    columns.extend(PAGES);
                }
                f => columns.push(column_of(f)),
            }
        }
        let codec = codec(compression).ok_or_else(|| {
            PyValueError::new_err(format!(
                "compression must be one of {}, got {compression:?}",
                CODECS.join(", ")
            ))
        })?;
        let write = file
            .getattr(pyo3::intern!(file.py(), "write"))
            .map_err(|_| wrong_type("file", "a binary file (with a write method)", file))?;
        let schema: SchemaRef = Arc::new(Schema::new(
            columns
                .iter()
                .map(|&c| ArrowField::new(c.name(), c.data_type(), c.nullable(tokens)))
                .collect::<Vec<_>>(),
        ));
        let mut props = WriterProperties::builder()
            .set_compression(codec)
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::None)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .set_data_page_size_limit(PAGE_BYTES)
            .set_write_batch_size(PAGE_ROWS);
        for &c in &columns {
            let path = ColumnPath::from(c.name());
            if c.repeats() {
                props = props.set_column_dictionary_enabled(path.clone(), true);
            }
            if c.ordered() {
                props = props.set_column_statistics_enabled(path, EnabledStatistics::Chunk);
            }
        }
        let sink = Sink::default();
        let mut writer = ArrowWriter::try_new(sink.clone(), schema.clone(), Some(props.build()))
            .map_err(|e| encoding_error(&e))?;
        let (pieces, queue) = std::sync::mpsc::sync_channel::<RecordBatch>(QUEUED_PIECES);
        let thread = std::thread::Builder::new()
            .name("chunkwise-parquet".into())
            .spawn(move || {
                crate::errors::guard(move || {
                    for piece in queue {
                        let flushed = writer.flushed_row_groups().len();
                        writer.write(&piece)?;
                        drop(piece);
                        if writer.flushed_row_groups().len() > flushed {
                            // The row group's pages and column writers are freed: give their memory back now,
                            // before the next row group allocates its own elsewhere in the arena.
                            crate::alloc::collect();
                        }
                    }
                    writer.close().map(drop)
                })
            })
            .map_err(|e| PyOSError::new_err(format!("cannot start the Parquet encoder: {e}")))?;
        let rows = Self {
            columns,
            schema,
            encoder: Mutex::new(Some(Encoder { pieces, thread })),
            sink,
            write: write.unbind(),
            changes,
        };
        rows.drain(file.py())?;
        Ok(rows)
    }

    /// Rows written so far whose chunk was not in the previous run.
    #[getter]
    fn added(&self) -> usize {
        self.changes.added()
    }

    /// Rows written so far whose chunk was in the previous run.
    #[getter]
    fn kept(&self) -> usize {
        self.changes.kept()
    }

    /// Whether this run has written a chunk with this id (known only when comparing with a previous run).
    fn written(&self, id: &str) -> bool {
        self.changes.written(id)
    }

    /// The column names, in order.
    #[getter]
    fn columns(&self) -> Vec<&'static str> {
        self.columns.iter().map(|c| c.name()).collect()
    }

    /// Writes the rows of every text of `texts` (each a `str`, or UTF-8 `bytes`; `sources` are their sources), as
    /// `JsonLines.write_batch` writes lines: split in parallel, a text's rows written only once it is split, one item
    /// per text (its number of chunks, or the exception it raised).
    #[pyo3(signature = (splitter, texts, sources, paged=false))]
    fn write_batch<'py>(
        &self,
        py: Python<'py>,
        splitter: &Bound<'py, PySplitter>,
        texts: &Bound<'py, PyAny>,
        sources: &Bound<'py, PyAny>,
        paged: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let splitter = splitter.get();
        let mut piece = self.piece(splitter, splitter.inner.is_structural());
        let results = each_document(splitter, texts, sources, paged, |text, source, prepared| {
            let structure = prepared.structure();
            for (i, c) in prepared.chunks().iter().enumerate() {
                let info = structure.map(|d| (d, &d.chunks[i]));
                piece.push(&text[c.start..c.end], source, i, c, info);
                if piece.is_full() {
                    self.encode(py, &mut piece)?;
                }
            }
            self.record(prepared.chunks());
            Ok(())
        })?;
        self.encode(py, &mut piece)?;
        Ok(results)
    }

    /// Writes the rows of a streamed document, read back from `spool` (a binary file positioned at its start: its
    /// `read` takes a size) where `ChunkStream.push_rows` and `finish_rows` left them; `source` is the document's.
    fn write_spooled(
        &self,
        py: Python<'_>,
        splitter: &Bound<'_, PySplitter>,
        spool: &Bound<'_, PyAny>,
        source: &str,
    ) -> PyResult<usize> {
        let read = spool
            .getattr(pyo3::intern!(py, "read"))
            .map_err(|_| wrong_type("spool", "a binary file (with a read method)", spool))?;
        let mut piece = self.piece(splitter.get(), false);
        let mut held: Vec<u8> = Vec::new();
        let mut n = 0;
        loop {
            let block = read.call1((SPOOL_READ,))?;
            let block = block
                .cast::<PyBytes>()
                .map_err(|_| wrong_type("spool.read()", "bytes", &block))?
                .as_bytes();
            held.extend_from_slice(block);
            let mut at = 0;
            let mut ids = Vec::new();
            while let Some((record, next)) = Record::read(&held[at..]) {
                let text = std::str::from_utf8(record.text).map_err(|_| spool_error())?;
                piece.push(text, source, record.index, &record.chunk, None);
                ids.push(record.chunk.id);
                at += next;
                n += 1;
                if piece.is_full() {
                    self.encode(py, &mut piece)?;
                }
            }
            self.record_ids(&ids);
            held.drain(..at);
            if block.is_empty() {
                break;
            }
        }
        if !held.is_empty() {
            return Err(spool_error());
        }
        self.encode(py, &mut piece)?;
        Ok(n)
    }

    /// Writes the last row group and the file's footer; the rows can no longer be added to.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let Some(encoder) = self.lock().take() else {
            return Ok(());
        };
        Self::finish(py, encoder)?;
        self.drain(py)
    }
}

/// Pieces waiting for the encoder at most (the calling thread waits for it beyond that).
const QUEUED_PIECES: usize = 1;

/// How much of a spool is read at a time.
const SPOOL_READ: usize = 1 << 20;

fn encoding_error(e: &parquet::errors::ParquetError) -> PyErr {
    ChunkingError::new_err(format!("writing the Parquet rows: {e}"))
}

fn spool_error() -> PyErr {
    ChunkingError::new_err("the spooled rows of a streamed document are cut short or damaged")
}

/// The output column of a field of the JSON lines (all but `metadata`, which stands for several).
fn column_of(field: Field) -> Column {
    match field {
        Field::Text => Column::Text,
        Field::Start => Column::Start,
        Field::End => Column::End,
        Field::Source => Column::Source,
        Field::Index => Column::Index,
        Field::Id => Column::Id,
        Field::PrevId => Column::PrevId,
        Field::NextId => Column::NextId,
        Field::Level => Column::Level,
        Field::Size => Column::Size,
        Field::TokenCount => Column::TokenCount,
        Field::Context => Column::Context,
        Field::EmbeddingText => Column::EmbeddingText,
        Field::Metadata | Field::Change => Column::Change,
    }
}

impl ParquetRows {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Encoder>> {
        self.encoder
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes the bytes encoded so far to the file.
    fn drain(&self, py: Python<'_>) -> PyResult<()> {
        let write = self.write.bind(py);
        for mut block in self.sink.take() {
            write_piece(write, &mut block)?;
        }
        Ok(())
    }

    /// Waits for the encoder to end (it ends once its queue is closed, or on an error): what it failed with.
    fn finish(py: Python<'_>, encoder: Encoder) -> PyResult<()> {
        let Encoder { pieces, thread } = encoder;
        drop(pieces);
        let done = py.detach(|| thread.join());
        match done {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(e))) => Err(encoding_error(&e)),
            Ok(Err(panic)) => Err(internal("writing the Parquet rows", &panic)),
            Err(_) => Err(internal(
                "writing the Parquet rows",
                &Panic("the encoder thread died".into()),
            )),
        }
    }

    fn piece<'a>(&'a self, splitter: &'a PySplitter, described: bool) -> Piece<'a> {
        Piece::new(self, splitter, described)
    }

    fn record(&self, chunks: &[Chunk]) {
        if self.changes.compared() {
            self.record_ids(&chunks.iter().map(|c| c.id).collect::<Vec<_>>());
        }
    }

    fn record_ids(&self, ids: &[u64]) {
        if self.changes.compared() {
            self.changes.record(ids);
        }
    }

    /// Hands the rows of `piece` to the encoder thread (waiting, with the GIL released, while it is a piece behind),
    /// empties it, and writes what the encoder has made of the pieces before.
    fn encode(&self, py: Python<'_>, piece: &mut Piece<'_>) -> PyResult<()> {
        if piece.rows > 0 {
            let batch = piece
                .finish()
                .map_err(|e| ChunkingError::new_err(format!("building the Parquet rows: {e}")))?;
            let mut guard = self.lock();
            let encoder = guard
                .as_ref()
                .ok_or_else(|| ChunkingError::new_err("the Parquet rows are closed"))?;
            let sent = py.detach(|| encoder.pieces.send(batch));
            if sent.is_err() {
                // The encoder has stopped: its error.
                if let Some(encoder) = guard.take() {
                    Self::finish(py, encoder)?;
                }
                return Err(ChunkingError::new_err("the Parquet encoder stopped"));
            }
        }
        self.drain(py)
    }
}

/// Rows gathered for the encoder: a builder per column the output can have (those it has not are left empty).
struct Piece<'a> {
    rows_of: &'a ParquetRows,
    splitter: &'a PySplitter,
    /// Whether the description's columns hold values (a structural chunker), else nulls.
    described: bool,
    rows: usize,
    text_bytes: usize,
    text: StringBuilder,
    /// The embedding texts, once one differs from its chunk's text (before that, the text column stands for them).
    embedding: Option<StringBuilder>,
    context: StringBuilder,
    source: StringBuilder,
    level: StringBuilder,
    ids: [StringBuilder; 3],
    ints: [Vec<i64>; 4],
    token_count: Int64Builder,
    title_path: ListBuilder<StringBuilder>,
    headings: ListBuilder<Int64Builder>,
    chunk_type: StringBuilder,
    table_rows: [Int64Builder; 3],
    language: StringBuilder,
    shortened: BooleanBuilder,
    pages: [Int64Builder; 2],
    change: StringBuilder,
}

impl<'a> Piece<'a> {
    /// An empty piece, whose builders are sized at its first row.
    fn new(rows_of: &'a ParquetRows, splitter: &'a PySplitter, described: bool) -> Self {
        Self::with_capacity(rows_of, splitter, described, 0, 0)
    }

    /// Builders for `rows` rows of `bytes` bytes of text: sized once, so that they do not grow (and leave freed
    /// buffers of every size behind) piece after piece.
    fn with_capacity(
        rows_of: &'a ParquetRows,
        splitter: &'a PySplitter,
        described: bool,
        rows: usize,
        bytes: usize,
    ) -> Self {
        let strings = |per_row: usize| StringBuilder::with_capacity(rows, rows * per_row);
        let ints = || Int64Builder::with_capacity(rows);
        let described_rows = if described { rows } else { 0 };
        Self {
            rows_of,
            splitter,
            described,
            rows: 0,
            text_bytes: 0,
            text: StringBuilder::with_capacity(rows, bytes),
            embedding: None,
            context: strings(0),
            source: strings(0),
            level: strings(10),
            ids: std::array::from_fn(|_| strings(16)),
            ints: std::array::from_fn(|_| Vec::with_capacity(rows)),
            token_count: ints(),
            title_path: ListBuilder::with_capacity(StringBuilder::new(), described_rows),
            headings: ListBuilder::with_capacity(Int64Builder::new(), described_rows),
            chunk_type: StringBuilder::with_capacity(described_rows, described_rows * 8),
            table_rows: std::array::from_fn(|_| Int64Builder::with_capacity(described_rows)),
            language: StringBuilder::new(),
            shortened: BooleanBuilder::with_capacity(described_rows),
            pages: std::array::from_fn(|_| ints()),
            change: strings(5),
        }
    }

    fn is_full(&self) -> bool {
        self.rows >= PIECE_ROWS || self.text_bytes >= PIECE_BYTES
    }

    /// Adds the row of chunk `c`, whose text is `text` and whose index in its document is `index`, with its
    /// description when its chunker gives one.
    fn push(
        &mut self,
        text: &str,
        source: &str,
        index: usize,
        c: &Chunk,
        info: Option<(&Description, &SpanInfo)>,
    ) {
        if self.rows == 0 {
            *self = Self::with_capacity(
                self.rows_of,
                self.splitter,
                self.described,
                PIECE_ROWS,
                PIECE_BYTES + PIECE_BYTES / 8,
            );
        }
        self.rows += 1;
        self.text_bytes += text.len();
        self.text.append_value(text);
        let context = info.map_or("", |(_, s)| s.context.as_str());
        self.context.append_value(context);
        match info.map(|(_, s)| s) {
            Some(s) if s.embedding.is_some() || !s.context.is_empty() => {
                let embedding = self.embedding_builder();
                match &s.embedding {
                    Some(e) => embedding.append_value(e),
                    None => {
                        use std::fmt::Write;
                        let _ = write!(embedding, "{}{}{text}", s.context, context_sep(s));
                        embedding.append_value("");
                    }
                }
            }
            _ => {
                if let Some(embedding) = &mut self.embedding {
                    embedding.append_value(text);
                }
            }
        }
        self.source.append_value(source);
        self.level
            .append_value(self.splitter.inner.level_name(c.level));
        for (b, id) in self.ids.iter_mut().zip([Some(c.id), c.prev_id, c.next_id]) {
            let hex = id.map(hash_id);
            b.append_option(hex.as_ref().and_then(|h| std::str::from_utf8(h).ok()));
        }
        for (v, x) in self
            .ints
            .iter_mut()
            .zip([c.char_start, c.char_end, index, c.size])
        {
            v.push(x as i64);
        }
        self.token_count
            .append_option(self.splitter.has_tokenizer().then_some(c.size as i64));
        if self.described {
            match info {
                Some((d, s)) => {
                    for title in d.title_path(s) {
                        self.title_path.values().append_value(title);
                    }
                    self.title_path.append(true);
                    for &h in &s.path {
                        self.headings
                            .values()
                            .append_value(i64::from(d.headings[h].depth));
                    }
                    self.headings.append(true);
                    self.chunk_type.append_value(s.kind.as_str());
                    for (k, b) in self.table_rows.iter_mut().enumerate() {
                        b.append_option(s.rows.map(|r| [r.0, r.1, r.2][k] as i64));
                    }
                    self.language
                        .append_option(s.language.as_ref().and_then(|l| l.as_deref()));
                    self.shortened.append_value(s.context_shortened);
                }
                None => {
                    self.title_path.append(true);
                    self.headings.append(true);
                    self.chunk_type.append_value("");
                    for b in &mut self.table_rows {
                        b.append_null();
                    }
                    self.language.append_null();
                    self.shortened.append_value(false);
                }
            }
        }
        self.pages[0].append_option(c.pages.map(|(first, _)| first as i64));
        self.pages[1].append_option(c.pages.map(|(_, last)| last as i64));
        if self.rows_of.changes.compared() {
            let kept = self.rows_of.changes.kept_id(c.id);
            self.change
                .append_value(if kept { "kept" } else { "added" });
        }
    }

    /// The embedding texts' builder, made (with the texts of the rows before, which were their own embedding
    /// texts) when first needed.
    fn embedding_builder(&mut self) -> &mut StringBuilder {
        let text = &self.text;
        let rows = self.rows - 1;
        self.embedding.get_or_insert_with(|| {
            let mut b = StringBuilder::with_capacity(rows + 1, text.values_slice().len());
            let (offsets, values) = (text.offsets_slice(), text.values_slice());
            for k in 0..rows {
                let (from, to) = (offsets[k] as usize, offsets[k + 1] as usize);
                b.append_value(std::str::from_utf8(&values[from..to]).unwrap_or_default());
            }
            b
        })
    }

    /// The rows gathered as a record batch of the output's schema; the builders are left empty.
    fn finish(&mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let n = std::mem::take(&mut self.rows);
        self.text_bytes = 0;
        let text: ArrayRef = Arc::new(self.text.finish());
        let embedding: ArrayRef = match self.embedding.take() {
            Some(mut b) => Arc::new(b.finish()),
            None => text.clone(),
        };
        let [id, prev_id, next_id] = self
            .ids
            .each_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef);
        let [start, end, index, size] = self
            .ints
            .each_mut()
            .map(|v| Arc::new(Int64Array::from(std::mem::take(v))) as ArrayRef);
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.rows_of.columns.len());
        let described = self.described;
        let description = |b: ArrayRef, c: Column| {
            if described {
                b
            } else {
                new_null_array(&c.data_type(), n)
            }
        };
        // Every builder is emptied, whether its column is written or not.
        let mut title_path: Option<ArrayRef> = Some(Arc::new(self.title_path.finish()));
        let mut headings: Option<ArrayRef> = Some(Arc::new(self.headings.finish()));
        let mut chunk_type: Option<ArrayRef> = Some(Arc::new(self.chunk_type.finish()));
        let mut table_rows = self
            .table_rows
            .each_mut()
            .map(|b| Some(Arc::new(b.finish()) as ArrayRef));
        let mut language: Option<ArrayRef> = Some(Arc::new(self.language.finish()));
        let mut shortened: Option<ArrayRef> = Some(Arc::new(self.shortened.finish()));
        let mut pages = self
            .pages
            .each_mut()
            .map(|b| Some(Arc::new(b.finish()) as ArrayRef));
        let context: ArrayRef = Arc::new(self.context.finish());
        let source: ArrayRef = Arc::new(self.source.finish());
        let level: ArrayRef = Arc::new(self.level.finish());
        let token_count: ArrayRef = Arc::new(self.token_count.finish());
        let change: ArrayRef = Arc::new(self.change.finish());
        for &c in &self.rows_of.columns {
            let take = |a: &mut Option<ArrayRef>| {
                a.take()
                    .unwrap_or_else(|| new_null_array(&c.data_type(), n))
            };
            arrays.push(match c {
                Column::Text => text.clone(),
                Column::Start => start.clone(),
                Column::End => end.clone(),
                Column::Source => source.clone(),
                Column::Index => index.clone(),
                Column::Id => id.clone(),
                Column::PrevId => prev_id.clone(),
                Column::NextId => next_id.clone(),
                Column::Level => level.clone(),
                Column::Size => size.clone(),
                Column::TokenCount => token_count.clone(),
                Column::Context => context.clone(),
                Column::EmbeddingText => embedding.clone(),
                Column::TitlePath => description(take(&mut title_path), c),
                Column::Headings => description(take(&mut headings), c),
                Column::ChunkType => description(take(&mut chunk_type), c),
                Column::RowStart => description(take(&mut table_rows[0]), c),
                Column::RowEnd => description(take(&mut table_rows[1]), c),
                Column::TotalRows => description(take(&mut table_rows[2]), c),
                Column::Language => description(take(&mut language), c),
                Column::ContextShortened => description(take(&mut shortened), c),
                Column::PageStart => take(&mut pages[0]),
                Column::PageEnd => take(&mut pages[1]),
                Column::Change => change.clone(),
            });
        }
        RecordBatch::try_new(self.rows_of.schema.clone(), arrays)
    }
}

/// A streamed chunk as spooled (see [`spool`]): its row's values, and its text.
struct Record<'b> {
    index: usize,
    chunk: Chunk,
    text: &'b [u8],
}

/// The fixed part of a spooled record: ten little-endian u64 (index, char start and end, size, id, previous and
/// next id, first and last page, text length), the level and the flags of the optional values.
const RECORD_HEAD: usize = 10 * 8 + 2;
const HAS_PREV: u8 = 1;
const HAS_NEXT: u8 = 2;
const HAS_PAGES: u8 = 4;

/// Appends the records of `chunks` (the first of which has index `first` in its document; their texts by
/// `text_of`) to `out`, for [`ParquetRows::write_spooled`] to read back once the whole document is chunked.
pub(crate) fn spool<'t>(
    out: &mut Vec<u8>,
    chunks: &[Chunk],
    first: usize,
    text_of: impl Fn(&Chunk) -> &'t str,
) {
    for (k, c) in chunks.iter().enumerate() {
        let text = text_of(c);
        let (page_first, page_last) = c.pages.unwrap_or_default();
        let values = [
            (first + k) as u64,
            c.char_start as u64,
            c.char_end as u64,
            c.size as u64,
            c.id,
            c.prev_id.unwrap_or_default(),
            c.next_id.unwrap_or_default(),
            page_first as u64,
            page_last as u64,
            text.len() as u64,
        ];
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let mut flags = 0;
        for (has, flag) in [
            (c.prev_id.is_some(), HAS_PREV),
            (c.next_id.is_some(), HAS_NEXT),
            (c.pages.is_some(), HAS_PAGES),
        ] {
            if has {
                flags |= flag;
            }
        }
        out.extend_from_slice(&[c.level.0, flags]);
        out.extend_from_slice(text.as_bytes());
    }
}

impl<'b> Record<'b> {
    /// The first record of `data` and the bytes it takes, or `None` when `data` does not hold a whole one.
    fn read(data: &'b [u8]) -> Option<(Self, usize)> {
        let head = data.get(..RECORD_HEAD)?;
        let value = |k: usize| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&head[8 * k..8 * k + 8]);
            u64::from_le_bytes(bytes)
        };
        let (level, flags) = (head[RECORD_HEAD - 2], head[RECORD_HEAD - 1]);
        let len = usize::try_from(value(9)).ok()?;
        let text = data.get(RECORD_HEAD..RECORD_HEAD.checked_add(len)?)?;
        let chunk = Chunk {
            start: 0,
            end: len,
            char_start: value(1) as usize,
            char_end: value(2) as usize,
            size: value(3) as usize,
            level: chunkwise_core::Level(level),
            id: value(4),
            prev_id: (flags & HAS_PREV != 0).then(|| value(5)),
            next_id: (flags & HAS_NEXT != 0).then(|| value(6)),
            pages: (flags & HAS_PAGES != 0).then(|| (value(7) as usize, value(8) as usize)),
        };
        Some((
            Self {
                index: value(0) as usize,
                chunk,
                text,
            },
            RECORD_HEAD + len,
        ))
    }
}
