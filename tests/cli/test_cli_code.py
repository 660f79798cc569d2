"""``chunkwise chunk --strategy code`` and ``--strategy auto`` on source files: each file cut by CodeChunker in the
language its name says (content detection for the others), the JSON lines carrying the chunks' code metadata
exactly as ``chunk.metadata`` holds it (Parquet in columns of their own); ``inspect`` takes code too."""

from __future__ import annotations

import gzip

import pytest

from chunkwise import CodeChunker, MarkdownChunker, RecursiveChunker
from chunkwise.__main__ import main
from support.cli_files import write_files
from support.code_samples import C_HEADER, CPP_HEADER, SAMPLES
from support.cli_files import by_source, lines_of

PY = "import os\n\n\nclass Parser:\n    def feed(self, data):\n        return data\n\n\ndef main():\n    pass\n"


def test_strategy_code_cuts_each_file_in_the_language_of_its_name(tmp_path) -> None:
    files = {name: text for name, text, _ in SAMPLES.values()}
    files["app.py"] = PY
    files["no_extension"] = PY  # detected from its content
    write_files(tmp_path / "src", files)
    out = tmp_path / "chunks.jsonl"
    assert main(["chunk", str(tmp_path / "src"), "--strategy", "code", "--size", "60", "--out", str(out),
                 "--no-progress"]) == 0
    got = by_source(lines_of(out))
    assert set(got) == set(files)
    for name, text in files.items():
        source = str(tmp_path / "src" / name)
        # The lines are the chunks CodeChunker gives the file with its name, metadata and context included.
        want = CodeChunker(60).chunk(text, {"source": source})
        rows = got[name]
        assert [(r["start"], r["end"], r["text"]) for r in rows] == [(c.start, c.end, c.text) for c in want]
        assert [r["metadata"] for r in rows] == [dict(c.metadata) for c in want]
        assert [r["context"] for r in rows] == [c.context for c in want]
        assert all(text[r["start"] : r["end"]] == r["text"] for r in rows)
    assert {r["metadata"]["language"] for r in got["no_extension"]} == {"python"}
    assert [r["metadata"]["symbol_path"] for r in got["app.py"]] == [[], ["class Parser"], ["def main"]]
    assert {r["metadata"]["language"] for r in got["store.rb"]} == {"ruby"}


def test_strategy_auto_takes_code_for_source_files_only(tmp_path) -> None:
    write_files(tmp_path, {"a.py": PY, "b.sql": SAMPLES["sql"][1], "notes.md": "# Title\n\nSome text.\n",
                           "plain.txt": "Some words.\n\nMore words.\n"})
    (tmp_path / "c.rb.gz").write_bytes(gzip.compress(SAMPLES["ruby"][1].encode("utf-8")))
    (tmp_path / "shape.h.gz").write_bytes(gzip.compress(CPP_HEADER.encode("utf-8")))
    (tmp_path / "list.h").write_text(C_HEADER, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(tmp_path), "--strategy", "auto", "--size", "200", "--out", str(out), "--no-progress",
                 "--exclude", "out.jsonl"]) == 0
    got = by_source(lines_of(out))
    assert {r["metadata"]["language"] for r in got["a.py"]} == {"python"}
    assert {r["metadata"]["language"] for r in got["b.sql"]} == {"sql"}
    # A compressed source file is code by the name under its compression suffix.
    assert {r["metadata"]["language"] for r in got["c.rb.gz"]} == {"ruby"}
    # A header is C++ when its content says so, C otherwise.
    assert {r["metadata"]["language"] for r in got["shape.h.gz"]} == {"cpp"}
    assert {r["metadata"]["language"] for r in got["list.h"]} == {"c"}
    assert all(r["metadata"]["chunk_type"] == "code" for n in ("a.py", "b.sql", "c.rb.gz", "list.h") for r in got[n])
    # Markdown and plain text as before.
    md = MarkdownChunker(200).chunk("# Title\n\nSome text.\n", {"source": str(tmp_path / "notes.md"),
                                                                "strategy": "markdown",
                                                                "strategy_reason": "file name .md"})
    assert [r["metadata"] for r in got["notes.md"]] == [dict(c.metadata) for c in md]
    plain = RecursiveChunker(200).chunk("Some words.\n\nMore words.\n")
    assert [r["text"] for r in got["plain.txt"]] == [c.text for c in plain]
    assert "symbol_path" not in got["plain.txt"][0]["metadata"]


def test_code_takes_its_options_and_names_them_in_errors(tmp_path, capsys) -> None:
    write_files(tmp_path, {"a.py": PY})
    out = tmp_path / "o.jsonl"
    assert main(["chunk", str(tmp_path / "a.py"), "--strategy", "code", "--size", "40", "--size-includes-context",
                 "--out", str(out), "--no-progress"]) == 0
    want = CodeChunker(40, size_includes_context=True).chunk(PY, {"source": str(tmp_path / "a.py")})
    assert [r["text"] for r in lines_of(out)] == [c.text for c in want]
    capsys.readouterr()
    assert main(["chunk", str(tmp_path / "a.py"), "--strategy", "code", "--size", "0", "--no-progress"]) == 2
    assert "--size must be >= 1" in capsys.readouterr().err
    assert main(["chunk", str(tmp_path / "a.py"), "--strategy", "code", "--restart", "line", "--no-progress"]) == 2
    assert "--restart applies to --strategy fixed, not to code" in capsys.readouterr().err


def test_parquet_takes_code_under_auto(tmp_path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    write_files(tmp_path / "src", {"a.py": PY})
    out = tmp_path / "auto.parquet"
    assert main(["chunk", str(tmp_path / "src"), "--strategy", "auto", "--size", "40", "--out", str(out),
                 "--no-progress"]) == 0
    rows = pq.read_table(out).to_pylist()
    want = CodeChunker(40).chunk(PY)
    assert [r["text"] for r in rows] == [c.text for c in want]
    assert [r["symbol_path"] for r in rows] == [c.metadata["symbol_path"] for c in want]
    assert {r["strategy"] for r in rows} == {"code"}


def test_inspect_takes_code(tmp_path) -> None:
    write_files(tmp_path, {"store.rb": SAMPLES["ruby"][1]})
    page = tmp_path / "page.html"
    assert main(["inspect", str(tmp_path / "store.rb"), "--strategy", "auto", "--strategy", "code", "--size", "120",
                 "--out", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "auto (code)" in html and "class Item" in html
