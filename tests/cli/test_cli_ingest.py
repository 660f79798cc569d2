"""``chunkwise ingest`` and ``chunkwise query``: a tree into a store and back, by the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

pytest.importorskip("lancedb")

from chunkwise.__main__ import main  # noqa: E402
from support.ingest_tree import by_id, edit, make_tree, snapshot  # noqa: E402

EMBED = ["--embed", "support.ingest_tree:hash16"]


def test_ingest_then_query(tmp_path: Path, capsys, store_uri: Callable[..., str]) -> None:
    docs = make_tree(tmp_path)
    into = store_uri("index")
    into = into if "://" in into else f"lance://{into}"
    cache = str(tmp_path / "cache.sqlite")
    assert main(["ingest", str(docs), "--into", into, *EMBED, "--cache", cache, "--table", "t"]) == 0
    err = capsys.readouterr().err
    assert "7 documents (7 changed" in err and "0 from the cache" in err
    assert main(["ingest", str(docs), "--into", into, *EMBED, "--cache", cache, "--table", "t"]) == 0
    assert "0 chunks written" in capsys.readouterr().err
    edit(docs)
    assert main(["ingest", str(docs), "--into", into, *EMBED, "--cache", cache, "--table", "t"]) == 0
    assert "1 deleted)" in capsys.readouterr().err

    row = next(r for r in by_id(snapshot(into, "t")).values() if r["title_path"])
    assert main(["query", into, row["embedding_text"], "-k", "2", *EMBED, "--table", "t"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("1. 1.0000") and f"{row['doc_id']} [{row['start']}:{row['end']}]" in first
    assert " > ".join(row["title_path"]) in first and "2. " in out
    assert main(["query", into, row["embedding_text"], "-k", "1", *EMBED, "--table", "t", "--json"]) == 0
    hit = json.loads(capsys.readouterr().out)
    assert hit["id"] == row["id"] and hit["metadata"]["source"] == row["doc_id"]


def test_errors_are_one_line_each(tmp_path: Path, capsys) -> None:
    docs = make_tree(tmp_path)
    (tmp_path / "file").write_text("x")
    assert main(["ingest", str(docs), "--into", str(tmp_path / "file" / "index"), *EMBED]) == 1
    err = capsys.readouterr().err
    assert err.startswith("chunkwise: error: into: cannot write to") and "Traceback" not in err
    assert main(["ingest", str(docs), "--into", str(tmp_path / "i"), "--embed", "no.such.module:f"]) == 1
    assert "cannot load 'no.such.module:f'" in capsys.readouterr().err
    assert main(["ingest", str(docs), "--into", str(tmp_path / "i"), *EMBED, "--embed-id", "a"]) == 0
    capsys.readouterr()
    assert main(["query", str(tmp_path / "i"), "text", *EMBED]) == 1  # known by its spec, not as "a"
    assert "holds vectors of a" in capsys.readouterr().err
    assert main(["ingest", "-", "--into", str(tmp_path / "i"), *EMBED]) == 2
    assert main(["query", str(tmp_path / "i"), "text", "-k", "0", *EMBED]) == 2
    (docs / "bad.txt").write_bytes(b"caf\xe9, not UTF-8")
    assert main(["ingest", str(docs), "--into", str(tmp_path / "i"), *EMBED, "--embed-id", "a"]) == 1
    err = capsys.readouterr().err
    assert "bad.txt" in err and "1 files skipped" in err


def test_sizes_in_tokens(tmp_path: Path, capsys) -> None:
    docs = make_tree(tmp_path)
    into = str(tmp_path / "index")
    args = ["ingest", str(docs / "sub"), "--into", into, *EMBED, "--size", "64", "--tokenizer", "cl100k_base"]
    assert main(args) == 0
    from chunkwise import Tokenizer

    cl100k = Tokenizer.tiktoken("cl100k_base")
    rows = list(by_id(snapshot(tmp_path / "index")).values())
    assert max(cl100k.count(r["text"]) for r in rows) <= 64 < max(len(r["text"]) for r in rows)
    # Another size is another chunker: every document is chunked again (the cache would spare the model).
    assert main([*args[:-3], "128", "--tokenizer", "cl100k_base"]) == 0
    assert "2 changed" in capsys.readouterr().err.splitlines()[-1]
    bigger = list(by_id(snapshot(tmp_path / "index")).values())
    assert len(bigger) < len(rows) and max(cl100k.count(r["text"]) for r in bigger) <= 128
    assert main(["ingest", str(docs), "--into", into, *EMBED, "--tokenizer", "no-such-encoding"]) == 2


def test_skip_boilerplate(tmp_path: Path, capsys) -> None:
    """A footer every file of a folder ends with: cut apart from each file's last paragraph, a chunk of its own,
    flagged by default and left out with --skip-boilerplate; the two boilerplate flags exclude each other."""
    footer = "Copyright 2026 Example Corp. All rights reserved.\nPrivacy | Terms | Contact us"
    docs = make_tree(tmp_path)
    for path in sorted(p for p in docs.rglob("*") if p.is_file()):
        path.write_text(path.read_text(encoding="utf-8").rstrip() + "\n\n" + footer + "\n", encoding="utf-8")
    flagged, skipped = str(tmp_path / "flagged"), str(tmp_path / "skipped")
    assert main(["ingest", str(docs), "--into", flagged, *EMBED]) == 0
    rows = by_id(snapshot(flagged)).values()
    alone = [r for r in rows if r["text"].strip() == footer]
    marked = [r for r in rows if json.loads(r["metadata"]).get("boilerplate")]
    assert len(alone) == 7 and marked == alone and ", 7 boilerplate;" in capsys.readouterr().err
    assert not any("Privacy | Terms" in r["text"] for r in rows if r not in alone)
    assert main(["ingest", str(docs), "--into", skipped, *EMBED, "--skip-boilerplate"]) == 0
    kept = by_id(snapshot(skipped)).values()
    assert len(kept) == len(rows) - len(alone) and not any(r["text"].strip() == footer for r in kept)
    assert main(["ingest", str(docs), "--into", skipped, *EMBED, "--skip-boilerplate", "--no-boilerplate"]) == 2


def test_a_run_into_a_locked_store_is_a_clear_error(tmp_path: Path, capsys, store_uri: Callable[..., str]) -> None:
    from chunkwise.ingest import open_store

    docs = make_tree(tmp_path)
    into = store_uri("index")
    held = open_store(into)
    try:
        assert main(["ingest", str(docs), "--into", into, *EMBED, "--lock-timeout", "0"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("chunkwise: error: into: ") and "another run is writing to table 'chunks'" in err
        assert "Traceback" not in err and len(err.splitlines()) == 1
    finally:
        held.close()
    for bad in ("-1", "nan", "inf"):
        assert main(["ingest", str(docs), "--into", into, *EMBED, "--lock-timeout", bad]) == 2
        assert "--lock-timeout must be a number of seconds >= 0" in capsys.readouterr().err
    assert main(["ingest", str(docs), "--into", into, *EMBED, "--lock-timeout", "0"]) == 0
