"""``chunkwise inspect FILE --strategy recursive --strategy markdown --out page.html``: one file cut by each
``--strategy``, side by side on an HTML page (:mod:`chunkwise.inspector`), its chunkers built and its file read as
``chunkwise chunk`` builds and reads them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from .. import auto, inspector, loaders
from . import reading
from .files import Skip
from .options import STRATEGY_CHOICES, UsageError, integer, make_chunker
from .outputs import output_target


def add_parser(commands: Any) -> None:
    """The ``inspect`` subcommand, on the ``chunkwise`` parser's subcommands."""
    p = commands.add_parser(
        "inspect",
        help="an HTML page that shows where the chunks of a file fall",
        description="Write a self-contained HTML page that shows FILE with its chunks as coloured spans (overlaps "
        "hatched), each chunk's metadata on hover, and a histogram of sizes; several --strategy side by side.",
    )
    p.add_argument("file", metavar="FILE", help="a text file (as chunk reads it: UTF-8, compressed, HTML, ...)")
    p.add_argument("--strategy", action="append", choices=STRATEGY_CHOICES, default=None,
                   help="repeat for columns side by side (default: recursive)")
    p.add_argument("--size", type=integer, default=512, help="largest chunk (default 512)")
    p.add_argument("--overlap", type=integer, default=0, help="overlap between chunks (default 0)")
    p.add_argument("--min-size", type=integer, default=0, help="merge chunks smaller than this (default 0)")
    p.add_argument("--tokenizer", default=None, help="sizes in tokens: a tiktoken encoding or a tokenizer.json")
    p.add_argument("--out", required=True, help="the HTML file to write (- for standard output)")
    p.set_defaults(func=command, restart=None, rows_per_chunk=None, size_includes_context=None)


def _read(path: Path, given: str) -> Tuple[str, Optional[loaders.Loaded]]:
    """The text of the file ``path`` (``given``, as typed), and what its loader made of it (HTML, PDF, DOCX)."""
    try:
        data = reading.read(path, set())
        assert data is not None  # (None stands for a file of the run's own output: there is none here)
        if reading.document_suffix(path) not in loaders.SUFFIXES:
            return reading.decode(data), None
        loaded = reading.load(path, data)
        return reading.loaded_text(loaded), loaded
    except Skip as skip:
        raise UsageError(f"FILE {given}: {skip}") from None
    except (ValueError, ImportError) as exc:  # not UTF-8, no loader installed, a file its loader cannot parse
        raise UsageError(f"FILE {given}: cannot read as text: {exc}") from None


def command(args: argparse.Namespace) -> int:
    path = Path(args.file)
    names = args.strategy or ["recursive"]
    for name in names:
        if name != "auto":
            make_chunker(args, name)  # the options, checked before the file is read (auto's once it is)
    target = output_target(args.out)
    text, loaded = _read(path, args.file)
    # What the file's name says, as ``chunk`` reads it: a table's format, code's language (the page chunks the text
    # alone, without its name).
    named = auto.choose_by_name(reading.document_name(path), text)
    table_format = named.table_format if named is not None and named.table_format else "markdown"
    language = named.language if named is not None and named.language else "auto"
    chunkers: Dict[str, Any] = {}
    for name in names:
        strategy, fmt = name, table_format
        if name == "auto":  # what ``chunk --strategy auto`` takes for this file: by its name, else its content
            if loaded is not None and loaded.markdown:
                strategy, fmt = "markdown", "markdown"  # HTML and DOCX are read as Markdown
            else:
                choice = auto.choose(text, reading.document_name(path) if loaded is None else None)
                strategy = "recursive" if choice.strategy == "prose" else choice.strategy
                fmt = choice.table_format or "markdown"
            name = f"auto ({strategy})"
        label, n = name, 2
        while label in chunkers:
            label, n = f"{name} #{n}", n + 1
        chunkers[label] = make_chunker(args, strategy, fmt, language=language)
    title = "standard input" if str(path) == "-" else path.name
    try:
        if target is None:
            sys.stdout.write(inspector.render(text, chunkers, title=title))
        else:
            inspector.write(target, text, chunkers, title=title)
    except ValueError as exc:  # ChunkingError
        print(f"chunkwise: failed {args.file}: {exc}", file=sys.stderr)
        return 1
    print(f"chunkwise: {args.out}: {args.file} ({len(text):,} characters) cut by {', '.join(chunkers)}",
          file=sys.stderr)
    return 0
