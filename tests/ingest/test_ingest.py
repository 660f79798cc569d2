"""chunkwise.ingest: sync, not append. A second run embeds and writes nothing; an edit embeds only the texts that
changed and leaves the store equal to a fresh ingestion of the new tree; deleted files leave; a model change never
reuses another model's vectors; bad embedders and stores fail clearly, leaving the store as it was. The tests that
take ``store_uri`` run over every kind of store (support.ingest_tree.STORES); LanceDB's folders and PostgreSQL's
servers, roles and privileges have tests of their own (here and in test_ingest_postgres.py)."""

from __future__ import annotations

import gzip
import os
import pickle
import shutil
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

pytest.importorskip("lancedb")

from chunkwise import AutoChunker, ChunkingError  # noqa: E402
from chunkwise.ingest import EmbeddingCache, IngestReport, ingest, query  # noqa: E402
from chunkwise.ingest.stores import redact  # noqa: E402
from support.ingest_tree import HashEmbedder, by_id, edit, make_tree, snapshot  # noqa: E402

Stores = Callable[..., str]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return make_tree(tmp_path)


def embedding_texts(docs: Path) -> set:
    """The embedded texts of a fresh ingestion of ``docs`` (by the default chunker, as ingest names documents)."""
    chunker = AutoChunker()
    out = set()
    for path in sorted(p for p in docs.rglob("*") if p.is_file()):
        source = Path(os.path.normpath(path)).as_posix()
        out |= {c.embedding_text for c in chunker.chunk(path.read_text(encoding="utf-8"), {"source": source})}
    return out


def test_first_run_writes_every_chunk_with_its_columns(docs: Path, store_uri: Stores) -> None:
    embed = HashEmbedder()
    report = ingest(docs, store_uri("index"), embed)
    rows = by_id(snapshot(store_uri("index")))
    assert report.documents_seen == 7 and report.documents_changed == 7 and report.skipped == []
    assert report.chunks_written == len(rows) > 50
    assert len(embed.texts) == len(set(embed.texts)) == report.texts_embedded == len(embedding_texts(docs))
    for row in rows.values():
        source = Path(row["doc_id"]).read_text(encoding="utf-8")
        assert source[row["start"] : row["end"]] == row["text"]
        assert row["model"] == "hash-16" and len(row["vector"]) == 16
    titled = [r for r in rows.values() if r["doc_id"].endswith("mixed.md") and r["title_path"]]
    assert titled, "Markdown chunks keep their title path"


def test_second_run_embeds_and_writes_nothing(docs: Path, store_uri: Stores) -> None:
    into = store_uri("index")
    ingest(docs, into, HashEmbedder())
    before = snapshot(into)
    embed = HashEmbedder()
    report = ingest(docs, into, embed)
    assert embed.texts == [] and report.texts_embedded == 0 and report.chunks_written == 0
    assert report.documents_unchanged == 7 and report.documents_changed == 0 and report.chunks_deleted == 0
    assert snapshot(into) == before


def test_an_edit_embeds_only_what_changed_and_equals_a_fresh_ingestion(docs: Path, store_uri: Stores) -> None:
    into = store_uri("index")
    ingest(docs, into, HashEmbedder())
    old_texts = embedding_texts(docs)
    old_ids = set(by_id(snapshot(into)))
    edit(docs)
    embed = HashEmbedder()
    report = ingest(docs, into, embed)
    changed = embedding_texts(docs) - old_texts
    assert 0 < len(embed.texts) == len(changed) and set(embed.texts) == changed
    assert report.documents_deleted == 1 and report.documents_changed == 2  # en.txt edited, my.txt added
    fresh = store_uri("fresh")
    ingest(docs, fresh, HashEmbedder())
    assert snapshot(into) == snapshot(fresh)  # same ids, texts, offsets, vectors, manifest: nothing stale
    new_ids = set(by_id(snapshot(into)))
    assert len(old_ids & new_ids) > 0.8 * len(old_ids)


