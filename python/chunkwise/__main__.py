"""Command line: ``chunkwise chunk PATH... [--strategy recursive] [--size 512] [--overlap 0] [--out chunks.jsonl]``.

Writes one JSON object per chunk (text, start, end, source, index, id, level, size, metadata) and a summary on
stderr (documents, chunks, MB/s). Folders are walked recursively; many files are chunked in parallel batches.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, TextIO

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


def _walk(paths: Sequence[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for name in sorted(files):
                    if not name.startswith("."):
                        yield Path(root) / name
        else:
            yield path


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
    chunker_cls = STRATEGIES[args.strategy]
    chunker = chunker_cls(size=args.size, overlap=args.overlap)
    files = list(_walk(args.paths))
    if not files:
        print("chunkwise: no input files found", file=sys.stderr)
        return 2
    show = args.progress if args.progress is not None else (len(files) > 1 and sys.stderr.isatty())
    progress = _Progress(len(files), sys.stderr, show)
    out: TextIO = sys.stdout if args.out in (None, "-") else open(args.out, "w", encoding="utf-8")
    documents = chunks = failed = 0
    nbytes = 0
    started = time.perf_counter()
    try:
        for i in range(0, len(files), BATCH_FILES):
            batch = files[i : i + BATCH_FILES]
            texts: List[str] = []
            sources: List[str] = []
            for path in batch:
                try:
                    data = path.read_bytes()
                    texts.append(data.decode("utf-8"))
                except (OSError, UnicodeDecodeError) as exc:
                    failed += 1
                    print(f"chunkwise: skipped {path}: {exc}", file=sys.stderr)
                    continue
                nbytes += len(data)
                sources.append(str(path))
            results = chunker.chunk_batch(texts, [{"source": s} for s in sources])
            for source, doc_chunks in zip(sources, results):
                for c in doc_chunks:
                    record = {
                        "text": c.text,
                        "start": c.start,
                        "end": c.end,
                        "source": source,
                        "index": c.index,
                        "id": c.id,
                        "level": c.level,
                        "size": c.size,
                        "metadata": c.metadata,
                    }
                    out.write(json.dumps(record, ensure_ascii=False))
                    out.write("\n")
                chunks += len(doc_chunks)
            documents += len(sources)
            progress.advance(len(batch))
    finally:
        progress.close()
        if out is not sys.stdout:
            out.close()
    elapsed = max(time.perf_counter() - started, 1e-9)
    print(
        f"chunkwise: {_count(documents, 'document')}, {_count(chunks, 'chunk')}, {nbytes / 1e6:.2f} MB in {elapsed:.2f} s "
        f"({nbytes / 1e6 / elapsed:.1f} MB/s)" + (f", {failed} skipped" if failed else ""),
        file=sys.stderr,
    )
    return 1 if failed else 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chunkwise", description="Fast, structure- and CJK-aware text chunking.")
    parser.add_argument("--version", action="version", version=f"chunkwise {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    chunk = commands.add_parser("chunk", help="chunk files (folders are walked recursively) into JSON lines")
    chunk.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (UTF-8 text)")
    chunk.add_argument("--strategy", choices=sorted(STRATEGIES), default="recursive")
    chunk.add_argument("--size", type=int, default=512, help="largest chunk, in characters (default 512)")
    chunk.add_argument("--overlap", type=int, default=0, help="overlap between chunks, in characters (default 0)")
    chunk.add_argument("--out", default=None, help="output file (JSON lines); default: standard output")
    bar = chunk.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")
    chunk.set_defaults(func=_chunk_command)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``chunkwise`` command."""
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:  # ChunkingError included: bad --size / --overlap
        print(f"chunkwise: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
