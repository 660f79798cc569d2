"""Chunking a Ray Data dataset: :func:`chunk_dataset`, one :func:`chunkwise.arrow.chunk_arrow` call per Arrow batch
(``map_batches`` with ``batch_format="pyarrow"``), never a Python call per document. Needs Ray Data:
``pip install "chunkwise[ray]"``."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ._engine import ChunkBatch, columns, engine
from .chunkers import BaseChunker

__all__ = ["chunk_dataset"]


def chunk_dataset(
    ds: Any,
    chunker: BaseChunker,
    *,
    text_column: str = "text",
    keep: Optional[Sequence[str]] = None,
    id_column: Optional[str] = None,
    batch_size: Optional[int] = 1024,
    on_error: str = "raise",
) -> Any:
    """The chunks of the texts of ``text_column`` in the ``ray.data.Dataset`` ``ds``, as a new (lazy) Dataset, one
    row per chunk, with the columns of :func:`chunkwise.arrow.chunk_arrow` but ``row`` (the row in one batch of
    the engine: ``keep`` an id column instead). ``keep``, ``id_column``: as for ``chunk_arrow``. ``batch_size``:
    documents per call, handed to ``map_batches``; each call splits its batch on all the worker's cores.
    ``on_error``: what a bad row (bytes that are not UTF-8) does, as for ``chunk_arrow``: ``"raise"`` fails the
    job naming the row, ``"skip"`` gives it a row with the reason in an ``error`` column.
    """
    ray_data = engine("ray.data", "ray")
    needed = columns(chunker, text_column, keep, id_column, on_error)
    fn = ChunkBatch(chunker, text_column, keep, id_column, on_error)
    return ds.select_columns(needed).map_batches(
        fn, batch_format="pyarrow", batch_size=batch_size, zero_copy_batch=True, **_row_count_changes(ray_data)
    )


def _row_count_changes(ray_data: Any) -> dict:
    """``map_batches``'s flag that says the function changes the number of rows, where this Ray has it: a chunk
    step makes many rows of one, and Ray 2.52 pushed a ``limit`` after such a step to before it (chunking only the
    first n documents: more than n rows, from the wrong documents) unless told."""
    import inspect

    params = inspect.signature(ray_data.Dataset.map_batches).parameters
    return {"udf_modifying_row_count": True} if "udf_modifying_row_count" in params else {}
