"""The one interface every vector store implements, and which store a URI names.

A store holds two things: the chunk rows (one per chunk: id, document, texts, offsets, title path, metadata, the
model and its vector) and a manifest (one entry per document: the fingerprint of what it was ingested from). A run
asks the manifest which documents changed, reads the stored rows of those only, and hands the store each changed
document's new and changed rows with the ids gone from it. The store writes the rows first, deletes the stale ones,
and records the document's fingerprint last: a run killed in between leaves a manifest entry that is missing or
stale, and the next run does that document again (see :func:`chunkwise.ingest.ingest`). So a new store is one
small module: a subclass of :class:`Store` and a line in :data:`SCHEMES`.

A run hands the rows over as Arrow tables, in slices (:meth:`Store.add_rows`), then each document's stale ids and
manifest entry (:meth:`Store.commit_documents`); the base class turns those into :meth:`Store.replace_documents`,
so a store needs only the abstract methods, and may override these two to write the tables as they come.

One run at a time writes to a table: a store opened to write holds the table's run lock until it is closed
(:meth:`Store.lock`, the waiting and the error; each store says only how it takes and releases its lock,
:meth:`Store.try_lock` and :meth:`Store.unlock`, a store in a local folder with :class:`FileLock`). The lock is one
the operating system or the server drops with the process or the connection that holds it, so a killed run never
leaves a stale one. A store opened to read (``chunkwise query``) takes no lock.
"""

from __future__ import annotations

import abc
import importlib
import math
import os
import re
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..._core import ChunkingError

__all__ = ["FileLock", "LOCK_TIMEOUT", "Replacement", "SCHEMES", "Store", "open_store", "redact", "rows_table",
           "schema", "split_uri"]

#: Seconds a run waits for another run's lock on its table before it gives up (``lock_timeout``).
LOCK_TIMEOUT = 10.0
#: Seconds between two tries of a lock held by another run.
_LOCK_POLL = 0.1

#: The columns of a chunk row, in order; ``vector`` last.
COLUMNS = ("id", "doc_id", "text", "embedding_text", "start", "end", "index", "title_path", "metadata", "model",
           "vector")

#: The columns compared to tell whether a stored row is already what a run would write.
COMPARED = COLUMNS[:-1]

#: URI scheme -> the module of its store (its ``open``), and what a path without a scheme is.
SCHEMES: Dict[str, str] = {
    "lance": "chunkwise.ingest.stores.lance",
    "postgresql": "chunkwise.ingest.stores.postgres",
    "postgres": "chunkwise.ingest.stores.postgres",
    "qdrant": "chunkwise.ingest.stores.qdrant",
}
DEFAULT_SCHEME = "lance"


@dataclass
class Replacement:
    """What a document becomes: its rows that are new or changed (``upsert``), the ids of its stored rows that are
    gone (``stale``), then its manifest entry (``fingerprint``, ``model``, ``chunks``). ``new``: the store has
    neither rows nor an entry of it."""

    doc_id: str
    fingerprint: str
    model: str
    chunks: int
    upsert: List[Dict[str, Any]] = field(default_factory=list)
    stale: List[str] = field(default_factory=list)
    new: bool = False


def schema(dim: int) -> Any:
    """The Arrow schema of the chunk rows (:data:`COLUMNS`), vectors ``dim`` wide."""
    import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]

    return pa.schema([
        ("id", pa.string()), ("doc_id", pa.string()), ("text", pa.string()), ("embedding_text", pa.string()),
        ("start", pa.int64()), ("end", pa.int64()), ("index", pa.int64()), ("title_path", pa.list_(pa.string())),
        ("metadata", pa.string()), ("model", pa.string()), ("vector", pa.list_(pa.float32(), dim)),
    ])


def rows_table(columns: Dict[str, List[Any]], vectors: Any) -> Any:
    """The rows as a ``pyarrow.Table``: ``columns``, a list per column of :data:`COMPARED`, and ``vectors``, a
    float32 array ``(rows, dim)``."""
    import numpy as np
    import pyarrow as pa

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    dim = int(vectors.shape[1])
    flat = pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), dim)
    return pa.table({**{c: columns[c] for c in COMPARED}, "vector": flat}, schema=schema(dim))


