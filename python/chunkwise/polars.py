"""Chunking in Polars: importing this module registers a ``chunkwise`` namespace on expressions, DataFrames and
LazyFrames. Each runs :func:`chunkwise.arrow.chunk_arrow` on a whole batch of the text column (``map_batches``),
never a Python call per document. Needs Polars and pyarrow: ``pip install "chunkwise[polars]"``.

::

    import polars as pl
    import chunkwise.polars  # noqa: F401 (registers the namespace)

    # each document's chunks, a list of structs per row
    df.with_columns(chunks=pl.col("text").chunkwise.chunk(RecursiveChunker(512), doc_id=pl.col("id")))
    # one row per chunk, the kept columns first (lazily too: lf.chunkwise.chunk(...))
    df.chunkwise.chunk(RecursiveChunker(512), keep=["id"], id_column="id")
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ._engine import ChunkLists, columns, engine
from .chunkers import BaseChunker, _one_strategy

__all__ = ["ChunkwiseExpr", "ChunkwiseFrame"]

pl = engine("polars", "polars")
engine("pyarrow", "polars")


@pl.api.register_expr_namespace("chunkwise")
class ChunkwiseExpr:
    """``expr.chunkwise``: chunking a column of strings."""

    def __init__(self, expr: Any) -> None:
        self._expr = expr

    def chunk(self, chunker: BaseChunker, *, doc_id: Union[str, Any, None] = None, on_error: str = "raise") -> Any:
        """Each document's chunks as a list of structs (an empty list for an empty or null text), whose fields
        are the columns of :func:`chunkwise.arrow.chunk_arrow` but ``row``. ``doc_id``: an expression (or a
        column name) of the documents' ids, strings or integers, from which the chunk ids are made as
        ``chunk_arrow``'s ``id_column`` makes them. Elementwise: Polars may run it on any batch of rows, in the
        streaming engine too. ``on_error``: as for ``chunk_arrow`` (a column of bytes that are not UTF-8)."""
        lists = _lists(chunker, doc_id is not None, on_error)
        dtype = _dtype(lists)
        if doc_id is None:
            return self._expr.map_batches(_OfTexts(lists), return_dtype=dtype, is_elementwise=True)
        ids = pl.col(doc_id) if isinstance(doc_id, str) else doc_id
        both = pl.struct(self._expr.alias("text"), ids.alias("id"))
        return both.map_batches(_OfTextsAndIds(lists), return_dtype=dtype, is_elementwise=True)


class ChunkwiseFrame:
    """``df.chunkwise`` and ``lf.chunkwise``: one row per chunk."""

    def __init__(self, frame: Any) -> None:
        self._frame = frame

    def chunk(
        self,
        chunker: BaseChunker,
        *,
        text_column: str = "text",
        keep: Optional[Sequence[str]] = None,
        id_column: Optional[str] = None,
        on_error: str = "raise",
    ) -> Any:
        """The chunks of the texts of ``text_column``, one row per chunk (a DataFrame for a DataFrame, a LazyFrame
        for a LazyFrame): the ``keep`` columns, then the columns of :func:`chunkwise.arrow.chunk_arrow` but
        ``row`` (``keep`` an id column instead). ``id_column``, ``on_error``: as for ``chunk_arrow``."""
        columns(chunker, text_column, keep, id_column, on_error)
        kept = [pl.col(k) for k in keep or ()]
        chunks = pl.col(text_column).chunkwise.chunk(chunker, doc_id=id_column, on_error=on_error).alias("__chunkwise_chunks")
        return (
            self._frame.select(*kept, chunks)
            .filter(pl.col("__chunkwise_chunks").list.len() > 0)
            .explode("__chunkwise_chunks")
            .unnest("__chunkwise_chunks")
        )


pl.api.register_dataframe_namespace("chunkwise")(ChunkwiseFrame)
pl.api.register_lazyframe_namespace("chunkwise")(ChunkwiseFrame)


def _lists(chunker: BaseChunker, with_ids: bool, on_error: str) -> ChunkLists:
    _one_strategy(chunker)
    if getattr(chunker, "_embeds", False):
        raise TypeError("chunkwise.polars does not take a SemanticChunker (its units are embedded in Python)")
    return ChunkLists(chunker, with_ids, on_error)


def _dtype(lists: ChunkLists) -> Any:
    """The Polars type of the lists of chunks."""
    pa = engine("pyarrow", "polars")
    return pl.from_arrow(pa.array([], pa.large_list(lists.struct))).dtype


class _OfTexts:
    """``map_batches``' function: a Series of texts in, a Series of lists of chunks out."""

    def __init__(self, lists: ChunkLists) -> None:
        self.lists = lists

    def __call__(self, texts: Any) -> Any:
        return pl.from_arrow(self.lists(_arrow(texts)))


class _OfTextsAndIds(_OfTexts):
    """The same, from a Series of ``{text, id}`` structs."""

    def __call__(self, both: Any) -> Any:
        fields = both.struct.unnest()
        return pl.from_arrow(self.lists(_arrow(fields["text"]), fields["id"].to_arrow()))


def _arrow(texts: Any) -> Any:
    """A Series of texts as Arrow without a copy: ``string_view``, Polars' own layout (``to_arrow()`` copies the
    texts into a ``large_string`` array)."""
    return texts.to_arrow(compat_level=pl.CompatLevel.newest())
