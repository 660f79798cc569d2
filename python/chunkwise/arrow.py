"""Chunking Arrow data: a string column in, a table of chunks out, for ingestion at the batch granularity of an
engine (Ray Data, Daft, Spark's ``mapInArrow``, DuckDB, Polars...).

The texts are read from the Arrow buffers in Rust (no Python ``str`` per document), split in parallel with the
GIL released, and the output columns are built in Rust and handed over through the Arrow PyCapsule interface.
Needs pyarrow: ``pip install "chunkwise[arrow]"``.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, Optional, Sequence

from . import _core
from .chunkers import BaseChunker, _one_strategy
from .record import COLUMNS

__all__ = ["chunk_arrow", "OUTPUT_COLUMNS"]

#: The columns every output has, in order (then ``token_count`` after ``size`` for a chunker in tokens, the
#: description columns for a structural chunker, and the page columns: see :func:`chunk_arrow`).
OUTPUT_COLUMNS = tuple(c.name for c in sorted(
    (c for c in COLUMNS if c.arrow_at is not None and "tokens" not in c.sources), key=lambda c: c.arrow_at or 0))
# Every column an output may have (the core's record), whichever the chunker: a kept column of the same name would
# come out twice.
_ALL_OUTPUT_COLUMNS = frozenset(c.name for c in COLUMNS if "arrow" in c.formats)


def _pyarrow() -> Any:
    # Imported by name: pyarrow has no type information for mypy to read.
    try:
        return importlib.import_module("pyarrow")
    except ImportError:
        raise ImportError(
            'chunkwise.arrow needs pyarrow: pip install "chunkwise[arrow]" (or pip install pyarrow)'
        ) from None


def chunk_arrow(
    data: Any,
    chunker: BaseChunker,
    *,
    text_column: str = "text",
    keep: Optional[Sequence[str]] = None,
    id_column: Optional[str] = None,
    doc_ids: Any = None,
    on_error: str = "raise",
) -> Any:
    """The chunks of every text of ``data`` as a ``pyarrow.Table`` (typed ``Any``: pyarrow has no type stubs), one
    row per chunk.

    ``data``: a pyarrow ``Array`` or ``ChunkedArray`` of ``string``, ``large_string`` or ``string_view``; a
    ``RecordBatch`` or ``Table``, whose ``text_column`` holds the texts; or any object with the Arrow PyCapsule
    interface (``__arrow_c_array__`` / ``__arrow_c_stream__``: Polars, DuckDB, nanoarrow...), read as an array of
    strings or, when its type is a struct, as a table.

    The output has, in order: the ``keep`` columns of the table (each value repeated once per chunk of its row);
    ``row``, the row of the document in ``data`` (0-based, also for a sliced input); ``index``, the chunk's index in
    its document; ``text``; ``start`` and ``end``, ``str`` offsets in the document (``text ==
    document[start:end]``); ``size``; ``token_count`` when the chunker measures in tokens; ``level``; ``id``,
    ``prev_id`` and ``next_id``; ``context`` and ``embedding_text``; then the metadata keys the chunker sets, a
    column each, in the record's order (``chunkwise.record.keys(chunker, written=True)``): for a structural
    chunker (Markdown, Clause, Table) ``title_path`` (a list of strings), ``headings`` (their depths),
    ``chunk_type``, ``row_start``, ``row_end``, ``total_rows``, ``language`` (null where a chunk's metadata has no
    such key, and for a code block without a language) and ``context_shortened`` (false where absent); for
    :class:`CodeChunker` and :class:`MarkdownChunker` (a chunk of a code block of a language it knows) the code
    keys too: ``symbol_path`` (a list of strings), ``start_line``, ``end_line``, ``node_types`` (a list of strings)
    and ``note`` (null unless the chunk was cut at lines), :class:`CodeChunker` without ``title_path``,
    ``headings`` and the table rows; and ``page_start``/``page_end``, null unless the document holds form feeds
    (the pages of ``chunk()``). Every value is the one ``chunker.chunk_batch`` gives for the same texts. The
    columns depend on the chunker only, never on the data, so the batches of a dataset share one schema. Text
    columns are ``large_string`` when the input is, or when they would not fit in a ``string`` column (2 GiB), else
    ``string``.

    A null text has no chunks, like an empty one.

    ``id_column`` (a column of the table, strings or integers) or ``doc_ids`` (an array or a sequence, one per
    document): the document ids, which make chunk ids that survive edits of the document (see ``Chunk.id``): the
    ids are those ``chunk_batch(texts, metadatas=[{"doc_id": value}, ...])`` gives. A null id is no id.

    Texts may also be UTF-8 bytes (``binary``, ``large_binary``, ``binary_view``: files read by an engine as
    bytes). A value that is not valid UTF-8 is a bad row, and ``on_error`` says what follows: ``"raise"`` (the
    default) raises ChunkingError naming the row (and its id); ``"skip"`` chunks the other rows and gives the bad
    one a single row of its own, its chunk columns null, with the reason in a last column, ``error`` (null on
    every chunk), so that nothing is dropped without a trace.

    A huge document is chunked in bounded memory: the call holds its input, its output and, beyond them, about 50
    bytes per chunk (the chunks' byte offsets while the columns are built, and the hashes that number repeated chunk
    texts in the ids); see the engines' page of the documentation for the figures.
    """
    return _chunk_arrow(data, chunker, text_column, keep, id_column, doc_ids, on_error, lists=False)


def _chunk_arrow(
    data: Any,
    chunker: BaseChunker,
    text_column: str,
    keep: Optional[Sequence[str]],
    id_column: Optional[str],
    doc_ids: Any,
    on_error: str,
    *,
    lists: bool,
) -> Any:
    """:func:`chunk_arrow`; ``lists``: for the lists of chunks of ``chunkwise._engine.ChunkLists``, the output in
    one record batch (each column one array, which the lists are built over without a copy), its text columns
    ``large_string`` whatever the input's type (so that the struct of a chunk is one for every input)."""
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
    if getattr(chunker, "_embeds", False):
        raise _core.ChunkingError(
            "chunk_arrow does not take a SemanticChunker yet (its units are embedded in Python): use its chunk_batch"
        )
    pa = _pyarrow()
    _one_strategy(chunker)
    if keep is not None:
        if isinstance(keep, str):
            raise TypeError("keep must be a list of column names, not a str")
        keep = list(keep)
        for k in keep:
            if not isinstance(k, str):
                raise TypeError(f"keep must be a list of column names (str), got {k!r} in it")
    if not isinstance(text_column, str):
        raise TypeError(f"text_column must be a str, got {type(text_column).__name__}")
    if id_column is not None and doc_ids is not None:
        raise TypeError("give id_column or doc_ids, not both")
    table = _as_arrow(pa, data)
    if isinstance(table, (pa.Table, pa.RecordBatch)):
        names = table.schema.names
        if text_column not in names:
            raise _core.ChunkingError(f"text_column {text_column!r} is not a column of data (its columns: {names})")
        texts = table.column(text_column)
        for k in keep or ():
            if k == text_column:
                raise _core.ChunkingError(
                    f"keep names the text column {text_column!r}: its chunks are the output's text column"
                )
            if k not in names:
                raise _core.ChunkingError(f"keep names {k!r}, which is not a column of data (its columns: {names})")
            if k in _ALL_OUTPUT_COLUMNS or (k == "error" and on_error == "skip"):
                raise _core.ChunkingError(f"keep names {k!r}, a column of the output: rename it first")
        if keep is not None and len(set(keep)) != len(keep):
            raise _core.ChunkingError(f"keep names a column twice: {keep}")
        if id_column is not None:
            if id_column not in names:
                raise _core.ChunkingError(f"id_column {id_column!r} is not a column of data (its columns: {names})")
            doc_ids = table.column(id_column)
    else:
        if keep:
            raise TypeError("keep needs a table or a record batch; data is an array")
        if id_column is not None:
            raise TypeError("id_column needs a table or a record batch; data is an array (give doc_ids)")
        texts = table
    _check_strings(pa, texts, f"text_column {text_column!r}" if texts is not table else "data")
    if doc_ids is not None:
        doc_ids = _doc_ids(pa, doc_ids, "id_column" if id_column is not None else "doc_ids")
    def kernel(texts: Any) -> Any:
        return _read_stream(pa, _core.chunk_arrow(chunker._splitter, texts, doc_ids, large=lists, one=lists))

    try:
        out = kernel(texts)
        bad: Dict[int, str] = {}
    except _core.ChunkingError:
        # The failure path only: the rows' bytes are checked one by one to name the bad ones.
        bad = _not_utf8(pa, texts)
        if not bad:
            raise
        if on_error == "raise":
            row, reason = next(iter(bad.items()))
            raise _core.ChunkingError(f"{_row_name(row, id_column, doc_ids)} of {_name(texts, table, text_column)} is "
                                      f"not UTF-8: {reason} (on_error='skip' chunks the other rows)") from None
        mask = pa.array([i in bad for i in range(len(texts))])
        if _is_view(pa, texts.type):
            # replace_with_mask has no kernel for views (pyarrow 23): the failure path only pays the cast.
            texts = texts.cast(pa.large_binary())
        # (not compute.if_else: pyarrow 23's garbles the other values of a sliced binary array)
        texts = pa.compute.replace_with_mask(texts, mask, pa.nulls(len(bad), texts.type))
        out = kernel(texts)
    if on_error == "skip":
        out = _with_errors(pa, out, bad)
    if not keep:
        return out
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    kept = table.select(keep).take(out.column("row"))
    return pa.Table.from_arrays(kept.columns + out.columns, schema=_joined(pa, kept.schema, out.schema))


