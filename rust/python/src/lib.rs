//! Python bindings of chunkwise: argument conversion, GIL handling and result packing. No chunking logic here.

use chunkwise_core::size::MaxChars;
use chunkwise_core::{KeepSeparator, Span, Splitter, SplitterConfig, Strategy};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyTuple};

mod chunk;
mod errors;
mod interrupt;
mod langchain;
mod metadata;
mod text;
mod tokenizer;

use chunk::{Chunk, Prepared};
use errors::{guard, int_arg, internal, to_py, tripwire, wrong_type, ChunkingError, Panic};
use interrupt::{Interrupt, INTERVAL};
use text::{borrow_item, borrow_str};
use tokenizer::PyTokenizer;

/// mimalloc (as pydantic-core uses): batches allocate in worker threads and free on the main thread, which the
/// system allocator serialises.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How many texts a batch worker takes at a time.
const PIPELINE_STEP: usize = 8;

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
        .map(|(i, item)| borrow_item(py, || format!("{arg}[{i}]"), item))
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
    /// Splits with the GIL released when the text is large enough to be worth it; a panic becomes an error, Ctrl-C
    /// a KeyboardInterrupt within [`INTERVAL`].
    fn split(&self, py: Python<'_>, text: &str) -> PyResult<Vec<Span>> {
        let interrupt = Interrupt::new();
        let stop = self.stop(&interrupt);
        let run = || guard(|| self.try_split(text, &stop));
        let spans = if self.detach(text) {
            py.detach(run)
        } else {
            run()
        };
        let spans = spans.map_err(|p| internal("splitting the text", &p))?;
        self.check()?;
        spans.map_err(|e| interrupt.to_py(e))
    }

    /// The core's split, behind the test hook.
    fn try_split(
        &self,
        text: &str,
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<Span>, chunkwise_core::ChunkError> {
        tripwire::check(text);
        Ok(self.inner.split_structured_until(text, Some(stop))?.0)
    }

    /// The core's stop check for a call: Ctrl-C (see [`Interrupt`]), or a Python tokenizer callable that raised
    /// (the rest of the split would be lost anyway).
    fn stop<'a>(&'a self, interrupt: &'a Interrupt) -> impl Fn() -> bool + Sync + 'a {
        move || interrupt.check() || self.tokenizer.as_ref().is_some_and(|t| t.get().failed())
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
    /// with the GIL held when sizes come from a Python callable. A panic becomes an error naming the first text
    /// it happened on.
    fn for_all<T: Send>(
        &self,
        py: Python<'_>,
        texts: &[&str],
        interrupt: &Interrupt,
        f: impl Fn(usize, &str) -> T + Sync,
    ) -> PyResult<Vec<T>> {
        // Guarded one text at a time, on the thread that splits it: the panic hook sees only that thread, and the
        // error can say which text it was.
        let each = |(i, t): (usize, &&str)| guard(|| f(i, t));
        let out: Vec<Result<T, Panic>> = if self.calls_python() {
            texts.iter().enumerate().map(each).collect()
        } else {
            let run = || {
                // The pool splits; this thread waits, running Python's signal handlers now and then, so that
                // Ctrl-C stops the splits (the workers see `interrupt` at their next check).
                let (tx, rx) = std::sync::mpsc::channel();
                rayon::in_place_scope(|scope| {
                    scope.spawn(|_| {
                        use rayon::prelude::*;
                        let _ = tx.send(texts.par_iter().enumerate().map(each).collect::<Vec<_>>());
                    });
                    loop {
                        match rx.recv_timeout(INTERVAL) {
                            Ok(out) => break Some(out),
                            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                                interrupt.check();
                            }
                            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break None,
                        }
                    }
                })
            };
            match py.detach(|| guard(run)) {
                Ok(Some(out)) => out,
                Ok(None) => return Err(lost(0)),
                Err(p) => return Err(internal("splitting a batch", &p)),
            }
        };
        self.check()?;
        if interrupt.stopped() {
            return Err(interrupt.take_error());
        }
        let out = out
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.map_err(|p| batch_panic(i, &p)))
            .collect::<PyResult<Vec<T>>>()?;
        Ok(out)
    }

    /// `f(i, texts[i])` for every text, in parallel with the GIL released, each result handed to `build(i, result)`
    /// on this thread, in order, as soon as it and every result before it are in. Building Python objects needs the
    /// GIL, so it cannot run in parallel; this way it overlaps with the splitting of the texts that come later,
    /// instead of waiting for all of them. Serial, with the GIL held, when sizes come from a Python callable.
    fn pipeline<T: Send>(
        &self,
        py: Python<'_>,
        texts: &[&str],
        interrupt: &Interrupt,
        f: impl Fn(usize, &str) -> T + Sync,
        mut build: impl FnMut(usize, T) -> PyResult<()>,
    ) -> PyResult<()> {
        if self.calls_python() {
            for (i, t) in texts.iter().enumerate() {
                let out = guard(|| f(i, t)).map_err(|p| batch_panic(i, &p))?;
                self.check()?;
                if interrupt.stopped() {
                    return Err(interrupt.take_error());
                }
                build(i, out)?;
            }
            return Ok(());
        }
        use std::sync::atomic::Ordering::Relaxed;
        let n = texts.len();
        // Splits text `i`, here or on a worker; a panic becomes an error where the result is built, in order, so
        // the error names the first text that failed.
        let split = |i: usize| guard(|| f(i, texts[i]));
        let split = &split;
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<T, Panic>)>();
        // Workers take the texts in order, a few at a time, so results arrive about in order and the building
        // never waits long for the next one. One worker fewer than the pool: this thread is busy building, and
        // splits texts itself whenever nothing is ready to build (a third busy thread on two cores slowed the
        // building, the serial part, by a third).
        let cursor = std::sync::atomic::AtomicUsize::new(0);
        let cursor = &cursor;
        // The pool's threads, not new ones: a new thread per call also started a new allocator heap, whose pages
        // were faulted in afresh each time.
        rayon::in_place_scope(|scope| {
            for _ in 0..rayon::current_num_threads().saturating_sub(1).max(1) {
                let tx = tx.clone();
                scope.spawn(move |_| loop {
                    let from = cursor.fetch_add(PIPELINE_STEP, Relaxed);
                    if from >= n {
                        break;
                    }
                    for i in from..n.min(from + PIPELINE_STEP) {
                        // Fails only after an error, when nothing waits for the result.
                        let _ = tx.send((i, split(i)));
                    }
                });
            }
            drop(tx);
            let build_all = move || -> PyResult<()> {
                let mut rx = rx;
                let mut slots: Vec<Option<Result<T, Panic>>> = (0..n).map(|_| None).collect();
                let mut next = 0;
                loop {
                    if interrupt.check() {
                        return Err(interrupt.take_error());
                    }
                    while let Some(out) = slots.get_mut(next).and_then(Option::take) {
                        build(next, out.map_err(|p| batch_panic(next, &p))?)?;
                        next += 1;
                    }
                    if next == n {
                        break;
                    }
                    match rx.try_recv() {
                        Ok((i, out)) => slots[i] = Some(out),
                        Err(std::sync::mpsc::TryRecvError::Empty) if cursor.load(Relaxed) < n => {
                            // Nothing ready to build: split the next few texts here, with the GIL released.
                            let from = cursor.fetch_add(PIPELINE_STEP, Relaxed);
                            let to = n.min(from + PIPELINE_STEP);
                            if from < to {
                                let done = py.detach(|| (from..to).map(split).collect::<Vec<_>>());
                                if interrupt.stopped() {
                                    return Err(interrupt.take_error());
                                }
                                for (i, out) in (from..).zip(done) {
                                    slots[i] = Some(out);
                                }
                            }
                        }
                        Err(std::sync::mpsc::TryRecvError::Empty) => {
                            // All texts are taken and the next one is still being split: wait, GIL released,
                            // running Python's signal handlers now and then (Ctrl-C).
                            let (back, item) = py.detach(move || loop {
                                match rx.recv_timeout(INTERVAL) {
                                    Ok(item) => break (rx, Some(item)),
                                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                                        if interrupt.check() {
                                            break (rx, None);
                                        }
                                    }
                                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                                        break (rx, None)
                                    }
                                }
                            });
                            rx = back;
                            if interrupt.stopped() {
                                return Err(interrupt.take_error());
                            }
                            match item {
                                Some((i, out)) => slots[i] = Some(out),
                                None => return Err(lost(next)),
                            }
                        }
                        Err(std::sync::mpsc::TryRecvError::Disconnected) => return Err(lost(next)),
                    }
                }
                Ok(())
            };
            let built = build_all();
            // After an error, the worker stops at its next step instead of splitting the rest for nothing.
            cursor.store(n, Relaxed);
            built
        })
    }

    /// Raises what a Python tokenizer callable raised while splitting.
    fn check(&self) -> PyResult<()> {
        match &self.tokenizer {
            Some(t) => t.get().check(),
            None => Ok(()),
        }
    }

    /// Splits and prepares a text's chunks (offsets, ids) without the GIL when the text is large.
    fn prepare(
        &self,
        py: Python<'_>,
        text: &str,
        doc_id: Option<&str>,
        paged: bool,
    ) -> PyResult<Prepared> {
        let interrupt = Interrupt::new();
        let stop = self.stop(&interrupt);
        let run = || guard(|| Prepared::split(&self.inner, text, doc_id, paged, &stop));
        let prepared = if self.detach(text) {
            py.detach(run)
        } else {
            run()
        };
        let prepared = prepared.map_err(|p| internal("splitting the text", &p))?;
        self.check()?;
        prepared.map_err(|e| interrupt.to_py(e))
    }

    /// `arg`: the name of the metadata argument, made only for an error.
    fn build<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        prepared: &Prepared,
        metadata: (impl Fn() -> String, Option<&Bound<'py, PyDict>>),
    ) -> PyResult<Bound<'py, PyList>> {
        let source = source.cast::<pyo3::types::PyString>()?;
        let tokens = self.tokenizer.is_some();
        let chunks = chunk::build(
            py,
            source,
            prepared,
            |l| self.inner.levels().name(l),
            metadata,
            tokens,
        )?;
        PyList::new(py, chunks)
    }
}

