//! A text's chunks as Python objects: the core's chunks (computed without the GIL) turned into `Chunk`s with their
//! metadata, with the strings they share made once.

use chunkwise_core::levels::Name;
use chunkwise_core::record::{self, Key, Value};
use chunkwise_core::structure::ChunkType;
use chunkwise_core::{ChunkOptions, Description, SpanInfo, Splitter};
use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

pub(crate) use chunkwise_io::Prepared;

use crate::chunk::{Chunk, ChunkId};
use crate::metadata;

/// [`Prepared::split`] behind the test hook (see `chunkwise_core::panic::tripwire`).
pub(crate) fn split(
    splitter: &Splitter,
    text: &str,
    options: ChunkOptions<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Prepared, chunkwise_core::ChunkError> {
    chunkwise_core::panic::tripwire::check(text);
    Prepared::split(splitter, text, options, stop)
}

/// The spans of `text` and their description (`Splitter::spans_until`) behind the test hook.
pub(crate) fn spans(
    splitter: &Splitter,
    text: &str,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(Vec<chunkwise_core::Span>, Option<Description>), chunkwise_core::ChunkError> {
    chunkwise_core::panic::tripwire::check(text);
    splitter.spans_until(text, Some(stop))
}

/// [`Prepared::semantic`] behind the test hook.
pub(crate) fn semantic(
    splitter: &Splitter,
    text: &str,
    vectors: (&[f32], usize),
    options: ChunkOptions<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Prepared, chunkwise_core::ChunkError> {
    chunkwise_core::panic::tripwire::check(text);
    Prepared::semantic(splitter, text, vectors, options, stop)
}

/// Garbage-collector tracking. A chunk holds strings only until its metadata dict exists, so it cannot be part of a
/// reference cycle: untracked, it costs the collector nothing. pyo3 tracks every object of a `#[pyclass]`, and
/// without this a batch of 40,000 chunks spent a tenth of its time in collections that could find nothing.
#[allow(unsafe_code)]
mod gc {
    use pyo3::ffi;
    use pyo3::prelude::*;

    /// Stops the collector from visiting `obj`.
    pub(super) fn untrack(obj: &Bound<'_, PyAny>) {
        // SAFETY: `obj` is a live object of a GC type (every pyclass is one) and we hold the GIL; untracking an
        // untracked object is allowed.
        unsafe { ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) }
    }
}

/// Where the chunks' texts come from.
pub(crate) enum Texts<'a, 'py> {
    /// The whole text, sliced when a chunk's text is first read.
    Source(&'a Bound<'py, PyString>),
    /// The part of a stream that holds the chunks (each chunk's text is made now: the part goes away), and the
    /// index of the first chunk in the stream.
    Stream(&'a chunkwise_core::ChunkStream, usize),
}

/// Builds the chunk objects of one text: the one place spans become `Chunk`s. `arg`: the name of the metadata
/// argument, made only for an error.
pub(crate) fn build<'py>(
    py: Python<'py>,
    texts: Texts<'_, 'py>,
    prepared: &Prepared,
    level_name: impl Fn(chunkwise_core::Level) -> Name,
    (arg, metadata): (impl Fn() -> String, Option<&Bound<'py, PyDict>>),
    tokens: bool,
) -> PyResult<Vec<Bound<'py, Chunk>>> {
    let paged = prepared.paged();
    let copied = match metadata {
        Some(m) => {
            let structure = prepared.structure.as_ref();
            for (source, why) in record::reserved(structure, prepared.scores.is_some(), paged) {
                metadata::check_keys(&arg, m, source, why)?;
            }
            Some(metadata::deep_copy(m)?)
        }
        None => None,
    };
    // The chunks of a text share one deep copy of the caller's metadata (its values are read-only by contract): a
    // copy per chunk would cost more than the split when the metadata holds a list or a dict. Chunks that add no key
    // of their own share one read-only dict; the others each have one, over the same values.
    let own_keys = prepared.structure.is_some() || paged || prepared.scores.is_some();
    let shared = match &copied {
        Some(c) if !own_keys => Some(metadata::frozen(c)?),
        _ => None,
    };
    // Strings cached for the process (`intern!`): made once, not once per text.
    let empty = pyo3::intern!(py, "").clone();
    let (blank_line, line_break) = (
        pyo3::intern!(py, "\n\n").clone(),
        pyo3::intern!(py, "\n").clone(),
    );
    let titles = match &prepared.structure {
        Some(d) => d
            .headings
            .iter()
            .map(|h| PyString::new(py, &h.title))
            .collect(),
        None => Vec::new(),
    };
    let mut names: Vec<(u8, Bound<'py, PyString>)> = Vec::new();
    let mut out = Vec::with_capacity(prepared.count());
    let mut last_context: Option<Bound<'py, PyString>> = None;
    for (i, ch) in prepared.chunks.iter().enumerate() {
        let level = match names.iter().find(|(code, _)| *code == ch.level.0) {
            Some((_, name)) => name.clone(),
            None => {
                let name = level_string(py, level_name(ch.level));
                names.push((ch.level.0, name.clone()));
                name
            }
        };
        let mut meta = match (&shared, &copied) {
            (Some(s), _) => Some(s.clone()),
            (None, Some(c)) => Some(metadata::frozen(c)?),
            (None, None) => None,
        };
        let (mut context, mut sep, mut embedding) = (empty.clone(), &blank_line, None);
        if let Some(d) = &prepared.structure {
            let info = &d.chunks[i];
            let m = match &mut meta {
                Some(m) => m,
                None => meta.insert(metadata::new_frozen(py)?),
            };
            describe(py, m, info, &titles, d)?;
            if !info.context.is_empty() {
                // Neighbouring chunks mostly share their context (the same section): one string for them all.
                let same = i > 0 && d.chunks[i - 1].context == info.context;
                context = match (&last_context, same) {
                    (Some(c), true) => c.clone(),
                    _ => PyString::new(py, &info.context),
                };
                last_context = Some(context.clone());
            }
            if context_sep(info) == "\n" {
                sep = &line_break;
            }
            embedding = info
                .embedding
                .as_deref()
                .map(|e| PyString::new(py, e).unbind());
        }
        if let Some((scores, mode)) = &prepared.scores {
            let m = match &mut meta {
                Some(m) => m,
                None => meta.insert(metadata::new_frozen(py)?),
            };
            m.set_item(key_string(py, CUT_SCORE), scores[i])?;
            m.set_item(key_string(py, CUT_MODE), *mode)?;
        }
        if let Some((first, last)) = ch.pages {
            let m = match &mut meta {
                Some(m) => m,
                None => meta.insert(metadata::new_frozen(py)?),
            };
            m.set_item(key_string(py, PAGE_START), first)?;
            m.set_item(key_string(py, PAGE_END), last)?;
        }
        let meta = meta.map(Bound::unbind);
        let (text, source, index) = match &texts {
            Texts::Source(source) => (OnceLock::new(), Some(Bound::clone(source).unbind()), i),
            Texts::Stream(stream, first) => (
                OnceLock::from(PyString::new(py, stream.text(ch)).unbind()),
                None,
                first + i,
            ),
        };
        let chunk = Chunk {
            text,
            source: std::sync::Mutex::new(source),
            start: ch.char_start,
            end: ch.char_end,
            index,
            size: ch.size,
            token_count: tokens.then_some(ch.size),
            level: level.unbind(),
            metadata: meta,
            context: context.unbind(),
            context_sep: sep.clone().unbind(),
            embedding,
            id: ChunkId::Hash(ch.id),
            prev_id: ch.prev_id.map(ChunkId::Hash),
            next_id: ch.next_id.map(ChunkId::Hash),
        };
        let chunk = Bound::new(py, chunk)?;
        if metadata.is_none() && !own_keys {
            gc::untrack(chunk.as_any());
        }
        out.push(chunk);
        let_others_run(py);
    }
    Ok(out)
}

/// Chunks built with the GIL held between two chances for other Python threads to run.
const BUILT_BETWEEN_YIELDS: u32 = 1024;

thread_local! {
    static BUILT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Counts a chunk built; every [`BUILT_BETWEEN_YIELDS`] chunks (across texts: a batch of small ones counts too),
/// releases the GIL for a moment. Building objects is C code to the interpreter, which never asks it to give the
/// GIL up: without this, a call that builds 50,000 chunks on a worker thread (an `achunk`) would stop an event loop
/// for a tenth of a second. Uncontended, a release costs well under a microsecond.
fn let_others_run(py: Python<'_>) {
    BUILT.with(|built| {
        let n = built.get() + 1;
        if n >= BUILT_BETWEEN_YIELDS {
            built.set(0);
            py.detach(|| ());
        } else {
            built.set(n);
        }
    });
}

/// What joins a chunk's context and its text (the outputs' rule, kept in `chunkwise_io`).
pub(crate) use chunkwise_io::context_sep;

/// Adds a chunk's description to its metadata: the keys the core's record gives it (`record::describe`, the one
/// place that knows the rules), the headings' titles from `titles` (their Python strings, made once per text).
fn describe(
    py: Python<'_>,
    meta: &Bound<'_, PyDict>,
    info: &SpanInfo,
    titles: &[Bound<'_, PyString>],
    description: &Description,
) -> PyResult<()> {
    use pyo3::types::PyList;
    let mut result = Ok(());
    record::describe(info, |key, value| {
        if result.is_err() {
            return;
        }
        let key = key_string(py, key);
        result = match value {
            Value::Titles(h) => {
                PyList::new(py, h.iter().map(|&h| &titles[h])).and_then(|l| meta.set_item(key, l))
            }
            Value::Depths(h) => PyList::new(py, h.iter().map(|&h| description.headings[h].depth))
                .and_then(|l| meta.set_item(key, l)),
            Value::Type(kind) => meta.set_item(key, chunk_type_string(py, kind)),
            Value::Str(s) => meta.set_item(key, s),
            Value::OptStr(s) => meta.set_item(key, s),
            Value::Int(n) => meta.set_item(key, n),
            Value::Strs(s) => meta.set_item(key, s),
            Value::True => meta.set_item(key, true),
        };
    });
    result
}

// The keys build() sets itself (the description's are record::describe's), checked against the record when compiled.
const CUT_SCORE: Key = Key::of("cut_score");
const CUT_MODE: Key = Key::of("cut_mode");
const PAGE_START: Key = Key::of("page_start");
const PAGE_END: Key = Key::of("page_end");

/// The Python string of a metadata key of the record, made once for the process.
fn key_string<'py>(py: Python<'py>, key: Key) -> Bound<'py, PyString> {
    static KEYS: Interned = Interned::new();
    interned(py, &KEYS, || {
        record::COLUMNS.iter().map(|c| c.name).collect()
    })[key.index()]
    .bind(py)
    .clone()
}

/// The Python string of a level name, made once for the process.
fn level_string<'py>(py: Python<'py>, name: Name) -> Bound<'py, PyString> {
    static NAMES: Interned = Interned::new();
    interned(py, &NAMES, || Name::ALL.map(Name::as_str).to_vec())[name.index()]
        .bind(py)
        .clone()
}

/// The Python string of a chunk type, made once for the process.
fn chunk_type_string<'py>(py: Python<'py>, kind: ChunkType) -> Bound<'py, PyString> {
    static TYPES: Interned = Interned::new();
    interned(py, &TYPES, || {
        ChunkType::ALL.map(ChunkType::as_str).to_vec()
    })[kind.index()]
    .bind(py)
    .clone()
}

