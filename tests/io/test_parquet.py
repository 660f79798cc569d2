"""Parquet written by the core (``_core.ParquetRows``, behind ``chunkwise chunk --format parquet``): the schema the
command has always written, every ``--compression`` value, whole documents or nothing, bounded row groups, errors
of the file raised, and the memory of a batch given back."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import chunkwise
from chunkwise import _core
from chunkwise import cli
from chunkwise.cli import chunk as chunk_command
from chunkwise.cli.outputs import CODE_COLUMNS, FIELDS, PAGE_COLUMNS, STRATEGY_COLUMNS, STRUCTURE_COLUMNS
from support.corpus import ROOT

CORPUS = ROOT / "tests" / "data"

STRINGS = {"text", "source", "id", "prev_id", "next_id", "level", "context", "embedding_text", "chunk_type",
           "language", "change", "note", "strategy", "strategy_reason"}
NULLABLE = {"prev_id", "next_id", "row_start", "row_end", "total_rows", "language", "page_start", "page_end",
            "change", "token_count", "title_path", "headings", "chunk_type", "context_shortened", *CODE_COLUMNS,
            *STRATEGY_COLUMNS}


def expected_schema(pa, columns, tokens=False):
    """The schema pyarrow's writer gave the command's Parquet (its type and nullability of each column)."""
    def kind(c):
        if c in STRINGS:
            return pa.string()
        if c in ("title_path", "symbol_path", "node_types"):
            return pa.list_(pa.string())
        if c == "headings":
            return pa.list_(pa.int64())
        if c == "context_shortened":
            return pa.bool_()
        return pa.int64()

    nullable = NULLABLE - ({"token_count"} if tokens else set())
    return pa.schema([pa.field(c, kind(c), nullable=c in nullable) for c in columns])


def run_cli(*args: str) -> int:
    return cli.main(["chunk", "--no-progress", *args])


def write_docs(folder: Path) -> Path:
    folder.mkdir()
    (folder / "guide.md").write_text("# Guide\n\nSet it up.\n\n## Install\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                                     "```python\nprint(1)\n```\n", encoding="utf-8")
    (folder / "en.txt").write_text((CORPUS / "en.txt").read_text(encoding="utf-8")[:60_000], encoding="utf-8")
    (folder / "t.csv").write_text("a,b\n1,2\n3,4\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("args, tokens", [
    ([], False),
    (["--strategy", "auto"], False),
    (["--strategy", "auto", "--fields", "text,metadata,id"], False),
    (["--tokenizer", "cl100k_base"], True),
])
def test_the_schema_is_the_one_pyarrow_wrote(tmp_path, args, tokens):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out.parquet"
    assert run_cli(str(docs), "--size", "200", "--out", str(out), *args) == 0
    fields = args[args.index("--fields") + 1].split(",") if "--fields" in args else list(FIELDS)
    structural = "auto" in args
    columns = []
    for f in fields:
        # auto: what chose each document's chunker, the structure, and the code columns (source files are code)
        auto = (*STRATEGY_COLUMNS, *STRUCTURE_COLUMNS, *CODE_COLUMNS) if structural else ()
        columns += [*auto, *PAGE_COLUMNS] if f == "metadata" else [f]
    schema = pq.read_schema(out).remove_metadata()
    assert schema.equals(expected_schema(pa, columns, tokens)), schema
    table = pq.read_table(out)
    assert table.num_rows > 50
    if structural:  # the recursive chunker's rows (en.txt) have no description: nulls, not empty values
        rows = table.to_pylist()
        plain = [r for r in rows if r.get("text") and r["text"] in (docs / "en.txt").read_text(encoding="utf-8")
                 and r.get("title_path") is None]
        assert plain and all(r.get("chunk_type") is None for r in plain)
        if "source" in table.column_names:
            guide = [r for r in table.select(["source", "title_path", "chunk_type"]).to_pylist()
                     if r["source"].endswith("guide.md")]
            assert guide and all(r["title_path"][:1] == ["Guide"] and r["chunk_type"] for r in guide)


def test_the_columns_of_the_fields():
    rows = _core.ParquetRows(io.BytesIO(), list(FIELDS), None, True, False)
    names = [c for c in rows.columns]
    assert names == [*FIELDS[:-1], *STRUCTURE_COLUMNS, *PAGE_COLUMNS]
    rows = _core.ParquetRows(io.BytesIO(), ["text", "metadata", "change"], ["0" * 16], False, False)
    assert rows.columns == ["text", *PAGE_COLUMNS, "change"]
    rows = _core.ParquetRows(io.BytesIO(), ["text", "metadata"], code=True, strategies=True)
    assert rows.columns == ["text", *STRATEGY_COLUMNS, *STRUCTURE_COLUMNS, *CODE_COLUMNS, *PAGE_COLUMNS]


@pytest.mark.parametrize("strategies, message", [
    ([("prose", "why")], "strategies must have one entry per text (2), got 1"),
    ([("prose", "why"), "prose"], "strategies[1] must be a (strategy, reason) pair of str, or None"),
    ([("prose", "why"), ("prose", 3)], "strategies[1] must be a (strategy, reason) pair of str, or None"),
])
def test_bad_strategies_are_named(strategies, message):
    splitter = chunkwise.RecursiveChunker(40)._splitter
    rows = _core.ParquetRows(io.BytesIO(), ["text", "metadata"], strategies=True)
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        rows.write_batch(splitter, ["a", "b"], ["a", "b"], strategies=strategies)
    lines = _core.JsonLines(["text", "metadata"])
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        lines.write_batch(splitter, ["a", "b"], ["a", "b"], io.BytesIO(), strategies=strategies)
    with pytest.raises(ValueError, match="'change' needs the ids of a previous run"):
        _core.ParquetRows(io.BytesIO(), ["text", "change"])
    with pytest.raises(ValueError, match=r'fields\[1\]: unknown field "nope"'):
        _core.ParquetRows(io.BytesIO(), ["text", "nope"])


@pytest.mark.parametrize("compression", ["snappy", "zstd", "lz4", "gzip", "brotli", "none"])
def test_every_compression_reads_back_the_same_rows(tmp_path, compression):
    pq = pytest.importorskip("pyarrow.parquet")
    docs = write_docs(tmp_path / "docs")
    plain, packed = tmp_path / "plain.parquet", tmp_path / "packed.parquet"
    assert run_cli(str(docs), "--out", str(plain), "--compression", "none") == 0
    assert run_cli(str(docs), "--out", str(packed), "--compression", compression) == 0
    meta = pq.ParquetFile(packed).metadata
    codec = {"none": "UNCOMPRESSED"}.get(compression, compression.upper())
    # the hex ids are left uncompressed by the LZ codecs without entropy coding (which save little of them)
    hashes = "UNCOMPRESSED" if compression in ("snappy", "lz4") else codec
    group = meta.row_group(0)
    codecs = {group.column(k).path_in_schema: group.column(k).compression for k in range(group.num_columns)}
    assert {"text", "id", "prev_id", "next_id"} <= set(codecs)
    assert codecs == {name: hashes if name in ("id", "prev_id", "next_id") else codec for name in codecs}
    assert pq.read_table(packed).equals(pq.read_table(plain))


def test_an_unknown_compression_names_the_argument():
    with pytest.raises(ValueError, match=r"compression must be one of snappy, zstd, lz4, gzip, brotli, none, got \"lzo\""):
        _core.ParquetRows(io.BytesIO(), ["text"], compression="lzo")


def test_a_failed_document_leaves_no_rows(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    text = (CORPUS / "en.txt").read_text(encoding="utf-8")[:20_000]
    splitter = chunkwise.RecursiveChunker(300)._splitter
    path = tmp_path / "out.parquet"
    with open(path, "wb") as f:
        rows = _core.ParquetRows(f, list(FIELDS))
        results = rows.write_batch(splitter, [text, b"bad \xff bytes", text.encode()], ["a", "bad", "c"])
        rows.close()
    assert isinstance(results[1], UnicodeDecodeError)
    n = len(chunkwise.RecursiveChunker(300).spans(text))
    assert results[0] == results[2] == n
    table = pq.read_table(path)
    assert table.column("source").to_pylist() == ["a"] * n + ["c"] * n
    assert table.column("index").to_pylist() == list(range(n)) * 2


def test_row_groups_are_bounded(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    text = (CORPUS / "en.txt").read_text(encoding="utf-8") * 10
    path = tmp_path / "out.parquet"
    with open(path, "wb") as f:
        rows = _core.ParquetRows(f, list(FIELDS))
        rows.write_batch(chunkwise.RecursiveChunker(40)._splitter, [text], ["a"])
        rows.close()
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows > 20_000 and meta.num_row_groups > 2
    assert all(meta.row_group(i).num_rows <= 8192 for i in range(meta.num_row_groups))
    # about a megabyte of encoded data each (the last one less), whatever the rows hold
    assert all(meta.row_group(i).total_byte_size < 4 << 20 for i in range(meta.num_row_groups))


def test_what_the_file_raises_is_raised():
    class Full:
        def __init__(self, room):
            self.room = room

        def write(self, data):
            if len(data) > self.room:
                raise OSError(28, "No space left on device")
            self.room -= len(data)
            return len(data)

    rows = _core.ParquetRows(Full(100), ["text"])
    text = (CORPUS / "en.txt").read_text(encoding="utf-8")
    with pytest.raises(OSError, match="No space left"):
        rows.write_batch(chunkwise.RecursiveChunker(512)._splitter, [text], ["a"])
        rows.close()


def test_a_plain_file_gets_the_bytes_a_file_object_gets(tmp_path):
    """A plain file is written through its descriptor by the encoder thread, anything else through its ``write``:
    the same bytes either way, after what the file held before."""
    text = (CORPUS / "en.txt").read_text(encoding="utf-8") * 3
    splitter = chunkwise.RecursiveChunker(200)._splitter

    def write(f):
        f.write(b"head")
        rows = _core.ParquetRows(f, list(FIELDS))
        assert rows.write_batch(splitter, [text, text[:5000]], ["a", "b"]) == [
            len(chunkwise.RecursiveChunker(200).spans(t)) for t in (text, text[:5000])]
        rows.close()

    through_write = io.BytesIO()
    write(through_write)
    path = tmp_path / "out.parquet"
    with open(path, "wb") as f:
        write(f)
        assert f.tell() == len(through_write.getvalue())
    assert path.read_bytes() == through_write.getvalue()
    with open(path, "wb", buffering=0) as raw:  # an io.FileIO
        write(raw)
    assert path.read_bytes() == through_write.getvalue()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_under_a_plain_file_is_an_oserror():
    with open("/dev/full", "wb") as f:
        rows = _core.ParquetRows(f, ["text"])
        text = (CORPUS / "en.txt").read_text(encoding="utf-8")
        with pytest.raises(OSError, match="No space left"):
            rows.write_batch(chunkwise.RecursiveChunker(512)._splitter, [text] * 8, ["a"] * 8)
            rows.close()


def test_damaged_spooled_rows_are_an_error(tmp_path):
    splitter = chunkwise.RecursiveChunker(100)._splitter
    stream = _core.ChunkStream(splitter, {"source": "s"})
    records, n = stream.push_rows("Alpha beta. " * 200)
    more, k = stream.finish_rows()
    assert n + k > 5
    rows = _core.ParquetRows(io.BytesIO(), ["text"])
    assert rows.write_spooled(splitter, io.BytesIO(records + more), "s") == n + k
    with pytest.raises(ValueError, match="spooled rows"):
        rows.write_spooled(splitter, io.BytesIO((records + more)[:-1]), "s")


def test_parquet_needs_no_pyarrow(tmp_path):
    """The command writes Parquet with pyarrow unimportable (it reads a --previous Parquet file only)."""
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out.parquet"
    script = textwrap.dedent(f"""
        import sys
        sys.modules["pyarrow"] = None  # import pyarrow raises ImportError
        from chunkwise.__main__ import main
        assert main(["chunk", {str(docs)!r}, "--no-progress", "--out", {str(out)!r}]) == 0
        assert "pyarrow" not in [m for m in sys.modules if sys.modules[m] is not None]
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == b"PAR1" and out.read_bytes()[-4:] == b"PAR1"


