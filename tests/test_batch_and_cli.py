"""Batches (parallel, GIL released) give the same chunks as one call at a time; the command line works."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from chunkwise import RecursiveChunker, SentenceChunker, Tokenizer
from chunkwise.__main__ import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "sample.md"


def _docs():
    text = SAMPLE.read_text(encoding="utf-8")
    return [text[i : i + 700] for i in range(0, len(text), 97)] + ["", "x", text * 20]


def test_batch_equals_one_at_a_time():
    docs = _docs()
    for chunker in (RecursiveChunker(120, 20), SentenceChunker(80)):
        metas = [{"doc_id": i} for i in range(len(docs))]
        assert chunker.chunk_batch(docs, metas) == [chunker.chunk(d, m) for d, m in zip(docs, metas)]
        assert [s.tolist() for s in chunker.spans_batch(docs)] == [chunker.spans(d).tolist() for d in docs]
        assert chunker.chunk_batch(iter(docs)) == chunker.chunk_batch(docs)


class _Collections:
    """Counts the collector's runs while the block runs."""

    def __enter__(self):
        self.count = 0
        gc.callbacks.append(self._seen)
        return self

    def _seen(self, phase, info):
        self.count += phase == "start"

    def __exit__(self, *exc):
        gc.callbacks.remove(self._seen)


def test_collector_paused_while_many_chunks_are_built():
    docs = [f"Sentence {i}. " * 40 for i in range(3000)]
    chunker = RecursiveChunker(64)
    assert gc.isenabled()
    # The same chunks made one short text at a time (no pause: too few chunks a call) set the collector off many
    # times...
    with _Collections() as loop:
        held = [chunker.chunk(d) for d in docs]
    assert loop.count >= 10
    del held
    # ...but not while a batch (or one text with many chunks) is turned into chunks: at most the one collection
    # that the first allocation after the call sets off.
    with _Collections() as batch:
        chunks = chunker.chunk_batch(docs)
    assert batch.count <= 1 and sum(map(len, chunks)) > 20 * gc.get_threshold()[0]
    with _Collections() as single:
        one = chunker.chunk(" ".join(docs))
    assert single.count <= 1 and len(one) > 5 * gc.get_threshold()[0]
    assert gc.isenabled()
    # Left as the caller had it: off stays off.
    gc.disable()
    try:
        chunker.chunk_batch(docs[:50])
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_collector_resumed_after_an_error():
    calls = []

    def flaky(text):
        calls.append(text)
        if len(calls) > 500:
            raise RuntimeError("tokenizer gave up")
        return len(text.split())

    chunker = RecursiveChunker(8, tokenizer=Tokenizer.from_callable(flaky))
    with pytest.raises(RuntimeError, match="gave up"):
        chunker.chunk_batch([f"word {i} " * 30 for i in range(200)])
    assert gc.isenabled()
    with pytest.raises(TypeError, match=r"texts\[1\] must be str"):
        RecursiveChunker(8).chunk_batch(["a", 2])
    assert gc.isenabled()


def test_one_chunker_shared_by_threads():
    chunker = RecursiveChunker(64)
    text = SAMPLE.read_text(encoding="utf-8") * 50  # large enough to release the GIL
    expected = chunker.spans(text).tolist()
    results, errors = [], []

    def work():
        try:
            for _ in range(5):
                results.append(chunker.spans(text).tolist())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 20 and all(r == expected for r in results)


def test_cli_writes_json_lines(tmp_path, capsys):
    folder = tmp_path / "docs"
    (folder / "nested").mkdir(parents=True)
    (folder / "a.txt").write_text("Alpha. Beta.\n\nGamma delta epsilon.", encoding="utf-8")
    (folder / "nested" / "b.md").write_text("# Title\n\n中文句子。第二句。", encoding="utf-8")
    (folder / "bad.bin").write_bytes(b"\xc3\x28 bad")  # not UTF-8, and no NUL byte: text in another encoding
    (folder / "image.bin").write_bytes(b"\xff\x00bad")  # a NUL byte: binary, one summary line
    out = tmp_path / "chunks.jsonl"
    code = main(["chunk", str(folder), "--size", "12", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1  # the undecodable file is reported, not silently dropped
    assert "skipped" in err and "bad.bin" in err and "2 documents" in err and "MB/s" in err
    assert "image.bin" not in err and "1 skipped: binary" in err
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    sources = {r["source"] for r in records}
    assert sources == {str(folder / "a.txt"), str(folder / "nested" / "b.md")}
    for r in records:
        text = Path(r["source"]).read_text(encoding="utf-8")
        assert text[r["start"] : r["end"]] == r["text"] and r["size"] <= 12
        assert r["metadata"] == {"source": r["source"]} and len(r["id"]) == 16
    assert [r["text"] for r in records if r["source"].endswith("b.md")] == ["# Title", "中文句子。第二句。"]


def test_cli_bad_arguments_and_stdout():
    proc = subprocess.run(
        [sys.executable, "-m", "chunkwise", "chunk", str(SAMPLE), "--size", "0"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "size must be >= 1, got 0" in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "chunkwise", "chunk", str(SAMPLE), "--strategy", "sentence", "--size", "100"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert len(lines) > 5 and all(len(json.loads(line)["text"]) <= 100 for line in lines)


def test_cli_markdown_strategy_writes_title_paths():
    proc = subprocess.run(
        [sys.executable, "-m", "chunkwise", "chunk", str(SAMPLE), "--strategy", "markdown", "--size", "200"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    source = SAMPLE.read_text(encoding="utf-8")
    assert len(records) > 3
    for r in records:
        assert source[r["start"] : r["end"]] == r["text"]
        assert r["metadata"]["title_path"][0] == "Field notes on chunking"
        assert r["metadata"]["chunk_type"] in {"text", "heading", "list", "table", "code", "quote"}
    assert any(r["metadata"]["title_path"][-1] == "中文的切分" for r in records)
