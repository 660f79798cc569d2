//! Parquet rows of chunks, written here for the command line (`chunkwise chunk --format parquet`), the way
//! `JsonLines` writes lines: the texts of a batch are split in parallel with the GIL released while the rows of
//! those already split are encoded (arrow-rs's `parquet`) and written to the file, a piece of rows at a time. Memory
//! holds the texts, their chunks' offsets, one piece and the row group being encoded: never a whole batch of rows,
//! and no Python object per chunk.
//!
//! The columns, their types and their nullability are those of the JSON lines' fields, with `metadata` flattened
//! into the columns of `STRUCTURE_COLUMNS`, `CODE_COLUMNS`, `STRATEGY_COLUMNS` and `PAGE_COLUMNS` (see
//! `chunkwise._writers`).

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::builder::{BooleanBuilder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{new_null_array, ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field as ArrowField, Schema, SchemaRef};
use bytes::Bytes;
use chunkwise_core::{Chunk, Description, SpanInfo};
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::column::page_store::{
    InMemoryPageStore, PageKey, PageStore, PageStoreArgs, PageStoreFactory,
};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnDescPtr, ColumnPath};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::build::context_sep;
use crate::chunk::hash_id;
use crate::errors::{internal, wrong_type, ChunkingError, Panic};
use crate::jsonl::{
    each_document, parse_fields, strategy_arg, write_piece, Changes, Document, Field,
};
use crate::splitter::PySplitter;

/// Rows of a row group at most, and about how many bytes it holds encoded: the encoder holds a row group's pages
/// (and its column writers' buffers) until the row group is written, so its size is most of the memory writing
/// takes beyond the texts.
const ROW_GROUP_ROWS: usize = 8192;
const ROW_GROUP_BYTES: usize = 768 << 10;

/// The size of a data page, and the rows encoded at a time (after which the page size is checked): small pages
/// keep the encoder's buffers small.
const PAGE_BYTES: usize = 64 << 10;
const PAGE_ROWS: usize = 128;

/// Rows handed to the encoder at a time, at most, or about this many bytes of chunk text.
const PIECE_ROWS: usize = 1024;
const PIECE_BYTES: usize = 64 << 10;

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
    /// A field of the JSON lines, as its own column (all but `metadata`, which stands for several).
    Field(Field),
    TitlePath,
    Headings,
    ChunkType,
    RowStart,
    RowEnd,
    TotalRows,
    Language,
    ContextShortened,
    SymbolPath,
    StartLine,
    EndLine,
    NodeTypes,
    Note,
    Strategy,
    StrategyReason,
    PageStart,
    PageEnd,
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
/// A code chunk's description, beyond the structure's columns (`code`).
const CODE: [Column; 5] = [
    Column::SymbolPath,
    Column::StartLine,
    Column::EndLine,
    Column::NodeTypes,
    Column::Note,
];
/// The strategy that chose a document's chunker, and why (`strategies`).
const STRATEGY: [Column; 2] = [Column::Strategy, Column::StrategyReason];
const PAGES: [Column; 2] = [Column::PageStart, Column::PageEnd];

