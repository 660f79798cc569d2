"""The ingestion run: files -> chunks -> vectors -> a store kept in sync with the tree (see :func:`ingest`)."""

from __future__ import annotations

import codecs
import hashlib
import io
import json
import os
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import AbstractSet, Any, Callable, Dict, FrozenSet, List, Optional, Sequence, TextIO, Tuple, Union

import numpy as np

from .. import auto, loaders
from ..chunk import Chunk
from ..chunkers import (
    PAGE_BREAK, BaseChunker, CodeChunker, RecursiveChunker, TableChunker, _SectionChunker, join_pages,
)
from .. import _core, _heap
from .._core import ChunkingError, __version__
from ..cli import reading
from ..cli.files import UNREADABLE, Filter, walk
from .boilerplate import LineCounts, boilerplate_runs, edge_keys, is_boilerplate, page_furniture
from .cache import EmbeddingCache, text_key
from .documents import Document, Reported, decode, doc_id_of, given_roots, read_bytes
from .embedding import Embedder, embedder_from_spec, model_identity
from .stores import COMPARED, LOCK_TIMEOUT, Replacement, Store, check_lock_timeout, open_store, rows_table

__all__ = ["IngestReport", "ingest", "query"]

#: Files read, chunked, embedded and written together: at most this many, and no more bytes than ``BATCH_BYTES``.
BATCH_FILES = 64
BATCH_BYTES = 2 << 20
#: Rows of new documents embedded and written together: a bound on the vectors held at once.
SLICE_ROWS = 1024
#: Bytes of a streamed document (see :class:`_Stream`) handed to the core at a time.
STREAM_BYTES = 1 << 20
#: The vectors a run keeps (with their texts) so that a text met again is not embedded again, in bytes: past it,
#: the run starts a new table (a cache file keeps every vector).
MEMO_BYTES = 8 << 20


@dataclass
class IngestReport:
    """What a run did. ``documents_changed``: documents whose rows were written or deleted; ``texts_embedded``:
    texts sent to the model (each distinct text once); ``texts_from_cache``: texts whose vector the cache had;
    ``skipped``: ``(path, why)`` of every file left out (unreadable, not text, no loader, ...)."""

    documents_seen: int = 0
    documents_changed: int = 0
    documents_unchanged: int = 0
    documents_deleted: int = 0
    chunks_written: int = 0
    chunks_deleted: int = 0
    chunks_kept: int = 0
    texts_embedded: int = 0
    texts_from_cache: int = 0
    #: chunks of the documents chunked by this run that are boilerplate (flagged, or left out by skip_boilerplate)
    chunks_boilerplate: int = 0
    skipped: List[Tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.documents_seen} documents ({self.documents_changed} changed, {self.documents_unchanged} "
                f"unchanged, {self.documents_deleted} deleted), {self.chunks_written} chunks written, "
                f"{self.chunks_deleted} deleted, {self.chunks_kept} kept, {self.chunks_boilerplate} boilerplate; "
                f"{self.texts_embedded} texts embedded, {self.texts_from_cache} from the cache")


def _under(doc_id: str, root: str) -> bool:
    """Whether the document ``doc_id`` is ``root`` or lies under it (both normalized paths: ``.`` holds every
    relative path that does not climb out of it)."""
    if root == ".":
        return not doc_id.startswith(("/", "../")) and doc_id != ".."
    return doc_id == root or doc_id.startswith(root.rstrip("/") + "/")


def _chunker_identity(chunker: Any) -> str:
    """What of the chunker decides its chunks: its repr (chunkwise's chunkers show every argument), else its type
    (a repr with an address would change every run)."""
    text = repr(chunker)
    return type(chunker).__qualname__ if " at 0x" in text else text


def _resolve_embed(embed: Any, embed_id: Optional[str]) -> Tuple[Any, str]:
    if embed is None:
        embed = "minilm"
    if isinstance(embed, str):
        spec = embed
        embed = embedder_from_spec(spec)
        if embed_id is None and not isinstance(getattr(embed, "model_id", getattr(embed, "name", None)), str):
            embed_id = spec
    if not callable(embed):
        raise TypeError(f"embed must be a callable list[str] -> 2-D array, 'minilm' or 'module:function', got "
                        f"{type(embed).__name__}")
    return embed, model_identity(embed, embed_id)


