//! `chunkwise._core.Splitter`: the core splitter behind every chunker, its arguments read and its results packed
//! for Python.

use chunkwise_core::size::MaxChars;
use chunkwise_core::structure::code::Syntax;
use chunkwise_core::{
    ChunkOptions, Restart, SemanticConfig, SemanticFormat, Span, Splitter, SplitterConfig,
    Strategy, TableFormat, DEFAULT_MIN_UNIT,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyTuple};

use crate::build::{self, Prepared};
use crate::errors::{
    batch_error, chunking, count_arg, one_per_text, run, to_py, tripwire, wrong_type, DETACH_BYTES,
};
use crate::interrupt::{self, Interrupt};
use crate::metadata;
use crate::text::{borrow_all, borrow_str, collect};
use crate::tokenizer::PyTokenizer;

/// Packs spans as native int64 (start, end) pairs in `str` offsets.
fn flatten(splitter: &Splitter, text: &str, spans: &[Span]) -> Vec<u8> {
    chunkwise_core::offsets::packed(splitter.char_spans(text, spans).into_iter())
}

/// A call's stop check (see [`PySplitter::stop`]), as the core's splits take it.
pub(crate) type Stop<'s> = &'s (dyn Fn() -> bool + Sync);

/// The core splitter. Immutable after construction, so threads may share it.
#[pyclass(frozen, module = "chunkwise._core", name = "Splitter")]
#[derive(Debug)]
pub struct PySplitter {
    pub(crate) inner: Splitter,
    tokenizer: Option<Py<PyTokenizer>>,
}

impl PySplitter {
    /// Runs core work `f` for one call (see `errors::run`: with the GIL released when `release`, a panic an error
    /// saying `what` was being done), handing it the call's stop check: what a Python tokenizer callable raised is
    /// raised again, Ctrl-C is a KeyboardInterrupt within `chunkwise_core::interrupt::INTERVAL`.
    pub(crate) fn call<T: Send>(
        &self,
        py: Python<'_>,
        release: bool,
        what: &str,
        f: impl FnOnce(Stop<'_>) -> Result<T, chunkwise_core::ChunkError> + Send,
    ) -> PyResult<T> {
        let interrupt = interrupt::new();
        let stop = self.stop(&interrupt);
        let out = run(py, release, what, || f(&stop))?;
        self.check()?;
        out.map_err(|e| interrupt::error(&interrupt, e))
    }

    /// Splits with the GIL released when the text is large enough to be worth it.
    fn split(&self, py: Python<'_>, text: &str) -> PyResult<Vec<Span>> {
        self.call(py, self.detach(text), "splitting the text", |stop| {
            self.try_split(text, stop)
        })
    }

    /// The core's split, behind the test hook.
    pub(crate) fn try_split(
        &self,
        text: &str,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<Span>, chunkwise_core::ChunkError> {
        tripwire::check(text);
        Ok(self.inner.split_structured_until(text, Some(stop))?.0)
    }

    /// The core's stop check for a call: Ctrl-C (see [`Interrupt`]), or a Python tokenizer callable that raised
    /// (the rest of the split would be lost anyway).
    pub(crate) fn stop<'a>(&'a self, interrupt: &'a Interrupt) -> impl Fn() -> bool + Sync + 'a {
        move || interrupt.check() || self.tokenizer.as_ref().is_some_and(|t| t.get().failed())
    }

    /// Whether to release the GIL for `text`: for large texts, unless sizes come from a Python callable.
    fn detach(&self, text: &str) -> bool {
        text.len() >= DETACH_BYTES && !self.calls_python()
    }

    /// Whether sizes are in tokens of a tokenizer (then a chunk's size is its exact token count).
    pub(crate) fn has_tokenizer(&self) -> bool {
        self.tokenizer.is_some()
    }

    pub(crate) fn calls_python(&self) -> bool {
        self.tokenizer
            .as_ref()
            .is_some_and(|t| t.get().calls_python())
    }
    /// Raises what a Python tokenizer callable raised while splitting.
    pub(crate) fn check(&self) -> PyResult<()> {
        match &self.tokenizer {
            Some(t) => t.get().check(),
            None => Ok(()),
        }
    }

    /// Splits and prepares a text's chunks (offsets, ids) without the GIL when the text is large.
    fn prepare(&self, py: Python<'_>, text: &str, options: ChunkOptions<'_>) -> PyResult<Prepared> {
        self.call(py, self.detach(text), "splitting the text", |stop| {
            build::split(&self.inner, text, options, stop)
        })
    }

    /// `arg`: the name of the metadata argument, made only for an error.
    pub(crate) fn build<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        prepared: &Prepared,
        metadata: (impl Fn() -> String, Option<&Bound<'py, PyDict>>),
    ) -> PyResult<Bound<'py, PyList>> {
        let source = source.cast::<pyo3::types::PyString>()?;
        let chunks = self.build_from(py, build::Texts::Source(source), prepared, metadata)?;
        PyList::new(py, chunks)
    }

    /// [`PySplitter::build`] from any [`build::Texts`].
    /// [`Splitter::build`] for one text's chunks, Python's cyclic collector paused for a text of many chunks.
    fn build_one<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        prepared: &Prepared,
        meta: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let meta = (|| "metadata".to_owned(), meta);
        if prepared.count() < build::PAUSE_GC_CHUNKS {
            return self.build(py, source, prepared, meta);
        }
        build::gc_paused(py, || self.build(py, source, prepared, meta))
    }

