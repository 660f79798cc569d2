"""Command line: ``chunkwise chunk PATH... [--strategy recursive] [--size 512] [--overlap 0] [--out chunks.jsonl]``.

Writes one JSON object per chunk (text, start, end, source, index, id, level, size, metadata) and a summary on
stderr (documents, chunks, MB/s, then one line per reason files were skipped or failed). Folders are walked
recursively (hidden names left out); many files are chunked in parallel batches.

What is read, and why:

- Regular files only. A FIFO blocks until a writer comes, a device node may never end, and opening either can have
  side effects; such paths are reported and skipped, whether found in a folder or given directly.
- Never the output itself (compared by device and inode, so another spelling of its path or a hard link is caught
  too): an output file inside an input folder would otherwise be chunked on the next run.
- Text is UTF-8, or UTF-16/UTF-32 when the file starts with that encoding's byte order mark. A leading BOM is not
  part of the text: ``start`` and ``end`` are ``str`` offsets into the decoded text without it, so
  ``decoded[start:end] == text``. Other files are reported and skipped.

What is written: ``--out`` appears whole or not at all. The lines go to a temporary file in the same folder that
replaces ``--out`` only when the run ends; a crash or Ctrl-C removes it and leaves the previous output untouched.
A text the chunker fails on is reported and skipped: the other files' chunks are kept.

Exit status: 0 every file chunked; 1 some were skipped or failed (each named on stderr); 2 bad arguments or no
input files; 130 interrupted.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import re
import stat
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Set, TextIO, Tuple

from . import (
    ClauseChunker,
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
}

#: Files read and chunked together, so that a batch runs on all cores.
BATCH_FILES = 64

# Why a file was left out: (what happened, why), one summary line each.
NOT_REGULAR = ("skipped", "not a regular file")
UNREADABLE = ("skipped", "cannot read")
NOT_TEXT = ("skipped", "not UTF-8")
FAILED = ("failed", "chunking error")

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
        print(f"chunkwise: {reason[0]} {path}: {detail}", file=self.stream)

    def summary(self) -> List[str]:
        return [f"chunkwise: {n} {done}: {why}" for (done, why), n in self.counts.items()]


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


def _make_chunker(args: argparse.Namespace) -> Any:
    """The chunker; the core's checks of size and overlap, reworded to name the options as the user typed them."""
    try:
        return STRATEGIES[args.strategy](size=args.size, overlap=args.overlap)
    except ValueError as exc:  # ChunkingError: "size must be >= 1, got 0", "overlap must be < size (0..=9), ..."
        raise UsageError(re.sub(r"\b(size|overlap)\b", r"--\1", str(exc))) from None


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


def _walk(paths: Sequence[str], problems: _Problems) -> Iterator[Path]:
    """Each path given, and every file under a folder, in a stable order. A folder that cannot be listed is
    reported (``os.walk`` drops it silently unless asked), whether it is given or found."""

    def unreadable(exc: OSError) -> None:
        problems.add(UNREADABLE, exc.filename, f"cannot list folder: {exc.strerror or exc}")

    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            yield path  # anything else is checked when read: a missing file or a FIFO is reported there
            continue
        for root, dirs, files in os.walk(path, onerror=unreadable):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if not name.startswith("."):
                    yield Path(root) / name


def _read(path: Path, own: Set[Identity]) -> Optional[bytes]:
    """The bytes of a regular file, or None when it is our own output. Raises _Skip for anything else."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise _Skip(NOT_REGULAR, "not a regular file")
        if (info.st_dev, info.st_ino) in own:
            return None
        # O_NONBLOCK: should the path become a FIFO after the stat, open() returns at once instead of waiting for a
        # writer (and reading it gives no bytes); it changes nothing for a regular file.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        with open(os.open(path, flags), "rb") as f:
            return f.read()
    except OSError as exc:
        raise _Skip(UNREADABLE, exc.strerror or exc) from None


def _decode(data: bytes) -> str:
    """UTF-8, or the encoding a leading BOM names; the BOM itself is not part of the text the offsets count in."""
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
            self.file = sys.stdout
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
        self.file = open(fd, "w", encoding="utf-8")
        self._own(self.file)

    def _own(self, stream: TextIO) -> None:
        try:
            info = os.fstat(stream.fileno())
        except (OSError, ValueError):  # a stream with no file behind it (captured, closed)
            return
        if stat.S_ISREG(info.st_mode):
            self.own.add((info.st_dev, info.st_ino))

    def write(self, lines: str) -> None:
        self.file.write(lines)

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


def _json_lines(source: str, chunks: Sequence[Any]) -> str:
    """One document's lines, built whole before any is written, so the output never ends in a partial line."""
    return "".join(
        json.dumps(
            {
                "text": c.text,
                "start": c.start,
                "end": c.end,
                "source": source,
                "index": c.index,
                "id": c.id,
                "level": c.level,
                "size": c.size,
                "metadata": c.metadata,
            },
            ensure_ascii=False,
            default=_plain,
        )
        + "\n"
        for c in chunks
    )


