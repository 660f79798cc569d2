"""A chunker that picks the strategy for each document: Markdown, code, a CSV/TSV table, legal provisions or prose,
from the document's file name when it has one (``metadata["source"]``), else from its content."""

from __future__ import annotations

import csv
import os
import re
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

__all__ = ["AutoChunker", "Choice", "STRATEGY_KEYS", "choose"]

#: The keys :class:`AutoChunker` sets in every chunk's metadata.
STRATEGY_KEYS = ("strategy", "strategy_reason")

#: The kinds of document, each with the chunker it gets unless overridden.
KINDS = ("markdown", "code", "table", "clause", "prose")

_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx", ".mkd")
_TABLE_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}
# How much of a text its content is judged by: its first lines (a decision costs nothing next to the chunking).
_SAMPLE_LINES = 400

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_ATX = re.compile(r"^\s{0,3}#{1,6}[ \t]+\S")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$")
_LINK = re.compile(r"\[[^\]\n]+\]\([^)\s]+\)")
_LIST_ITEM = re.compile(r"^\s{0,3}([-*+]|\d{1,3}[.)])[ \t]+\S")
# Provisions at article level (chapters alone make a book, not a statute).
_PROVISION = re.compile(
    r"^\s*(第[一二三四五六七八九十百千零〇两\d]+条|Article\s+\d+|ARTICLE\s+\d+|Section\s+\d+(\.\d+)*\b|§\s*\d+)"
)
_SHEBANG = re.compile(r"^#!\s*\S*(python|bash|sh|node|ruby|perl|php|env)\b")
_CODE_START = re.compile(
    r"^\s*(def |class |import |from \S+ import |return\b|if .*:$|elif |for .*:$|while .*:$|fn |let |const |var "
    r"|function\b|public |private |protected |package |#include|using |namespace |func |struct |impl |enum "
    r"|@\w+|try:|except\b|else:|[}\])]+;?$)"
)
_CODE_END = re.compile(r"[;{}\[(,]\s*$|\)\s*:\s*$|=>\s*\{?\s*$|^\s*(\"\"\"|\'\'\')|(\"\"\"|\'\'\')\s*$")
# An assignment (`name = value`, `x.y[k] += 1`), a call on its own line, or a string item of a list.
_CODE_LINE = re.compile(
    r"^\s*[A-Za-z_$][\w.$]*(\[[^\]]*\])?\s*[-+*/%|&^]?=(?!=)\s*\S|^\s*[\w.$]+\(.*\)\s*;?$|^\s*[\"'].*[\"'],?\s*$"
)
_COMMENT = re.compile(r"^\s*(#(?!#)|//|/\*|\*/|\* )")


class Choice(NamedTuple):
    """Which strategy a document gets (one of ``KINDS``), and why."""

    strategy: str
    reason: str
    #: The table format ("csv" or "tsv") for a table.
    table_format: Optional[str] = None


class AutoChunker(_Configured):
    """Chunks each document with the strategy that fits it, and says which in every chunk's metadata
    (``strategy``, ``strategy_reason``).

    The choice (see :meth:`choose`): by the file name in ``metadata["source"]`` first (``.md`` is Markdown, ``.csv``
    / ``.tsv`` a table, a source file of a language :class:`CodeChunker` knows is code); for a ``.txt``, a name
    without a known suffix, or no name, by the content: code (a shebang, or most lines shaped like code), a CSV or
    TSV table (every line of the same number of fields), Markdown (headings, fenced code, tables, links), legal
    provisions (numbered articles, 第X条, §), else prose.

    Each kind has a chunker made with ``size``, ``overlap``, ``unit``, ``tokenizer`` and ``max_chars``
    (:class:`MarkdownChunker`, :class:`CodeChunker`, :class:`TableChunker`, :class:`ClauseChunker`,
    :class:`RecursiveChunker`); pass ``markdown=``, ``code=``, ``table=``, ``clause=`` or ``prose=`` to use your own.
    A file named as a table that is not one is chunked as prose, and the reason says so.
    """

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
            else {f: TableChunker(size, overlap, format=f, **common) for f in ("csv", "tsv")}
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
            # Named as a table, or shaped like one in its first lines, but not one: prose, and the reason says so.
            prose = Choice("prose", f"{choice.reason}, but not a {choice.table_format} table ({exc})")
            return self._chunk_as(prose, text, metadata, pages)

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
        for chunker, indices, metas in groups.values():
            for i, chunks in zip(indices, chunker.chunk_batch([texts[i] for i in indices], metas)):
                out[i] = chunks
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
    why: by the name first, else by the content (its first lines)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if source is not None:
        if not isinstance(source, (str, os.PathLike)):
            raise TypeError(f"source must be a str or a path, got {type(source).__name__}")
        by_name = _by_name(os.fspath(source))
        if by_name is not None:
            return by_name
    return _by_content(text)


