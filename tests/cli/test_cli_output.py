"""The outputs of ``chunkwise chunk`` (issue 15): JSON lines written by the core, equal byte for byte to
``json.dumps`` of the chunks' own fields; Parquet with the same values; both whole documents or nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import chunkwise
from chunkwise import _core
from chunkwise import cli
from chunkwise.cli import chunk as chunk_command, outputs
from chunkwise.cli.outputs import FIELDS
from support.corpus import long_text



def each_document(lines, splitter, texts, sources, paged=False) -> list:
    """Per text: ``(its lines, its number of chunks)``, or the exception it raised; the batch is written at once."""
    everything = io.BytesIO()
    results = lines.write_batch(splitter, texts, sources, everything, paged)
    out = []
    for text, source, result in zip(texts, sources, results):
        if isinstance(result, BaseException):
            out.append(result)
            continue
        alone = io.BytesIO()
        assert lines.write_batch(splitter, [text], [source], alone, paged) == [result]
        out.append((alone.getvalue(), result))
    assert everything.getvalue() == b"".join(r[0] for r in out if isinstance(r, tuple))
    return out


def corpus_texts() -> List[str]:
    names = ["en.txt", "zh.txt", "ja.txt", "mixed.md", "code.py"]
    texts = [long_text(n, 120_000) for n in names]
    # every character JSON escapes, line and paragraph separators, astral characters, form feeds (pages)
    texts += ["", "page one\fpage two. More\fthree", 'x\u2028y\u2029z \x00\x01\x1f\x7f "quoted" \\ back\\slash\t\r\n'
              " é 😀 中文。", "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint('x')\n```\n"]
    return texts


def reference_line(chunk: Any, source: str, fields: List[str]) -> str:
    """What the command line wrote before the core wrote its lines: ``json.dumps`` of the chunk's fields."""
    values: Dict[str, Any] = {
        "source": source,
        "metadata": dict(chunk.metadata),
    }
    return json.dumps({f: values[f] if f in values else getattr(chunk, f) for f in fields}, ensure_ascii=False) + "\n"


CHUNKERS = {
    "recursive": lambda: chunkwise.RecursiveChunker(200),
    "recursive-overlap": lambda: chunkwise.RecursiveChunker(300, 60),
    "markdown": lambda: chunkwise.MarkdownChunker(300),
    "clause": lambda: chunkwise.ClauseChunker(300),
    "fixed": lambda: chunkwise.FixedChunker(100, 10),
    "sentence": lambda: chunkwise.SentenceChunker(256, 30),
    "paragraph": lambda: chunkwise.ParagraphChunker(400),
    "tokens": lambda: chunkwise.RecursiveChunker(64, tokenizer=chunkwise.Tokenizer.tiktoken("cl100k_base")),
}


@pytest.mark.parametrize("name", sorted(CHUNKERS))
def test_core_lines_equal_json_dumps_of_the_chunks(name):
    chunker = CHUNKERS[name]()
    texts = corpus_texts()
    sources = [f'docs/{i}"é.txt' for i in range(len(texts))]
    lines = _core.JsonLines(list(FIELDS))
    results = each_document(lines, chunker._splitter, [t.encode() for t in texts], sources)
    chunks = chunker.chunk_batch(texts, [{"source": s} for s in sources])
    total = 0
    for result, source, doc in zip(results, sources, chunks):
        assert isinstance(result, tuple), result
        got, n = result
        assert n == len(doc)
        want = "".join(reference_line(c, source, list(FIELDS)) for c in doc)
        assert got.decode("utf-8") == want
        total += n
    assert total > 100


def test_fields_are_written_in_the_order_given_and_pages_when_asked():
    chunker = chunkwise.RecursiveChunker(10)
    fields = ["metadata", "id", "text"]
    lines = _core.JsonLines(fields)
    [(got, n)] = each_document(lines, chunker._splitter, ["one page only"], ["a"], True)
    want = chunker.chunk(pages=["one page only"], metadata={"source": "a"})
    assert got.decode() == "".join(reference_line(c, "a", fields) for c in want)
    assert json.loads(got.decode().splitlines()[0])["metadata"]["page_start"] == 1


