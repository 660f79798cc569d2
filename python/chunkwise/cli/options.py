"""What the commands share of their options: the usage error, numbers and tokenizers as typed, the strategies, and
the chunker of a command's options (``chunk``, ``inspect`` and ``eval`` build theirs alike: the same checks, the
same errors)."""

from __future__ import annotations

import argparse
import functools
import inspect
import os
import re
import sys
from typing import Any, Dict, Optional, Union

from .. import (
    ClauseChunker,
    CodeChunker,
    FixedChunker,
    MarkdownChunker,
    ParagraphChunker,
    RecursiveChunker,
    SentenceChunker,
    TableChunker,
    Tokenizer,
)

#: The chunker of each ``--strategy``.
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

#: What ``--strategy`` takes in ``chunk`` and ``inspect``: a strategy, or auto (per file, as AutoChunker chooses).
STRATEGY_CHOICES = sorted([*STRATEGIES, "auto"])


class UsageError(Exception):
    """A bad option, reported as ``chunkwise: error: ...`` with exit status 2, before any file is read."""


def integer(value: str) -> int:
    """An int the core can take: a bigger one would surface as an OverflowError traceback, not as a usage error."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if abs(number) > sys.maxsize:
        raise argparse.ArgumentTypeError(f"{value} is out of range (at most {sys.maxsize})")
    return number


@functools.lru_cache(maxsize=8)
def parse_tokenizer(value: Optional[str]) -> Optional[Tokenizer]:
    """What ``--tokenizer`` names: a tiktoken encoding name, the path of a tokenizer.json, or a model's folder (its
    tokenizer, knowing the model's window: see ``Tokenizer.for_model``). Read once per run: auto's code chunkers are
    made per file."""
    if value is None:
        return None
    try:
        if os.path.isdir(value):
            return Tokenizer.for_model(value)
        if value.endswith(".json") or os.sep in value or os.path.exists(value):
            return Tokenizer.from_file(value)
        return Tokenizer.tiktoken(value)
    except (OSError, ValueError) as exc:
        raise UsageError(f"--tokenizer {value}: {exc}") from None


def _takes(strategy: str, argument: str) -> bool:
    """Whether the chunker of ``strategy`` takes ``argument``: what an option applies to is read from the chunkers'
    own signatures, so that it cannot drift from them."""
    return argument in inspect.signature(STRATEGIES[strategy]).parameters


#: The strategies whose chunks carry a context (their section's title path, a table's header, the signatures around
#: a piece of code).
SECTION_STRATEGIES = tuple(s for s in STRATEGIES if _takes(s, "size_includes_context"))


def make_chunker(args: argparse.Namespace, strategy: Optional[str] = None, table_format: str = "markdown",
                 language: str = "auto") -> Any:
    """The chunker of a command's options (see :func:`build_chunker`); ``strategy`` in place of ``--strategy``,
    which may be auto."""
    return build_chunker(strategy or args.strategy, args.size, args.overlap, args.tokenizer, min_size=args.min_size,
                         restart=args.restart, rows_per_chunk=args.rows_per_chunk,
                         size_includes_context=args.size_includes_context, table_format=table_format,
                         chosen=args.strategy, language=language)


def build_chunker(strategy: str, size: Optional[int], overlap: int, tokenizer: Union[Tokenizer, str, None] = None, *,
                  min_size: int = 0, restart: Optional[str] = None, rows_per_chunk: Optional[int] = None,
                  size_includes_context: Optional[bool] = None, table_format: str = "markdown",
                  chosen: Optional[str] = None, language: str = "auto") -> Any:
    """The chunker of ``chunk``, ``inspect`` and ``eval``: options that do not apply to ``strategy`` are usage
    errors, and the core's checks of size and overlap are reworded to name the options as the user typed them.
    ``tokenizer``: a Tokenizer, or what ``--tokenizer`` takes; ``chosen``: the ``--strategy`` given, when it is auto
    and ``strategy`` the one auto takes for a file; ``language``: code's, by the file's name. ``size`` None: the
    most tokens the tokenizer's model embeds when it knows (a model's folder), else 512."""
    chosen = strategy if chosen is None else chosen
    if isinstance(tokenizer, str):
        tokenizer = parse_tokenizer(tokenizer)
    if size is None and (tokenizer is None or tokenizer.max_tokens is None):
        size = 512
    kwargs: Dict[str, Any] = {"size": size, "overlap": overlap}
    if strategy == "code":
        kwargs["language"] = language
    if strategy == "table":
        kwargs["format"] = table_format
    if rows_per_chunk is not None:
        if _takes(strategy, "rows_per_chunk"):
            kwargs["rows_per_chunk"] = rows_per_chunk
        elif chosen not in ("auto", "table"):
            raise UsageError(f"--rows-per-chunk applies to --strategy table or auto (CSV and TSV files), not to {strategy}")
    if min_size:
        if not _takes(strategy, "min_size"):
            raise UsageError(f"--min-size does not apply to --strategy {strategy} (it cuts whole windows or rows)")
        kwargs["min_size"] = min_size
    if restart is not None:
        if not _takes(strategy, "restart"):
            raise UsageError(f"--restart applies to --strategy fixed, not to {strategy}")
        kwargs["restart"] = restart
    if size_includes_context is not None:
        if strategy in SECTION_STRATEGIES:
            kwargs["size_includes_context"] = size_includes_context
        elif chosen != "auto":  # auto: it applies to the Markdown documents
            raise UsageError(f"--[no-]size-includes-context applies to --strategy {', '.join(SECTION_STRATEGIES)} or auto "
                             "(the strategies whose chunks carry a context), not to " + strategy)
    if tokenizer is not None:
        kwargs["tokenizer"] = tokenizer
    try:
        return STRATEGIES[strategy](**kwargs)
    except ValueError as exc:  # ChunkingError: "size must be >= 1, got 0", "overlap must be < size (0..=9), ..."
        raise UsageError(re.sub(r"\b(size|overlap|min_size|rows_per_chunk)\b", lambda m: "--" + m[1].replace("_", "-"), str(exc))) from None
