"""Command line: ``chunkwise chunk PATH... [--strategy recursive] [--size 512] [--overlap 0] [--out chunks.jsonl]``.

Writes one JSON object (or, ``--format parquet``, one Parquet row) per chunk (see ``FIELDS`` and ``_writers``) and a
summary on stderr (documents, chunks, MB/s, then one line
per reason files were skipped or failed). Folders are walked recursively (hidden names left out unless
``--hidden``, ``--include``/``--exclude`` patterns applied); ``-`` reads standard input; many files are chunked in
parallel batches, and a big file is streamed (``iter_chunks``) in bounded memory.

What is read, and why:

- Regular files only. A FIFO blocks until a writer comes, a device node may never end, and opening either can have
  side effects; such paths are reported and skipped, whether found in a folder or given directly.
- Never the output itself (compared by device and inode, so another spelling of its path or a hard link is caught
  too): an output file inside an input folder would otherwise be chunked on the next run.
- Text is UTF-8, or UTF-16/UTF-32 when the file starts with that encoding's byte order mark (or ``--encoding``). A
  leading BOM is not part of the text: ``start`` and ``end`` are ``str`` offsets into the decoded text without it,
  so ``decoded[start:end] == text``. Other files are reported and skipped.
- Compressed files (``.gz``, ``.bz2``, ``.xz``, and ``.zst`` with the ``zstandard`` package) are read decompressed.
- A binary file (a NUL byte in its first 8 KiB, no UTF-16/32 byte order mark) is no text to chunk: binary files are
  counted in one summary line, not named one by one, and do not change the exit status.
- Symbolic links: a linked file is read; a linked folder is walked only with ``--follow-links`` (each folder once,
  so a link loop ends).

What is written: ``--out`` appears whole or not at all. The lines go to a temporary file in the same folder that
replaces ``--out`` only when the run ends; a crash or Ctrl-C removes it and leaves the previous output untouched.
A text the chunker fails on is reported and skipped: the other files' chunks are kept.

Exit status: 0 every file chunked; 1 some were skipped or failed (each named on stderr); 2 bad arguments or no
input files; 130 interrupted.
"""

from __future__ import annotations

import argparse
import bz2
import codecs
import ctypes
import fnmatch
import gzip
import io
import json
import lzma
import os
import re
import stat
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, TextIO, Tuple, Union

from . import _core, _writers, auto as _auto, benchmark, inspector, loaders
from ._progress import Progress
from ._writers import FIELDS
from .evaluation import cli as evaluation_cli
from . import (
    ClauseChunker,
    CodeChunker,
    TableChunker,
    Tokenizer,
    join_pages,
    FixedChunker,
    MarkdownChunker,
    ParagraphChunker,
    RecursiveChunker,
    SentenceChunker,
    __version__,
)

STRATEGIES = {
    "recursive": RecursiveChunker,
    "sentence": SentenceChunker,
    "paragraph": ParagraphChunker,
    "fixed": FixedChunker,
    "markdown": MarkdownChunker,
    "clause": ClauseChunker,
    "table": TableChunker,
    "code": CodeChunker,
}

#: ``--strategy table`` and ``auto``: the table format of a file, by its suffix (other files are Markdown tables).
TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv"}

#: Files read and chunked together, so that a batch runs on all cores: up to this many files, and no more bytes than
#: the largest file of the run holds, within ``BATCH_BYTES`` (a file that would take a batch past that starts the
#: next one: the texts of a batch, with their lines or rows, are most of what a run holds in memory, which so stays
#: a small multiple of the largest file).
BATCH_FILES = 64
BATCH_BYTES = (1 << 20, 8 << 20)

#: A file larger than this (on disk) is streamed on its own with ``iter_chunks``, in bounded memory, when the
#: strategy streams (the structural ones read the whole document).
STREAM_BYTES = 32 * 1024 * 1024

#: Output formats, by the suffixes of ``--out`` that choose them (else ``--format``, default JSON lines).
FORMATS = {"jsonl": (".jsonl", ".json", ".ndjson"), "parquet": (".parquet", ".pq")}

#: Decompressors by file suffix; zstd needs the ``zstandard`` package.
_OPENERS: Dict[str, Callable[[IO[bytes]], Any]] = {
    ".gz": lambda f: gzip.GzipFile(fileobj=f),
    ".bz2": lambda f: bz2.BZ2File(f),
    ".xz": lambda f: lzma.LZMAFile(f),
}

# Why a file was left out: (what happened, why), one summary line each.
NOT_REGULAR = ("skipped", "not a regular file")
UNREADABLE = ("skipped", "cannot read")
NOT_TEXT = ("skipped", "not UTF-8")
NOT_DECODED = ("skipped", "cannot decode")
BINARY = ("skipped", "binary")
HIDDEN = ("left out", "hidden names, files and folders (--hidden reads them)")
LINKED = ("left out", "linked folders (--follow-links walks them)")
FAILED = ("failed", "chunking error")

#: Reasons counted in the summary only: not named file by file, and not a failure of the run.
QUIET = {BINARY, HIDDEN, LINKED}

# A byte order mark and the codec that reads past it; UTF-32 LE first, as its BOM begins with UTF-16 LE's. None of
# them can start a valid UTF-8 text, so no UTF-8 file is misread.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
    (codecs.BOM_UTF8, "utf-8-sig"),
)

