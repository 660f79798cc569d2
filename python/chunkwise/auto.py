"""A chunker that picks the strategy for each document: Markdown, code, a CSV/TSV table, legal provisions or prose,
from the document's file name when it has one (``metadata["source"]``), else from its content."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import _core
from ._core import Tokenizer
from .chunk import Chunk
from .chunkers import (
    BaseChunker,
    ClauseChunker,
    CodeChunker,
    MarkdownChunker,
    RecursiveChunker,
    TableChunker,
    _as_dict,
    _batch_metadatas,
    _Configured,
    _given,
    _text_or_pages,
)
from .record import metadata_keys

__all__ = [
    "AutoChunker", "Choice", "STRATEGY_KEYS", "TABLE_FORMATS", "choose", "choose_by_name", "choose_file", "not_a_table",
]

#: The keys :class:`AutoChunker` sets in every chunk's metadata.
STRATEGY_KEYS = metadata_keys("strategy")

#: The kinds of document, each with the chunker it gets unless overridden.
KINDS = ("markdown", "code", "table", "clause", "prose")

#: The formats of tables, each read by a TableChunker of its own.
TABLE_FORMATS = ("csv", "tsv")

#: How much of a text's start :func:`choose_by_name` passes on: the core reads a header's first 64 KB to tell C++
#: from C.
NAME_HEAD = 1 << 16


class Choice(NamedTuple):
    """Which strategy a document gets (one of ``KINDS``), and why."""

    strategy: str
    reason: str
    #: The table format ("csv" or "tsv") for a table.
    table_format: Optional[str] = None
    #: The language of code, when the file name, a shebang or the code's keywords say which.
    language: Optional[str] = None


class AutoChunker(_Configured):
    """Chunks each document with the strategy that fits it, and says which in every chunk's metadata
    (``strategy``, ``strategy_reason``).

    The choice (see :meth:`choose`): by the file name in ``metadata["source"]`` first (``.md`` is Markdown, ``.csv``
    / ``.tsv`` a table, a source file of a language :class:`CodeChunker` knows is code); for a ``.txt``, a name
    without a known suffix, or no name, by the content: code (a shebang, or most lines shaped like code), a CSV or
    TSV table (every line of the same number of fields), Markdown (headings, fenced code, tables, links), legal
    provisions (numbered articles, 第X条, §), else prose. The core decides (``chunkwise._core.detect``), from a
    bounded sample of the text: the whole text up to 256 KB, else eight windows of 32 KB spread over it.

    Each kind has a chunker made with ``size``, ``overlap``, ``unit``, ``tokenizer`` and ``max_chars``
    (:class:`MarkdownChunker`, :class:`CodeChunker`, :class:`TableChunker`, :class:`ClauseChunker`,
    :class:`RecursiveChunker`); pass ``markdown=``, ``code=``, ``table=``, ``clause=`` or ``prose=`` to use your own.
    A file named as a table that is not one is chunked as prose, and the reason says so.
    """

    _strategy = "auto"

    def __init__(
        self,
        size: int = 512,
        overlap: int = 0,
        *,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
        markdown: Optional[BaseChunker] = None,
        code: Optional[BaseChunker] = None,
        table: Optional[BaseChunker] = None,
        clause: Optional[BaseChunker] = None,
        prose: Optional[BaseChunker] = None,
    ) -> None:
        self._kwargs = _given(locals())
        common: Dict[str, Any] = dict(unit=unit, tokenizer=tokenizer, max_chars=max_chars)
        given = {"markdown": markdown, "code": code, "table": table, "clause": clause, "prose": prose}
        for kind, chunker in given.items():
            if chunker is not None and not isinstance(chunker, BaseChunker):
                raise TypeError(f"{kind} must be a chunkwise chunker, got {type(chunker).__name__}")
        self._chunkers: Dict[str, BaseChunker] = {
            "markdown": markdown or MarkdownChunker(size, overlap, **common),
            "code": code or CodeChunker(size, overlap, **common),
            "clause": clause or ClauseChunker(size, overlap, **common),
            "prose": prose or RecursiveChunker(size, overlap, **common),
        }
        # A table chunker per format, unless one is given for all.
        self._tables: Dict[str, BaseChunker] = (
            {"csv": table, "tsv": table}
            if table is not None
            else {f: TableChunker(size, overlap, format=f, **common) for f in TABLE_FORMATS}
        )

    # -- the choice ------------------------------------------------------------------------------------------------

    def choose(self, text: str, source: Union[str, os.PathLike, None] = None) -> Choice:
        """The strategy for ``text`` (named ``source``, a file name or path, when known), and why (see
        :func:`choose`)."""
        return choose(text, source)

    # -- calls -----------------------------------------------------------------------------------------------------

    def chunk(
        self,
        text: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        *,
        pages: Optional[Sequence[str]] = None,
    ) -> List[Chunk]:
        """The chunks of ``text`` by the strategy :meth:`choose` picks for it (``metadata["source"]`` names the
        file); ``metadata`` and ``pages`` as for :meth:`BaseChunker.chunk`."""
        text = _text_or_pages(text, pages)
        metadata = _as_dict(metadata, "metadata")
        choice = self._choice(text, metadata)
        try:
            return self._chunk_as(choice, text, metadata, pages)
        except _core.ChunkingError as exc:
            if choice.strategy != "table":
                raise
            return self._chunk_as(not_a_table(choice, exc), text, metadata, pages)

    def _chunk_as(
        self, choice: Choice, text: str, metadata: Optional[dict], pages: Optional[Sequence[str]]
    ) -> List[Chunk]:
        meta = _with_choice(metadata, choice)
        chunker = self.chunker_for(choice)
        if pages is not None:
            return chunker.chunk(metadata=meta, pages=pages)
        return chunker.chunk(text, meta)

    def chunk_batch(
        self,
        texts: Sequence[str],
        metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    ) -> List[List[Chunk]]:
        """:meth:`chunk` for many texts: those that get the same chunker are chunked in one batch, in parallel."""
        texts, dicts = _batch_metadatas(texts, metadatas)
        groups: Dict[int, Tuple[BaseChunker, List[int], List[dict]]] = {}
        out: List[List[Chunk]] = [[] for _ in texts]
        for i, (text, meta) in enumerate(zip(texts, dicts)):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] must be a str, got {type(text).__name__}")
            choice = self._choice(text, meta)
            if choice.strategy == "table":
                # Alone: a text that is not a table falls back to prose without failing the batch.
                out[i] = self.chunk(text, meta)
                continue
            chunker = self.chunker_for(choice)
            group = groups.setdefault(id(chunker), (chunker, [], []))
            group[1].append(i)
            group[2].append(_with_choice(meta, choice))
        def run(group: Tuple[BaseChunker, List[int], List[dict]]) -> None:
            chunker, indices, metas = group
            for i, chunks in zip(indices, chunker.chunk_batch([texts[i] for i in indices], metas)):
                out[i] = chunks

        work = list(groups.values())
        if len(work) > 1:
            # The groups at once: each batch runs in the core without the GIL, and one long document of one kind
            # (a big source file, the slowest to cut) need not leave the other cores idle.
            with ThreadPoolExecutor(min(len(work), os.cpu_count() or 1)) as pool:
                list(pool.map(run, work))
        else:
            for group in work:
                run(group)
        return out

    def split(self, text: str) -> List[str]:
        """The chunks' texts (the strategy chosen by content)."""
        return self.chunker_for(self.choose(text)).split(text)

    def spans(self, text: str):
        """The chunks' ``(start, end)`` offsets (the strategy chosen by content), as :meth:`BaseChunker.spans`."""
        return self.chunker_for(self.choose(text)).spans(text)

    def chunker_for(self, choice: Choice) -> BaseChunker:
        """The chunker that documents of ``choice`` get."""
        if choice.strategy == "table":
            return self._tables[choice.table_format or "csv"]
        return self._chunkers[choice.strategy]

    def _choice(self, text: str, metadata: Optional[dict]) -> Choice:
        if metadata is not None:
            taken = [k for k in STRATEGY_KEYS if k in metadata]
            if taken:
                raise _core.ChunkingError(f"metadata key {taken[0]!r} is set by AutoChunker on every chunk: rename it")
        source = metadata.get("source") if metadata else None
        return self.choose(text, source if isinstance(source, (str, os.PathLike)) else None)