impl Column {
    fn name(self) -> &'static str {
        match self {
            Column::Field(field) => field.name(),
            Column::TitlePath => "title_path",
            Column::Headings => "headings",
            Column::ChunkType => "chunk_type",
            Column::RowStart => "row_start",
            Column::RowEnd => "row_end",
            Column::TotalRows => "total_rows",
            Column::Language => "language",
            Column::ContextShortened => "context_shortened",
            Column::SymbolPath => "symbol_path",
            Column::StartLine => "start_line",
            Column::EndLine => "end_line",
            Column::NodeTypes => "node_types",
            Column::Note => "note",
            Column::Strategy => "strategy",
            Column::StrategyReason => "strategy_reason",
            Column::PageStart => "page_start",
            Column::PageEnd => "page_end",
        }
    }

    fn data_type(self) -> DataType {
        match self {
            Column::Field(Field::Start)
            | Column::Field(Field::End)
            | Column::Field(Field::Index)
            | Column::Field(Field::Size)
            | Column::Field(Field::TokenCount)
            | Column::RowStart
            | Column::RowEnd
            | Column::TotalRows
            | Column::StartLine
            | Column::EndLine
            | Column::PageStart
            | Column::PageEnd => DataType::Int64,
            Column::TitlePath | Column::SymbolPath | Column::NodeTypes => {
                DataType::new_list(DataType::Utf8, true)
            }
            Column::Headings => DataType::new_list(DataType::Int64, true),
            Column::ContextShortened => DataType::Boolean,
            _ => DataType::Utf8,
        }
    }

    /// Whether the column can hold nulls: a chunk may have no such value (`token_count` in characters; the
    /// description's columns of a chunker that has none, the code columns of a chunk that is not code, the strategy
    /// of a document no strategy was chosen for).
    fn nullable(self, tokens: bool) -> bool {
        match self {
            Column::Field(Field::TokenCount) => !tokens,
            Column::Field(Field::PrevId)
            | Column::Field(Field::NextId)
            | Column::Field(Field::Change)
            | Column::PageStart
            | Column::PageEnd => true,
            c => STRUCTURE.contains(&c) || CODE.contains(&c) || STRATEGY.contains(&c),
        }
    }

    /// Few distinct values: dictionary-encoded.
    fn repeats(self) -> bool {
        matches!(
            self,
            Column::Field(Field::Source)
                | Column::Field(Field::Level)
                | Column::ChunkType
                | Column::Language
                | Column::Note
                | Column::Strategy
                | Column::StrategyReason
                | Column::Field(Field::Change)
        )
    }

    /// Long texts: most of the encoding's work (compressing them), each column encoded on a thread of its own.
    fn heavy(self) -> bool {
        matches!(
            self,
            Column::Field(Field::Text)
                | Column::Field(Field::EmbeddingText)
                | Column::Field(Field::Context)
        )
    }

    /// Hex digits of hashes: an LZ codec without entropy coding (snappy, lz4) saves a seventh of them, for about
    /// a fifth of the CPU the compression of the text costs; stored uncompressed under those codecs.
    fn hashes(self) -> bool {
        matches!(
            self,
            Column::Field(Field::Id) | Column::Field(Field::PrevId) | Column::Field(Field::NextId)
        )
    }

    /// Min/max statistics, where a reader can skip row groups by them: not of the texts and hashes, where they cost
    /// a good part of the writing and skip nothing.
    fn ordered(self) -> bool {
        !matches!(
            self,
            Column::Field(Field::Text)
                | Column::Field(Field::EmbeddingText)
                | Column::Field(Field::Context)
                | Column::Field(Field::Id)
                | Column::Field(Field::PrevId)
                | Column::Field(Field::NextId)
                | Column::TitlePath
                | Column::Headings
                | Column::SymbolPath
                | Column::NodeTypes
                | Column::StrategyReason
        )
    }
}

/// Where the encoder thread writes the file.
enum Out {
    /// A file object with no descriptor of its own (`io.BytesIO`, a wrapper): the bytes are kept for the calling
    /// thread to write with its `write` (which needs the GIL: the encoder thread never waits for it).
    Sink(Sink),
    /// A plain file (`open(..., "wb")`, `sys.stdout.buffer`): a duplicate of its descriptor, written straight from
    /// the encoder thread. No copy of the bytes waits in memory for the calling thread, which spends no time on them.
    #[cfg_attr(not(unix), allow(dead_code))]
    File(std::fs::File),
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::Sink(sink) => sink.write(buf),
            Out::File(file) => file.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::Sink(sink) => sink.flush(),
            Out::File(file) => file.flush(),
        }
    }
}

/// A duplicate of the descriptor of `file` when `file` is a plain file: an `io.FileIO`, or an `io.BufferedWriter`
/// over one (flushed here), whose bytes go to their descriptor unchanged. Any other object (one that compresses or
/// otherwise transforms what it is given could still have a `fileno`) is written through its `write`.
#[cfg(unix)]
#[allow(unsafe_code)]
fn descriptor(file: &Bound<'_, PyAny>) -> PyResult<Option<std::fs::File>> {
    let io = file.py().import(pyo3::intern!(file.py(), "io"))?;
    let file_io = io.getattr(pyo3::intern!(file.py(), "FileIO"))?;
    let buffered = io.getattr(pyo3::intern!(file.py(), "BufferedWriter"))?;
    let plain = file.get_type().is(&file_io)
        || (file.get_type().is(&buffered)
            && file
                .getattr(pyo3::intern!(file.py(), "raw"))?
                .get_type()
                .is(&file_io));
    if !plain {
        return Ok(None);
    }
    file.call_method0(pyo3::intern!(file.py(), "flush"))?;
    let fd: std::os::fd::RawFd = file
        .call_method0(pyo3::intern!(file.py(), "fileno"))?
        .extract()?;
    // SAFETY: `fd` is the descriptor of `file`, open (its `fileno` just returned it) and kept open while this
    // borrow lasts (the GIL is held and `file` is alive); the duplicate owns a descriptor of its own.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    Ok(Some(std::fs::File::from(fd.try_clone_to_owned()?)))
}

