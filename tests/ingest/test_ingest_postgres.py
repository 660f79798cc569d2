"""The PostgreSQL store's own cases: servers, roles and databases that fail before anything is read or embedded
(naming the URI, never its password), what the tables look like, quoting, the HNSW index and ``k``, and a write
that fails halfway leaving nothing of itself. The store-generic cases run over it in test_ingest.py."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("psycopg")
pytest.importorskip("pgvector")

import psycopg  # noqa: E402

from chunkwise import ChunkingError  # noqa: E402
from chunkwise.ingest import Replacement, ingest, open_store, query  # noqa: E402
from support.ingest_stores import new_database  # noqa: E402
from support.ingest_tree import HashEmbedder, by_id, edit, hash_vector, make_tree, snapshot  # noqa: E402

SECRET = "s3cret-pw"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return make_tree(tmp_path)


def with_role(uri: str, role: str, password: str = SECRET) -> str:
    """``uri`` (pgserver's: ``postgresql://postgres:@/db?host=...``) as another role, with a password (the
    server trusts its socket: the password is never checked, only kept out of messages)."""
    assert uri.startswith("postgresql://postgres:@/")
    return uri.replace("postgres:@", f"{role}:{password}@", 1)


def admin(server: Any, database: str = "postgres") -> Any:
    return psycopg.connect(server.get_uri(database), autocommit=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fails_before_reading(docs: Path, into: str, says: str) -> str:
    embed = HashEmbedder()
    with pytest.raises(ChunkingError, match=says) as info:
        ingest(docs, into, embed)
    message = str(info.value)
    assert embed.texts == [] and SECRET not in message
    return message


def test_an_unreachable_server_names_the_uri_without_its_password(docs: Path) -> None:
    into = f"postgresql://chunkwise:{SECRET}@127.0.0.1:{free_port()}/chunks"
    message = fails_before_reading(docs, into, "cannot connect")
    assert repr(into.replace(SECRET, "***")) in message
    # ... and a password given as a parameter
    into = f"postgres://127.0.0.1:{free_port()}/chunks?user=chunkwise&password={SECRET}&connect_timeout=5"
    message = fails_before_reading(docs, into, "cannot connect")
    assert "password=***" in message and "connect_timeout=5" in message


def test_a_database_or_role_that_does_not_exist(docs: Path, postgres: Any) -> None:
    into = with_role(postgres.get_uri("no_such_database"), "postgres")
    message = fails_before_reading(docs, into, "does not exist")
    assert "no_such_database" in message and "postgres:***@" in message
    into = with_role(new_database(postgres), "no_such_role")
    assert "no_such_role" in fails_before_reading(docs, into, "does not exist")


def test_a_role_without_permission_fails_first_and_changes_nothing(docs: Path, postgres: Any) -> None:
    role = "chunkwise_reader"
    with admin(postgres) as conn:
        conn.execute(f"DROP ROLE IF EXISTS {role}")
        conn.execute(f"CREATE ROLE {role} LOGIN")
    # A database without the extension: only a superuser may create it (pgvector is not a trusted extension).
    bare = new_database(postgres)
    assert "cannot create the extension vector" in fails_before_reading(docs, with_role(bare, role), "vector")
    # The extension there, no table yet: the role may not create tables in the schema public (PostgreSQL 15+).
    with admin(postgres, bare.split("/")[3].split("?")[0]) as conn:
        conn.execute("CREATE EXTENSION vector")
    message = fails_before_reading(docs, with_role(bare, role), "cannot write to")
    assert "CREATE on schema 'public'" in message
    # A store written by its owner, the role may read and query but not write to it.
    owned = new_database(postgres)
    ingest(docs, owned, HashEmbedder())
    before = snapshot(owned)
    with admin(postgres, owned.split("/")[3].split("?")[0]) as conn:
        conn.execute(f"GRANT SELECT ON chunks, chunks_manifest TO {role}")
    message = fails_before_reading(docs, with_role(owned, role), "cannot write to")
    assert "INSERT on table 'chunks'" in message and "DELETE on table 'chunks_manifest'" in message
    row = next(iter(by_id(before).values()))
    assert query(with_role(owned, role), row["embedding_text"], 1, HashEmbedder())[0]["id"] == row["id"]
    assert snapshot(owned) == before
    # A read-only connection (a standby's, or default_transaction_read_only), even the owner's.
    with admin(postgres) as conn:
        conn.execute(f"ALTER DATABASE {owned.split('/')[3].split('?')[0]} SET default_transaction_read_only = on")
    assert "read-only" in fails_before_reading(docs, owned, "cannot write to")
    assert snapshot(owned) == before


def test_the_tables_the_index_and_a_name_that_needs_quotes(docs: Path, postgres: Any) -> None:
    into = new_database(postgres)
    table = "My-Chunks"
    report = ingest(docs, into, HashEmbedder(), table=table)
    with admin(postgres, into.split("/")[3].split("?")[0]) as conn:
        types = dict(conn.execute(
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '\"My-Chunks\"'"
            "::regclass AND attnum > 0").fetchall())
        indexes = [r[0] for r in conn.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'My-Chunks'")]
        entries = conn.execute('SELECT sum(chunks) FROM "My-Chunks_manifest"').fetchone()[0]
    assert types == {"id": "text", "doc_id": "text", "text": "text", "embedding_text": "text", "start": "bigint",
                     "end": "bigint", "index": "bigint", "title_path": "text[]", "metadata": "text",
                     "model": "text", "vector": "vector(16)"}
    assert any("USING hnsw (vector vector_cosine_ops)" in i for i in indexes)
    assert entries == report.chunks_written
    store = open_store(into, table, write=False)
    try:
        assert store.dimension() == 16 and len(store.documents()) == 7
    finally:
        store.close()


def vector_indexes(server: Any, uri: str, table: str = "chunks") -> list:
    with admin(server, uri.split("/")[3].split("?")[0]) as conn:
        return [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexdef LIKE "
                                           "'%%USING hnsw%%'", [table])]


def test_the_vector_index_is_made_once_after_a_run_that_wrote(docs: Path, postgres: Any) -> None:
    into = new_database(postgres)
    ingest(docs, into, HashEmbedder())
    assert vector_indexes(postgres, into) == ["chunks_vector_hnsw"]
    edit(docs)
    ingest(docs, into, HashEmbedder())
    assert vector_indexes(postgres, into) == ["chunks_vector_hnsw"]
    # An index of the user's own is kept, and none is added beside it.
    with admin(postgres, into.split("/")[3].split("?")[0]) as conn:
        conn.execute("DROP INDEX chunks_vector_hnsw")
        conn.execute("CREATE INDEX mine ON chunks USING hnsw (vector vector_cosine_ops) WITH (m = 8)")
    (docs / "km.txt").write_text("An edit, so that the run writes.", encoding="utf-8")
    assert ingest(docs, into, HashEmbedder()).chunks_written > 0
    assert vector_indexes(postgres, into) == ["mine"]


def test_k_past_the_index_search_width(docs: Path, postgres: Any) -> None:
    into = new_database(postgres)
    report = ingest(docs, into, HashEmbedder())
    assert report.chunks_written > 100
    row = next(iter(by_id(snapshot(into)).values()))
    for k in (5, 100, 1001):  # the index returns at most hnsw.ef_search rows (40 unless raised)
        hits = query(into, row["embedding_text"], k, HashEmbedder())
        assert len(hits) == min(k, report.chunks_written) and hits[0]["id"] == row["id"]
        scores = [h["score"] for h in hits]  # best first (within float4: the index ranks in single precision)
        assert all(a >= b - 1e-6 for a, b in zip(scores, scores[1:])) and scores[0] > scores[-1]


def test_a_write_that_fails_halfway_leaves_nothing_of_itself(docs: Path, postgres: Any) -> None:
    into = new_database(postgres)
    ingest(docs, into, HashEmbedder())
    before = snapshot(into)
    store = open_store(into)
    try:
        doc_id = before[1][0][0]
        rows = store.rows([doc_id])
        good = dict(rows[0], text="changed", id="new-id")
        bad = dict(rows[1], id="bad-id", vector=np.ones(8, np.float32))  # not the table's width
        with pytest.raises(ChunkingError, match="cannot write"):
            store.replace_documents([Replacement(doc_id, "new", "hash-16", 2, [good, bad], [rows[2]["id"]])])
    finally:
        store.close()
    assert snapshot(into) == before
    # A deletion whose second statement (the manifest entries, after the rows) fails leaves the rows too.
    with admin(postgres, into.split("/")[3].split("?")[0]) as conn:
        conn.execute("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RAISE EXCEPTION 'refused by a trigger'; END $$")
        conn.execute("CREATE TRIGGER refuse BEFORE DELETE ON chunks_manifest FOR EACH ROW EXECUTE FUNCTION refuse()")
    store = open_store(into)
    try:
        with pytest.raises(ChunkingError, match="cannot delete: refused by a trigger"):
            store.delete_documents([doc_id])
    finally:
        store.close()
    assert snapshot(into) == before


def test_runs_that_start_at_once_make_the_extension_tables_and_index_once(postgres: Any) -> None:
    """CREATE ... IF NOT EXISTS in two sessions at once violates a unique key in PostgreSQL: the store takes a lock
    first (as the session of a killed run may still be finishing its statement when the next run starts)."""
    into = new_database(postgres)
    n = 8
    barrier, errors = threading.Barrier(n), []

    def run(i: int) -> None:
        row = {"id": f"id{i}", "doc_id": f"doc{i}", "text": "t", "embedding_text": f"t{i}", "start": 0, "end": 1,
               "index": 0, "title_path": [], "metadata": "{}", "model": "m", "vector": hash_vector(f"t{i}")}
        try:
            barrier.wait(30)
            store = open_store(into)
            try:
                store.replace_documents([Replacement(f"doc{i}", "f", "m", 1, [row])])
            finally:
                store.close()
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    rows, manifest = snapshot(into)
    assert len(rows) == len(manifest) == n and vector_indexes(postgres, into) == ["chunks_vector_hnsw"]
