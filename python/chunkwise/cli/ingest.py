"""``chunkwise ingest PATH... --into URI [--embed minilm | --embed module:function] [--table T] [--cache PATH]``.

Keeps a vector store in sync with files (read as ``chunkwise chunk`` reads them, chunked with ``--strategy auto``):
only the chunks whose embedded text changed are embedded, a deleted file's chunks leave the store, and a second run
of the same tree embeds and writes nothing (see :func:`chunkwise.ingest.ingest`). A summary goes to stderr.

Exit status: 0 every file ingested; 1 some were skipped (each named on stderr), or the store or the embedder failed;
2 bad arguments; 130 interrupted (the store is left as a later run can finish: see the docs).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from .._core import ChunkingError
from .options import integer

#: What a store URI may be (chunkwise ingest --into, chunkwise query URI).
STORE_HELP = ("the store: lance://FOLDER or a folder (LanceDB), postgresql://USER@HOST/DB (PostgreSQL with pgvector), "
              "or qdrant://FOLDER (Qdrant, local mode)")


def add_embed_options(p: Any) -> None:
    """``--embed`` and ``--embed-id``, which ``ingest`` and ``query`` share."""
    p.add_argument("--embed", default="minilm", metavar="MODEL",
                   help="minilm (all-MiniLM-L6-v2 in numpy, offline; the default), or module:function, a callable "
                   "list[str] -> 2-D array (or a class or function that makes one when called without arguments)")
    p.add_argument("--embed-id", default=None,
                   help="the model's identity, which keys the cache and is stored with each vector (default: the "
                   "embedder's model_id or name attribute, else the module:function given)")


def add_parser(commands: Any) -> None:
    """The ``ingest`` subcommand, on the ``chunkwise`` parser's subcommands."""
    p = commands.add_parser(
        "ingest",
        help="chunk, embed and write files into a vector store, re-embedding only what changed",
        description="Keep a vector store in sync with files: chunk them (as chunk --strategy auto), embed what "
        "changed, write it, delete what is gone.",
        epilog="A second run of the same tree embeds and writes nothing; a document under a folder given that is no "
        "longer there leaves the store. Exit status: 0 all ingested, 1 some files skipped or a failure, 2 bad "
        "arguments, 130 interrupted.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (as chunkwise chunk reads them)")
    p.add_argument("--into", required=True, metavar="URI", help=STORE_HELP)
    add_embed_options(p)
    p.add_argument("--table", default="chunks", help="the store's table of chunks (default chunks)")
    p.add_argument("--cache", default=None, metavar="PATH",
                   help="a SQLite file of vectors by model and text, kept across runs (default: none)")
    p.add_argument("--size", type=integer, default=512,
                   help="largest chunk, in characters, or in tokens with --tokenizer (default 512)")
    p.add_argument("--tokenizer", default=None,
                   help="sizes in tokens: a tiktoken encoding (cl100k_base, ...), a tokenizer.json path, or a model's "
                   "folder (as chunkwise chunk takes it)")
    p.add_argument("--batch-size", type=integer, default=256, help="texts per call of the embedder (default 256)")
    p.add_argument("--include", action="append", default=[], metavar="GLOB",
                   help="in folders, read only files whose relative path or name matches (repeatable)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="in folders, leave out files and folders whose relative path or name matches (repeatable)")
    p.add_argument("--hidden", action="store_true", help="in folders, read names starting with a dot too")
    p.add_argument("--follow-links", action="store_true", help="walk linked folders too (each folder once)")
    p.add_argument("--encoding", default=None, help="decode files with this codec instead of UTF-8")
    p.add_argument("--skip-boilerplate", action="store_true",
                   help="leave out the chunks made only of lines that half of the files share (navigation, footers) "
                   "or of a paged file's running heads and feet; without it they are flagged (boilerplate in metadata)")
    p.add_argument("--lock-timeout", type=float, default=None, metavar="SECONDS",
                   help="how long to wait for another run writing to the same table to end, then fail (default 10; "
                   "0 fails at once)")
    p.add_argument("--no-boilerplate", action="store_true",
                   help="do not look for boilerplate: no first pass over every file, no flags")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    from .. import AutoChunker
    from ..ingest import ingest
    from ..ingest.stores import LOCK_TIMEOUT
    from .options import UsageError, parse_tokenizer

    if args.size < 1:
        raise UsageError(f"--size must be at least 1, got {args.size}")
    if args.batch_size < 1:
        raise UsageError(f"--batch-size must be at least 1, got {args.batch_size}")
    lock_timeout = LOCK_TIMEOUT if args.lock_timeout is None else args.lock_timeout
    if not (lock_timeout >= 0 and lock_timeout != float("inf")):
        raise UsageError(f"--lock-timeout must be a number of seconds >= 0, got {args.lock_timeout}")
    if args.skip_boilerplate and args.no_boilerplate:
        raise UsageError("--skip-boilerplate and --no-boilerplate exclude each other")
    if "-" in args.paths:
        raise UsageError("standard input (-) has no stable document id to keep a store in sync with: give files")
    chunker = AutoChunker(size=args.size, tokenizer=parse_tokenizer(args.tokenizer))
    started = time.perf_counter()
    try:
        report = ingest(args.paths, args.into, args.embed, chunker, table=args.table,
                        cache=args.cache, embed_id=args.embed_id, include=args.include, exclude=args.exclude,
                        hidden=args.hidden, follow_links=args.follow_links, encoding=args.encoding,
                        batch_size=args.batch_size, log=sys.stderr, boilerplate=not args.no_boilerplate,
                        skip_boilerplate=args.skip_boilerplate, lock_timeout=lock_timeout)
    except (ChunkingError, ImportError, TypeError, ValueError, LookupError) as exc:
        print(f"chunkwise: error: {exc}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    print(f"chunkwise: {report.summary()} in {elapsed:.2f} s", file=sys.stderr)
    if report.skipped:
        print(f"chunkwise: {len(report.skipped)} files skipped (named above; their stored chunks kept)",
              file=sys.stderr)
    return 1 if report.skipped else 0
