"""``chunkwise chunk PATH... [--strategy recursive] [--size 512] [--overlap 0] [--out chunks.jsonl]``.

Writes one JSON object (or, ``--format parquet``, one Parquet row) per chunk (see :mod:`.outputs`) and a summary on
stderr (documents, chunks, MB/s, then one line per reason files were skipped or failed). Folders are walked
recursively (hidden names left out unless ``--hidden``, ``--include``/``--exclude`` patterns applied); ``-`` reads
standard input; many files are chunked in parallel batches, and a big file is streamed (``iter_chunks``) in bounded
memory.

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

Which chunker: ``--strategy``'s, in the table format (``table``) or the language (``code``) that a file's name says;
with ``--strategy auto``, per file, by its name, else its content, as :class:`chunkwise.AutoChunker` chooses
(:mod:`chunkwise.auto` decides in every case).

What is written: ``--out`` appears whole or not at all. The lines go to a temporary file in the same folder that
replaces ``--out`` only when the run ends; a crash or Ctrl-C removes it and leaves the previous output untouched.
A text the chunker fails on is reported and skipped: the other files' chunks are kept.

Exit status: 0 every file chunked; 1 some were skipped or failed (each named on stderr); 2 bad arguments or no
input files; 130 interrupted.
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

from .. import _core, auto, loaders
from . import reading
from .files import BINARY, FAILED, NO_LOADER, NOT_DECODED, NOT_TEXT, UNREADABLE, Filter, Identity, Problems, Skip
from .files import disk_size, walk
from .options import STRATEGY_CHOICES, UsageError, integer, make_chunker
from .outputs import FIELDS, FORMATS, JsonlWriter, Output, ParquetWriter, Previous, Strategy, fields, output_format
from .outputs import output_target
from .progress import Progress

#: Files read and chunked together, so that a batch runs on all cores: up to this many files, and no more bytes than
#: the largest file of the run holds, within ``BATCH_BYTES`` (a file that would take a batch past that starts the
#: next one: the texts of a batch, with their lines or rows, are most of what a run holds in memory, which so stays
#: a small multiple of the largest file).
BATCH_FILES = 64
BATCH_BYTES = (1 << 20, 8 << 20)

#: A file larger than this (on disk) is streamed on its own with ``iter_chunks``, in bounded memory, when the
#: strategy streams (the structural ones read the whole document).
STREAM_BYTES = 32 * 1024 * 1024

#: ``--strategy auto``: how much of the start of a big file is read to choose its chunker (a file the prose chunker
#: streams is judged by its start; AutoChunker's detector reads a text up to this size whole).
AUTO_SAMPLE_BYTES = 256 << 10


def add_parser(commands: Any) -> None:
    """The ``chunk`` subcommand, on the ``chunkwise`` parser's subcommands."""
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
        choices=STRATEGY_CHOICES,
        default="recursive",
        help="auto: per file, by its name, else its content (as AutoChunker): markdown for Markdown, HTML and DOCX "
        "(title paths), table for CSV and TSV, code for source files (.py, .rs, .go, .c, .sh, ...), clause for "
        "legal provisions, recursive for prose; each chunk's metadata says which and why (strategy, "
        "strategy_reason); table: CSV and TSV files by their suffix, other files as Markdown tables",
    )
    chunk.add_argument("--size", type=integer, default=None,
                       help="largest chunk, in characters or tokens (default 512; with --tokenizer a model's folder, "
                       "the most tokens the model embeds)")
    chunk.add_argument("--overlap", type=integer, default=0, help="overlap between chunks, in characters (default 0)")
    chunk.add_argument("--min-size", type=integer, default=0, help="merge chunks smaller than this (default 0)")
    chunk.add_argument("--restart", choices=["paragraph", "line"], default=None,
                       help="fixed: start windows at paragraph (or line) breaks, so that an edit changes only the "
                       "windows around it (see FixedChunker)")
    chunk.add_argument("--rows-per-chunk", type=integer, default=None,
                       help="table (and auto's CSV and TSV files): at most this many data rows per chunk")
    chunk.add_argument("--size-includes-context", action=argparse.BooleanOptionalAction, default=None,
                       help="markdown, clause, table, code (and auto's documents of those): whether a chunk's context "
                       "(its title path, a table's header, the signatures around a piece of code), which "
                       "embedding_text carries, counts toward --size (default: yes; code: no)")
    chunk.add_argument(
        "--tokenizer", default=None, help="sizes in tokens: a tiktoken encoding (cl100k_base, o200k_base, ...), a "
        "tokenizer.json path, or a model's folder (its tokenizer.json and window: max_seq_length or model_max_length)"
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
    chunk.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    """Options first (a bad one costs nothing), then the walk, then the files; --out is replaced only at the end."""
    is_auto = args.strategy == "auto"
    chunker = make_chunker(args, "recursive" if is_auto else None)
    # Auto: the chunkers of Markdown documents and of legal provisions (the prose chunker takes the rest)
    markdown = make_chunker(args, "markdown") if is_auto else None
    clause = make_chunker(args, "clause") if is_auto else None
    # CSV and TSV files: a table chunker of their format (auto and table)
    tables = ({fmt: make_chunker(args, "table", fmt) for fmt in auto.TABLE_FORMATS}
              if is_auto or args.strategy == "table" else {})
    names = fields(args.fields)
    form = output_format(args.format, args.out)
    code: Optional[Callable[[str], Any]] = None
    # Source files: a CodeChunker of the language their name (or, with auto, their content) says, made when first
    # needed; one made now checks the options.
    if args.strategy == "code" or is_auto:
        make_chunker(args, "code")
        code = lambda language: make_chunker(args, "code", language=language)  # noqa: E731
    if args.encoding is not None:
        try:
            codecs.lookup(args.encoding)
        except LookupError:
            raise UsageError(f"--encoding {args.encoding}: unknown encoding") from None
    if args.paths.count("-") > 1:
        raise UsageError("standard input (-) can be read once")
    if form == "parquet" and args.out in (None, "-") and sys.stdout.isatty():
        raise UsageError("--format parquet writes binary data: give --out FILE (or redirect standard output)")
    previous = Previous(args.previous) if args.previous is not None else None
    if args.removed is not None and previous is None:
        raise UsageError("--removed needs --previous (the run to compare with)")
    removed_target = output_target(args.removed) if args.removed is not None else None
    out = Output(args.out)
    problems = Problems(sys.stderr)
    try:
        keep = Filter(args.include, args.exclude, args.hidden)
        files = list(walk(args.paths, problems, keep, args.follow_links))
        if not files and not problems.counts:
            out.discard()
            print("chunkwise: no input files found", file=sys.stderr)
            return 2
        show = args.progress if args.progress is not None else sys.stderr.isatty()
        started = time.perf_counter()
        progress = Progress(len(files), sum(disk_size(p) for p in files), sys.stderr, show)
        previous_ids = previous.ids if previous is not None else None
        writer: Any
        if form == "parquet":
            # (code columns: source files are code, and a Markdown code block of a known language is cut as code)
            structural = any(c is not None and c._splitter.is_structural() for c in (chunker, markdown, *tables.values()))
            writer = ParquetWriter(out.file, names, previous_ids, structural, args.tokenizer is not None,
                                   args.compression, code=code is not None or args.strategy == "markdown",
                                   strategies=is_auto)
        else:
            writer = JsonlWriter(out.file, names, previous_ids)
        run = _Run(chunker, writer, out.own, problems, args.encoding, markdown, tables, code, clause, is_auto)
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


def _write_batch(writer: Any, chunker: Any, paths: Sequence[Path], payloads: Sequence[Any], paged: bool = False,
                 strategies: Optional[Sequence[Strategy]] = None) -> List[Any]:
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


class _Run:
    """Reads, chunks and writes files: in parallel batches, a big file streamed on its own."""

    def __init__(
        self,
        chunker: Any,
        writer: Any,
        own: Set[Identity],
        problems: Problems,
        encoding: Optional[str],
        markdown: Optional[Any] = None,
        tables: Optional[Dict[str, Any]] = None,
        code: Optional[Callable[[str], Any]] = None,
        clause: Optional[Any] = None,
        is_auto: bool = False,
    ) -> None:
        self.chunker, self.writer, self.own, self.problems, self.encoding = chunker, writer, own, problems, encoding
        #: ``--strategy auto``: each document's chunker is chosen by its name, else its content (see
        #: :func:`chunkwise.auto.choose`), and its chunks' metadata say which and why.
        self.auto = is_auto
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
        strategies: List[Strategy] = []
        kind: Any = None  # the chunker of the batch being gathered
        seen = seen_bytes = 0  # files (and their bytes on disk) handled since the last batch was written

        def flush() -> None:
            nonlocal paths, payloads, sizes, strategies, seen, seen_bytes
            self._batch(paths, payloads, sizes, kind, strategies=strategies if self.auto else None)
            progress.advance(seen, seen_bytes)
            paths, payloads, sizes, strategies, seen, seen_bytes = [], [], [], [], 0, 0

        low, high = BATCH_BYTES
        budget = min(max(max(map(disk_size, files), default=0), low), high)
        try:
            for path in files:
                if reading.document_suffix(path) in loaders.SUFFIXES:
                    flush()
                    self._load(path)
                    progress.advance(1, disk_size(path))
                    continue
                if self._is_big(path):
                    flush()
                    self._stream(path, progress)
                    progress.advance(1, disk_size(path))
                    continue
                read = self._payload(path)
                chunker, strategy = self._choose(path, read[0] if read is not None else None)
                if chunker is not kind or (paths and sum(sizes) + disk_size(path) > budget):
                    flush()
                    kind = chunker
                seen += 1
                seen_bytes += disk_size(path)
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

    def _choose(self, path: Path, payload: Union[str, bytes, None]) -> Tuple[Any, Strategy]:
        """The chunker of a text file (``payload``: its text, or its start), and with ``--strategy auto`` what chose
        it and why. :mod:`chunkwise.auto` chooses: with auto, by the file's name, else its content; else by its name
        alone, for the table format (``--strategy table``) or the language (``code``) the name says."""
        if payload is None:
            return self.chunker, None  # nothing to chunk
        name = reading.document_name(path)
        if self.auto:
            return self._chosen(auto.choose_file(payload, name))
        choice = auto.choose_by_name(name, payload) if self.tables or self.code else None
        return (self._chosen(choice)[0] if choice is not None else self.chunker), None

    def _chosen(self, choice: auto.Choice) -> Tuple[Any, Strategy]:
        """The chunker of ``choice`` among this run's (code in the language the choice found, else found by the code
        chunker), or the strategy's own when the run has none for that kind."""
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

    def _load(self, path: Path) -> None:
        """An HTML, PDF or DOCX file, read into text by its loader and chunked on its own (a PDF by pages)."""
        try:
            data = reading.read(path, self.own)
            if data is None:
                return
            loaded = reading.load(path, data)
        except Skip as skip:
            self.problems.add(skip.reason, path, skip)
            return
        except loaders.MissingLoader as exc:
            self.problems.add(NO_LOADER, path, exc)
            return
        except Exception as exc:  # a file its loader cannot parse: named, and the run goes on
            self.problems.add(UNREADABLE, path, f"cannot read as {reading.document_suffix(path)[1:].upper()}: {exc}")
            return
        try:
            text = reading.loaded_text(loaded)
        except Exception as exc:
            self.problems.add(FAILED, path, exc)
            return
        strategy: Strategy = None
        if not self.auto:
            chunker = self._choose(path, text)[0]
        elif loaded.markdown:
            chunker, strategy = self.markdown, ("markdown", f"file name {reading.document_suffix(path)}: read as Markdown")
        else:  # a PDF's text: by its content
            chunker, strategy = self._chosen(auto.choose(text))
        self._batch([path], [text], [len(data)], chunker, paged=loaded.pages is not None,
                    strategies=[strategy] if self.auto else None)

    def _is_big(self, path: Path) -> bool:
        if not self.streams or str(path) == "-" or self.encoding is not None:
            return False
        try:
            return os.stat(path).st_size > STREAM_BYTES
        except OSError:
            return False  # reported when read

    def _payload(self, path: Path) -> Optional[Tuple[Union[str, bytes], int]]:
        """What the writer chunks of a text file (see :func:`.reading.payload`), and its (decompressed) size; None
        for a file left out (reported)."""
        try:
            data = reading.read(path, self.own)
            if data is None:
                return None
            if reading.is_binary(data):
                raise Skip(BINARY, "binary")
            return reading.payload(data, self.encoding), len(data)
        except Skip as skip:
            self.problems.add(skip.reason, path, skip)
        except UnicodeDecodeError as exc:
            self.problems.add(NOT_DECODED if self.encoding else NOT_TEXT, path, exc)
        return None

    def _batch(self, paths: List[Path], payloads: List[Any], sizes: List[int], chunker: Any = None,
               paged: bool = False, strategies: Optional[List[Strategy]] = None) -> None:
        if not paths:
            return
        results = _write_batch(self.writer, chunker or self.chunker, paths, payloads, paged, strategies)
        _core._release_memory()
        for k, (path, size, result) in enumerate(zip(paths, sizes, results)):
            strategy = strategies[k] if strategies else None
            if (isinstance(result, ValueError) and not isinstance(result, UnicodeDecodeError) and strategy
                    and strategy[0] == "table"):
                # Auto: named as a table, or shaped like one at its start, but not one: prose, as AutoChunker does.
                fmt = "tsv" if chunker is self.tables.get("tsv") else "csv"
                prose = auto.not_a_table(auto.Choice(*strategy, table_format=fmt), result)
                result = _write_batch(self.writer, self.chunker, [path], [payloads[k]], paged,
                                      [(prose.strategy, prose.reason)])[0]
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
            f = reading.open_file(path, self.own)
            if f is None:
                return
            with f:
                reader = io.BufferedReader(f) if not hasattr(f, "peek") else f  # type: ignore[arg-type,type-var]
                head = reader.peek(reading.BINARY_HEAD)[: reading.BINARY_HEAD]
                if reading.is_binary(head):
                    raise Skip(BINARY, "binary")
                if reading.wide_codec(head) is not None:
                    # UTF-16/32: the core streams UTF-8 only; such a file is read whole.
                    read = self._payload(path)
                    if read is not None:
                        chunker, chosen = self._choose(path, read[0])
                        self._batch([path], [read[0]], [read[1]], chunker, strategies=[chosen] if self.auto else None)
                    return
                if head.startswith(codecs.BOM_UTF8):
                    reader.read(len(codecs.BOM_UTF8))  # not part of the text, as in a file read whole
                strategy: Strategy = None
                body: Any = reader
                if self.auto:
                    # Its start says which chunker: the prose chunker streams; the others read the whole document.
                    start = reader.read(AUTO_SAMPLE_BYTES)
                    chunker, strategy = self._choose(path, start)
                    if chunker is not self.chunker:
                        data = start + reader.read()
                        self._batch([path], [data], [len(data)], chunker, strategies=[strategy])
                        return
                    body = reading.Prefixed(start, reader)
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
        except Skip as skip:
            self.problems.add(skip.reason, path, skip)
        except UnicodeDecodeError as exc:
            self.problems.add(NOT_TEXT, path, exc)
        except OSError as exc:
            self.problems.add(UNREADABLE, path, exc.strerror or exc)
        except ValueError as exc:  # ChunkingError: not UTF-8, a page break in a stream, ...
            self.problems.add(FAILED, path, exc)


def _source(path: Path) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
