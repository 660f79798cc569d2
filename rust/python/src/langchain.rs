//! `chunkwise._core.LangchainSplitter`: the core of `chunkwise.langchain`, LangChain's splitters computed in Rust.
//!
//! Python (`chunkwise/langchain/`) checks the arguments with LangChain's messages and builds one of these. A separator
//! pattern outside the translated subset is matched by Python's `re` (a `matcher` object, called back with the text
//! to search); the recursion and merge stay here. Python falls back to its own loop only where the core says it
//! cannot give the same answer (a text with lone surrogates, a length function returning something other than an
//! int, a separator with capturing groups of its own).

use chunkwise_core::langchain::{self, Failure, Keep, LangchainSplitter, Matches, Measure, Output};
use chunkwise_core::offsets::CharCursor;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString, PyTuple};

use crate::errors::{not_implemented, run, run_held, to_py, value_error};
use crate::text::{substring, try_utf8 as utf8};
use crate::tokenizer::PyTokenizer;

/// A Python `length_function`, called for each piece with the GIL held.
struct PyLength<'a, 'py> {
    func: &'a Bound<'py, PyAny>,
    source: &'a Bound<'py, PyString>,
    cursor: CharCursor<'a>,
}

/// Why a Python length function stopped the split: it raised, or returned something other than an int.
enum LengthError {
    Raised(PyErr),
    NotInt,
}

impl PyLength<'_, '_> {
    fn value(&self, arg: Bound<'_, PyString>) -> Result<i64, LengthError> {
        let n = self.func.call1((arg,)).map_err(LengthError::Raised)?;
        if !n.is_instance_of::<PyInt>() {
            return Err(LengthError::NotInt);
        }
        n.extract::<i64>().map_err(|_| LengthError::NotInt)
    }
}

impl Measure for PyLength<'_, '_> {
    type Error = LengthError;
    fn measure(
        &mut self,
        _text: &str,
        ranges: &[(usize, usize)],
        out: &mut Vec<i64>,
    ) -> Result<(), LengthError> {
        for &(a, b) in ranges {
            let (a, b) = (self.cursor.to_char(a), self.cursor.to_char(b));
            let piece = substring(self.source, a, b).map_err(LengthError::Raised)?;
            out.push(self.value(piece)?);
        }
        Ok(())
    }
    fn measure_str(&mut self, s: &str) -> Result<i64, LengthError> {
        self.value(PyString::new(self.source.py(), s))
    }
}

/// The separators the core leaves to Python: `matcher.search(i, hay) -> bool` and `matcher.find_all(i, hay)`, the
/// `str` spans of separator `i`'s matches in `hay` (`re.finditer`), or `None` when its pieces are not cut at its
/// matches alone.
struct PyMatches<'a, 'py> {
    matcher: &'a Bound<'py, PyAny>,
}

impl Matches for PyMatches<'_, '_> {
    type Error = PyErr;
    fn search(&mut self, sep: usize, hay: &str) -> PyResult<bool> {
        self.matcher.call_method1("search", (sep, hay))?.is_truthy()
    }
    fn find_all(&mut self, sep: usize, hay: &str, out: &mut Vec<(usize, usize)>) -> PyResult<bool> {
        let found = self.matcher.call_method1("find_all", (sep, hay))?;
        if found.is_none() {
            return Ok(false);
        }
        let spans: Vec<(usize, usize)> = found.extract()?;
        langchain::byte_spans(hay, &spans, out).map_err(value_error)?;
        Ok(true)
    }
}

/// A split's result for Python: the chunks, `None` when Python must split this text itself, or the error to raise.
fn outcome<E, F>(
    result: Result<Output, Failure<E, F>>,
    measure_error: impl FnOnce(E) -> Option<PyErr>,
    match_error: impl FnOnce(F) -> PyErr,
) -> PyResult<Option<Output>> {
    match result {
        Ok(out) => Ok(Some(out)),
        Err(Failure::Fallback(_)) => Ok(None),
        Err(Failure::Measure(e)) => measure_error(e).map_or(Ok(None), Err),
        Err(Failure::Match(e)) => Err(match_error(e)),
    }
}

fn length_error(e: LengthError) -> Option<PyErr> {
    match e {
        LengthError::Raised(e) => Some(e),
        LengthError::NotInt => None,
    }
}

/// LangChain's recursive or character splitter, in Rust. Immutable, so threads may share it.
#[pyclass(frozen, module = "chunkwise._core", name = "LangchainSplitter")]
#[derive(Debug)]
pub struct PyLangchainSplitter {
    inner: LangchainSplitter,
    separators: Vec<String>,
    is_regex: bool,
    keep: Keep,
    chunk_size: i64,
    chunk_overlap: i64,
    strip_whitespace: bool,
    character_join: Option<String>,
    tokenizer: Option<Py<PyTokenizer>>,
    /// tiktoken's `allowed_special` and `disallowed_special`, resolved to lists of tokens.
    allowed_special: Vec<String>,
    disallowed_special: Vec<String>,
    specials: langchain::SpecialTokens,
}

