"""The engine adapters as workers go from 1 to 2 (this machine's cores): the same chunk job as test_bench_engines.py
(``RecursiveChunker(512)`` over 20,000 documents of 1 to 3,000 characters, one ``chunk_arrow`` call per batch) on
a Ray cluster of ``num_cpus`` workers and a Spark session of ``local[n]``, each started for its count and stopped
after. ``extra_info``: MB/s, workers and the number of chunks; the speed-up is the ratio of the two runs' times.
Daft and Polars run in the calling process on their own thread pools (as many threads as cores), so their scaling is
the kernel's own (``chunk_arrow`` splits a batch on all cores): see benches/README.md. Under --benchmark-disable
300 documents, one round.
"""

from __future__ import annotations

import pytest

from benchlib import corpus_dir

pa = pytest.importorskip("pyarrow")

from chunkwise import RecursiveChunker  # noqa: E402

from support.engine_docs import DATA, FILES, documents  # noqa: E402

SIZE = 512
DOCS = 20_000
SMOKE_DOCS = 300
ROUNDS = 3
WORKERS = (1, 2)


@pytest.fixture(scope="module")
def docs(smoke):
    folder = corpus_dir() if all((corpus_dir() / f).is_file() for f in FILES) else DATA
    texts = [(folder / f).read_text(encoding="utf-8") for f in FILES]
    return documents(SMOKE_DOCS if smoke else DOCS, texts, longest=3000).select(["doc", "text"])


def _nbytes(table) -> int:
    return sum(len(t.encode()) for t in table.column("text").to_pylist() if t)


def _time(benchmark, mbps, docs, smoke, job, workers, count=None):
    """``job`` timed; its result (or ``count()``'s) is the number of chunks."""
    n = job()  # untimed: starts the workers, warms their imports
    n = count() if count is not None else n
    assert n > docs.num_rows // 2
    benchmark.pedantic(job, rounds=1 if smoke else ROUNDS, iterations=1, warmup_rounds=0)
    mbps(benchmark, _nbytes(docs), workers=workers, chunks=n, docs=docs.num_rows)


@pytest.mark.parametrize("workers", WORKERS)
def test_ray_workers(benchmark, mbps, docs, smoke, workers):
    pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    import ray

    from chunkwise.ray import chunk_dataset

    benchmark.group = "engine scaling: ray, RecursiveChunker(512), workers 1 -> 2"
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        ray.data.DataContext.get_current().enable_progress_bars = False
        step = len(docs) // 8 + 1
        ds = ray.data.from_arrow([docs.slice(i, step) for i in range(0, len(docs), step)])
        out = chunk_dataset(ds, RecursiveChunker(SIZE), keep=["doc"])
        _time(benchmark, mbps, docs, smoke, lambda: out.materialize().count(), workers)
    finally:
        ray.shutdown()


@pytest.mark.parametrize("workers", WORKERS)
def test_spark_workers(benchmark, mbps, docs, smoke, workers):
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    from chunkwise.spark import chunk_dataframe
    from support.engine_docs import local_spark

    benchmark.group = "engine scaling: spark, RecursiveChunker(512), workers 1 -> 2"
    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()
    spark = local_spark(f"chunkwise-scaling-{workers}", master=f"local[{workers}]")
    try:
        df = spark.createDataFrame(docs).repartition(4).cache()
        df.count()
        out = chunk_dataframe(df, RecursiveChunker(SIZE), keep=["doc"])

        def job():
            out.write.format("noop").mode("overwrite").save()

        _time(benchmark, mbps, docs, smoke, job, workers, count=out.count)
    finally:
        spark.stop()
