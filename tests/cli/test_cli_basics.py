"""The command line's first steps: a folder to JSON lines (a file that is not UTF-8 reported, a binary one counted),
bad arguments and standard output through ``python -m chunkwise``, Markdown title paths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from chunkwise.__main__ import main
from support.corpus import ROOT

SAMPLE = ROOT / "samples" / "sample.md"


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
