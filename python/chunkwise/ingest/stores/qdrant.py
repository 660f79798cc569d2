"""Qdrant in local mode (``QdrantClient(path=...)``, no server): ``qdrant://./index``. The chunks in a collection
(``chunks`` unless ``table=``), the manifest in ``<table>_manifest``. Local mode keeps each collection in a SQLite file
and commits each point on its own, so a killed run leaves every point written or not, never half. A run holds the lock
of its table, the file ``<table>.lock`` in the folder (:class:`~chunkwise.ingest.stores.FileLock`), before it opens
the client; local mode also locks the folder itself, so any other client (a ``chunkwise query`` too) is refused while
a run has it open.

Qdrant's point ids are unsigned ints or UUIDs: a point's id is the UUID 5 of the chunk id (of the document id for a
manifest entry), and the chunk id itself is in the payload with the other columns. A cosine collection keeps its
vectors normalized, so the vector as written is kept in the payload too (its float32 bytes), and is what ``rows``
gives back: a vector read back is the one written, to the bit."""

from __future__ import annotations

import base64
import json
import os
import tempfile
import uuid
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ..._core import ChunkingError
from . import COLUMNS, FileLock, Replacement, Store

#: Points per upsert request, ids per delete request and documents per filter.
_BATCH = 256
#: The payload key of the vector as written (float32 little-endian bytes, base64).
_RAW = "vector_f32"
_META = "meta.json"


def _point_id(kind: str, key: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"chunkwise:{kind}:{key}"))


def _slices(values: Sequence[Any], size: int = _BATCH) -> Iterator[Sequence[Any]]:
    for i in range(0, len(values), size):
        yield values[i : i + size]


