"""The ingestion run: files -> chunks -> vectors -> a store kept in sync with the tree (see :func:`ingest`)."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple, Union

from .. import auto
from .._core import ChunkingError, __version__
from ..cli.files import UNREADABLE, Filter, walk
from .cache import EmbeddingCache, text_key
from .documents import Document, Reported, decode, doc_id_of, given_roots, read_bytes
from .embedding import Embedder, embedder_from_spec, model_identity
from .stores import COMPARED, Replacement, Store, open_store

__all__ = ["IngestReport", "ingest", "query"]

#: Files read, chunked, embedded and written together: at most this many, and no more bytes than ``BATCH_BYTES``.
BATCH_FILES = 64
BATCH_BYTES = 8 << 20


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
    skipped: List[Tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.documents_seen} documents ({self.documents_changed} changed, {self.documents_unchanged} "
                f"unchanged, {self.documents_deleted} deleted), {self.chunks_written} chunks written, "
                f"{self.chunks_deleted} deleted, {self.chunks_kept} kept; {self.texts_embedded} texts embedded, "
                f"{self.texts_from_cache} from the cache")


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
) -> IngestReport:
    """Keeps the store ``into`` in sync with the files under ``paths``: chunks each file (``chunker``, by default
    :class:`chunkwise.AutoChunker` as ``chunkwise chunk --strategy auto``), embeds each chunk's ``embedding_text``
    with ``embed`` and writes one row per chunk.

    ``embed``: a callable ``list[str] -> 2-D float array`` (one row per text), ``"minilm"`` (the default:
    all-MiniLM-L6-v2 in numpy, offline) or ``"module:function"``. Its identity (``embed_id``, else its ``model_id``
    or ``name`` attribute, else the ``module:function`` it was named by) keys the cache and is stored with each
    vector: vectors of another model are never reused. ``cache``: a SQLite file of vectors by (model, text), kept
    across runs; without it, identical texts are still embedded once per run.

    Sync, not append: a document whose bytes, chunker, model and chunkwise version are those recorded in the store's
    manifest is not even chunked; a changed one gets its new and changed rows written (by chunk id), and its rows
    that are gone deleted, and only then its manifest entry; a document the store holds under a folder (or a file)
    given that the run no longer finds leaves the store. A run killed at any point leaves every document either
    recorded and complete or with an entry that is missing or stale, which the next run redoes: the store then equals
    one clean run's. Files that cannot be read are reported (``report.skipped``, and on ``log``) and their stored
    chunks kept. Raises :class:`chunkwise.ChunkingError` for a store that cannot be opened or written (naming it,
    before anything is read) and for an embedder that raises or returns NaN or the wrong shape (naming it; the
    documents of that batch are left as they were)."""
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
    embed_fn, model = _resolve_embed(embed, embed_id)
    store = open_store(into, table)  # fails first: nothing read, nothing embedded
    own_cache = not isinstance(cache, EmbeddingCache)
    vectors = cache if isinstance(cache, EmbeddingCache) else EmbeddingCache(cache)
    try:
        run = _Run(store, chunker, Embedder(embed_fn, model, batch_size, store.dimension()), vectors, encoding,
                   Reported(log))
        run.all(path_list, Filter(include, exclude, hidden), follow_links)
        return run.report
    finally:
        store.close()
        if own_cache:
            vectors.close()


class _Run:
    def __init__(self, store: Store, chunker: Any, embedder: Embedder, cache: EmbeddingCache,
                 encoding: Optional[str], problems: Reported) -> None:
        self.store, self.chunker, self.embedder, self.cache = store, chunker, embedder, cache
        self.encoding, self.problems = encoding, problems
        self.report = IngestReport(skipped=problems.items)
        self.model = embedder.model
        self.config = f"chunkwise {__version__}\n{_chunker_identity(chunker)}\n{encoding}\n{self.model}\n"
        self.manifest = store.documents()

    def fingerprint(self, data: bytes) -> str:
        return hashlib.sha256(self.config.encode() + data).hexdigest()

    def all(self, paths: List[Any], keep: Filter, follow: bool) -> None:
        seen: set = set()
        unreadable: set = set()
        batch: List[Document] = []
        size = 0
        for path in walk([os.fspath(p) for p in paths], self.problems, keep, follow):
            doc_id = doc_id_of(path)
            if doc_id in seen:
                continue
            if not os.path.lexists(path):
                self.problems.add(UNREADABLE, path, "no such file")  # gone: its chunks leave the store
                continue
            seen.add(doc_id)
            data = read_bytes(path, self.problems)
            if data is None:
                unreadable.add(doc_id)  # kept as stored: a file that cannot be read now may be read again
                continue
            self.report.documents_seen += 1
            fingerprint = self.fingerprint(data)
            if self.manifest.get(doc_id) == (fingerprint, self.model):
                self.report.documents_unchanged += 1
                continue
            batch.append(Document(doc_id, path, data))
            size += len(data)
            if len(batch) >= BATCH_FILES or size >= BATCH_BYTES:
                self.batch(batch)
                batch, size = [], 0
        self.batch(batch)
        self.prune(given_roots(paths), seen - unreadable)

    def prune(self, roots: List[str], found: set) -> None:
        """Deletes the stored documents under a path given that the run did not find (nor failed to read)."""
        gone = sorted(d for d in self.manifest if d not in found and any(_under(d, r) for r in roots))
        if not gone:
            return
        self.report.chunks_deleted += len(self.store.rows(gone))
        self.store.delete_documents(gone)
        self.report.documents_deleted += len(gone)

    def chunk_all(self, docs: List[Document]) -> List[Optional[List[Any]]]:
        """The chunks of each document (None for one the chunker failed on, reported): the plain texts in one
        ``chunk_batch``, in parallel; a loaded document (HTML, PDF, DOCX) on its own. Should the batch fail, each
        document on its own, so that a document at fault costs only itself."""
        out: List[Optional[List[Any]]] = [None] * len(docs)
        plain = [i for i, d in enumerate(docs) if d.pages is None and not d.markdown]
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

    def chunks(self, doc: Document) -> Optional[List[Any]]:
        meta = {"source": doc.doc_id}
        try:
            if doc.markdown and isinstance(self.chunker, auto.AutoChunker):
                choice = auto.Choice("markdown", f"file name {doc.path.suffix.lower()}: read as Markdown")
                return self.chunker._chunk_as(choice, doc.text or "", dict(meta), doc.pages)
            if doc.pages is not None:
                return list(self.chunker.chunk(metadata=meta, pages=doc.pages))
            return list(self.chunker.chunk(doc.text, meta))
        except Exception as exc:  # ChunkingError and the like: this document is reported, the run goes on
            self.problems.add(("failed", "chunking error"), doc.path, exc)
            return None

    def batch(self, docs: List[Document]) -> None:
        fingerprints = {d.doc_id: self.fingerprint(d.data) for d in docs}
        todo: List[Tuple[Document, List[Dict[str, Any]]]] = []
        decoded = [doc for doc in docs if decode(doc, self.encoding, self.problems)]
        for doc, chunks in zip(decoded, self.chunk_all(decoded)):
            if chunks is not None:
                todo.append((doc, [self.row(doc.doc_id, c) for c in chunks]))
        if not todo:
            return
        stored: Dict[str, Dict[str, Any]] = {}
        by_doc: Dict[str, List[str]] = {}
        for row in self.store.rows([doc.doc_id for doc, _ in todo]):
            stored[row["id"]] = row
            by_doc.setdefault(row["doc_id"], []).append(row["id"])
        # Vectors already in the store for this model, by embedded text: a kept or moved chunk is not embedded again.
        reusable = {text_key(r["embedding_text"]): r["vector"] for r in stored.values() if r["model"] == self.model}
        replacements: List[Replacement] = []
        needed: Dict[bytes, str] = {}
        for doc, rows in todo:
            upsert = [r for r in rows if not self.same(stored.get(r["id"]), r)]
            ids = {r["id"] for r in rows}
            stale = [i for i in by_doc.get(doc.doc_id, []) if i not in ids]
            for r in upsert:
                key = text_key(r["embedding_text"])
                if key not in reusable:
                    needed[key] = r["embedding_text"]
            replacements.append(Replacement(doc.doc_id, fingerprints[doc.doc_id], self.model, len(rows), upsert,
                                            stale))
            self.report.chunks_kept += len(rows) - len(upsert)
        found = self.cache.get_many(self.model, needed) if needed else {}
        self.report.texts_from_cache += len(found)
        missing = [k for k in needed if k not in found]
        if missing:
            fresh = dict(zip(missing, self.embedder([needed[k] for k in missing])))
            self.cache.put_many(self.model, fresh)
            found.update(fresh)
            self.report.texts_embedded += len(missing)
        found.update(reusable)
        dim = self.embedder.dim if self.embedder.dim is not None else self.store.dimension()
        for rep in replacements:
            for r in rep.upsert:
                vector = found[text_key(r["embedding_text"])]
                if dim is not None and vector.shape[0] != dim:
                    raise ChunkingError(f"embed ({self.model!r}): the cache holds a vector of dimension "
                                        f"{vector.shape[0]} where the store's have {dim}")
                r["vector"] = vector
            self.report.chunks_written += len(rep.upsert)
            self.report.chunks_deleted += len(rep.stale)
            if rep.upsert or rep.stale:
                self.report.documents_changed += 1
        self.store.replace_documents(replacements)
        for rep in replacements:
            self.manifest[rep.doc_id] = (rep.fingerprint, rep.model)

    @staticmethod
    def same(old: Optional[Dict[str, Any]], new: Dict[str, Any]) -> bool:
        return old is not None and all(old[c] == new[c] for c in COMPARED)

    def row(self, doc_id: str, chunk: Any) -> Dict[str, Any]:
        meta = dict(chunk.metadata)
        title = meta.get("title_path") or []
        return {
            "id": chunk.id, "doc_id": doc_id, "text": chunk.text, "embedding_text": chunk.embedding_text,
            "start": chunk.start, "end": chunk.end, "index": chunk.index,
            "title_path": [str(t) for t in title] if isinstance(title, (list, tuple)) else [str(title)],
            "metadata": json.dumps(meta, sort_keys=True, ensure_ascii=False, default=str), "model": self.model,
        }


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


