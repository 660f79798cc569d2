"""What ``chunkwise chunk`` writes: JSON lines or Parquet, written from the core without a Python object per chunk,
to standard output or to an ``--out`` file that appears whole or not at all; and what it reads of a previous run's
output (``--previous``, ``--removed``).

Both formats are written by the core, as the documents of a batch are split in parallel: JSON lines by
``_core.JsonLines``, Parquet rows by ``_core.ParquetRows`` (encoded with arrow-rs, row groups of at most 8192 rows and
about 768 KB; no pyarrow). Both take a document whole or not at all: a streamed file's chunks are spooled to a
temporary file and written only once the whole file is chunked.
"""

from __future__ import annotations

import importlib
import json
import os
import stat
import sys
import tempfile
from typing import IO, Any, Callable, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

from .. import _core
from ..record import COLUMNS, metadata_keys
from .files import Identity
from .options import UsageError

#: Output formats, by the suffixes of ``--out`` that choose them (else ``--format``, default JSON lines).
FORMATS = {"jsonl": (".jsonl", ".json", ".ndjson"), "parquet": (".parquet", ".pq")}

#: The fields of each output line or row, in order; ``--fields`` picks some of them.
FIELDS = tuple(c.name for c in COLUMNS if "lines" in c.formats and c.role in ("field", "document"))

#: In Parquet, the ``metadata`` field is these columns (null where a chunk's metadata has no such key): the strategy
#: that chose each document's chunker and why (``--strategy auto``), the structure columns (when a structural
#: strategy runs), a code chunk's (when source files are chunked as code), then the pages.
#: (All read from the core's record: see :mod:`chunkwise.record`.)
STRATEGY_COLUMNS = metadata_keys("strategy")
STRUCTURE_COLUMNS = metadata_keys("structure")
CODE_COLUMNS = tuple(k for k in metadata_keys("code") if k not in STRUCTURE_COLUMNS)
PAGE_COLUMNS = metadata_keys("pages")

#: What chose a document's chunker: a ``(strategy, reason)`` pair, or None.
Strategy = Optional[Tuple[str, str]]

#: How many bytes a streamed file is read by.
READ_SIZE = 4 << 20

Result = Union[int, BaseException]
Payload = Union[str, bytes]


def output_format(given: Optional[str], out: Optional[str]) -> str:
    """The format ``--format`` names (``given``), else the one the suffix of ``--out`` says, else JSON lines."""
    if given is not None:
        return given
    return next((name for name, suffixes in FORMATS.items() if (out or "").lower().endswith(suffixes)), "jsonl")


def fields(value: Optional[str]) -> Tuple[str, ...]:
    """The fields ``--fields`` names (comma-separated), in its order; all of ``FIELDS`` without it."""
    if value is None:
        return FIELDS
    names = tuple(n.strip() for n in value.split(",") if n.strip())
    unknown = [n for n in names if n not in FIELDS]
    if unknown or not names:
        raise UsageError(f"--fields {value}: unknown {', '.join(unknown) or 'nothing'}; choose from {', '.join(FIELDS)}")
    return names


def output_target(out: Optional[str]) -> Optional[str]:
    """The file ``--out`` names (through a symlink, as ``open(out, "w")`` would write), or None for stdout; checked
    before any work, so that a typo does not cost a whole run."""
    if out in (None, "-"):
        return None
    target = os.path.realpath(out)
    if os.path.isdir(target):
        raise UsageError(f"--out {out} is a folder, not a file")
    if not os.path.isdir(os.path.dirname(target)):
        raise UsageError(f"--out {out}: folder {os.path.dirname(target)} does not exist")
    return target