#[cfg(not(unix))]
fn descriptor(_file: &Bound<'_, PyAny>) -> PyResult<Option<std::fs::File>> {
    Ok(None)
}

/// Where the encoder thread puts the bytes of a file written through its `write` method, for the calling thread to
/// write (see [`Out::Sink`]).
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
    pieces: std::sync::mpsc::SyncSender<Rows>,
    thread: std::thread::JoinHandle<Result<parquet::errors::Result<()>, Panic>>,
}

/// A piece of rows for the encoder, and whether its `embedding_text` column is its `text` column (no row of it has
/// an embedding text of its own).
struct Rows {
    batch: RecordBatch,
    embedding_is_text: bool,
}

/// The encoder thread's side of the file: the column writers of the row group being filled, each column encoded
/// apart (the long texts in parallel), and the row group appended to the file column chunk by column chunk once full.
///
/// A row group whose every row's embedding text is its text does not encode the `embedding_text` column: its column
/// chunk is a copy of the `text` column's pages (the same values encode to the same bytes), which halves the
/// compression of the usual run. A piece with embedding texts of their own ends such a row group.
struct Encoding {
    file: SerializedFileWriter<Out>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// Per column: whether it is one of the long texts.
    heavy: Vec<bool>,
    /// The threads that encode the columns beside the encoder thread (none when one column holds all the texts).
    pool: Option<rayon::ThreadPool>,
    /// Whether the pool has encoded since its threads last gave their memory back.
    pooled: bool,
    /// The `text` and `embedding_text` columns, when both are written: their index and the latter's descriptor.
    twins: Option<(usize, usize, ColumnDescPtr)>,
    /// The encoded pages of the open row group's `text` column, in the order of the file.
    text_pages: Arc<Mutex<Vec<Bytes>>>,
    group: Option<RowGroup>,
}

/// The row group being filled: a writer per column.
struct RowGroup {
    writers: Vec<ArrowColumnWriter>,
    rows: usize,
    /// Its `embedding_text` column chunk is to be the `text` column chunk's copy (and its writer is not written to).
    shared: bool,
}

