"""The embedding cache: vectors by (model identity, sha256 of the embedded text), in a SQLite file.

A text already embedded by a model is never sent to that model again, in this run or a later one, whichever document
it came from; another model never sees those vectors, as the model's identity is half of the key. Each write is one
SQLite transaction, so a run killed while writing leaves the vectors written before, and none half-written.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

import numpy as np

from .._core import ChunkingError

__all__ = ["EmbeddingCache", "text_key"]

#: How many keys one ``SELECT ... IN`` asks for (SQLite's default bound on host parameters is 999 in old builds).
_LOOKUP = 500


def text_key(text: str) -> bytes:
    """The cache key of an embedded text: the sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbeddingCache:
    """Vectors by ``(model, text_key(text))`` in the SQLite file ``path`` (created if missing), or in a dict
    (``path=None``: kept as long as the object)."""

    def __init__(self, path: Union[str, "os.PathLike[str]", None] = None) -> None:
        self.path = None if path is None else os.fspath(path)
        # In memory, a dict: SQLite's in-memory database costs as much per row as its file does.
        self._memory: Optional[Dict[Tuple[str, bytes], np.ndarray]] = {} if self.path is None else None
        if self._memory is not None:
            return
        try:
            self._db = sqlite3.connect(":memory:" if self.path is None else self.path)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, key BLOB NOT NULL, dim INTEGER NOT NULL, "
                "vector BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID"
            )
            self._db.commit()
        except sqlite3.Error as exc:
            raise ChunkingError(f"cache: cannot open {self.path!r} as an embedding cache: {exc}") from None

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.path,))

    def __repr__(self) -> str:
        return f"EmbeddingCache({self.path!r})"

    def get_many(self, model: str, keys: Iterable[bytes]) -> Dict[bytes, np.ndarray]:
        """The vectors ``model`` gave for those of ``keys`` it has embedded (float32, one per key found)."""
        out: Dict[bytes, np.ndarray] = {}
        if self._memory is not None:
            for key in keys:
                vector = self._memory.get((model, key))
                if vector is not None:
                    out[key] = vector
            return out
        wanted = list(dict.fromkeys(keys))
        try:
            for i in range(0, len(wanted), _LOOKUP):
                part = wanted[i : i + _LOOKUP]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT key, dim, vector FROM embeddings WHERE model = ? AND key IN ({marks})", (model, *part)
                )
                for key, dim, blob in rows:
                    vector = np.frombuffer(blob, dtype="<f4")
                    if vector.shape == (dim,):
                        out[bytes(key)] = vector.astype(np.float32)
        except sqlite3.Error as exc:
            raise ChunkingError(f"cache: cannot read {self.path!r}: {exc}") from None
        return out

    def put_many(self, model: str, vectors: Mapping[bytes, np.ndarray]) -> None:
        """Records ``model``'s vectors by key, in one transaction."""
        if self._memory is not None:
            for key, v in vectors.items():
                self._memory[(model, key)] = np.asarray(v, dtype=np.float32)
            return
        rows = [(model, key, int(v.shape[0]), np.asarray(v, dtype="<f4").tobytes()) for key, v in vectors.items()]
        try:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise ChunkingError(f"cache: cannot write {self.path!r}: {exc}") from None

    def count(self, model: Optional[str] = None) -> int:
        """How many vectors the cache holds (of ``model`` only, when given)."""
        if self._memory is not None:
            return sum(1 for m, _ in self._memory if model is None or m == model)
        if model is None:
            return int(self._db.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        return int(self._db.execute("SELECT count(*) FROM embeddings WHERE model = ?", (model,)).fetchone()[0])

    def close(self) -> None:
        if self._memory is not None:
            self._memory.clear()
        else:
            self._db.close()
