"""Chunking in Spark: :func:`chunk_dataframe` (``mapInArrow``) and :func:`register`, a table function for Spark SQL
(an Arrow UDTF); both make one :func:`chunkwise.arrow.chunk_arrow` call per Arrow batch, never a Python call per
document. Needs PySpark 4 (4.1 for :func:`register`) and Java 17+: ``pip install "chunkwise[spark]"``."""

from __future__ import annotations

from typing import Any, Dict, Iterator, Optional, Sequence

from ._engine import ChunkBatch, columns, engine
from .chunkers import BaseChunker, _one_strategy

__all__ = ["chunk_dataframe", "register"]


def chunk_dataframe(
    df: Any,
    chunker: BaseChunker,
    *,
    text_column: str = "text",
    keep: Optional[Sequence[str]] = None,
    id_column: Optional[str] = None,
    on_error: str = "raise",
) -> Any:
    """The chunks of the texts of ``text_column`` in the ``pyspark.sql.DataFrame`` ``df``, as a new (lazy)
    DataFrame, one row per chunk, with the columns of :func:`chunkwise.arrow.chunk_arrow` but ``row`` (the row in
    one Arrow batch: ``keep`` an id column instead). ``keep``, ``id_column``, ``on_error``: as for ``chunk_arrow``
    (``"skip"``: a bad row's reason in an ``error`` column, instead of a failed job).

    The output's schema is the kernel's, in Spark's types (text as ``string``, ``title_path`` as
    ``array<string>``, counts as ``int``/``bigint``); Spark's batch size is ``spark.sql.execution.arrow.
    maxRecordsPerBatch``.
    """
    engine("pyspark.sql", "spark")
    pa = engine("pyarrow", "spark")
    types = engine("pyspark.sql.pandas.types", "spark")
    needed = columns(chunker, text_column, keep, id_column, on_error)
    df = df.select(*needed)
    # The output schema from the kernel itself, run on no rows of the input's Arrow schema: the columns depend on
    # the chunker only, so every batch will have these, in Arrow types that may be wider than Spark's (a large
    # string when Spark sends large strings, unsigned counts), which each batch is cast to.
    fn = ChunkBatch(chunker, text_column, keep, id_column, on_error)
    empty = types.to_arrow_schema(df.schema).empty_table()
    schema = types.from_arrow_schema(_spark_types(pa, fn(empty).schema))
    # The Arrow types Spark reads back: large strings and lists where the session says so.
    large = df.sparkSession.conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false").lower() == "true"
    target = types.to_arrow_schema(schema, prefers_large_types=large)
    return df.mapInArrow(_CastBatches(fn, target), schema)


def _spark_types(pa: Any, schema: Any) -> Any:
    """``schema`` with the types Spark reads: unsigned integers widened to signed (uint32 to int64), large strings
    to strings (Spark's string holds up to 2 GiB per value)."""
    def convert(t: Any) -> Any:
        if pa.types.is_large_string(t) or (hasattr(pa.types, "is_string_view") and pa.types.is_string_view(t)):
            return pa.string()
        if pa.types.is_unsigned_integer(t):
            return pa.int64() if t.bit_width >= 32 else pa.int32()
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return pa.list_(convert(t.value_type))
        return t

    return pa.schema([pa.field(f.name, convert(f.type), f.nullable) for f in schema])


