//! Python bindings of chunkwise: argument conversion, GIL handling and result packing. No chunking logic here.

use std::panic::{catch_unwind, AssertUnwindSafe};

use chunkwise_core::{KeepSeparator, Span, Splitter, SplitterConfig, Strategy};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyTuple};

mod chunk;
mod errors;
mod langchain;
mod text;
mod tokenizer;

use chunk::{Chunk, Prepared};
use errors::{internal, to_py, wrong_type, ChunkingError};
use text::borrow_str;
use tokenizer::PyTokenizer;

/// mimalloc (as pydantic-core uses): batches allocate in worker threads and free on the main thread, which the
/// system allocator serialises.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Texts shorter than this are split with the GIL held: releasing it costs more than the work.
const DETACH_BYTES: usize = 16 * 1024;

/// Packs spans as (bytearray of native int64 [start, end] pairs in `str` offsets, bytes of level codes).
fn flatten(splitter: &Splitter, text: &str, spans: &[Span]) -> (Vec<u8>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(spans.len() * 16);
    for (start, end) in splitter.char_spans(text, spans) {
        offsets.extend_from_slice(&(start as i64).to_ne_bytes());
        offsets.extend_from_slice(&(end as i64).to_ne_bytes());
    }
    let levels = spans.iter().map(|s| s.level.0).collect();
    (offsets, levels)
}

/// The items of an iterable of `str`, borrowed as UTF-8.
fn borrow_all<'a>(
    py: Python<'_>,
    arg: &str,
    items: &'a [Bound<'_, PyAny>],
) -> PyResult<Vec<&'a str>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| borrow_str(py, &format!("{arg}[{i}]"), item))
        .collect()
}

fn collect<'py>(arg: &str, iterable: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if iterable.is_instance_of::<pyo3::types::PyString>() {
        return Err(wrong_type(arg, "a sequence of str, not a single", iterable));
    }
    iterable
        .try_iter()
        .map_err(|_| wrong_type(arg, "an iterable of str", iterable))?
        .collect()
}

/// The core splitter. Immutable after construction, so threads may share it.
#[pyclass(frozen, module = "chunkwise._core", name = "Splitter")]
#[derive(Debug)]
struct PySplitter {
    inner: Splitter,
    strategy: String,
    keep_separator: String,
    tokenizer: Option<Py<PyTokenizer>>,
}

impl PySplitter {
    /// Splits with the GIL released when the text is large enough to be worth it; a panic becomes an error.
    fn split(&self, py: Python<'_>, text: &str) -> PyResult<Vec<Span>> {
        let run = || catch_unwind(AssertUnwindSafe(|| self.inner.split(text)));
        let spans = if self.detach(text) {
            py.detach(run)
        } else {
            run()
        };
        let spans = spans.map_err(|_| internal("splitting a text"))?;
        self.check()?;
        Ok(spans)
    }

    /// Whether to release the GIL for `text`: for large texts, unless sizes come from a Python callable.
    fn detach(&self, text: &str) -> bool {
        text.len() >= DETACH_BYTES && !self.calls_python()
    }

    fn calls_python(&self) -> bool {
        self.tokenizer
            .as_ref()
            .is_some_and(|t| t.get().calls_python())
    }