class Output:
    """Standard output, or a temporary file beside the ``--out`` file that replaces it in :meth:`commit`: readers of
    that file never see half a run, and :meth:`discard` (on an error or Ctrl-C) leaves the previous output as it was.

    ``own`` holds the identities of the files this run writes to, which are never read as input."""

    def __init__(self, out: Optional[str]) -> None:
        self.target = target = output_target(out)
        self.temp: Optional[str] = None
        self.own: Set[Identity] = set()
        if target is None:
            self.file: IO[bytes] = sys.stdout.buffer
            self._own(sys.stdout)  # `chunkwise chunk . > out.jsonl` must not read out.jsonl either
            return
        try:
            previous = os.stat(target)
            self.own.add((previous.st_dev, previous.st_ino))
            mode = stat.S_IMODE(previous.st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask  # what open(target, "w") would have made; mkstemp's 0600 would be a surprise
        folder, name = os.path.split(target)
        try:
            fd, self.temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        except OSError as exc:
            raise UsageError(f"--out {out}: cannot write in {folder}: {exc.strerror or exc}") from None
        os.chmod(self.temp, mode)
        self.file = open(fd, "wb")
        self._own(self.file)

    def _own(self, stream: IO[Any]) -> None:
        try:
            info = os.fstat(stream.fileno())
        except (OSError, ValueError):  # a stream with no file behind it (captured, closed)
            return
        if stat.S_ISREG(info.st_mode):
            self.own.add((info.st_dev, info.st_ino))

    def commit(self) -> None:
        if self.temp is not None:
            self.file.close()
            os.replace(self.temp, self.target)  # type: ignore[arg-type]
            self.temp = None

    def discard(self) -> None:
        if self.temp is not None:
            self.file.close()
            try:
                os.unlink(self.temp)
            except FileNotFoundError:
                pass
            self.temp = None


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



class Previous:
    """A previous run's output (``--previous``, JSON lines or Parquet): what this run adds, keeps and removes (see
    :func:`chunkwise.diff`).

    A previous chunk is removed when its id is not in this run and its document was read again, or lies under a
    folder given (its file is gone); chunks of documents this run did not look at are left alone."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.parquet = path.lower().endswith(FORMATS["parquet"])
        try:
            self.ids: Set[str] = {chunk_id for chunk_id, _ in self._records()}
        except OSError as exc:
            raise UsageError(f"--previous {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise UsageError(f"--previous {path}: not UTF-8 ({exc})") from None

    def _records(self) -> Iterator[Tuple[str, str]]:
        """(id, source) of every previous chunk."""
        if self.parquet:
            pq = pyarrow_module("pyarrow.parquet")
            try:
                table = pq.read_table(self.path, columns=["id", "source"])
            except (KeyError, ValueError) as exc:  # ArrowInvalid is a ValueError
                raise UsageError(f"--previous {self.path}: not a chunk table with id and source columns ({exc})") from None
            yield from zip(table.column("id").to_pylist(), table.column("source").to_pylist())
            return
        with open(self.path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    yield self._record(line, n)

    def _record(self, line: str, n: int) -> Tuple[str, str]:
        try:
            record = json.loads(line)
            return str(record["id"]), str(record["source"])
        except (ValueError, KeyError, TypeError):
            raise UsageError(f"--previous {self.path}: line {n} is not a chunk line with an id and a source") from None

    def removed(self, written: Callable[[str], bool], sources: Set[str], folders: Sequence[str],
                out: Optional[str]) -> int:
        """Counts (and writes to the file ``out``, in the previous run's format) the previous chunks this run
        removed: ``written(id)`` says whether this run has a chunk."""
        prefixes = tuple(os.path.join(f, "") for f in folders)

        def gone(chunk_id: str, source: str) -> bool:
            return not written(chunk_id) and (source in sources or source.startswith(prefixes))

        if self.parquet:
            pq = pyarrow_module("pyarrow.parquet")
            table = pq.read_table(self.path)
            mask = [gone(str(i), str(s)) for i, s in zip(table.column("id").to_pylist(), table.column("source").to_pylist())]
            if out is not None:
                pq.write_table(table.filter(pyarrow_module().array(mask, type=None)), out)
            return sum(mask)
        n = 0
        target = open(out, "w", encoding="utf-8") if out is not None else None
        try:
            with open(self.path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    if not gone(*self._record(line, number)):
                        continue
                    n += 1
                    if target is not None:
                        target.write(line if line.endswith("\n") else line + "\n")
        finally:
            if target is not None:
                target.close()
        return n
