"""The engine adapters against the per-row LangChain UDF that each engine's own docs show, in the same run, on the
same documents and the same local cluster (2 workers): ``RecursiveChunker(512)`` through chunkwise.ray /
chunkwise.daft / chunkwise.spark / chunkwise.polars (one chunk_arrow call per batch) vs ``RecursiveCharacterTextSplitter(
chunk_size=512, chunk_overlap=0).split_text`` called once per document:

* Ray Data: ``ds.flat_map`` of a row to its chunks;
* Daft: a row-wise ``@daft.func`` returning a list of strings, then ``explode``;
* Spark: a Python ``udf`` returning ``array<string>``, then ``explode``;
* Spark SQL: ``SELECT * FROM chunkwise_chunk(TABLE(docs), 'text')`` (``chunkwise.spark.register``) against ``SELECT *
  FROM langchain_split(TABLE(docs))``, a Python ``@udtf`` whose ``eval`` gets a row and yields its chunks, and
  against ``SELECT doc, explode(langchain_split_text(text))``, a Python UDF registered with ``spark.udf.register``;
* Polars (in-process, its own thread pool): ``map_elements`` returning a list of strings, then ``explode``, against
  ``chunkwise.polars``'s ``df.chunkwise.chunk``.

The documents: 20,000 windows of 1 to 3,000 characters (tests/support/engine_docs.py) cut from the corpus files
(../shared/corpus, else tests/data). Each round runs the whole job, from the engine's in-memory dataset to the
chunks materialised (Ray ``materialize``, Daft ``collect``, Spark the ``noop`` writer); the engines start once, outside
the timing. Both sides are checked to give chunks before timing. ``extra_info``: MB/s and the number of chunks.
Under --benchmark-disable 300 documents, one round.
"""

from __future__ import annotations

import pytest

from benchlib import corpus_dir

pa = pytest.importorskip("pyarrow")
lc = pytest.importorskip("langchain_text_splitters")

from chunkwise import RecursiveChunker  # noqa: E402

from support.engine_docs import DATA, FILES, documents, local_ray, local_spark  # noqa: E402

SIZE = 512
DOCS = 20_000
SMOKE_DOCS = 300
ROUNDS = 3
IMPLS = ("chunkwise", "langchain")


@pytest.fixture(scope="module")
def docs(smoke):
    folder = corpus_dir() if all((corpus_dir() / f).is_file() for f in FILES) else DATA
    texts = [(folder / f).read_text(encoding="utf-8") for f in FILES]
    table = documents(SMOKE_DOCS if smoke else DOCS, texts, longest=3000)
    return table.select(["doc", "text"])


def _nbytes(table) -> int:
    return sum(len(t.encode()) for t in table.column("text").to_pylist() if t)


def _splitter():
    return lc.RecursiveCharacterTextSplitter(chunk_size=SIZE, chunk_overlap=0)


def _run(benchmark, mbps, docs, smoke, job, impl, count=None):
    """``job`` timed; its result (or ``count()``'s) is the number of chunks."""
    n = job()  # untimed: warms the workers (imports, pickled functions)
    n = count() if count is not None else n
    assert n > docs.num_rows // 2
    benchmark.pedantic(job, rounds=1 if smoke else ROUNDS, iterations=1, warmup_rounds=0)
    mbps(benchmark, _nbytes(docs), impl=impl, chunks=n, docs=docs.num_rows)


# --- Ray Data -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray():
    pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    ray = local_ray()
    yield ray
    ray.shutdown()