Identity = Tuple[int, int]


class UsageError(Exception):
    """A bad option, reported as ``chunkwise: error: ...`` with exit status 2, before any file is read."""


class _Problems:
    """Every file or folder left out: named on stderr when it happens, counted by reason for the summary."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.counts: Counter = Counter()

    def add(self, reason: Tuple[str, str], path: object, detail: object) -> None:
        self.counts[reason] += 1
        if reason not in QUIET:
            print(f"chunkwise: {reason[0]} {path}: {detail}", file=self.stream)

    def summary(self) -> List[str]:
        return [f"chunkwise: {n} {done}: {why}" for (done, why), n in self.counts.items()]

    def failed(self) -> bool:
        """Whether anything went wrong (binary files left out are not a failure)."""
        return any(reason not in QUIET for reason in self.counts)


class _Skip(Exception):
    """A file that is not read, and why."""

    def __init__(self, reason: Tuple[str, str], detail: object) -> None:
        super().__init__(detail)
        self.reason = reason


# -- arguments ----------------------------------------------------------------------------------------------------


def _integer(value: str) -> int:
    """An int the core can take: a bigger one would surface as an OverflowError traceback, not as a usage error."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if abs(number) > sys.maxsize:
        raise argparse.ArgumentTypeError(f"{value} is out of range (at most {sys.maxsize})")
    return number


def _tokenizer(value: Optional[str]) -> Optional[Tokenizer]:
    """A tiktoken encoding name, or the path of a tokenizer.json."""
    if value is None:
        return None
    try:
        if value.endswith(".json") or os.sep in value or os.path.exists(value):
            return Tokenizer.from_file(value)
        return Tokenizer.tiktoken(value)
    except (OSError, ValueError) as exc:
        raise UsageError(f"--tokenizer {value}: {exc}") from None


#: The strategies whose chunks carry a context (their section's title path, a table's header, the signatures around
#: a piece of code).
SECTION_STRATEGIES = ("markdown", "clause", "table", "code")


def _document_suffix(path: Path) -> str:
    """The suffix that says what a file holds, under a compression suffix (``guide.html.gz`` -> ``.html``)."""
    suffixes = [x.lower() for x in path.suffixes]
    if suffixes and (suffixes[-1] in _OPENERS or suffixes[-1] == ".zst"):
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


#: ``--strategy auto``: how much of the start of a big file is read to choose its chunker (a file the prose chunker
#: streams is judged by its start; AutoChunker's detector reads a text up to this size whole).
AUTO_SAMPLE_BYTES = 256 << 10


def _document_name(path: Path) -> str:
    """A file's name without a compression suffix (``guide.md.gz`` -> ``guide.md``)."""
    name = path.name
    suffix = path.suffix.lower()
    return name[: len(name) - len(suffix)] if suffix in _OPENERS or suffix == ".zst" else name


def _auto_choice(payload: Union[str, bytes], name: Optional[str] = None) -> _auto.Choice:
    """What ``--strategy auto`` takes for a text (a ``str``, or UTF-8 bytes read as they are: the core judges them up
    to a byte that is not UTF-8, which chunking then reports), named ``name``: AutoChunker's choice."""
    return _auto.Choice(*_core.detect(payload, name))


def _code_language(path: Path, own: Optional[Set[Identity]] = None) -> Optional[str]:
    """The language CodeChunker reads a file in by its name (under a compression suffix), if it knows one. A header
    (``.h``), C's by its name, is C++ when its first 64 KB say so: they are read here (with ``own``, the run's own
    outputs, left alone); a file that cannot be read is C, and reported when it is read for chunking."""
    name = path.name
    suffix = path.suffix.lower()
    if suffix in _OPENERS or suffix == ".zst":
        name = name[: len(name) - len(suffix)]
    head: Optional[str] = None
    if name.lower().endswith(".h") and str(path) != "-":
        try:
            f = _open(path, own if own is not None else set())
            if f is not None:
                with f:
                    head = f.read(65536).decode("utf-8", errors="ignore")
        except Exception:  # _Skip, OSError, a corrupt archive: the read for chunking names it
            head = None
    return _core.code_language(name, head)


def _make_chunker(args: argparse.Namespace, strategy: Optional[str] = None, table_format: str = "markdown",
                  language: str = "auto") -> Any:
    """The chunker of a command's options (see :func:`_build_chunker`); ``strategy`` in place of ``--strategy``,
    which may be auto."""
    return _build_chunker(strategy or args.strategy, args.size, args.overlap, args.tokenizer, min_size=args.min_size,
                          restart=args.restart, rows_per_chunk=args.rows_per_chunk,
                          size_includes_context=args.size_includes_context, table_format=table_format,
                          chosen=args.strategy, language=language)