    /// `f(i, texts[i])` for every text: in parallel on all cores with the GIL released, or one after the other
    /// with the GIL held when sizes come from a Python callable.
    fn for_all<T: Send>(
        &self,
        py: Python<'_>,
        texts: &[&str],
        f: impl Fn(usize, &str) -> T + Sync,
    ) -> PyResult<Vec<T>> {
        let out = if self.calls_python() {
            catch_unwind(AssertUnwindSafe(|| {
                texts.iter().enumerate().map(|(i, t)| f(i, t)).collect()
            }))
        } else {
            py.detach(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    use rayon::prelude::*;
                    texts.par_iter().enumerate().map(|(i, t)| f(i, t)).collect()
                }))
            })
        };
        let out = out.map_err(|_| internal("splitting a batch"))?;
        self.check()?;
        Ok(out)
    }

    /// Raises what a Python tokenizer callable raised while splitting.
    fn check(&self) -> PyResult<()> {
        match &self.tokenizer {
            Some(t) => t.get().check(),
            None => Ok(()),
        }
    }

    /// Splits and prepares a text's chunks (offsets, ids) without the GIL when the text is large.
    fn prepare(&self, py: Python<'_>, text: &str, doc_id: Option<&str>) -> PyResult<Prepared> {
        let run = || {
            catch_unwind(AssertUnwindSafe(|| {
                Prepared::new(&self.inner, text, self.inner.split(text), doc_id)
            }))
        };
        let prepared = if self.detach(text) {
            py.detach(run)
        } else {
            run()
        };
        let prepared = prepared.map_err(|_| internal("splitting a text"))?;
        self.check()?;
        Ok(prepared)
    }

    fn build<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        prepared: &Prepared,
        metadata: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let source = source.cast::<pyo3::types::PyString>()?;
        let tokens = self.tokenizer.is_some();
        let chunks = chunk::build(
            py,
            source,
            prepared,
            |l| self.inner.level_name(l),
            metadata,
            tokens,
        )?;
        PyList::new(py, chunks)
    }
}

fn metadata_arg<'a, 'py>(
    arg: &str,
    value: &'a Option<Bound<'py, PyAny>>,
) -> PyResult<Option<&'a Bound<'py, PyDict>>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .cast::<PyDict>()
            .map(Some)
            .map_err(|_| wrong_type(arg, "a dict or None", v)),
    }
}

