"""Documents for the engine adapters' tests and benchmarks: ``n`` windows of varied length cut from a few texts (the
corpus in tests/data by default, so a fresh clone has them), with ids, a kept column, and some empty and null texts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

from support.corpus import DATA

FILES = ("en.txt", "zh.txt", "ja.txt", "mixed.md", "code.py")


def documents(n: int, texts: Optional[Sequence[str]] = None, longest: int = 1500) -> Any:
    """A pyarrow table of ``n`` documents: ``doc`` (int64, 0..n-1), ``source`` (the file it was cut from) and
    ``text`` (a window of 1 to ``longest`` characters at a spread start; every 97th is empty, every 89th null).
    Deterministic: the same ``n`` and texts give the same table."""
    import pyarrow as pa

    if texts is None:
        texts = [(DATA / name).read_text(encoding="utf-8") for name in FILES]
    names = list(FILES) if len(texts) == len(FILES) else [f"text{i}" for i in range(len(texts))]
    out, sources = [], []
    for i in range(n):
        k = i % len(texts)
        src = texts[k]
        length = 1 + (i * 7919) % longest
        start = (i * 104729) % max(1, len(src) - length)
        text: Optional[str] = src[start : start + length]
        if i % 97 == 3:
            text = ""
        elif i % 89 == 5:
            text = None
        out.append(text)
        sources.append(names[k])
    return pa.table({
        "doc": pa.array(range(n), pa.int64()),
        "source": pa.array(sources, pa.string()),
        "text": pa.array(out, pa.string()),
    })


def needs_java() -> None:
    """Skip, saying how to run it, a test that starts Spark where the machine has no Java (Spark 4 needs 17+)."""
    import shutil

    import pytest

    home = os.environ.get("JAVA_HOME")
    if shutil.which("java") is None and not (home and os.path.exists(os.path.join(home, "bin", "java"))):
        pytest.skip("Spark needs Java 17+ and this machine has none: apt-get install default-jre-headless (as .ci/run "
                    "does), then run these tests again")


def local_spark(app: str, conf: Optional[dict] = None, master: str = "local[2]") -> Any:
    """A local Spark session on 2 cores named ``app`` (no UI, only errors logged), with ``conf``; its Python workers
    are this interpreter (the one that has chunkwise). ``master``: ``local[2, 4]`` retries a failed task (up to 4
    attempts); :func:`spark_cluster` for executors in processes of their own. A session of another master still
    running in this process (a docs example's) is stopped first: ``getOrCreate`` would hand it back instead."""
    needs_java()
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    running = SparkContext._active_spark_context
    if running is not None and running.master != master:
        running.stop()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


CLUSTER = "local-cluster[2,1,1024]"
"""Spark's standalone cluster on this machine: a master and 2 workers inside the driver's JVM, each worker
launching its executor as a JVM of its own (``CoarseGrainedExecutorBackend``, 1 core, 1024 MB), whose Python workers
run the tasks; the pip package's jars and scripts are all it needs."""


@contextlib.contextmanager
def spark_cluster(app: str, conf: Optional[dict] = None) -> Iterator[Any]:
    """A session on :data:`CLUSTER` (see :func:`local_spark`), stopped on exit. Its executors run in their own
    working directories, so the directories this process imports chunkwise and the test support from are
    given to them as absolute paths (a relative ``PYTHONPATH=python`` would miss, and a chunkwise installed in the
    environment would be tested instead). The workers keep each application's executor logs in ``SPARK_HOME/work``
    (the pyspark package's folder): this one's are removed on exit."""
    import chunkwise
    import support

    paths = [os.path.dirname(os.path.dirname(os.path.abspath(m.__file__))) for m in (chunkwise, support)]
    paths += [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    conf = {"spark.executorEnv.PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)), **(conf or {})}
    session = local_spark(app, conf, CLUSTER)
    context = session.sparkContext
    work = Path(context._jvm.System.getenv("SPARK_HOME") or ".", "work")
    app_id = context.applicationId
    try:
        yield session
    finally:
        session.stop()
        shutil.rmtree(work / app_id, ignore_errors=True)
        try:
            work.rmdir()  # only when no other application's logs are left in it
        except OSError:
            pass


def driver_pid(session: Any) -> int:
    """The pid of the JVM that runs ``session``'s driver (and, on :data:`CLUSTER`, its master and workers)."""
    return int(session.sparkContext._jvm.java.lang.ProcessHandle.current().pid())


def local_ray() -> Any:
    """Ray started on 2 CPUs, quiet (no dashboard, no driver logs, no progress bars); the caller shuts it down."""
    import ray
    import ray.data

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    return ray
