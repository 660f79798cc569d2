//! `chunkwise.Chunk`: built here because a chunk list is the hot path of `chunk()`, and a Python object built in
//! Python costs more than the split of its text. A chunk's text is made on first read: many callers only read
//! offsets, ids or metadata.

use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use chunkwise_core::record::{key, Formats, Key, Role};

use crate::errors::{int_arg, to_py, wrong_type};
use crate::metadata;
use crate::text::substring;

/// A piece of a source text: ``text == source[start:end]`` always (``str`` indices).
///
/// Text that belongs with the chunk when it is embedded but is not in the slice (a heading path, a table
/// header) lives in ``context``; ``embedding_text`` joins the two with a blank line.
///
/// A chunk is immutable, its ``metadata`` included (a read-only dict). Two chunks are equal when all their fields
/// are (``embedding_text`` compared by value), and equal chunks hash alike. The constructor checks
/// ``0 <= start <= end`` and ``end - start == len(text)``.
#[pyclass(frozen, module = "chunkwise", name = "Chunk", eq, hash)]
pub struct Chunk {
    /// Made from `source` on first access: a chunk list is built under the GIL, one chunk at a time, and a string
    /// per chunk would be the largest part of that serial work in `chunk_batch`.
    pub(crate) text: OnceLock<Py<PyString>>,
    /// The document, until `text` is made from it (chunks built by a chunker): then it is let go, so that kept
    /// chunks do not keep their whole document alive.
    pub(crate) source: std::sync::Mutex<Option<Py<PyString>>>,
    #[pyo3(get)]
    pub(crate) start: usize,
    #[pyo3(get)]
    pub(crate) end: usize,
    #[pyo3(get)]
    pub(crate) index: usize,
    #[pyo3(get)]
    pub(crate) size: usize,
    /// The exact token count when the chunker measures in tokens, else None.
    #[pyo3(get)]
    pub(crate) token_count: Option<usize>,
    #[pyo3(get)]
    pub(crate) level: Py<PyString>,
    /// A `chunkwise.chunk.Metadata` (a read-only dict), possibly shared with the other chunks of the text; `None`
    /// reads as the one shared empty one: an empty dict per chunk would give the garbage collector one more object
    /// to track for each chunk.
    pub(crate) metadata: Option<Py<PyDict>>,
    #[pyo3(get)]
    pub(crate) context: Py<PyString>,
    /// What joins `context` and `text` in `embedding_text`: a blank line, or one line break after a table header
    /// or a fence line (so that the result is still a table or a code block).
    #[pyo3(get)]
    pub(crate) context_sep: Py<PyString>,
    /// The text to embed when it is not `context + context_sep + text` (a CSV table's rows rendered as Markdown).
    pub(crate) embedding: Option<Py<PyString>>,
    pub(crate) id: ChunkId,
    pub(crate) prev_id: Option<ChunkId>,
    pub(crate) next_id: Option<ChunkId>,
}

/// A chunk id: a 64-bit hash rendered as 16 hex digits on access (no string per chunk on the hot path), or an id
/// given by the caller.
#[derive(Debug, Clone)]
pub(crate) enum ChunkId {
    /// A content hash.
    Hash(u64),
    /// The caller's own id.
    Given(String),
}

impl ChunkId {
    fn render(&self) -> String {
        match self {
            ChunkId::Hash(h) => hash_id(*h).iter().map(|&b| char::from(b)).collect(),
            ChunkId::Given(s) => s.clone(),
        }
    }
}

/// A chunk id hash as it reads (the outputs' rendering, kept in `chunkwise_io`).
pub(crate) use chunkwise_io::hash_id;

impl PartialEq for ChunkId {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ChunkId::Hash(a), ChunkId::Hash(b)) => a == b,
            _ => self.render() == other.render(),
        }
    }
}

impl std::hash::Hash for ChunkId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.render().hash(state);
    }
}

