"""The columnar path of a run: rows handed to the store as Arrow tables in slices (Store.add_rows), then each
document's stale ids and manifest entry (Store.commit_documents). A store that implements only the abstract methods
gets the same rows through replace_documents; a batch that fails between its slices leaves its new documents out;
the metadata column is json.dumps of each chunk's metadata, whichever way it was encoded."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pytest

pytest.importorskip("lancedb")

from chunkwise import AutoChunker, ChunkingError  # noqa: E402
from chunkwise.ingest import Replacement, Store, ingest  # noqa: E402
from chunkwise.ingest import run as run_module  # noqa: E402
from chunkwise.ingest.stores import COLUMNS, rows_table  # noqa: E402
from support.ingest_tree import HashEmbedder, by_id, make_tree, snapshot  # noqa: E402


class _Plain(Store):
    """A store with the abstract methods only, in memory: what a new store module starts as."""

    def __init__(self) -> None:
        self.uri = "plain://"
        self.rows_by_id: Dict[str, Dict[str, Any]] = {}
        self.entries: Dict[str, Tuple[str, str]] = {}
        self.calls: List[List[Replacement]] = []

    def documents(self) -> Dict[str, Optional[Tuple[str, str]]]:
        out: Dict[str, Optional[Tuple[str, str]]] = {r["doc_id"]: None for r in self.rows_by_id.values()}
        out.update(self.entries)
        return out

    def rows(self, doc_ids: Sequence[str]) -> List[Dict[str, Any]]:
        return [dict(r) for r in self.rows_by_id.values() if r["doc_id"] in set(doc_ids)]

    def replace_documents(self, replacements: Sequence[Replacement]) -> None:
        self.calls.append(list(replacements))
        for r in replacements:
            for row in r.upsert:
                self.rows_by_id[row["id"]] = row
            for i in r.stale:
                self.rows_by_id.pop(i, None)
            self.entries[r.doc_id] = (r.fingerprint, r.model)

    def delete_documents(self, doc_ids: Sequence[str]) -> None:
        for i in [i for i, r in self.rows_by_id.items() if r["doc_id"] in set(doc_ids)]:
            del self.rows_by_id[i]
        for d in doc_ids:
            self.entries.pop(d, None)

    def query(self, vector: Any, k: int) -> List[Dict[str, Any]]:
        return []

    def dimension(self) -> Optional[int]:
        return None


def test_a_store_with_the_abstract_methods_only_gets_every_row(tmp_path: Path, monkeypatch) -> None:
    docs = make_tree(tmp_path)
    plain = _Plain()
    real = run_module.open_store
    monkeypatch.setattr(run_module, "open_store", lambda into, table, write=True, **kw:
                        plain if into == "plain://" else real(into, table, write, **kw))
    monkeypatch.setattr(run_module, "SLICE_ROWS", 7)  # many slices, each kept by the base class until the commit
    report = ingest(docs, "plain://", HashEmbedder())
    ingest(docs, str(tmp_path / "lance"), HashEmbedder())
    lance_rows = by_id(snapshot(tmp_path / "lance"))
    assert report.chunks_written == len(plain.rows_by_id) == len(lance_rows) > 50
    for i, row in plain.rows_by_id.items():
        assert isinstance(row["vector"], np.ndarray) and row["vector"].dtype == np.float32
        expected = lance_rows[i]
        assert {c: row[c] for c in COLUMNS[:-1]} == {c: expected[c] for c in COLUMNS[:-1]}
        assert np.allclose(row["vector"], expected["vector"], atol=1e-6)
    assert sum(len(r.upsert) for call in plain.calls for r in call) == len(plain.rows_by_id)
    assert ingest(docs, "plain://", HashEmbedder()).documents_unchanged == 7


def test_the_base_class_hands_the_rows_of_a_table_to_replace_documents() -> None:
    plain = _Plain()
    vectors = np.arange(6, dtype=np.float32).reshape(2, 3)
    columns = {"id": ["a", "b"], "doc_id": ["d", "d"], "text": ["x", "y"], "embedding_text": ["x", "y"],
               "start": [0, 1], "end": [1, 2], "index": [0, 1], "title_path": [["T"], []], "metadata": ["{}", "{}"],
               "model": ["m", "m"]}
    plain.add_rows(rows_table(columns, vectors), True)
    plain.discard_rows(["d"])  # a failed batch: nothing kept
    plain.add_rows(rows_table(columns, vectors), True)
    plain.commit_documents([Replacement("d", "f", "m", 2, new=True)])
    assert sorted(plain.rows_by_id) == ["a", "b"] and plain.entries == {"d": ("f", "m")}
    assert plain.rows_by_id["a"]["title_path"] == ["T"] and plain.rows_by_id["b"]["vector"].tolist() == [3, 4, 5]


def test_an_embedder_failing_between_slices_leaves_the_new_documents_out(tmp_path: Path, monkeypatch) -> None:
    docs = make_tree(tmp_path)
    monkeypatch.setattr(run_module, "SLICE_ROWS", 5)
    good = HashEmbedder()

    def fails_later(texts: List[str]) -> Any:
        if len(good.texts) > 20:
            raise RuntimeError("model server down")
        return good(texts)

    into = tmp_path / "index"
    with pytest.raises(ChunkingError, match="model server down"):
        ingest(docs, str(into), fails_later, embed_id="hash-16", batch_size=5)
    assert len(good.texts) > 20  # slices were written before the failure
    rows, manifest = snapshot(into)
    assert rows == [] and manifest == []
    report = ingest(docs, str(into), HashEmbedder())
    fresh = tmp_path / "fresh"
    ingest(docs, str(fresh), HashEmbedder())
    assert snapshot(into) == snapshot(fresh) and report.documents_changed == 7


def test_the_metadata_column_is_json_dumps_of_each_chunks_metadata(tmp_path: Path) -> None:
    docs = make_tree(tmp_path)
    ingest(docs, str(tmp_path / "index"), HashEmbedder())
    rows = by_id(snapshot(tmp_path / "index"))
    chunker = AutoChunker()
    seen = 0
    for path in sorted(p for p in docs.rglob("*") if p.is_file()):
        source = Path(os.path.normpath(path)).as_posix()
        for chunk in chunker.chunk(path.read_text(encoding="utf-8"), {"source": source}):
            row = rows[chunk.id]
            assert row["metadata"] == json.dumps(dict(chunk.metadata), sort_keys=True, ensure_ascii=False, default=str)
            seen += 1
    assert seen == len(rows)
    assert len({r["metadata"] for r in rows.values()}) > 10  # neighbours that differ are encoded each


def test_a_file_that_would_take_a_batch_past_its_bytes_starts_the_next(tmp_path: Path, monkeypatch) -> None:
    docs = make_tree(tmp_path)
    sizes = {Path(os.path.normpath(p)).as_posix(): p.stat().st_size for p in docs.rglob("*") if p.is_file()}
    bound = sorted(sizes.values())[-2]  # the second largest file: several batches, some of more than one file
    batches: List[List[str]] = []
    submit = run_module._Run.submit

    def recorded(self: Any, docs: Any) -> None:
        if docs is not None:
            batches.append([d.doc_id for d in docs])
        submit(self, docs)

    monkeypatch.setattr(run_module, "BATCH_BYTES", bound)
    monkeypatch.setattr(run_module._Run, "submit", recorded)
    ingest(docs, str(tmp_path / "small"), HashEmbedder())
    assert sorted(d for b in batches for d in b) == sorted(sizes)
    assert any(len(b) > 1 for b in batches)
    for b in batches:
        assert len(b) == 1 or sum(sizes[d] for d in b) <= bound, b
    monkeypatch.undo()
    ingest(docs, str(tmp_path / "whole"), HashEmbedder())
    assert snapshot(tmp_path / "small") == snapshot(tmp_path / "whole")


def test_prose_chunked_as_its_rows_are_written_gives_the_store_of_whole_chunking(tmp_path: Path, monkeypatch) -> None:
    docs = make_tree(tmp_path)
    prose = (docs / "sub" / "en.txt").read_text(encoding="utf-8")
    (docs / "bom.txt").write_bytes(b"\xef\xbb\xbf" + prose[:3000].encode("utf-8"))
    (docs / "paged.txt").write_text(prose[:2000] + "\f" + prose[2000:4000], encoding="utf-8")
    (docs / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me. ".encode("latin-1") * 50)
    (docs / "empty.txt").write_bytes(b"")
    streamed: List[str] = []
    stream = run_module._Run.stream

    def recorded(self: Any, doc: Any) -> Any:
        found = stream(self, doc)
        if found is not None:
            streamed.append(doc.path.name)
        return found

    monkeypatch.setattr(run_module, "STREAM_BYTES", 1000)  # many pieces, characters cut between them
    monkeypatch.setattr(run_module, "SLICE_ROWS", 7)
    monkeypatch.setattr(run_module._Run, "stream", recorded)
    report = ingest(docs, str(tmp_path / "streamed"), HashEmbedder())
    assert sorted(streamed) == ["bom.txt", "en.txt", "km.txt", "lo.txt", "th.txt"]  # the BOM left out, as decoded
    monkeypatch.setattr(run_module._Run, "stream", lambda self, doc: None)
    whole = ingest(docs, str(tmp_path / "whole"), HashEmbedder())
    assert snapshot(tmp_path / "streamed") == snapshot(tmp_path / "whole")
    assert report.skipped == whole.skipped and [p for p, _ in report.skipped] == [str(docs / "latin1.txt")]
    assert report.chunks_written == whole.chunks_written > 50
