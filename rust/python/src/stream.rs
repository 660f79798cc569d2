//! `chunkwise._core.ChunkStream`: the chunks of a document that arrives in pieces (see `chunkwise_core::stream`),
//! as `Chunk` objects with offsets in the whole stream.

use chunkwise_core::ChunkStream;
use chunkwise_io::{Chunked, Document};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::build::{Prepared, Texts};
use crate::errors::{value_error, DETACH_BYTES};
use crate::jsonl::{shape, strategy_arg, JsonLines};
use crate::metadata;
use crate::splitter::{metadata_arg, PySplitter};
use crate::text::borrow_str;

/// One streamed document: `push` its pieces in order, then `finish`; each returns the chunks that are final.
#[pyclass(module = "chunkwise._core", name = "ChunkStream")]
#[derive(Debug)]
pub struct PyChunkStream {
    splitter: Py<PySplitter>,
    inner: ChunkStream,
    metadata: Option<Py<PyDict>>,
    /// Chunks handed out so far: the index of the next one.
    made: usize,
}

#[pymethods]
impl PyChunkStream {
    /// A stream for `splitter`'s strategy. `metadata` is copied into each chunk and must name the document
    /// (`doc_id`, `id` or `source`): the chunk ids are namespaced by it. `paged`: number pages (required when the
    /// stream holds form feeds).
    #[new]
    #[pyo3(signature = (splitter, metadata=None, paged=false))]
    fn new(
        splitter: Bound<'_, PySplitter>,
        metadata: Option<Bound<'_, PyAny>>,
        paged: bool,
    ) -> PyResult<Self> {
        let meta = metadata_arg(|| "metadata".to_owned(), &metadata)?;
        let Some(doc_id) = metadata::doc_id(meta)? else {
            return Err(value_error(
                "metadata must name the document ('doc_id', 'id' or 'source') to chunk a stream: chunk ids are \
                 namespaced by the document, and a stream has no whole text to stand for it",
            ));
        };
        let inner = ChunkStream::new(&splitter.get().inner, &doc_id, paged)
            .map_err(crate::errors::to_py)?;
        Ok(Self {
            splitter: splitter.unbind(),
            inner,
            metadata: meta.map(|m| m.clone().unbind()),
            made: 0,
        })
    }

    /// Adds the next piece of the text (a `str`, or UTF-8 `bytes` that may end inside a character); returns the
    /// chunks that are now final.
    fn push<'py>(
        &mut self,
        py: Python<'py>,
        piece: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let prepared = self.push_prepared(py, piece)?;
        self.build(py, &prepared)
    }

    /// Ends the stream; returns the last chunks.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let prepared = self.finish_prepared(py)?;
        self.build(py, &prepared)
    }

    /// `push`, the chunks written as JSON lines by `lines` (see `JsonLines`) with `source` as their source and
    /// `strategy` (a `(strategy, reason)` pair, or None) as the strategy that chose the chunker: `(lines, number of
    /// chunks)`.
    #[pyo3(signature = (piece, lines, source, strategy=None))]
    fn push_lines<'py>(
        &mut self,
        py: Python<'py>,
        piece: &Bound<'py, PyAny>,
        lines: &JsonLines,
        source: &str,
        strategy: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyBytes>, usize)> {
        let strategy = strategy.map_or(Ok(None), |s| strategy_arg("strategy", s))?;
        let prepared = self.push_prepared(py, piece)?;
        Ok(self.write(
            py,
            &prepared,
            lines,
            Document::new(source, strategy.as_ref()),
        ))
    }

    /// `push`, the chunks spooled for `ParquetRows.write_spooled` (records of their values and texts, written
    /// once the whole document is chunked): `(records, number of chunks)`.
    fn push_rows<'py>(
        &mut self,
        py: Python<'py>,
        piece: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, usize)> {
        let prepared = self.push_prepared(py, piece)?;
        Ok(self.spool(py, &prepared))
    }

    /// `finish`, the chunks spooled (see `push_rows`).
    fn finish_rows<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyBytes>, usize)> {
        let prepared = self.finish_prepared(py)?;
        Ok(self.spool(py, &prepared))
    }

    /// `finish`, the chunks written as JSON lines (see `push_lines`).
    #[pyo3(signature = (lines, source, strategy=None))]
    fn finish_lines<'py>(
        &mut self,
        py: Python<'py>,
        lines: &JsonLines,
        source: &str,
        strategy: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyBytes>, usize)> {
        let strategy = strategy.map_or(Ok(None), |s| strategy_arg("strategy", s))?;
        let prepared = self.finish_prepared(py)?;
        Ok(self.write(
            py,
            &prepared,
            lines,
            Document::new(source, strategy.as_ref()),
        ))
    }
}

