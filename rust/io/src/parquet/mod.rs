//! Parquet rows of chunks (`chunkwise chunk --format parquet`), encoded with arrow-rs's `parquet` a row group at a
//! time: the rows are gathered a piece at a time ([`rows::RowBuilder`]), and an [`Encoding`] (on a thread of its
//! own, see [`Encoder`]) adds each piece to the row group being filled and appends the row group to the file once
//! full. Memory holds one piece and the row group being encoded, never a whole batch of rows.
//!
//! The columns, their types and their nullability are those of the JSON lines' fields, with `metadata` flattened
//! into the columns of the description, the code, the strategy and the pages (see [`crate::columns`]).

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::{Field as ArrowField, Schema, SchemaRef};
use bytes::Bytes;
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

use chunkwise_core::record::{key, Store};

use crate::columns::{data_type, Column};

pub mod encoder;
pub mod rows;

pub use encoder::{Encoder, Error, Unspool};

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
pub(crate) const PIECE_ROWS: usize = 1024;
pub(crate) const PIECE_BYTES: usize = 64 << 10;

/// The values `compression` takes (`--compression`), and the codec of each.
pub const CODECS: [&str; 6] = ["snappy", "zstd", "lz4", "gzip", "brotli", "none"];

/// The codec named `name` (one of [`CODECS`]).
pub fn codec(name: &str) -> Option<Compression> {
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

/// A sink that keeps what the encoder writes, block by block, for another thread to write: a file that only the
/// thread holding a lock can write (a Python file object, which needs the GIL: the encoder never waits for it).
#[derive(Debug, Clone, Default)]
pub struct Blocks(Arc<Mutex<Vec<Vec<u8>>>>);

impl Blocks {
    /// The bytes written since the last call, in the order written.
    pub fn take(&self) -> Vec<Vec<u8>> {
        std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

impl Write for Blocks {
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

/// A piece of rows for the encoder, and whether its `embedding_text` column is its `text` column (no row of it has
/// an embedding text of its own).
#[derive(Debug)]
pub struct Rows {
    batch: RecordBatch,
    embedding_is_text: bool,
}

/// The encoder thread's side of the file: the column writers of the row group being filled, each column encoded
/// apart (the long texts in parallel), and the row group appended to the file column chunk by column chunk once full.
///
/// A row group whose every row's embedding text is its text does not encode the `embedding_text` column: its column
/// chunk is a copy of the `text` column's pages (the same values encode to the same bytes), which halves the
/// compression of the usual run. A piece with embedding texts of their own ends such a row group.
pub struct Encoding<W: Write + Send> {
    file: SerializedFileWriter<W>,
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
    /// Called once a row group is written and its memory freed (to give that memory back to the OS).
    release: fn(),
}

/// The row group being filled: a writer per column.
struct RowGroup {
    writers: Vec<ArrowColumnWriter>,
    rows: usize,
    /// Its `embedding_text` column chunk is to be the `text` column chunk's copy (and its writer is not written to).
    shared: bool,
}

impl<W: Write + Send> std::fmt::Debug for Encoding<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoding")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl<W: Write + Send> Encoding<W> {
    /// Starts the file of `layout`'s rows in `out`, its pages compressed with `codec`. `release` is called after
    /// each row group is written (the allocator's memory given back).
    pub fn new(
        out: W,
        layout: &Layout,
        codec: Compression,
        release: fn(),
    ) -> parquet::errors::Result<Self> {
        let (schema, columns) = (layout.schema.clone(), &layout.columns);
        let props = properties(layout, codec);
        // The ArrowWriter's only part here is the file's start: the schema, with the Arrow schema in the key-value
        // metadata (what pyarrow reads the column types by).
        let (file, factory) =
            ArrowWriter::try_new(out, schema.clone(), Some(props))?.into_serialized_writer()?;
        let text_pages = Arc::new(Mutex::new(Vec::new()));
        let position = |c| columns.iter().position(|&x| x == c);
        let twins = match (position(key::TEXT), position(key::EMBEDDING_TEXT)) {
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
        let heavy: Vec<bool> = columns
            .iter()
            .map(|c| c.column().store == Store::Text)
            .collect();
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
            release,
        })
    }

    /// Adds the rows of `batch` to the row group being filled (`embedding_is_text`: as [`Rows`] says), writing
    /// each row group once it is full.
    pub fn write(&mut self, rows: &Rows) -> parquet::errors::Result<()> {
        let (batch, embedding_is_text) = (&rows.batch, rows.embedding_is_text);
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
        (self.release)();
        if let (Some(pool), true) = (&self.pool, std::mem::take(&mut self.pooled)) {
            let release = self.release;
            pool.broadcast(|_| release());
        }
    }

    /// Writes the last row group and the file's footer.
    pub fn close(mut self) -> parquet::errors::Result<()> {
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

/// The columns of a Parquet output, in order, and its schema.
#[derive(Debug, Clone)]
pub struct Layout {
    columns: Vec<Column>,
    schema: SchemaRef,
}

impl Layout {
    /// `columns` in order; `tokens`: sizes are token counts (`token_count` holds no null).
    pub fn new(columns: Vec<Column>, tokens: bool) -> Self {
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|&c| {
                    let spec = c.column();
                    let data_type = data_type(spec.kind, false);
                    ArrowField::new(c.name(), data_type, spec.nullable_in(true, tokens))
                })
                .collect::<Vec<_>>(),
        ));
        Self { columns, schema }
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

/// How the columns of `layout` are encoded: dictionaries for the columns of few values, statistics where a reader
/// can skip by them, the hashes uncompressed under a codec that saves little on them.
fn properties(layout: &Layout, codec: Compression) -> WriterProperties {
    let mut props = WriterProperties::builder()
        .set_compression(codec)
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::None)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
        .set_data_page_size_limit(PAGE_BYTES)
        .set_write_batch_size(PAGE_ROWS);
    for &c in &layout.columns {
        let (path, spec) = (ColumnPath::from(c.name()), c.column());
        if spec.store == Store::Repeated {
            props = props.set_column_dictionary_enabled(path.clone(), true);
        }
        if spec.ordered() {
            props = props.set_column_statistics_enabled(path.clone(), EnabledStatistics::Chunk);
        }
        if spec.store == Store::Hash && matches!(codec, Compression::SNAPPY | Compression::LZ4_RAW)
        {
            props = props.set_column_compression(path, Compression::UNCOMPRESSED);
        }
    }
    props.build()
}

#[cfg(test)]
mod tests;
