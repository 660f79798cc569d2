//! `chunkwise._core.ParquetRows`: the command line's Parquet rows (see `chunkwise_io::parquet`). The texts of a
//! batch are split in parallel with the GIL released while the rows of those already split are gathered here and
//! handed, a piece at a time, to the encoder thread, which writes the file: straight to its descriptor when it is a
//! plain file, else into blocks this thread writes through the file's `write`. No Python object per chunk.

use std::io::Write;
use std::sync::Mutex;

use chunkwise_io::columns::{self, Metadata};
use chunkwise_io::parquet::rows::RowBuilder;
use chunkwise_io::parquet::{codec, Blocks, Encoding, Layout, Rows, CODECS};
use chunkwise_io::spool::Record;
use chunkwise_io::Document;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::errors::{internal, wrong_type, ChunkingError, Panic};
use crate::jsonl::{
    chunked, each_document, io_error, parse_fields, shape, strategy_arg, Changes, PyFile,
};
use crate::splitter::PySplitter;

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

/// The thread that encodes the pieces of rows, in order, while the next ones are chunked (also across batches: the
/// last rows of a batch are encoded while the next batch is read and split).
struct Encoder {
    pieces: std::sync::mpsc::SyncSender<Rows>,
    thread: std::thread::JoinHandle<Result<parquet::errors::Result<()>, Panic>>,
}

/// How a run writes its rows: the columns, in order, the encoder (until `close`), and a previous run's chunk ids
/// (for `change`), with what this run has written so far measured against them.
#[pyclass(module = "chunkwise._core", name = "ParquetRows", frozen)]
pub(crate) struct ParquetRows {
    layout: Layout,
    /// Until `close`.
    encoder: Mutex<Option<Encoder>>,
    /// The bytes encoded, not yet written to the file, when the file is written through its `write` method.
    blocks: Option<Blocks>,
    /// The file's `write` method.
    write: Py<PyAny>,
    changes: Py<Changes>,
}

impl std::fmt::Debug for ParquetRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRows")
            .field("columns", &self.layout.columns())
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
        let metadata = Metadata {
            structural,
            code,
            strategies,
        };
        let layout = Layout::new(
            columns::columns(&parse_fields(fields, &changes)?, metadata),
            tokens,
        );
        let codec = codec(compression).ok_or_else(|| {
            PyValueError::new_err(format!(
                "compression must be one of {}, got {compression:?}",
                CODECS.join(", ")
            ))
        })?;
        let write = PyFile::of(file)?;
        let (out, blocks): (Box<dyn Write + Send>, _) = match descriptor(file)? {
            Some(fd) => (Box::new(fd), None),
            None => {
                let blocks = Blocks::default();
                (Box::new(blocks.clone()), Some(blocks))
            }
        };
        let encoding =
            Encoding::new(out, &layout, codec, crate::alloc::collect).map_err(encoding_error)?;
        let (pieces, queue) = std::sync::mpsc::sync_channel::<Rows>(QUEUED_PIECES);
        let thread = std::thread::Builder::new()
            .name("chunkwise-parquet".into())
            .spawn(move || {
                crate::errors::guard(move || chunkwise_io::parquet::run(encoding, queue))
            })
            .map_err(|e| PyOSError::new_err(format!("cannot start the Parquet encoder: {e}")))?;
        let rows = Self {
            layout,
            encoder: Mutex::new(Some(Encoder { pieces, thread })),
            blocks,
            write: write.into_method().unbind(),
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
        self.layout.columns().iter().map(|c| c.name()).collect()
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
                let chunks = chunked(prepared);
                for (i, c) in chunks.chunks.iter().enumerate() {
                    piece.push(&text[c.start..c.end], document, i, c, chunks.info(i));
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
        let Some(blocks) = &self.blocks else {
            return Ok(());
        };
        let mut file = PyFile::new(self.write.bind(py).clone());
        for block in blocks.take() {
            file.write_all(&block).map_err(io_error)?;
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

    fn piece<'a>(&'a self, splitter: &'a PySplitter, described: bool) -> RowBuilder<'a> {
        RowBuilder::new(
            &self.layout,
            shape(splitter),
            &self.changes.get().0,
            described,
        )
    }

    fn record(&self, chunks: &[chunkwise_core::Chunk]) {
        if self.changes.get().0.compared() {
            self.record_ids(&chunks.iter().map(|c| c.id).collect::<Vec<_>>());
        }
    }

    fn record_ids(&self, ids: &[u64]) {
        if self.changes.get().0.compared() {
            self.changes.get().0.record(ids);
        }
    }

    /// Hands the rows of `piece` to the encoder thread (waiting, with the GIL released, while it is a piece behind),
    /// empties it, and writes what the encoder has made of the pieces before.
    fn encode(&self, py: Python<'_>, piece: &mut RowBuilder<'_>) -> PyResult<()> {
        if piece.rows() > 0 {
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