def _build_chunker(strategy: str, size: int, overlap: int, tokenizer: Union[Tokenizer, str, None] = None, *,
                   min_size: int = 0, restart: Optional[str] = None, rows_per_chunk: Optional[int] = None,
                   size_includes_context: Optional[bool] = None, table_format: str = "markdown",
                   chosen: Optional[str] = None, language: str = "auto") -> Any:
    """The chunker of ``chunk``, ``inspect`` and ``eval``: options that do not apply to ``strategy`` are usage
    errors, and the core's checks of size and overlap are reworded to name the options as the user typed them.
    ``tokenizer``: a Tokenizer, or what ``--tokenizer`` takes; ``chosen``: the ``--strategy`` given, when it is auto
    and ``strategy`` the one auto takes for a file; ``language``: code's, by the file's name."""
    chosen = strategy if chosen is None else chosen
    kwargs: Dict[str, Any] = {"size": size, "overlap": overlap}
    if strategy == "code":
        kwargs["language"] = language
    if strategy == "table":
        kwargs["format"] = table_format
        if rows_per_chunk is not None:
            kwargs["rows_per_chunk"] = rows_per_chunk
    elif rows_per_chunk is not None and chosen not in ("auto", "table"):
        raise UsageError(f"--rows-per-chunk applies to --strategy table or auto (CSV and TSV files), not to {strategy}")
    if min_size:
        if strategy in ("fixed", "table"):
            raise UsageError(f"--min-size does not apply to --strategy {strategy} (it cuts whole windows or rows)")
        kwargs["min_size"] = min_size
    if restart is not None:
        if strategy != "fixed":
            raise UsageError(f"--restart applies to --strategy fixed, not to {strategy}")
        kwargs["restart"] = restart
    if size_includes_context is not None:
        if strategy in SECTION_STRATEGIES:
            kwargs["size_includes_context"] = size_includes_context
        elif chosen != "auto":  # auto: it applies to the Markdown documents
            raise UsageError(f"--[no-]size-includes-context applies to --strategy {', '.join(SECTION_STRATEGIES)} or auto "
                             "(the strategies whose chunks carry a context), not to " + strategy)
    if isinstance(tokenizer, str):
        tokenizer = _tokenizer(tokenizer)
    if tokenizer is not None:
        kwargs["tokenizer"] = tokenizer
    try:
        return STRATEGIES[strategy](**kwargs)
    except ValueError as exc:  # ChunkingError: "size must be >= 1, got 0", "overlap must be < size (0..=9), ..."
        raise UsageError(re.sub(r"\b(size|overlap|min_size|rows_per_chunk)\b", lambda m: "--" + m[1].replace("_", "-"), str(exc))) from None


def _fields(value: Optional[str]) -> Tuple[str, ...]:
    if value is None:
        return FIELDS
    names = tuple(n.strip() for n in value.split(",") if n.strip())
    unknown = [n for n in names if n not in FIELDS]
    if unknown or not names:
        raise UsageError(f"--fields {value}: unknown {', '.join(unknown) or 'nothing'}; choose from {', '.join(FIELDS)}")
    return names


def _output_target(out: Optional[str]) -> Optional[str]:
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


# -- reading ------------------------------------------------------------------------------------------------------


class _Filter:
    """Which files found in a folder are read: ``--include``/``--exclude`` glob patterns, matched against the path
    relative to the folder given (with ``/``) and against the name; hidden names only with ``--hidden``."""

    def __init__(self, include: Sequence[str], exclude: Sequence[str], hidden: bool) -> None:
        self.include, self.exclude, self.hidden = list(include), list(exclude), hidden

    @staticmethod
    def _matches(patterns: Sequence[str], rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p) for p in patterns)

    def is_hidden(self, rel: str) -> bool:
        """A name starting with a dot, left out without ``--hidden``."""
        return not self.hidden and rel.rsplit("/", 1)[-1].startswith(".")

    def folder(self, rel: str) -> bool:
        return not self.is_hidden(rel) and not self._matches(self.exclude, rel)

    def file(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        if not self.hidden and name.startswith("."):
            return False
        if self.include and not self._matches(self.include, rel):
            return False
        return not self._matches(self.exclude, rel)


def _walk(paths: Sequence[str], problems: _Problems, keep: _Filter, follow: bool) -> Iterator[Path]:
    """Each path given, and every file under a folder that ``keep`` takes, in a stable order. A folder that cannot
    be listed is reported (``os.walk`` drops it silently unless asked), whether it is given or found. With
    ``follow``, linked folders are walked too, each folder once (a link loop would never end)."""

    def unreadable(exc: OSError) -> None:
        problems.add(UNREADABLE, exc.filename, f"cannot list folder: {exc.strerror or exc}")

    for raw in paths:
        path = Path(raw)
        if raw == "-" or not path.is_dir():
            yield path  # anything else is checked when read: a missing file or a FIFO is reported there
            continue
        seen: Set[Identity] = set()
        for root, dirs, files in os.walk(path, onerror=unreadable, followlinks=follow):
            if follow:
                info = os.stat(root)
                if (info.st_dev, info.st_ino) in seen:
                    dirs[:] = []
                    continue
                seen.add((info.st_dev, info.st_ino))
            rel_root = Path(root).relative_to(path).as_posix()
            prefix = "" if rel_root == "." else rel_root + "/"
            for name in [*dirs, *files]:
                if keep.is_hidden(prefix + name):  # counted in the summary, as is what follows
                    problems.add(HIDDEN, Path(root) / name, "hidden")
            dirs[:] = sorted(d for d in dirs if keep.folder(prefix + d))
            if not follow:
                for d in dirs:
                    if os.path.islink(os.path.join(root, d)):
                        problems.add(LINKED, Path(root) / d, "linked folder")
            for name in sorted(files):
                if keep.file(prefix + name):
                    yield Path(root) / name


def _open(path: Path, own: Set[Identity]) -> Optional[IO[bytes]]:
    """A binary file object of a regular file (decompressed by its suffix), or None when it is our own output.
    Raises _Skip for anything else."""
    if str(path) == "-":
        return sys.stdin.buffer
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise _Skip(NOT_REGULAR, "not a regular file")
        if (info.st_dev, info.st_ino) in own:
            return None
        # O_NONBLOCK: should the path become a FIFO after the stat, open() returns at once instead of waiting for a
        # writer (and reading it gives no bytes); it changes nothing for a regular file.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        raw: IO[bytes] = open(os.open(path, flags), "rb")
    except OSError as exc:
        raise _Skip(UNREADABLE, exc.strerror or exc) from None
    suffix = path.suffix.lower()
    if suffix == ".zst":
        try:
            import zstandard  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raw.close()
            raise _Skip(("skipped", "zstd needs the zstandard package"), "pip install zstandard") from None
        return zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)  # type: ignore[no-any-return]
    opener = _OPENERS.get(suffix)
    return opener(raw) if opener else raw