def _encode(vector: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii")


def _decode(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


def open(uri: str, path: str, table: str, write: bool, lock_timeout: Optional[float] = None) -> "QdrantStore":
    try:
        import qdrant_client  # type: ignore[import-untyped,import-not-found,unused-ignore]

        del qdrant_client
    except ImportError:
        raise ChunkingError(f"into: {uri!r}: Qdrant stores need qdrant-client: pip install 'chunkwise[qdrant]'") \
            from None
    return QdrantStore(uri, path, table, write, lock_timeout)


class QdrantStore(Store):
    def __init__(self, uri: str, path: str, table: str, write: bool, lock_timeout: Optional[float] = None) -> None:
        self.uri, self.path, self.table = uri, path, table
        self.manifest_table = f"{table}_manifest"
        if not path:
            raise ChunkingError(f"into: {uri!r}: no folder after qdrant:// (qdrant://./index)")
        self.file_lock = FileLock(os.path.join(path, f"{table}.lock")) if write else None
        if write:
            self._check_writable()
            if lock_timeout is not None:
                self.lock(lock_timeout)
        elif not os.path.isdir(path):
            raise ChunkingError(f"into: {uri!r}: no such store (no folder {path!r})")
        try:
            self._open()
        except BaseException:
            self.unlock()
            raise

    def _open(self) -> None:
        from qdrant_client import QdrantClient, models

        uri, table = self.uri, self.table
        self._models = models
        try:
            self._client = QdrantClient(path=self.path)
        except RuntimeError as exc:  # the folder's lock: another client (another run) has it open
            raise ChunkingError(f"into: cannot open {uri!r}: {exc}") from None
        except Exception as exc:
            raise ChunkingError(f"into: cannot open {uri!r}: {type(exc).__name__}: {exc}") from None
        try:
            self._chunks = self._client.collection_exists(table)
            self._manifest = self._client.collection_exists(self.manifest_table)
            self._dim: Optional[int] = None
            if self._chunks:
                vectors = self._client.get_collection(table).config.params.vectors
                if not isinstance(vectors, models.VectorParams) or vectors.distance != models.Distance.COSINE:
                    raise ChunkingError(f"into: {uri!r}: collection {table!r} is not a chunkwise collection (not one "
                                        "unnamed cosine vector)")
                self._dim = int(vectors.size)
        except ChunkingError:
            self._client.close()
            raise
        except Exception as exc:
            self._client.close()
            raise ChunkingError(f"into: cannot open {uri!r}: {type(exc).__name__}: {exc}") from None

    def _check_writable(self) -> None:
        """A folder that cannot be created or written fails here, before the run reads or embeds anything. A new
        folder gets its (empty) list of collections written whole now: local mode writes it in place on first open,
        and a run killed in that moment would leave a folder no client opens."""
        try:
            os.makedirs(self.path, exist_ok=True)
            collections = os.path.join(self.path, "collection")
            for folder in (self.path, *(os.path.join(collections, n) for n in (self.table, self.manifest_table))):
                if os.path.isdir(folder):
                    with tempfile.TemporaryFile(dir=folder):
                        pass
                    for name in os.listdir(folder):
                        file = os.path.join(folder, name)
                        if os.path.isfile(file) and not os.access(file, os.W_OK):
                            raise PermissionError(13, "Permission denied", file)
            meta = os.path.join(self.path, _META)
            if not os.path.exists(meta):
                with tempfile.NamedTemporaryFile("w", dir=self.path, suffix=".tmp", delete=False) as f:
                    f.write(json.dumps({"collections": {}, "aliases": {}}))
                os.replace(f.name, meta)
        except OSError as exc:
            raise ChunkingError(f"into: cannot write to {self.uri!r}: {exc.strerror or exc}"
                                f"{f' ({exc.filename})' if exc.filename else ''}") from None

    def _fail(self, doing: str, exc: Exception) -> ChunkingError:
        return ChunkingError(f"into: {self.uri!r}: cannot {doing}: {type(exc).__name__}: {exc}")

    def _match(self, key: str, values: Sequence[str]) -> Any:
        m = self._models
        return m.Filter(must=[m.FieldCondition(key=key, match=m.MatchAny(any=list(values)))])

    def _scroll(self, collection: str, where: Any, payload: Any) -> Iterator[Any]:
        offset = None
        while True:
            points, offset = self._client.scroll(collection, scroll_filter=where, limit=1024, offset=offset,
                                                 with_payload=payload, with_vectors=False)
            yield from points
            if offset is None:
                return

    def dimension(self) -> Optional[int]:
        return self._dim

    def documents(self) -> Dict[str, Optional[Tuple[str, str]]]:
        out: Dict[str, Optional[Tuple[str, str]]] = {}
        try:
            if self._chunks:
                for point in self._scroll(self.table, None, ["doc_id"]):
                    out[point.payload["doc_id"]] = None
            if self._manifest:
                for point in self._scroll(self.manifest_table, None, ["doc_id", "fingerprint", "model"]):
                    p = point.payload
                    out[p["doc_id"]] = (p["fingerprint"], p["model"])
        except Exception as exc:
            raise self._fail("read its documents", exc) from None
        return out

    @staticmethod
    def _row(payload: Dict[str, Any]) -> Dict[str, Any]:
        row = {c: payload[c] for c in COLUMNS[:-1]}
        row["title_path"] = list(row["title_path"] or [])
        row["vector"] = _decode(payload[_RAW])
        return row

    def rows(self, doc_ids: Sequence[str]) -> List[Dict[str, Any]]:
        if not self._chunks or not doc_ids:
            return []
        out: List[Dict[str, Any]] = []
        try:
            for some in _slices(list(doc_ids)):
                out.extend(self._row(p.payload) for p in self._scroll(self.table, self._match("doc_id", some), True))
        except Exception as exc:
            raise self._fail("read its rows", exc) from None
        return out

    def replace_documents(self, replacements: Sequence[Replacement]) -> None:
        m = self._models
        if not replacements:
            return
        upsert = [row for r in replacements for row in r.upsert]
        stale = [_point_id("chunk", i) for r in replacements for i in r.stale]
        try:
            if upsert and not self._chunks:
                dim = int(upsert[0]["vector"].shape[0])
                self._client.create_collection(self.table, vectors_config=m.VectorParams(
                    size=dim, distance=m.Distance.COSINE))
                self._chunks, self._dim = True, dim
            for some in _slices(upsert):
                vectors = [np.asarray(row["vector"], dtype=np.float32) for row in some]
                self._client.upsert(self.table, m.Batch(
                    ids=[_point_id("chunk", row["id"]) for row in some],
                    vectors=[v.tolist() for v in vectors],
                    payloads=[{**{c: row[c] for c in COLUMNS[:-1]}, _RAW: _encode(v)} for row, v in zip(some, vectors)],
                ))
            if stale and self._chunks:
                for ids in _slices(stale):
                    self._client.delete(self.table, points_selector=m.PointIdsList(points=list(ids)))
            if not self._manifest:
                self._client.create_collection(self.manifest_table, vectors_config={})
                self._manifest = True
            for some in _slices(list(replacements)):  # the manifest entries last
                self._client.upsert(self.manifest_table, [
                    m.PointStruct(id=_point_id("document", r.doc_id), vector={}, payload={
                        "doc_id": r.doc_id, "fingerprint": r.fingerprint, "model": r.model, "chunks": r.chunks})
                    for r in some])
        except Exception as exc:
            raise self._fail("write", exc) from None

    def delete_documents(self, doc_ids: Sequence[str]) -> None:
        m = self._models
        if not doc_ids:
            return
        try:
            for collection, present in ((self.table, self._chunks), (self.manifest_table, self._manifest)):
                if present:  # the rows first, the manifest entries last
                    for some in _slices(list(doc_ids)):
                        self._client.delete(collection, points_selector=m.FilterSelector(
                            filter=self._match("doc_id", some)))
        except Exception as exc:
            raise self._fail("delete", exc) from None

    def query(self, vector: Any, k: int) -> List[Dict[str, Any]]:
        if not self._chunks:
            return []
        rows = []
        try:
            found = self._client.query_points(self.table, query=np.asarray(vector, dtype=np.float32).tolist(),
                                              limit=k, with_payload=True).points
            for point in found:
                row = self._row(point.payload or {})
                row["score"] = float(point.score)
                row["metadata"] = json.loads(row["metadata"]) if row["metadata"] else {}
                rows.append(row)
        except Exception as exc:
            raise self._fail("query", exc) from None
        return rows

    def close(self) -> None:
        """Releases the folder's lock and the run lock: another run can open the store."""
        try:
            self._client.close()
        finally:
            self.unlock()