def test_a_deleted_file_and_a_deleted_folder_leave_the_store(docs: Path, store_uri: Stores) -> None:
    into = store_uri("index")
    ingest(docs, into, HashEmbedder())
    shutil.rmtree(docs / "sub")
    report = ingest(docs, into, HashEmbedder())
    assert report.documents_deleted == 2 and report.chunks_deleted > 0
    assert not any("/sub/" in r for r in {row["doc_id"] for row in by_id(snapshot(into)).values()})
    # A file given by name that is gone: reported, and its chunks leave too.
    (docs / "km.txt").unlink()
    report = ingest([docs / "km.txt"], into, HashEmbedder())
    assert report.documents_deleted == 1 and "km.txt" in report.skipped[0][0]
    assert not any(r["doc_id"].endswith("km.txt") for r in by_id(snapshot(into)).values())
    # Documents outside the paths given are left alone.
    assert any(r["doc_id"].endswith("th.txt") for r in by_id(snapshot(into)).values())


def test_a_model_change_never_reuses_vectors(docs: Path, tmp_path: Path, store_uri: Stores) -> None:
    into = store_uri("index")
    cache = str(tmp_path / "cache.sqlite")
    ingest(docs, into, HashEmbedder("model-a"), cache=cache)
    b = HashEmbedder("model-b")
    report = ingest(docs, into, b, cache=cache)
    assert report.texts_from_cache == 0 and len(b.texts) == len(embedding_texts(docs))
    fresh = store_uri("fresh")
    ingest(docs, fresh, HashEmbedder("model-b"))
    assert snapshot(into) == snapshot(fresh)
    # Back to model a: every vector comes from the cache, none from the model.
    a = HashEmbedder("model-a")
    report = ingest(docs, into, a, cache=cache)
    assert a.texts == [] and report.texts_from_cache == len(embedding_texts(docs))
    assert {r["model"] for r in by_id(snapshot(into)).values()} == {"model-a"}


def test_the_cache_serves_another_store_and_keeps_across_runs(docs: Path, tmp_path: Path,
                                                              store_uri: Stores) -> None:
    cache = tmp_path / "cache.sqlite"
    ingest(docs, store_uri("one"), HashEmbedder(), cache=cache)
    embed = HashEmbedder()
    report = ingest(docs, store_uri("two"), embed, cache=cache)
    assert embed.texts == [] and report.texts_from_cache == len(embedding_texts(docs))
    assert snapshot(store_uri("one")) == snapshot(store_uri("two"))
    assert EmbeddingCache(cache).count("hash-16") == len(embedding_texts(docs))


def test_identical_texts_are_embedded_once(tmp_path: Path, store_uri: Stores) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (docs / name).write_text("The same page footer, on every page.\n", encoding="utf-8")
    embed = HashEmbedder()
    report = ingest(docs, store_uri("index"), embed)
    assert embed.texts == ["The same page footer, on every page."] and report.chunks_written == 3


@pytest.mark.parametrize(
    "output, says",
    [
        (lambda texts: (_ for _ in ()).throw(RuntimeError("model server down")), "RuntimeError: model server down"),
        (lambda texts: np.full((len(texts), 16), np.nan), "NaN"),
        (lambda texts: np.ones((len(texts) + 1, 16)), "shape"),
        (lambda texts: np.ones(16 * len(texts)), "shape"),
        (lambda texts: [["x"] * 16 for _ in texts], "not a 2-D array"),
        (lambda texts: np.ones((len(texts), 8)), "dimension 8"),
    ],
    ids=["raises", "nan", "rows", "1-D", "strings", "width"],
)
def test_a_bad_embedder_fails_clearly_and_changes_nothing(docs: Path, store_uri: Stores, output, says: str) -> None:
    into = store_uri("index")
    ingest(docs, into, HashEmbedder())
    before = snapshot(into)
    edit(docs)
    with pytest.raises(ChunkingError, match="bad-model") as info:
        ingest(docs, into, output, embed_id="bad-model")
    assert says in str(info.value)
    after = snapshot(into)
    # The edited document keeps its old rows and entry; the deleted file may have left (that needs no model).
    assert [r for r in after[0] if "lo.txt" not in dict(r)["doc_id"]] == [
        r for r in before[0] if "lo.txt" not in dict(r)["doc_id"]]
    ingest(docs, into, HashEmbedder())  # and a good run then finishes the job
    fresh = store_uri("fresh")
    ingest(docs, fresh, HashEmbedder())
    assert snapshot(into) == snapshot(fresh)


def test_a_bare_callable_must_be_named(docs: Path, tmp_path: Path) -> None:
    def embed(texts):
        return np.ones((len(texts), 4))

    with pytest.raises(ChunkingError, match="embed_id"):
        ingest(docs, str(tmp_path / "index"), embed)
    assert not (tmp_path / "index").exists()