def test_a_bad_text_costs_only_itself():
    lines = _core.JsonLines(["text"])
    out = each_document(lines, chunkwise.RecursiveChunker(10)._splitter, [b"fine", b"bad \xff byte", "str too"],
                        ["a", "b", "c"])
    assert out[0] == (b'{"text": "fine"}\n', 1)
    assert isinstance(out[1], UnicodeDecodeError) and out[1].start == 4
    assert out[2] == (b'{"text": "str too"}\n', 1)


def test_json_lines_arguments_are_checked():
    with pytest.raises(ValueError, match=r"fields\[1\]: unknown field .txt."):
        _core.JsonLines(["text", "txt"])
    with pytest.raises(ValueError, match="twice"):
        _core.JsonLines(["text", "text"])
    with pytest.raises(ValueError, match="change.*previous"):
        _core.JsonLines(["change"])
    with pytest.raises(TypeError, match=r"fields\[0\]"):
        _core.JsonLines([1])
    lines = _core.JsonLines(["text"])
    with pytest.raises(TypeError, match=r"texts\[0\]"):
        lines.write_batch(chunkwise.RecursiveChunker(10)._splitter, [1], ["a"], io.BytesIO())
    with pytest.raises(ValueError, match="one entry per text"):
        lines.write_batch(chunkwise.RecursiveChunker(10)._splitter, ["a"], [], io.BytesIO())
    with pytest.raises(TypeError, match="file"):
        lines.write_batch(chunkwise.RecursiveChunker(10)._splitter, ["a"], ["a"], "out.jsonl")


def test_change_against_previous_ids():
    chunker = chunkwise.RecursiveChunker(12)
    first = chunker.chunk("Alpha beta. Gamma delta.", {"source": "a"})
    lines = _core.JsonLines(["id", "change"], [first[0].id, "not-an-id"])
    got = io.BytesIO()
    assert lines.write_batch(chunker._splitter, ["Alpha beta. Other words."], ["a"], got) == [2]
    got = got.getvalue()
    changes = [json.loads(x)["change"] for x in got.decode().splitlines()]
    assert changes == ["kept", "added"]
    assert (lines.changes.kept, lines.changes.added) == (1, 1)
    changes = lines.changes
    assert changes.written(first[0].id) and not changes.written(first[1].id) and not changes.written("zz")


def test_stream_lines_equal_the_lines_of_the_whole_text():
    text = long_text("en.txt", 300_000)
    chunker = chunkwise.RecursiveChunker(300, 50)
    lines = _core.JsonLines(list(FIELDS))
    whole = io.BytesIO()
    lines.write_batch(chunker._splitter, [text], ["big.txt"], whole)
    whole = whole.getvalue()
    stream = _core.ChunkStream(chunker._splitter, {"source": "big.txt"})
    data = text.encode()
    parts = []
    for i in range(0, len(data), 7919):  # cut inside characters too
        parts.append(stream.push_lines(data[i:i + 7919], lines, "big.txt")[0])
    parts.append(stream.finish_lines(lines, "big.txt")[0])
    assert b"".join(parts) == whole


# -- the command line -------------------------------------------------------------------------------------------------


def run_cli(tmp_path: Path, *args: str) -> int:
    return cli.main(["chunk", "--no-progress", *args])


