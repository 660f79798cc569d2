"""``chunkwise chunk --strategy auto``: each document gets the chunker :class:`chunkwise.AutoChunker` would give it
(by its name, else by its content), and its chunks' metadata say which and why, in JSON lines and in Parquet (whose
code columns hold a code chunk's symbol path, lines and node types); a big file is streamed only when it is prose;
``inspect --strategy auto`` chooses the same way."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Dict, List

import pytest

from chunkwise import AutoChunker, CodeChunker, MarkdownChunker, RecursiveChunker
from chunkwise import cli
from chunkwise.cli import chunk as chunk_command, outputs
from chunkwise.cli.outputs import CODE_COLUMNS, STRATEGY_COLUMNS
from support.cli_files import by_source, lines_of, write_files
from support.corpus import DATA


MD_AS_TXT = "# Guide\n\nSet it up.\n\n## Install\n\n- one\n- two\n\n```sh\nmake\n```\n"
SCRIPT = "import os\n\n\nclass Parser:\n    def feed(self, data):\n        return data\n\n\ndef main():\n    pass\n"
LAW = "第一条 为了规范管理，制定本法。\n\n第二条 本法适用于全国。\n\n第三条 其他事项另行规定。\n"
FILES: Dict[str, str] = {
    "guide.md": "# Title\n\nSome text.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    "notes.txt": MD_AS_TXT,  # Markdown by its content
    "tool": SCRIPT,  # code without an extension
    "app.py": SCRIPT,
    "t.csv": "name,qty\napple,3\npear,4\n",
    "t.tsv": "name\tqty\napple\t3\n",
    "bad.csv": "a,b\n1,2\n\"never closed\n",  # named as a table, but not one: prose
    "law.txt": LAW,
    "zh.txt": (DATA / "zh.txt").read_text(encoding="utf-8")[:3000],
    "en.txt": (DATA / "en.txt").read_text(encoding="utf-8")[:5000],
    "mixed.md": (DATA / "mixed.md").read_text(encoding="utf-8")[:8000],
}


def run(*args: str) -> int:
    return cli.main(["chunk", "--no-progress", *args])


def test_each_file_gets_what_autochunker_gives_it(tmp_path) -> None:
    folder = tmp_path / "docs"
    write_files(folder, FILES)
    out = tmp_path / "out.jsonl"
    assert run(str(folder), "--strategy", "auto", "--size", "200", "--out", str(out)) == 0
    got = by_source(lines_of(out))
    assert set(got) == set(FILES)
    auto = AutoChunker(200)
    for name, text in FILES.items():
        want = auto.chunk(text, {"source": str(folder / name)})
        rows = got[name]
        assert [(r["start"], r["end"], r["text"]) for r in rows] == [(c.start, c.end, c.text) for c in want], name
        assert [r["metadata"] for r in rows] == [dict(c.metadata) for c in want], name
        assert [r["id"] for r in rows] == [c.id for c in want], name
        assert [r["context"] for r in rows] == [c.context for c in want], name
    strategy = {name: (rows[0]["metadata"]["strategy"], rows[0]["metadata"]["strategy_reason"])
                for name, rows in got.items()}
    assert {n: s for n, (s, _) in strategy.items()} == {
        "guide.md": "markdown", "notes.txt": "markdown", "tool": "code", "app.py": "code", "t.csv": "table",
        "t.tsv": "table", "bad.csv": "prose", "law.txt": "clause", "zh.txt": "prose", "en.txt": "prose",
        "mixed.md": "markdown",
    }
    assert strategy["bad.csv"][1].startswith("file name .csv, but not a csv table (")
    assert strategy["notes.txt"][1].startswith("content:")
    # The keys every chunk of a document shares come first: the source, then the strategy and its reason.
    assert list(got["tool"][0]["metadata"])[:4] == ["source", "strategy", "strategy_reason", "language"]


def test_a_compressed_file_is_judged_by_the_name_under_its_suffix(tmp_path) -> None:
    (tmp_path / "guide.txt.gz").write_bytes(gzip.compress(MD_AS_TXT.encode("utf-8")))
    (tmp_path / "c.py.gz").write_bytes(gzip.compress(SCRIPT.encode("utf-8")))
    out = tmp_path / "out.jsonl"
    assert run(str(tmp_path), "--strategy", "auto", "--size", "200", "--out", str(out), "--exclude", "out.jsonl") == 0
    got = by_source(lines_of(out))
    assert {r["metadata"]["strategy"] for r in got["guide.txt.gz"]} == {"markdown"}
    assert {r["metadata"]["strategy_reason"] for r in got["c.py.gz"]} == {"file name .py: python"}
    assert [r["text"] for r in got["c.py.gz"]] == CodeChunker(200, language="python").split(SCRIPT)


def test_a_bom_and_crlf_do_not_change_the_choice(tmp_path) -> None:
    text = MD_AS_TXT.replace("\n", "\r\n")
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    (tmp_path / "b.txt").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    out = tmp_path / "out.jsonl"
    assert run(str(tmp_path), "--strategy", "auto", "--size", "100", "--out", str(out), "--exclude", "out.jsonl") == 0
    got = by_source(lines_of(out))
    want = MarkdownChunker(100).split(text)
    for name in ("a.txt", "b.txt"):
        assert [r["text"] for r in got[name]] == want
        assert {r["metadata"]["strategy"] for r in got[name]} == {"markdown"}


def test_parquet_holds_the_strategy_and_code_columns(tmp_path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "docs"
    write_files(folder, FILES)
    jsonl, parquet = tmp_path / "out.jsonl", tmp_path / "out.parquet"
    assert run(str(folder), "--strategy", "auto", "--size", "200", "--out", str(jsonl)) == 0
    assert run(str(folder), "--strategy", "auto", "--size", "200", "--out", str(parquet)) == 0
    table = pq.read_table(parquet)
    for column in (*STRATEGY_COLUMNS, *CODE_COLUMNS):
        assert column in table.column_names
    rows = table.to_pylist()
    lines = lines_of(jsonl)
    assert [(r["source"], r["text"]) for r in rows] == [(r["source"], r["text"]) for r in lines]
    for row, line in zip(rows, lines):
        meta = line["metadata"]
        # Every key of the line's metadata is the row's column of that name; the other columns are null.
        for key, value in meta.items():
            assert row[key] == value, (key, line["source"])
        for column in (*STRATEGY_COLUMNS, *CODE_COLUMNS, "title_path", "chunk_type", "language"):
            if column not in meta:
                assert row[column] is None, (column, line["source"])
    code = [r for r in rows if r["source"].endswith("app.py")]
    assert [r["symbol_path"] for r in code] == [c.metadata["symbol_path"] for c in CodeChunker(200).chunk(SCRIPT)]


def test_strategy_code_writes_parquet(tmp_path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    write_files(tmp_path / "src", {"app.py": SCRIPT, "store.rb": "class Item\n  def price\n    1\n  end\nend\n"})
    out = tmp_path / "o.parquet"
    assert run(str(tmp_path / "src"), "--strategy", "code", "--size", "60", "--out", str(out)) == 0
    rows = pq.read_table(out).to_pylist()
    assert "strategy" not in rows[0]  # only auto says why
    for name, text in (("app.py", SCRIPT), ("store.rb", "class Item\n  def price\n    1\n  end\nend\n")):
        want = CodeChunker(60).chunk(text, {"source": str(tmp_path / "src" / name)})
        got = [r for r in rows if r["source"].endswith(name)]
        assert [r["text"] for r in got] == [c.text for c in want]
        for row, chunk in zip(got, want):
            for key in ("language", "symbol_path", "start_line", "end_line", "node_types", "chunk_type"):
                assert row[key] == chunk.metadata[key], key
            assert row["note"] == chunk.metadata.get("note")
            assert row["title_path"] is None


def test_a_big_file_streams_only_as_prose(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(chunk_command, "STREAM_BYTES", 2000)
    prose = (DATA / "en.txt").read_text(encoding="utf-8")[:20000]
    markdown = (DATA / "mixed.md").read_text(encoding="utf-8")[:20000]
    write_files(tmp_path / "docs", {"prose.txt": prose, "doc.txt": markdown})
    streamed: List[str] = []
    stream = outputs.JsonlWriter.stream

    def spy(self, chunker, reader, source, advance, strategy=None):
        streamed.append(Path(source).name)
        return stream(self, chunker, reader, source, advance, strategy)

    monkeypatch.setattr(outputs.JsonlWriter, "stream", spy)
    out = tmp_path / "out.jsonl"
    assert run(str(tmp_path / "docs"), "--strategy", "auto", "--size", "300", "--out", str(out)) == 0
    assert streamed == ["prose.txt"]
    got = by_source(lines_of(out))
    assert [r["text"] for r in got["prose.txt"]] == RecursiveChunker(300).split(prose)
    assert {r["metadata"]["strategy"] for r in got["prose.txt"]} == {"prose"}
    assert [r["text"] for r in got["doc.txt"]] == MarkdownChunker(300).split(markdown)
    assert {r["metadata"]["strategy"] for r in got["doc.txt"]} == {"markdown"}


def test_inspect_auto_chooses_by_content(tmp_path) -> None:
    write_files(tmp_path, {"notes.txt": MD_AS_TXT, "tool": SCRIPT})
    for name, strategy in (("notes.txt", "markdown"), ("tool", "code")):
        page = tmp_path / f"{name}.html"
        assert cli.main(["inspect", str(tmp_path / name), "--strategy", "auto", "--size", "120",
                         "--out", str(page)]) == 0
        assert f"auto ({strategy})" in page.read_text(encoding="utf-8")


def test_markdown_parquet_holds_the_code_keys_of_fenced_code(tmp_path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    doc = f"# Guide\n\nWords first.\n\n```python\n{SCRIPT}```\n\nAfter.\n"
    write_files(tmp_path / "docs", {"guide.md": doc})
    jsonl, parquet = tmp_path / "out.jsonl", tmp_path / "out.parquet"
    for out in (jsonl, parquet):
        assert run(str(tmp_path / "docs"), "--strategy", "markdown", "--size", "60", "--out", str(out)) == 0
    rows, lines = pq.read_table(parquet).to_pylist(), lines_of(jsonl)
    assert [r["text"] for r in rows] == [r["text"] for r in lines]
    fenced = 0
    for row, line in zip(rows, lines):
        meta = line["metadata"]
        for key in CODE_COLUMNS:
            assert row[key] == meta.get(key), key
        fenced += "symbol_path" in meta
    assert fenced >= 2