/// A core error about one text of a batch, naming it: "text is not a table" becomes "texts[3] is not a table".
fn batch_error(i: usize, e: chunkwise_core::ChunkError) -> PyErr {
    let message = e.to_string();
    ChunkingError::new_err(match message.strip_prefix("text ") {
        Some(rest) => format!("texts[{i}] {rest}"),
        None => format!("texts[{i}]: {message}"),
    })
}

/// A panic while splitting one text of a batch, naming it.
fn batch_panic(i: usize, p: &Panic) -> PyErr {
    internal(&format!("splitting texts[{i}]"), p)
}

/// The workers stopped without sending text `i`'s result: only possible if one died outside its guard.
fn lost(i: usize) -> PyErr {
    batch_panic(i, &Panic("a worker stopped before splitting it".to_owned()))
}

/// `arg`: the argument's name, made only for an error.
fn metadata_arg<'a, 'py>(
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

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
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
                _ => Err(ChunkingError::new_err(format!(
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
        int_arg("max_chars", obj, 1).map(MaxChars::Limit)
    }
}

#[pymethods]
impl PySplitter {
    #[new]
    #[pyo3(signature = (strategy, size, overlap=None, min_size=None, trim=true, unit="chars", separators=None,
                        separators_regex=false, keep_separator="end", snap=None, tokenizer=None,
                        merge_sections=true, size_includes_context=true, format="markdown",
                        rows_per_chunk=None, max_chars=MaxCharsArg(None)),
           text_signature = "(strategy, size, overlap=None, min_size=None, trim=True, unit='chars', separators=None, \
                             separators_regex=False, keep_separator='end', snap=None, tokenizer=None, \
                             merge_sections=True, size_includes_context=True, format='markdown', \
                             rows_per_chunk=None, max_chars='auto')")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        strategy: &str,
        size: &Bound<'_, PyAny>,
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
        format: &str,
        rows_per_chunk: Option<&Bound<'_, PyAny>>,
        max_chars: MaxCharsArg<'_>,
    ) -> PyResult<Self> {
        // Ints checked here: pyo3's conversion raised OverflowError for 2**63 and took True as 1. The lower bounds
        // are the core's, with its messages; the core checks the bounds that depend on other arguments.
        let int = |arg: &str, value: Option<&Bound<'_, PyAny>>, lo: i64| match value {
            Some(v) => int_arg(arg, v, lo),
            None => Ok(0),
        };
        let (size, overlap, min_size) = (
            int("size", Some(size), 1)?,
            int("overlap", overlap, 0)?,
            int("min_size", min_size, 0)?,
        );
        let (snap, rows_per_chunk) = (
            int("snap", snap, 0)?,
            int("rows_per_chunk", rows_per_chunk, 0)?,
        );
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
            merge_sections,
            size_includes_context,
            table_format: format.to_owned(),
            rows_per_chunk,
            max_chars: max_chars.parse()?,
        };
        Ok(Self {
            inner: Splitter::new(config).map_err(to_py)?,
            strategy: strategy.to_owned(),
            keep_separator: keep_separator.to_owned(),
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
        let meta = metadata_arg(|| "metadata".to_owned(), &metadata)?;
        let source = text;
        let text = borrow_str(py, "text", source)?;
        let prepared = self.prepare(py, text, metadata::doc_id(meta)?.as_deref(), paged)?;
        let meta = (|| "metadata".to_owned(), meta);
        if prepared.count() < chunk::PAUSE_GC_CHUNKS {
            return self.build(py, source, &prepared, meta);
        }
        chunk::gc_paused(py, || self.build(py, source, &prepared, meta))
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
            .map(|(i, m)| metadata_arg(|| format!("metadatas[{i}]"), m))
            .collect::<PyResult<Vec<_>>>()?;
        let doc_ids = metas
            .iter()
            .map(|m| metadata::doc_id(*m))
            .collect::<PyResult<Vec<_>>>()?;
        let strs = borrow_all(py, "texts", &items)?;
        let mut lists = Vec::with_capacity(items.len());
        let interrupt = Interrupt::new();
        let stop = self.stop(&interrupt);
        chunk::gc_paused(py, || {
            self.pipeline(
                py,
                &strs,
                &interrupt,
                |i, t| Prepared::split(&self.inner, t, doc_ids[i].as_deref(), false, &stop),
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
        let interrupt = Interrupt::new();
        let stop = self.stop(&interrupt);
        let packed = self.for_all(py, &strs, &interrupt, |_, t| {
            self.try_split(t, &stop)
                .map(|spans| flatten(&self.inner, t, &spans).0)
        })?;
        let packed = packed
            .into_iter()
            .enumerate()
            .map(|(i, p)| p.map_err(|e| batch_error(i, e)))
            .collect::<PyResult<Vec<_>>>()?;
        let (offsets, counts) = py.detach(|| {
            let total = packed.iter().map(Vec::len).sum();
            let mut offsets = Vec::with_capacity(total);
            let mut counts = Vec::with_capacity(packed.len() * 8);
            for o in &packed {
                offsets.extend_from_slice(o);
                counts.extend_from_slice(&((o.len() / 16) as i64).to_ne_bytes());
            }
            (offsets, counts)
        });
        Ok((PyByteArray::new(py, &offsets), PyBytes::new(py, &counts)))
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
        d.set_item("merge_sections", c.merge_sections)?;
        d.set_item("size_includes_context", c.size_includes_context)?;
        d.set_item("format", &c.table_format)?;
        d.set_item("rows_per_chunk", c.rows_per_chunk)?;
        match c.max_chars {
            MaxChars::Auto => d.set_item("max_chars", "auto")?,
            MaxChars::Off => d.set_item("max_chars", py.None())?,
            MaxChars::Limit(n) => d.set_item("max_chars", n)?,
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
        format!(
            "Splitter(strategy={:?}, size={}, overlap={}, unit={:?})",
            self.strategy, c.size, c.overlap, c.unit
        )
    }
}

/// Test hook, not API: while armed, splitting a text that holds `marker` panics inside the core call, as a bug
/// would (`None` disarms it). The tests use it to check that a panic becomes a ChunkingError naming the text and
/// prints nothing.
#[pyfunction]
#[pyo3(signature = (marker))]
fn _panic_on(marker: Option<String>) -> PyResult<()> {
    if marker.as_deref() == Some("") {
        return Err(ChunkingError::new_err("marker must not be empty"));
    }
    tripwire::set(marker);
    Ok(())
}

/// A splitter from its `config` (how a pickled splitter is restored).
#[pyfunction]
fn _splitter_from_config<'py>(
    py: Python<'py>,
    config: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    py.get_type::<PySplitter>().call((), Some(config))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::install_panic_hook();
    m.add_function(wrap_pyfunction!(_panic_on, m)?)?;
    m.add_function(wrap_pyfunction!(_splitter_from_config, m)?)?;
    m.add_class::<PySplitter>()?;
    m.add_class::<Chunk>()?;
    m.add_class::<PyTokenizer>()?;
    m.add_class::<langchain::PyLangchainSplitter>()?;
    m.add_function(wrap_pyfunction!(langchain::tiktoken_windows, m)?)?;
    m.add_function(wrap_pyfunction!(langchain::tiktoken_encodings, m)?)?;
    m.add("ChunkingError", m.py().get_type::<ChunkingError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
