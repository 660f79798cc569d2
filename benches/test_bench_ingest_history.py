"""Issue 35's acceptance on a real edit history (``ingest_history.py``): the docs of Flask 3.0.3 -> 3.1.0 -> 3.1.1
and attrs 23.2.0 -> 24.1.0 -> 24.2.0, from their sdists on PyPI, ingested release after release.

* test_ingest_history[package]: per release, chunkwise embeds at most 1.1x the distinct embedding texts the store
  did not hold (it embeds exactly those), and the store then equals a fresh ingestion of the release (ids, texts,
  offsets, vectors, manifest), with AutoChunker and with RecursiveChunker at 512 characters. Beside it, LangChain's
  ``index()`` (SQL record manager, incremental cleanup) over RecursiveCharacterTextSplitter at 512: the texts each
  embedded, in extra_info (``embedded``, ``new_texts``, ``chunks``, per release and tool). The time is the whole
  history's, every tool, and the fresh ingestions the comparison needs.

Skipped without PyPI (the sdists are fetched once into ``~/.cache/chunkwise-bench``, their sha256 checked).
"""

from __future__ import annotations

import pytest

pytest.importorskip("lancedb")
pytest.importorskip("langchain_core")
pytest.importorskip("langchain_text_splitters")

import ingest_history  # noqa: E402


@pytest.mark.parametrize("package", sorted(ingest_history.HISTORIES))
def test_ingest_history(benchmark, package):
    benchmark.group = "ingest: a real edit history, release after release"
    try:
        for version, sha in ingest_history.HISTORIES[package]:
            ingest_history.fetch(package, version, sha)
    except ingest_history.FetchError as exc:
        pytest.skip(f"the releases could not be fetched: {exc}")
    steps = benchmark.pedantic(ingest_history.history, args=(package,), rounds=1, iterations=1)
    print("\n" + ingest_history.table(steps))
    benchmark.extra_info["steps"] = [
        {"release": s.release, "files": s.files, "files_changed": s.files_changed, "chunks": s.chunks,
         "embedded": s.embedded, "new_texts": s.new_texts} for s in steps]
    for s in steps:
        for tool in ("auto", "recursive"):
            assert s.equals_fresh[tool], f"{s.release}, {tool}: the synced store differs from a fresh ingestion"
            assert s.embedded[tool] <= 1.1 * s.new_texts[tool], (s.release, tool, s.embedded, s.new_texts)
    assert steps[0].embedded["langchain"] == steps[0].chunks["langchain"] > 0
    # The releases after the first change a few files: both sync, neither embeds the whole tree again.
    for s in steps[1:]:
        assert 0 < s.embedded["auto"] < s.chunks["auto"] and s.files_changed < s.files
