"""The outputs of ``chunkwise chunk``: JSON lines or Parquet, written from the core without a Python object per chunk.

Both are written by the core, as the documents of a batch are split in parallel: JSON lines by ``_core.JsonLines``,
Parquet rows by ``_core.ParquetRows`` (encoded with arrow-rs, row groups of at most 8192 rows and about 768 KB; no
pyarrow). Both take a document whole or not at all: a streamed file's chunks are spooled to a temporary file and
written only once the whole file is chunked.
"""

from __future__ import annotations

import importlib
import tempfile
from typing import IO, Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union

from . import _core

#: The fields of each output line or row, in order; ``--fields`` picks some of them.
FIELDS = (
    "text", "start", "end", "source", "index", "id", "prev_id", "next_id", "level", "size", "token_count",
    "context", "embedding_text", "metadata",
)

#: In Parquet, the ``metadata`` field is these columns (null where a chunk's metadata has no such key): the strategy
#: that chose each document's chunker and why (``--strategy auto``), the structure columns (when a structural
#: strategy runs), a code chunk's (when source files are chunked as code), then the pages.
STRATEGY_COLUMNS = ("strategy", "strategy_reason")
STRUCTURE_COLUMNS = ("title_path", "headings", "chunk_type", "row_start", "row_end", "total_rows", "language",
                     "context_shortened")
CODE_COLUMNS = ("symbol_path", "start_line", "end_line", "node_types", "note")
PAGE_COLUMNS = ("page_start", "page_end")

#: What chose a document's chunker: a ``(strategy, reason)`` pair, or None.
Strategy = Optional[Tuple[str, str]]

#: How many bytes a streamed file is read by.
READ_SIZE = 4 << 20

Result = Union[int, BaseException]
Payload = Union[str, bytes]


def pyarrow_module(name: str = "pyarrow") -> Any:
    """pyarrow or one of its modules, imported by name (pyarrow has no type information for mypy to read)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ImportError('reading Parquet needs pyarrow: pip install "chunkwise[arrow]" (or pip install pyarrow)') from None


class JsonlWriter:
    """JSON lines (one object per chunk, the fields in the order given) to a binary file."""

    format = "jsonl"

    def __init__(self, file: IO[bytes], fields: Sequence[str], previous: Optional[Iterable[str]]) -> None:
        names = list(fields) + (["change"] if previous is not None else [])
        self.file = file
        self.lines = _core.JsonLines(names, previous)
        #: The chunks written against the previous run's (``added``, ``kept``, ``written(id)``).
        self.changes = self.lines.changes

    def batch(self, chunker: Any, payloads: Sequence[Payload], sources: Sequence[str], paged: bool = False,
              strategies: Optional[Sequence[Strategy]] = None) -> List[Result]:
        """Writes the chunks of every document; per document its number of chunks, or the exception it raised.
        ``strategies``: per document, what chose its chunker (in its chunks' metadata)."""
        return self.lines.write_batch(chunker._splitter, payloads, sources, self.file, paged, strategies)

    def stream(self, chunker: Any, reader: IO[bytes], source: str, advance: Callable[[], None],
               strategy: Strategy = None) -> int:
        """A big file, chunked as it is read; its lines are written once the whole file is chunked."""
        stream = _core.ChunkStream(chunker._splitter, {"source": source})
        n = 0
        with tempfile.TemporaryFile() as spool:
            for block in iter(lambda: reader.read(READ_SIZE), b""):
                lines, k = stream.push_lines(block, self.lines, source, strategy)
                spool.write(lines)
                n += k
                advance()
            lines, k = stream.finish_lines(self.lines, source, strategy)
            spool.write(lines)
            n += k
            spool.seek(0)
            for block in iter(lambda: spool.read(1 << 20), b""):
                self.file.write(block)
        return n

    def close(self) -> None:
        pass


class ParquetWriter:
    """Parquet rows (one per chunk), written by the core (``_core.ParquetRows``: split in parallel, the rows of a
    batch encoded as its documents are split; no pyarrow). The ``metadata`` field is flattened into columns
    (``STRATEGY_COLUMNS`` with ``strategies``, ``STRUCTURE_COLUMNS`` when a structural strategy runs,
    ``CODE_COLUMNS`` with ``code``, ``PAGE_COLUMNS``)."""

    format = "parquet"

    def __init__(self, file: IO[bytes], fields: Sequence[str], previous: Optional[Iterable[str]],
                 structural: bool, tokens: bool, compression: str = "snappy", code: bool = False,
                 strategies: bool = False) -> None:
        names = list(fields) + (["change"] if previous is not None else [])
        self.rows = _core.ParquetRows(file, names, previous, structural, tokens, compression, code, strategies)
        #: The chunks written against the previous run's (``added``, ``kept``, ``written(id)``).
        self.changes = self.rows.changes

    def batch(self, chunker: Any, payloads: Sequence[Payload], sources: Sequence[str], paged: bool = False,
              strategies: Optional[Sequence[Strategy]] = None) -> List[Result]:
        """Writes the rows of every document; per document its number of chunks, or the exception it raised."""
        return self.rows.write_batch(chunker._splitter, payloads, sources, paged, strategies)

    def stream(self, chunker: Any, reader: IO[bytes], source: str, advance: Callable[[], None],
               strategy: Strategy = None) -> int:
        """A big file, chunked as it is read; its rows are spooled (their values and texts) and written once the
        whole file is chunked."""
        stream = _core.ChunkStream(chunker._splitter, {"source": source})
        n = 0
        with tempfile.TemporaryFile() as spool:
            for block in iter(lambda: reader.read(READ_SIZE), b""):
                records, k = stream.push_rows(block)
                spool.write(records)
                n += k
                advance()
            records, k = stream.finish_rows()
            spool.write(records)
            n += k
            spool.seek(0)
            self.rows.write_spooled(chunker._splitter, spool, source, strategy)
        return n

    def close(self) -> None:
        self.rows.close()


def chunk_counts(results: Sequence[Result]) -> Tuple[int, int]:
    """(documents chunked, chunks) of a batch's results."""
    done = [r for r in results if not isinstance(r, BaseException)]
    return len(done), sum(done)  # type: ignore[arg-type]