@pytest.mark.parametrize("kind", ["under a file", "in /proc", "read-only"])
def test_a_store_that_cannot_be_written_names_its_uri(docs: Path, tmp_path: Path, kind: str) -> None:
    if kind == "under a file":
        (tmp_path / "file").write_text("x")
        into = str(tmp_path / "file" / "index")
    elif kind == "in /proc":
        into = "/proc/chunkwise-no-such/index"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes read-only folders")
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        into = f"lance://{ro}/index"
    embed = HashEmbedder()
    with pytest.raises(ChunkingError, match="cannot write") as info:
        ingest(docs, into, embed)
    assert repr(into) in str(info.value) and embed.texts == []


def test_a_read_only_existing_store_is_left_whole(docs: Path, tmp_path: Path) -> None:
    into = tmp_path / "index"
    ingest(docs, str(into), HashEmbedder())
    before = snapshot(into)
    edit(docs)
    modes = {}
    for folder in [into, *into.rglob("*")]:
        if folder.is_dir():
            modes[folder] = folder.stat().st_mode
            folder.chmod(0o555)
    try:
        if os.geteuid() == 0:
            pytest.skip("root writes read-only folders")
        with pytest.raises(ChunkingError, match="cannot write"):
            ingest(docs, str(into), HashEmbedder())
    finally:
        for folder, mode in modes.items():
            folder.chmod(mode)
    assert snapshot(into) == before


def test_an_unknown_scheme_and_bad_arguments(docs: Path, tmp_path: Path) -> None:
    with pytest.raises(ChunkingError, match="no store for mysql://") as info:
        ingest(docs, "mysql://me:s3cret@localhost/db", HashEmbedder())
    assert "'mysql://me:***@localhost/db'" in str(info.value) and "s3cret" not in str(info.value)
    with pytest.raises(TypeError, match="into"):
        ingest(docs, None, HashEmbedder())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="table"):
        ingest(docs, str(tmp_path / "i"), HashEmbedder(), table="a b")
    with pytest.raises(TypeError, match="embed"):
        ingest(docs, str(tmp_path / "i"), 42)  # type: ignore[arg-type]
    with pytest.raises(ChunkingError, match="module:function"):
        ingest(docs, str(tmp_path / "i"), "no-such-model")
    with pytest.raises(ValueError, match="standard input"):
        ingest("-", str(tmp_path / "i"), HashEmbedder())
    with pytest.raises(ChunkingError, match="no such store"):
        query(str(tmp_path / "nothing"), "x", 3, HashEmbedder())


@pytest.mark.parametrize("uri, shown", [
    ("postgresql://me:s3cret@db:5432/rag", "postgresql://me:***@db:5432/rag"),
    ("postgresql://me:s3c@ret@[::1]/rag", "postgresql://me:***@[::1]/rag"),
    ("postgresql:///rag?host=/run/postgresql&password=s3cret&sslmode=require",
     "postgresql:///rag?host=/run/postgresql&password=***&sslmode=require"),
    ("postgres://me:@db/rag", "postgres://me:@db/rag"),
    ("postgres://me@db/rag?password=s3cret", "postgres://me@db/rag?password=***"),
    ("lance://./my index", "lance://./my index"),
    ("./a@b:c/index", "./a@b:c/index"),
])
def test_uris_in_errors_keep_no_password(uri: str, shown: str) -> None:
    assert redact(uri) == shown