/// Python strings for one of the core's lists of names, in the list's order.
type Interned = pyo3::sync::PyOnceLock<Vec<Py<PyString>>>;

/// The strings of `cell`, interned from `names` on first use.
fn interned<'a>(
    py: Python<'_>,
    cell: &'a Interned,
    names: impl FnOnce() -> Vec<&'static str>,
) -> &'a [Py<PyString>] {
    cell.get_or_init(py, || {
        names()
            .into_iter()
            .map(|n| PyString::intern(py, n).unbind())
            .collect()
    })
}

/// Below this many chunks a text's objects are built with the collector left alone: pausing and resuming it costs
/// more than the collections it saves.
pub(crate) const PAUSE_GC_CHUNKS: usize = 700;

/// Runs `f` with Python's cyclic garbage collector paused, and resumes it afterwards (also on an error or a panic)
/// if it was running before.
///
/// Building many chunks allocates many objects that the collector counts, so a big `chunk_batch` sets off dozens of
/// collections, full ones among them, all on the one thread that holds the GIL, which finds nothing to free: a
/// large share of the call, and most of its variance. The objects built here hold no reference
/// cycle, so nothing is lost by collecting afterwards: at most one collection follows, and none if the chunks are
/// freed first. A change another thread makes to the collector's state during the call may be undone.
pub(crate) fn gc_paused<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    static GC: pyo3::sync::PyOnceLock<Py<PyModule>> = pyo3::sync::PyOnceLock::new();
    let gc = GC
        .get_or_try_init(py, || py.import("gc").map(Bound::unbind))?
        .bind(py);
    if !gc
        .call_method0(pyo3::intern!(py, "isenabled"))?
        .is_truthy()?
    {
        return f();
    }
    gc.call_method0(pyo3::intern!(py, "disable"))?;
    let _resume = Resume(gc.clone().unbind());
    f()
}

/// Turns the collector back on when dropped.
#[derive(Debug)]
struct Resume(Py<PyModule>);

impl Drop for Resume {
    fn drop(&mut self) {
        Python::attach(|py| {
            if let Err(e) = self.0.bind(py).call_method0(pyo3::intern!(py, "enable")) {
                e.write_unraisable(py, None);
            }
        });
    }
}
