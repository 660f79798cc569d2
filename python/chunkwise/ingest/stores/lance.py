"""LanceDB, embedded: ``lance://./index`` or a folder. The chunks in a table (``chunks`` unless ``table=``), the
manifest in ``<table>_manifest``. Each LanceDB write is one atomic commit (a new version of the table), so a killed
run leaves each table as it was before or after a write, never in between. A run holds the lock of its table, the
file ``<table>.lock`` in the folder (:class:`~chunkwise.ingest.stores.FileLock`); a store that is not a local folder
(object storage) cannot be locked so, and is not guarded."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ..._core import ChunkingError
from . import COLUMNS, FileLock, Replacement, Store, rows_table

#: How many values one ``IN (...)`` filter lists.
_IN = 500

#: Columns a new table stores without compression: LanceDB's default compression of long strings costs more than
#: the rest of the write together, to save a few percent of a table that the vectors fill anyway.
_PLAIN = ("text", "embedding_text", "metadata")


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _in(column: str, values: Sequence[str]) -> Iterator[str]:
    for i in range(0, len(values), _IN):
        yield f"{column} IN ({', '.join(_quote(v) for v in values[i : i + _IN])})"


def open(uri: str, path: str, table: str, write: bool, lock_timeout: Optional[float] = None) -> "LanceStore":
    try:
        import lancedb  # type: ignore[import-untyped,import-not-found,unused-ignore]

        del lancedb
    except ImportError:
        raise ChunkingError(f"into: {uri!r}: LanceDB stores need lancedb: pip install 'chunkwise[ingest]'") from None
    return LanceStore(uri, path, table, write, lock_timeout)


class LanceStore(Store):
    def __init__(self, uri: str, path: str, table: str, write: bool, lock_timeout: Optional[float] = None) -> None:
        import lancedb

        self.uri, self.path, self.table = uri, path, table
        self._wrote = False
        self._created: set = set()  # the tables this run created (see close)
        self.manifest_table = f"{table}_manifest"
        local = "://" not in path
        self.file_lock = FileLock(os.path.join(path, f"{table}.lock")) if local and write else None
        if local and write:
            self._check_writable()
            if lock_timeout is not None:
                self.lock(lock_timeout)  # before the tables are read: another run's writes are done
        elif local and not os.path.isdir(path):
            raise ChunkingError(f"into: {uri!r}: no such store (no folder {path!r})")
        try:
            self._open(lancedb)
        except BaseException:
            self.unlock()
            raise

    def _open(self, lancedb: Any) -> None:
        uri, path, table = self.uri, self.path, self.table
        try:
            self._db = lancedb.connect(path)
            names = set(self._db.list_tables().tables)
            self._chunks = self._open_table(table) if table in names else None
            self._manifest = self._open_table(self.manifest_table) if self.manifest_table in names else None
        except Exception as exc:
            raise ChunkingError(f"into: cannot open {uri!r}: {exc}") from None
        if self._chunks is not None:
            missing = set(COLUMNS) - set(self._chunks.schema.names)
            if missing:
                raise ChunkingError(f"into: {uri!r}: table {table!r} is not a chunkwise table (no {sorted(missing)})")

    def _open_table(self, name: str) -> Any:
        """The table ``name``, or None for the folder of a table that a run killed while it created it left without
        a first version: no version file, or only the temporary one LanceDB writes it as (``1.manifest#1``). A run
        creates it again: it holds the lock, so no other run is creating it now."""
        folder = os.path.join(self.path, f"{name}.lance", "_versions")
        if "://" not in self.path and not (
            os.path.isdir(folder) and any(n.endswith(".manifest") for n in os.listdir(folder))
        ):
            return None
        return self._db.open_table(name)

    def _check_writable(self) -> None:
        """A folder that cannot be created or written fails here, before the run reads or embeds anything."""
        try:
            os.makedirs(self.path, exist_ok=True)
            for name in ("", f"{self.table}.lance", f"{self.manifest_table}.lance"):
                folder = os.path.join(self.path, name)
                if os.path.isdir(folder):
                    with tempfile.TemporaryFile(dir=folder):
                        pass
        except OSError as exc:
            raise ChunkingError(f"into: cannot write to {self.uri!r}: {exc.strerror or exc}"
                                f"{f' ({exc.filename})' if exc.filename else ''}") from None

    def _fail(self, doing: str, exc: Exception) -> ChunkingError:
        return ChunkingError(f"into: {self.uri!r}: cannot {doing}: {exc}")

    def dimension(self) -> Optional[int]:
        if self._chunks is None:
            return None
        return int(self._chunks.schema.field("vector").type.list_size)

    def documents(self) -> Dict[str, Optional[Tuple[str, str]]]:
        out: Dict[str, Optional[Tuple[str, str]]] = {}
        try:
            if self._chunks is not None:
                for doc_id in self._scan(self._chunks, None, ["doc_id"]).column("doc_id").unique().to_pylist():
                    out[doc_id] = None
            if self._manifest is not None:
                for row in self._scan(self._manifest, None, ["doc_id", "fingerprint", "model"]).to_pylist():
                    out[row["doc_id"]] = (row["fingerprint"], row["model"])
        except Exception as exc:
            raise self._fail("read its documents", exc) from None
        return out

    @staticmethod
    def _scan(table: Any, where: Optional[str], columns: Optional[List[str]]) -> Any:
        query = table.search()
        if where is not None:
            query = query.where(where)
        if columns is not None:
            query = query.select(columns)
        return query.limit(None).to_arrow()

    def rows(self, doc_ids: Sequence[str]) -> List[Dict[str, Any]]:
        if self._chunks is None or not doc_ids:
            return []
        out: List[Dict[str, Any]] = []
        try:
            for where in _in("doc_id", list(doc_ids)):
                out.extend(self._from_arrow(self._scan(self._chunks, where, list(COLUMNS))))
        except Exception as exc:
            raise self._fail("read its rows", exc) from None
        return out

    @staticmethod
    def _from_arrow(table: Any) -> List[Dict[str, Any]]:
        rows = table.select(list(COLUMNS)).to_pylist()
        for row in rows:
            row["vector"] = np.asarray(row["vector"], dtype=np.float32)
            row["title_path"] = list(row["title_path"] or [])
        return rows

    def _manifest_schema(self) -> Any:
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]

        return pa.schema([("doc_id", pa.string()), ("fingerprint", pa.string()), ("model", pa.string()),
                          ("chunks", pa.int64())])

    def replace_documents(self, replacements: Sequence[Replacement]) -> None:
        if not replacements:
            return
        upsert = [row for r in replacements for row in r.upsert]
        if upsert:
            columns = {c: [row[c] for row in upsert] for c in COLUMNS[:-1]}
            self.add_rows(rows_table(columns, np.stack([row["vector"] for row in upsert])), False)
        for r in replacements:
            r.upsert = []
        self.commit_documents(replacements)

    def add_rows(self, rows: Any, new: bool) -> None:
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]

        if not len(rows):
            return
        try:
            if self._chunks is None:
                # Empty first (a commit of the schema alone), as a run killed while writing its first rows must
                # leave a table that opens.
                fields = [f.with_metadata({"lance-encoding:compression": "none"}) if f.name in _PLAIN else f
                          for f in rows.schema]
                self._chunks = self._db.create_table(self.table, schema=pa.schema(fields), exist_ok=True)
                self._created.add(self.table)
            if new:  # no row of these documents is stored: an append, no join on the ids
                self._chunks.add(rows)
            else:
                self._chunks.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(rows)
            self._wrote = True
        except Exception as exc:
            raise self._fail("write", exc) from None

    def commit_documents(self, replacements: Sequence[Replacement]) -> None:
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]

        if not replacements:
            return
        stale = [i for r in replacements for i in r.stale]
        try:
            if stale and self._chunks is not None:
                for where in _in("id", stale):
                    self._chunks.delete(where)
            entries = pa.table({
                "doc_id": [r.doc_id for r in replacements], "fingerprint": [r.fingerprint for r in replacements],
                "model": [r.model for r in replacements], "chunks": [r.chunks for r in replacements],
            }, schema=self._manifest_schema())
            if self._manifest is None:
                self._manifest = self._db.create_table(self.manifest_table, schema=self._manifest_schema(),
                                                       exist_ok=True)
            if all(r.new for r in replacements):
                self._manifest.add(entries)
            else:
                (self._manifest.merge_insert("doc_id").when_matched_update_all().when_not_matched_insert_all()
                 .execute(entries))
            self._wrote = True
        except Exception as exc:
            raise self._fail("write", exc) from None

    def discard_rows(self, doc_ids: Sequence[str]) -> None:
        if self._chunks is None or not doc_ids:
            return
        try:
            for where in _in("doc_id", list(doc_ids)):
                self._chunks.delete(where)
        except Exception as exc:
            raise self._fail("delete", exc) from None

    def count_rows(self, doc_ids: Sequence[str]) -> int:
        if self._chunks is None or not doc_ids:
            return 0
        try:
            return sum(int(self._chunks.count_rows(where)) for where in _in("doc_id", list(doc_ids)))
        except Exception as exc:
            raise self._fail("read its rows", exc) from None

    def delete_documents(self, doc_ids: Sequence[str]) -> None:
        if not doc_ids:
            return
        try:
            for table in (self._chunks, self._manifest):  # the rows first, the manifest entries last
                if table is not None:
                    for where in _in("doc_id", list(doc_ids)):
                        table.delete(where)
            self._wrote = True
        except Exception as exc:
            raise self._fail("delete", exc) from None

    def close(self) -> None:
        """After a run that wrote: the small files of its writes merged (each write is a file of its own), and
        versions older than LanceDB's default (7 days) removed, so that a store synced often stays compact: the
        manifest always (a few rows: read whole by every run), the chunks when the table was there before the run.
        A chunks table the run created holds its own writes only, files of a slice of rows each; merging them would
        rewrite all it wrote (a fifth of a first ingestion's time), and the next run that writes to it does. Each
        step is an atomic commit; one that fails leaves the store as it was, and the run has done its work. Then the
        run lock goes."""
        try:
            if self._wrote:
                for table in (self._chunks, self._manifest):
                    if table is not None and (table is self._manifest or table.name not in self._created):
                        try:
                            table.optimize()
                        except Exception:
                            pass
        finally:
            self._wrote = False
            self.unlock()

    def query(self, vector: Any, k: int) -> List[Dict[str, Any]]:
        if self._chunks is None:
            return []
        try:
            query: Any = self._chunks.search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
            found = query.metric("cosine").limit(k).to_arrow()
        except Exception as exc:
            raise self._fail("query", exc) from None
        rows = self._from_arrow(found)
        for row, distance in zip(rows, found.column("_distance").to_pylist()):
            row["score"] = 1.0 - float(distance)
            row["metadata"] = json.loads(row["metadata"]) if row["metadata"] else {}
        return rows
