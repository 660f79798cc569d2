"""One run at a time writes to a table: a second run waits for the first's lock, then fails naming the store and
the table; a killed run's lock goes with its process; ``query`` takes no lock."""

from __future__ import annotations

import multiprocessing
import sys
import threading
from pathlib import Path
from typing import Callable

import pytest

from chunkwise import ChunkingError
from chunkwise.ingest import ingest, open_store, query
from chunkwise.ingest.stores import LOCK_TIMEOUT, redact
from support.ingest_tree import HashEmbedder, holding_run, make_tree, snapshot


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "tree")


def test_a_second_run_fails_naming_the_store_and_table(docs: Path, store_uri: Callable[..., str]) -> None:
    into = store_uri()
    ingest(docs, into, HashEmbedder())
    (docs / "new.txt").write_text("A file the second run would add.\n", encoding="utf-8")
    before = snapshot(into)
    held = open_store(into)  # a run under way
    try:
        embed = HashEmbedder()
        with pytest.raises(ChunkingError, match="another run is writing to table 'chunks'") as info:
            ingest(docs, into, embed, lock_timeout=0)
        assert repr(redact(into)) in str(info.value) and embed.texts == []
        if not into.startswith("qdrant://"):  # (Qdrant's local mode lets one client open its folder at a time)
            assert len(query(into, "text", 3, HashEmbedder())) == 3  # a reader needs no lock
            assert ingest(docs, into, HashEmbedder(), table="other").documents_changed == 8  # another table's
    finally:
        held.close()
    assert snapshot(into) == before
    assert ingest(docs, into, HashEmbedder(), lock_timeout=0).documents_changed == 1


def test_a_second_run_waits_for_the_first(docs: Path, store_uri: Callable[..., str]) -> None:
    into = store_uri()
    held = open_store(into)
    release = threading.Timer(0.5, held.close)
    release.start()
    try:
        report = ingest(docs, into, HashEmbedder(), lock_timeout=120)
    finally:
        release.join()
    assert report.documents_changed == 7 and report.skipped == []


@pytest.mark.skipif(sys.platform != "linux", reason="forkserver and SIGKILL")
def test_a_killed_run_leaves_no_lock(docs: Path, store_uri: Callable[..., str]) -> None:
    into = store_uri()
    context = multiprocessing.get_context("forkserver")
    started = context.Event()
    process = context.Process(target=holding_run, args=(into, started))
    process.start()
    try:
        assert started.wait(60), "the run did not start"
        with pytest.raises(ChunkingError, match="another run is writing"):
            ingest(docs, into, HashEmbedder(), lock_timeout=0)
    finally:
        process.kill()
        process.join(30)
    # A file lock goes with the process; PostgreSQL's with the session, which the server ends once it sees the
    # connection cut: a run waits for that (its default lock_timeout).
    timeout = LOCK_TIMEOUT if into.startswith("postgres") else 0
    assert ingest(docs, into, HashEmbedder(), lock_timeout=timeout).documents_changed == 7


def test_lock_timeout_is_checked(docs: Path, tmp_path: Path) -> None:
    pytest.importorskip("lancedb")
    for bad in (-1, float("nan"), float("inf"), "5", True):
        with pytest.raises(ValueError, match="lock_timeout must be a number of seconds >= 0"):
            ingest(docs, str(tmp_path / "index"), HashEmbedder(), lock_timeout=bad)  # type: ignore[arg-type]