def _read(path: Path, own: Set[Identity]) -> Optional[bytes]:
    """The (decompressed) bytes of a regular file, or None when it is our own output. Raises _Skip."""
    f = _open(path, own)
    if f is None:
        return None
    if f is sys.stdin.buffer:
        return f.read()  # not closed: it is not ours
    try:
        with f:
            return f.read()
    except (OSError, EOFError, lzma.LZMAError) as exc:
        # a truncated or corrupt archive (zlib.error is an OSError subclass's cousin: caught below)
        raise _Skip(UNREADABLE, exc) from None
    except Exception as exc:  # zlib.error, zstandard.ZstdError: a corrupt archive
        raise _Skip(UNREADABLE, exc) from None


def _is_binary(data: bytes) -> bool:
    """A NUL byte in the first 8 KiB (and no UTF-16/32 byte order mark, whose text is full of them)."""
    return b"\0" in data[:8192] and not any(data.startswith(bom) for bom, _ in _BOMS[:4])


def _decode(data: bytes, encoding: Optional[str] = None) -> str:
    """UTF-8, or the encoding a leading BOM names, or ``encoding``; a BOM is not part of the text the offsets count
    in."""
    if encoding is not None:
        text = data.decode(encoding)
        return text[1:] if text.startswith("\ufeff") else text
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data.decode(codec)
    return data.decode("utf-8")


# -- writing ------------------------------------------------------------------------------------------------------


class _Output:
    """Standard output, or a temporary file beside the ``--out`` file that replaces it in :meth:`commit`: readers of
    that file never see half a run, and :meth:`discard` (on an error or Ctrl-C) leaves the previous output as it was.

    ``own`` holds the identities of the files this run writes to, which are never read as input."""

    def __init__(self, out: Optional[str]) -> None:
        self.target = target = _output_target(out)
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


# -- chunking -----------------------------------------------------------------------------------------------------


def _write_batch(writer: Any, chunker: Any, paths: Sequence[Path], payloads: Sequence[Any], paged: bool = False,
                 strategies: Optional[Sequence[_writers.Strategy]] = None) -> List[Any]:
    """Chunks and writes every document, in parallel; per document its number of chunks or the exception it raised.
    Should the whole batch fail (an internal error), one document at a time, so that the document at fault costs
    only itself. KeyboardInterrupt is not an Exception: it still stops. ``strategies``: per document, what chose its
    chunker (``--strategy auto``)."""
    sources = [_source(p) for p in paths]
    try:
        return writer.batch(chunker, payloads, sources, paged, strategies)
    except Exception as exc:
        if len(paths) == 1:
            return [exc]
    results: List[Any] = []
    for k, (path, payload) in enumerate(zip(paths, payloads)):
        results += _write_batch(writer, chunker, [path], [payload], paged, strategies[k : k + 1] if strategies else None)
    return results


class _Previous:
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
            pq = _writers.pyarrow_module("pyarrow.parquet")
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
            pq = _writers.pyarrow_module("pyarrow.parquet")
            table = pq.read_table(self.path)
            mask = [gone(str(i), str(s)) for i, s in zip(table.column("id").to_pylist(), table.column("source").to_pylist())]
            if out is not None:
                pq.write_table(table.filter(_writers.pyarrow_module().array(mask, type=None)), out)
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


def _format(args: argparse.Namespace) -> str:
    if args.format is not None:
        return str(args.format)
    out = (args.out or "").lower()
    return next((name for name, suffixes in FORMATS.items() if out.endswith(suffixes)), "jsonl")