def choose(text: str, source: Union[str, os.PathLike, None] = None) -> Choice:
    """The strategy :class:`AutoChunker` picks for ``text`` (named ``source``, a file name or path, when known), and
    why: by the name first, else by the content (a bounded sample of it), as the core's detector reads them."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return choose_file(text, source)


def choose_file(content: Union[str, bytes], source: Union[str, os.PathLike, None] = None) -> Choice:
    """:func:`choose` for a file's content as it was read: a ``str``, or bytes that should be UTF-8, judged as they
    are, without decoding them first (up to a byte that is not UTF-8, which chunking then reports)."""
    return Choice(*_core.detect(content, source))


def choose_by_name(source: Union[str, os.PathLike], text: Union[str, bytes] = "") -> Optional[Choice]:
    """The choice of :func:`choose` when the name ``source`` says it (Markdown, a table, a source file), without
    reading the content; None when only the content could say. ``text`` (a ``str``, or UTF-8 bytes), the document
    or its start, tells a C++ header (``.h``) from a C one."""
    # The core reads the name first and the content only when the name says nothing; no content at all is prose
    # ("no lines"), which no name says: prose here is the name saying nothing.
    choice = Choice(*_core.detect("", source))
    if choice.strategy == "prose":
        return None
    if choice.strategy == "code" and text:
        choice = Choice(*_core.detect(text[:NAME_HEAD], source))
    return choice


def not_a_table(choice: Choice, error: Exception) -> Choice:
    """What a document chosen as a table (``choice``) gets when its table chunker fails on it (``error``): it was
    named as a table, or shaped like one at its start, but is not one, so it is prose, and the reason says so."""
    return Choice("prose", f"{choice.reason}, but not a {choice.table_format} table ({error})")


def _with_choice(metadata: Optional[dict], choice: Choice) -> dict:
    """The metadata with the choice and its reason."""
    return {**(metadata or {}), "strategy": choice.strategy, "strategy_reason": choice.reason}