class Store(abc.ABC):
    """A vector store a run keeps in sync with a tree of documents."""

    uri: str
    table: str
    #: The run lock of a store in a local folder (None: the store locks otherwise, or not at all).
    file_lock: Optional["FileLock"] = None

    def lock(self, timeout: float) -> None:
        """Takes the run lock of this store's table, trying again for up to ``timeout`` seconds while another run
        holds it; then raises :class:`chunkwise.ChunkingError` naming the URI and the table. A store calls it when
        opened to write, before it reads what the table holds."""
        deadline = time.monotonic() + timeout
        while not self.try_lock():
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChunkingError(
                    f"into: {self.uri!r}: another run is writing to table {self.table!r} (it holds {self.lock_name()}"
                    f"{self.lock_holder()}; waited {timeout:g} s): one run at a time writes to a table, try again "
                    "when it is done, or give lock_timeout (--lock-timeout) to wait longer")
            time.sleep(min(_LOCK_POLL, left))

    def try_lock(self) -> bool:
        """Takes the table's run lock if no one holds it, without waiting: whether it did. The default takes
        :attr:`file_lock` (a store in a local folder sets it); a store without one is not guarded."""
        if self.file_lock is None:
            return True
        try:
            return self.file_lock.acquire()
        except OSError as exc:
            raise ChunkingError(f"into: cannot write to {self.uri!r}: cannot lock {self.file_lock.path!r}: "
                                f"{exc.strerror or exc}") from None

    def unlock(self) -> None:
        """Releases the run lock, if held (:meth:`close` calls it)."""
        if self.file_lock is not None:
            self.file_lock.release()

    def lock_name(self) -> str:
        """What the run lock is, as an error shows it."""
        return f"the lock file {self.file_lock.path!r}" if self.file_lock is not None else "its run lock"

    def lock_holder(self) -> str:
        """Who holds the lock, if known (``", process 123"``), as an error shows it."""
        return self.file_lock.holder() if self.file_lock is not None else ""

    @abc.abstractmethod
    def documents(self) -> Dict[str, Optional[Tuple[str, str]]]:
        """Every document the store holds: its manifest entry ``(fingerprint, model)``, or None for a document
        with rows and no entry (a run killed before recording it)."""

    @abc.abstractmethod
    def rows(self, doc_ids: Sequence[str]) -> List[Dict[str, Any]]:
        """The stored rows of these documents (every column, the vector as a float32 array)."""

    @abc.abstractmethod
    def replace_documents(self, replacements: Sequence[Replacement]) -> None:
        """Writes each document's ``upsert`` rows (by id), deletes its ``stale`` ids, and only then records its
        manifest entry."""

    @abc.abstractmethod
    def delete_documents(self, doc_ids: Sequence[str]) -> None:
        """Deletes these documents' rows, then their manifest entries."""

    @abc.abstractmethod
    def query(self, vector: Any, k: int) -> List[Dict[str, Any]]:
        """The ``k`` rows nearest ``vector`` (cosine), best first, each with a ``score`` (1 - cosine distance)."""

    @abc.abstractmethod
    def dimension(self) -> Optional[int]:
        """The width of the stored vectors (None while the store holds none)."""

    def close(self) -> None:
        """Releases what the store holds open."""

    # -- the columnar path: optional, with defaults through the methods above -------------------------------------

    def add_rows(self, rows: Any, new: bool) -> None:
        """Writes (by id) ``rows``, a ``pyarrow.Table`` of :data:`COLUMNS` (``vector`` a fixed-size list of
        float32), new or changed rows of documents whose manifest entries :meth:`commit_documents` records later.
        ``new``: none of those documents has rows in the store (an insert will do). The default keeps the rows, as
        dicts, for :meth:`commit_documents`."""
        import numpy as np

        pending: List[Dict[str, Any]] = self.__dict__.setdefault("_pending_rows", [])
        vectors = rows.column("vector").combine_chunks()
        flat = np.asarray(vectors.flatten(), dtype=np.float32).reshape(len(rows), -1) if len(rows) else None
        for i, row in enumerate(rows.drop_columns(["vector"]).to_pylist()):
            row["title_path"] = list(row["title_path"] or [])
            row["vector"] = flat[i] if flat is not None else None
            pending.append(row)

    def commit_documents(self, replacements: Sequence[Replacement]) -> None:
        """After :meth:`add_rows` gave their rows: deletes each document's ``stale`` ids, then records its manifest
        entry. The default is :meth:`replace_documents` with the rows kept by :meth:`add_rows` as ``upsert``."""
        pending: List[Dict[str, Any]] = self.__dict__.pop("_pending_rows", [])
        by_doc: Dict[str, List[Dict[str, Any]]] = {}
        for row in pending:
            by_doc.setdefault(row["doc_id"], []).append(row)
        for r in replacements:
            r.upsert = by_doc.pop(r.doc_id, []) + list(r.upsert)
        self.replace_documents(replacements)

    def discard_rows(self, doc_ids: Sequence[str]) -> None:
        """A run failed between :meth:`add_rows` and :meth:`commit_documents`: the rows added of ``doc_ids``
        (documents that had none before) leave, so that the store is as it was. The default drops every row it
        kept (it wrote none)."""
        self.__dict__.pop("_pending_rows", None)

    def count_rows(self, doc_ids: Sequence[str]) -> int:
        """How many rows these documents have (the default counts :meth:`rows`)."""
        return len(self.rows(doc_ids))


