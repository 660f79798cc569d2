"""``chunkwise bench`` (issue 16): chunkwise and the installed peers on the user's files, MB/s and ratios; a peer
that is not installed is listed as skipped, never a failure."""

from __future__ import annotations

import json
import sys

import pytest

from chunkwise import __main__ as cli
from chunkwise import benchmark
from support.corpus import DATA



def small_files(tmp_path):
    out = []
    for name in ("en.txt", "zh.txt"):
        p = tmp_path / name
        p.write_text((DATA / name).read_text(encoding="utf-8")[:30_000], encoding="utf-8")
        out.append(p)
    return out


def test_bench_with_the_installed_peers(tmp_path, capsys):
    files = small_files(tmp_path)
    out = tmp_path / "bench.json"
    assert cli.main(["bench", *map(str, files), "--size", "300", "--size", "800", "--rounds", "1",
                     "--json", str(out)]) == 0
    table = capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    measured = {r["implementation"] for r in data["rows"]}
    assert {"chunkwise (spans)", "chunkwise (chunks)"} <= measured
    assert measured | set(data["skipped"]) == set(benchmark.IMPLEMENTATIONS)
    for r in data["rows"]:
        assert r["MBps"] > 0 and r["file"] in ("en.txt", "zh.txt") and r["size"] in (300, 800)
        if r["implementation"] == benchmark.BASELINE:
            assert r["ratio"] == 1.0
    assert table.count("size 300 characters") == 1 and table.count("size 800 characters") == 1
    for impl in measured:
        assert f"| {impl} |" in table


def test_bench_lists_a_missing_peer_as_skipped(tmp_path, capsys, monkeypatch):
    for module in ("langchain_text_splitters", "semantic_text_splitter", "chonkie", "semchunk", "llama_index",
                   "llama_index.core", "llama_index.core.node_parser"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    files = small_files(tmp_path)
    assert cli.main(["bench", str(files[0]), "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "skipped langchain: not installed (pip install langchain-text-splitters)" in out
    assert "skipped semchunk: not installed (pip install semchunk)" in out
    assert "| chunkwise (chunks) |" in out and "| langchain |" not in out


def test_bench_only_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    files = small_files(tmp_path)
    plot = tmp_path / "b.png"
    assert cli.main(["bench", str(files[1]), "--only", "chunkwise (spans)", "--rounds", "1", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "| chunkwise (spans) |" in out and "| chunkwise (chunks) |" in out and "semchunk" not in out
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_bench_names_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe\x00")
    assert cli.main(["bench", str(bad)]) == 2
    assert "cannot be read as UTF-8" in capsys.readouterr().err
    assert cli.main(["bench", str(tmp_path / "none.txt")]) == 2
    assert "not a file" in capsys.readouterr().err
    good = small_files(tmp_path)[0]
    assert cli.main(["bench", str(good), "--size", "0"]) == 2
    assert "--size must be >= 1" in capsys.readouterr().err


def test_bench_reads_a_file_without_its_byte_order_mark(tmp_path, monkeypatch):
    """A leading BOM is no part of the text (as ``chunkwise chunk`` reads files): it is neither split nor counted."""
    body = (DATA / "en.txt").read_text(encoding="utf-8")[:5_000]
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    split = []
    monkeypatch.setattr(benchmark, "IMPLEMENTATIONS", {benchmark.BASELINE: (lambda size: split.append, "chunkwise")})
    bench = benchmark.run([path], [300], rounds=1)
    assert bench.files == [("bom.txt", len(body.encode("utf-8")))]
    assert split and all(text == body for text in split)


def test_bench_shows_its_step_on_a_terminal_and_clears_it(tmp_path, capsys, monkeypatch):
    files = small_files(tmp_path)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert cli.main(["bench", str(files[0]), "--only", "chunkwise (spans)", "--rounds", "1", "--size", "300"]) == 0
    captured = capsys.readouterr()
    assert "\rchunkwise bench: chunkwise (spans), en.txt, 300" in captured.err
    assert captured.err.endswith("\r" + " " * 70 + "\r")  # the table starts on a clean line
    assert "\r" not in captured.out
