"""Chunking a Daft DataFrame: :func:`chunks`, an expression (a batch UDF, ``daft.func.batch``, that runs
:func:`chunkwise.arrow.chunk_arrow` on each batch of the text column and returns each document's chunks as a list
of structs), and :func:`chunk_dataframe`, one row per chunk (``explode`` and ``unnest``): never a Python call per
document. Needs Daft:
``pip install "chunkwise[daft]"``."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ._engine import ChunkLists, columns, engine
from .chunkers import BaseChunker, _one_strategy

__all__ = ["chunk_dataframe", "chunks"]


def chunk_dataframe(
    df: Any,
    chunker: BaseChunker,
    *,
    text_column: str = "text",
    keep: Optional[Sequence[str]] = None,
    id_column: Optional[str] = None,
    batch_size: Optional[int] = None,
    on_error: str = "raise",
) -> Any:
    """The chunks of the texts of ``text_column`` in the ``daft.DataFrame`` ``df``, as a new (lazy) DataFrame, one
    row per chunk: the ``keep`` columns, then the columns of :func:`chunkwise.arrow.chunk_arrow` but ``row`` (the
    row in one batch: ``keep`` an id column instead). ``id_column``: as for ``chunk_arrow``. ``batch_size``: the
    most documents per UDF call (Daft chooses when None). ``on_error``: as for ``chunk_arrow`` (``"skip"``: a bad
    row's reason in an ``error`` column).
    """
    daft = engine("daft", "daft")
    columns(chunker, text_column, keep, id_column, on_error)
    ids = None if id_column is None else daft.col(id_column)
    kept = [daft.col(k) for k in keep or ()]
    return (
        df.select(*kept, chunks(daft.col(text_column), chunker, doc_id=ids, batch_size=batch_size, on_error=on_error).alias("chunks"))
        .explode("chunks", ignore_empty_and_null=True)
        .select(*kept, daft.col("chunks").unnest())
    )


def chunks(
    text: Any, chunker: BaseChunker, *, doc_id: Any = None, batch_size: Optional[int] = None, on_error: str = "raise"
) -> Any:
    """A Daft expression: each document's chunks as a list of structs, from the expression ``text`` (strings) and,
    if given, ``doc_id`` (an expression of the document ids, strings or integers, as ``id_column`` of
    :func:`chunkwise.arrow.chunk_arrow`). The struct's fields are the columns of ``chunk_arrow`` but ``row``. A
    batch function over the kernel: ``batch_size`` documents at most per call (Daft chooses when None), never a
    Python call per document. Use it where an expression goes::

        df.with_column("chunks", chunkwise.daft.chunks(daft.col("text"), RecursiveChunker(512)))
    """
    daft = engine("daft", "daft")
    pa = engine("pyarrow", "daft")
    _one_strategy(chunker)
    lists = ChunkLists(chunker, doc_id is not None, on_error)
    dtype = daft.DataType.from_arrow_type(pa.large_list(lists.struct))
    udf = daft.func.batch(return_dtype=dtype, batch_size=batch_size)(_DaftLists(lists).__call__)
    return udf(text) if doc_id is None else udf(text, doc_id)


class _DaftLists:
    """The batch UDF: Daft Series in, :class:`ChunkLists` on their Arrow arrays."""

    def __init__(self, lists: ChunkLists) -> None:
        self.lists = lists

    def __call__(self, texts: Any, ids: Any = None) -> Any:
        return self.lists(texts.to_arrow(), None if ids is None else ids.to_arrow())
