//! `chunkwise._core.JsonLines` and `Changes`: the command line's JSON lines (see `chunkwise_io::jsonl`) of the texts
//! of a batch, split in parallel with the GIL released while the lines of those already split are written to a
//! Python file, so that no Python object is made per chunk. Also the adapter of a Python file to a sink
//! ([`PyFile`]), and the splitting of a batch for the writers ([`each_document`]).

use chunkwise_core::ChunkOptions;
use chunkwise_io::jsonl::{flush, Lines, PIECE};
use chunkwise_io::{Chunked, Document, Shape};
use pyo3::exceptions::PyUnicodeDecodeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::build::{self, Prepared};
use crate::errors::{io_error, one_per_text, to_py, value_error, wrong_type};
use crate::splitter::PySplitter;
use crate::text::{borrow_item, collect};

/// How a run writes its lines: the fields, in order, and a previous run's chunk ids (for `change`), with what this
/// run has written so far measured against them.
#[pyclass(module = "chunkwise._core", name = "JsonLines", frozen)]
#[derive(Debug)]
pub(crate) struct JsonLines {
    lines: Lines,
    changes: Py<Changes>,
}

/// A run's chunks measured against a previous run's: the previous ids (`change` needs them), the ids written by
/// this run, and how many chunks were "added" and "kept". What `JsonLines.changes` and `ParquetRows.changes` are.
#[pyclass(module = "chunkwise._core", name = "Changes", frozen)]
#[derive(Debug)]
pub(crate) struct Changes(pub(crate) chunkwise_io::Changes);

#[pymethods]
impl JsonLines {
    /// `fields`: the names of the fields of each line, in order; `previous`: the chunk ids of a previous run, which
    /// make `change` available.
    #[new]
    #[pyo3(signature = (fields, previous=None))]
    fn new(fields: &Bound<'_, PyAny>, previous: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let changes = Changes::new(previous)?;
        Ok(Self {
            lines: Lines::new(parse_fields(fields, &changes)?),
            changes: Py::new(fields.py(), changes)?,
        })
    }

    /// The field names, in order.
    #[getter]
    fn fields(&self) -> Vec<&'static str> {
        self.lines.fields().iter().map(|f| f.name()).collect()
    }

    /// The lines written so far against the previous run's chunks.
    #[getter]
    fn changes(&self, py: Python<'_>) -> Py<Changes> {
        self.changes.clone_ref(py)
    }

    /// Writes the lines of every text of `texts` (each a `str`, or UTF-8 `bytes`) to `file` (its `write` takes
    /// `bytes`), in order; `sources` are their sources (the `source` field, the metadata `{"source": ...}` and so
    /// the document id). The texts are split in parallel with the GIL released while the lines of those already
    /// split are written here, in pieces of about [`PIECE`] bytes: memory holds the texts, their chunks' offsets and
    /// one piece, never a whole batch of lines. A text's lines are written only once it is split, so a text that
    /// fails leaves no line. One item per text: its number of chunks, or the exception it raised (a
    /// `UnicodeDecodeError` for bytes that are not UTF-8, a `ChunkingError`), so that one bad text costs only
    /// itself. `paged`: number the pages of every text, also of one without a form feed (a document given as
    /// pages, see `chunk(pages=...)`). `strategies`: per text, the strategy that chose its chunker and why (a
    /// `(strategy, reason)` pair of `str`, or None), written into its chunks' metadata after the source, as
    /// `AutoChunker` sets them.
    #[pyo3(signature = (splitter, texts, sources, file, paged=false, strategies=None))]
    #[allow(clippy::too_many_arguments)]
    fn write_batch<'py>(
        &self,
        splitter: &Bound<'py, PySplitter>,
        texts: &Bound<'py, PyAny>,
        sources: &Bound<'py, PyAny>,
        file: &Bound<'py, PyAny>,
        paged: bool,
        strategies: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut file = PyFile::of(file)?;
        let shape = shape(splitter.get());
        let changes = &self.changes.get().0;
        let mut piece: Vec<u8> = Vec::with_capacity(PIECE + (PIECE >> 2));
        let results = each_document(
            splitter.get(),
            texts,
            sources,
            strategies,
            paged,
            |text, document, prepared| {
                self.lines
                    .write(
                        &mut piece,
                        &mut file,
                        changes,
                        &shape,
                        document,
                        prepared.chunked(),
                        0,
                        |c| &text[c.start..c.end],
                    )
                    .map_err(io_error)
            },
        )?;
        flush(&mut piece, &mut file).map_err(io_error)?;
        Ok(results)
    }
}