    pub(crate) fn build_from<'py>(
        &self,
        py: Python<'py>,
        texts: build::Texts<'_, 'py>,
        prepared: &Prepared,
        metadata: (impl Fn() -> String, Option<&Bound<'py, PyDict>>),
    ) -> PyResult<Vec<Bound<'py, crate::chunk::Chunk>>> {
        let tokens = self.tokenizer.is_some();
        build::build(
            py,
            texts,
            prepared,
            |l| self.inner.levels().name(l),
            metadata,
            tokens,
        )
    }
}

/// `arg`: the argument's name, made only for an error.
/// What `chunk` and `semantic_chunk` read from their arguments: the metadata dict, the text object and its
/// `str`, and the document id the metadata names.
#[allow(clippy::type_complexity)]
fn chunk_inputs<'a, 'py>(
    py: Python<'py>,
    text: &'a Bound<'py, PyAny>,
    metadata: &'a Option<Bound<'py, PyAny>>,
) -> PyResult<(
    Option<&'a Bound<'py, PyDict>>,
    &'a Bound<'py, PyAny>,
    &'a str,
    Option<String>,
)> {
    let meta = metadata_arg(|| "metadata".to_owned(), metadata)?;
    let str_text = borrow_str(py, "text", text)?;
    Ok((meta, text, str_text, metadata::doc_id(meta)?))
}

pub(crate) fn metadata_arg<'a, 'py>(
    arg: impl FnOnce() -> String,
    value: &'a Option<Bound<'py, PyAny>>,
) -> PyResult<Option<&'a Bound<'py, PyDict>>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .cast::<PyDict>()
            .map(Some)
            .map_err(|_| wrong_type(&arg(), "a dict or None", v)),
    }
}

/// The `max_chars` argument as given (`None`: left out, "auto"); read in [`MaxCharsArg::parse`] so that its errors
/// are this crate's own.
struct MaxCharsArg<'py>(Option<Bound<'py, PyAny>>);

impl<'a, 'py> FromPyObject<'a, 'py> for MaxCharsArg<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Self(Some(obj.to_owned())))
    }
}

impl MaxCharsArg<'_> {
    /// "auto", an int (at least 1; the core checks it against the size) or None (no cap).
    fn parse(&self) -> PyResult<MaxChars> {
        let Some(obj) = &self.0 else {
            return Ok(MaxChars::Auto);
        };
        if obj.is_none() {
            return Ok(MaxChars::Off);
        }
        if let Ok(s) = obj.cast::<pyo3::types::PyString>() {
            return match s.to_cow()?.as_ref() {
                "auto" => Ok(MaxChars::Auto),
                _ => Err(chunking(format!(
                    "max_chars must be 'auto', an int or None, got {}",
                    obj.repr()?
                ))),
            };
        }
        if obj.is_instance_of::<pyo3::types::PyBool>()
            || !obj.is_instance_of::<pyo3::types::PyInt>()
        {
            return Err(wrong_type("max_chars", "'auto', an int or None", obj));
        }
        count_arg("max_chars", obj, 1).map(MaxChars::Limit)
    }
}

