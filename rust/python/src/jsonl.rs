//! JSON lines of chunks, written here for the command line (`chunkwise chunk`): the texts of a batch are split and
//! their lines written in parallel with the GIL released, one `bytes` per document, so that no Python object is made
//! per chunk. A line holds the fields `Chunk.to_dict` and `chunk.metadata` give, in the format `json.dumps(...,
//! ensure_ascii=False)` writes (", " and ": " between items, the same escapes), so a reader sees no difference.

use std::io::Write;
use std::sync::Mutex;

use chunkwise_core::{Chunk, ChunkOptions, Description, Level};
use pyo3::exceptions::{PyUnicodeDecodeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use rustc_hash::FxHashSet;

use crate::build::{context_sep, Prepared};
use crate::chunk::hash_id;
use crate::errors::{wrong_type, ChunkingError};
use crate::interrupt::Interrupt;
use crate::metadata;
use crate::splitter::PySplitter;
use crate::text::{borrow_item, collect};

/// The fields a line can hold, by the names `--fields` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Text,
    Start,
    End,
    Source,
    Index,
    Id,
    PrevId,
    NextId,
    Level,
    Size,
    TokenCount,
    Context,
    EmbeddingText,
    Metadata,
    /// Against a previous run: "added" (to embed) or "kept".
    Change,
}

impl Field {
    const ALL: [(&'static str, Field); 15] = [
        ("text", Field::Text),
        ("start", Field::Start),
        ("end", Field::End),
        ("source", Field::Source),
        ("index", Field::Index),
        ("id", Field::Id),
        ("prev_id", Field::PrevId),
        ("next_id", Field::NextId),
        ("level", Field::Level),
        ("size", Field::Size),
        ("token_count", Field::TokenCount),
        ("context", Field::Context),
        ("embedding_text", Field::EmbeddingText),
        ("metadata", Field::Metadata),
        ("change", Field::Change),
    ];

    pub(crate) fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, f)| f)
    }

    pub(crate) fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("", |(n, _)| n)
    }
}

/// How a run writes its lines: the fields, in order, and a previous run's chunk ids (for `change`), with what this
/// run has written so far measured against them.
#[pyclass(module = "chunkwise._core", name = "JsonLines", frozen)]
#[derive(Debug)]
pub(crate) struct JsonLines {
    fields: Vec<Field>,
    changes: Py<Changes>,
}

/// A run's chunks measured against a previous run's: the previous ids (`change` needs them), the ids written by
/// this run, and how many chunks were "added" and "kept". What `JsonLines.changes` and `ParquetRows.changes` are.
#[pyclass(module = "chunkwise._core", name = "Changes", frozen)]
#[derive(Debug)]
pub(crate) struct Changes {
    previous: Option<FxHashSet<u64>>,
    written: Mutex<Written>,
}

#[derive(Debug, Default)]
struct Written {
    ids: FxHashSet<u64>,
    added: usize,
    kept: usize,
}

/// A chunk id as the hash it renders (16 lowercase hex digits), or `None` for any other string (which no chunk of
/// this run can have).
fn parse_id(id: &str) -> Option<u64> {
    let ok = id.len() == 16
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then(|| u64::from_str_radix(id, 16).ok()).flatten()
}

#[pymethods]
impl JsonLines {
    /// `fields`: the names of the fields of each line, in order; `previous`: the chunk ids of a previous run, which
    /// make `change` available.
    #[new]
    #[pyo3(signature = (fields, previous=None))]
    fn new(fields: &Bound<'_, PyAny>, previous: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let changes = Changes::new(previous)?;
        Ok(Self {
            fields: parse_fields(fields, &changes)?,
            changes: Py::new(fields.py(), changes)?,
        })
    }

