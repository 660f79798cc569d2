"""kill -9 at random moments of a run, then a rerun: the store equals one clean run's, every time.

Each killed run is a process of its own, killed with SIGKILL by a timer at a random moment between its start and
the time a whole run takes (no hook in the code decides where), until ten runs were killed before their end. The
processes fork from a server that has imported chunkwise and the stores' clients already, so that a trial costs the
run, not the imports. Half the trials start from an empty store, half from the store of the tree before an edit (so
that the killed run writes, updates and deletes). Over every kind of store (``store_uri``): for PostgreSQL, the
server rolls back the transaction of the connection the kill cut."""

from __future__ import annotations

import multiprocessing
import random
import signal
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from chunkwise.ingest import ingest
from support.ingest_tree import HashEmbedder, copy_store, edit, killed_run, make_tree, snapshot

TRIALS = 10
BATCH_FILES = 1  # a write per document: many moments between two writes to be killed at


@pytest.mark.skipif(sys.platform != "linux", reason="forkserver and SIGKILL")
def test_a_run_killed_at_random_moments_then_rerun_equals_a_clean_run(tmp_path: Path,
                                                                      store_uri: Callable[..., str]) -> None:
    docs = make_tree(tmp_path / "tree")
    old_store = store_uri("old")
    ingest(str(docs), old_store, HashEmbedder())  # the store of the tree before the edit
    edit(docs)
    clean = store_uri("clean")
    ingest(str(docs), clean, HashEmbedder())
    expected = snapshot(clean)

    context = multiprocessing.get_context("forkserver")
    # (a module that is not installed is left out of the preload: its store's tests are skipped)
    context.set_forkserver_preload(["lancedb", "psycopg", "pgvector.psycopg", "chunkwise.ingest",
                                    "support.ingest_tree"])

    def start(store: str) -> tuple:
        started = context.Event()
        process = context.Process(target=killed_run, args=(str(docs), store, started, BATCH_FILES))
        process.start()
        assert started.wait(60), "the run did not start"
        return process, time.perf_counter()

    # How long a whole run takes in such a process, from its start (the kill moments are drawn within it).
    process, began = start(store_uri("timed"))
    process.join(60)
    assert process.exitcode == 0
    whole = time.perf_counter() - began
    assert snapshot(store_uri("timed")) == expected

    rng = random.Random(35)
    killed = attempts = 0
    # Ten runs killed before their end: a run the timer missed (it finished first, on a machine less busy than when
    # it was timed) is checked the same way but not counted.
    while killed < TRIALS and attempts < 3 * TRIALS:
        store = store_uri(f"trial{attempts}")
        if attempts % 2:
            copy_store(old_store, store)
        process, began = start(store)
        time.sleep(rng.uniform(0, whole))
        process.kill()
        process.join(10)
        killed += process.exitcode == -signal.SIGKILL
        report = ingest(str(docs), store, HashEmbedder())
        assert snapshot(store) == expected, f"trial {attempts}: killed after {time.perf_counter() - began:.3f} s"
        assert ingest(str(docs), store, HashEmbedder()).texts_embedded == 0
        assert report.skipped == []
        attempts += 1
    assert killed == TRIALS, f"{killed} of {attempts} runs killed before their end (a whole run: {whole:.2f} s)"


def test_a_table_killed_while_it_was_created_is_created_again(tmp_path: Path) -> None:
    """LanceDB makes a table's folder before its first version: a run killed between the two leaves a folder that
    is listed and does not open. The next run (holding the lock: no other run is creating it) creates it again."""
    pytest.importorskip("lancedb")
    docs = make_tree(tmp_path / "tree")
    clean = tmp_path / "clean"
    ingest(str(docs), str(clean), HashEmbedder())
    for name in ("chunks", "chunks_manifest"):
        # The table's folder alone, or with the temporary file of its first version (a kill during that write).
        for temporary in ("", "18446744073709551614.manifest#1"):
            into = tmp_path / f"{name}{temporary[-2:]}"
            (into / f"{name}.lance" / "_versions").mkdir(parents=True)
            if temporary:
                (into / f"{name}.lance" / "_versions" / temporary).write_bytes(b"\0" * 100)
            assert snapshot(into) == ([], [])
            ingest(str(docs), str(into), HashEmbedder())
            assert snapshot(into) == snapshot(clean)
