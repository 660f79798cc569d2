//! `chunkwise.Tokenizer`: the Python face of the core's `TokenCounter`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use chunkwise_core::{CountFn, TokenCounter};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::errors::{chunking, run, to_py, type_error, wrong_type, DETACH_BYTES};
use crate::text::borrow_str;

/// What the tokenizer was built from: enough to build it again when unpickled.
#[derive(Debug)]
enum Source {
    Json(String),
    Tiktoken(String),
    Callable(Py<PyAny>),
}

/// A tokenizer that measures chunk sizes in tokens, exactly, counted in Rust.
///
/// Build one with ``Tokenizer.from_file``, ``from_str``, ``from_huggingface``, ``tiktoken`` or ``from_callable``
/// and pass it to any chunker as ``tokenizer=``.
#[pyclass(frozen, module = "chunkwise", name = "Tokenizer")]
#[derive(Debug)]
pub struct PyTokenizer {
    pub(crate) inner: Arc<TokenCounter>,
    source: Source,
    add_special_tokens: bool,
    /// The first exception raised by a Python callable while counting, raised again after the call.
    callable: Option<Arc<PyCount>>,
}

/// A Python callable as a token counter.
#[derive(Debug)]
pub(crate) struct PyCount {
    func: Py<PyAny>,
    error: Mutex<Option<PyErr>>,
}

impl CountFn for PyCount {
    fn count(&self, text: &str) -> usize {
        Python::attach(|py| {
            let result = self.func.call1(py, (text,)).and_then(|r| {
                let n = r.bind(py);
                n.extract::<usize>().map_err(|_| {
                    type_error(format!(
                        "the tokenizer callable must return a non-negative int, got {}",
                        n.repr().map_or_else(|_| "?".to_owned(), |r| r.to_string())
                    ))
                })
            });
            result.unwrap_or_else(|err| {
                let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
                slot.get_or_insert(err);
                0
            })
        })
    }
}

impl PyTokenizer {
    /// Raises the first error a Python callable raised during the last call, if any.
    pub(crate) fn check(&self) -> PyResult<()> {
        if let Some(c) = &self.callable {
            let err = c.error.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(err) = err {
                return Err(err);
            }
        }
        Ok(())
    }

    /// Whether a Python callable raised during the current call: the split may stop, its result is lost anyway.
    pub(crate) fn failed(&self) -> bool {
        self.callable
            .as_ref()
            .is_some_and(|c| c.error.lock().unwrap_or_else(|p| p.into_inner()).is_some())
    }

    /// Whether counting calls back into Python (then the GIL must be free for it, and batches gain nothing).
    pub(crate) fn calls_python(&self) -> bool {
        self.callable.is_some()
    }

    fn new(inner: TokenCounter, source: Source, add_special_tokens: bool) -> Self {
        Self {
            inner: Arc::new(inner),
            source,
            add_special_tokens,
            callable: None,
        }
    }

    /// A tokenizer from the text of a tokenizer.json, of a model that takes `window` tokens when known; an error
    /// names `arg`, where the JSON came from.
    fn from_json(
        json: String,
        add_special_tokens: bool,
        window: Option<usize>,
        arg: &str,
    ) -> PyResult<Self> {
        let mut inner = TokenCounter::from_hf_json(&json, add_special_tokens)
            .map_err(|e| chunking(format!("{arg}: {e}")))?;
        if let Some(window) = window {
            inner = inner.with_window(window).map_err(to_py)?;
        }
        Ok(Self::new(inner, Source::Json(json), add_special_tokens))
    }
}

#[pymethods]
impl PyTokenizer {
    /// A Hugging Face ``tokenizer.json`` file. ``window``: the most tokens the model takes, its special tokens
    /// included, when you know it (then ``max_tokens`` is known and chunkers may leave ``size`` out).
    #[staticmethod]
    #[pyo3(signature = (path, add_special_tokens=false, window=None))]
    fn from_file(path: PathBuf, add_special_tokens: bool, window: Option<usize>) -> PyResult<Self> {
        let json = std::fs::read_to_string(&path)
            .map_err(|e| chunking(format!("path: cannot read {}: {e}", path.display())))?;
        Self::from_json(
            json,
            add_special_tokens,
            window,
            &format!("path: {}", path.display()),
        )
    }