def _chunk_command(args: argparse.Namespace) -> int:
    """Options first (a bad one costs nothing), then the walk, then the files; --out is replaced only at the end."""
    auto = args.strategy == "auto"
    chunker = _make_chunker(args, "recursive" if auto else None)
    # Auto: the chunkers of Markdown documents and of legal provisions (the prose chunker takes the rest)
    markdown = _make_chunker(args, "markdown") if auto else None
    clause = _make_chunker(args, "clause") if auto else None
    # CSV and TSV files: a table chunker of their format (auto and table)
    tables = ({fmt: _make_chunker(args, "table", fmt) for fmt in TABLE_FORMATS.values()}
              if auto or args.strategy == "table" else {})
    fields = _fields(args.fields)
    form = _format(args)
    code: Optional[Callable[[str], Any]] = None
    # Source files: a CodeChunker of the language their name (or, with auto, their content) says, made when first
    # needed; one made now checks the options.
    if args.strategy == "code" or auto:
        _make_chunker(args, "code")
        code = lambda language: _make_chunker(args, "code", language=language)  # noqa: E731
    if args.encoding is not None:
        try:
            codecs.lookup(args.encoding)
        except LookupError:
            raise UsageError(f"--encoding {args.encoding}: unknown encoding") from None
    if args.paths.count("-") > 1:
        raise UsageError("standard input (-) can be read once")
    if form == "parquet" and args.out in (None, "-") and sys.stdout.isatty():
        raise UsageError("--format parquet writes binary data: give --out FILE (or redirect standard output)")
    previous = _Previous(args.previous) if args.previous is not None else None
    if args.removed is not None and previous is None:
        raise UsageError("--removed needs --previous (the run to compare with)")
    removed_target = _output_target(args.removed) if args.removed is not None else None
    out = _Output(args.out)
    problems = _Problems(sys.stderr)
    try:
        keep = _Filter(args.include, args.exclude, args.hidden)
        files = list(_walk(args.paths, problems, keep, args.follow_links))
        if not files and not problems.counts:
            out.discard()
            print("chunkwise: no input files found", file=sys.stderr)
            return 2
        show = args.progress if args.progress is not None else sys.stderr.isatty()
        started = time.perf_counter()
        progress = Progress(len(files), sum(_disk_size(p) for p in files), sys.stderr, show)
        previous_ids = previous.ids if previous is not None else None
        writer: Any
        if form == "parquet":
            # (code columns: source files are code, and a Markdown code block of a known language is cut as code)
            structural = any(c is not None and c._splitter.is_structural() for c in (chunker, markdown, *tables.values()))
            writer = _writers.ParquetWriter(out.file, fields, previous_ids, structural, args.tokenizer is not None,
                                            args.compression, code=code is not None or args.strategy == "markdown",
                                            strategies=auto)
        else:
            writer = _writers.JsonlWriter(out.file, fields, previous_ids)
        run = _Run(chunker, writer, out.own, problems, args.encoding, markdown, tables, code, clause, auto)
        try:
            run.files(files, progress)
        finally:
            writer.close()
        changes = []
        if previous is not None:
            folders = [p for p in args.paths if p != "-" and os.path.isdir(p)]
            removed = previous.removed(writer.changes.written, run.sources, folders, removed_target)
            changes = [
                f"chunkwise: against {args.previous}: {writer.changes.added} added (to embed), {writer.changes.kept} kept, "
                f"{removed} removed (to delete)"
            ]
    except BaseException:
        out.discard()
        raise
    out.commit()
    elapsed = max(time.perf_counter() - started, 1e-9)
    print(
        f"chunkwise: {_count(run.documents, 'document')}, {_count(run.chunks, 'chunk')}, {run.nbytes / 1e6:.2f} MB in "
        f"{elapsed:.2f} s ({run.nbytes / 1e6 / elapsed:.1f} MB/s)",
        *changes,
        *problems.summary(),
        sep="\n",
        file=sys.stderr,
    )
    return 1 if problems.failed() else 0


def _disk_size(path: Path) -> int:
    try:
        return 0 if str(path) == "-" else os.stat(path).st_size
    except OSError:
        return 0  # reported when read