type Step<'a> = dyn FnOnce(
        &mut ChunkStream,
        &chunkwise_core::Splitter,
        &mut Vec<chunkwise_core::Chunk>,
        &(dyn Fn() -> bool + Sync),
    ) -> Result<(), chunkwise_core::ChunkError>
    + Send
    + 'a;

impl PyChunkStream {
    fn push_prepared(&mut self, py: Python<'_>, piece: &Bound<'_, PyAny>) -> PyResult<Prepared> {
        if let Ok(bytes) = piece.cast::<PyBytes>() {
            let bytes = bytes.as_bytes();
            return self.step(
                py,
                bytes.len(),
                Box::new(|stream, splitter, out, stop| {
                    stream.push_bytes(splitter, bytes, out, Some(stop))
                }),
            );
        }
        let piece = borrow_str(py, "piece", piece)?;
        self.step(
            py,
            piece.len(),
            Box::new(|stream, splitter, out, stop| stream.push(splitter, piece, out, Some(stop))),
        )
    }

    fn finish_prepared(&mut self, py: Python<'_>) -> PyResult<Prepared> {
        self.step(
            py,
            DETACH_BYTES,
            Box::new(|stream, splitter, out, stop| stream.finish(splitter, out, Some(stop))),
        )
    }

    /// Runs one call of the core stream (without the GIL for a large piece): the chunks it hands out.
    fn step(&mut self, py: Python<'_>, bytes: usize, call: Box<Step<'_>>) -> PyResult<Prepared> {
        let splitter = self.splitter.get();
        let mut out = Vec::new();
        let inner = &mut self.inner;
        let release = bytes >= DETACH_BYTES && !splitter.calls_python();
        splitter.call(py, release, "chunking the stream", |stop| {
            call(inner, &splitter.inner, &mut out, stop)
        })?;
        Ok(Prepared::streamed(out))
    }

    /// The `Chunk` objects of chunks the stream handed out.
    fn build<'py>(&mut self, py: Python<'py>, prepared: &Prepared) -> PyResult<Bound<'py, PyList>> {
        let meta = self.metadata.as_ref().map(|m| m.bind(py).clone());
        let chunks = self.splitter.get().build_from(
            py,
            Texts::Stream(&self.inner, self.made),
            prepared,
            (|| "metadata".to_owned(), meta.as_ref()),
        )?;
        self.made += chunks.len();
        PyList::new(py, chunks)
    }

    /// The spooled records of chunks the stream handed out.
    fn spool<'py>(&mut self, py: Python<'py>, prepared: &Prepared) -> (Bound<'py, PyBytes>, usize) {
        let mut out = Vec::new();
        let inner = &self.inner;
        chunkwise_io::spool::spool(&mut out, prepared.chunks(), self.made, |c| inner.text(c));
        let n = prepared.count();
        self.made += n;
        (PyBytes::new(py, &out), n)
    }

    /// The JSON lines of chunks the stream handed out.
    fn write<'py>(
        &mut self,
        py: Python<'py>,
        prepared: &Prepared,
        lines: &JsonLines,
        document: Document<'_>,
    ) -> (Bound<'py, PyBytes>, usize) {
        let inner = &self.inner;
        let out = lines.write_all(
            &shape(self.splitter.get()),
            document,
            Chunked::plain(prepared.chunks()),
            self.made,
            |c| inner.text(c),
        );
        let n = prepared.count();
        self.made += n;
        (PyBytes::new(py, &out), n)
    }
}