def ingest(
    paths: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    into: str,
    embed: Union[Callable[[List[str]], Any], str, None] = None,
    chunker: Any = None,
    *,
    table: str = "chunks",
    cache: Union[str, "os.PathLike[str]", EmbeddingCache, None] = None,
    embed_id: Optional[str] = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    hidden: bool = False,
    follow_links: bool = False,
    encoding: Optional[str] = None,
    batch_size: int = 256,
    log: Optional[TextIO] = None,
    boilerplate: bool = True,
    skip_boilerplate: bool = False,
    lock_timeout: float = LOCK_TIMEOUT,
) -> IngestReport:
    """Keeps the store ``into`` in sync with the files under ``paths``: chunks each file (``chunker``, by default
    :class:`chunkwise.AutoChunker` as ``chunkwise chunk --strategy auto``), embeds each chunk's ``embedding_text``
    with ``embed`` and writes one row per chunk.

    ``embed``: a callable ``list[str] -> 2-D float array`` (one row per text), ``"minilm"`` (the default:
    all-MiniLM-L6-v2 in numpy, offline) or ``"module:function"``. Its identity (``embed_id``, else its ``model_id``
    or ``name`` attribute, else the ``module:function`` it was named by) keys the cache and is stored with each
    vector: vectors of another model are never reused. ``cache``: a SQLite file of vectors by (model, text), kept
    across runs; without it, identical texts are still embedded once per run (as long as the run's table of
    recent vectors, ``MEMO_BYTES``, holds them: a cache file keeps them all).

    Sync, not append: a document whose bytes, chunker, model and chunkwise version are those recorded in the store's
    manifest is not even chunked; a changed one gets its new and changed rows written (by chunk id), and its rows
    that are gone deleted, and only then its manifest entry; a document the store holds under a folder (or a file)
    given that the run no longer finds leaves the store. A run killed at any point leaves every document either
    recorded and complete or with an entry that is missing or stale, which the next run redoes: the store then equals
    one clean run's. Files that cannot be read are reported (``report.skipped``, and on ``log``) and their stored
    chunks kept. Raises :class:`chunkwise.ChunkingError` for a store that cannot be opened or written (naming it,
    before anything is read) and for an embedder that raises or returns NaN or the wrong shape (naming it; the
    documents of that batch are left as they were).

    ``boilerplate``: chunks made only of lines that half of the run's documents share (a site's navigation, a
    copyright footer), or of a paged document's running heads and feet, get ``"boilerplate": true`` in their metadata
    (see :mod:`chunkwise.ingest.boilerplate`); with ``skip_boilerplate`` they are left out of the store. A document
    is cut at its runs of such lines before it is chunked, so that no chunk holds both boilerplate and content. A
    document's share of the tree's boilerplate is part of its fingerprint, so a run that changes which of its lines
    are boilerplate redoes it (only the chunks whose text changed are embedded again).

    One run at a time writes to a table: a run holds the table's lock from the moment it opens the store to its
    end (a lock file in the folder of a LanceDB or Qdrant store, an advisory lock in PostgreSQL; the operating system
    or the server drops it with a killed run). A run that finds it held waits up to ``lock_timeout`` seconds (10 by
    default: the session of a run just killed may still be ending) and then raises :class:`chunkwise.ChunkingError`
    naming the store and the table, before it reads or embeds anything. :func:`query` takes no lock."""
    for name, flag in (("boilerplate", boilerplate), ("skip_boilerplate", skip_boilerplate)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, got {type(flag).__name__}")
    if skip_boilerplate and not boilerplate:
        raise ValueError("skip_boilerplate=True needs boilerplate=True (the boilerplate must be found to be skipped)")
    path_list = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not path_list:
        raise ValueError("paths must name at least one file or folder")
    for p in path_list:
        if not isinstance(p, (str, os.PathLike)):
            raise TypeError(f"paths must be str or os.PathLike, got {type(p).__name__}")
        if os.fspath(p) == "-":
            raise ValueError("paths: standard input (-) has no stable document id to keep a store in sync with")
    if chunker is None:
        chunker = auto.AutoChunker()
    elif not callable(getattr(chunker, "chunk", None)):
        raise TypeError(f"chunker must be a chunkwise chunker (with .chunk), got {type(chunker).__name__}")
    timeout = check_lock_timeout(lock_timeout)
    embed_fn, model = _resolve_embed(embed, embed_id)
    store = open_store(into, table, lock_timeout=timeout)  # fails first: nothing read, nothing embedded
    own_cache = not isinstance(cache, EmbeddingCache)
    vectors = cache if isinstance(cache, EmbeddingCache) or cache is None else EmbeddingCache(cache)
    try:
        run = _Run(store, chunker, Embedder(embed_fn, model, batch_size, store.dimension()), vectors, encoding,
                   Reported(log), boilerplate, skip_boilerplate)
        try:
            with _heap.prompt():
                run.all(path_list, Filter(include, exclude, hidden), follow_links)
        finally:
            run.close()
        return run.report
    finally:
        store.close()
        if own_cache and vectors is not None:
            vectors.close()


class _Run:
    def __init__(self, store: Store, chunker: Any, embedder: Embedder, cache: Optional[EmbeddingCache],
                 encoding: Optional[str], problems: Reported, boilerplate: bool = True,
                 skip_boilerplate: bool = False) -> None:
        self.store, self.chunker, self.embedder, self.cache = store, chunker, embedder, cache
        self.boilerplate, self.skip_boilerplate = boilerplate, skip_boilerplate
        self.memo: Dict[str, np.ndarray] = {}  # text -> vector, of this run (see MEMO_BYTES)
        self.memo_bytes = 0
        self.writer: Optional[ThreadPoolExecutor] = None
        self.chunking: Optional[ThreadPoolExecutor] = None
        self.prepared: Optional["Future[Tuple[List[Document], List[Tuple[Document, List[Any]]]]]"] = None
        self.fingerprints: Dict[str, str] = {}  # of the documents read and not yet written
        self.writing: Optional["Future[None]"] = None
        self.read_all = boilerplate  # the boilerplate pass read and freed every file (see submit)
        self.encoding, self.problems = encoding, problems
        self.report = IngestReport(skipped=problems.items)
        self.model = embedder.model
        self.config = (f"chunkwise {__version__}\n{_chunker_identity(chunker)}\n{encoding}\n{self.model}\n"
                       f"boilerplate={boilerplate} (runs cut apart) skip={skip_boilerplate}\n")
        self.manifest = store.documents()

    def close(self) -> None:
        for pool in (self.chunking, self.writer):
            if pool is not None:
                pool.shutdown(wait=True)

    def fingerprint(self, data: bytes, boilerplate: FrozenSet[int] = frozenset()) -> str:
        """What a document is ingested from: the run's configuration, its bytes, and which of its lines are the
        tree's boilerplate (so that a document whose lines become boilerplate, or stop being, is redone)."""
        digest = LineCounts.digest(boilerplate, boilerplate)
        return hashlib.sha256(self.config.encode() + data + digest.encode()).hexdigest()

    def all(self, paths: List[Any], keep: Filter, follow: bool) -> None:
        seen: set = set()
        unreadable: set = set()
        found: List[Tuple[Path, str]] = []
        for path in walk([os.fspath(p) for p in paths], self.problems, keep, follow):
            doc_id = doc_id_of(path)
            if doc_id in seen:
                continue
            if not os.path.lexists(path):
                self.problems.add(UNREADABLE, path, "no such file")  # gone: its chunks leave the store
                continue
            seen.add(doc_id)
            found.append((path, doc_id))
        lines = self.find_boilerplate(found) if self.boilerplate else {}
        batch: List[Document] = []
        size = 0
        for path, doc_id in found:
            data = read_bytes(path, self.problems)
            if data is None:
                unreadable.add(doc_id)  # kept as stored: a file that cannot be read now may be read again
                continue
            self.report.documents_seen += 1
            mine = lines.get(doc_id, frozenset())
            fingerprint = self.fingerprint(data, mine)
            if self.manifest.get(doc_id) == (fingerprint, self.model):
                self.report.documents_unchanged += 1
                continue
            self.fingerprints[doc_id] = fingerprint
            if batch and size + len(data) > BATCH_BYTES:
                # A file that would take the batch past the bound starts the next one: a long file is a batch of
                # its own, not chunked (and held) beside the files before it.
                self.submit(batch)
                batch, size = [], 0
            batch.append(Document(doc_id, path, data, boilerplate=mine))
            size += len(data)
            if len(batch) >= BATCH_FILES or size >= BATCH_BYTES:
                self.submit(batch)
                batch, size = [], 0
        if batch:
            self.submit(batch)
        self.submit(None)
        self.prune(given_roots(paths), seen - unreadable)

    def find_boilerplate(self, found: List[Tuple[Path, str]]) -> Dict[str, FrozenSet[int]]:
        """Each document's lines that are the tree's boilerplate (at the head or foot of half of the documents, 3 at
        least): a first pass over every document, changed or not, reading its lines (see :mod:`.boilerplate`). A document
        that cannot be read or decoded counts for nothing here (the second pass reports it)."""
        counts = LineCounts()
        keys: Dict[str, np.ndarray] = {}
        quiet = Reported(None)
        for path, doc_id in found:
            data = read_bytes(path, quiet)
            if data is None:
                continue
            doc = Document(doc_id, path, data)
            if not decode(doc, self.encoding, quiet):
                continue
            text = doc.text if doc.pages is None else "\n".join(doc.pages)
            mine = np.fromiter(edge_keys(text or ""), dtype=np.uint64)
            counts.add(mine.tolist())
            keys[doc_id] = mine
        common = counts.common()
        if not common:
            return {}
        shared = np.fromiter(common, dtype=np.uint64, count=len(common))
        out: Dict[str, FrozenSet[int]] = {}
        for doc_id, mine in keys.items():
            hit = mine[np.isin(mine, shared)]
            if len(hit):
                out[doc_id] = frozenset(int(k) for k in hit)
        return out

    def submit(self, docs: Optional[List[Document]]) -> None:
        """Chunks ``docs`` (None: no more batches) and writes the batch before them: with a chunker that is safe to
        call from another thread, ``docs`` are decoded and chunked on the chunking thread while this one embeds
        and writes the batch before (the chunking runs without the GIL), one batch ahead at most."""
        if docs is not None and self.read_all:
            self.read_all = False
            _heap.release()  # what the boilerplate pass read every file into: not under the first batch's cut
        if self.chunking is None and docs is not None and _threadable(self.chunker):
            self.chunking = ThreadPoolExecutor(1, thread_name_prefix="chunkwise-ingest-chunking")
        ahead: Optional["Future[Tuple[List[Document], List[Tuple[Document, List[Any]]]]]"] = None
        if docs is not None:
            if self.chunking is not None:
                ahead = self.chunking.submit(self.prepare, docs)
            else:
                ahead = Future()
                ahead.set_result(self.prepare(docs))
        previous, self.prepared = self.prepared, ahead
        if previous is not None:
            self.write(*previous.result())

    def prune(self, roots: List[str], found: set) -> None:
        """Deletes the stored documents under a path given that the run did not find (nor failed to read)."""
        gone = sorted(d for d in self.manifest if d not in found and any(_under(d, r) for r in roots))
        if not gone:
            return
        self.report.chunks_deleted += self.store.count_rows(gone)
        self.store.delete_documents(gone)
        self.report.documents_deleted += len(gone)

    def chunk_all(self, docs: List[Document]) -> List[Optional[List[Any]]]:
        """The chunks of each document (None for one the chunker failed on, reported): the plain texts in one
        ``chunk_batch``, in parallel; a loaded document (HTML, PDF, DOCX) on its own. Should the batch fail, each
        document on its own, so that a document at fault costs only itself."""
        out: List[Optional[List[Any]]] = [None] * len(docs)
        plain = [i for i, d in enumerate(docs) if d.pages is None and not d.markdown and not self.cuts(d)]
        batch = getattr(self.chunker, "chunk_batch", None)
        if batch is not None and len(plain) > 1:
            try:
                results = batch([docs[i].text for i in plain], [{"source": docs[i].doc_id} for i in plain])
                for i, chunks in zip(plain, results):
                    out[i] = list(chunks)
            except Exception:
                pass  # each document on its own, below: the one at fault is reported
        for i, doc in enumerate(docs):
            if out[i] is None:
                out[i] = self.chunks(doc)
        return out

    def cuts(self, doc: Document) -> bool:
        """Whether the document may have runs of boilerplate lines to cut apart (see :meth:`cut_chunks`)."""
        return self.boilerplate and bool(doc.boilerplate or doc.furniture) and _cuttable(self.chunker)

    def chunks(self, doc: Document) -> Optional[List[Any]]:
        meta = {"source": doc.doc_id}
        try:
            if self.cuts(doc):
                cut = self.cut_chunks(doc, meta)
                if cut is not None:
                    return cut
            if doc.markdown and isinstance(self.chunker, auto.AutoChunker):
                return self.chunker._chunk_as(self.markdown(doc), doc.text or "", dict(meta), doc.pages)
            if doc.pages is not None:
                return list(self.chunker.chunk(metadata=meta, pages=doc.pages))
            return list(self.chunker.chunk(doc.text, meta))
        except Exception as exc:  # ChunkingError and the like: this document is reported, the run goes on
            self.problems.add(("failed", "chunking error"), doc.path, exc)
            return None

    @staticmethod
    def markdown(doc: Document) -> "auto.Choice":
        return auto.Choice("markdown", f"file name {doc.path.suffix.lower()}: read as Markdown")

    def cut_chunks(self, doc: Document, meta: Dict[str, Any]) -> Optional[List[Any]]:
        """The chunks of a document with runs of boilerplate lines (:func:`.boilerplate_runs`), so that none mixes
        boilerplate with content: the pieces between the runs, and each run, chunked apart by the document's
        chunker (an AutoChunker's choice made once, for the whole document), their offsets and page numbers shifted
        back to the document, their ids made over the whole document (as its chunker makes them: by text and
        occurrence), the ids of the runs' chunks kept in ``doc.cut``. In a document of sections (Markdown, provisions,
        code) only a run at its head or foot is cut apart: a piece chunked apart has no heading above it, and a run
        between a heading and its text would take the title path from the text's chunks. None (chunked whole) for a
        document without such a run, and for a table (a header row shared by a tree's tables is their header)."""
        chunker = self.chunker
        text = join_pages(doc.pages) if doc.pages is not None else doc.text or ""
        if isinstance(chunker, auto.AutoChunker):
            choice = self.markdown(doc) if doc.markdown else chunker._choice(text, meta)
            if choice.strategy == "table":
                return None
            sections = choice.strategy != "prose"
        else:
            sections = isinstance(chunker, (_SectionChunker, CodeChunker))
        runs = boilerplate_runs(text, doc.boilerplate, doc.furniture, doc.pages is not None)
        if sections and runs:  # the first run, if nothing is above it, and the last, if nothing is below
            head = [runs[0]] if not _core.line_keys(text[: runs[0][0]]) else []
            foot = [runs[-1]] if not _core.line_keys(text[runs[-1][1] :]) else []
            runs = head + [r for r in foot if r not in head]
        if not runs:
            return None
        numbered = PAGE_BREAK in text  # its chunks get page numbers, counted from the piece's first page

        def chunk_piece(piece: str) -> List[Any]:
            pages = piece.split(PAGE_BREAK) if numbered else None
            if isinstance(chunker, auto.AutoChunker):
                return chunker._chunk_as(choice, piece, dict(meta), pages)
            if pages is not None:
                return list(chunker.chunk(metadata=dict(meta), pages=pages))
            return list(chunker.chunk(piece, dict(meta)))

        pieces: List[Tuple[int, int, bool]] = []
        at = 0
        for start, end in runs:
            if start > at:
                pieces.append((at, start, False))
            pieces.append((start, end, True))
            at = end
        if at < len(text):
            pieces.append((at, len(text), False))
        made: List[Tuple[Any, int, int, bool]] = []  # a piece's chunk, the piece's offset and pages before it
        pages_before = counted = 0
        for start, end, boilerplate in pieces:
            piece = text[start:end]
            if not piece.strip():
                continue  # whitespace between two runs: no chunk of it, as a chunker makes none
            if numbered:
                pages_before += text.count(PAGE_BREAK, counted, start)
                counted = start
            made.extend((c, start, pages_before, boilerplate) for c in chunk_piece(piece))
        ids = _core.level_ids(text, [c.text for c, _, _, _ in made], meta, 0)
        out: List[Any] = []
        cut = set()
        for i, (c, offset, before, boilerplate) in enumerate(made):
            metadata = c.metadata
            if before and "page_start" in metadata:
                metadata = {**metadata, "page_start": metadata["page_start"] + before,
                            "page_end": metadata["page_end"] + before}
            out.append(Chunk(c.text, c.start + offset, c.end + offset, index=i, size=c.size, level=c.level,
                             metadata=metadata, context=c.context, id=ids[i], prev_id=ids[i - 1] if i else None,
                             next_id=ids[i + 1] if i + 1 < len(ids) else None, token_count=c.token_count,
                             context_sep=c.context_sep, embedding_text=c.embedding_text))
            if boilerplate:
                cut.add(ids[i])
        doc.cut = cut
        return out

    def prepare(self, docs: List[Document]) -> Tuple[List[Document], List[Tuple[Document, Any]]]:
        """The batch decoded and chunked: each document with its chunks (those that failed left out, reported),
        or with the :class:`_Stream` its chunks will come from as its rows are written."""
        streams = {id(doc): stream for doc in docs for stream in [self.stream(doc)] if stream is not None}
        decoded = [doc for doc in docs if id(doc) not in streams and decode(doc, self.encoding, self.problems)]
        if self.boilerplate:
            for doc in decoded:
                if doc.pages is not None:
                    doc.furniture = page_furniture(doc.pages)
        todo: List[Tuple[Document, Any]] = [
            (doc, chunks) for doc, chunks in zip(decoded, self.chunk_all(decoded)) if chunks is not None]
        if self.boilerplate:
            todo = [(doc, self.flag_boilerplate(doc, chunks)) for doc, chunks in todo]
        if streams:  # in the batch's order
            chunked = {id(doc): chunks for doc, chunks in todo}
            todo = [(doc, streams[id(doc)] if id(doc) in streams else chunked[id(doc)]) for doc in docs
                    if id(doc) in streams or id(doc) in chunked]
        for doc in docs:
            doc.data, doc.text, doc.pages = b"", None, None  # the chunks hold what is needed now
        # The core's memory of the cut (a syntax tree: about 40x a file of code) back to the OS now, not after
        # mimalloc's purge delay: the write of this batch and the cut of the next would stack on it.
        _heap.release()
        return docs, todo

    def stream(self, doc: Document) -> Optional["_Stream"]:
        """The stream of a document that can be chunked as its rows are written (see :class:`_Stream`): UTF-8 text
        (checked here), neither paged nor loaded, without boilerplate lines, that a chunker of chunkwise's that
        streams (prose, by :class:`RecursiveChunker`) would chunk whole. Its chunks are those the chunker gives
        the decoded text. None for any other document."""
        if doc.boilerplate or reading.document_suffix(doc.path) in loaders.SUFFIXES:
            return None
        try:
            data = reading.payload(doc.data, self.encoding)
        except UnicodeDecodeError:
            return None  # reported by decode, as for any document
        if not isinstance(data, bytes) or not data or PAGE_BREAK.encode() in data:
            return None
        chunker, meta = self.chunker, {"source": doc.doc_id}
        if isinstance(chunker, auto.AutoChunker):
            # The choice AutoChunker makes for the decoded text: the core reads the same UTF-8 (a byte that is not
            # UTF-8 ends what it reads, and the text is not streamed below).
            choice = auto.choose_file(data, doc.doc_id)
            chunker, meta = chunker.chunker_for(choice), auto._with_choice(meta, choice)
        if type(chunker) is not RecursiveChunker or chunker._kwargs.get("balance") or not _is_utf8(data):
            return None
        return _Stream(chunker, meta, data)

    def flag_boilerplate(self, doc: Document, chunks: List[Any]) -> List[Any]:
        """The chunks cut from runs of boilerplate lines (see :meth:`cut_chunks`), and any other made of boilerplate
        lines only (the tree's, and a paged document's running heads and feet), are flagged (their ids in
        ``doc.flagged``), or left out with ``skip_boilerplate``."""
        lines = doc.boilerplate | doc.furniture
        if not lines:
            return chunks
        flagged = {c.id for c in chunks if c.id in doc.cut or is_boilerplate(c.text, lines)}
        self.report.chunks_boilerplate += len(flagged)
        if self.skip_boilerplate:
            return [c for c in chunks if c.id not in flagged]
        doc.flagged = flagged
        return chunks

    def write(self, docs: List[Document], todo: List[Tuple[Document, List[Any]]]) -> None:
        fingerprints = {d.doc_id: self.fingerprints.pop(d.doc_id) for d in docs}
        if not todo:
            return
        # A document the store has neither rows nor an entry of: its rows are all new, nothing to compare or delete.
        fresh = [(doc, chunks) for doc, chunks in todo if doc.doc_id not in self.manifest]
        # (A known document's chunks are compared with its stored rows all at once.)
        known = [(doc, list(chunks) if isinstance(chunks, _Stream) else chunks) for doc, chunks in todo
                 if doc.doc_id in self.manifest]
        replacements: List[Replacement] = []
        try:
            written = self.write_fresh(fresh)
            replacements = [Replacement(doc.doc_id, fingerprints[doc.doc_id], self.model, written[doc.doc_id],
                                        new=True) for doc, _ in fresh]
            replacements += self.write_known(known, fingerprints)
            self.written()
        except BaseException:
            # The batch's documents are left as they were: the new ones' rows added so far leave again.
            self.written(check=False)
            if fresh:
                self.store.discard_rows([doc.doc_id for doc, _ in fresh])
            raise
        for rep in replacements[:len(fresh)]:
            rep_written = written.get(rep.doc_id, 0)
            self.report.chunks_written += rep_written
            if rep_written:
                self.report.documents_changed += 1
        self.store.commit_documents(replacements)
        for rep in replacements:
            self.manifest[rep.doc_id] = (rep.fingerprint, rep.model)
        _heap.release()  # the batch's rows, written

    def write_fresh(self, fresh: List[Tuple[Document, Any]]) -> Dict[str, int]:
        """Writes the rows of documents new to the store, ``SLICE_ROWS`` at a time (embedded, then added): the
        vectors of one slice are held at once, not those of the batch. Returns the rows written by document."""
        written: Dict[str, int] = {}
        rows = _Columns(self.model)
        for doc, chunks in fresh:
            written[doc.doc_id] = 0
            stream = iter(chunks) if isinstance(chunks, _Stream) else None
            while True:
                # Each slice's chunks go as soon as their rows are built: a chunk holds its text once read, so the
                # document's chunks held to its end would hold its text twice over.
                if stream is not None:
                    part = list(islice(stream, SLICE_ROWS))
                else:
                    part = chunks[:SLICE_ROWS]
                    del chunks[:SLICE_ROWS]
                if not part:
                    break
                written[doc.doc_id] += len(part)
                rows.extend(doc.doc_id, part, doc.flagged)
                del part
                if len(rows) >= SLICE_ROWS:
                    self.add(rows.table(self.vectors(rows.embedding_texts())), True)
                    rows = _Columns(self.model)
        if len(rows):
            self.add(rows.table(self.vectors(rows.embedding_texts())), True)
        return written

    def add(self, rows: Any, new: bool) -> None:
        """``store.add_rows(rows, new)`` on the writer thread, while this one builds and embeds the next slice (the
        store's write runs without the GIL); one write at a time, so at most two slices are held."""
        self.written()
        if self.writer is None:
            self.writer = ThreadPoolExecutor(1, thread_name_prefix="chunkwise-ingest-writer")
        self.writing = self.writer.submit(self.store.add_rows, rows, new)

    def written(self, check: bool = True) -> None:
        """Waits for the write under way, if any (raising its error with ``check``)."""
        writing, self.writing = self.writing, None
        if writing is not None:
            if check:
                writing.result()
            else:
                wait([writing])

    def write_known(self, known: List[Tuple[Document, List[Any]]], fingerprints: Dict[str, str]) -> List[Replacement]:
        """The documents the store holds rows (or an entry) of: their new and changed rows written by id (the
        kept ones compared column by column with the stored ones, their vectors reused), their gone ids listed."""
        if not known:
            return []
        stored: Dict[str, Dict[str, Any]] = {}
        by_doc: Dict[str, List[str]] = {}
        for row in self.store.rows([doc.doc_id for doc, _ in known]):
            stored[row["id"]] = row
            by_doc.setdefault(row["doc_id"], []).append(row["id"])
        # Vectors already in the store for this model, by embedded text: a kept or moved chunk is not embedded again.
        reusable = {r["embedding_text"]: r["vector"] for r in stored.values() if r["model"] == self.model}
        upsert = _Columns(self.model)
        replacements: List[Replacement] = []
        for doc, chunks in known:
            rows = _Columns(self.model)
            rows.extend(doc.doc_id, chunks, doc.flagged)
            keep = [i for i in range(len(rows)) if not self.same(stored.get(rows.id[i]), rows.row(i))]
            upsert.take(rows, keep)
            ids = set(rows.id)
            stale = [i for i in by_doc.get(doc.doc_id, []) if i not in ids]
            replacements.append(Replacement(doc.doc_id, fingerprints[doc.doc_id], self.model, len(rows),
                                            stale=stale))
            self.report.chunks_kept += len(rows) - len(keep)
            self.report.chunks_written += len(keep)
            self.report.chunks_deleted += len(stale)
            if keep or stale:
                self.report.documents_changed += 1
        if len(upsert):
            self.add(upsert.table(self.vectors(upsert.embedding_texts(), reusable)), False)
        return replacements

    def vectors(self, texts: List[str], reusable: Optional[Dict[str, np.ndarray]] = None) -> np.ndarray:
        """A float32 row per text, ``(len(texts), dim)``: from the store (``reusable``), this run, the cache, else
        the model (each distinct text once)."""
        distinct = list(dict.fromkeys(texts))
        memo = self.memo
        # Comprehensions rather than one loop with branches: this runs for every row of a run.
        found = [memo.get(t) for t in distinct]
        if reusable:
            stored = [reusable.get(t) for t in distinct]
            self.report.texts_from_cache += sum(1 for s, v in zip(stored, found) if s is None and v is not None)
            found = [v if s is None else s for s, v in zip(stored, found)]
            del stored
        known: Dict[int, np.ndarray] = {i: v for i, v in enumerate(found) if v is not None}
        missing = [i for i, v in enumerate(found) if v is None]
        if not reusable:
            self.report.texts_from_cache += len(known)
        del found
        keys: Dict[bytes, int] = {}
        if missing and self.cache is not None:
            keys = {text_key(distinct[i]): i for i in missing}
            hits = self.cache.get_many(self.model, keys)
            self.report.texts_from_cache += len(hits)
            for key, vector in hits.items():
                known[keys[key]] = vector
            missing = [i for i in missing if i not in known]
        embedded = self.embedder.matrix([distinct[i] for i in missing]) if missing else None
        dim = self.embedder.dim if self.embedder.dim is not None else self.store.dimension()
        for vector in known.values():
            if dim is not None and vector.shape[0] != dim:
                raise ChunkingError(f"embed ({self.model!r}): the cache holds a vector of dimension "
                                    f"{vector.shape[0]} where the store's have {dim}")
            dim = vector.shape[0]
        out = np.empty((len(distinct), dim or 0), dtype=np.float32)
        if embedded is not None:
            if len(missing) == len(distinct):
                out[:] = embedded  # a copy: the embedder may hand out a buffer of its own
            else:
                out[missing] = embedded
            self.report.texts_embedded += len(missing)
            if self.cache is not None:
                key_of = {i: k for k, i in keys.items()}
                self.cache.put_many(self.model, {key_of[i]: out[i] for i in missing})
        for i, vector in known.items():
            out[i] = vector
        if embedded is not None:
            self.remember(distinct, missing, out)
        if len(distinct) == len(texts):
            return out
        row = {t: i for i, t in enumerate(distinct)}
        return out[[row[t] for t in texts]]

    def remember(self, distinct: List[str], missing: List[int], vectors: np.ndarray) -> None:
        """Keeps the vectors just embedded for the rest of the run, up to ``MEMO_BYTES`` (then starts again)."""
        if len(missing) == len(distinct):
            texts: List[str] = distinct
            self.memo.update(zip(distinct, vectors))
        else:
            texts = [distinct[i] for i in missing]
            self.memo.update(zip(texts, vectors[missing]))
        self.memo_bytes += len(texts) * vectors.shape[1] * 4 + sum(map(len, texts))
        if self.memo_bytes > MEMO_BYTES:
            self.memo, self.memo_bytes = {}, 0

    @staticmethod
    def same(old: Optional[Dict[str, Any]], new: Dict[str, Any]) -> bool:
        return old is not None and all(old[c] == new[c] for c in COMPARED)


class _Stream:
    """The chunks of a document, made as they are read (:meth:`BaseChunker.iter_chunks` on its UTF-8 bytes,
    ``STREAM_BYTES`` at a time: the same chunks as ``chunker.chunk(text, meta)``), once: neither the document's
    ``str`` nor all its chunks are ever held, only its bytes and a slice of chunks."""

    def __init__(self, chunker: BaseChunker, meta: Dict[str, Any], data: bytes) -> None:
        self.chunker, self.meta, self.data = chunker, meta, data

    def __iter__(self) -> Any:
        data, self.data = self.data, b""
        return self.chunker.iter_chunks(io.BytesIO(data), self.meta, read_size=STREAM_BYTES)


def _is_utf8(data: bytes) -> bool:
    """Whether ``data`` decodes as UTF-8, checked ``STREAM_BYTES`` at a time (no ``str`` of the whole)."""
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for i in range(0, len(data), STREAM_BYTES):
            decoder.decode(view[i : i + STREAM_BYTES], i + STREAM_BYTES >= len(data))
    except UnicodeDecodeError:
        return False
    return True


def _cuttable(chunker: Any) -> bool:
    """Whether the run may chunk a document in pieces (see :meth:`_Run.cut_chunks`): chunkwise's chunkers of one
    strategy but tables, and AutoChunker. Another chunker (a hierarchy, whose levels link its chunks; the caller's
    own) gets the document whole, and only its chunks made of boilerplate lines alone are flagged."""
    if isinstance(chunker, auto.AutoChunker):
        return True
    return isinstance(chunker, BaseChunker) and not isinstance(chunker, TableChunker)


def _threadable(chunker: Any) -> bool:
    """Whether the run may chunk on a thread of its own: chunkwise's chunkers of one strategy (and AutoChunker of
    those) are immutable and cut without the GIL; one that embeds (SemanticChunker) would call a model while the run
    calls one, and any other chunker (the caller's own, a composite) is called on the caller's thread only."""
    if isinstance(chunker, auto.AutoChunker):
        return all(_threadable(c) for c in [*chunker._chunkers.values(), *chunker._tables.values()])
    return isinstance(chunker, BaseChunker) and not getattr(chunker, "_embeds", False)


def _json_encoder() -> Callable[[Any], str]:
    """``json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)``, with the C encoder made once rather
    than once a call (a third of the cost of a small dict); json.dumps itself where there is no C encoder."""
    def plain(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)

    try:
        from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]

        encode = c_make_encoder(None, str, encode_basestring, None, ": ", ", ", True, False, True)

        def fast(value: Any) -> str:
            return "".join(encode(value, 0))

        sample = {"z": [1, "é\n"], "a": None, "m": {"k": 1.5, "b": True}, "p": object}
        if fast(sample) == plain(sample):
            return fast
    except Exception:
        pass
    return plain


