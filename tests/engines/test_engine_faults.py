"""Jobs that survive a killed worker: during a chunk job on a local cluster, the test kills worker processes by
their pid (SIGKILL, as the OOM killer or a lost machine would); the engine retries their tasks, and the output
equals the single-machine output exactly: no chunk lost, none twice (the chunk ids are made from the documents, so
a retried batch gives the same rows)."""

from __future__ import annotations

import pytest

from chunkwise import RecursiveChunker

pa = pytest.importorskip("pyarrow")

from chunkwise.arrow import chunk_arrow  # noqa: E402

from support.engine_docs import documents, local_ray, local_spark  # noqa: E402
from support.faults import Killer, ray_task_worker, spark_python_worker  # noqa: E402

DOCS = 6_000
KEEP = ["doc", "source"]
KEY = [("doc", "ascending"), ("index", "ascending")]


@pytest.fixture(scope="module")
def docs():
    return documents(DOCS, longest=3000)


def assert_exactly_once(got, docs, chunker):
    want = chunk_arrow(docs, chunker, keep=KEEP, id_column="doc").drop_columns(["row"]).sort_by(KEY)
    assert got.num_rows == want.num_rows
    assert len(set(got.column("id").to_pylist())) == got.num_rows  # no chunk twice
    got = got.sort_by(KEY)
    for name in want.column_names:
        assert got.column(name).to_pylist() == want.column(name).to_pylist(), name


def test_ray_job_survives_killed_workers(docs):
    pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    from chunkwise.ray import chunk_dataset

    ray = local_ray()
    try:
        chunker = RecursiveChunker(64)
        ds = ray.data.from_arrow([docs.slice(i, 500) for i in range(0, DOCS, 500)])
        out = chunk_dataset(ds, chunker, keep=KEEP, id_column="doc", batch_size=250)
        # Ray Data retries a task whose worker died (its default for tasks: without limit).
        with Killer(ray_task_worker, times=2) as killer:
            got = pa.concat_tables(ray.get(out.to_arrow_refs()))
        assert len(killer.killed) == 2, "the job ended before two workers could be killed"
        assert_exactly_once(got, docs, chunker)
    finally:
        ray.shutdown()


def test_spark_job_survives_killed_python_workers(docs):
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    from chunkwise.spark import chunk_dataframe

    # A session made earlier in this process (a docs example) would be reused with its own master: stop it, so that
    # this one retries failed tasks (local[2, 4]: 2 cores, 4 attempts per task, as a cluster's default).
    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()
    spark = local_spark("chunkwise-faults", {"spark.sql.execution.arrow.maxRecordsPerBatch": "200"}, "local[2, 4]")
    try:
        chunker = RecursiveChunker(64)
        df = spark.createDataFrame(docs).repartition(8)
        out = chunk_dataframe(df, chunker, keep=KEEP, id_column="doc")
        with Killer(spark_python_worker, times=2) as killer:
            got = out.toArrow()
        assert len(killer.killed) == 2, "the job ended before two workers could be killed"
        assert_exactly_once(got, docs, chunker)
    finally:
        spark.stop()