def test_unreadable_files_are_reported_not_fatal(docs: Path, store_uri: Stores) -> None:
    (docs / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (docs / "broken.txt.gz").write_bytes(b"not gzip at all")
    (docs / "ok.txt.gz").write_bytes(gzip.compress(b"A compressed file is read decompressed."))
    (docs / "blob.bin").write_bytes(b"\0\1\2" * 100)
    into = store_uri("index")
    report = ingest(docs, into, HashEmbedder())
    skipped = {Path(p).name for p, _ in report.skipped}
    assert skipped == {"latin1.txt", "broken.txt.gz"}
    assert report.documents_changed == 8  # the seven, and ok.txt.gz
    # A file that becomes unreadable keeps its stored chunks.
    before = [r for r in snapshot(into)[0] if dict(r)["doc_id"].endswith("km.txt")]
    (docs / "km.txt").write_bytes(b"caf\xe9, not UTF-8 now")
    report = ingest(docs, into, HashEmbedder())
    assert report.documents_deleted == 0 and [p for p, _ in report.skipped if p.endswith("km.txt")]
    assert [r for r in snapshot(into)[0] if dict(r)["doc_id"].endswith("km.txt")] == before != []


def test_query_finds_a_chunk_by_its_own_text(docs: Path, store_uri: Stores) -> None:
    into = store_uri("index")
    ingest(docs, into, HashEmbedder(), table="docs")
    row = next(iter(by_id(snapshot(into, "docs")).values()))
    hits = query(into, row["embedding_text"], 3, HashEmbedder(), table="docs")
    assert hits[0]["id"] == row["id"] and hits[0]["score"] == pytest.approx(1.0, abs=1e-5) and len(hits) == 3
    assert isinstance(hits[0]["metadata"], dict) and hits[0]["metadata"]["source"] == row["doc_id"]
    with pytest.raises(ChunkingError, match="holds vectors of hash-16"):
        query(into, "x", 3, HashEmbedder("other"), table="docs")
    with pytest.raises(ValueError, match="k must be"):
        query(into, "x", 0, HashEmbedder(), table="docs")


def test_the_public_objects_pickle(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    cache.put_many("m", {b"k" * 32: np.ones(3, np.float32)})
    again = pickle.loads(pickle.dumps(cache))
    assert again.path == cache.path and again.count("m") == 1
    report = IngestReport(documents_seen=3, skipped=[("a", "why")])
    assert pickle.loads(pickle.dumps(report)) == report


def test_names_with_quotes_and_other_scripts(tmp_path: Path, store_uri: Stores) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    quoted, other = docs / "it's here.md", docs / "ünï 名前.txt"
    quoted.write_text("# It's\n\nA title with a quote.\n\nAnother paragraph.", encoding="utf-8")
    other.write_text("名前のある文書です。二つ目の文です。", encoding="utf-8")
    into = store_uri("index")
    ingest(docs, into, HashEmbedder())
    quoted.write_text("# It's\n\nA title with a quote.\n\nAn edited paragraph.", encoding="utf-8")
    report = ingest(docs, into, HashEmbedder())
    assert report.documents_changed == 1 and report.chunks_deleted >= 1
    fresh = store_uri("fresh")
    ingest(docs, fresh, HashEmbedder())
    assert snapshot(into) == snapshot(fresh)
    quoted.unlink()
    assert ingest(docs, into, HashEmbedder()).documents_deleted == 1
    assert {r["doc_id"] for r in by_id(snapshot(into)).values()} == {Path(os.path.normpath(other)).as_posix()}


class _FailsOn:
    """A chunker that fails on texts holding ``word``: in a batch, the whole batch fails, as a real error would."""

    def __init__(self, word: str) -> None:
        from chunkwise import RecursiveChunker

        self.inner, self.word = RecursiveChunker(size=200), word

    def __repr__(self) -> str:
        return f"_FailsOn({self.word!r})"

    def chunk(self, text, metadata=None):
        if self.word in text:
            raise ChunkingError(f"cannot chunk a text with {self.word!r}")
        return self.inner.chunk(text, metadata)

    def chunk_batch(self, texts, metadatas=None):
        return [self.chunk(t, m) for t, m in zip(texts, metadatas or [None] * len(texts))]


def test_a_document_the_chunker_fails_on_costs_only_itself(docs: Path, store_uri: Stores) -> None:
    (docs / "poison.txt").write_text("This text holds POISON.", encoding="utf-8")
    report = ingest(docs, store_uri("index"), HashEmbedder(), _FailsOn("POISON"))
    assert [Path(p).name for p, _ in report.skipped] == ["poison.txt"] and "POISON" in report.skipped[0][1]
    assert report.documents_changed == 7


def test_a_run_over_one_tree_leaves_another_trees_documents(tmp_path: Path, monkeypatch, store_uri: Stores) -> None:
    one, two = make_tree(tmp_path / "one"), make_tree(tmp_path / "two")
    into = store_uri("index")
    ingest(one, into, HashEmbedder())  # absolute ids
    monkeypatch.chdir(two)
    ingest(".", into, HashEmbedder())  # relative ids
    (two / "km.txt").unlink()
    report = ingest(".", into, HashEmbedder())
    assert report.documents_deleted == 1
    ids = {r["doc_id"] for r in by_id(snapshot(into)).values()}
    assert "km.txt" not in ids and "th.txt" in ids and f"{Path(os.path.normpath(one)).as_posix()}/km.txt" in ids