impl std::fmt::Debug for Chunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunk")
            .field("index", &self.index)
            .field("start", &self.start)
            .field("end", &self.end)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Chunk {
    fn eq(&self, other: &Self) -> bool {
        Python::attach(|py| {
            let same = |a: &Py<PyAny>, b: &Py<PyAny>| a.bind(py).eq(b.bind(py)).unwrap_or(false);
            self.start == other.start
                && self.end == other.end
                && self.index == other.index
                && self.size == other.size
                && self.token_count == other.token_count
                && self.id == other.id
                && self.prev_id == other.prev_id
                && self.next_id == other.next_id
                && match (self.text_of(py), other.text_of(py)) {
                    (Ok(a), Ok(b)) => PyAnyMethods::eq(a.as_any(), b.as_any()).unwrap_or(false),
                    _ => false,
                }
                && same(self.level.as_any(), other.level.as_any())
                && same(self.context.as_any(), other.context.as_any())
                && same(self.context_sep.as_any(), other.context_sep.as_any())
                // By value, whether it was given (or rendered by the chunker) or is computed from the fields above,
                // which are equal by now: so `Chunk(**c.to_dict()) == c`.
                && (self.embedding.is_none() && other.embedding.is_none()
                    || match (self.embedding_text(py), other.embedding_text(py)) {
                        (Ok(a), Ok(b)) => PyAnyMethods::eq(a.as_any(), &b).unwrap_or(false),
                        _ => false,
                    })
                && match (self.metadata_view(py), other.metadata_view(py)) {
                    (Ok(a), Ok(b)) => PyAnyMethods::eq(a.as_any(), &b).unwrap_or(false),
                    _ => false,
                }
        })
    }
}

impl Chunk {
    /// The chunk's text, made from the source on first access.
    fn text_of<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        if let Some(t) = self.text.get() {
            return Ok(t.bind(py).clone());
        }
        // The GIL serialises this: no other thread can be making the same text.
        let mut source = self.source.lock().unwrap_or_else(|e| e.into_inner());
        let made = match source.as_ref() {
            Some(doc) => substring(doc.bind(py), self.start, self.end)?.unbind(),
            None => PyString::new(py, "").unbind(),
        };
        let text = self.text.get_or_init(|| made).bind(py).clone();
        *source = None;
        Ok(text)
    }

    /// The read-only metadata: the chunk's own, or the shared empty one.
    fn metadata_view<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match &self.metadata {
            Some(d) => Ok(d.bind(py).clone()),
            None => metadata::empty(py),
        }
    }
}

/// A `str` argument, or an error naming it.
fn str_arg<'a, 'py>(arg: &str, value: &'a Bound<'py, PyAny>) -> PyResult<&'a Bound<'py, PyString>> {
    value
        .cast::<PyString>()
        .map_err(|_| wrong_type(arg, "str", value))
}

/// An optional `str` argument (`None` is no value), or an error naming it.
fn opt_str_arg<'py>(
    arg: &str,
    value: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyString>>> {
    match value {
        Some(v) if !v.is_none() => Ok(Some(str_arg(arg, v)?.clone())),
        _ => Ok(None),
    }
}

/// An optional non-negative int argument, or an error naming it.
fn opt_count_arg(arg: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    match value {
        Some(v) if !v.is_none() => Ok(Some(int_arg(arg, v, 0)? as usize)),
        _ => Ok(None),
    }
}

impl std::hash::Hash for Chunk {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
        self.start.hash(state);
        self.end.hash(state);
    }
}