class _Run:
    """Reads, chunks and writes files: in parallel batches, a big file streamed on its own."""

    def __init__(
        self,
        chunker: Any,
        writer: Any,
        own: Set[Identity],
        problems: _Problems,
        encoding: Optional[str],
        markdown: Optional[Any] = None,
        tables: Optional[Dict[str, Any]] = None,
        code: Optional[Callable[[str], Any]] = None,
        clause: Optional[Any] = None,
        auto: bool = False,
    ) -> None:
        self.chunker, self.writer, self.own, self.problems, self.encoding = chunker, writer, own, problems, encoding
        #: ``--strategy auto``: each document's chunker is chosen by its name, else its content (see
        #: :func:`chunkwise.auto.choose`), and its chunks' metadata say which and why.
        self.auto = auto
        #: ``--strategy auto``: the chunker of legal provisions.
        self.clause = clause
        #: ``--strategy auto`` and ``code``: makes the CodeChunker of a language, for files whose name says it.
        self.code = code
        self.code_chunkers: Dict[str, Any] = {}
        #: ``--strategy auto``: the chunker of Markdown documents (``chunker`` takes the rest).
        self.markdown = markdown
        #: The chunkers of CSV and TSV files, by format (``--strategy auto`` and ``table``).
        self.tables = tables or {}
        self.documents = self.chunks = self.nbytes = 0
        #: The documents read and chunked (their previous chunks may be removed).
        self.sources: Set[str] = set()
        # a structural strategy reads the whole document
        self.streams = not chunker._splitter.is_structural()

    def files(self, files: List[Path], progress: Progress) -> None:
        """Every file, its lines in the order of ``files``."""
        paths: List[Path] = []
        payloads: List[Any] = []
        sizes: List[int] = []
        strategies: List[_writers.Strategy] = []
        kind: Any = None  # the chunker of the batch being gathered
        seen = seen_bytes = 0  # files (and their bytes on disk) handled since the last batch was written

        def flush() -> None:
            nonlocal paths, payloads, sizes, strategies, seen, seen_bytes
            self._batch(paths, payloads, sizes, kind, strategies=strategies if self.auto else None)
            progress.advance(seen, seen_bytes)
            paths, payloads, sizes, strategies, seen, seen_bytes = [], [], [], [], 0, 0

        low, high = BATCH_BYTES
        budget = min(max(max(map(_disk_size, files), default=0), low), high)
        try:
            for path in files:
                if _document_suffix(path) in loaders.SUFFIXES:
                    flush()
                    self._load(path)
                    progress.advance(1, _disk_size(path))
                    continue
                if self._is_big(path):
                    flush()
                    self._stream(path, progress)
                    progress.advance(1, _disk_size(path))
                    continue
                read = self._payload(path)
                chunker, strategy = self._choose(path, read[0] if read is not None else None)
                if chunker is not kind or (paths and sum(sizes) + _disk_size(path) > budget):
                    flush()
                    kind = chunker
                seen += 1
                seen_bytes += _disk_size(path)
                if read is not None:
                    paths.append(path)
                    payloads.append(read[0])
                    sizes.append(read[1])
                    strategies.append(strategy)
                if len(paths) >= BATCH_FILES or sum(sizes) >= budget:
                    flush()
            flush()
        finally:
            progress.close()

    def _choose(self, path: Path, payload: Union[str, bytes, None]) -> Tuple[Any, _writers.Strategy]:
        """The chunker of a text file, and with ``--strategy auto`` what chose it and why: by its name, else by the
        start of its content (``payload``), as :func:`chunkwise.auto.choose` picks."""
        if not self.auto or payload is None:
            return self._chunker_for(path), None
        return self._chosen(_auto_choice(payload, _document_name(path)))

    def _chosen(self, choice: _auto.Choice) -> Tuple[Any, _writers.Strategy]:
        """The chunker of ``choice`` (code in the language the choice found, else found by the code chunker)."""
        strategy = (choice.strategy, choice.reason)
        if choice.strategy == "markdown" and self.markdown is not None:
            return self.markdown, strategy
        if choice.strategy == "table" and choice.table_format in self.tables:
            return self.tables[choice.table_format], strategy
        if choice.strategy == "clause" and self.clause is not None:
            return self.clause, strategy
        if choice.strategy == "code" and self.code is not None:
            language = choice.language or "auto"  # by the name (a header's content too), a shebang or keywords
            if language not in self.code_chunkers:
                self.code_chunkers[language] = self.code(language)
            return self.code_chunkers[language], strategy
        return self.chunker, strategy

    def _chunker_for(self, path: Path) -> Any:
        """The chunker of a file by its name, without --strategy auto (which chooses in ``_choose``): a table's format
        (``--strategy table``), code's language (``--strategy code``), else the strategy's chunker."""
        table_format = TABLE_FORMATS.get(_document_suffix(path))
        if table_format is not None and table_format in self.tables:
            return self.tables[table_format]
        language = _code_language(path, self.own) if self.code is not None else None
        if language is not None and self.code is not None:
            if language not in self.code_chunkers:
                self.code_chunkers[language] = self.code(language)
            return self.code_chunkers[language]
        return self.chunker

    def _load(self, path: Path) -> None:
        """An HTML, PDF or DOCX file, read into text by its loader and chunked on its own (a PDF by pages)."""
        try:
            data = _read(path, self.own)
            if data is None:
                return
            loaded = loaders.load(path.with_name(path.name[: len(path.name) - len("".join(path.suffixes))]
                                                 + _document_suffix(path)), data)
        except _Skip as skip:
            self.problems.add(skip.reason, path, skip)
            return
        except loaders.MissingLoader as exc:
            self.problems.add(("skipped", "no loader installed"), path, exc)
            return
        except Exception as exc:  # a file its loader cannot parse: named, and the run goes on
            self.problems.add(UNREADABLE, path, f"cannot read as {_document_suffix(path)[1:].upper()}: {exc}")
            return
        try:
            text = join_pages(loaded.pages) if loaded.pages is not None else loaded.text
        except Exception as exc:
            self.problems.add(FAILED, path, exc)
            return
        strategy: _writers.Strategy = None
        if not self.auto:
            chunker = self._chunker_for(path)
        elif loaded.markdown:
            chunker, strategy = self.markdown, ("markdown", f"file name {_document_suffix(path)}: read as Markdown")
        else:  # a PDF's text: by its content
            chunker, strategy = self._chosen(_auto_choice(text))
        self._batch([path], [text], [len(data)], chunker, paged=loaded.pages is not None,
                    strategies=[strategy] if self.auto else None)

    def _is_big(self, path: Path) -> bool:
        if not self.streams or str(path) == "-" or self.encoding is not None:
            return False
        try:
            return os.stat(path).st_size > STREAM_BYTES
        except OSError:
            return False  # reported when read

    def _payload(self, path: Path) -> Optional[Tuple[Any, int]]:
        """What the writer chunks of a text file, and its (decompressed) size: its bytes when they should be UTF-8
        (checked as they are chunked), else the text decoded here (a UTF-16/32 byte order mark, ``--encoding``). A
        leading BOM is not part of the text."""
        try:
            data = _read(path, self.own)
            if data is None:
                return None
            if _is_binary(data):
                raise _Skip(BINARY, "binary")
            if self.encoding is not None:
                text = data.decode(self.encoding)
                return (text[1:] if text.startswith("\ufeff") else text), len(data)
            for bom, codec in _BOMS[:4]:
                if data.startswith(bom):
                    return data.decode(codec), len(data)
            if data.startswith(codecs.BOM_UTF8):
                return data[len(codecs.BOM_UTF8):], len(data)
            return data, len(data)
        except _Skip as skip:
            self.problems.add(skip.reason, path, skip)
        except UnicodeDecodeError as exc:
            self.problems.add(NOT_DECODED if self.encoding else NOT_TEXT, path, exc)
        return None

    def _batch(self, paths: List[Path], payloads: List[Any], sizes: List[int], chunker: Any = None,
               paged: bool = False, strategies: Optional[List[_writers.Strategy]] = None) -> None:
        if not paths:
            return
        results = _write_batch(self.writer, chunker or self.chunker, paths, payloads, paged, strategies)
        _core._release_memory()
        for k, (path, size, result) in enumerate(zip(paths, sizes, results)):
            strategy = strategies[k] if strategies else None
            if (isinstance(result, ValueError) and not isinstance(result, UnicodeDecodeError) and strategy
                    and strategy[0] == "table"):
                # Auto: named as a table, or shaped like one at its start, but not one: prose, and the reason says so
                # (as AutoChunker does).
                fmt = "tsv" if chunker is self.tables.get("tsv") else "csv"
                prose = ("prose", f"{strategy[1]}, but not a {fmt} table ({result})")
                result = _write_batch(self.writer, self.chunker, [path], [payloads[k]], paged, [prose])[0]
            if isinstance(result, UnicodeDecodeError):
                self.problems.add(NOT_DECODED if self.encoding else NOT_TEXT, path, result)
            elif isinstance(result, BaseException):
                self.problems.add(FAILED, path, result)
            else:
                self.sources.add(_source(path))
                self.documents += 1
                self.chunks += result
                self.nbytes += size

    def _stream(self, path: Path, progress: Progress) -> None:
        """A big file, streamed: its lines are written when the whole file is chunked (never half a document)."""
        try:
            f = _open(path, self.own)
            if f is None:
                return
            with f:
                reader = io.BufferedReader(f) if not hasattr(f, "peek") else f  # type: ignore[arg-type,type-var]
                head = reader.peek(8192)[:8192]
                if _is_binary(head):
                    raise _Skip(BINARY, "binary")
                if any(head.startswith(bom) for bom, _ in _BOMS[:4]):
                    # UTF-16/32: the core streams UTF-8 only; such a file is read whole.
                    read = self._payload(path)
                    if read is not None:
                        chunker, chosen = self._choose(path, read[0])
                        self._batch([path], [read[0]], [read[1]], chunker, strategies=[chosen] if self.auto else None)
                    return
                if head.startswith(codecs.BOM_UTF8):
                    reader.read(len(codecs.BOM_UTF8))  # not part of the text, as in a file read whole
                strategy: _writers.Strategy = None
                body: Any = reader
                if self.auto:
                    # Its start says which chunker: the prose chunker streams; the others read the whole document.
                    start = reader.read(AUTO_SAMPLE_BYTES)
                    chunker, strategy = self._choose(path, start)
                    if chunker is not self.chunker:
                        data = start + reader.read()
                        self._batch([path], [data], [len(data)], chunker, strategies=[strategy])
                        return
                    body = _Prefixed(start, reader)
                source = _source(path)
                raw = getattr(f, "fileobj", None) or getattr(f, "_fp", None) or f
                done = 0

                def advance() -> None:
                    nonlocal done
                    try:
                        done = raw.tell()  # bytes on disk, also under a decompressor
                    except (OSError, ValueError, AttributeError):
                        pass
                    progress.within(done)

                n = self.writer.stream(self.chunker, body, source, advance, strategy)
                self.nbytes += os.stat(path).st_size
                self.sources.add(source)
                self.documents += 1
                self.chunks += n
                _core._release_memory()
        except _Skip as skip:
            self.problems.add(skip.reason, path, skip)
        except UnicodeDecodeError as exc:
            self.problems.add(NOT_TEXT, path, exc)
        except OSError as exc:
            self.problems.add(UNREADABLE, path, exc.strerror or exc)
        except ValueError as exc:  # ChunkingError: not UTF-8, a page break in a stream, ...
            self.problems.add(FAILED, path, exc)