class _Stream:
    """The Arrow C stream the core hands back, as the PyCapsule protocol wants it: an object whose
    ``__arrow_c_stream__`` returns the capsule (once: reading a stream consumes it). The core sends the output's
    own schema; a requested one is not applied (the protocol leaves that to the producer)."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._capsule


def _read_stream(pa: Any, capsule: Any) -> Any:
    """The table of the core's Arrow C stream. Not ``pa.table(...)``: that one first checks whether its argument is
    a pandas DataFrame, importing pandas (most of a second) when it is installed."""
    return pa.RecordBatchReader.from_stream(_Stream(capsule)).read_all()


def _joined(pa: Any, first: Any, second: Any) -> Any:
    return pa.schema(list(first) + list(second))


def _as_arrow(pa: Any, data: Any) -> Any:
    """A pyarrow Array, ChunkedArray, RecordBatch or Table holding ``data`` (without copying)."""
    if isinstance(data, (pa.Array, pa.ChunkedArray, pa.RecordBatch, pa.Table)):
        return data
    if hasattr(data, "__arrow_c_stream__"):
        out = pa.chunked_array(data)
        if pa.types.is_struct(out.type):
            return pa.Table.from_struct_array(out)
        return out
    if hasattr(data, "__arrow_c_array__"):
        out = pa.array(data)
        if pa.types.is_struct(out.type):
            return pa.RecordBatch.from_struct_array(out)
        return out
    raise TypeError(
        "data must be a pyarrow Array, ChunkedArray, RecordBatch or Table, or an object with the Arrow PyCapsule "
        f"interface (__arrow_c_array__ or __arrow_c_stream__), got {type(data).__name__}"
    )


def _check_strings(pa: Any, texts: Any, name: str) -> None:
    t = texts.type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t) or _is_string_view(pa, t) or _is_bytes(pa, t)):
        raise TypeError(f"{name} must hold strings (string, large_string or string_view) or UTF-8 bytes (binary, "
                        f"large_binary or binary_view), got {t}")


def _is_bytes(pa: Any, t: Any) -> bool:
    view = getattr(pa.types, "is_binary_view", None)
    return bool(pa.types.is_binary(t) or pa.types.is_large_binary(t) or (view and view(t)))


def _is_view(pa: Any, t: Any) -> bool:
    view = getattr(pa.types, "is_binary_view", None)
    return bool(_is_string_view(pa, t) or (view and view(t)))


def _not_utf8(pa: Any, texts: Any) -> Dict[int, str]:
    """The rows of a bytes column that are not UTF-8, each with the reason (none for a column of strings)."""
    if not _is_bytes(pa, texts.type):
        return {}
    bad = {}
    for i, value in enumerate(texts.to_pylist()):
        if value is not None:
            try:
                value.decode("utf-8")
            except UnicodeDecodeError as e:
                bad[i] = f"invalid byte {value[e.start]:#04x} at byte {e.start}"
    return bad


def _name(texts: Any, table: Any, text_column: str) -> str:
    return "data" if texts is table else f"text_column {text_column!r}"


def _row_name(row: int, id_column: Optional[str], doc_ids: Any) -> str:
    if doc_ids is not None and doc_ids[row].is_valid:
        label = f"id_column {id_column!r}" if id_column is not None else "doc_ids"
        return f"row {row} ({label} {doc_ids[row].as_py()!r})"
    return f"row {row}"


def _with_errors(pa: Any, out: Any, bad: Dict[int, str]) -> Any:
    """``out`` with the ``error`` column: null on every chunk, and a row of its own for each bad row (its reason;
    its chunk columns null), in the rows' order."""
    out = out.append_column("error", pa.nulls(out.num_rows, pa.string()))
    # Every column nullable (an error row has no index, no offsets): one schema for every batch, bad rows or not.
    out = out.cast(pa.schema([f.with_nullable(True) for f in out.schema]))
    if not bad:
        return out
    rows = sorted(bad)
    errors = pa.table(
        {name: pa.nulls(len(rows), out.schema.field(name).type) for name in out.column_names}
    ).set_column(out.column_names.index("row"), "row", pa.array(rows, out.schema.field("row").type))
    errors = errors.set_column(errors.num_columns - 1, "error", pa.array([f"not UTF-8: {bad[r]}" for r in rows]))
    return pa.concat_tables([out, errors.cast(out.schema)]).sort_by("row")


def _is_string_view(pa: Any, t: Any) -> bool:
    check = getattr(pa.types, "is_string_view", None)
    return bool(check and check(t))


def _doc_ids(pa: Any, ids: Any, name: str) -> Any:
    """Document ids as Arrow strings: integers as ``str()`` writes them (the doc ids of ``chunk_batch``)."""
    if not isinstance(ids, (pa.Array, pa.ChunkedArray)):
        ids = _as_arrow(pa, ids) if hasattr(ids, "__arrow_c_array__") or hasattr(ids, "__arrow_c_stream__") else ids
    if not isinstance(ids, (pa.Array, pa.ChunkedArray)):
        if isinstance(ids, (str, bytes)):
            raise TypeError(f"{name} must be a sequence of ids, not a single {type(ids).__name__}")
        ids = pa.array(list(ids))
    t = ids.type
    if pa.types.is_integer(t):
        ids = ids.cast(pa.string())
    elif not (pa.types.is_string(t) or pa.types.is_large_string(t) or _is_string_view(pa, t)):
        raise TypeError(f"{name} must hold strings or integers, got {t}")
    return ids
