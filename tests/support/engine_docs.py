"""Documents for the engine adapters' tests and benchmarks: ``n`` windows of varied length cut from a few texts (the
corpus in tests/data by default, so a fresh clone has them), with ids, a kept column, and some empty and null texts.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Optional, Sequence

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
    attempts)."""
    needs_java()
    from pyspark.sql import SparkSession

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


def local_ray() -> Any:
    """Ray started on 2 CPUs, quiet (no dashboard, no driver logs, no progress bars); the caller shuts it down."""
    import ray
    import ray.data

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    return ray