#[pymethods]
impl Chunk {
    #[new]
    #[pyo3(signature = (text, start, end, index=None, size=None, level=None, metadata=None, context=None, id=None,
                        prev_id=None, next_id=None, token_count=None, context_sep=None,
                        embedding_text=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
        index: Option<&Bound<'_, PyAny>>,
        size: Option<&Bound<'_, PyAny>>,
        level: Option<&Bound<'_, PyAny>>,
        metadata: Option<&Bound<'_, PyAny>>,
        context: Option<&Bound<'_, PyAny>>,
        id: Option<&Bound<'_, PyAny>>,
        prev_id: Option<&Bound<'_, PyAny>>,
        next_id: Option<&Bound<'_, PyAny>>,
        token_count: Option<&Bound<'_, PyAny>>,
        context_sep: Option<&Bound<'_, PyAny>>,
        embedding_text: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let text = str_arg("text", text)?;
        let start = int_arg("start", start, 0)? as usize;
        let end = int_arg("end", end, 0)? as usize;
        let len = text.len()?;
        chunkwise_core::chunk::check_offsets(start, end, len).map_err(to_py)?;
        let index = opt_count_arg("index", index)?.unwrap_or(0);
        let size = opt_count_arg("size", size)?.unwrap_or(len);
        let token_count = opt_count_arg("token_count", token_count)?;
        let metadata = match metadata {
            Some(m) if !m.is_none() => {
                let dict = match m.cast::<PyDict>() {
                    Ok(d) => d.clone(),
                    Err(_) => {
                        let mapping = m
                            .cast::<pyo3::types::PyMapping>()
                            .map_err(|_| wrong_type("metadata", "a mapping or None", m))?;
                        let d = PyDict::new(py);
                        d.update(mapping)?;
                        d
                    }
                };
                Some(metadata::frozen(&metadata::deep_copy(&dict)?)?.unbind())
            }
            _ => None,
        };
        let id_arg = |arg: &str, v| -> PyResult<Option<ChunkId>> {
            Ok(opt_str_arg(arg, v)?.map(|s| ChunkId::Given(s.to_string())))
        };
        Ok(Self {
            text: OnceLock::from(text.clone().unbind()),
            source: std::sync::Mutex::new(None),
            start,
            end,
            index,
            size,
            token_count,
            level: opt_str_arg("level", level)?
                .unwrap_or_else(|| PyString::intern(py, "end"))
                .unbind(),
            metadata,
            context: opt_str_arg("context", context)?
                .unwrap_or_else(|| PyString::intern(py, ""))
                .unbind(),
            context_sep: opt_str_arg("context_sep", context_sep)?
                .unwrap_or_else(|| PyString::intern(py, "\n\n"))
                .unbind(),
            embedding: opt_str_arg("embedding_text", embedding_text)?.map(Bound::unbind),
            id: id_arg("id", id)?.unwrap_or(ChunkId::Given(String::new())),
            prev_id: id_arg("prev_id", prev_id)?,
            next_id: id_arg("next_id", next_id)?,
        })
    }

    /// The metadata dict is the only field that can lead back to the chunk (the others are strings): the
    /// collector must see it to free a chunk stored in its own metadata.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(m) = &self.metadata {
            visit.call(m)?;
        }
        Ok(())
    }

    /// The chunk: ``source[start:end]``.
    #[getter]
    fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.text_of(py)
    }

    /// Stable id of the chunk (16 hex digits): a hash of the document id, the chunk's text, and which occurrence of
    /// that text it is among the document's chunks (the first chunk with that exact text, the second...). The same
    /// text at the same place in a document gives the same id; an edit elsewhere in the document leaves the id of
    /// an unchanged chunk as it was (offsets are not part of it), unless it adds or removes an earlier chunk with
    /// that exact text. The document id is ``metadata["doc_id"]``,
    /// ``["id"]`` or ``["source"]``; without one, a digest of the whole text stands for it, so that the same
    /// passage in two documents gets two ids, and any edit changes every id: give a document id for ids that
    /// survive edits. A chunk made with ``Chunk(...)`` has the id it is given (empty by default).
    #[getter]
    fn id(&self) -> String {
        self.id.render()
    }

    /// Id of the previous chunk of the document, or None.
    #[getter]
    fn prev_id(&self) -> Option<String> {
        self.prev_id.as_ref().map(ChunkId::render)
    }

    /// Id of the next chunk of the document, or None.
    #[getter]
    fn next_id(&self) -> Option<String> {
        self.next_id.as_ref().map(ChunkId::render)
    }

    /// The caller's metadata (deep-copied when the chunk was made) and what the chunker adds (``title_path``,
    /// ``page_start``...), as a read-only dict (``chunkwise.chunk.Metadata``); ``metadata.copy()`` is a plain
    /// ``dict``.
    #[getter(metadata)]
    fn get_metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.metadata_view(py)
    }

    /// The text to embed: ``context``, ``context_sep`` and ``text``; just ``text`` when there is no context (or the
    /// text the chunker rendered, for a CSV table).
    #[getter]
    fn embedding_text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        if let Some(e) = &self.embedding {
            return Ok(e.bind(py).clone());
        }
        let context = self.context.bind(py);
        if context.len()? == 0 {
            return self.text_of(py);
        }
        Ok(PyString::new(
            py,
            &format!(
                "{}{}{}",
                context.to_cow()?,
                self.context_sep.bind(py).to_cow()?,
                self.text_of(py)?.to_cow()?
            ),
        ))
    }

    /// All fields as a plain dict (``metadata`` a deep copy, a plain ``dict``), plus ``embedding_text``:
    /// ``Chunk(**c.to_dict()) == c``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // The record's fields of a chunk, in its order.
        let d = PyDict::new(py);
        for k in Key::all().filter(|k| {
            let c = k.column();
            c.role == Role::Field && c.formats.has(Formats::CHUNK)
        }) {
            let name = k.name();
            match k {
                key::TEXT => d.set_item(name, self.text_of(py)?)?,
                key::START => d.set_item(name, self.start)?,
                key::END => d.set_item(name, self.end)?,
                key::INDEX => d.set_item(name, self.index)?,
                key::ID => d.set_item(name, self.id())?,
                key::PREV_ID => d.set_item(name, self.prev_id())?,
                key::NEXT_ID => d.set_item(name, self.next_id())?,
                key::LEVEL => d.set_item(name, &self.level)?,
                key::SIZE => d.set_item(name, self.size)?,
                key::TOKEN_COUNT => d.set_item(name, self.token_count)?,
                key::CONTEXT => d.set_item(name, &self.context)?,
                key::CONTEXT_SEP => d.set_item(name, &self.context_sep)?,
                key::EMBEDDING_TEXT => d.set_item(name, self.embedding_text(py)?)?,
                key::METADATA => {
                    d.set_item(name, metadata::deep_copy(&self.metadata_view(py)?)?)?;
                }
                other => return Err(crate::errors::no_field(other.name())),
            }
        }
        Ok(d)
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let c = slf.get();
        let args = PyTuple::new(
            py,
            [
                c.text_of(py)?.into_any(),
                c.start.into_pyobject(py)?.into_any(),
                c.end.into_pyobject(py)?.into_any(),
                c.index.into_pyobject(py)?.into_any(),
                c.size.into_pyobject(py)?.into_any(),
                c.level.bind(py).clone().into_any(),
                c.metadata_view(py)?.into_any(),
                c.context.bind(py).clone().into_any(),
                c.id().into_pyobject(py)?.into_any(),
                c.prev_id().into_pyobject(py)?.into_any(),
                c.next_id().into_pyobject(py)?.into_any(),
                c.token_count.into_pyobject(py)?.into_any(),
                c.context_sep.bind(py).clone().into_any(),
                c.embedding
                    .as_ref()
                    .map(|e| e.clone_ref(py))
                    .into_pyobject(py)?
                    .into_any(),
            ],
        )?;
        Ok((slf.get_type().into_any(), args))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let text = self.text_of(py)?;
        let text = text.to_cow()?;
        let shown: String = if text.chars().count() > 40 {
            text.chars().take(37).chain("...".chars()).collect()
        } else {
            text.into_owned()
        };
        let shown = PyString::new(py, &shown).repr()?;
        Ok(format!(
            "Chunk(index={}, start={}, end={}, size={}, level={}, text={})",
            self.index,
            self.start,
            self.end,
            self.size,
            self.level.bind(py).repr()?,
            shown
        ))
    }
}

/// The ids of one level of HierarchicalChunker's chunks of `text`, given by their texts (`chunks`): the core's ids
/// (`chunkwise_core::chunk::level_ids`), the document named by `metadata` as `chunk()` names it, so that level 0's
/// ids are those its chunker gave.
#[pyfunction]
#[pyo3(signature = (text, chunks, metadata, level))]
pub(crate) fn level_ids(
    text: pyo3::pybacked::PyBackedStr,
    chunks: Vec<pyo3::pybacked::PyBackedStr>,
    metadata: Option<Bound<'_, PyDict>>,
    level: u32,
) -> PyResult<Vec<String>> {
    let doc = metadata::doc_id(metadata.as_ref())?;
    let ids = chunkwise_core::chunk::level_ids(
        &text,
        chunks.iter().map(|c| c.as_bytes()),
        doc.as_deref(),
        level,
    );
    Ok(ids.into_iter().map(|h| ChunkId::Hash(h).render()).collect())
}
