"""PostgreSQL with pgvector: ``postgresql://user:password@host:5432/database`` (or ``postgres://``, any URI
libpq takes, ``?host=/run/postgresql`` for a socket). The chunks in a table (``chunks`` unless ``table=``) of the
connection's current schema, the vector a ``vector(dim)`` column with an HNSW index (cosine, built once, after the
first run's rows are in), the manifest in ``<table>_manifest``. The extension ``vector`` is created in the database
when it is not there yet.

Each call that writes is ONE transaction: the rows of its documents upserted (``INSERT ... ON CONFLICT (id) DO
UPDATE``), their stale ids deleted, their manifest entries upserted, then ``COMMIT``; a deletion likewise. So a run
killed at any moment (the server rolls back the transaction of a connection that dies) leaves each document as it
was before or after its replacement, never in between; and the next run redoes a document whose entry is stale.

A run holds the table's run lock, a session-level advisory lock keyed by the database, the schema and the table
(``pg_try_advisory_lock``), from its first statement to its end: the server releases it when the session ends, so a
killed run (its connection cut) leaves no stale lock, though its session may still be finishing its statement
when the next run starts, which then waits for it (``lock_timeout``). ``chunkwise query`` takes no lock.

Errors (a server that cannot be reached, a role or database that does not exist, no permission to create the
extension or write the tables) raise :class:`chunkwise.ChunkingError` naming the URI without its password, from
:func:`~chunkwise.ingest.open_store`: before a run reads or embeds anything.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Dict, List, Optional, Sequence, Tuple
from urllib.parse import parse_qsl, unquote, urlsplit

import numpy as np

from ..._core import ChunkingError
from . import COLUMNS, Replacement, Store, redact

#: The SQL type of each column of a chunk row (``vector`` gets its width when the table is made).
_TYPES = {"id": "text PRIMARY KEY", "doc_id": "text NOT NULL", "text": "text NOT NULL",
          "embedding_text": "text NOT NULL", "start": "bigint NOT NULL", "end": "bigint NOT NULL",
          "index": "bigint NOT NULL", "title_path": "text[] NOT NULL", "metadata": "text NOT NULL",
          "model": "text NOT NULL"}

#: pgvector indexes vectors of at most this many dimensions (wider ones are searched exactly, without an index).
_HNSW_MAX_DIM = 2000
#: pgvector's HNSW search returns at most ``hnsw.ef_search`` rows (at most 1000): a larger ``k`` scans exactly.
_EF_SEARCH_MAX = 1000
#: PostgreSQL cuts identifiers at 63 bytes: the manifest's name (``<table>_manifest``) must fit whole.
_MAX_TABLE = 63 - len("_manifest")
#: Seconds to wait for a server, unless the URI says (libpq's own default is to wait forever).
_CONNECT_TIMEOUT = 10


def _password(uri: str) -> Optional[str]:
    try:
        parts = urlsplit(uri)
        found = unquote(parts.password or "") or dict(parse_qsl(parts.query)).get("password")
    except ValueError:
        return None
    return found if found and len(found) >= 3 else None


def open(uri: str, rest: str, table: str, write: bool, lock_timeout: Optional[float] = None) -> "PostgresStore":
    del rest  # libpq reads the whole URI
    try:
        import pgvector.psycopg
        import psycopg

        del pgvector, psycopg
    except ImportError:
        raise ChunkingError(f"into: {redact(uri)!r}: PostgreSQL stores need psycopg and pgvector: "
                            "pip install 'chunkwise[postgres]'") from None
    if len(table.encode()) > _MAX_TABLE:
        raise ValueError(f"table must be at most {_MAX_TABLE} bytes for PostgreSQL (its manifest is "
                         f"<table>_manifest, and PostgreSQL names are at most 63), got {table!r}")
    return PostgresStore(uri, table, write, lock_timeout)


class PostgresStore(Store):
    def __init__(self, uri: str, table: str, write: bool, lock_timeout: Optional[float] = None) -> None:
        import psycopg
        from psycopg import sql
        from psycopg.conninfo import conninfo_to_dict

        self.uri = redact(uri)
        self._secret = _password(uri)
        self.table, self.manifest_table = table, f"{table}_manifest"
        self._t, self._m = sql.Identifier(table), sql.Identifier(self.manifest_table)
        self._dim: Optional[int] = None
        self._wrote = False
        self._has_chunks = self._has_manifest = False
        self._run_key: Optional[int] = None  # the run lock's key, while this session holds it
        self._schema = ""
        try:
            options = conninfo_to_dict(uri)
            timeout: Dict[str, Any] = {} if "connect_timeout" in options else {"connect_timeout": _CONNECT_TIMEOUT}
            self._conn: Any = psycopg.connect(uri, autocommit=True, **timeout)
        except Exception as exc:
            raise ChunkingError(f"into: cannot connect to {self.uri!r}: {self._text(exc)}") from None
        try:
            if write and lock_timeout is not None:
                self.lock(lock_timeout)  # before the tables are read: another run's writes are done
            self._setup(write)
        except BaseException:
            self._conn.close()
            raise

    def _key(self) -> int:
        """The run lock's key: 64 bits of the hash of the schema and the table (advisory locks are per database)."""
        try:
            self._schema = self._one("SELECT coalesce(current_schema(), '')")
        except Exception as exc:
            raise self._fail("read its schema", exc) from None
        digest = hashlib.sha256(f"chunkwise run\0{self._schema}\0{self.table}".encode()).digest()
        return int.from_bytes(digest[:8], "little", signed=True)

    def try_lock(self) -> bool:
        if self._run_key is not None:
            return True
        key = self._key()
        try:
            held = bool(self._one("SELECT pg_try_advisory_lock(%s)", [key]))
        except Exception as exc:
            raise self._fail("take its run lock", exc) from None
        if held:
            self._run_key = key
        return held

    def unlock(self) -> None:
        key, self._run_key = self._run_key, None
        if key is not None and not self._conn.closed:
            try:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", [key])
            except Exception:
                pass  # the session's end releases it: close() follows

    def lock_name(self) -> str:
        where = f"{self._schema}.{self.table}" if self._schema else self.table
        return f"the advisory lock of {where} (pg_try_advisory_lock)"

    def lock_holder(self) -> str:
        """The server process of the session that holds the lock (``pg_stat_activity.pid``), if it can be seen."""
        key = self._key() & 0xFFFFFFFFFFFFFFFF
        try:
            pid = self._conn.execute(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = %s::bigint::oid "
                "AND objid = %s::bigint::oid AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE "
                "datname = current_database())", [key >> 32, key & 0xFFFFFFFF]).fetchone()
        except Exception:
            return ""
        return f", server process {pid[0]}" if pid else ""

    def _text(self, exc: BaseException) -> str:
        """An error's message on one line, never with the password in it."""
        text = " ".join(str(exc).split()) or type(exc).__name__
        return text.replace(self._secret, "***") if self._secret else text

    def _fail(self, doing: str, exc: BaseException) -> ChunkingError:
        return ChunkingError(f"into: {self.uri!r}: cannot {doing}: {self._text(exc)}")

    def _setup(self, write: bool) -> None:
        from pgvector.psycopg import register_vector

        try:
            has_vector = self._one("SELECT count(*) FROM pg_extension WHERE extname = 'vector'") > 0
        except Exception as exc:
            raise self._fail("read its extensions", exc) from None
        if not has_vector and write:
            try:
                with self._conn.transaction():
                    self._lock(self._conn, "extension vector")
                    self._conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except Exception as exc:
                raise ChunkingError(
                    f"into: {self.uri!r}: cannot create the extension vector (pgvector): {self._text(exc)} (a "
                    "superuser can run CREATE EXTENSION vector in this database, once)") from None
            has_vector = True
        if not has_vector:
            return  # nothing to read: no table of vectors can exist without the extension
        try:
            register_vector(self._conn)
            found = {r[0] for r in self._conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname = ANY(%s)",
                [[self.table, self.manifest_table]])}
            self._has_chunks, self._has_manifest = self.table in found, self.manifest_table in found
            if self._has_chunks:
                columns = dict(self._conn.execute(
                    "SELECT attname, atttypmod FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
                    "AND NOT attisdropped", [self._quoted(self.table)]).fetchall())
                missing = set(COLUMNS) - set(columns)
                if missing:
                    raise ChunkingError(f"into: {self.uri!r}: table {self.table!r} is not a chunkwise table (no "
                                        f"{sorted(missing)})")
                self._dim = int(columns["vector"]) if columns["vector"] > 0 else None
        except ChunkingError:
            raise
        except Exception as exc:
            raise self._fail("read its tables", exc) from None
        if write:
            self._check_writable()

    @staticmethod
    def _lock(cur: Any, what: str) -> None:
        """Holds, until the transaction ends, the lock of ``what`` in this database: PostgreSQL's ``CREATE ... IF
        NOT EXISTS`` is not safe against another session creating the same thing at once (a unique key violated),
        and the session of a killed run can still be finishing its statement when the next run starts."""
        cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"chunkwise {what}"])

    def _quoted(self, name: str) -> str:
        from psycopg import sql

        return str(sql.Identifier(name).as_string(self._conn))

    def _one(self, query: Any, params: Any = None) -> Any:
        return self._conn.execute(query, params).fetchone()[0]

    def _check_writable(self) -> None:
        """A role that may not create the tables, or not write the ones there, fails here: before the run reads or
        embeds anything."""
        denied: List[str] = []
        try:
            if self._one("SELECT current_setting('transaction_read_only')") == "on":
                raise ChunkingError(f"into: cannot write to {self.uri!r}: the connection is read-only (a standby, "
                                    "or default_transaction_read_only)")
            for name, present in ((self.table, self._has_chunks), (self.manifest_table, self._has_manifest)):
                if present:
                    for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE"):
                        if not self._one("SELECT has_table_privilege(%s, %s)", [self._quoted(name), privilege]):
                            denied.append(f"{privilege} on table {name!r}")
            if not (self._has_chunks and self._has_manifest):
                schema = self._one("SELECT current_schema()")
                if schema is None:
                    denied.append("a schema to create the tables in (the search_path names none that exists)")
                elif not self._one("SELECT has_schema_privilege(%s, 'CREATE')", [schema]):
                    denied.append(f"CREATE on schema {schema!r}")
        except ChunkingError:
            raise
        except Exception as exc:
            raise self._fail("read its privileges", exc) from None
        if denied:
            raise ChunkingError(f"into: cannot write to {self.uri!r}: the role may not use "
                                f"{', '.join(denied)}")

    def dimension(self) -> Optional[int]:
        return self._dim

    def documents(self) -> Dict[str, Optional[Tuple[str, str]]]:
        from psycopg import sql

        out: Dict[str, Optional[Tuple[str, str]]] = {}
        try:
            if self._has_chunks:
                for (doc_id,) in self._conn.execute(sql.SQL("SELECT DISTINCT doc_id FROM {}").format(self._t)):
                    out[doc_id] = None
            if self._has_manifest:
                for doc_id, fingerprint, model in self._conn.execute(
                        sql.SQL("SELECT doc_id, fingerprint, model FROM {}").format(self._m)):
                    out[doc_id] = (fingerprint, model)
        except Exception as exc:
            raise self._fail("read its documents", exc) from None
        return out

    def _select(self) -> Any:
        from psycopg import sql

        return sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS)

    @staticmethod
    def _row(values: Sequence[Any]) -> Dict[str, Any]:
        row = dict(zip(COLUMNS, values))
        vector = row["vector"]
        row["vector"] = (vector.to_numpy() if hasattr(vector, "to_numpy") else np.asarray(vector)).astype(np.float32)
        row["title_path"] = list(row["title_path"] or [])
        return row

    def rows(self, doc_ids: Sequence[str]) -> List[Dict[str, Any]]:
        from psycopg import sql

        if not self._has_chunks or not doc_ids:
            return []
        try:
            found = self._conn.execute(sql.SQL("SELECT {} FROM {} WHERE doc_id = ANY(%s)").format(
                self._select(), self._t), [list(doc_ids)], binary=True).fetchall()
        except Exception as exc:
            raise self._fail("read its rows", exc) from None
        return [self._row(values) for values in found]

    def _create(self, cur: Any, dim: Optional[int]) -> None:
        """The tables (and the index) that are not there yet, in the transaction of the first write."""
        from psycopg import sql

        if dim is not None and not self._has_chunks:
            columns = [sql.SQL("{} {}").format(sql.Identifier(c), sql.SQL(_TYPES[c])) for c in COLUMNS[:-1]]
            columns.append(sql.SQL("{} vector({}) NOT NULL").format(sql.Identifier("vector"), sql.Literal(dim)))
            cur.execute(sql.SQL("CREATE TABLE IF NOT EXISTS {} ({})").format(self._t, sql.SQL(", ").join(columns)))
            cur.execute(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (doc_id)").format(
                sql.Identifier(f"{self.table}_doc_id"[:63]), self._t))
        if not self._has_manifest:
            cur.execute(sql.SQL("CREATE TABLE IF NOT EXISTS {} (doc_id text PRIMARY KEY, fingerprint text NOT "
                                "NULL, model text NOT NULL, chunks bigint NOT NULL)").format(self._m))

    def replace_documents(self, replacements: Sequence[Replacement]) -> None:
        from psycopg import sql

        if not replacements:
            return
        upsert = [row for r in replacements for row in r.upsert]
        stale = [i for r in replacements for i in r.stale]
        dim = int(upsert[0]["vector"].shape[0]) if upsert else None
        names = sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS)
        updates = sql.SQL(", ").join(sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c)) for c in COLUMNS[1:])
        insert = sql.SQL("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT (id) DO UPDATE SET {}").format(
            self._t, names, sql.SQL(", ").join(sql.Placeholder() * len(COLUMNS)), updates)
        entry = sql.SQL("INSERT INTO {} (doc_id, fingerprint, model, chunks) VALUES (%s, %s, %s, %s) ON CONFLICT "
                        "(doc_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, model = EXCLUDED.model, "
                        "chunks = EXCLUDED.chunks").format(self._m)
        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                self._lock(cur, f"table {self.table}")
                self._create(cur, dim)
                if upsert:
                    cur.executemany(insert, [
                        [*(row[c] for c in COLUMNS[:-1]), np.asarray(row["vector"], dtype=np.float32)]
                        for row in upsert])
                if stale and (self._has_chunks or upsert):
                    cur.execute(sql.SQL("DELETE FROM {} WHERE id = ANY(%s)").format(self._t), [stale])
                cur.executemany(entry, [[r.doc_id, r.fingerprint, r.model, r.chunks] for r in replacements])
        except Exception as exc:
            raise self._fail("write", exc) from None
        if upsert:
            self._has_chunks = self._wrote = True
            self._dim = self._dim or dim
        self._has_manifest = True

    def delete_documents(self, doc_ids: Sequence[str]) -> None:
        from psycopg import sql

        if not doc_ids:
            return
        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                for present, name in ((self._has_chunks, self._t), (self._has_manifest, self._m)):
                    if present:
                        cur.execute(sql.SQL("DELETE FROM {} WHERE doc_id = ANY(%s)").format(name), [list(doc_ids)])
        except Exception as exc:
            raise self._fail("delete", exc) from None

    def query(self, vector: Any, k: int) -> List[Dict[str, Any]]:
        from psycopg import sql

        if not self._has_chunks:
            return []
        target = np.asarray(vector, dtype=np.float32)
        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                # The HNSW index returns at most ef_search rows: as many as asked, or none of it past its limit.
                if k <= _EF_SEARCH_MAX:
                    cur.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(max(40, k))))
                else:
                    cur.execute("SET LOCAL enable_indexscan = off")
                found = cur.execute(sql.SQL("SELECT {}, vector <=> %s AS distance FROM {} ORDER BY vector <=> %s "
                                            "LIMIT %s").format(self._select(), self._t), [target, target, k],
                                  binary=True).fetchall()
        except Exception as exc:
            raise self._fail("query", exc) from None
        rows = []
        for values in found:
            row = self._row(values[:-1])
            row["score"] = 1.0 - float(values[-1])
            row["metadata"] = json.loads(row["metadata"]) if row["metadata"] else {}
            rows.append(row)
        return rows

    def _index(self) -> None:
        """The HNSW index of the vectors, once, when the table has none (of its own or one a user made). Built
        after a run's rows are in, not with the table: pgvector builds an index over rows it holds much faster
        than it inserts rows one by one into the graph (see the commit that made it so). A later run's rows go
        into the index as they are written: an edit writes few."""
        from psycopg import sql

        if self._dim is None or self._dim > _HNSW_MAX_DIM:
            return
        with self._conn.transaction():
            self._lock(self._conn, f"table {self.table}")
            indexed = self._one("SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a "
                                "ON a.oid = c.relam WHERE i.indrelid = %s::regclass AND a.amname IN ('hnsw', "
                                "'ivfflat')", [self._quoted(self.table)])
            if not indexed:
                self._conn.execute(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (vector "
                                           "vector_cosine_ops)").format(
                    sql.Identifier(f"{self.table}_vector_hnsw"[:63]), self._t))

    def close(self) -> None:
        """After a run that wrote rows: the HNSW index made if the table has none yet. An index that cannot be
        made (a role that may not, too little memory) leaves the store as it was, searched exactly: the run has
        done its work, and the next run that writes tries again."""
        try:
            if self._wrote:
                self._index()
        except Exception:
            pass
        finally:
            self._wrote = False
            self.unlock()
            self._conn.close()