impl JsonLines {
    /// The lines of a document's chunks, all in one buffer (see `chunkwise_io::jsonl::Lines::write_all`).
    pub(crate) fn write_all<'t>(
        &self,
        shape: &Shape<'_>,
        document: Document<'_>,
        chunks: Chunked<'_>,
        first: usize,
        text_of: impl Fn(&chunkwise_core::Chunk) -> &'t str,
    ) -> Vec<u8> {
        let changes = &self.changes.get().0;
        self.lines
            .write_all(changes, shape, document, chunks, first, text_of)
    }
}

/// What a splitter's outputs hold beyond each chunk (see `chunkwise_io::Shape`).
pub(crate) fn shape(splitter: &PySplitter) -> Shape<'_> {
    Shape {
        tokens: splitter.has_tokenizer(),
        splitter: &splitter.inner,
    }
}

/// The fields named by `fields` (a sequence of `str`), in order; `change` only against a previous run.
pub(crate) fn parse_fields(
    fields: &Bound<'_, PyAny>,
    changes: &Changes,
) -> PyResult<Vec<chunkwise_io::Field>> {
    let names = strs("fields", fields)?;
    chunkwise_io::columns::parse_fields(&names, changes.0.compared()).map_err(value_error)
}

/// The items of `items` (a sequence of `str`); `arg` names it in an error.
fn strs(arg: &str, items: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    collect(arg, items)?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            Ok(item
                .cast::<PyString>()
                .map_err(|_| wrong_type(&format!("{arg}[{i}]"), "str", item))?
                .to_cow()?
                .into_owned())
        })
        .collect()
}

/// Splits every text of `texts` (each a `str`, or UTF-8 `bytes`; `sources` are their sources, which name the
/// documents and so their chunk ids) in parallel with the GIL released, and hands each one that splits to `emit`,
/// in order, as soon as it and those before it are split: `emit(text, document, chunks)`, the document named by its
/// source and its item of `strategies` (see `JsonLines.write_batch`). One item per text: its
/// number of chunks, or the exception it raised (a `UnicodeDecodeError` for bytes that are not UTF-8, a
/// `ChunkingError`), so that one bad text costs only itself and a text that fails is never handed to `emit`.
/// `paged`: number the pages of every text, also of one without a form feed.
pub(crate) fn each_document<'py>(
    splitter: &PySplitter,
    texts: &Bound<'py, PyAny>,
    sources: &Bound<'py, PyAny>,
    strategies: Option<&Bound<'py, PyAny>>,
    paged: bool,
    mut emit: impl FnMut(&str, Document<'_>, &Prepared) -> PyResult<()>,
) -> PyResult<Bound<'py, PyList>> {
    let py = texts.py();
    let items = collect("texts", texts)?;
    let sources = collect("sources", sources)?;
    if sources.len() != items.len() {
        return Err(one_per_text("sources", items.len(), sources.len()));
    }
    let sources = sources
        .iter()
        .enumerate()
        .map(|(i, s)| borrow_item(py, || format!("sources[{i}]"), s))
        .collect::<PyResult<Vec<&str>>>()?;
    let strategies = strategies_arg(strategies, items.len())?;
    let mut raw: Vec<&[u8]> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        raw.push(match item.cast::<PyBytes>() {
            Ok(b) => b.as_bytes(),
            Err(_) if item.is_instance_of::<PyString>() => {
                borrow_item(py, || format!("texts[{i}]"), item)?.as_bytes()
            }
            Err(_) => return Err(wrong_type(&format!("texts[{i}]"), "str or bytes", item)),
        });
    }
    let checked = py.detach(|| chunkwise_io::utf8::texts(&raw));
    let strs: Vec<&str> = checked.iter().map(|t| t.unwrap_or("")).collect();
    let doc_ids: Vec<String> = sources
        .iter()
        .map(|s| chunkwise_core::chunk::doc_id_of("source", s))
        .collect();
    let mut results: Vec<Bound<'py, PyAny>> = Vec::with_capacity(items.len());
    splitter.pipeline(
        py,
        &strs,
        |i, text, stop| {
            checked[i]?; // not UTF-8: reported below
            let options = ChunkOptions {
                doc_id: Some(&doc_ids[i]),
                paged,
            };
            Some(build::split(&splitter.inner, text, options, stop))
        },
        |i, prepared| {
            results.push(match prepared {
                None => {
                    let err = std::str::from_utf8(raw[i]).expect_err("checked as not UTF-8");
                    PyUnicodeDecodeError::new_utf8(py, raw[i], err)?.into_any()
                }
                Some(Err(e)) => to_py(e).into_value(py).into_bound(py).into_any(),
                Some(Ok(p)) => {
                    let strategy = strategies.get(i).and_then(Option::as_ref);
                    emit(strs[i], Document::new(sources[i], strategy), &p)?;
                    p.count().into_pyobject(py)?.into_any()
                }
            });
            Ok(())
        },
    )?;
    PyList::new(py, results)
}

