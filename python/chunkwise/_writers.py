"""The outputs of ``chunkwise chunk``: JSON lines or Parquet, written from the core without a Python object per chunk.

JSON lines are written by the core (``_core.JsonLines``: split and serialised in parallel, one ``bytes`` per
document). Parquet rows come from the Arrow kernel (``chunkwise.arrow``) and are written by pyarrow, one row group per
batch of files. Both take a document whole or not at all: a streamed file's chunks are spooled to a temporary file
and written only once the whole file is chunked.
"""

from __future__ import annotations

import array
import concurrent.futures
import importlib
import itertools
import tempfile
from typing import IO, Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union

from . import _core
from .arrow import _read_stream

#: The fields of each output line or row, in order; ``--fields`` picks some of them.
FIELDS = (
    "text", "start", "end", "source", "index", "id", "prev_id", "next_id", "level", "size", "token_count",
    "context", "embedding_text", "metadata",
)

#: In Parquet, the ``metadata`` field is these columns (null where a chunk's metadata has no such key; the
#: structure columns only when a structural strategy runs).
STRUCTURE_COLUMNS = ("title_path", "headings", "chunk_type", "row_start", "row_end", "total_rows", "language",
                     "context_shortened")
PAGE_COLUMNS = ("page_start", "page_end")

#: How many bytes a streamed file is read by.
READ_SIZE = 4 << 20

#: Rows of a Parquet row group at most (about 4 MB of text at 512 chars): pyarrow holds a row group's pages until it
#: is written.
ROW_GROUP_ROWS = 8192

Result = Union[int, BaseException]
Payload = Union[str, bytes]


