"""The engine adapters (chunkwise.ray, chunkwise.daft, chunkwise.spark, chunkwise.polars), each on a local cluster of
2 workers that the fixtures start once for the module and stop: Ray with 2 worker processes, Daft's native runner
on 2 threads, Polars in-process, Spark's standalone cluster with 2 executor JVMs (the ``spark`` fixture). The
chunks of 10,000 documents equal, row for row and column for column, those of chunkwise.arrow.chunk_arrow run here
on the same table. Each engine is skipped only when it is not installed."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from chunkwise import MarkdownChunker, RecursiveChunker, Tokenizer

pa = pytest.importorskip("pyarrow")

from chunkwise.arrow import chunk_arrow  # noqa: E402

from support.engine_docs import documents, local_ray, spark_cluster  # noqa: E402
from support.tokenizer_assets import tiktoken_encoding, trained  # noqa: E402

DOCS = 10_000
KEEP = ["doc", "source"]
KEY = [("doc", "ascending"), ("index", "ascending")]


def _chunker(kind):
    if kind == "chars":
        return RecursiveChunker(300, 30)
    if kind == "markdown":
        return MarkdownChunker(200)
    if kind == "tiktoken":
        if tiktoken_encoding("cl100k_base") is None:
            pytest.skip("tiktoken ranks unavailable")
        return RecursiveChunker(64, 8, tokenizer=Tokenizer.tiktoken("cl100k_base"))
    return RecursiveChunker(64, 8, tokenizer=Tokenizer.from_str(trained("bytelevel")))


KINDS = ["chars", "tiktoken", "tokenizer.json", "markdown"]


@pytest.fixture(scope="module")
def docs():
    return documents(DOCS, longest=1000)


def assert_same_as_local(got, docs, chunker):
    """``got`` (the engine's chunks as a pyarrow Table) equals chunk_arrow on ``docs``, once both are sorted by
    (document, chunk index): the engines give no order across their batches. Types may differ (Spark widens
    the counts, Daft has large strings), values may not."""
    want = chunk_arrow(docs, chunker, keep=KEEP, id_column="doc").drop_columns(["row"]).sort_by(KEY)
    got = got.sort_by(KEY)
    assert got.column_names == want.column_names
    assert got.num_rows == want.num_rows > DOCS
    for name in want.column_names:
        assert got.column(name).to_pylist() == want.column(name).to_pylist(), name


# --- Ray Data -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_cluster():
    pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    ray = local_ray()
    yield ray
    ray.shutdown()


@pytest.mark.parametrize("kind", KINDS)
def test_ray(ray_cluster, docs, kind):
    from chunkwise.ray import chunk_dataset

    ray, chunker = ray_cluster, _chunker(kind)
    # Four blocks, so that both workers chunk and the batches are not the whole table.
    ds = ray.data.from_arrow([docs.slice(i, DOCS // 4) for i in range(0, DOCS, DOCS // 4)])
    out = chunk_dataset(ds, chunker, keep=KEEP, id_column="doc", batch_size=1000)
    assert_same_as_local(pa.concat_tables(ray.get(out.to_arrow_refs())), docs, chunker)


def test_ray_limit_after_chunking_takes_the_first_chunks(ray_cluster, docs):
    # A limit after the chunk step must stay after it: pushed before it (Ray 2.52 did, for a map_batches not
    # marked as changing the row count), it would chunk n documents and give their chunks, more than n rows.
    from chunkwise.ray import chunk_dataset

    ray, chunker = ray_cluster, _chunker("chars")
    ds = ray.data.from_arrow([docs.slice(i, 250) for i in range(0, 1000, 250)])
    out = chunk_dataset(ds, chunker, keep=KEEP, id_column="doc", batch_size=100)
    # The step is marked as changing the row count (Ray 2.60 assumes so by default; 2.52 to 2.5x did not).
    assert getattr(out._logical_plan.dag, "can_modify_num_rows", True) is True
    want = chunk_arrow(docs.slice(0, 1000), chunker, keep=KEEP, id_column="doc").drop_columns(["row"])
    expected = {tuple(r.values()) for r in want.to_pylist()}
    for n in (1, 7, 500):
        got = pa.concat_tables(ray.get(out.limit(n).to_arrow_refs()))
        assert got.num_rows == n
        assert {tuple(r.values()) for r in got.to_pylist()} <= expected
    assert out.limit(5).count() == 5


# --- Daft -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def daft_runner():
    daft = pytest.importorskip("daft")
    try:
        daft.set_runner_native(num_threads=2)
    except Exception as e:  # noqa: BLE001 - daft raises its own DaftCoreException
        # An earlier test of this process (a docs example) ran Daft, which set up its runner once for the process;
        # the results do not depend on its number of threads.
        if "already set" not in str(e):
            raise
    return daft


@pytest.mark.parametrize("kind", KINDS)
def test_daft(daft_runner, docs, kind):
    from chunkwise.daft import chunk_dataframe

    daft, chunker = daft_runner, _chunker(kind)
    df = daft.from_arrow([docs.slice(i, DOCS // 4) for i in range(0, DOCS, DOCS // 4)])
    out = chunk_dataframe(df, chunker, keep=KEEP, id_column="doc", batch_size=1000)
    assert_same_as_local(out.to_arrow(), docs, chunker)


def test_daft_expression(daft_runner, docs):
    # chunkwise.daft.chunks where an expression goes: a list of chunk structs per document, in the documents' order.
    from chunkwise.daft import chunks

    daft, chunker = daft_runner, _chunker("markdown")
    small = docs.slice(0, 2000)
    df = daft.from_arrow(small).with_column("chunks", chunks(daft.col("text"), chunker, doc_id=daft.col("doc")))
    lists = df.sort("doc").select("chunks").to_arrow().column("chunks").to_pylist()
    want = chunk_arrow(small, chunker, id_column="doc")
    assert [c for row in lists for c in row] == want.drop_columns(["row"]).to_pylist()
    assert [len(row) for row in lists] == [want.column("row").to_pylist().count(i) for i in range(2000)]


# --- Polars ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def polars():
    pl = pytest.importorskip("polars")
    pytest.importorskip("chunkwise.polars")  # registers the namespace

    return pl


@pytest.mark.parametrize("kind", KINDS)
def test_polars(polars, docs, kind):
    pl, chunker = polars, _chunker(kind)
    df = pl.from_arrow(docs)
    want = chunk_arrow(docs, chunker, keep=KEEP, id_column="doc").drop_columns(["row"])
    eager = df.chunkwise.chunk(chunker, keep=KEEP, id_column="doc")
    # Polars keeps the rows' order: equal row for row, without sorting.
    assert eager.columns == want.column_names
    assert eager.to_arrow().to_pylist() == want.to_pylist()
    lazy = df.lazy().chunkwise.chunk(chunker, keep=KEEP, id_column="doc")
    assert isinstance(lazy, pl.LazyFrame)
    assert_same_as_local(lazy.collect(engine="streaming").to_arrow(), docs, chunker)


def test_polars_expression(polars, docs):
    pl, chunker = polars, _chunker("chars")
    small = docs.slice(0, 2000)
    df = pl.from_arrow(small)
    with_ids = df.select(pl.col("text").chunkwise.chunk(chunker, doc_id=pl.col("doc")).alias("c"))["c"].to_list()
    by_name = df.select(pl.col("text").chunkwise.chunk(chunker, doc_id="doc").alias("c"))["c"].to_list()
    plain = df.select(pl.col("text").chunkwise.chunk(chunker).alias("c"))["c"].to_list()
    want = chunk_arrow(small, chunker, id_column="doc")
    rows = want.column("row").to_pylist()
    assert [len(r) for r in with_ids] == [rows.count(i) for i in range(2000)]
    assert [c for r in with_ids for c in r] == want.drop_columns(["row"]).to_pylist()
    assert by_name == with_ids
    # Without document ids, the chunk ids are chunk_arrow's without ids; the rest is the same.
    bare = chunk_arrow(small, chunker).drop_columns(["row"]).to_pylist()
    assert [c for r in plain for c in r] == bare
    # In a with_columns, next to other expressions, and lazily.
    lazy = df.lazy().with_columns(n=pl.col("text").chunkwise.chunk(chunker).list.len()).collect()
    assert lazy["n"].to_list() == [len(r) for r in plain]


def test_polars_refuses_bad_arguments(polars):
    pl = polars
    df = pl.DataFrame({"text": ["a b c"], "doc": [1]})
    with pytest.raises(TypeError, match="chunker must be a chunkwise chunker"):
        df.chunkwise.chunk("not a chunker")
    with pytest.raises(TypeError, match="keep must be a list"):
        df.chunkwise.chunk(RecursiveChunker(10), keep="doc")
    with pytest.raises(Exception, match="text_column 'body' is not a column|body"):
        df.chunkwise.chunk(RecursiveChunker(10), text_column="body")
    numbers = pl.DataFrame({"text": [1, 2]})
    with pytest.raises(Exception, match="string"):
        numbers.chunkwise.chunk(RecursiveChunker(10))


# --- Spark ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spark():
    """Spark's standalone cluster on this machine, started once for this module's Spark tests: 2 executors, each a
    JVM of its own (1 core, 1 GiB) with its own Python workers (support.engine_docs.CLUSTER), so that the chunker,
    the batches and the chunks cross processes as on a real cluster."""
    pytest.importorskip("pyspark")
    conf = {"spark.sql.shuffle.partitions": "4", "spark.sql.execution.arrow.maxRecordsPerBatch": "1000"}
    with spark_cluster("chunkwise-tests", conf) as session:
        yield session


@pytest.mark.parametrize("kind", KINDS)
def test_spark(spark, docs, kind):
    from chunkwise.spark import chunk_dataframe

    chunker = _chunker(kind)
    df = spark.createDataFrame(docs).repartition(4)
    out = chunk_dataframe(df, chunker, keep=KEEP, id_column="doc")
    assert_same_as_local(out.toArrow(), docs, chunker)


@pytest.mark.parametrize("kind", KINDS)
def test_spark_sql_table_function(spark, docs, kind):
    from pyspark.sql import functions as F

    from chunkwise.spark import register

    chunker = _chunker(kind)
    spark.createDataFrame(docs).repartition(4).createOrReplaceTempView("docs")
    udtf = register(spark, chunker, keep="doc bigint, source string", id_column="doc")
    got = spark.sql("SELECT * FROM chunkwise_chunk(TABLE(docs), 'text')").toArrow()
    assert_same_as_local(got, docs, chunker)
    # The same function from the DataFrame API.
    assert_same_as_local(udtf(spark.table("docs").asTable(), F.lit("text")).toArrow(), docs, chunker)


def test_spark_sql_size_and_columns(spark, docs):
    from chunkwise.spark import register

    small = docs.slice(0, 500)
    spark.createDataFrame(small).createOrReplaceTempView("small_docs")
    register(spark, RecursiveChunker(300, 30), name="chunks_of", keep="source string", id_column="doc")
    # A size in SQL: the chunker's other arguments kept; the id column need not be kept.
    got = spark.sql("SELECT * FROM chunks_of(TABLE(small_docs), 'text', 120)").toArrow()
    want = chunk_arrow(small, RecursiveChunker(120, 30), keep=["source"], id_column="doc").drop_columns(["row"])
    assert got.column_names == want.column_names
    assert sorted(got.column("id").to_pylist()) == sorted(want.column("id").to_pylist())
    # SQL around it: counts per document, a join back to the documents.
    counts = spark.sql(
        "SELECT d.doc, count(*) AS n FROM chunks_of(TABLE(small_docs), 'text') c "
        "JOIN small_docs d ON c.source = d.source AND c.text = substring(d.text, c.start + 1, c.end - c.start) "
        "GROUP BY d.doc"
    ).count()
    assert counts > 400


def test_spark_sql_bad_arguments(spark):
    from chunkwise.spark import register

    with pytest.raises(TypeError, match="chunker must be a chunkwise chunker"):
        register(spark, "not a chunker")
    with pytest.raises(ValueError, match="name must be a SQL identifier"):
        register(spark, RecursiveChunker(100), name="drop table; x")
    with pytest.raises(TypeError, match="keep must be a DDL string"):
        register(spark, RecursiveChunker(100), keep=["doc"])
    spark.createDataFrame(pa.table({"body": ["a b c"]})).createOrReplaceTempView("bodies")
    register(spark, RecursiveChunker(100), name="chunk_bodies")
    with pytest.raises(Exception, match="text_column 'text' is not a column of data"):
        spark.sql("SELECT * FROM chunk_bodies(TABLE(bodies), 'text')").collect()
    assert spark.sql("SELECT text FROM chunk_bodies(TABLE(bodies), 'body')").collect()[0]["text"] == "a b c"


def test_spark_schema_is_spark_types(spark):
    from pyspark.sql import types as T

    from chunkwise.spark import chunk_dataframe

    df = spark.createDataFrame(pa.table({"text": pa.array(["# A\n\nb"], pa.string())}))
    schema = chunk_dataframe(df, MarkdownChunker(50)).schema
    assert schema["text"].dataType == T.StringType()
    assert schema["title_path"].dataType == T.ArrayType(T.StringType())
    assert "row" not in schema.names


def test_spark_large_var_types(spark, docs):
    """Where the session sends large strings (and wants them back), the chunks are the same."""
    from chunkwise.spark import chunk_dataframe

    small = docs.slice(0, 300)
    spark.conf.set("spark.sql.execution.arrow.useLargeVarTypes", "true")
    try:
        out = chunk_dataframe(spark.createDataFrame(small), MarkdownChunker(100), keep=KEEP, id_column="doc")
        got = out.toArrow()
    finally:
        spark.conf.unset("spark.sql.execution.arrow.useLargeVarTypes")
    want = chunk_arrow(small, MarkdownChunker(100), keep=KEEP, id_column="doc").drop_columns(["row"])
    assert got.sort_by(KEY).to_pylist() == want.sort_by(KEY).to_pylist()


# --- Bad rows: bytes that are not UTF-8 -----------------------------------------------------------------------


def _bytes_docs(docs):
    """500 documents as UTF-8 bytes, two of them not UTF-8 (doc 7, doc 150)."""
    small = docs.slice(0, 500)
    texts = [None if t is None else t.encode() for t in small.column("text").to_pylist()]
    texts[7] = b"bad \xff bytes"
    texts[150] = "caf\u00e9".encode()[:-1]
    return pa.table({"doc": small.column("doc"), "source": small.column("source"), "text": pa.array(texts, pa.binary())})


def _run_engine(name, table, on_error, request):
    chunker = _chunker("chars")
    if name == "ray":
        from chunkwise.ray import chunk_dataset

        ray = request.getfixturevalue("ray_cluster")
        ds = ray.data.from_arrow([table.slice(0, 250), table.slice(250)])
        out = chunk_dataset(ds, chunker, keep=KEEP, id_column="doc", batch_size=100, on_error=on_error)
        return pa.concat_tables(ray.get(out.to_arrow_refs()))
    if name == "daft":
        from chunkwise.daft import chunk_dataframe

        daft = request.getfixturevalue("daft_runner")
        out = chunk_dataframe(daft.from_arrow(table), chunker, keep=KEEP, id_column="doc", on_error=on_error)
        return out.to_arrow()
    if name == "spark":
        from chunkwise.spark import chunk_dataframe

        spark = request.getfixturevalue("spark")
        out = chunk_dataframe(spark.createDataFrame(table).repartition(2), chunker, keep=KEEP, id_column="doc",
                              on_error=on_error)
        return out.toArrow()
    pl = request.getfixturevalue("polars")
    return pl.from_arrow(table).chunkwise.chunk(chunker, keep=KEEP, id_column="doc", on_error=on_error).to_arrow()


@pytest.mark.parametrize("name", ["ray", "daft", "spark", "polars"])
def test_bad_rows_follow_on_error(name, docs, request):
    table = _bytes_docs(docs)
    # (row: in the engine's batch; the id names the document. Daft and Polars hand the ids over as doc_ids)
    with pytest.raises(Exception, match=r"row \d+ \((id_column 'doc'|doc_ids) '(7|150)'\) of .* is not UTF-8"):
        _run_engine(name, table, "raise", request)
    got = _run_engine(name, table, "skip", request).sort_by(KEY)
    want = chunk_arrow(table, _chunker("chars"), keep=KEEP, id_column="doc", on_error="skip")
    want = want.drop_columns(["row"]).sort_by(KEY)
    assert got.column_names == want.column_names and got.column_names[-1] == "error"
    assert got.to_pylist() == want.to_pylist()
    errors = [(r["doc"], r["error"]) for r in got.to_pylist() if r["error"] is not None]
    assert errors == [(7, "not UTF-8: invalid byte 0xff at byte 4"), (150, "not UTF-8: invalid byte 0xc3 at byte 3")]


# --- Without the engines --------------------------------------------------------------------------------------


def test_chunkers_pickle_cheaply():
    """What each worker receives: the chunker's settings, and a tokenizer as its name (tiktoken) or its JSON."""
    for kind in KINDS:
        chunker = _chunker(kind)
        data = pickle.dumps(chunker)
        # (the tokenizer.json as the core writes it back, within twice the size of the one it read)
        limit = 2_000 + (2 * len(trained("bytelevel")) if kind == "tokenizer.json" else 0)
        assert len(data) < limit, (kind, len(data))
        text = documents(5).column("text")[1].as_py()
        assert pickle.loads(data).chunk(text) == chunker.chunk(text)


ADAPTERS = [("chunkwise.ray", "chunk_dataset", "ray"), ("chunkwise.daft", "chunk_dataframe", "daft"),
            ("chunkwise.spark", "chunk_dataframe", "pyspark")]


def test_import_needs_no_engine():
    """Importing the package and the adapters loads no engine (they are optional extras)."""
    code = (
        "import sys, chunkwise, chunkwise.arrow, chunkwise.ray, chunkwise.daft, chunkwise.spark\n"
        "print([m for m in ('ray', 'daft', 'pyspark') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("module, function, engine", ADAPTERS)
def test_missing_engine_says_what_to_install(monkeypatch, module, function, engine):
    import importlib

    for name in list(sys.modules):
        if name == engine or name.startswith(engine + "."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, engine, None)  # import fails as if not installed
    adapter = getattr(importlib.import_module(module), function)
    extra = module.split(".")[1]
    with pytest.raises(ImportError, match=rf'pip install "chunkwise\[{extra}\]"'):
        adapter(object(), RecursiveChunker(100))


def test_chunkwise_polars_without_polars_says_what_to_install(monkeypatch):
    import importlib

    for name in list(sys.modules):
        if name in ("polars", "chunkwise.polars") or name.startswith("polars."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(ImportError, match=r'pip install "chunkwise\[polars\]"'):
        importlib.import_module("chunkwise.polars")


@pytest.mark.parametrize("module, function, engine", ADAPTERS)
def test_arguments_are_checked_before_the_job(module, function, engine):
    pytest.importorskip(engine)
    import importlib

    adapter = getattr(importlib.import_module(module), function)
    with pytest.raises(TypeError, match="chunker must be a chunkwise chunker"):
        adapter(object(), "not a chunker")
    with pytest.raises(TypeError, match="keep must be a list"):
        adapter(object(), RecursiveChunker(100), keep="doc")
