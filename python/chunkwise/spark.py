"""Chunking a Spark DataFrame: :func:`chunk_dataframe`, one :func:`chunkwise.arrow.chunk_arrow` call per Arrow batch
(``mapInArrow``), never a Python call per document. Needs PySpark 4 (and Java 17+):
``pip install "chunkwise[spark]"``."""

from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence

from ._engine import ChunkBatch, columns, engine
from .chunkers import BaseChunker

__all__ = ["chunk_dataframe"]


def chunk_dataframe(
    df: Any,
    chunker: BaseChunker,
    *,
    text_column: str = "text",
    keep: Optional[Sequence[str]] = None,
    id_column: Optional[str] = None,
) -> Any:
    """The chunks of the texts of ``text_column`` in the ``pyspark.sql.DataFrame`` ``df``, as a new (lazy)
    DataFrame, one row per chunk, with the columns of :func:`chunkwise.arrow.chunk_arrow` but ``row`` (the row in
    one Arrow batch: ``keep`` an id column instead). ``keep``, ``id_column``: as for ``chunk_arrow``.

    The output's schema is the kernel's, in Spark's types (text as ``string``, ``title_path`` as
    ``array<string>``, counts as ``int``/``bigint``); Spark's batch size is ``spark.sql.execution.arrow.
    maxRecordsPerBatch``.
    """
    engine("pyspark.sql", "spark")
    pa = engine("pyarrow", "spark")
    types = engine("pyspark.sql.pandas.types", "spark")
    needed = columns(chunker, text_column, keep, id_column)
    df = df.select(*needed)
    # The output schema from the kernel itself, run on no rows of the input's Arrow schema: the columns depend on
    # the chunker only, so every batch will have these, in Arrow types that may be wider than Spark's (a large
    # string when Spark sends large strings, unsigned counts), which each batch is cast to.
    fn = ChunkBatch(chunker, text_column, keep, id_column)
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