class _CastBatches:
    """The function ``mapInArrow`` runs on each partition: the chunks of each batch, cast to the output schema."""

    __slots__ = ("fn", "target")

    def __init__(self, fn: ChunkBatch, target: Any) -> None:
        self.fn = fn
        self.target = target

    def __getstate__(self) -> Any:
        return (self.fn, self.target)

    def __setstate__(self, state: Any) -> None:
        self.fn, self.target = state

    def __call__(self, batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            yield from self.fn(batch).cast(self.target).to_batches()


def register(
    spark: Any,
    chunker: BaseChunker,
    *,
    name: str = "chunkwise_chunk",
    keep: Optional[str] = None,
    id_column: Optional[str] = None,
) -> Any:
    """Registers a table function ``name`` on the session ``spark``, for SQL and for DataFrames::

        SELECT * FROM chunkwise_chunk(TABLE(docs), 'text')        -- the chunker's own size
        SELECT * FROM chunkwise_chunk(TABLE(docs), 'text', 512)   -- the same chunker at another size

    and returns it (``udtf(spark.table("docs").asTable(), lit("text"))`` works as well). Each call reads one Arrow
    batch of the table and returns its chunks: the ``keep`` columns, then the columns of
    :func:`chunkwise.arrow.chunk_arrow` but ``row``, in Spark's types (as :func:`chunk_dataframe`).

    ``keep``: the document columns to keep on each chunk, with their types, in Spark's DDL (``"doc bigint, url
    string"``): a table function's output is typed when it is registered, before any table is seen.
    ``id_column``: the column of the documents' ids, as for ``chunk_arrow`` (it need not be kept). A size given in
    SQL makes a chunker like ``chunker`` with that ``size`` (its other arguments kept). Needs PySpark 4.1 or later
    (``arrow_udtf``).
    """
    functions = engine("pyspark.sql.functions", "spark")
    sql_types = engine("pyspark.sql.types", "spark")
    pa = engine("pyarrow", "spark")
    types = engine("pyspark.sql.pandas.types", "spark")
    if not hasattr(functions, "arrow_udtf"):
        raise ImportError('chunkwise.spark.register needs PySpark 4.1 or later (arrow_udtf): pip install -U "chunkwise[spark]"')
    _one_strategy(chunker)
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a SQL identifier, got {name!r}")
    if keep is not None and not isinstance(keep, str):
        raise TypeError(f"keep must be a DDL string of columns and types (\"doc bigint, url string\"), got {keep!r}")
    kept = sql_types.StructType.fromDDL(keep) if keep else sql_types.StructType([])
    keep_names = [f.name for f in kept.fields]
    columns(chunker, "text", keep_names, id_column)
    # The output schema from the kernel, run on no rows: the kept columns in their declared types, a string text.
    empty = {f.name: pa.array([], t) for f, t in zip(kept.fields, types.to_arrow_schema(kept).types)}
    empty["text"] = pa.array([], pa.string())
    if id_column is not None and id_column not in empty:
        empty["id_of_doc"] = pa.array([], pa.string())
    probe = ChunkBatch(chunker, "text", keep_names, None if id_column is None else (
        id_column if id_column in keep_names else "id_of_doc"))
    schema = types.from_arrow_schema(_spark_types(pa, probe(pa.table(empty)).schema))
    target = types.to_arrow_schema(schema)
    handler = type(name, (_TableFunction,), {"chunker": chunker, "keep": keep_names, "id_column": id_column,
                                             "target": target})
    udtf = functions.arrow_udtf(handler, returnType=schema)
    spark.udtf.register(name, udtf)
    return udtf


class _TableFunction:
    """The Arrow UDTF's handler (made a class of its own per registration, its settings as class attributes):
    ``eval`` gets each batch of the TABLE argument, and the text column's name and the size as one-value arrays."""

    chunker: BaseChunker
    keep: list
    id_column: Optional[str]
    target: Any

    def __init__(self) -> None:
        self._sized: Dict[int, BaseChunker] = {}

    def eval(self, batch: Any, text_column: Any = None, size: Any = None) -> Iterator[Any]:
        from .arrow import chunk_arrow

        column = "text" if text_column is None else text_column[0].as_py()
        chunker = self.chunker if size is None else self._at(size[0].as_py())
        out = chunk_arrow(batch, chunker, text_column=column, keep=self.keep or None, id_column=self.id_column)
        yield out.drop_columns(["row"]).cast(self.target)

    def _at(self, size: Any) -> BaseChunker:
        if size not in self._sized:
            config = self.chunker.config
            config["size"] = size
            self._sized[size] = type(self.chunker)(**config)
        return self._sized[size]