RSS = """
import os
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_the_memory_of_a_batch_is_given_back():
    """Rows of a 22 MB text written and let go: what stays is a small part of what they took (the encoder gives
    back each row group's memory, the command the rest after each batch)."""
    script = RSS + textwrap.dedent("""
        import os
        import chunkwise
        from chunkwise import _core
        from chunkwise.cli.outputs import FIELDS
        text = ("A sentence of a document, cut into chunks. " * 40 + "\\n\\n") * 12_000
        splitter = chunkwise.RecursiveChunker(512)._splitter
        # A small batch first: the code it runs and the worker threads it starts stay, and are not what is measured.
        with open(os.devnull, "wb") as out:
            rows = _core.ParquetRows(out, list(FIELDS))
            rows.write_batch(splitter, [text[:200_000].encode()], ["warm-up"])
            rows.close()
        _core._release_memory()
        base = rss()
        with open(os.devnull, "wb") as out:
            rows = _core.ParquetRows(out, list(FIELDS))
            rows.write_batch(splitter, [text.encode()], ["doc"])
            rows.close()
        _core._release_memory()
        print(rss() - base)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    kept = int(proc.stdout.split()[-1]) / 2**20
    assert kept < 3, f"{kept:.1f} MiB kept of the rows of a 22 MB text"


def jsonl_rows(batches, fields):
    """The rows JSON lines give of the same batches: what the Parquet rows must hold."""
    out = io.BytesIO()
    lines = _core.JsonLines(fields, None)
    for splitter, texts, sources in batches:
        lines.write_batch(splitter, texts, sources, out, False)
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("compression", ["snappy", "zstd", "lz4", "gzip", "brotli", "none"])
@pytest.mark.parametrize("fields", [
    ["text", "start", "end", "source", "index", "id", "prev_id", "next_id", "level", "size", "context",
     "embedding_text"],
    ["embedding_text", "id", "context", "text", "index"],  # the copied column before the one it copies
])
def test_row_groups_with_and_without_embedding_texts_of_their_own(tmp_path, compression, fields):
    """Row groups of chunks without context (whose embedding_text column is the text column's pages, copied) and
    of Markdown chunks with context (both encoded), in many columns encoded in parallel: the rows JSON lines give."""
    pq = pytest.importorskip("pyarrow.parquet")
    en = (CORPUS / "en.txt").read_text(encoding="utf-8")
    plain = chunkwise.RecursiveChunker(40)._splitter
    markdown = chunkwise.MarkdownChunker(150)._splitter
    md = (CORPUS / "mixed.md").read_text(encoding="utf-8")
    batches = [
        (plain, [en * 4, (CORPUS / "zh.txt").read_text(encoding="utf-8")], ["en", "zh"]),
        (markdown, [md], ["md"]),
        (plain, [en[:30_000]], ["en-part"]),
        (markdown, [md[:20_000], md], ["md-part", "md-again"]),
    ]
    path = tmp_path / "out.parquet"
    with open(path, "wb") as f:
        rows = _core.ParquetRows(f, fields, compression=compression)
        for splitter, texts, sources in batches:
            rows.write_batch(splitter, texts, sources)
        rows.close()
    expected = jsonl_rows(batches, fields)
    assert any(r["context"] for r in expected) and any(r["embedding_text"] == r["text"] for r in expected)
    assert pq.read_table(path).to_pylist() == expected
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups >= 3
    text, embedding = fields.index("text"), fields.index("embedding_text")
    copied = own = 0
    for g in range(meta.num_row_groups):
        a, b = meta.row_group(g).column(text), meta.row_group(g).column(embedding)
        assert (a.path_in_schema, b.path_in_schema) == ("text", "embedding_text")
        assert b.num_values == a.num_values == meta.row_group(g).num_rows
        same = b.total_compressed_size == a.total_compressed_size
        copied += same
        own += not same
    assert copied >= 2 and own


def test_a_batch_holds_no_more_than_the_largest_file(tmp_path, monkeypatch):
    """Files are gathered into a batch up to the size of the largest file, not past it: the texts of a batch are
    most of what a run holds."""
    docs = tmp_path / "docs"
    docs.mkdir()
    sizes = {"a.txt": 600, "b.txt": 250, "c.txt": 600, "d.txt": 900, "e.txt": 100}
    for name, size in sizes.items():
        (docs / name).write_text(("word " * size)[:size], encoding="utf-8")
    monkeypatch.setattr(chunk_command, "BATCH_BYTES", (100, 8 << 20))
    batches = []
    batch = chunk_command._Run._batch

    def record(self, paths, payloads, sizes, *args, **kwargs):
        if paths:
            batches.append(sum(sizes))
        return batch(self, paths, payloads, sizes, *args, **kwargs)

    monkeypatch.setattr(chunk_command._Run, "_batch", record)
    assert run_cli(str(docs), "--size", "100", "--out", str(tmp_path / "out.parquet")) == 0
    assert sum(batches) == sum(sizes.values())
    assert batches == [850, 600, 900, 100]