class _Prefixed:
    """A binary reader that gives ``start`` (bytes already read from ``rest``), then the rest of ``rest``."""

    def __init__(self, start: bytes, rest: Any) -> None:
        self.start, self.rest = start, rest

    def read(self, size: int = -1) -> bytes:
        if self.start:
            if size is None or size < 0:
                out, self.start = self.start + self.rest.read(), b""
                return out
            out, self.start = self.start[:size], self.start[size:]
            return out
        return bytes(self.rest.read(size))


def _source(path: Path) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chunkwise", description="Fast, structure- and CJK-aware text chunking.")
    parser.add_argument("--version", action="version", version=f"chunkwise {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    chunk = commands.add_parser(
        "chunk",
        help="chunk files (folders are walked recursively) into JSON lines or Parquet",
        description="Chunk files (folders are walked recursively, hidden names left out) into JSON lines or Parquet.",
        epilog=(
            "Regular files only; the output file is never read. Text is UTF-8, or UTF-16/UTF-32 starting with its "
            "byte order mark; a BOM is dropped, and start/end are offsets into the decoded text without it. --out "
            "is replaced only when the run ends (a temporary file beside it until then). Files that cannot be read "
            "or chunked are named on stderr and skipped. Exit status: 0 all chunked, 1 some skipped or failed, "
            "2 bad arguments or no input, 130 interrupted."
        ),
    )
    chunk.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="files or folders (UTF-8 text, or UTF-16/UTF-32 with a BOM; .gz .bz2 .xz .zst read decompressed); - is "
        "standard input",
    )
    chunk.add_argument(
        "--strategy",
        choices=sorted([*STRATEGIES, "auto"]),
        default="recursive",
        help="auto: per file, by its name, else its content (as AutoChunker): markdown for Markdown, HTML and DOCX "
        "(title paths), table for CSV and TSV, code for source files (.py, .rs, .go, .c, .sh, ...), clause for "
        "legal provisions, recursive for prose; each chunk's metadata says which and why (strategy, "
        "strategy_reason); table: CSV and TSV files by their suffix, other files as Markdown tables",
    )
    chunk.add_argument("--size", type=_integer, default=512, help="largest chunk, in characters (default 512)")
    chunk.add_argument("--overlap", type=_integer, default=0, help="overlap between chunks, in characters (default 0)")
    chunk.add_argument("--min-size", type=_integer, default=0, help="merge chunks smaller than this (default 0)")
    chunk.add_argument("--restart", choices=["paragraph", "line"], default=None,
                       help="fixed: start windows at paragraph (or line) breaks, so that an edit changes only the "
                       "windows around it (see FixedChunker)")
    chunk.add_argument("--rows-per-chunk", type=_integer, default=None,
                       help="table (and auto's CSV and TSV files): at most this many data rows per chunk")
    chunk.add_argument("--size-includes-context", action=argparse.BooleanOptionalAction, default=None,
                       help="markdown, clause, table, code (and auto's documents of those): whether a chunk's context "
                       "(its title path, a table's header, the signatures around a piece of code), which "
                       "embedding_text carries, counts toward --size (default: yes; code: no)")
    chunk.add_argument(
        "--tokenizer", default=None, help="sizes in tokens: a tiktoken encoding (cl100k_base, o200k_base, ...) or a "
        "tokenizer.json path"
    )
    chunk.add_argument("--out", default=None, help="output file; default: standard output")
    chunk.add_argument("--format", choices=sorted(FORMATS), default=None,
                       help="jsonl (one JSON object per chunk) or parquet (one row per chunk); "
                       "default: from the --out suffix (.parquet, .pq), else jsonl")
    chunk.add_argument("--compression", choices=["snappy", "zstd", "lz4", "gzip", "brotli", "none"],
                       default="snappy", help="Parquet compression (default snappy)")
    chunk.add_argument("--fields", default=None, help=f"comma-separated fields of each line (default: {','.join(FIELDS)})")
    chunk.add_argument("--include", action="append", default=[], metavar="GLOB",
                       help="in folders, read only files whose relative path or name matches (repeatable)")
    chunk.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                       help="in folders, leave out files and folders whose relative path or name matches (repeatable)")
    chunk.add_argument("--previous", default=None, metavar="JSONL",
                       help="a previous run's output: each line says whether its chunk was added or kept")
    chunk.add_argument("--removed", default=None, metavar="JSONL",
                       help="with --previous: write the previous lines whose chunks are gone (to delete)")
    chunk.add_argument("--hidden", action="store_true", help="in folders, read names starting with a dot too")
    chunk.add_argument("--follow-links", action="store_true", help="walk linked folders too (each folder once)")
    chunk.add_argument("--encoding", default=None,
                       help="decode files with this codec instead of UTF-8 (a byte order mark is still dropped)")
    bar = chunk.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")
    chunk.set_defaults(func=_chunk_command)
    inspector.add_parser(commands, _integer)
    evaluation_cli.add_parser(commands, _integer)
    benchmark.add_parser(commands, _integer)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``chunkwise`` command."""
    try:
        args = _parser().parse_args(argv)
        return args.func(args)
    except UsageError as exc:
        print(f"chunkwise: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("chunkwise: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


#: glibc's ``M_MMAP_THRESHOLD`` (malloc.h), and the value the command sets it to.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 1 << 20


def _settle_heap() -> None:
    """Has glibc give every block of 1 MiB or more (a file's bytes, a decompressed file) memory of its own, returned
    to the OS when the block is freed. By default glibc raises that threshold each time such a block is freed, up to
    32 MiB; the files of batch after batch then come from the heap, and the freed ones stay resident: a folder of
    5 MB files held about twice the memory. Only the command does this, in a process of its own; ``main()`` called
    from a program leaves the program's allocator alone."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # glibc only: mallopt elsewhere takes other numbers
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    except (OSError, AttributeError):
        pass


def run() -> int:
    """The ``chunkwise`` command, in a process of its own: :func:`main`, with the process's allocator settled."""
    _settle_heap()
    return main()


if __name__ == "__main__":
    # As ``python -m chunkwise`` this file is the module __main__, a copy of chunkwise.__main__: the commands in
    # modules of their own (eval, bench, inspect) raise chunkwise.__main__'s UsageError, which only that module's
    # main catches.
    from chunkwise.__main__ import run as _run

    sys.exit(_run())
