//! Python bindings of chunkwise: argument conversion, GIL handling and result packing. No chunking logic here.

use std::panic::{catch_unwind, AssertUnwindSafe};

use chunkwise_core::offsets::char_spans;
use chunkwise_core::{KeepSeparator, Span, Splitter, SplitterConfig, Strategy};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};

mod errors;

use errors::{internal, to_py, unencodable, wrong_type, ChunkingError};

/// Texts shorter than this are split with the GIL held: releasing it costs more than the work.
const DETACH_BYTES: usize = 16 * 1024;

/// Extracts a `str` argument as UTF-8, with clear errors for other types and for lone surrogates.
fn extract_text(py: Python<'_>, arg: &str, obj: &Bound<'_, PyAny>) -> PyResult<PyBackedStr> {
    let s = obj
        .cast::<PyString>()
        .map_err(|_| wrong_type(arg, "str", obj))?;
    s.extract::<PyBackedStr>()
        .map_err(|e| unencodable(py, arg, s, e))
}

/// Packs spans as (bytearray of native int64 [start, end] pairs in `str` offsets, bytes of levels).
fn pack<'py>(
    py: Python<'py>,
    text: &str,
    spans: &[Span],
) -> (Bound<'py, PyByteArray>, Bound<'py, PyBytes>) {
    let (offsets, levels) = flatten(text, spans);
    (PyByteArray::new(py, &offsets), PyBytes::new(py, &levels))
}

fn flatten(text: &str, spans: &[Span]) -> (Vec<u8>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(spans.len() * 16);
    for (start, end) in char_spans(text, spans) {
        offsets.extend_from_slice(&(start as i64).to_ne_bytes());
        offsets.extend_from_slice(&(end as i64).to_ne_bytes());
    }
    let levels = spans.iter().map(|s| s.level.0).collect();
    (offsets, levels)
}

/// The core splitter. Immutable after construction, so threads may share it.
#[pyclass(frozen, module = "chunkwise._core", name = "Splitter")]
struct PySplitter {
    inner: Splitter,
    strategy: String,
    keep_separator: String,
}

#[pymethods]
impl PySplitter {
    #[new]
    #[pyo3(signature = (strategy, size, overlap=0, min_size=0, trim=true, unit="chars", separators=None,
                        separators_regex=false, keep_separator="end", snap=0))]
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
    ) -> PyResult<Self> {
        let keep = match keep_separator {
            "end" => KeepSeparator::End,
            "start" => KeepSeparator::Start,
            other => {
                return Err(ChunkingError::new_err(format!(
                    "keep_separator: keep_separator must be 'end' or 'start', got {other:?}"
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
        };
        Ok(Self {
            inner: Splitter::new(config).map_err(to_py)?,
            strategy: strategy.to_owned(),
            keep_separator: keep_separator.to_owned(),
        })
    }

    /// (offsets, levels): offsets a bytearray of native int64 (start, end) pairs in `str` indices, levels a bytes
    /// object with one level code per chunk (see `level_name`).
    fn spans<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyBytes>)> {
        let text = extract_text(py, "text", text)?;
        let run = || catch_unwind(AssertUnwindSafe(|| self.inner.split(&text)));
        let spans = if text.len() >= DETACH_BYTES {
            py.detach(run)
        } else {
            run()
        };
        let spans = spans.map_err(|_| internal("splitting a text"))?;
        Ok(pack(py, &text, &spans))
    }

    /// `spans` for many texts, in parallel on all cores with the GIL released.
    fn spans_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut owned = Vec::new();
        for (i, item) in texts
            .try_iter()
            .map_err(|_| wrong_type("texts", "an iterable of str", texts))?
            .enumerate()
        {
            let item = item?;
            owned.push(extract_text(py, &format!("texts[{i}]"), &item)?);
        }
        let packed = py
            .detach(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    use rayon::prelude::*;
                    owned
                        .par_iter()
                        .map(|t| flatten(t, &self.inner.split(t)))
                        .collect::<Vec<_>>()
                }))
            })
            .map_err(|_| internal("splitting a batch"))?;
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

    /// The name of a level code: "paragraph", "line", "sentence", "clause", "word", "grapheme", "separator", "end".
    fn level_name(&self, level: u8) -> &'static str {
        self.inner.level_name(chunkwise_core::Level(level))
    }

    /// The size of `text` in the splitter's unit.
    fn size_of(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<usize> {
        let text = extract_text(py, "text", text)?;
        Ok(self.inner.size_of(&text))
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
    m.add("ChunkingError", m.py().get_type::<ChunkingError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