def redact(uri: str) -> str:
    """``uri`` as errors show it: its password (in the user part, or a ``password=`` parameter) as ``***``, the
    rest as written."""
    scheme, sep, rest = uri.partition("://")
    if sep:
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
        user, at, host = authority.rpartition("@")
        if at and user.partition(":")[2]:
            rest = f"{user.partition(':')[0]}:***@{host}{rest[len(authority):]}"
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", scheme + sep + rest)


def split_uri(uri: str) -> Tuple[str, str]:
    """``(scheme, rest)`` of a store URI: ``lance://./index`` -> ``("lance", "./index")``; a path without a scheme
    is a LanceDB folder."""
    if not isinstance(uri, str) or not uri:
        raise TypeError(f"into must be a non-empty str (a store URI or a folder), got {uri!r}")
    scheme, sep, rest = uri.partition("://")
    if not sep:
        return DEFAULT_SCHEME, uri
    if scheme not in SCHEMES:
        known = ", ".join(s + "://" for s in SCHEMES)
        raise ChunkingError(f"into: {redact(uri)!r}: no store for {scheme}:// (stores: {known}, "
                            "or a folder for LanceDB)")
    return scheme, rest


def check_lock_timeout(lock_timeout: Any) -> float:
    """``lock_timeout`` as seconds, or a ValueError naming it."""
    if isinstance(lock_timeout, bool) or not isinstance(lock_timeout, (int, float)) or not (
            math.isfinite(lock_timeout) and lock_timeout >= 0):
        raise ValueError(f"lock_timeout must be a number of seconds >= 0, got {lock_timeout!r}")
    return float(lock_timeout)


def open_store(uri: str, table: str = "chunks", write: bool = True, lock_timeout: float = LOCK_TIMEOUT) -> Store:
    """The store ``uri`` names, its chunks in ``table`` (and its manifest beside them). With ``write``, checks now
    that the store can be written, so that a run fails before it reads or embeds anything, and holds the table's run
    lock until :meth:`Store.close` (waiting up to ``lock_timeout`` seconds for another run's)."""
    if not isinstance(table, str) or not table or not table.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"table must be a name of letters, digits, '_' and '-', got {table!r}")
    timeout = check_lock_timeout(lock_timeout)
    scheme, rest = split_uri(uri)
    module = importlib.import_module(SCHEMES[scheme])
    store: Store = module.open(uri, rest, table, write, timeout if write else None)
    return store


class FileLock:
    """An exclusive lock on a file in a store's folder (``flock``; ``msvcrt.locking`` on Windows): the operating
    system releases it when the process that holds it ends, however it ends, so a run killed with ``kill -9`` leaves
    no stale lock. The holder writes its process id into the file, for the error of a run that finds it held."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: Optional[int] = None

    def acquire(self) -> bool:
        """Takes the lock if no one holds it (the file made if need be): whether it did."""
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            if not _lock_file(fd):
                os.close(fd)
                return False
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the file releases its lock

    def holder(self) -> str:
        """The process id the holder wrote, as an error shows it ("" if unknown)."""
        try:
            with open(self.path, encoding="ascii") as f:
                pid = f.read(32).strip()
        except (OSError, ValueError):
            return ""
        return f", process {pid}" if pid.isdigit() else ""


def _lock_file(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