/// The `threshold` argument: None (the mode's default) or a number (an int or a float, never a bool); the core
/// checks its range for the mode.
fn threshold_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) if v.is_instance_of::<pyo3::types::PyBool>() => {
            Err(wrong_type("threshold", "a number or None", v))
        }
        Some(v) => v
            .extract::<f64>()
            .map(Some)
            .map_err(|_| wrong_type("threshold", "a number or None", v)),
    }
}

/// Vectors as the semantic calls take them: the native float32 bytes of a C-ordered array (`ndarray.tobytes()`).
fn floats(vectors: &Bound<'_, PyBytes>) -> PyResult<Vec<f32>> {
    chunkwise_core::semantic::vectors_from_bytes(vectors.as_bytes()).map_err(to_py)
}

/// The `restart` argument: None, "paragraph" or "line".
fn restart_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Restart>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.cast::<pyo3::types::PyString>() {
            Ok(s) => s.to_cow()?.parse().map(Some).map_err(to_py),
            Err(_) => Err(wrong_type("restart", "'paragraph', 'line' or None", v)),
        },
    }
}

#[pymethods]
impl PySplitter {
    #[new]
    #[pyo3(signature = (strategy, size, overlap=None, min_size=None, trim=true, unit="chars", separators=None,
                        separators_regex=false, keep_separator="end", snap=None, tokenizer=None,
                        merge_sections=true, size_includes_context=true, format=None,
                        rows_per_chunk=None, max_chars=MaxCharsArg(None), restart=None, mode="percentile",
                        threshold=None, window=None, target=None, min_unit=None, language="auto",
                        balance=false),
           text_signature = "(strategy, size, overlap=None, min_size=None, trim=True, unit='chars', separators=None, \
                             separators_regex=False, keep_separator='end', snap=None, tokenizer=None, \
                             merge_sections=True, size_includes_context=True, format=None, \
                             rows_per_chunk=None, max_chars='auto', restart=None, mode='percentile', \
                             threshold=None, window=None, target=None, min_unit=None, language='auto', \
                             balance=False)")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        strategy: &str,
        size: Option<&Bound<'_, PyAny>>,
        overlap: Option<&Bound<'_, PyAny>>,
        min_size: Option<&Bound<'_, PyAny>>,
        trim: bool,
        unit: &str,
        separators: Option<Vec<String>>,
        separators_regex: bool,
        keep_separator: &str,
        snap: Option<&Bound<'_, PyAny>>,
        tokenizer: Option<Bound<'_, PyAny>>,
        merge_sections: bool,
        size_includes_context: bool,
        format: Option<&str>,
        rows_per_chunk: Option<&Bound<'_, PyAny>>,
        max_chars: MaxCharsArg<'_>,
        restart: Option<&Bound<'_, PyAny>>,
        mode: &str,
        threshold: Option<&Bound<'_, PyAny>>,
        window: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
        min_unit: Option<&Bound<'_, PyAny>>,
        language: &str,
        balance: bool,
    ) -> PyResult<Self> {
        let strategy: Strategy = strategy.parse().map_err(to_py)?;
        // Ints checked here: pyo3's conversion raised OverflowError for 2**63 and took True as 1. The lower bounds
        // are the core's, with its messages; the core checks the bounds that depend on other arguments.
        let int = |arg: &str, value: Option<&Bound<'_, PyAny>>, lo: i64| match value {
            Some(v) => count_arg(arg, v, lo),
            None => Ok(0),
        };
        // Left out, the size is the tokenizer's model's (or rows alone limit a table's chunks): the core's rule.
        let size = size.map(|v| count_arg("size", v, 1)).transpose()?;
        let (overlap, min_size, snap) = (
            int("overlap", overlap, 0)?,
            int("min_size", min_size, 0)?,
            int("snap", snap, 0)?,
        );
        let rows_per_chunk = rows_per_chunk
            .map(|v| count_arg("rows_per_chunk", v, 1))
            .transpose()?;
        let tokenizer = match tokenizer {
            Some(t) if !t.is_none() => Some(
                t.cast::<PyTokenizer>()
                    .map_err(|_| wrong_type("tokenizer", "a chunkwise.Tokenizer", &t))?
                    .clone()
                    .unbind(),
            ),
            _ => None,
        };
        let config = SplitterConfig {
            strategy,
            size,
            overlap,
            min_size,
            balance,
            trim,
            unit: unit.parse().map_err(to_py)?,
            separators,
            separators_regex,
            keep_separator: keep_separator.parse().map_err(to_py)?,
            snap,
            restart: restart_arg(restart)?,
            tokenizer: tokenizer.as_ref().map(|t| t.get().inner.clone()),
            merge_sections,
            size_includes_context,
            // `format` is the table's for the table strategy, the text's for the semantic one.
            table_format: match (strategy, format) {
                (Strategy::Semantic, _) | (_, None) => TableFormat::Markdown,
                (_, Some(f)) => f.parse().map_err(to_py)?,
            },
            rows_per_chunk,
            max_chars: max_chars.parse()?,
            semantic: SemanticConfig {
                mode: mode.parse().map_err(to_py)?,
                threshold: threshold_arg(threshold)?,
                window: window.map_or(Ok(1), |w| count_arg("window", w, 1))?,
                target: target.map(|t| count_arg("target", t, 1)).transpose()?,
                min_unit: min_unit.map_or(Ok(DEFAULT_MIN_UNIT), |m| count_arg("min_unit", m, 0))?,
                format: match (strategy, format) {
                    (Strategy::Semantic, Some(f)) => f.parse().map_err(to_py)?,
                    _ => SemanticFormat::Text,
                },
            },
            language: match language {
                "auto" => None,
                name => Some(Syntax::named(name).map_err(to_py)?),
            },
        };
        Ok(Self {
            inner: Splitter::new(config).map_err(to_py)?,
            tokenizer,
        })
    }

    /// The chunks of `text` as `Chunk` objects; `metadata` (a dict) is copied into each. `paged`: the text is a
    /// document's pages joined by form feeds, numbered even when there is one page.
    #[pyo3(signature = (text, metadata=None, paged=false))]
    fn chunk<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        metadata: Option<Bound<'py, PyAny>>,
        paged: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let (meta, source, text, doc_id) = chunk_inputs(py, text, &metadata)?;
        let options = ChunkOptions {
            doc_id: doc_id.as_deref(),
            paged,
        };
        let prepared = self.prepare(py, text, options)?;
        self.build_one(py, source, &prepared, meta)
    }

    /// `chunk` for many texts: split in parallel on all cores with the GIL released.
    #[pyo3(signature = (texts, metadatas=None))]
    fn chunk_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        metadatas: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let items = collect("texts", texts)?;
        let metas = match &metadatas {
            Some(m) if !m.is_none() => {
                let metas: Vec<Option<Bound<'py, PyAny>>> =
                    collect("metadatas", m)?.into_iter().map(Some).collect();
                if metas.len() != items.len() {
                    return Err(one_per_text("metadatas", items.len(), metas.len()));
                }
                metas
            }
            _ => vec![None; items.len()],
        };
        let metas = metas
            .iter()
            .enumerate()
            .map(|(i, m)| metadata_arg(|| format!("metadatas[{i}]"), m))
            .collect::<PyResult<Vec<_>>>()?;
        let doc_ids = metas
            .iter()
            .map(|m| metadata::doc_id(*m))
            .collect::<PyResult<Vec<_>>>()?;
        let strs = borrow_all(py, "texts", &items)?;
        let mut lists = Vec::with_capacity(items.len());
        build::gc_paused(py, || {
            self.pipeline(
                py,
                &strs,
                |i, t, stop| {
                    let options = ChunkOptions {
                        doc_id: doc_ids[i].as_deref(),
                        paged: false,
                    };
                    build::split(&self.inner, t, options, stop)
                },
                |i, prepared| {
                    let prepared = prepared.map_err(|e| batch_error(i, e))?;
                    let meta = (|| format!("metadatas[{i}]"), metas[i]);
                    lists.push(self.build(py, &items[i], &prepared, meta)?);
                    Ok(())
                },
            )?;
            PyList::new(py, lists)
        })
    }

    /// A bytearray of native int64 (start, end) pairs in `str` indices, one per chunk.
    fn spans<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyByteArray>> {
        let text = borrow_str(py, "text", text)?;
        let spans = self.split(py, text)?;
        Ok(PyByteArray::new(py, &flatten(&self.inner, text, &spans)))
    }

    /// Semantic strategy: the units of `text` to embed, one vector each, in order (see
    /// `Splitter::semantic_units`): a bytearray of native int64 (start, end) pairs in `str` indices.
    fn semantic_units<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyByteArray>> {
        let text = borrow_str(py, "text", text)?;
        let units = run(py, self.detach(text), "reading the units", || {
            self.inner.semantic_units(text)
        })?;
        self.check()?;
        let offsets = flatten(&self.inner, text, &units.map_err(to_py)?);
        Ok(PyByteArray::new(py, &offsets))
    }

    /// Semantic strategy: the chunks of `text` given `vectors`, the float32 bytes of one row of `dim` values for
    /// each of its units, as `chunk` gives them; each chunk's metadata has `cut_score` and `cut_mode`.
    #[pyo3(signature = (text, vectors, dim, metadata=None, paged=false))]
    fn semantic_chunk<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        vectors: &Bound<'py, PyBytes>,
        dim: usize,
        metadata: Option<Bound<'py, PyAny>>,
        paged: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let (meta, source, text, doc_id) = chunk_inputs(py, text, &metadata)?;
        let options = ChunkOptions {
            doc_id: doc_id.as_deref(),
            paged,
        };
        let vectors = floats(vectors)?;
        let prepared = self.call(py, !self.calls_python(), "splitting the text", |stop| {
            build::semantic(&self.inner, text, (&vectors, dim), options, stop)
        })?;
        self.build_one(py, source, &prepared, meta)
    }

    /// Semantic strategy: `spans` of `text` given `vectors` (as `semantic_chunk` takes them).
    fn semantic_spans<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        vectors: &Bound<'py, PyBytes>,
        dim: usize,
    ) -> PyResult<Bound<'py, PyByteArray>> {
        let text = borrow_str(py, "text", text)?;
        let vectors = floats(vectors)?;
        let chunks = self.call(py, !self.calls_python(), "splitting the text", |stop| {
            self.inner
                .semantic_chunks(text, &vectors, dim, ChunkOptions::default(), Some(stop))
        })?;
        let pairs = chunks
            .chunks
            .chunks
            .iter()
            .map(|c| (c.char_start, c.char_end));
        Ok(PyByteArray::new(
            py,
            &chunkwise_core::offsets::packed(pairs),
        ))
    }

    /// `spans` for many texts, in parallel on all cores with the GIL released, packed for all texts at once:
    /// (offsets of every text one after the other, as in `spans`; the number of chunks of each text, native int64).
    /// Three objects for the whole batch, not three per text: building those under the GIL was the serial part.
    fn spans_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyBytes>)> {
        let items = collect("texts", texts)?;
        let strs = borrow_all(py, "texts", &items)?;
        let packed = self.for_all(py, &strs, |_, t, stop| {
            self.try_split(t, stop)
                .map(|spans| flatten(&self.inner, t, &spans))
        })?;
        let (offsets, counts) = py.detach(|| chunkwise_core::offsets::packed_batch(&packed));
        Ok((PyByteArray::new(py, &offsets), PyBytes::new(py, &counts)))
    }

    /// The size of `text` in the splitter's unit.
    fn size_of(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<usize> {
        Ok(self.inner.size_of(borrow_str(py, "text", text)?))
    }

    /// Whether the strategy reads a document's structure (markdown, clause, table): it needs the whole text (no
    /// stream), and its chunks carry a description (title path, type, rows).
    fn is_structural(&self) -> bool {
        self.inner.is_structural()
    }

    /// The arguments the splitter was built with.
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.config();
        let d = PyDict::new(py);
        d.set_item("strategy", c.strategy.name())?;
        d.set_item("size", c.size)?;
        d.set_item("overlap", c.overlap)?;
        d.set_item("min_size", c.min_size)?;
        d.set_item("balance", c.balance)?;
        d.set_item("trim", c.trim)?;
        d.set_item("unit", c.unit.name())?;
        d.set_item("separators", c.separators.clone())?;
        d.set_item("separators_regex", c.separators_regex)?;
        d.set_item("keep_separator", c.keep_separator.name())?;
        d.set_item("snap", c.snap)?;
        d.set_item("restart", c.restart.map(Restart::name))?;
        d.set_item(
            "tokenizer",
            self.tokenizer.as_ref().map(|t| t.clone_ref(py)),
        )?;
        d.set_item("merge_sections", c.merge_sections)?;
        d.set_item("size_includes_context", c.size_includes_context)?;
        if c.strategy == Strategy::Semantic {
            d.set_item("format", c.semantic.format.name())?;
        } else {
            d.set_item("format", c.table_format.name())?;
        }
        d.set_item("rows_per_chunk", c.rows_per_chunk)?;
        match c.max_chars {
            MaxChars::Auto => d.set_item("max_chars", "auto")?,
            MaxChars::Off => d.set_item("max_chars", py.None())?,
            MaxChars::Limit(n) => d.set_item("max_chars", n)?,
        }
        if c.strategy == Strategy::Semantic {
            d.set_item("mode", c.semantic.mode.name())?;
            d.set_item("threshold", c.semantic.threshold)?;
            d.set_item("window", c.semantic.window)?;
            d.set_item("target", c.semantic.target)?;
            d.set_item("min_unit", c.semantic.min_unit)?;
        }
        if c.strategy == Strategy::Code {
            d.set_item("language", c.language.map_or("auto", |l| l.name))?;
        }
        Ok(d)
    }

    /// Pickled as its `config`: one list of arguments for both.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let rebuild = py
            .import("chunkwise._core")?
            .getattr("_splitter_from_config")?;
        Ok((rebuild, PyTuple::new(py, [slf.get().config(py)?])?))
    }

    fn __repr__(&self) -> String {
        let c = self.inner.config();
        let size = c.size.map_or_else(|| "None".to_owned(), |n| n.to_string());
        let restart = c
            .restart
            .map_or_else(String::new, |r| format!(", restart={:?}", r.name()));
        format!(
            "Splitter(strategy={:?}, size={size}, overlap={}, unit={:?}{restart})",
            c.strategy.name(),
            c.overlap,
            c.unit.name()
        )
    }
}

/// The language of a source file named `path`, by its name (None: not one CodeChunker knows); a header (`.h`) is
/// C++ when `text` (its content, or the first part of it) says so.
#[pyfunction]
#[pyo3(signature = (path, text=None))]
pub(crate) fn code_language(
    py: Python<'_>,
    path: &str,
    text: Option<Bound<'_, PyAny>>,
) -> PyResult<Option<&'static str>> {
    // The text as every call reads it: a lone surrogate is a ChunkingError naming `text`.
    let text = text
        .as_ref()
        .map(|t| borrow_str(py, "text", t))
        .transpose()?;
    Ok(Syntax::for_file(path, text).map(|s| s.name))
}

/// The names CodeChunker takes for `language`, canonical ones only.
#[pyfunction]
pub(crate) fn code_languages() -> Vec<&'static str> {
    chunkwise_core::structure::code::LANGUAGES
        .iter()
        .map(|s| s.name)
        .collect()
}

/// A splitter from its `config` (how a pickled splitter is restored).
#[pyfunction]
pub(crate) fn _splitter_from_config<'py>(
    py: Python<'py>,
    config: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    py.get_type::<PySplitter>().call((), Some(config))
}