def pyarrow_module(name: str = "pyarrow") -> Any:
    """pyarrow or one of its modules, imported by name (pyarrow has no type information for mypy to read)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ImportError('Parquet needs pyarrow: pip install "chunkwise[arrow]" (or pip install pyarrow)') from None


class JsonlWriter:
    """JSON lines (one object per chunk, the fields in the order given) to a binary file."""

    format = "jsonl"

    def __init__(self, file: IO[bytes], fields: Sequence[str], previous: Optional[Iterable[str]]) -> None:
        names = list(fields) + (["change"] if previous is not None else [])
        self.file = file
        self.lines = _core.JsonLines(names, previous)

    def batch(self, chunker: Any, payloads: Sequence[Payload], sources: Sequence[str], paged: bool = False) -> List[Result]:
        """Writes the chunks of every document; per document its number of chunks, or the exception it raised."""
        return self.lines.write_batch(chunker._splitter, payloads, sources, self.file, paged)

    def stream(self, chunker: Any, reader: IO[bytes], source: str, advance: Callable[[], None]) -> int:
        """A big file, chunked as it is read; its lines are written once the whole file is chunked."""
        stream = _core.ChunkStream(chunker._splitter, {"source": source})
        n = 0
        with tempfile.TemporaryFile() as spool:
            for block in iter(lambda: reader.read(READ_SIZE), b""):
                lines, k = stream.push_lines(block, self.lines, source)
                spool.write(lines)
                n += k
                advance()
            lines, k = stream.finish_lines(self.lines, source)
            spool.write(lines)
            n += k
            spool.seek(0)
            for block in iter(lambda: spool.read(1 << 20), b""):
                self.file.write(block)
        return n

    @property
    def added(self) -> int:
        return self.lines.added

    @property
    def kept(self) -> int:
        return self.lines.kept

    def written(self, chunk_id: str) -> bool:
        return self.lines.written(chunk_id)

    def close(self) -> None:
        pass


class ParquetWriter:
    """Parquet rows (one per chunk), one row group per batch, with pyarrow. The ``metadata`` field is flattened
    into columns (``STRUCTURE_COLUMNS`` when a structural strategy runs, ``PAGE_COLUMNS``)."""

    format = "parquet"

    def __init__(self, file: IO[bytes], fields: Sequence[str], previous: Optional[Iterable[str]],
                 structural: bool, tokens: bool, compression: str = "snappy") -> None:
        pa = self.pa = pyarrow_module()
        self.pc = pyarrow_module("pyarrow.compute")
        pq = pyarrow_module("pyarrow.parquet")
        self.fields = list(fields)
        self.previous = _array(pa, [i.encode("utf-8") for i in sorted(set(previous))], True) if previous is not None else None
        self.new_ids: set = set()
        self.added = self.kept = 0
        types = {
            "text": pa.string(), "start": pa.int64(), "end": pa.int64(), "source": pa.string(),
            "index": pa.int64(), "id": pa.string(), "prev_id": pa.string(), "next_id": pa.string(),
            "level": pa.string(), "size": pa.int64(), "token_count": pa.int64(), "context": pa.string(),
            "embedding_text": pa.string(), "title_path": pa.list_(pa.string()), "headings": pa.list_(pa.int64()),
            "chunk_type": pa.string(), "row_start": pa.int64(), "row_end": pa.int64(), "total_rows": pa.int64(),
            "language": pa.string(), "context_shortened": pa.bool_(), "page_start": pa.int64(),
            "page_end": pa.int64(), "change": pa.string(),
        }
        columns: List[str] = []
        for f in self.fields:
            if f == "metadata":
                columns += [*(STRUCTURE_COLUMNS if structural else ()), *PAGE_COLUMNS]
            else:
                columns.append(f)
        if previous is not None:
            columns.append("change")
        nullable = {"prev_id", "next_id", "row_start", "row_end", "total_rows", "language", "page_start", "page_end",
                    "change", "token_count", "title_path", "headings", "chunk_type", "context_shortened"}
        if tokens:
            nullable.discard("token_count")
        self.schema = pa.schema([pa.field(c, types[c], nullable=c in nullable) for c in columns])
        # Statistics (min/max per page) where a reader can skip row groups by them: not of the texts and hashes,
        # where they cost about a twentieth of the writing and skip nothing.
        unordered = {"text", "embedding_text", "context", "id", "prev_id", "next_id", "title_path", "headings"}
        self.writer = pq.ParquetWriter(file, self.schema, compression=compression,
                                       use_dictionary=["source", "level", "chunk_type", "language", "change"],
                                       write_statistics=[c for c in columns if c not in unordered])
        # Row groups are encoded and written on a thread of their own (pyarrow lets go of the GIL), while the next
        # batch is chunked; one at a time, so that at most two batches are held.
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="chunkwise-parquet")
        self.pending: Optional[concurrent.futures.Future] = None

    def batch(self, chunker: Any, payloads: Sequence[Payload], sources: Sequence[str], paged: bool = False) -> List[Result]:
        pa = self.pa
        try:
            texts = self._texts(payloads)
            names = _array(pa, [s.encode("utf-8") for s in sources], True)
            table = _read_stream(pa, _core.chunk_arrow(chunker._splitter, texts, names, paged, "source"))
        except Exception as exc:
            if len(payloads) == 1:
                return [_as_error(exc, payloads[0])]
            # one document at a time, so that a bad one costs only itself
            out: List[Result] = []
            for p, s in zip(payloads, sources):
                out += self.batch(chunker, [p], [s], paged)
            return out
        rows = table.column("row")
        self._write(table, names.take(rows))
        counts = self.pc.value_counts(rows)
        per_row = [0] * len(payloads)
        for item in counts.to_pylist():
            per_row[item["values"]] = item["counts"]
        return list(per_row)

    def _texts(self, payloads: Sequence[Payload]) -> Any:
        """The documents as one Arrow array: bytes as binary (the kernel checks them as UTF-8)."""
        return _array(self.pa, [p.encode("utf-8") if isinstance(p, str) else p for p in payloads], False)

    def _write(self, table: Any, sources: Any) -> None:
        """Writes the rows of ``table`` (the Arrow kernel's columns) as the output's schema."""
        pa, pc = self.pa, self.pc
        n = table.num_rows
        names = set(table.schema.names)
        arrays = []
        for field in self.schema:
            name = field.name
            if name == "source":
                arrays.append(sources)
            elif name == "change":
                ids = table.column("id")
                kept = pc.is_in(ids, value_set=self.previous)
                k = pc.sum(kept).as_py() or 0
                self.kept += k
                self.added += n - k
                arrays.append(pc.if_else(kept, "kept", "added"))
            elif name in names:
                arrays.append(table.column(name).cast(field.type))
            else:
                arrays.append(pa.nulls(n, field.type))
        if self.previous is not None:
            self.new_ids.update(table.column("id").to_pylist())
        self._wait()
        self.pending = self.pool.submit(self.writer.write_table, pa.Table.from_arrays(arrays, schema=self.schema),
                                        ROW_GROUP_ROWS)

    def _wait(self) -> None:
        """Waits for the row group being written; raises what writing it raised."""
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending.result()

    def stream(self, chunker: Any, reader: IO[bytes], source: str, advance: Callable[[], None]) -> int:
        """A big file, chunked as it is read; its rows are spooled (Arrow IPC, uncompressed) and written once the
        whole file is chunked."""
        pa = self.pa
        ipc = pyarrow_module("pyarrow.ipc")
        stream = _core.ChunkStream(chunker._splitter, {"source": source})
        n = 0
        with tempfile.TemporaryFile() as spool:
            sink = pa.PythonFile(spool, mode="w")
            writer = None
            for last, block in _blocks(reader):
                capsule = stream.finish_arrow() if last else stream.push_arrow(block)
                table = _read_stream(pa, capsule)
                if writer is None:
                    writer = ipc.new_stream(sink, table.schema)
                writer.write_table(table)
                n += table.num_rows
                advance()
            assert writer is not None
            writer.close()
            spool.seek(0)
            for batch in ipc.open_stream(pa.PythonFile(spool, mode="r")):
                if batch.num_rows:
                    self._write(pa.Table.from_batches([batch]), pa.repeat(pa.scalar(source, pa.string()), batch.num_rows))
        return n

    def written(self, chunk_id: str) -> bool:
        return chunk_id in self.new_ids

    def close(self) -> None:
        try:
            self._wait()
        finally:
            self.pool.shutdown()
            self.writer.close()


def _blocks(reader: IO[bytes]) -> Iterable[Tuple[bool, bytes]]:
    """(False, block) for every block of ``reader``, then (True, b"")."""
    for block in iter(lambda: reader.read(READ_SIZE), b""):
        yield False, block
    yield True, b""


def _array(pa: Any, values: List[bytes], text: bool) -> Any:
    """An Arrow binary (or, ``text``, string: the values must be UTF-8) array of ``values``, made from its buffers.
    Not ``pa.array(list)``: that one looks for pandas objects in the list, importing pandas (most of a second)."""
    ends = list(itertools.accumulate(map(len, values), initial=0))
    large = ends[-1] > 2**31 - 1
    kind = (pa.large_string() if large else pa.string()) if text else (pa.large_binary() if large else pa.binary())
    offsets = pa.py_buffer(array.array("q" if large else "i", ends))
    data = values[0] if len(values) == 1 else b"".join(values)  # one big file: its bytes, not a copy
    return pa.Array.from_buffers(kind, len(values), [None, offsets, pa.py_buffer(data)])


def _as_error(exc: Exception, payload: Payload) -> BaseException:
    """The error of one document: a ``UnicodeDecodeError`` for bytes that are not UTF-8 (as JSON lines report it)."""
    if isinstance(payload, bytes):
        try:
            payload.decode("utf-8")
        except UnicodeDecodeError as bad:
            return bad
    return exc


def chunk_counts(results: Sequence[Result]) -> Tuple[int, int]:
    """(documents chunked, chunks) of a batch's results."""
    done = [r for r in results if not isinstance(r, BaseException)]
    return len(done), sum(done)  # type: ignore[arg-type]