/// What one split gave: chunks, and per chunk the LangChain start index and the exact offsets when asked.
type SplitResult<'py> = (
    Bound<'py, PyList>,
    Option<Vec<i64>>,
    Option<Vec<(usize, usize)>>,
    Vec<i64>,
);

const WHAT: &str = "splitting a text";

impl PyLangchainSplitter {
    /// A split with the GIL held: measured or matched by Python.
    fn split_held<M: Measure>(
        &self,
        s: &str,
        measure: &mut M,
        matcher: Option<&Bound<'_, PyAny>>,
        measure_error: impl FnOnce(M::Error) -> Option<PyErr>,
    ) -> PyResult<Option<Output>> {
        match matcher {
            Some(matcher) => {
                let mut x = PyMatches { matcher };
                let r = run_held(WHAT, || self.inner.split_with(s, measure, &mut x))?;
                outcome(r, measure_error, |e| e)
            }
            None => outcome(
                run_held(WHAT, || self.inner.split(s, measure))?,
                measure_error,
                |e| match e {},
            ),
        }
    }

    /// A split measured in Rust: without the GIL unless counting or matching calls back into Python.
    fn split_natively<M>(
        &self,
        py: Python<'_>,
        s: &str,
        measure: &mut M,
        matcher: Option<&Bound<'_, PyAny>>,
        hold_gil: bool,
        measure_error: impl FnOnce(M::Error) -> Option<PyErr>,
    ) -> PyResult<Option<Output>>
    where
        M: Measure + Send,
        M::Error: Send,
    {
        if hold_gil || matcher.is_some() {
            return self.split_held(s, measure, matcher, measure_error);
        }
        let r = run(py, true, WHAT, || self.inner.split(s, measure))?;
        outcome(r, measure_error, |e| match e {})
    }
}