    /// The field names, in order.
    #[getter]
    fn fields(&self) -> Vec<&'static str> {
        self.fields.iter().map(|f| f.name()).collect()
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
        py: Python<'py>,
        splitter: &Bound<'py, PySplitter>,
        texts: &Bound<'py, PyAny>,
        sources: &Bound<'py, PyAny>,
        file: &Bound<'py, PyAny>,
        paged: bool,
        strategies: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let write = file
            .getattr(pyo3::intern!(py, "write"))
            .map_err(|_| wrong_type("file", "a binary file (with a write method)", file))?;
        let shape = Shape::of(splitter.get());
        let mut piece: Vec<u8> = Vec::with_capacity(PIECE + (PIECE >> 2));
        let results = each_document(
            splitter.get(),
            texts,
            sources,
            strategies,
            paged,
            |text, document, prepared| {
                let ids = self.write(
                    &mut piece,
                    &shape,
                    document,
                    prepared,
                    0,
                    |c| &text[c.start..c.end],
                    |full| write_piece(&write, full),
                )?;
                self.changes.get().record(&ids);
                Ok(())
            },
        )?;
        write_piece(&write, &mut piece)?;
        Ok(results)
    }
}

/// The fields named by `fields` (a sequence of `str`), in order; `change` only against a previous run.
pub(crate) fn parse_fields(fields: &Bound<'_, PyAny>, changes: &Changes) -> PyResult<Vec<Field>> {
    let names = collect("fields", fields)?;
    let mut parsed = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let name = name
            .cast::<PyString>()
            .map_err(|_| wrong_type(&format!("fields[{i}]"), "str", name))?
            .to_cow()?;
        let field = Field::parse(&name).ok_or_else(|| {
            let known: Vec<_> = Field::ALL.iter().map(|(n, _)| *n).collect();
            PyValueError::new_err(format!(
                "fields[{i}]: unknown field {name:?} (known: {})",
                known.join(", ")
            ))
        })?;
        if parsed.contains(&field) {
            return Err(PyValueError::new_err(format!(
                "fields names {name:?} twice"
            )));
        }
        parsed.push(field);
    }
    if parsed.contains(&Field::Change) && changes.previous.is_none() {
        return Err(PyValueError::new_err(
            "fields: 'change' needs the ids of a previous run (previous=...)",
        ));
    }
    Ok(parsed)
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
        return Err(ChunkingError::new_err(format!(
            "sources must have one entry per text ({}), got {}",
            items.len(),
            sources.len()
        )));
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
    let checked: Vec<Option<&str>> = py.detach(|| {
        use rayon::prelude::*;
        raw.par_iter()
            .map(|b| simdutf8::basic::from_utf8(b).ok())
            .collect()
    });
    let strs: Vec<&str> = checked.iter().map(|t| t.unwrap_or("")).collect();
    let doc_ids: Vec<String> = sources
        .iter()
        .map(|s| metadata::doc_id_of("source", s))
        .collect();
    let interrupt = Interrupt::new();
    let stop = splitter.stop(&interrupt);
    let mut results: Vec<Bound<'py, PyAny>> = Vec::with_capacity(items.len());
    splitter.pipeline(
        py,
        &strs,
        &interrupt,
        |i, text| {
            checked[i]?; // not UTF-8: reported below
            let options = ChunkOptions {
                doc_id: Some(&doc_ids[i]),
                paged,
            };
            Some(Prepared::split(&splitter.inner, text, options, &stop))
        },
        |i, prepared| {
            results.push(match prepared {
                None => {
                    let err = std::str::from_utf8(raw[i]).expect_err("checked as not UTF-8");
                    PyUnicodeDecodeError::new_utf8(py, raw[i], err)?.into_any()
                }
                Some(Err(e)) => ChunkingError::new_err(e.to_string())
                    .into_value(py)
                    .into_bound(py)
                    .into_any(),
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

/// About how many bytes of lines are written at a time.
const PIECE: usize = 1 << 16;

/// Writes `piece` with `write` (a file's write method), whole, and empties it.
pub(crate) fn write_piece(write: &Bound<'_, PyAny>, piece: &mut Vec<u8>) -> PyResult<()> {
    if piece.is_empty() {
        return Ok(());
    }
    let py = write.py();
    let mut from = 0;
    while from < piece.len() {
        let n = write.call1((PyBytes::new(py, &piece[from..]),))?;
        // A raw file may write part of it and say how much; a buffered one writes all (and may return None).
        let n: usize = if n.is_none() {
            piece.len() - from
        } else {
            n.extract()?
        };
        if n == 0 {
            return Err(pyo3::exceptions::PyOSError::new_err(
                "file.write wrote nothing",
            ));
        }
        from += n;
    }
    piece.clear();
    Ok(())
}

/// What a splitter's lines hold beyond each chunk: whether sizes are token counts, and the names of its levels.
pub(crate) struct Shape<'a> {
    tokens: bool,
    splitter: &'a chunkwise_core::Splitter,
}

impl<'a> Shape<'a> {
    pub(crate) fn of(splitter: &'a PySplitter) -> Self {
        Self {
            tokens: splitter.has_tokenizer(),
            splitter: &splitter.inner,
        }
    }

    fn level_name(&self, level: Level) -> &'static str {
        self.splitter.level_name(level)
    }
}

/// A document as its lines name it: its source, and the strategy that chose its chunker and why, when one did
/// (`chunkwise chunk --strategy auto`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Document<'a> {
    pub(crate) source: &'a str,
    pub(crate) strategy: Option<(&'a str, &'a str)>,
}

impl<'a> Document<'a> {
    pub(crate) fn new(source: &'a str, strategy: Option<&'a (String, String)>) -> Self {
        Self {
            source,
            strategy: strategy.map(|(s, r)| (s.as_str(), r.as_str())),
        }
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
        return Err(ChunkingError::new_err(format!(
            "strategies must have one entry per text ({n}), got {}",
            items.len()
        )));
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
        let previous = match previous {
            Some(p) if !p.is_none() => {
                let mut ids = FxHashSet::default();
                for (i, id) in collect("previous", p)?.iter().enumerate() {
                    let id = id
                        .cast::<PyString>()
                        .map_err(|_| wrong_type(&format!("previous[{i}]"), "str", id))?
                        .to_cow()?;
                    ids.extend(parse_id(&id));
                }
                Some(ids)
            }
            _ => None,
        };
        Ok(Self {
            previous,
            written: Mutex::new(Written::default()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Written> {
        // A panic while holding the lock cannot leave the counts half-updated in a way that matters here.
        self.written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether a previous run is compared with (else no ids need recording).
    pub(crate) fn compared(&self) -> bool {
        self.previous.is_some()
    }

    /// Whether the previous run had a chunk with this id.
    pub(crate) fn kept_id(&self, id: u64) -> bool {
        self.previous.as_ref().is_some_and(|p| p.contains(&id))
    }

    /// Counts the chunks of a document once it is handed out (see `added`, `kept`, `written`).
    pub(crate) fn record(&self, ids: &[u64]) {
        let mut w = self.lock();
        for id in ids {
            if let Some(previous) = &self.previous {
                if previous.contains(id) {
                    w.kept += 1;
                } else {
                    w.added += 1;
                }
            }
            w.ids.insert(*id);
        }
    }
}

#[pymethods]
impl Changes {
    /// Chunks written so far that were not in the previous run.
    #[getter]
    fn added(&self) -> usize {
        self.lock().added
    }

    /// Chunks written so far that were in the previous run.
    #[getter]
    fn kept(&self) -> usize {
        self.lock().kept
    }

    /// Whether this run has written a chunk with this id (known only when comparing with a previous run).
    fn written(&self, id: &str) -> bool {
        parse_id(id).is_some_and(|h| self.lock().ids.contains(&h))
    }
}

impl JsonLines {
    /// Counts the chunks of a document once it is handed out (see `added`, `kept`, `written`).
    pub(crate) fn record(&self, ids: &[u64]) {
        self.changes.get().record(ids);
    }

    /// Writes the lines of a document's chunks (the chunks of `prepared`, the first of which has index `first`) to
    /// `out`, handing it to `flush` whenever it holds [`PIECE`] bytes or more (after a whole line); returns their
    /// ids when a previous run is compared with (else none: nothing reads them).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write<'t, E>(
        &self,
        out: &mut Vec<u8>,
        shape: &Shape<'_>,
        document: Document<'_>,
        prepared: &Prepared,
        first: usize,
        text_of: impl Fn(&Chunk) -> &'t str,
        mut flush: impl FnMut(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<Vec<u64>, E> {
        let mut source_json = Vec::with_capacity(document.source.len() + 2);
        string(&mut source_json, document.source);
        // The metadata's keys that are the same for every chunk of the document: the source, and the strategy.
        let mut head_json = b"{\"source\": ".to_vec();
        head_json.extend_from_slice(&source_json);
        if let Some((strategy, reason)) = document.strategy {
            head_json.extend_from_slice(b", \"strategy\": ");
            string(&mut head_json, strategy);
            head_json.extend_from_slice(b", \"strategy_reason\": ");
            string(&mut head_json, reason);
        }
        let structure = prepared.structure();
        let mut ids = Vec::new();
        for (i, c) in prepared.chunks().iter().enumerate() {
            let text = text_of(c);
            let info = structure.map(|d| (d, &d.chunks[i]));
            // Where this line holds the text, escaped: an embedding text equal to it is copied from there.
            let mut escaped: Option<std::ops::Range<usize>> = None;
            out.push(b'{');
            for (k, field) in self.fields.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(b", ");
                }
                out.push(b'"');
                out.extend_from_slice(field.name().as_bytes());
                out.extend_from_slice(b"\": ");
                match field {
                    Field::Text => {
                        let from = out.len();
                        string(out, text);
                        escaped = Some(from..out.len());
                    }
                    Field::Start => int(out, c.char_start),
                    Field::End => int(out, c.char_end),
                    Field::Source => out.extend_from_slice(&source_json),
                    Field::Index => int(out, first + i),
                    Field::Id => id(out, Some(c.id)),
                    Field::PrevId => id(out, c.prev_id),
                    Field::NextId => id(out, c.next_id),
                    Field::Level => string(out, shape.level_name(c.level)),
                    Field::Size => int(out, c.size),
                    Field::TokenCount if shape.tokens => int(out, c.size),
                    Field::TokenCount => out.extend_from_slice(b"null"),
                    Field::Context => string(out, info.map_or("", |(_, s)| &s.context)),
                    Field::EmbeddingText => match info.map(|(_, s)| s) {
                        Some(s) if s.embedding.is_some() => {
                            string(out, s.embedding.as_deref().unwrap_or_default());
                        }
                        Some(s) if !s.context.is_empty() => {
                            string(out, &format!("{}{}{text}", s.context, context_sep(s)));
                        }
                        _ => match &escaped {
                            Some(range) => out.extend_from_within(range.clone()),
                            None => string(out, text),
                        },
                    },
                    Field::Metadata => metadata(out, &head_json, info, c.pages),
                    Field::Change => {
                        let kept = self.changes.get().kept_id(c.id);
                        out.extend_from_slice(if kept { b"\"kept\"" } else { b"\"added\"" });
                    }
                }
            }
            out.extend_from_slice(b"}\n");
            if self.changes.get().compared() {
                ids.push(c.id);
            }
            if out.len() >= PIECE {
                flush(out)?;
            }
        }
        Ok(ids)
    }
}

/// A chunk's metadata as `chunk.metadata` holds it in the command line: `head`, the opening brace and the keys the
/// document gives every chunk (the source, then the strategy that chose its chunker), then the keys of a structural
/// chunker's description (in the order `build::describe` sets them), then the pages of a paged text.
fn metadata(
    out: &mut Vec<u8>,
    head: &[u8],
    info: Option<(&Description, &chunkwise_core::SpanInfo)>,
    pages: Option<(usize, usize)>,
) {
    out.extend_from_slice(head);
    if let Some((d, s)) = info.filter(|(_, s)| s.code.as_ref().is_some_and(|c| c.symbols.is_none()))
    {
        code_metadata(out, d, s);
    } else if let Some((d, s)) = info {
        out.extend_from_slice(b", \"title_path\": ");
        strings(out, d.title_path(s));
        out.extend_from_slice(b", \"headings\": [");
        for (k, &h) in s.path.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(b", ");
            }
            int(out, usize::from(d.headings[h].depth));
        }
        out.extend_from_slice(b"], \"chunk_type\": ");
        string(out, s.kind.as_str());
        if let Some((first, past, total)) = s.rows {
            for (key, value) in [
                ("row_start", first),
                ("row_end", past),
                ("total_rows", total),
            ] {
                let _ = write!(out, ", \"{key}\": ");
                int(out, value);
            }
        }
        if let Some(language) = &s.language {
            out.extend_from_slice(b", \"language\": ");
            match language {
                Some(l) => string(out, l),
                None => out.extend_from_slice(b"null"),
            }
        }
        if let Some(code) = &s.code {
            // A Markdown code block parsed as code: the code chunker's keys too.
            code_keys(out, d, s, code);
            if let Some(note) = code.note {
                out.extend_from_slice(b", \"note\": ");
                string(out, note);
            }
        }
        if s.context_shortened {
            out.extend_from_slice(b", \"context_shortened\": true");
        }
    }
    if let Some((first, last)) = pages {
        out.extend_from_slice(b", \"page_start\": ");
        int(out, first);
        out.extend_from_slice(b", \"page_end\": ");
        int(out, last);
    }
    out.push(b'}');
}

/// A code chunk's keys, in the order `build::describe` sets them: language, symbol path, lines, node types, chunk
/// type, then the note and `context_shortened` when set.
fn code_metadata(out: &mut Vec<u8>, d: &Description, s: &chunkwise_core::SpanInfo) {
    let Some(code) = &s.code else { return };
    out.extend_from_slice(b", \"language\": ");
    match s.language.as_ref().and_then(|l| l.as_deref()) {
        Some(l) => string(out, l),
        None => out.extend_from_slice(b"null"),
    }
    code_keys(out, d, s, code);
    out.extend_from_slice(b", \"chunk_type\": ");
    string(out, s.kind.as_str());
    if let Some(note) = code.note {
        out.extend_from_slice(b", \"note\": ");
        string(out, note);
    }
    if s.context_shortened {
        out.extend_from_slice(b", \"context_shortened\": true");
    }
}

/// A chunk of code's symbol path, lines and node types.
fn code_keys(
    out: &mut Vec<u8>,
    d: &Description,
    s: &chunkwise_core::SpanInfo,
    code: &chunkwise_core::structure::CodeSpan,
) {
    out.extend_from_slice(b", \"symbol_path\": ");
    strings(out, d.symbol_path(s));
    out.extend_from_slice(b", \"start_line\": ");
    int(out, code.lines.0);
    out.extend_from_slice(b", \"end_line\": ");
    int(out, code.lines.1);
    out.extend_from_slice(b", \"node_types\": ");
    strings(out, code.node_types.iter().map(String::as_str));
}

/// A JSON list of strings.
fn strings<'a>(out: &mut Vec<u8>, items: impl Iterator<Item = &'a str>) {
    out.push(b'[');
    for (k, item) in items.enumerate() {
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        string(out, item);
    }
    out.push(b']');
}

/// A JSON string, escaped as `json.dumps(..., ensure_ascii=False)` escapes it: `\"`, `\\`, `\b \f \n \r \t`, the
/// other control characters as `\u00XX` (lowercase hex), nothing else. By hand, 8 bytes at a time: serde_json's
/// escaper, a byte at a time, was most of the cost of the lines (a chunk's text is written once or twice).
fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut from = 0; // the start of the run not yet copied
    let mut i = 0;
    while i < bytes.len() {
        if i + 8 <= bytes.len() {
            let word = u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
            if !needs_escape(word) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        if b < 0x20 || b == b'"' || b == b'\\' {
            out.extend_from_slice(&bytes[from..i]);
            escape(out, b);
            from = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

/// Whether one of the 8 bytes of `word` is below 0x20, a quote or a backslash (the classic SWAR tests for a zero
/// byte and a byte below n; bytes of 0x80 and above never match).
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    (below_space | zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\'))))
        != 0
}

fn escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ]),
    }
}

fn int(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

fn id(out: &mut Vec<u8>, hash: Option<u64>) {
    match hash {
        Some(h) => {
            out.push(b'"');
            out.extend_from_slice(&hash_id(h));
            out.push(b'"');
        }
        None => out.extend_from_slice(b"null"),
    }
}
