"""The CLI as an ingestion tool: compressed files, standard input, include/exclude, hidden names, links, encodings,
binary files, tokens, min size, output fields, and big files streamed."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os

from chunkwise import RecursiveChunker, Tokenizer
from chunkwise import cli
from chunkwise.cli import chunk as chunk_command, outputs
from support.corpus import DATA

EN = (DATA / "en.txt").read_text(encoding="utf-8")[:20_000]
ZH = (DATA / "zh.txt").read_text(encoding="utf-8")[:20_000]


def run(args, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = cli.main(["chunk", "--no-progress", *map(str, args)])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def by_source(records):
    out = {}
    for r in records:
        out.setdefault(r["source"], []).append(r)
    return out


def test_compressed_files_are_read_decompressed(tmp_path, capsys):
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(EN.encode()))
    (tmp_path / "b.txt.bz2").write_bytes(bz2.compress(ZH.encode()))
    (tmp_path / "c.md.xz").write_bytes(lzma.compress(EN.encode()))
    code, records, err = run([tmp_path, "--size", "300"], capsys)
    assert code == 0, err
    docs = by_source(records)
    assert len(docs) == 3
    expected = RecursiveChunker(300).split(EN)
    assert [r["text"] for r in docs[str(tmp_path / "a.txt.gz")]] == expected
    assert [r["text"] for r in docs[str(tmp_path / "b.txt.bz2")]] == RecursiveChunker(300).split(ZH)
    for r in docs[str(tmp_path / "c.md.xz")]:
        assert EN[r["start"] : r["end"]] == r["text"]


def test_a_compressed_file_read_closes_its_file(tmp_path):
    """gzip, bz2 and lzma leave a file object they are given open: each read must close it itself, not leave it to
    the file's finalizer (a ResourceWarning per file, and a descriptor held as long as anything refers to it)."""
    import warnings
    from pathlib import Path

    from chunkwise.cli import reading

    for suffix, compress in ((".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)):
        path = tmp_path / f"a.txt{suffix}"
        path.write_bytes(compress(b"some text"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert reading.read(Path(path), set()) == b"some text"
            f = reading.open_file(Path(path), set())
            f.close()
            del f
        assert [w for w in caught if issubclass(w.category, ResourceWarning)] == [], suffix


def test_a_corrupt_archive_is_named_and_skipped(tmp_path, capsys):
    (tmp_path / "bad.gz").write_bytes(gzip.compress(b"hello world")[:12])
    (tmp_path / "good.txt").write_text("fine text", encoding="utf-8")
    code, records, err = run([tmp_path], capsys)
    assert code == 1
    assert "bad.gz" in err and [r["text"] for r in records] == ["fine text"]


def test_zstd_without_its_package_says_what_to_install(tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_zstd(name, *args, **kwargs):
        if name == "zstandard":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_zstd)
    (tmp_path / "a.txt.zst").write_bytes(b"\x28\xb5\x2f\xfd not really")
    code, records, err = run([tmp_path / "a.txt.zst"], capsys)
    assert code == 1 and records == []
    assert "zstandard" in err


def test_standard_input(capsys, monkeypatch):
    code, records, err = run(["-", "--size", "200"], capsys, stdin=ZH.encode(), monkeypatch=monkeypatch)
    assert code == 0, err
    assert [r["text"] for r in records] == RecursiveChunker(200).split(ZH)
    assert {r["source"] for r in records} == {"<stdin>"}


def test_include_exclude_and_hidden(tmp_path, capsys):
    for rel in ["a.md", "b.txt", "sub/c.md", "sub/d.py", "build/e.md", ".hidden.md", ".git/f.md"]:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"text of {rel}", encoding="utf-8")

    def sources(*opts):
        code, records, err = run([tmp_path, *opts], capsys)
        assert code == 0, err
        return sorted(os.path.relpath(s, tmp_path) for s in by_source(records))

    assert sources() == ["a.md", "b.txt", "build/e.md", "sub/c.md", "sub/d.py"]
    assert sources("--include", "*.md") == ["a.md", "build/e.md", "sub/c.md"]
    assert sources("--include", "*.md", "--exclude", "build") == ["a.md", "sub/c.md"]
    assert sources("--include", "sub/*") == ["sub/c.md", "sub/d.py"]
    assert sources("--exclude", "*.py", "--exclude", "*.txt") == ["a.md", "build/e.md", "sub/c.md"]
    assert ".hidden.md" in sources("--hidden") and ".git/f.md" in sources("--hidden")
    code, _, err = run([tmp_path], capsys)
    assert code == 0 and "chunkwise: 2 left out: hidden names, files and folders (--hidden reads them)" in err
    code, _, err = run([tmp_path, "--hidden"], capsys)
    assert "hidden" not in err


def test_linked_folders_are_walked_only_when_asked_and_once(tmp_path, capsys):
    real = tmp_path / "real"
    real.mkdir()
    (real / "a.txt").write_text("alpha", encoding="utf-8")
    (real / "loop").symlink_to(real)  # a link loop
    (tmp_path / "link").symlink_to(real)
    code, records, err = run([tmp_path], capsys)
    assert code == 0 and len(records) == 1
    assert "chunkwise: 2 left out: linked folders (--follow-links walks them)" in err  # link and real/loop
    code, records, err = run([tmp_path, "--follow-links"], capsys)
    assert "linked folders" not in err
    assert code == 0
    assert len(records) == 1  # the same folder, reached three ways, is walked once


def test_binary_files_are_one_summary_line_not_a_failure(tmp_path, capsys):
    for i in range(5):
        (tmp_path / f"x{i}.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 100)
    (tmp_path / "a.txt").write_text("some text", encoding="utf-8")
    (tmp_path / "utf16.txt").write_bytes("wide text".encode("utf-16"))  # NUL bytes, but a BOM: text
    code, records, err = run([tmp_path], capsys)
    assert code == 0, err
    assert sorted(r["text"] for r in records) == ["some text", "wide text"]
    assert "x0.bin" not in err
    assert "5 skipped: binary" in err


def test_an_encoding_other_than_utf8(tmp_path, capsys):
    (tmp_path / "latin.txt").write_bytes("café crème".encode("latin-1"))
    code, _, err = run([tmp_path / "latin.txt"], capsys)
    assert code == 1 and "not UTF-8" in err
    code, records, err = run([tmp_path / "latin.txt", "--encoding", "latin-1"], capsys)
    assert code == 0 and [r["text"] for r in records] == ["café crème"]
    code, _, err = run([tmp_path / "latin.txt", "--encoding", "no-such-codec"], capsys)
    assert code == 2 and "--encoding no-such-codec" in err


def test_tokens_min_size_and_fields(tmp_path, capsys):
    path = tmp_path / "a.txt"
    path.write_text(EN, encoding="utf-8")
    code, records, err = run([path, "--size", "64", "--tokenizer", "cl100k_base", "--min-size", "20"], capsys)
    assert code == 0, err
    expected = RecursiveChunker(64, min_size=20, tokenizer=Tokenizer.tiktoken("cl100k_base")).chunk(EN)
    assert [r["text"] for r in records] == [c.text for c in expected]
    assert all(r["token_count"] == r["size"] <= 64 for r in records)
    assert list(records[0]) == list(outputs.FIELDS)
    assert records[0]["embedding_text"] == records[0]["text"] and records[0]["context"] == ""
    assert records[1]["prev_id"] == records[0]["id"] and records[0]["next_id"] == records[1]["id"]
    code, records, err = run([path, "--fields", "id,text,token_count"], capsys)
    assert code == 0 and list(records[0]) == ["id", "text", "token_count"] and records[0]["token_count"] is None
    for bad in (["--fields", "text,nope"], ["--tokenizer", "no_such_encoding"], ["--strategy", "fixed", "--min-size", "5"]):
        code, _, err = run([path, *bad], capsys)
        assert code == 2, bad
        assert bad[0] in err, err


def test_a_markdown_title_path_is_in_the_metadata(tmp_path, capsys):
    path = tmp_path / "a.md"
    path.write_text("# Guide\n\nIntro text here.\n\n## Install\n\nRun the installer now and then.\n", encoding="utf-8")
    code, records, err = run([path, "--strategy", "markdown", "--size", "40"], capsys)
    assert code == 0, err
    last = records[-1]
    assert last["metadata"]["title_path"] == ["Guide", "Install"]
    assert last["context"] == "Guide > Install"
    assert last["embedding_text"] == "Guide > Install\n\n" + last["text"]


def test_a_big_file_is_streamed_with_the_same_lines(tmp_path, capsys, monkeypatch):
    text = "\ufeff" + (EN + "\n\n" + ZH + "\n\n") * 3
    (tmp_path / "big.txt").write_text(text, encoding="utf-8")
    (tmp_path / "big.txt.gz").write_bytes(gzip.compress(text.encode("utf-8")))
    (tmp_path / "a-small.txt").write_text("small one", encoding="utf-8")
    (tmp_path / "small.txt").write_text("small two", encoding="utf-8")
    code, whole, err = run([tmp_path, "--size", "300"], capsys)
    assert code == 0, err
    streamed_calls = []
    real = outputs.JsonlWriter.stream

    def spy(self, chunker, reader, source, advance, strategy=None):
        streamed_calls.append(source)
        return real(self, chunker, reader, source, advance, strategy)

    monkeypatch.setattr(chunk_command, "STREAM_BYTES", 1000)
    monkeypatch.setattr(outputs.JsonlWriter, "stream", spy)
    code, streamed, err = run([tmp_path, "--size", "300"], capsys)
    assert code == 0, err
    assert len(streamed_calls) == 2  # big.txt and big.txt.gz (small.txt is too small to stream)
    assert streamed == whole  # the same lines in the same order: a batch is written before a big file is streamed
    assert "4 documents" in err