/// A Python binary file as a sink: each `write` calls the file's `write` once, with the GIL held (a raw file may
/// write part of what it is given and say how much; a buffered one writes all, and may return None).
pub(crate) struct PyFile<'py> {
    write: Bound<'py, PyAny>,
}

impl<'py> PyFile<'py> {
    /// The sink of `file` (a binary file: its `write` takes `bytes`).
    pub(crate) fn of(file: &Bound<'py, PyAny>) -> PyResult<Self> {
        let write = file
            .getattr(pyo3::intern!(file.py(), "write"))
            .map_err(|_| wrong_type("file", "a binary file (with a write method)", file))?;
        Ok(Self::new(write))
    }

    /// The sink of a file's `write` method.
    pub(crate) fn new(write: Bound<'py, PyAny>) -> Self {
        Self { write }
    }

    /// The file's `write` method.
    pub(crate) fn into_method(self) -> Bound<'py, PyAny> {
        self.write
    }
}

impl std::io::Write for PyFile<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let py = self.write.py();
        let n = self
            .write
            .call1((PyBytes::new(py, buf),))
            .map_err(std::io::Error::other)?;
        let n: usize = if n.is_none() {
            buf.len()
        } else {
            n.extract().map_err(std::io::Error::other)?
        };
        if n == 0 && !buf.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WriteZero,
                "file.write wrote nothing",
            ));
        }
        Ok(n.min(buf.len()))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The `strategies` argument of a batch of `n` texts: None, or one item per text, each None or a `(strategy,
/// reason)` pair of `str`.
fn strategies_arg(
    strategies: Option<&Bound<'_, PyAny>>,
    n: usize,
) -> PyResult<Vec<Option<(String, String)>>> {
    let Some(strategies) = strategies.filter(|s| !s.is_none()) else {
        return Ok(Vec::new());
    };
    let items = collect("strategies", strategies)?;
    if items.len() != n {
        return Err(one_per_text("strategies", n, items.len()));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| strategy_arg(&format!("strategies[{i}]"), item))
        .collect()
}

/// One `(strategy, reason)` pair of `str`, or None; `arg` names it in an error.
pub(crate) fn strategy_arg(
    arg: &str,
    item: &Bound<'_, PyAny>,
) -> PyResult<Option<(String, String)>> {
    if item.is_none() {
        return Ok(None);
    }
    let pair: (String, String) = item
        .extract()
        .map_err(|_| wrong_type(arg, "a (strategy, reason) pair of str, or None", item))?;
    Ok(Some(pair))
}

impl Changes {
    /// `previous`: the chunk ids of a previous run (a sequence of `str`), or None.
    pub(crate) fn new(previous: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Self(match previous.filter(|p| !p.is_none()) {
            Some(p) => {
                let ids = strs("previous", p)?;
                chunkwise_io::Changes::new(Some(ids.iter().map(String::as_str)))
            }
            None => chunkwise_io::Changes::new(None::<[&str; 0]>),
        }))
    }
}

#[pymethods]
impl Changes {
    /// Chunks written so far that were not in the previous run.
    #[getter]
    fn added(&self) -> usize {
        self.0.added()
    }

    /// Chunks written so far that were in the previous run.
    #[getter]
    fn kept(&self) -> usize {
        self.0.kept()
    }

    /// Whether this run has written a chunk with this id (known only when comparing with a previous run).
    fn written(&self, id: &str) -> bool {
        self.0.written(id)
    }
}