def _with_choice(metadata: Optional[dict], choice: Choice) -> dict:
    """The metadata with the choice and its reason."""
    return {**(metadata or {}), "strategy": choice.strategy, "strategy_reason": choice.reason}


def _by_name(source: str) -> Optional[Choice]:
    """The choice a file name makes, when it makes one."""
    name = os.path.basename(source)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in _MARKDOWN_SUFFIXES:
        return Choice("markdown", f"file name {suffix}")
    if suffix in _TABLE_SUFFIXES:
        return Choice("table", f"file name {suffix}", _TABLE_SUFFIXES[suffix])
    language = _core.code_language(source)
    if language is not None:
        return Choice("code", f"file name {suffix or name}: {language}")
    return None


def _by_content(text: str) -> Choice:
    """The choice the content makes: the first decisive test of code, table, Markdown, provisions; else prose."""
    lines = text.splitlines()
    sample = [line for line in lines[:_SAMPLE_LINES] if line.strip()]
    if not sample:
        return Choice("prose", "content: no lines")
    first = sample[0]
    if _SHEBANG.match(first):
        return Choice("code", f"content: shebang {first.strip()[:40]}")
    table = _table_format(sample)
    if table is not None:
        return Choice("table", f"content: {len(sample)} lines of the same number of {table} fields", table)
    # Lines inside fenced blocks are code of a Markdown document, not the document's own shape.
    outside: List[str] = []
    fences = 0
    inside = False
    for line in lines:
        if _FENCE.match(line):
            fences += 1
            inside = not inside
            continue
        if not inside and line.strip():
            outside.append(line)
    # Lines from all over the text: a long licence or docstring at the head of a source file is not its shape.
    head = outside[:: max(1, len(outside) // _SAMPLE_LINES)][:_SAMPLE_LINES]
    code_like = sum(1 for line in head if _looks_like_code(line))
    if head and fences < 2 and code_like >= 0.6 * len(head):
        return Choice("code", f"content: {code_like} of {len(head)} lines shaped like code")
    headings = sum(1 for line in outside if _ATX.match(line))
    delimiters = sum(1 for line in outside if _TABLE_DELIMITER.match(line))
    links = sum(1 for line in outside if _LINK.search(line))
    items = sum(1 for line in outside if _LIST_ITEM.match(line))
    signals = [
        (headings, "headings"), (fences // 2, "fenced blocks"), (delimiters, "tables"), (links, "links with URLs"),
    ]
    if headings >= 2 or delimiters or (headings + fences // 2 >= 2) or (headings >= 1 and links + items >= 3):
        said = ", ".join(f"{n} {what}" for n, what in signals if n)
        return Choice("markdown", f"content: Markdown ({said})")
    nonblank = sum(1 for line in lines if line.strip())
    provisions = sum(1 for line in lines if _PROVISION.match(line))
    if provisions >= 3 and provisions * 100 >= nonblank:
        return Choice("clause", f"content: {provisions} numbered provisions in {nonblank} lines")
    return Choice("prose", "content: prose")


def _looks_like_code(line: str) -> bool:
    return bool(_CODE_START.match(line) or _CODE_END.search(line) or _COMMENT.match(line) or _CODE_LINE.match(line))


def _table_format(sample: List[str]) -> Optional[str]:
    """"tsv" or "csv" when the lines parse to rows of one width (at least two fields; at least three rows, or five
    when only two fields), else None."""
    if len(sample) < 3:
        return None
    for fmt, delimiter in (("tsv", "\t"), ("csv", ",")):
        if not any(delimiter in line for line in sample[:3]):
            continue
        try:
            rows = list(csv.reader(sample[:100], delimiter=delimiter))
        except csv.Error:
            continue
        widths = {len(r) for r in rows}
        if len(widths) == 1:
            width = widths.pop()
            if width >= 3 or (width == 2 and len(rows) >= 5):
                return fmt
    return None
