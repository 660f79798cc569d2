"""``chunkwise query URI "text" [-k 5] [--embed MODEL] [--json]``: the chunks of a store nearest a text, with their
source, offsets, title path and score, to check an ingestion end to end (see :func:`chunkwise.ingest.query`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._core import ChunkingError
from .ingest import add_embed_options
from .options import integer


def add_parser(commands: Any) -> None:
    """The ``query`` subcommand, on the ``chunkwise`` parser's subcommands."""
    p = commands.add_parser(
        "query",
        help="the chunks of a vector store nearest a text (source, offsets, title path, score)",
        description="Print the chunks of a store (as chunkwise ingest wrote it) nearest TEXT, best first.",
    )
    p.add_argument("uri", metavar="URI", help="the store: lance://FOLDER or a folder, or postgresql://...")
    p.add_argument("text", metavar="TEXT", help="what to look for")
    p.add_argument("-k", type=integer, default=5, help="how many chunks (default 5)")
    add_embed_options(p)
    p.add_argument("--table", default="chunks", help="the store's table of chunks (default chunks)")
    p.add_argument("--json", action="store_true", help="one JSON object per chunk instead of text")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    from ..ingest import query
    from .options import UsageError

    if args.k < 1:
        raise UsageError(f"-k must be at least 1, got {args.k}")
    try:
        rows = query(args.uri, args.text, args.k, args.embed, table=args.table, embed_id=args.embed_id)
    except (ChunkingError, ImportError, TypeError, ValueError) as exc:
        print(f"chunkwise: error: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout
    for rank, row in enumerate(rows, 1):
        if args.json:
            keep = {k: row[k] for k in ("score", "id", "doc_id", "start", "end", "title_path", "text", "metadata")}
            out.write(json.dumps(keep, ensure_ascii=False) + "\n")
            continue
        title = " > ".join(row["title_path"])
        out.write(f"{rank}. {row['score']:.4f}  {row['doc_id']} [{row['start']}:{row['end']}]"
                  f"{'  ' + title if title else ''}\n")
        out.write("".join(f"    {line}\n" for line in row["text"].splitlines() or [""]))
    if not rows:
        print("chunkwise: the store holds no chunks", file=sys.stderr)
    return 0
