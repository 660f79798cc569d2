"""Re-ingestion after edits: chunk ids survive edits elsewhere in a document, ``chunkwise.diff`` says what to embed,
keep and delete, and ``chunkwise chunk --previous`` marks each line and lists the removed ones."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import chunkwise
from chunkwise import MarkdownChunker, RecursiveChunker
from chunkwise import __main__ as cli
from support.corpus import SENTENCE_END, edits
from support.corpus import DATA, corpus

FILES = ["en.txt", "zh.txt", "ja.txt", "mixed.md"]


def text_counts(chunks):
    return Counter(c.text for c in chunks)


@pytest.mark.parametrize("full", [False, True], ids=["tests-data", "full-corpus"])
@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("chunker", [RecursiveChunker(512), MarkdownChunker(512)], ids=lambda c: type(c).__name__)
def test_ids_survive_edits_elsewhere_and_the_diff_is_exact(name, chunker, full):
    text = corpus(name, full)
    meta = {"doc_id": name}
    old = chunker.chunk(text, meta)
    for seed in range(3):
        for kind, (a, b), edited in edits(text, seed):
            new = chunker.chunk(edited, meta)
            d = chunkwise.diff(old, new)
            outside = [c for c in old if c.end < a or c.start > b]
            new_ids = {c.id for c in new}
            kept = sum(1 for c in outside if c.id in new_ids)
            # A local edit shifts the cuts of a few chunks after it, until they fall where they fell before.
            assert len(outside) - kept <= 10, (name, kind, kept, len(outside))
            if full:
                assert kept >= 0.99 * len(outside), (name, kind, kept, len(outside))
            # Exactly the changed chunks: the texts of `added` are those the new run has more of, and the texts of
            # `removed` those it has fewer of.
            more = text_counts(new) - text_counts(old)
            fewer = text_counts(old) - text_counts(new)
            assert text_counts(d.added) == more, (name, kind)
            assert text_counts(d.removed) == fewer, (name, kind)
            assert len(d.kept) + len(d.added) == len(new)
            assert len(d.added) <= 12 and len(d.removed) <= 12 and d.added + d.removed, (name, kind, d)


def test_diff_takes_chunks_lines_and_ids():
    a = RecursiveChunker(20).chunk("one two three. four five six. seven eight nine.", {"doc_id": "x"})
    b = RecursiveChunker(20).chunk("one two three. FOUR five six. seven eight nine.", {"doc_id": "x"})
    d = chunkwise.diff(a, b)
    assert [c.text for c in d.added] == ["FOUR five six."]
    assert [c.text for c in d.removed] == ["four five six."]
    assert [c.text for c in d.kept] == ["one two three.", "seven eight nine."]
    lines = [{"id": c.id, "text": c.text} for c in a]
    assert [r["text"] for r in chunkwise.diff(lines, [c.id for c in b]).removed] == ["four five six."]
    assert repr(d) == "ChunkDiff(added=1, kept=2, removed=1)"
    with pytest.raises(TypeError, match=r"old\[1\] must be a Chunk"):
        chunkwise.diff(["a", 5], [])
    with pytest.raises(TypeError, match=r"new\[0\]"):
        chunkwise.diff([], [{"text": "no id"}])


def run(args, capsys):
    code = cli.main(["chunk", "--no-progress", *map(str, args)])
    return code, capsys.readouterr()


def read_lines(path: Path):
    if path.suffix == ".parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        return pq.read_table(path).to_pylist()
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("form", ["jsonl", "parquet"])
def test_the_cli_says_what_to_embed_keep_and_delete(tmp_path, capsys, form):
    if form == "parquet":
        pytest.importorskip("pyarrow.parquet")
    docs = tmp_path / "docs"
    docs.mkdir()
    texts = {n: (DATA / n).read_text(encoding="utf-8")[:20_000] for n in ("en.txt", "zh.txt", "mixed.md")}
    for n, t in texts.items():
        (docs / n).write_text(t, encoding="utf-8")
    other = tmp_path / "other.txt"
    other.write_text("A document of another run.", encoding="utf-8")
    out = tmp_path / f"chunks.{form}"
    code, _ = run([docs, other, "--size", "300", "--out", out], capsys)
    assert code == 0
    before = read_lines(out)

    # An edit in one file, another file deleted; other.txt is not part of this run.
    en = texts["en.txt"]
    p = SENTENCE_END.search(en, len(en) // 2).end()
    (docs / "en.txt").write_text(en[:p] + "A sentence inserted here. " + en[p:], encoding="utf-8")
    (docs / "zh.txt").unlink()
    removed = tmp_path / f"removed.{form}"
    code, captured = run([docs, "--size", "300", "--previous", out, "--removed", removed, "--out", out], capsys)
    assert code == 0, captured.err
    after = read_lines(out)
    gone = read_lines(removed)

    old_ids = {r["id"] for r in before}
    assert all(r["change"] == ("kept" if r["id"] in old_ids else "added") for r in after)
    added = [r for r in after if r["change"] == "added"]
    assert 1 <= len(added) <= 3 and all(r["source"].endswith("en.txt") for r in added)
    zh = [r for r in before if r["source"].endswith("zh.txt")]
    assert sorted(r["id"] for r in gone if r["source"].endswith("zh.txt")) == sorted(r["id"] for r in zh)
    en_gone = [r for r in gone if r["source"].endswith("en.txt")]
    assert 1 <= len(en_gone) <= 3
    assert not any(r["source"] == str(other) for r in gone)  # not looked at in this run: left alone
    assert gone == [r for r in before if r in gone]  # the previous lines, as they were
    kept = len(after) - len(added)
    assert f"{len(added)} added (to embed), {kept} kept, {len(gone)} removed (to delete)" in captured.err


def test_bad_previous_files_are_usage_errors(tmp_path, capsys):
    doc = tmp_path / "a.txt"
    doc.write_text("text", encoding="utf-8")
    code, captured = run([doc, "--previous", tmp_path / "missing.jsonl"], capsys)
    assert code == 2 and "--previous" in captured.err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "source": "a"}\nnot json\n', encoding="utf-8")
    code, captured = run([doc, "--previous", bad], capsys)
    assert code == 2 and "line 2" in captured.err
    code, captured = run([doc, "--removed", tmp_path / "r.jsonl"], capsys)
    assert code == 2 and "--removed needs --previous" in captured.err