    /// A Hugging Face tokenizer from the text of a ``tokenizer.json``; ``window`` as for ``from_file``.
    #[staticmethod]
    #[pyo3(signature = (json, add_special_tokens=false, window=None))]
    fn from_str(json: String, add_special_tokens: bool, window: Option<usize>) -> PyResult<Self> {
        Self::from_json(json, add_special_tokens, window, "json")
    }

    /// The tokenizer of a model folder (sentence-transformers or transformers layout: ``tokenizer.json`` with
    /// ``sentence_bert_config.json`` or ``tokenizer_config.json``), or of its ``tokenizer.json``, knowing the model's
    /// window: ``max_seq_length``, else ``model_max_length``. ``max_tokens`` is that window less the special tokens
    /// the model adds, the most a chunk may count to be embedded whole; a chunker given this tokenizer and
    /// ``size=None`` takes it as its size.
    #[staticmethod]
    fn for_model(path: PathBuf) -> PyResult<Self> {
        let files = chunkwise_core::ModelFiles::read(&path).map_err(to_py)?;
        Self::from_json(
            files.tokenizer_json,
            false,
            Some(files.window),
            &format!("path: {}", path.display()),
        )
    }

    /// The most tokens a chunk may count for the model to embed it whole (its window less the special tokens it
    /// adds and this tokenizer does not count), or None when the window is not known.
    #[getter]
    fn max_tokens(&self) -> Option<usize> {
        self.inner.max_tokens()
    }

    /// The most tokens the model takes, its special tokens included, when known.
    #[getter]
    fn window(&self) -> Option<usize> {
        self.inner.window()
    }

    /// A ``tokenizers.Tokenizer``, or a ``transformers`` fast tokenizer (through its ``backend_tokenizer``).
    #[staticmethod]
    #[pyo3(signature = (tokenizer, add_special_tokens=false))]
    fn from_huggingface(tokenizer: &Bound<'_, PyAny>, add_special_tokens: bool) -> PyResult<Self> {
        let backend = match tokenizer.getattr("backend_tokenizer") {
            Ok(b) => b,
            Err(_) => tokenizer.clone(),
        };
        let json = backend
            .call_method0("to_str")
            .map_err(|_| {
                wrong_type(
                    "tokenizer",
                    "a tokenizers.Tokenizer or a transformers fast tokenizer",
                    tokenizer,
                )
            })?
            .extract::<String>()?;
        Self::from_json(json, add_special_tokens, None, "tokenizer")
    }

    /// A tiktoken encoding ("cl100k_base", "o200k_base", "p50k_base", "p50k_edit", "r50k_base" or "gpt2"; the
    /// list is ``chunkwise._core.tiktoken_encodings()``); the ranks are
    /// built into chunkwise, so no network is needed. Text that looks like a special token is counted as
    /// ordinary text, as ``encode_ordinary`` does.
    #[staticmethod]
    #[pyo3(signature = (encoding="cl100k_base"))]
    fn tiktoken(encoding: &str) -> PyResult<Self> {
        let inner = TokenCounter::tiktoken(encoding).map_err(to_py)?;
        Ok(Self::new(
            inner,
            Source::Tiktoken(encoding.to_owned()),
            false,
        ))
    }

    /// Any function ``str -> int`` (the slow path: it is called on whole chunks and look-ahead windows).
    #[staticmethod]
    #[pyo3(signature = (func, name=None))]
    fn from_callable(
        py: Python<'_>,
        func: Bound<'_, PyAny>,
        name: Option<String>,
    ) -> PyResult<Self> {
        if !func.is_callable() {
            return Err(wrong_type(
                "func",
                "a callable taking a str and returning an int",
                &func,
            ));
        }
        let name = match name {
            Some(n) => n,
            None => func.repr()?.to_string(),
        };
        let count = Arc::new(PyCount {
            func: func.clone().unbind(),
            error: Mutex::new(None),
        });
        let inner = TokenCounter::external(count.clone(), &name);
        Ok(Self {
            inner: Arc::new(inner),
            source: Source::Callable(func.unbind().clone_ref(py)),
            add_special_tokens: false,
            callable: Some(count),
        })
    }