def _plain(value: object) -> object:
    """A read-only mapping in metadata (json only knows dict) as a dict."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} in chunk metadata cannot be written as JSON")


# -- chunking -----------------------------------------------------------------------------------------------------


def _chunk_batch(chunker: Any, paths: List[Path], texts: List[str], problems: _Problems) -> List[Optional[list]]:
    """Every text's chunks, in parallel; if the batch raises, one text at a time, so that a text the chunker fails
    on costs only itself (None), named with its error. KeyboardInterrupt is not an Exception: it still stops."""
    metadatas = [{"source": str(p)} for p in paths]
    try:
        return chunker.chunk_batch(texts, metadatas)
    except Exception:
        pass
    results: List[Optional[list]] = []
    for path, text, metadata in zip(paths, texts, metadatas):
        try:
            results.append(chunker.chunk(text, metadata))
        except Exception as exc:
            problems.add(FAILED, path, exc)
            results.append(None)
    return results


class _Progress:
    """A one-line progress bar on stderr, shown only when there are many files and stderr is a terminal."""

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total, self.stream, self.enabled, self.done = total, stream, enabled, 0

    def advance(self, n: int) -> None:
        self.done += n
        if self.enabled:
            width = 30
            filled = width * self.done // max(self.total, 1)
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} files")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")


def _chunk_command(args: argparse.Namespace) -> int:
    """Options first (a bad one costs nothing), then the walk, then the files; --out is replaced only at the end."""
    chunker = _make_chunker(args)
    out = _Output(args.out)
    problems = _Problems(sys.stderr)
    try:
        files = list(_walk(args.paths, problems))
        if not files and not problems.counts:
            out.discard()
            print("chunkwise: no input files found", file=sys.stderr)
            return 2
        show = args.progress if args.progress is not None else (len(files) > 1 and sys.stderr.isatty())
        started = time.perf_counter()
        progress = _Progress(len(files), sys.stderr, show)
        documents, chunks, nbytes = _chunk_files(chunker, files, out, problems, progress)
    except BaseException:
        out.discard()
        raise
    out.commit()
    elapsed = max(time.perf_counter() - started, 1e-9)
    print(
        f"chunkwise: {_count(documents, 'document')}, {_count(chunks, 'chunk')}, {nbytes / 1e6:.2f} MB in {elapsed:.2f} s "
        f"({nbytes / 1e6 / elapsed:.1f} MB/s)",
        *problems.summary(),
        sep="\n",
        file=sys.stderr,
    )
    return 1 if problems.counts else 0


def _chunk_files(
    chunker: Any, files: List[Path], out: _Output, problems: _Problems, progress: _Progress
) -> Tuple[int, int, int]:
    """Reads, chunks and writes ``files`` batch by batch; returns the documents, chunks and bytes done."""
    documents = chunks = nbytes = 0
    try:
        for i in range(0, len(files), BATCH_FILES):
            batch = files[i : i + BATCH_FILES]
            paths: List[Path] = []
            texts: List[str] = []
            for path in batch:
                try:
                    data = _read(path, out.own)
                    if data is None:
                        continue
                    texts.append(_decode(data))
                except _Skip as skip:
                    problems.add(skip.reason, path, skip)
                    continue
                except UnicodeDecodeError as exc:
                    problems.add(NOT_TEXT, path, exc)
                    continue
                paths.append(path)
                nbytes += len(data)
            for path, doc_chunks in zip(paths, _chunk_batch(chunker, paths, texts, problems)):
                if doc_chunks is not None:
                    out.write(_json_lines(str(path), doc_chunks))
                    documents += 1
                    chunks += len(doc_chunks)
            progress.advance(len(batch))
    finally:
        progress.close()
    return documents, chunks, nbytes


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chunkwise", description="Fast, structure- and CJK-aware text chunking.")
    parser.add_argument("--version", action="version", version=f"chunkwise {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    chunk = commands.add_parser(
        "chunk",
        help="chunk files (folders are walked recursively) into JSON lines",
        description="Chunk files (folders are walked recursively, hidden names left out) into JSON lines.",
        epilog=(
            "Regular files only; the output file is never read. Text is UTF-8, or UTF-16/UTF-32 starting with its "
            "byte order mark; a BOM is dropped, and start/end are offsets into the decoded text without it. --out "
            "is replaced only when the run ends (a temporary file beside it until then). Files that cannot be read "
            "or chunked are named on stderr and skipped. Exit status: 0 all chunked, 1 some skipped or failed, "
            "2 bad arguments or no input, 130 interrupted."
        ),
    )
    chunk.add_argument(
        "paths", nargs="+", metavar="PATH", help="files or folders (UTF-8 text, or UTF-16/UTF-32 with a BOM)"
    )
    chunk.add_argument("--strategy", choices=sorted(STRATEGIES), default="recursive")
    chunk.add_argument("--size", type=_integer, default=512, help="largest chunk, in characters (default 512)")
    chunk.add_argument("--overlap", type=_integer, default=0, help="overlap between chunks, in characters (default 0)")
    chunk.add_argument("--out", default=None, help="output file (JSON lines); default: standard output")
    bar = chunk.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")
    chunk.set_defaults(func=_chunk_command)
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


if __name__ == "__main__":
    sys.exit(main())