_to_json = _json_encoder()


class _Columns:
    """Chunk rows as a list per column (no dict per row), then as an Arrow table with their vectors."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.id: List[str] = []
        self.doc_id: List[str] = []
        self.text: List[str] = []
        self.embedding_text: List[str] = []
        self.start: List[int] = []
        self.end: List[int] = []
        self.index: List[int] = []
        self.title_path: List[List[str]] = []
        self.metadata: List[str] = []

    def __len__(self) -> int:
        return len(self.id)

    def extend(self, doc_id: str, chunks: Sequence[Any], flagged: AbstractSet[str] = frozenset()) -> None:
        """The rows of ``chunks`` of ``doc_id``; those whose id is in ``flagged`` with ``"boilerplate": true`` in their
        metadata."""
        ids, texts, embedded, starts, ends, indices = (self.id, self.text, self.embedding_text, self.start, self.end,
                                                        self.index)
        titles, metas = self.title_path, self.metadata
        last: Any = None
        text = ""
        for chunk in chunks:
            meta = chunk.metadata
            if flagged and chunk.id in flagged:
                meta = {**meta, "boilerplate": True}
            if meta != last:  # neighbours often share their metadata (a prose document's always): encoded once
                last, text = meta, _to_json(meta)
            ids.append(chunk.id)
            texts.append(chunk.text)
            embedded.append(chunk.embedding_text)
            starts.append(chunk.start)
            ends.append(chunk.end)
            indices.append(chunk.index)
            title = meta.get("title_path")
            titles.append([] if not title else [str(t) for t in title] if isinstance(title, (list, tuple))
                          else [str(title)])
            metas.append(text)
        self.doc_id.extend([doc_id] * len(chunks))

    def row(self, i: int) -> Dict[str, Any]:
        return {c: self.model if c == "model" else getattr(self, c)[i] for c in COMPARED}

    def take(self, other: "_Columns", indices: List[int]) -> None:
        for c in _LISTS:
            column, source = getattr(self, c), getattr(other, c)
            column.extend(source[i] for i in indices)

    def embedding_texts(self) -> List[str]:
        return self.embedding_text

    def table(self, vectors: np.ndarray) -> Any:
        columns: Dict[str, List[Any]] = {c: getattr(self, c) for c in _LISTS}
        columns["model"] = [self.model] * len(self)
        return rows_table(columns, vectors)


_LISTS = tuple(c for c in COMPARED if c != "model")


def query(
    into: str,
    text: str,
    k: int = 5,
    embed: Union[Callable[[List[str]], Any], str, None] = None,
    *,
    table: str = "chunks",
    embed_id: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """The ``k`` chunks of the store ``into`` nearest ``text``, best first: each row's columns (``metadata`` as a
    dict) and its ``score`` (cosine similarity). ``text`` is embedded by ``embed`` (as for :func:`ingest`), which
    must be the model the store's vectors come from."""
    if not isinstance(text, str) or not text:
        raise TypeError(f"text must be a non-empty str, got {text!r}")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    embed_fn, model = _resolve_embed(embed, embed_id)
    store = open_store(into, table, write=False)
    try:
        models = {entry[1] for entry in store.documents().values() if entry is not None}
        if models and model not in models:
            raise ChunkingError(f"embed: the store {store.uri!r} holds vectors of {', '.join(sorted(models))}, not of "
                                f"{model!r}: query with the model it was ingested with")
        vector = Embedder(embed_fn, model, 1, store.dimension())([text])[0]
        return store.query(vector, k)
    finally:
        store.close()


