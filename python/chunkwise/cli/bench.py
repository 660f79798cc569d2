"""``chunkwise bench FILE... [--size 512] [--rounds 3] [--only NAME] [--json PATH] [--plot PNG]``: the throughput
of chunkwise and of every installed peer splitter on the user's files (:mod:`chunkwise.benchmark`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .. import benchmark
from .options import UsageError, integer
from .progress import StatusLine


def add_parser(commands: Any) -> None:
    """The ``bench`` subcommand, on the ``chunkwise`` parser's subcommands."""
    p = commands.add_parser(
        "bench", help="throughput of chunkwise and the installed peer splitters on your files",
        description="Split each FILE with chunkwise and with every installed peer (LangChain, "
                    "semantic-text-splitter, chonkie, semchunk, LlamaIndex) at each --size in characters, without "
                    "overlap, and print MB/s and chunkwise's ratio over each.",
        epilog="Each time is the fastest of --rounds calls after an untimed warm-up; MB are 10**6 bytes of UTF-8. "
               "Peers that are not installed are listed as skipped. Exit status: 0, or 2 for bad options or files.")
    p.add_argument("files", nargs="+", help="UTF-8 text files")
    p.add_argument("--size", action="append", type=integer, default=None,
                   help="chunk size in characters (repeatable; default 512)")
    p.add_argument("--rounds", type=integer, default=3, help="timed calls per measure (default 3)")
    p.add_argument("--only", action="append", choices=list(benchmark.IMPLEMENTATIONS), default=None,
                   help="measure only these implementations (repeatable; chunkwise's chunks are always measured)")
    p.add_argument("--json", default=None, metavar="PATH", help="also write the figures as JSON here")
    p.add_argument("--plot", default=None, metavar="PNG", help="also draw MB/s per implementation (matplotlib)")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    sizes = args.size or [512]
    if any(s < 1 for s in sizes):
        raise UsageError(f"--size must be >= 1, got {min(sizes)}")
    if args.rounds < 1:
        raise UsageError(f"--rounds must be >= 1, got {args.rounds}")
    paths = [Path(f) for f in args.files]
    for p in paths:
        if not p.is_file():
            raise UsageError(f"{p}: not a file")
        try:
            p.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{p}: cannot be read as UTF-8 text: {exc}") from None
    if args.plot:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("--plot needs matplotlib: pip install matplotlib")
    status = StatusLine("chunkwise bench")
    bench = benchmark.run(paths, sizes, args.rounds, args.only, status.show)
    status.clear()
    print(bench.table(), end="")
    if args.json:
        Path(args.json).write_text(bench.to_json() + "\n", encoding="utf-8")
    if args.plot:
        bench.plot(args.plot)
    return 0