    /// ``tokenizer(text)`` is ``tokenizer.count(text)``, so a tokenizer can serve as a ``length_function``.
    fn __call__(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.count(py, text)
    }

    /// The exact number of tokens of ``text`` (special tokens included when the tokenizer was built with
    /// ``add_special_tokens=True``); a ChunkingError with Hugging Face's reason for text it cannot encode.
    fn count(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<usize> {
        let s = borrow_str(py, "text", text)?;
        let release = s.len() >= DETACH_BYTES && !self.calls_python();
        let n = run(py, release, "counting tokens", || self.inner.try_count(s))?;
        self.check()?;
        n.map_err(to_py)
    }

    /// Where the tokens of ``text`` lie, as ``str`` offsets: a list of ``(start, end)``, one per token in the
    /// tokenizer's order, special tokens left out. A token that ends inside a character (byte-level BPE on CJK
    /// text) is widened to the whole character. What evaluation in tokens counts (``chunkwise.evaluation``). A
    /// ChunkingError for a tokenizer made ``from_callable`` (it counts, it does not say where).
    fn token_spans(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(usize, usize)>> {
        let s = borrow_str(py, "text", text)?;
        let release = s.len() >= DETACH_BYTES && !self.calls_python();
        let spans = run(py, release, "finding tokens", || {
            self.inner.token_char_spans(s)
        })?;
        spans.map_err(to_py)
    }

    /// Whether the tokens the tokenizer adds around a text (``[CLS]``, ``[SEP]``) are counted.
    #[getter]
    fn add_special_tokens(&self) -> bool {
        self.add_special_tokens
    }

    /// How texts are cut into pieces for the memo: "spaces", "spaces+cjk", "spaces+cjk+lines", "spaces-normalized"
    /// (Metaspace behind a SentencePiece normalizer), "bert", "bert+han" or "whole" (counted whole: exact, slower).
    #[getter]
    fn piece_rule(&self) -> &'static str {
        self.inner.rule_name()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let this = slf.get();
        let cls = slf.get_type();
        let (method, args) = match &this.source {
            Source::Json(json) => (
                "from_str",
                (
                    PyString::new(py, json),
                    this.add_special_tokens,
                    this.inner.window(),
                )
                    .into_pyobject(py)?,
            ),
            Source::Tiktoken(name) => ("tiktoken", (PyString::new(py, name),).into_pyobject(py)?),
            Source::Callable(f) => ("from_callable", (f.clone_ref(py),).into_pyobject(py)?),
        };
        Ok((
            cls.getattr(method)?,
            args.into_any().cast_into::<PyTuple>()?,
        ))
    }

    /// Equal when built from the same tokenizer.json, encoding or callable, with the same special-token setting.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        let Ok(other) = other.cast::<PyTokenizer>() else {
            return false;
        };
        let other = other.get();
        let same = match (&self.source, &other.source) {
            (Source::Json(a), Source::Json(b)) | (Source::Tiktoken(a), Source::Tiktoken(b)) => {
                a == b
            }
            (Source::Callable(a), Source::Callable(b)) => a.is(b),
            _ => false,
        };
        same && self.add_special_tokens == other.add_special_tokens
            && self.inner.window() == other.inner.window()
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        match &self.source {
            Source::Json(s) | Source::Tiktoken(s) => s.hash(&mut h),
            Source::Callable(f) => (f.as_ptr() as usize).hash(&mut h),
        }
        self.add_special_tokens.hash(&mut h);
        self.inner.window().hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        let what = match &self.source {
            Source::Json(_) => self.inner.description().to_owned(),
            Source::Tiktoken(name) => format!("tiktoken({name:?})"),
            Source::Callable(_) => "from_callable(...)".to_owned(),
        };
        let window = self
            .inner
            .window()
            .map_or_else(String::new, |w| format!(", window={w}"));
        format!(
            "Tokenizer({what}, add_special_tokens={}{window})",
            if self.add_special_tokens {
                "True"
            } else {
                "False"
            }
        )
    }
}