def test_parquet_holds_the_values_of_the_json_lines(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, text in enumerate(corpus_texts()):
        (docs / f"{i:02d}.md").write_text(text, encoding="utf-8")
    (docs / "bad.md").write_bytes(b"not \xff UTF-8")
    jsonl, parquet = tmp_path / "out.jsonl", tmp_path / "out.parquet"
    assert run_cli(tmp_path, str(docs), "--strategy", "auto", "--size", "300", "--out", str(jsonl)) == 1
    assert run_cli(tmp_path, str(docs), "--strategy", "auto", "--size", "300", "--out", str(parquet)) == 1
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    table = pq.read_table(parquet)
    assert table.num_rows == len(records) > 100
    rows = table.to_pylist()
    for record, row in zip(records, rows):
        for field in FIELDS:
            if field == "metadata":
                meta = record["metadata"]
                assert meta.pop("source") == row["source"]
                for key in ("strategy", "strategy_reason", "title_path", "headings", "chunk_type", "row_start",
                            "row_end", "total_rows", "language", "page_start", "page_end", "symbol_path",
                            "start_line", "end_line", "node_types", "note"):
                    assert meta.pop(key, None) == row[key]
                assert meta.pop("context_shortened", False) == row["context_shortened"]
                assert meta == {}
            else:
                assert record[field] == row[field], field
    assert all(not r["source"].endswith("bad.md") for r in records)


def test_format_option_and_errors(tmp_path, capsys):
    pytest.importorskip("pyarrow.parquet")
    (tmp_path / "a.txt").write_text("Alpha. Beta.", encoding="utf-8")
    out = tmp_path / "chunks.bin"
    assert run_cli(tmp_path, str(tmp_path / "a.txt"), "--format", "parquet", "--out", str(out)) == 0
    assert out.read_bytes()[:4] == b"PAR1"
    assert run_cli(tmp_path, str(tmp_path / "a.txt"), "--format", "jsonl", "--out", str(tmp_path / "x.parquet")) == 0
    assert json.loads((tmp_path / "x.parquet").read_text())["text"] == "Alpha. Beta."


def test_size_includes_context_reaches_the_chunker(tmp_path, capsys):
    doc = tmp_path / "a.md"
    doc.write_text("# A rather long title for a section\n\n" + "Words and more words here. " * 30, encoding="utf-8")
    sizes = {}
    for flag in ("--size-includes-context", "--no-size-includes-context"):
        out = tmp_path / f"{flag}.jsonl"
        assert run_cli(tmp_path, str(doc), "--strategy", "markdown", "--size", "120", flag, "--out", str(out)) == 0
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        want = chunkwise.MarkdownChunker(120, size_includes_context=flag.startswith("--size")).chunk(
            doc.read_text(encoding="utf-8"))
        assert [r["text"] for r in records] == [c.text for c in want]
        sizes[flag] = max(len(r["embedding_text"]) for r in records)
    assert sizes["--size-includes-context"] <= 120 < sizes["--no-size-includes-context"]
    assert cli.main(["chunk", str(doc), "--no-size-includes-context"]) == 2
    assert "applies to --strategy markdown, clause, table, code or auto" in capsys.readouterr().err


def test_progress_moves_inside_a_big_file(tmp_path, monkeypatch):
    import io

    big = tmp_path / "big.txt"
    big.write_text("Some words in a sentence. " * 40_000, encoding="utf-8")  # ~1 MB
    monkeypatch.setattr(chunk_command, "STREAM_BYTES", 1000)
    monkeypatch.setattr(outputs, "READ_SIZE", 64 * 1024)
    err = io.StringIO()
    monkeypatch.setattr(cli.sys, "stderr", err)
    assert cli.main(["chunk", str(big), "--progress", "--out", str(tmp_path / "out.jsonl")]) == 0
    shown = [s for s in err.getvalue().split("\r") if "MB" in s and "files" in s]
    done = [float(s.split(", ")[1].split("/")[0]) for s in shown]
    assert any(0 < d < 1.04 for d in done)  # part of the file, before it ended
    assert done == sorted(done) and shown[-1].startswith("[" + "#" * 30 + "] 1/1 files")


def test_no_progress_in_a_pipe(tmp_path):
    import subprocess
    import sys

    (tmp_path / "a.txt").write_text("Alpha. Beta.", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "chunkwise", "chunk", str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and "\r" not in proc.stderr and "files," not in proc.stderr


def test_lines_are_written_in_pieces_of_whole_lines():
    writes = []

    class Recorder:
        def write(self, data):
            writes.append(bytes(data))
            return len(data)

    text = long_text("en.txt", 1_500_000)
    chunker = chunkwise.RecursiveChunker(512)
    lines = _core.JsonLines(list(FIELDS))
    assert lines.write_batch(chunker._splitter, [text, text], ["a", "b"], Recorder()) == [len(chunker.spans(text))] * 2
    assert len(writes) >= 4 and all(w.endswith(b"\n") for w in writes)
    assert max(map(len, writes)) < 2 << 20  # about a megabyte at a time, never the whole batch
    records = [json.loads(line) for line in b"".join(writes).decode().splitlines()]
    assert [r["source"] for r in records] == ["a"] * (len(records) // 2) + ["b"] * (len(records) // 2)


def test_a_short_write_is_completed():
    class Dribble:
        def __init__(self):
            self.data = b""

        def write(self, data):
            self.data += bytes(data[:7])
            return min(7, len(data))

    out = Dribble()
    lines = _core.JsonLines(["text"])
    assert lines.write_batch(chunkwise.RecursiveChunker(12)._splitter, ["Alpha beta. Gamma."], ["a"], out) == [2]
    assert out.data == b'{"text": "Alpha beta."}\n{"text": "Gamma."}\n'


def test_a_big_file_streams_the_same_rows_into_parquet(tmp_path, monkeypatch):
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "big.txt").write_text(long_text("en.txt", 400_000), encoding="utf-8")
    (folder / "small.txt").write_text("Small file. Two sentences.", encoding="utf-8")
    whole = tmp_path / "whole.parquet"
    assert run_cli(tmp_path, str(folder), "--size", "300", "--overlap", "40", "--out", str(whole)) == 0
    monkeypatch.setattr(chunk_command, "STREAM_BYTES", 1000)
    monkeypatch.setattr(outputs, "READ_SIZE", 50_000)
    streamed = tmp_path / "streamed.parquet"
    assert run_cli(tmp_path, str(folder), "--size", "300", "--overlap", "40", "--out", str(streamed)) == 0
    a, b = pq.read_table(whole), pq.read_table(streamed)
    assert a.num_rows > 1000 and a.equals(b)


def test_csv_and_tsv_files_are_chunked_as_tables(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    rows = "\n".join(f"{i},item {i},{i * 3}" for i in range(40))
    (docs / "prices.csv").write_text("id,name,price\n" + rows + "\n", encoding="utf-8")
    (docs / "prices.tsv").write_text("id\tname\n" + "\n".join(f"{i}\tthing {i}" for i in range(10)) + "\n",
                                     encoding="utf-8")
    (docs / "readme.md").write_text("# Prices\n\nSee the tables.\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert run_cli(tmp_path, str(docs), "--strategy", "auto", "--size", "200", "--rows-per-chunk", "15",
                   "--out", str(out)) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    csv = [r for r in records if r["source"].endswith(".csv")]
    want = chunkwise.TableChunker(200, format="csv", rows_per_chunk=15).chunk(
        (docs / "prices.csv").read_text(encoding="utf-8"))
    assert [r["text"] for r in csv] == [c.text for c in want] and len(csv) >= 3
    assert all(r["metadata"]["chunk_type"] == "table" and r["context"].startswith("| id | name | price |")
               for r in csv)
    assert [r["metadata"]["row_start"] for r in csv][:2] == [0, want[1].metadata["row_start"]]
    tsv = [r for r in records if r["source"].endswith(".tsv")]
    assert tsv and tsv[0]["metadata"]["total_rows"] == 10
    assert [r["metadata"]["title_path"] for r in records if r["source"].endswith(".md")] == [["Prices"]]
    assert cli.main(["chunk", str(docs), "--rows-per-chunk", "3"]) == 2
    assert "--rows-per-chunk applies to --strategy table or auto" in capsys.readouterr().err


def test_restart_reaches_the_fixed_chunker(tmp_path, capsys):
    doc = tmp_path / "a.txt"
    text = "\n\n".join(f"Paragraph {i} has a few words in it." for i in range(30))
    doc.write_text(text, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert run_cli(tmp_path, str(doc), "--strategy", "fixed", "--size", "100", "--restart", "paragraph",
                   "--out", str(out)) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    want = chunkwise.FixedChunker(100, restart="paragraph").chunk(text)
    assert [r["text"] for r in records] == [c.text for c in want]
    assert all(r["text"].startswith("Paragraph") for r in records)
    assert cli.main(["chunk", str(doc), "--restart", "line"]) == 2
    assert "--restart applies to --strategy fixed, not to recursive" in capsys.readouterr().err


def test_progress_on_a_terminal(tmp_path):
    import os
    import pty
    import subprocess
    import sys

    for i in range(3):
        (tmp_path / f"{i}.txt").write_text("Alpha. Beta. " * 100, encoding="utf-8")
    leader, follower = pty.openpty()  # stderr is a terminal, as when a user runs the command
    try:
        proc = subprocess.run([sys.executable, "-m", "chunkwise", "chunk", str(tmp_path), "--out",
                               str(tmp_path / "out.jsonl")], stderr=follower, stdout=subprocess.DEVNULL, timeout=60)
        os.close(follower)
        shown = b""
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal is closed once everything is read
                break
            if not data:
                break
            shown += data
    finally:
        os.close(leader)
    assert proc.returncode == 0
    assert b"\r[" in shown and b"3/3 files" in shown and b"3 documents" in shown
