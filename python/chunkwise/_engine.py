"""What the engine adapters (chunkwise.ray, chunkwise.daft, chunkwise.spark) share: importing the engine with a
message that says what to install, checking the arguments once on the driver, and the batch function the workers
run, which is :func:`chunkwise.arrow.chunk_arrow` on one Arrow batch of the engine."""

from __future__ import annotations

import importlib
from typing import Any, List, Optional, Sequence

from .chunkers import BaseChunker, _one_strategy


def engine(module: str, extra: str) -> Any:
    """``module`` imported, or an ImportError that says which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(
            f'chunkwise.{extra} needs {module.split(".")[0]}: pip install "chunkwise[{extra}]"'
        ) from None


def columns(
    chunker: BaseChunker,
    text_column: str,
    keep: Optional[Sequence[str]],
    id_column: Optional[str],
    on_error: str = "raise",
) -> List[str]:
    """The input columns the workers need (the text, the kept ones and the ids), after the checks that do not need
    the data: the kernel repeats them on every batch, but a mistake is better caught before the job starts."""
    _one_strategy(chunker)
    check_on_error(on_error)
    if not isinstance(text_column, str):
        raise TypeError(f"text_column must be a str, got {type(text_column).__name__}")
    if isinstance(keep, str):
        raise TypeError("keep must be a list of column names, not a str")
    out = [text_column, *(keep or ())]
    if id_column is not None and id_column not in out:
        out.append(id_column)
    return out


class ChunkBatch:
    """The function a worker calls on one Arrow batch (a ``pyarrow.Table`` or ``RecordBatch``): its chunks, without
    the kernel's ``row`` column, which would be the row in the engine's batch, a number that means nothing outside
    it (``keep`` an id column instead). Pickled to the workers with the chunker, which pickles as its settings."""

    __slots__ = ("chunker", "text_column", "keep", "id_column", "on_error")

    def __init__(
        self,
        chunker: BaseChunker,
        text_column: str,
        keep: Optional[Sequence[str]],
        id_column: Optional[str],
        on_error: str = "raise",
    ) -> None:
        self.chunker = chunker
        self.text_column = text_column
        self.keep = None if keep is None else list(keep)
        self.id_column = id_column
        self.on_error = on_error

    def __getstate__(self) -> Any:
        return (self.chunker, self.text_column, self.keep, self.id_column, self.on_error)

    def __setstate__(self, state: Any) -> None:
        self.chunker, self.text_column, self.keep, self.id_column, self.on_error = state

    def chunks(self, batch: Any) -> Any:
        """``chunk_arrow`` on ``batch``, with its ``row`` column."""
        from .arrow import chunk_arrow

        return chunk_arrow(batch, self.chunker, text_column=self.text_column, keep=self.keep, id_column=self.id_column,
                           on_error=self.on_error)

    def __call__(self, batch: Any) -> Any:
        return self.chunks(batch).drop_columns(["row"])


def check_on_error(on_error: Any) -> None:
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")


class ChunkLists:
    """A batch of texts (and document ids) in, each document's chunks out as a list of structs (a
    ``pyarrow.LargeListArray``, one list per text): the batch function of the expression-level adapters (Daft's
    ``daft.func.batch``, Polars' ``map_batches``). The texts are read as they come (``string_view`` from Polars,
    without a copy); the kernel makes the text columns ``large_string`` whatever the input's type, so that the
    struct is one for every input type, and the lists are built over its one record batch without copying it: a
    huge document costs its input, its chunks and a small constant (see ``chunkwise.arrow.chunk_arrow``)."""

    __slots__ = ("chunker", "on_error", "struct")

    def __init__(self, chunker: BaseChunker, with_ids: bool, on_error: str = "raise") -> None:
        pa = engine("pyarrow", "arrow")
        check_on_error(on_error)
        self.chunker = chunker
        self.on_error = on_error
        # The struct of one chunk from the kernel itself, run on no rows: the columns depend on the chunker only.
        ids = pa.array([], pa.large_string()) if with_ids else None
        empty = self._chunks(pa, pa.array([], pa.large_string()), ids)
        self.struct = pa.struct(list(empty.drop_columns(["row"]).schema))

    def __getstate__(self) -> Any:
        return (self.chunker, self.on_error, self.struct)

    def __setstate__(self, state: Any) -> None:
        self.chunker, self.on_error, self.struct = state

    def _chunks(self, pa: Any, texts: Any, ids: Any) -> Any:
        from .arrow import _chunk_arrow

        return _chunk_arrow(_one_array(pa, texts), self.chunker, "text", None, None, ids, self.on_error, lists=True)

    def __call__(self, texts: Any, ids: Any = None) -> Any:
        """``texts`` (and ``ids``): pyarrow arrays of one length."""
        import numpy as np

        pa = engine("pyarrow", "arrow")
        out = self._chunks(pa, texts, ids)
        rows = out.column("row").to_numpy()
        offsets = np.zeros(len(texts) + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=len(texts)), out=offsets[1:])
        chunks = pa.StructArray.from_arrays(
            [_one_array(pa, c) for c in out.drop_columns(["row"]).columns], fields=list(self.struct)
        )
        return pa.LargeListArray.from_arrays(pa.array(offsets), chunks)


def _one_array(pa: Any, values: Any) -> Any:
    """``values`` as one array: the chunk of a ChunkedArray of one chunk as it is (``combine_chunks`` copies even
    that one), else the chunks concatenated."""
    if not isinstance(values, pa.ChunkedArray):
        return values
    if values.num_chunks == 1:
        return values.chunk(0)
    return values.combine_chunks()
