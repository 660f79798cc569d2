"""Jobs that survive a killed worker: during a chunk job on a local cluster (Ray with 2 worker processes; Spark's
standalone cluster with 2 executor JVMs), the test kills worker processes by their pid (a Ray task's worker, a Spark
executor: SIGKILL, as the OOM killer or a lost machine would); the engine retries their tasks, and the output
equals the single-machine output exactly: no chunk lost, none twice (the chunk ids are made from the documents, so
a retried batch gives the same rows)."""

from __future__ import annotations

import pytest

from chunkwise import RecursiveChunker

pa = pytest.importorskip("pyarrow")

from chunkwise.arrow import chunk_arrow  # noqa: E402

from support.engine_docs import documents, driver_pid, local_ray, spark_cluster  # noqa: E402
from support.faults import Killer, ray_task_worker, spark_executor, spark_python_worker  # noqa: E402

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


@pytest.fixture(scope="module")
def spark():
    """Spark's standalone cluster on this machine, started once for this module: 2 executors, each a JVM of its own
    (1 core, 1 GiB) with its own Python workers (support.engine_docs.CLUSTER); a failed task is tried up to 4
    times, as on any cluster."""
    pytest.importorskip("pyspark")
    with spark_cluster("chunkwise-faults", {"spark.sql.execution.arrow.maxRecordsPerBatch": "200"}) as session:
        yield session


def test_spark_job_survives_a_killed_executor(spark, docs):
    """An executor JVM killed while its Python worker chunks a batch: its tasks, and the shuffle output it held,
    are run again on the other executor (and on the one the master starts in its place)."""
    from chunkwise.spark import chunk_dataframe

    chunker = RecursiveChunker(64)
    df = spark.createDataFrame(docs).repartition(8)
    out = chunk_dataframe(df, chunker, keep=KEEP, id_column="doc")
    driver = driver_pid(spark)
    context = spark.sparkContext
    context.setJobGroup("chunkwise-faults", "the chunk job with a killed executor")
    with Killer(spark_python_worker, after=0.5, target=lambda pid: spark_executor(driver, pid)) as killer:
        got = out.toArrow()
    assert len(killer.killed) == 1, "the job ended before an executor could be killed"
    # Spark saw it: a task failed, or a stage was run again (its shuffle output lost with the executor).
    stages = [context.statusTracker().getStageInfo(s) for j in context.statusTracker().getJobIdsForGroup(
        "chunkwise-faults") for s in context.statusTracker().getJobInfo(j).stageIds]
    assert any(s.numFailedTasks > 0 or s.currentAttemptId > 0 for s in stages if s is not None), stages
    assert_exactly_once(got, docs, chunker)