#[pymethods]
impl PyLangchainSplitter {
    /// `allowed_special` and `disallowed_special` apply to a tiktoken `tokenizer`, as tiktoken's `encode` takes them.
    #[new]
    #[pyo3(signature = (separators, is_regex, keep, chunk_size, chunk_overlap, strip_whitespace, character_join=None, tokenizer=None, allowed_special=Vec::new(), disallowed_special=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        separators: Vec<String>,
        is_regex: bool,
        keep: &str,
        chunk_size: i64,
        chunk_overlap: i64,
        strip_whitespace: bool,
        character_join: Option<String>,
        tokenizer: Option<Py<PyTokenizer>>,
        allowed_special: Vec<String>,
        disallowed_special: Vec<String>,
    ) -> PyResult<Self> {
        let keep = Keep::named(keep).map_err(value_error)?;
        let inner = LangchainSplitter::new(
            &separators,
            is_regex,
            keep,
            chunk_size,
            chunk_overlap,
            strip_whitespace,
            character_join.clone(),
        )
        .map_err(|f| not_implemented(f.0))?;
        Ok(Self {
            inner,
            separators,
            is_regex,
            keep,
            chunk_size,
            chunk_overlap,
            strip_whitespace,
            character_join,
            tokenizer,
            specials: langchain::SpecialTokens::new(&allowed_special, &disallowed_special),
            allowed_special,
            disallowed_special,
        })
    }

    /// The separators Python's `re` matches (`matcher` in `split`), each with why Rust does not.
    fn external_separators(&self) -> Vec<(String, String)> {
        self.inner
            .external_separators()
            .into_iter()
            .map(|(s, why)| (s.to_owned(), why.to_owned()))
            .collect()
    }

    /// Splits `text` as LangChain does; `None` when this text must be split in Python.
    ///
    /// `length_function` is a Python callable (`None`: `len`, or the tokenizer given at construction). With
    /// `start_index`, also LangChain's `start_index` of each chunk; with `offsets`, each chunk's `str` span in the
    /// text. `matcher` matches the separators listed by `external_separators`. The last item lists the sizes
    /// LangChain warns about.
    #[pyo3(signature = (text, length_function=None, start_index=false, offsets=false, matcher=None))]
    fn split<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
        length_function: Option<&Bound<'py, PyAny>>,
        start_index: bool,
        offsets: bool,
        matcher: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<SplitResult<'py>>> {
        let Some(s) = utf8(text) else {
            return Ok(None);
        };
        let out = match (length_function, &self.tokenizer) {
            (Some(func), _) => {
                let mut m = PyLength {
                    func,
                    source: text,
                    cursor: CharCursor::new(s, s.is_ascii()),
                };
                self.split_held(s, &mut m, matcher, length_error)?
            }
            (None, Some(tok)) => {
                let tok = tok.get();
                let counter = &*tok.inner;
                let hold_gil = tok.calls_python();
                let r = if self.specials.is_empty() {
                    self.split_natively(py, s, &mut { counter }, matcher, hold_gil, |e| match e {})
                } else {
                    let mut m = langchain::TiktokenLen {
                        counter,
                        specials: &self.specials,
                    };
                    self.split_natively(py, s, &mut m, matcher, hold_gil, |e| {
                        Some(value_error(e.to_string()))
                    })
                };
                tok.check()?;
                r?
            }
            (None, None) => self.split_natively(
                py,
                s,
                &mut langchain::CharLen,
                matcher,
                false,
                |e| match e {},
            )?,
        };
        let Some(out) = out else {
            return Ok(None);
        };
        let starts = if start_index {
            Some(run(py, true, "computing start indices", || {
                langchain::start_indices(s, &out.chunks, self.chunk_overlap)
            })?)
        } else {
            None
        };
        let mut cursor = CharCursor::new(s, s.is_ascii());
        let mut spans = Vec::with_capacity(if offsets { out.chunks.len() } else { 0 });
        let list = PyList::empty(py);
        for chunk in &out.chunks {
            let (a, b) = (cursor.to_char(chunk.start), cursor.to_char(chunk.end));
            let item = match &chunk.owned {
                Some(owned) => PyString::new(py, owned),
                // An ASCII chunk is copied from the UTF-8 as is; slicing the `str` would first scan it for its
                // widest char, which costs more when the text holds one wide char (an emoji makes all of it UCS-4).
                None if s.as_bytes()[chunk.start..chunk.end].is_ascii() => {
                    PyString::new(py, &s[chunk.start..chunk.end])
                }
                None => substring(text, a, b)?,
            };
            list.append(item)?;
            if offsets {
                spans.push((a, b));
            }
        }
        Ok(Some((list, starts, offsets.then_some(spans), out.warnings)))
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let cls = py.get_type::<Self>().into_any();
        let args = (
            self.separators.clone(),
            self.is_regex,
            self.keep.name(),
            self.chunk_size,
            self.chunk_overlap,
            self.strip_whitespace,
            self.character_join.clone(),
            self.tokenizer.as_ref().map(|t| t.clone_ref(py)),
            self.allowed_special.clone(),
            self.disallowed_special.clone(),
        )
            .into_pyobject(py)?;
        Ok((cls, args))
    }

    fn __repr__(&self) -> String {
        format!(
            "LangchainSplitter(separators={:?}, is_regex={}, keep={:?}, chunk_size={}, chunk_overlap={})",
            self.separators,
            self.is_regex,
            self.keep.name(),
            self.chunk_size,
            self.chunk_overlap
        )
    }
}

/// The built-in tiktoken encodings: name -> its special tokens (sorted). The one list, kept in the core.
#[pyfunction]
pub(crate) fn tiktoken_encodings(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let out = pyo3::types::PyDict::new(py);
    for e in &chunkwise_core::tiktoken_encodings::ENCODINGS {
        out.set_item(e.name, e.special_tokens())?;
    }
    Ok(out)
}

/// LangChain's `TokenTextSplitter.split_text` on a built-in tiktoken encoding: the text refused as tiktoken refuses
/// it when it holds a string of `disallowed_special` (`ValueError`), encoded once (specials in `allowed_special` as
/// special tokens), windows of `chunk_size` tokens every `chunk_size - chunk_overlap`, each decoded with invalid
/// UTF-8 replaced, empty decodes dropped.
#[pyfunction]
#[pyo3(signature = (encoding, text, chunk_size, chunk_overlap, allowed_special, disallowed_special=Vec::new()))]
pub(crate) fn tiktoken_windows(
    py: Python<'_>,
    encoding: &str,
    text: &Bound<'_, PyString>,
    chunk_size: usize,
    chunk_overlap: usize,
    allowed_special: Vec<String>,
    disallowed_special: Vec<String>,
) -> PyResult<Option<Vec<String>>> {
    let Some(s) = utf8(text) else {
        return Ok(None);
    };
    langchain::SpecialTokens::new(&[], &disallowed_special)
        .check(s)
        .map_err(|e| value_error(e.to_string()))?;
    run(py, true, "splitting on tokens", || {
        langchain::tiktoken_windows(encoding, s, chunk_size, chunk_overlap, &allowed_special)
    })?
    .map(Some)
    .map_err(to_py)
}
