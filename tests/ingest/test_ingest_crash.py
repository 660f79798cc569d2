"""kill -9 at random moments of a run, then a rerun: the store equals one clean run's, every time.

Each killed run is a process of its own, killed with SIGKILL by a timer at a random moment between its start and
the time a whole run takes (no hook in the code decides where). The processes fork from a server that has imported
chunkwise and lancedb already, so that a trial costs the run, not the imports. Half the trials start from an empty
store, half from the store of the tree before an edit (so that the killed run writes, updates and deletes)."""

from __future__ import annotations

import multiprocessing
import random
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("lancedb")

from chunkwise.ingest import ingest  # noqa: E402
from support.ingest_tree import HashEmbedder, edit, killed_run, make_tree, snapshot  # noqa: E402

TRIALS = 10
BATCH_FILES = 1  # a write per document: many moments between two writes to be killed at


@pytest.mark.skipif(sys.platform != "linux", reason="forkserver and SIGKILL")
def test_a_run_killed_at_random_moments_then_rerun_equals_a_clean_run(tmp_path: Path) -> None:
    docs = make_tree(tmp_path / "tree")
    old_store = tmp_path / "old"
    ingest(str(docs), str(old_store), HashEmbedder())  # the store of the tree before the edit
    edit(docs)
    clean = tmp_path / "clean"
    ingest(str(docs), str(clean), HashEmbedder())
    expected = snapshot(clean)

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["lancedb", "chunkwise.ingest", "support.ingest_tree"])

    def start(store: Path) -> tuple:
        started = context.Event()
        process = context.Process(target=killed_run, args=(str(docs), str(store), started, BATCH_FILES))
        process.start()
        assert started.wait(60), "the run did not start"
        return process, time.perf_counter()

    # How long a whole run takes in such a process, from its start (the kill moments are drawn within it).
    process, began = start(tmp_path / "timed")
    process.join(60)
    assert process.exitcode == 0
    whole = time.perf_counter() - began
    assert snapshot(tmp_path / "timed") == expected

    rng = random.Random(35)
    killed_mid_run = 0
    for trial in range(TRIALS):
        store = tmp_path / f"trial{trial}"
        if trial % 2:
            shutil.copytree(old_store, store)
        process, began = start(store)
        time.sleep(rng.uniform(0, whole))
        process.kill()
        process.join(10)
        killed_mid_run += process.exitcode == -signal.SIGKILL
        report = ingest(str(docs), str(store), HashEmbedder())
        assert snapshot(store) == expected, f"trial {trial}: killed after {time.perf_counter() - began:.3f} s"
        assert ingest(str(docs), str(store), HashEmbedder()).texts_embedded == 0
        assert report.skipped == []
    # The kills fell inside runs, not after them (the moments are drawn within a whole run's time).
    assert killed_mid_run >= TRIALS // 2, f"{killed_mid_run} of {TRIALS} runs killed before their end ({whole:.2f} s)"
