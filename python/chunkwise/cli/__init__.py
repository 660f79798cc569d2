"""The ``chunkwise`` command: :func:`main` parses the command line and runs one command.

One module per command (``chunk``, ``inspect``, ``eval``, ``bench``, ``ingest``, ``query``: each adds its
subparser and runs it); what they share lives in modules of its own: ``options`` (the usage error, the strategies,
a chunker from options), ``files`` (which files a run reads, and those it leaves out), ``reading`` (open,
decompress, decode), ``outputs`` (JSON lines and Parquet) and ``progress``. Which strategy a file gets is :mod:`chunkwise.auto`'s choice.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from .. import _heap
from .._core import __version__
from .options import UsageError

__all__ = ["main", "run"]


def parser() -> argparse.ArgumentParser:
    """The ``chunkwise`` parser, a subcommand per command module."""
    # The command modules are imported here, not with this package: chunkwise.evaluation shows its progress with
    # .progress, and importing the eval command along with this package would import it back half-made.
    from . import bench, chunk, eval, ingest, inspect, query

    top = argparse.ArgumentParser(prog="chunkwise", description="Fast, structure- and CJK-aware text chunking.")
    top.add_argument("--version", action="version", version=f"chunkwise {__version__}")
    commands = top.add_subparsers(dest="command", required=True)
    for command in (chunk, inspect, eval, bench, ingest, query):
        command.add_parser(commands)
    return top


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``chunkwise`` command: its exit status."""
    try:
        args = parser().parse_args(argv)
        return args.func(args)
    except UsageError as exc:
        print(f"chunkwise: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("chunkwise: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def run(argv: Optional[Sequence[str]] = None) -> int:
    """The ``chunkwise`` command, in a process of its own: :func:`main`, with the process's allocator settled."""
    _heap.settle()
    return main(argv)