#[pymethods]
impl PySplitter {
    #[new]
    #[pyo3(signature = (strategy, size, overlap=0, min_size=0, trim=true, unit="chars", separators=None,
                        separators_regex=false, keep_separator="end", snap=0, tokenizer=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        strategy: &str,
        size: i64,
        overlap: i64,
        min_size: i64,
        trim: bool,
        unit: &str,
        separators: Option<Vec<String>>,
        separators_regex: bool,
        keep_separator: &str,
        snap: i64,
        tokenizer: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let tokenizer = match tokenizer {
            Some(t) if !t.is_none() => Some(
                t.cast::<PyTokenizer>()
                    .map_err(|_| wrong_type("tokenizer", "a chunkwise.Tokenizer", &t))?
                    .clone()
                    .unbind(),
            ),
            _ => None,
        };
        let keep = match keep_separator {
            "end" => KeepSeparator::End,
            "start" => KeepSeparator::Start,
            other => {
                return Err(ChunkingError::new_err(format!(
                    "keep_separator must be 'end' or 'start', got {other:?}"
                )))
            }
        };
        let config = SplitterConfig {
            strategy: Strategy::parse(strategy).map_err(to_py)?,
            size,
            overlap,
            min_size,
            trim,
            unit: unit.to_owned(),
            separators,
            separators_regex,
            keep_separator: keep,
            snap,
            tokenizer: tokenizer.as_ref().map(|t| t.get().inner.clone()),
        };
        Ok(Self {
            inner: Splitter::new(config).map_err(to_py)?,
            strategy: strategy.to_owned(),
            keep_separator: keep_separator.to_owned(),
            tokenizer,
        })
    }

    /// The chunks of `text` as `Chunk` objects; `metadata` (a dict) is copied into each.
    #[pyo3(signature = (text, metadata=None))]
    fn chunk<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        metadata: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let meta = metadata_arg("metadata", &metadata)?;
        let source = text;
        let text = borrow_str(py, "text", source)?;
        let prepared = self.prepare(py, text, chunk::doc_id(meta)?.as_deref())?;
        self.build(py, source, &prepared, meta)
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
                    return Err(ChunkingError::new_err(format!(
                        "metadatas must have one entry per text ({}), got {}",
                        items.len(),
                        metas.len()
                    )));
                }
                metas
            }
            _ => vec![None; items.len()],
        };
        let metas = metas
            .iter()
            .enumerate()
            .map(|(i, m)| metadata_arg(&format!("metadatas[{i}]"), m))
            .collect::<PyResult<Vec<_>>>()?;
        let doc_ids = metas
            .iter()
            .map(|m| chunk::doc_id(*m))
            .collect::<PyResult<Vec<_>>>()?;
        let strs = borrow_all(py, "texts", &items)?;
        let prepared = self.for_all(py, &strs, |i, t| {
            Prepared::new(&self.inner, t, self.inner.split(t), doc_ids[i].as_deref())
        })?;
        let lists = items
            .iter()
            .zip(&prepared)
            .zip(&metas)
            .map(|((source, p), m)| self.build(py, source, p, *m))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, lists)
    }

    /// (offsets, levels): offsets a bytearray of native int64 (start, end) pairs in `str` indices, levels a bytes
    /// object with one level code per chunk (see `level_name`).
    fn spans<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyBytes>)> {
        let text = borrow_str(py, "text", text)?;
        let spans = self.split(py, text)?;
        let (offsets, levels) = flatten(&self.inner, text, &spans);
        Ok((PyByteArray::new(py, &offsets), PyBytes::new(py, &levels)))
    }

    /// `spans` for many texts, in parallel on all cores with the GIL released.
    fn spans_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let items = collect("texts", texts)?;
        let strs = borrow_all(py, "texts", &items)?;
        let packed = self.for_all(py, &strs, |_, t| {
            flatten(&self.inner, t, &self.inner.split(t))
        })?;
        let items = packed
            .iter()
            .map(|(o, l)| {
                PyTuple::new(
                    py,
                    [
                        PyByteArray::new(py, o).into_any(),
                        PyBytes::new(py, l).into_any(),
                    ],
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// The name of a level code: "paragraph", "line", "sentence", "clause", "wrap", "word", "grapheme", "separator", "end".
    fn level_name(&self, level: u8) -> &'static str {
        self.inner.level_name(chunkwise_core::Level(level))
    }

    /// The size of `text` in the splitter's unit.
    fn size_of(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<usize> {
        Ok(self.inner.size_of(borrow_str(py, "text", text)?))
    }

    /// The arguments the splitter was built with.
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.config();
        let d = PyDict::new(py);
        d.set_item("strategy", &self.strategy)?;
        d.set_item("size", c.size)?;
        d.set_item("overlap", c.overlap)?;
        d.set_item("min_size", c.min_size)?;
        d.set_item("trim", c.trim)?;
        d.set_item("unit", &c.unit)?;
        d.set_item("separators", c.separators.clone())?;
        d.set_item("separators_regex", c.separators_regex)?;
        d.set_item("keep_separator", &self.keep_separator)?;
        d.set_item("snap", c.snap)?;
        d.set_item(
            "tokenizer",
            self.tokenizer.as_ref().map(|t| t.clone_ref(py)),
        )?;
        Ok(d)
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let this = slf.get();
        let c = this.inner.config();
        let args = (
            this.strategy.clone(),
            c.size,
            c.overlap,
            c.min_size,
            c.trim,
            c.unit.clone(),
            c.separators.clone(),
            c.separators_regex,
            this.keep_separator.clone(),
            c.snap,
            this.tokenizer.as_ref().map(|t| t.clone_ref(py)),
        )
            .into_pyobject(py)?;
        Ok((slf.get_type().into_any(), args))
    }

    fn __repr__(&self) -> String {
        let c = self.inner.config();
        format!(
            "Splitter(strategy={:?}, size={}, overlap={}, unit={:?})",
            self.strategy, c.size, c.overlap, c.unit
        )
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySplitter>()?;
    m.add_class::<Chunk>()?;
    m.add_class::<PyTokenizer>()?;
    m.add_class::<langchain::PyLangchainSplitter>()?;
    m.add_function(wrap_pyfunction!(langchain::tiktoken_windows, m)?)?;
    m.add("ChunkingError", m.py().get_type::<ChunkingError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
