//! `chunkwise._core.ParquetRows`: the command line's Parquet rows (see `chunkwise_io::parquet`). The texts of a
//! batch are split in parallel with the GIL released while the rows of those already split are gathered here and
//! handed, a piece at a time, to the encoder thread, which writes the file: straight to its descriptor when it is a
//! plain file, else into blocks this thread writes through the file's `write`. No Python object per chunk.

use std::io::Write;

use chunkwise_io::columns::{self, Metadata};
use chunkwise_io::parquet::rows::RowBuilder;
use chunkwise_io::parquet::{codec, Blocks, Encoder, Layout, Unspool, CODECS};
use chunkwise_io::Document;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::errors::{io_error, parquet_error, value_error, wrong_type};
use crate::jsonl::{each_document, parse_fields, shape, strategy_arg, Changes, PyFile};
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

/// How a run writes its rows: the encoder (see `chunkwise_io::parquet::Encoder`), and a previous run's chunk ids
/// (for `change`), with what this run has written so far measured against them.
#[pyclass(module = "chunkwise._core", name = "ParquetRows", frozen)]
#[derive(Debug)]
pub(crate) struct ParquetRows {
    encoder: Encoder,
    /// The bytes encoded, not yet written to the file, when the file is written through its `write` method.
    blocks: Option<Blocks>,
    /// The file's `write` method.
    write: Py<PyAny>,
    changes: Py<Changes>,
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
            value_error(format!(
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
        let encoder =
            Encoder::start(out, layout, codec, crate::alloc::collect).map_err(parquet_error)?;
        let rows = Self {
            encoder,
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
        self.encoder
            .layout()
            .columns()
            .iter()
            .map(|c| c.name())
            .collect()
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
                let chunks = prepared.chunked();
                for (i, c) in chunks.chunks.iter().enumerate() {
                    piece.push(&text[c.start..c.end], document, i, c, chunks.info(i));
                    if piece.is_full() {
                        self.encode(py, &mut piece)?;
                    }
                }
                self.changes.get().0.record_chunks(prepared.chunks());
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
        let mut spool = Unspool::default();
        let mut n = 0;
        loop {
            let block = read.call1((SPOOL_READ,))?;
            let block = block
                .cast::<PyBytes>()
                .map_err(|_| wrong_type("spool.read()", "bytes", &block))?
                .as_bytes();
            spool.feed(block);
            let mut ids = Vec::new();
            while let Some(record) = spool.next() {
                let (text, record) = record.map_err(parquet_error)?;
                piece.push(text, document, record.index, &record.chunk, None);
                ids.push(record.chunk.id);
                n += 1;
                if piece.is_full() {
                    self.encode(py, &mut piece)?;
                }
            }
            self.changes.get().0.record(&ids);
            if block.is_empty() {
                break;
            }
        }
        spool.finish().map_err(parquet_error)?;
        self.encode(py, &mut piece)?;
        Ok(n)
    }

    /// Writes the last row group and the file's footer; the rows can no longer be added to.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.encoder.close()).map_err(parquet_error)?;
        self.drain(py)
    }
}

/// How much of a spool is read at a time.
const SPOOL_READ: usize = 1 << 20;

impl ParquetRows {
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

    fn piece<'a>(&'a self, splitter: &'a PySplitter, described: bool) -> RowBuilder<'a> {
        self.encoder
            .piece(shape(splitter), &self.changes.get().0, described)
    }

    /// Hands the rows of `piece` to the encoder thread (waiting, with the GIL released, while it is a piece behind),
    /// empties it, and writes what the encoder has made of the pieces before.
    fn encode(&self, py: Python<'_>, piece: &mut RowBuilder<'_>) -> PyResult<()> {
        py.detach(|| self.encoder.send(piece))
            .map_err(parquet_error)?;
        self.drain(py)
    }
}
