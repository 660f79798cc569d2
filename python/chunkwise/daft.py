"""Chunking a Daft DataFrame: :func:`chunk_dataframe`, a batch UDF (``daft.func.batch``) that runs
:func:`chunkwise.arrow.chunk_arrow` on each batch of the text column and returns each document's chunks as a list
of structs, then ``explode`` and ``unnest``: never a Python call per document. Needs Daft:
``pip install "chunkwise[daft]"``."""

from __future__ import annotations

from typing import Any, Optional, Sequence

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
    batch_size: Optional[int] = None,
) -> Any:
    """The chunks of the texts of ``text_column`` in the ``daft.DataFrame`` ``df``, as a new (lazy) DataFrame, one
    row per chunk: the ``keep`` columns, then the columns of :func:`chunkwise.arrow.chunk_arrow` but ``row`` (the
    row in one batch: ``keep`` an id column instead). ``id_column``: as for ``chunk_arrow``. ``batch_size``: the
    most documents per UDF call (Daft chooses when None).
    """
    daft = engine("daft", "daft")
    pa = engine("pyarrow", "daft")
    columns(chunker, text_column, keep, id_column)
    schema = df.schema()
    # The struct of one chunk from the kernel itself, run on no rows of the input's types: the columns depend on
    # the chunker only, so every batch gives these.
    fn = ChunkBatch(chunker, "text", None, None if id_column is None else "id")
    empty = {"text": pa.array([], schema[text_column].dtype.to_arrow_dtype())}
    if id_column is not None:
        empty["id"] = pa.array([], schema[id_column].dtype.to_arrow_dtype())
    struct = pa.struct(list(fn(pa.table(empty)).schema))
    lists = _ChunkLists(fn, struct)
    dtype = daft.DataType.from_arrow_type(pa.large_list(struct))
    udf = daft.func.batch(return_dtype=dtype, batch_size=batch_size)(lists.__call__)
    args = [daft.col(text_column)] + ([] if id_column is None else [daft.col(id_column)])
    kept = [daft.col(k) for k in keep or ()]
    return (
        df.select(*kept, udf(*args).alias("chunks"))
        .explode("chunks", ignore_empty_and_null=True)
        .select(*kept, daft.col("chunks").unnest())
    )


class _ChunkLists:
    """The batch UDF: a batch of texts (and ids) in, each document's chunks out as a list of structs."""

    def __init__(self, fn: ChunkBatch, struct: Any) -> None:
        self.fn = fn
        self.struct = struct

    def __call__(self, texts: Any, ids: Any = None) -> Any:
        import numpy as np

        pa = engine("pyarrow", "daft")
        batch = {"text": texts.to_arrow()}
        if ids is not None:
            batch["id"] = ids.to_arrow()
        out = self.fn.chunks(pa.table(batch))
        rows = out.column("row").to_numpy()
        offsets = np.zeros(len(texts) + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=len(texts)), out=offsets[1:])
        chunks = pa.StructArray.from_arrays(
            [c.combine_chunks() for c in out.drop_columns(["row"]).columns], fields=list(self.struct)
        )
        return pa.LargeListArray.from_arrays(pa.array(offsets), chunks)