@pytest.mark.parametrize("impl", IMPLS)
def test_ray(benchmark, mbps, ray, docs, smoke, impl):
    from chunkwise.ray import chunk_dataset

    benchmark.group = "engines: ray, RecursiveChunker(512) vs per-row LangChain"
    blocks = [docs.slice(i, len(docs) // 8 + 1) for i in range(0, len(docs), len(docs) // 8 + 1)]
    ds = ray.data.from_arrow(blocks)
    if impl == "chunkwise":
        out = chunk_dataset(ds, RecursiveChunker(SIZE), keep=["doc"])
    else:
        splitter = _splitter()

        def split(row):
            return [{"doc": row["doc"], "text": t} for t in splitter.split_text(row["text"] or "")]

        out = ds.flat_map(split)
    _run(benchmark, mbps, docs, smoke, lambda: out.materialize().count(), impl)


# --- Daft -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def daft():
    daft = pytest.importorskip("daft")
    daft.set_runner_native(num_threads=2)
    return daft


@pytest.mark.parametrize("impl", IMPLS)
def test_daft(benchmark, mbps, daft, docs, smoke, impl):
    from chunkwise.daft import chunk_dataframe

    benchmark.group = "engines: daft, RecursiveChunker(512) vs per-row LangChain"
    splitter = _splitter()

    @daft.func(return_dtype=daft.DataType.list(daft.DataType.string()))
    def split(text: str):
        return splitter.split_text(text or "")

    def job():
        # A new DataFrame each round: a collected one keeps its result.
        df = daft.from_arrow(docs)
        if impl == "chunkwise":
            out = chunk_dataframe(df, RecursiveChunker(SIZE), keep=["doc"])
        else:
            out = df.select("doc", split(df["text"]).alias("text")).explode("text", ignore_empty_and_null=True)
        return len(out.collect())

    _run(benchmark, mbps, docs, smoke, job, impl)


# --- Spark ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    session = local_spark("chunkwise-bench")
    yield session
    session.stop()


@pytest.mark.parametrize("impl", IMPLS)
def test_spark(benchmark, mbps, spark, docs, smoke, impl):
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from chunkwise.spark import chunk_dataframe

    benchmark.group = "engines: spark, RecursiveChunker(512) vs per-row LangChain"
    df = spark.createDataFrame(docs).repartition(2).cache()
    df.count()
    if impl == "chunkwise":
        out = chunk_dataframe(df, RecursiveChunker(SIZE), keep=["doc"])
    else:
        splitter = _splitter()
        split = F.udf(lambda text: splitter.split_text(text or ""), T.ArrayType(T.StringType()))
        out = df.select("doc", F.explode(split("text")).alias("text"))

    def job():
        out.write.format("noop").mode("overwrite").save()

    _run(benchmark, mbps, docs, smoke, job, impl, count=out.count)


@pytest.mark.parametrize("impl", ("chunkwise", "langchain_udtf", "langchain_udf"))
def test_spark_sql(benchmark, mbps, spark, docs, smoke, impl):
    """From SQL: chunkwise's table function (chunkwise.spark.register, an Arrow UDTF: one chunk_arrow call per
    batch) against LangChain per row, in a Python UDTF taking the documents' table as its TABLE argument, and in a
    Python UDF registered for SQL, then ``explode``."""
    from pyspark.sql import functions as F

    from chunkwise.spark import register

    if not hasattr(F, "arrow_udtf"):
        pytest.skip("chunkwise.spark.register needs PySpark 4.1 or later")
    benchmark.group = "engines: spark sql, RecursiveChunker(512) vs per-row LangChain"
    df = spark.createDataFrame(docs).repartition(2).cache()
    df.count()
    df.createOrReplaceTempView("bench_docs")
    splitter = _splitter()
    if impl == "chunkwise":
        register(spark, RecursiveChunker(SIZE), name="chunkwise_chunk", keep="doc bigint")
        out = spark.sql("SELECT * FROM chunkwise_chunk(TABLE(bench_docs), 'text')")
    elif impl == "langchain_udtf":
        @F.udtf(returnType="doc bigint, text string")
        class LangChainSplit:
            def eval(self, row):
                for text in splitter.split_text(row["text"] or ""):
                    yield row["doc"], text

        spark.udtf.register("langchain_split", LangChainSplit)
        out = spark.sql("SELECT * FROM langchain_split(TABLE(bench_docs))")
    else:
        spark.udf.register("langchain_split_text", lambda text: splitter.split_text(text or ""), "array<string>")
        out = spark.sql("SELECT doc, explode(langchain_split_text(text)) AS text FROM bench_docs")

    def job():
        out.write.format("noop").mode("overwrite").save()

    _run(benchmark, mbps, docs, smoke, job, impl, count=out.count)


# --- Polars ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("impl", IMPLS)
def test_polars(benchmark, mbps, docs, smoke, impl):
    pl = pytest.importorskip("polars")
    pytest.importorskip("chunkwise.polars")  # registers the namespace

    benchmark.group = "engines: polars, RecursiveChunker(512) vs per-row LangChain"
    df = pl.from_arrow(docs)
    if impl == "chunkwise":
        out = df.lazy().chunkwise.chunk(RecursiveChunker(SIZE), keep=["doc"])
    else:
        splitter = _splitter()
        split = pl.col("text").map_elements(
            lambda text: splitter.split_text(text), return_dtype=pl.List(pl.String), skip_nulls=True
        )
        out = df.lazy().select("doc", split).explode("text").drop_nulls("text")

    _run(benchmark, mbps, docs, smoke, lambda: out.collect().height, impl)