impl Encoding {
    fn new(
        out: Out,
        schema: SchemaRef,
        props: WriterProperties,
        columns: &[Column],
    ) -> parquet::errors::Result<Self> {
        // The ArrowWriter's only part here is the file's start: the schema, with the Arrow schema in the key-value
        // metadata (what pyarrow reads the column types by).
        let (file, factory) =
            ArrowWriter::try_new(out, schema.clone(), Some(props))?.into_serialized_writer()?;
        let text_pages = Arc::new(Mutex::new(Vec::new()));
        let position = |c| columns.iter().position(|&x| x == c);
        let twins = match (
            position(Column::Field(Field::Text)),
            position(Column::Field(Field::EmbeddingText)),
        ) {
            (Some(text), Some(embedding)) => {
                Some((text, embedding, file.schema_descr().column(embedding)))
            }
            _ => None,
        };
        let factory = match &twins {
            Some((text, ..)) => factory.with_page_store_factory(Arc::new(PageStores {
                text: *text,
                text_pages: text_pages.clone(),
            })),
            None => factory,
        };
        let heavy: Vec<bool> = columns.iter().map(|c| c.heavy()).collect();
        let threads = heavy.iter().filter(|&&h| h).count();
        let pool = if threads > 1 {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|k| format!("chunkwise-parquet-{k}"))
                .build()
                .ok()
        } else {
            None
        };
        Ok(Self {
            file,
            factory,
            schema,
            heavy,
            pool,
            pooled: false,
            twins,
            text_pages,
            group: None,
        })
    }

    /// Adds the rows of `batch` to the row group being filled (`embedding_is_text`: as [`Rows`] says), writing
    /// each row group once it is full.
    fn write(
        &mut self,
        batch: &RecordBatch,
        embedding_is_text: bool,
    ) -> parquet::errors::Result<()> {
        let shared = embedding_is_text && self.twins.is_some();
        let mut at = 0;
        while at < batch.num_rows() {
            if self.group.as_ref().is_some_and(|g| g.shared && !shared) {
                self.flush()?;
            }
            let group = match &mut self.group {
                Some(group) => group,
                empty => {
                    lock(&self.text_pages).clear();
                    empty.insert(RowGroup {
                        writers: self
                            .factory
                            .create_column_writers(self.file.flushed_row_groups().len())?,
                        rows: 0,
                        shared,
                    })
                }
            };
            let n = (batch.num_rows() - at).min(ROW_GROUP_ROWS - group.rows);
            let part = batch.slice(at, n);
            let mut leaves = Vec::with_capacity(group.writers.len());
            for (field, column) in self.schema.fields().iter().zip(part.columns()) {
                leaves.extend(compute_leaves(field, column)?);
            }
            let skip = group
                .shared
                .then(|| self.twins.as_ref().map(|t| t.1))
                .flatten();
            let work: Vec<_> = group
                .writers
                .iter_mut()
                .zip(&leaves)
                .enumerate()
                .filter(|&(k, _)| Some(k) != skip)
                .collect();
            // A shared row group's pieces have one long text column (no context either): the pool's threads
            // would only add their waking up.
            let pool = self.pool.as_ref().filter(|_| !group.shared);
            self.pooled |= pool.is_some();
            on_columns(pool, &self.heavy, work, |(w, leaf)| w.write(leaf))
                .into_iter()
                .collect::<parquet::errors::Result<()>>()?;
            group.rows += n;
            at += n;
            // The size of the row group in the file: a shared column chunk counts twice.
            let mut bytes: usize = group
                .writers
                .iter()
                .map(|w| w.get_estimated_total_bytes())
                .sum();
            if let (true, Some(&(text, ..))) = (group.shared, self.twins.as_ref()) {
                bytes += group.writers[text].get_estimated_total_bytes();
            }
            if group.rows >= ROW_GROUP_ROWS || bytes >= ROW_GROUP_BYTES {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Writes the row group being filled, if any, to the file.
    fn flush(&mut self) -> parquet::errors::Result<()> {
        let Some(group) = self.group.take() else {
            return Ok(());
        };
        let twin = self.twins.as_ref().filter(|_| group.shared);
        let work: Vec<_> = group
            .writers
            .into_iter()
            .enumerate()
            .filter(|&(k, _)| Some(k) != twin.map(|t| t.1))
            .collect();
        let mut chunks: Vec<Option<ArrowColumnChunk>> = Vec::with_capacity(work.len() + 1);
        self.pooled |= twin.is_none() && self.pool.is_some();
        for chunk in on_columns(
            self.pool.as_ref().filter(|_| twin.is_none()),
            &self.heavy,
            work,
            ArrowColumnWriter::close,
        ) {
            chunks.push(Some(chunk?));
        }
        let mut copy = match twin {
            Some((text, embedding, descr)) => {
                chunks.insert(*embedding, None);
                let close = chunks[*text]
                    .as_ref()
                    .map(|c| c.close().clone())
                    .ok_or_else(missing)?;
                let pages = Pages(std::mem::take(&mut *lock(&self.text_pages)));
                Some((pages, renamed(close, descr.clone())?))
            }
            None => None,
        };
        let mut row_group = self.file.next_row_group()?;
        for chunk in chunks {
            match (chunk, copy.take()) {
                (Some(chunk), kept) => {
                    chunk.append_to_row_group(&mut row_group)?;
                    copy = kept;
                }
                (None, Some((pages, close))) => row_group.append_column(&pages, close)?,
                (None, None) => return Err(missing()),
            }
        }
        row_group.close()?;
        lock(&self.text_pages).clear();
        // The row group's pages and column writers are freed: give their memory back now, before the next row
        // group allocates its own elsewhere in the arena.
        self.collect();
        Ok(())
    }

    /// Gives the memory freed back to the OS: this thread's, and the pool's threads' (whose pages this thread
    /// freed).
    fn collect(&mut self) {
        crate::alloc::collect();
        if let (Some(pool), true) = (&self.pool, std::mem::take(&mut self.pooled)) {
            pool.broadcast(|_| crate::alloc::collect());
        }
    }

    /// Writes the last row group and the file's footer.
    fn close(mut self) -> parquet::errors::Result<()> {
        self.flush()?;
        self.file.close().map(drop)
    }
}

fn missing() -> parquet::errors::ParquetError {
    parquet::errors::ParquetError::General("a column chunk of the row group is missing".into())
}

/// The pages of a column chunk, in the order of the file, read as one run of bytes (where the encoded chunk is
/// appended from).
struct Pages(Vec<Bytes>);

/// [`Pages`] read from a point on.
struct PagesRead {
    pages: std::vec::IntoIter<Bytes>,
    page: Bytes,
}

impl std::io::Read for PagesRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.page.is_empty() {
            match self.pages.next() {
                Some(page) => self.page = page,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.page.len());
        buf[..n].copy_from_slice(&self.page.split_to(n));
        Ok(n)
    }
}

impl parquet::file::reader::Length for Pages {
    fn len(&self) -> u64 {
        self.0.iter().map(|p| p.len() as u64).sum()
    }
}

impl parquet::file::reader::ChunkReader for Pages {
    type T = PagesRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<PagesRead> {
        let mut read = PagesRead {
            pages: self.0.clone().into_iter(),
            page: Bytes::new(),
        };
        std::io::copy(
            &mut std::io::Read::take(&mut read, start),
            &mut std::io::sink(),
        )?;
        Ok(read)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let mut bytes = vec![0; length];
        std::io::Read::read_exact(&mut self.get_read(start)?, &mut bytes)?;
        Ok(bytes.into())
    }
}

/// `close` (a column chunk's, as encoded) for the same pages as the column chunk of `descr`.
fn renamed(
    close: ColumnCloseResult,
    descr: ColumnDescPtr,
) -> parquet::errors::Result<ColumnCloseResult> {
    let m = close.metadata;
    let mut b = ColumnChunkMetaData::builder(descr)
        .set_encodings_mask(*m.encodings_mask())
        .set_num_values(m.num_values())
        .set_compression(m.compression())
        .set_total_compressed_size(m.compressed_size())
        .set_total_uncompressed_size(m.uncompressed_size())
        .set_data_page_offset(m.data_page_offset())
        .set_dictionary_page_offset(m.dictionary_page_offset())
        .set_index_page_offset(m.index_page_offset())
        .set_unencoded_byte_array_data_bytes(m.unencoded_byte_array_data_bytes())
        .set_repetition_level_histogram(m.repetition_level_histogram().cloned())
        .set_definition_level_histogram(m.definition_level_histogram().cloned());
    if let Some(s) = m.statistics() {
        b = b.set_statistics(s.clone());
    }
    if let Some(s) = m.page_encoding_stats() {
        b = b.set_page_encoding_stats(s.clone());
    }
    if let Some(s) = m.page_encoding_stats_mask() {
        b = b.set_page_encoding_stats_mask(*s);
    }
    Ok(ColumnCloseResult {
        metadata: b.build()?,
        ..close
    })
}

/// Runs `work` on the columns of `items` (each with its index): the first long text's on this thread, every other
/// long text's as a task of `pool` of its own, the rest together as one more task; the results in the order given.
fn on_columns<T: Send, U: Send>(
    pool: Option<&rayon::ThreadPool>,
    heavy: &[bool],
    items: Vec<(usize, T)>,
    work: impl Fn(T) -> U + Sync,
) -> Vec<U> {
    let Some(pool) = pool else {
        return items.into_iter().map(|(_, t)| work(t)).collect();
    };
    let mut out: Vec<Option<U>> = items.iter().map(|_| None).collect();
    let work = &work;
    pool.in_place_scope(|scope| {
        let mut here = None;
        let mut rest = Vec::new();
        for ((k, item), slot) in items.into_iter().zip(out.iter_mut()) {
            if !heavy[k] {
                rest.push((item, slot));
            } else if here.is_none() {
                here = Some((item, slot));
            } else {
                scope.spawn(move |_| *slot = Some(work(item)));
            }
        }
        scope.spawn(move |_| {
            for (item, slot) in rest {
                *slot = Some(work(item));
            }
        });
        if let Some((item, slot)) = here {
            *slot = Some(work(item));
        }
    });
    out.into_iter().flatten().collect()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The page stores of a row group's column chunks: parquet's own (pages in memory until the row group is written),
/// the `text` column's also keeping its pages in `text_pages`.
#[derive(Debug)]
struct PageStores {
    text: usize,
    text_pages: Arc<Mutex<Vec<Bytes>>>,
}

impl PageStoreFactory for PageStores {
    fn create(&self, args: &PageStoreArgs<'_>) -> parquet::errors::Result<Box<dyn PageStore>> {
        let store = InMemoryPageStore::default();
        Ok(if args.column_index() == self.text {
            Box::new(TextPages {
                store,
                pages: self.text_pages.clone(),
            })
        } else {
            Box::new(store)
        })
    }
}

/// Parquet's store, the pages put also kept in `pages` (the pages of a column without a dictionary are put in the
/// order of the file). A page's bytes are shared, not copied.
struct TextPages {
    store: InMemoryPageStore,
    pages: Arc<Mutex<Vec<Bytes>>>,
}

impl PageStore for TextPages {
    fn put(&mut self, value: Bytes) -> parquet::errors::Result<PageKey> {
        lock(&self.pages).push(value.clone());
        self.store.put(value)
    }

    fn take(&mut self, key: PageKey) -> parquet::errors::Result<Bytes> {
        self.store.take(key)
    }

    fn memory_size(&self) -> usize {
        self.store.memory_size()
    }
}

/// How a run writes its rows: the columns, in order, the encoder (until `close`), and a previous run's chunk ids
/// (for `change`), with what this run has written so far measured against them.
#[pyclass(module = "chunkwise._core", name = "ParquetRows", frozen)]
pub(crate) struct ParquetRows {
    columns: Vec<Column>,
    schema: SchemaRef,
    /// Until `close`.
    encoder: Mutex<Option<Encoder>>,
    /// The bytes encoded, not yet written to the file, when the file is written through its `write` method.
    sink: Option<Sink>,
    /// The file's `write` method.
    write: Py<PyAny>,
    changes: Py<Changes>,
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
    /// token counts (`token_count` holds no null); `compression`: the codec of the pages. `metadata` also stands
    /// for the code columns (symbol path, lines, node types, note) with `code`, and for the strategy that chose each
    /// document's chunker and why with `strategies` (see `write_batch`).
    #[new]
    #[pyo3(signature = (file, fields, previous=None, structural=false, tokens=false, compression="snappy",
                        code=false, strategies=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        file: &Bound<'_, PyAny>,
        fields: &Bound<'_, PyAny>,
        previous: Option<&Bound<'_, PyAny>>,
        structural: bool,
        tokens: bool,
        compression: &str,
        code: bool,
        strategies: bool,
    ) -> PyResult<Self> {
        let changes = Changes::new(previous)?;
        let mut columns = Vec::new();
        for field in parse_fields(fields, &changes)? {
            match field {
                Field::Metadata => {
                    if strategies {
                        columns.extend(STRATEGY);
                    }
                    if structural || code {
                        columns.extend(STRUCTURE);
                    }
                    if code {
                        columns.extend(CODE);
                    }
                    columns.extend(PAGES);
                }
                f => columns.push(Column::Field(f)),
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
                props = props.set_column_statistics_enabled(path.clone(), EnabledStatistics::Chunk);
            }
            if c.hashes() && matches!(codec, Compression::SNAPPY | Compression::LZ4_RAW) {
                props = props.set_column_compression(path, Compression::UNCOMPRESSED);
            }
        }
        let (out, sink) = match descriptor(file)? {
            Some(fd) => (Out::File(fd), None),
            None => {
                let sink = Sink::default();
                (Out::Sink(sink.clone()), Some(sink))
            }
        };
        let mut encoding =
            Encoding::new(out, schema.clone(), props.build(), &columns).map_err(encoding_error)?;
        let (pieces, queue) = std::sync::mpsc::sync_channel::<Rows>(QUEUED_PIECES);
        let thread = std::thread::Builder::new()
            .name("chunkwise-parquet".into())
            .spawn(move || {
                crate::errors::guard(move || {
                    for rows in queue {
                        encoding.write(&rows.batch, rows.embedding_is_text)?;
                    }
                    encoding.close()
                })
            })
            .map_err(|e| PyOSError::new_err(format!("cannot start the Parquet encoder: {e}")))?;
        let rows = Self {
            columns,
            schema,
            encoder: Mutex::new(Some(Encoder { pieces, thread })),
            sink,
            write: write.unbind(),
            changes: Py::new(file.py(), changes)?,
        };
        rows.drain(file.py())?;
        Ok(rows)
    }

    /// The rows written so far against the previous run's chunks.
    #[getter]
    fn changes(&self, py: Python<'_>) -> Py<Changes> {
        self.changes.clone_ref(py)
    }

    /// The column names, in order.
    #[getter]
    fn columns(&self) -> Vec<&'static str> {
        self.columns.iter().map(|c| c.name()).collect()
    }

    /// Writes the rows of every text of `texts` (each a `str`, or UTF-8 `bytes`; `sources` are their sources), as
    /// `JsonLines.write_batch` writes lines: split in parallel, a text's rows written only once it is split, one item
    /// per text (its number of chunks, or the exception it raised). `strategies`: as `JsonLines.write_batch` takes
    /// them (the `strategy` and `strategy_reason` columns).
    #[pyo3(signature = (splitter, texts, sources, paged=false, strategies=None))]
    fn write_batch<'py>(
        &self,
        py: Python<'py>,
        splitter: &Bound<'py, PySplitter>,
        texts: &Bound<'py, PyAny>,
        sources: &Bound<'py, PyAny>,
        paged: bool,
        strategies: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let splitter = splitter.get();
        let mut piece = self.piece(splitter, splitter.inner.is_structural());
        let results = each_document(
            splitter,
            texts,
            sources,
            strategies,
            paged,
            |text, document, prepared| {
                let structure = prepared.structure();
                for (i, c) in prepared.chunks().iter().enumerate() {
                    let info = structure.map(|d| (d, &d.chunks[i]));
                    piece.push(&text[c.start..c.end], document, i, c, info);
                    if piece.is_full() {
                        self.encode(py, &mut piece)?;
                    }
                }
                self.record(prepared.chunks());
                Ok(())
            },
        )?;
        self.encode(py, &mut piece)?;
        Ok(results)
    }

    /// Writes the rows of a streamed document, read back from `spool` (a binary file positioned at its start: its
    /// `read` takes a size) where `ChunkStream.push_rows` and `finish_rows` left them; `source` is the document's,
    /// `strategy` the `(strategy, reason)` that chose its chunker, or None.
    #[pyo3(signature = (splitter, spool, source, strategy=None))]
    fn write_spooled(
        &self,
        py: Python<'_>,
        splitter: &Bound<'_, PySplitter>,
        spool: &Bound<'_, PyAny>,
        source: &str,
        strategy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let strategy = strategy.map_or(Ok(None), |s| strategy_arg("strategy", s))?;
        let document = Document::new(source, strategy.as_ref());
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
                piece.push(text, document, record.index, &record.chunk, None);
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

/// Pieces waiting for the encoder at most: none, the calling thread hands each piece over (waiting while the
/// encoder is busy with the one before), so that one piece is filled while one is encoded.
const QUEUED_PIECES: usize = 0;

/// How much of a spool is read at a time.
const SPOOL_READ: usize = 1 << 20;

/// What the encoder failed with: the file's own error as the `OSError` it is (a full disk), else a `ChunkingError`.
fn encoding_error(e: parquet::errors::ParquetError) -> PyErr {
    match e {
        parquet::errors::ParquetError::External(e) if e.is::<std::io::Error>() => {
            match e.downcast::<std::io::Error>() {
                Ok(io) => PyErr::from(*io),
                Err(e) => ChunkingError::new_err(format!("writing the Parquet rows: {e}")),
            }
        }
        e => ChunkingError::new_err(format!("writing the Parquet rows: {e}")),
    }
}

fn spool_error() -> PyErr {
    ChunkingError::new_err("the spooled rows of a streamed document are cut short or damaged")
}

impl ParquetRows {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Encoder>> {
        self.encoder
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes the bytes encoded so far to the file (when the encoder does not write them itself).
    fn drain(&self, py: Python<'_>) -> PyResult<()> {
        let Some(sink) = &self.sink else {
            return Ok(());
        };
        let write = self.write.bind(py);
        for mut block in sink.take() {
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
            Ok(Ok(Err(e))) => Err(encoding_error(e)),
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
        if self.changes.get().compared() {
            self.record_ids(&chunks.iter().map(|c| c.id).collect::<Vec<_>>());
        }
    }

    fn record_ids(&self, ids: &[u64]) {
        if self.changes.get().compared() {
            self.changes.get().record(ids);
        }
    }

    /// Hands the rows of `piece` to the encoder thread (waiting, with the GIL released, while it is a piece behind),
    /// empties it, and writes what the encoder has made of the pieces before.
    fn encode(&self, py: Python<'_>, piece: &mut Piece<'_>) -> PyResult<()> {
        if piece.rows > 0 {
            let rows = piece
                .finish()
                .map_err(|e| ChunkingError::new_err(format!("building the Parquet rows: {e}")))?;
            let mut guard = self.lock();
            let encoder = guard
                .as_ref()
                .ok_or_else(|| ChunkingError::new_err("the Parquet rows are closed"))?;
            let sent = py.detach(|| encoder.pieces.send(rows));
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
    symbol_path: ListBuilder<StringBuilder>,
    lines: [Int64Builder; 2],
    node_types: ListBuilder<StringBuilder>,
    note: StringBuilder,
    /// The strategy and its reason.
    strategy: [StringBuilder; 2],
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
            symbol_path: ListBuilder::new(StringBuilder::new()),
            lines: std::array::from_fn(|_| Int64Builder::new()),
            node_types: ListBuilder::new(StringBuilder::new()),
            note: StringBuilder::new(),
            strategy: std::array::from_fn(|_| StringBuilder::new()),
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
        document: Document<'_>,
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
        self.source.append_value(document.source);
        let (strategy, reason) = document.strategy.unzip();
        self.strategy[0].append_option(strategy);
        self.strategy[1].append_option(reason);
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
                    // A chunk of source code has its symbol path in place of a title path (as `chunk.metadata`
                    // has it); a chunk of a Markdown code block of a known language has both.
                    let source_code = s.code.as_ref().is_some_and(|c| c.symbols.is_none());
                    for title in d.title_path(s).filter(|_| !source_code) {
                        self.title_path.values().append_value(title);
                    }
                    self.title_path.append(!source_code);
                    for &h in s.path.iter().filter(|_| !source_code) {
                        self.headings
                            .values()
                            .append_value(i64::from(d.headings[h].depth));
                    }
                    self.headings.append(!source_code);
                    match &s.code {
                        Some(code) => {
                            for symbol in d.symbol_path(s) {
                                self.symbol_path.values().append_value(symbol);
                            }
                            self.symbol_path.append(true);
                            self.lines[0].append_value(code.lines.0 as i64);
                            self.lines[1].append_value(code.lines.1 as i64);
                            for node in &code.node_types {
                                self.node_types.values().append_value(node);
                            }
                            self.node_types.append(true);
                            self.note.append_option(code.note);
                        }
                        None => self.code_nulls(),
                    }
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
                    self.code_nulls();
                }
            }
        }
        self.pages[0].append_option(c.pages.map(|(first, _)| first as i64));
        self.pages[1].append_option(c.pages.map(|(_, last)| last as i64));
        if self.rows_of.changes.get().compared() {
            let kept = self.rows_of.changes.get().kept_id(c.id);
            self.change
                .append_value(if kept { "kept" } else { "added" });
        }
    }

    /// A row of no code: nulls in the code columns.
    fn code_nulls(&mut self) {
        self.symbol_path.append(false);
        for b in &mut self.lines {
            b.append_null();
        }
        self.node_types.append(false);
        self.note.append_null();
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
    fn finish(&mut self) -> Result<Rows, arrow_schema::ArrowError> {
        let n = std::mem::take(&mut self.rows);
        self.text_bytes = 0;
        let embedding_is_text = self.embedding.is_none();
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
        let mut symbol_path: Option<ArrayRef> = Some(Arc::new(self.symbol_path.finish()));
        let mut lines = self
            .lines
            .each_mut()
            .map(|b| Some(Arc::new(b.finish()) as ArrayRef));
        let mut node_types: Option<ArrayRef> = Some(Arc::new(self.node_types.finish()));
        let mut note: Option<ArrayRef> = Some(Arc::new(self.note.finish()));
        let mut strategy = self
            .strategy
            .each_mut()
            .map(|b| Some(Arc::new(b.finish()) as ArrayRef));
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
                Column::Field(Field::Text) => text.clone(),
                Column::Field(Field::Start) => start.clone(),
                Column::Field(Field::End) => end.clone(),
                Column::Field(Field::Source) => source.clone(),
                Column::Field(Field::Index) => index.clone(),
                Column::Field(Field::Id) => id.clone(),
                Column::Field(Field::PrevId) => prev_id.clone(),
                Column::Field(Field::NextId) => next_id.clone(),
                Column::Field(Field::Level) => level.clone(),
                Column::Field(Field::Size) => size.clone(),
                Column::Field(Field::TokenCount) => token_count.clone(),
                Column::Field(Field::Context) => context.clone(),
                Column::Field(Field::EmbeddingText) => embedding.clone(),
                Column::TitlePath => description(take(&mut title_path), c),
                Column::Headings => description(take(&mut headings), c),
                Column::ChunkType => description(take(&mut chunk_type), c),
                Column::RowStart => description(take(&mut table_rows[0]), c),
                Column::RowEnd => description(take(&mut table_rows[1]), c),
                Column::TotalRows => description(take(&mut table_rows[2]), c),
                Column::Language => description(take(&mut language), c),
                Column::ContextShortened => description(take(&mut shortened), c),
                Column::SymbolPath => description(take(&mut symbol_path), c),
                Column::StartLine => description(take(&mut lines[0]), c),
                Column::EndLine => description(take(&mut lines[1]), c),
                Column::NodeTypes => description(take(&mut node_types), c),
                Column::Note => description(take(&mut note), c),
                Column::Strategy => take(&mut strategy[0]),
                Column::StrategyReason => take(&mut strategy[1]),
                Column::PageStart => take(&mut pages[0]),
                Column::PageEnd => take(&mut pages[1]),
                // `metadata` is never a column of its own: it stands for the description's columns above.
                Column::Field(Field::Change | Field::Metadata) => change.clone(),
            });
        }
        Ok(Rows {
            batch: RecordBatch::try_new(self.rows_of.schema.clone(), arrays)?,
            embedding_is_text,
        })
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
