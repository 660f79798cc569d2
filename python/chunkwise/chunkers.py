"""The chunking strategies: thin classes over the Rust core.

Each class builds one core splitter in ``__init__`` (the core validates every argument) and shares the calls of
:class:`BaseChunker`; the core builds the :class:`Chunk` objects.
"""

from __future__ import annotations

import os
from typing import (
    IO, Any, AsyncIterable, AsyncIterator, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union,
)

from . import _core
from ._core import Tokenizer
from ._async import AsyncCalls
from .chunk import Chunk

__all__ = [
    "BaseChunker",
    "RecursiveChunker",
    "SentenceChunker",
    "ParagraphChunker",
    "FixedChunker",
    "MarkdownChunker",
    "ClauseChunker",
    "TableChunker",
    "CodeChunker",
]

PAGE_BREAK = "\f"

def _int64_pairs(buffer: bytearray) -> memoryview:
    return memoryview(buffer).cast("q")


_NUMPY: Any = None


def _pairs_array(buffer: bytearray) -> Any:
    """An ``n x 2`` int64 array viewing ``buffer`` (native int64 pairs), made with one constructor call: half the
    cost of ``frombuffer(...).reshape(...)``, a tenth of ``spans()`` on a 2 KB text. numpy is imported on first use."""
    global _NUMPY
    if _NUMPY is None:
        import numpy as np

        _NUMPY = (np.ndarray, np.dtype(np.int64))
    ndarray, int64 = _NUMPY
    return ndarray((len(buffer) >> 4, 2), int64, buffer)


class _Configured(AsyncCalls):
    """An object described by the arguments it was built with (``_kwargs``, the constructor's own): its config,
    equality, hash, repr and pickling all come from them."""

    _kwargs: Dict[str, Any]

    @property
    def config(self) -> Dict[str, Any]:
        """The arguments this chunker was built with."""
        return dict(self._kwargs)

    def __reduce__(self) -> Any:
        return (_restore, (type(self), self._kwargs))

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._kwargs == other._kwargs  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted((k, repr(v)) for k, v in self._kwargs.items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


def _batch_metadatas(
    texts: Sequence[str], metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]]
) -> Tuple[list, List[Optional[dict]]]:
    """``chunk_batch``'s arguments checked: the texts as a list, and one metadata dict (or None) per text."""
    texts = _as_list(texts, "texts")
    given = _metadata_dicts(metadatas)
    dicts: List[Optional[dict]] = [None] * len(texts) if given is None else given
    if len(dicts) != len(texts):
        raise _core.ChunkingError(f"metadatas must have one entry per text ({len(texts)}), got {len(dicts)}")
    return texts, dicts


class BaseChunker(_Configured):
    """What every chunker can do. Subclasses only choose the core strategy and its arguments.

    The arguments every chunker takes: ``size`` and ``overlap`` in ``unit`` ("chars", or "tokens" of ``tokenizer``,
    implied by a tokenizer); ``trim``; and, in tokens, ``max_chars``: the most characters a chunk may hold, since a
    tokenizer can count a long run as one token or none ("auto": 64 per unit of ``size``; an int >= ``size``; None:
    no cap). ``token_count`` is exact either way. ``size=None`` with a tokenizer that knows its model's window
    (``Tokenizer.for_model(folder)``): the most tokens the model embeds whole, its ``max_tokens``.

    ``balance`` (RecursiveChunker, SentenceChunker, ParagraphChunker, MarkdownChunker, ClauseChunker; default
    False): the greedy cuts are chosen again together, by dynamic programming over the same boundaries, so that
    chunk sizes are as even as the cap and the levels allow: a paragraph of 1,100 characters at 512 gives three
    chunks of about 370 rather than 512, 512 and 76. Never more chunks than greedy, each cut at a boundary of the
    level greedy cut at there, every rule of the structure kept. It takes no ``overlap`` and does not stream.
    """

    _strategy = ""
    # Arguments the core spells differently.
    _core_names: Dict[str, str] = {}

    def __init__(self, public: Dict[str, Any]) -> None:
        # `public`: the constructor's own arguments (for repr, equality, pickling). The core gets them in its own
        # spelling, with the unit resolved.
        self._kwargs = public
        args = {self._core_names.get(k, k): v for k, v in public.items()}
        args["unit"] = _unit(public.get("unit"), public.get("tokenizer"))
        self._core_args = args
        self._splitter = _core.Splitter(self._strategy, **args)

    def _splitter_for(self, metadata: Optional[Mapping[str, Any]], text: Optional[str] = None) -> Any:
        """The core splitter for ``text`` with ``metadata``: the chunker's own (CodeChunker picks one by file name)."""
        return self._splitter

    # -- calls -----------------------------------------------------------------------------------------------------

    def chunk(
        self,
        text: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        *,
        pages: Optional[Sequence[str]] = None,
    ) -> List[Chunk]:
        """Splits ``text`` into :class:`Chunk` objects; ``metadata`` is copied into each chunk.

        ``pages`` (instead of ``text``): the texts of a document's pages, e.g. from a PDF extractor. They are joined
        with form feeds into the source the offsets refer to. With pages, or a text holding form feeds, each chunk's
        metadata has ``page_start`` and ``page_end`` (1-based: the pages of its first and last character).
        """
        text = _text_or_pages(text, pages)
        metadata = _as_dict(metadata, "metadata")
        return self._splitter_for(metadata, text).chunk(text, metadata, pages is not None)

    def split(self, text: str) -> List[str]:
        """The chunks' texts only."""
        pairs = _int64_pairs(self._splitter.spans(text))
        return [text[pairs[i] : pairs[i + 1]] for i in range(0, len(pairs), 2)]

    def spans(self, text: str):
        """The chunks' ``(start, end)`` ``str`` offsets as an ``n x 2`` int64 numpy array: no Python object per chunk."""
        return _pairs_array(self._splitter.spans(text))

    def chunk_batch(
        self,
        texts: Sequence[str],
        metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    ) -> List[List[Chunk]]:
        """:meth:`chunk` for many texts; the splitting runs in parallel on all cores with the GIL released.

        Python's cyclic garbage collector is paused while the chunk objects are built (they hold no reference
        cycle), and resumed afterwards if it was running; so is it in :meth:`chunk` for a text of 700 chunks or more.
        """
        return self._splitter.chunk_batch(_as_list(texts, "texts"), _metadata_dicts(metadatas))

    def iter_chunks(
        self,
        source: Union[str, Iterable[str], IO[Any]],
        metadata: Optional[Mapping[str, Any]] = None,
        *,
        paged: bool = False,
        read_size: int = 1 << 20,
    ) -> Iterator[Chunk]:
        """The chunks of a text that arrives in pieces (a file larger than memory), as they become final: the same
        chunks as :meth:`chunk` on the whole text, with offsets and ``index`` in the whole stream, in memory bounded
        by a few blocks of a few MB.

        ``source``: a file opened in text mode (or in binary mode: read as UTF-8), an iterable of ``str`` pieces (cut
        anywhere), or a ``str``. It is read ``read_size`` characters (or bytes) at a time.

        ``metadata`` must name the document (``doc_id``, ``id`` or ``source``): chunk ids are namespaced by the
        document (see :attr:`Chunk.id`), and without a name :meth:`chunk` stands for the document with its whole
        text, which a stream only knows at its end. ``paged``: number pages (``page_start``, ``page_end``), as
        :meth:`chunk` does for a text holding form feeds; a stream that holds one must be paged.

        The structural chunkers (Markdown, clause, table) read the structure of the whole document and do not
        stream: they raise ChunkingError.
        """
        _check_read_size(read_size)
        return _streamed(self._stream(_as_dict(metadata, "metadata"), paged), _pieces(source, read_size))

    async def aiter_chunks(
        self,
        source: Union[str, Iterable[str], IO[Any], AsyncIterable[Union[str, bytes]], Any],
        metadata: Optional[Mapping[str, Any]] = None,
        *,
        paged: bool = False,
        read_size: int = 1 << 20,
    ) -> AsyncIterator[Chunk]:
        """:meth:`iter_chunks` for asyncio: the same chunks, the splitting and any blocking read on worker threads
        (see "Async calls" in the docs), so the event loop keeps running.

        ``source`` may also be asynchronous: an async iterable of ``str`` or UTF-8 ``bytes`` pieces (cut anywhere,
        even inside a character: an HTTP response's body, say), or an object whose ``read(n)`` is a coroutine
        (``asyncio.StreamReader``, an aiofiles file). A blocking file's ``read`` runs on a worker thread.
        """
        from ._async import astreamed

        _check_read_size(read_size)
        async for chunk in astreamed(self._stream(_as_dict(metadata, "metadata"), paged), source, read_size):
            yield chunk

    def _stream(self, metadata: Optional[dict], paged: bool) -> Any:
        """The stream :meth:`iter_chunks` feeds: ``push(piece)`` and ``finish()``, each returning the chunks that
        became final."""
        return _core.ChunkStream(self._splitter, metadata, paged)

    def spans_batch(self, texts: Sequence[str]) -> list:
        """:meth:`spans` for many texts, in parallel on all cores with the GIL released."""
        import numpy as np

        offsets, counts = self._splitter.spans_batch(_as_list(texts, "texts"))
        flat = _pairs_array(offsets)
        ends = np.cumsum(np.frombuffer(counts, dtype=np.int64)).tolist()
        # Views of one array: a slice costs a fraction of making an array per text.
        return [flat[a:b] for a, b in zip([0] + ends, ends)]


def join_pages(pages: Sequence[str]) -> str:
    """The source text of a paged document: its pages joined with form feeds (the offsets of its chunks refer to it)."""
    pages = _as_list(pages, "pages")
    for i, page in enumerate(pages):
        if not isinstance(page, str):
            raise TypeError(f"pages[{i}] must be a str, got {type(page).__name__}")
        if PAGE_BREAK in page:
            raise _core.ChunkingError(f"pages[{i}] holds a form feed, which separates pages: split it into pages")
    return PAGE_BREAK.join(pages)


#: Why the chunkers that are not of one strategy are not taken where a core splitter runs the texts (the Arrow
#: kernel and the engines built on it).
_COMPOSITE = {
    "AutoChunker": ": it picks a strategy per document; pass the chunker of one kind, or use its chunk_batch",
    "HierarchicalChunker": ": its levels are chunked one after the other; use its chunk_batch",
    "ElementsChunker": ": it takes parsed elements, not a text column; use its chunk_batch",
}


def _one_strategy(chunker: Any) -> None:
    """Refuses anything but a chunker of one strategy (a core splitter's), naming why a known composite is not."""
    if not isinstance(chunker, BaseChunker):
        name = type(chunker).__name__
        raise TypeError(
            f"chunker must be a chunkwise chunker of one strategy (e.g. RecursiveChunker), got {name}"
            + _COMPOSITE.get(name, "")
        )


def _text_or_pages(text: Optional[str], pages: Optional[Sequence[str]]) -> str:
    """The source text of ``chunk(text)`` or ``chunk(pages=...)`` (see :func:`join_pages`)."""
    if pages is not None:
        if text is not None:
            raise TypeError("chunk() takes text or pages, not both")
        return join_pages(pages)
    if text is None:
        raise TypeError("chunk() needs text (or pages)")
    return text


def _given(args: Dict[str, Any]) -> Dict[str, Any]:
    """A constructor's arguments, from its ``locals()`` taken before anything else is bound: the signature is the
    one list of them (for repr, equality, pickling and the core)."""
    return {k: v for k, v in args.items() if k not in ("self", "__class__")}


def _restore(cls, kwargs):
    return cls(**kwargs)


def _as_list(values: Iterable[Any], name: str) -> list:
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of texts, not a single {type(values).__name__}")
    try:
        return list(values)
    except TypeError:
        raise TypeError(f"{name} must be an iterable, got {type(values).__name__}") from None


def _unit(unit: Optional[str], tokenizer: Optional[Tokenizer]) -> str:
    """The unit to measure in: as given, else tokens when there is a tokenizer, else characters."""
    if unit is not None:
        return unit
    return "chars" if tokenizer is None else "tokens"


def _streamed(stream: Any, pieces: Iterator[Union[str, bytes]]) -> Iterator[Chunk]:
    for piece in pieces:
        yield from stream.push(piece)
    yield from stream.finish()


def _metadata_dicts(metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]]) -> Optional[List[Optional[dict]]]:
    """``chunk_batch``'s ``metadatas`` as a list of dicts (None entries kept), or None."""
    if metadatas is None:
        return None
    return [_as_dict(m, f"metadatas[{i}]") for i, m in enumerate(_as_list(metadatas, "metadatas"))]


def _check_read_size(read_size: Any) -> None:
    if isinstance(read_size, bool) or not isinstance(read_size, int) or read_size < 1:
        raise ValueError(f"read_size must be a positive int, got {read_size!r}")


def _pieces(source: Any, read_size: int) -> Iterator[Union[str, bytes]]:
    """The ``str`` pieces of a stream's source (see :meth:`BaseChunker.iter_chunks`)."""
    if isinstance(source, str):
        yield source
        return
    read = getattr(source, "read", None)
    if callable(read):
        # Bytes go to the core as they are (it checks them as UTF-8 and joins characters cut between reads): no
        # Python decoding, which costs more than the chunking.
        while True:
            piece = _read_piece(read(read_size))
            if not piece:
                break
            yield piece
        return
    for i, piece in enumerate(_items(source)):
        if not isinstance(piece, str):
            raise TypeError(f"source[{i}] must be a str, got {type(piece).__name__}")
        yield piece


def _read_piece(piece: Any) -> Union[str, bytes]:
    """What a source's ``read()`` returned, as the core takes it (``str`` or ``bytes``)."""
    if isinstance(piece, (bytearray, memoryview)):
        return bytes(piece)
    if not isinstance(piece, (str, bytes)):
        raise TypeError(f"source.read() must return str or bytes, got {type(piece).__name__}")
    return piece


def _items(source: Any) -> Iterator[Any]:
    """The items of a stream's source that is neither a ``str`` nor a file."""
    if isinstance(source, (bytes, bytearray)):
        raise TypeError("source must be a str, a file or an iterable of str, got bytes: decode it first")
    try:
        return iter(source)
    except TypeError:
        raise TypeError(
            f"source must be a str, a file or an iterable of str, got {type(source).__name__}"
        ) from None


def _as_dict(metadata: Any, name: str) -> Optional[dict]:
    if metadata is None or type(metadata) is dict:
        return metadata
    if not isinstance(metadata, Mapping):
        raise TypeError(f"{name} must be a mapping or None, got {type(metadata).__name__}")
    return dict(metadata)


class RecursiveChunker(BaseChunker):
    r"""Cuts at the strongest boundary that fits: paragraph > line > sentence > clause > word > grapheme.

    With ``separators`` (a list of str), the caller's separators (literal strings, or regexes with
    ``is_separator_regex=True``) are the levels instead, strongest first, with graphemes as the last resort;
    ``keep_separator`` says whether a separator ends the piece before it ("end") or starts the piece after it
    ("start").

    Regexes are Python ``re`` patterns, matched in Rust with the same matches as ``re`` (the translation
    ``chunkwise.langchain`` uses): literals and escapes, classes, ``.``, ``\d``, ``\s`` (Python's whitespace),
    ``^``/``\A``, groups (capturing and named ones are plain groups here), alternation, greedy and lazy
    quantifiers, and look-arounds ``(?=...)``, ``(?!...)``, ``(?<=...)``, ``(?<!...)`` (look-behinds of fixed
    width). A pattern whose every match is empty cuts at the position it matches: ``(?<=\.)`` cuts after each
    full stop, ``(?=\n#)`` before each Markdown heading. Refused, with a ChunkingError that says why: a pattern
    that can match both the empty string and text (``x*``); ``\w \W \b \B`` (Python's word characters differ
    from Rust's); inline flags such as ``(?i)``; back-references; octal escapes; ``$`` and ``\Z`` (the end of the
    text is always a cut).
    """

    _strategy = "recursive"
    _core_names = {"is_separator_regex": "separators_regex"}

    def __init__(
        self,
        size: Optional[int] = 512,
        overlap: int = 0,
        *,
        separators: Optional[Sequence[str]] = None,
        is_separator_regex: bool = False,
        keep_separator: str = "end",
        min_size: int = 0,
        balance: bool = False,
        trim: bool = True,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
    ) -> None:
        if isinstance(separators, str):
            # list() would read it as one separator per character.
            raise TypeError("separators must be a list of str, not a str")
        separators = None if separators is None else list(separators)
        public = _given(locals())
        super().__init__(public)


class _LevelChunker(BaseChunker):
    """A strategy whose only arguments are the common ones."""

    def __init__(
        self,
        size: Optional[int] = 512,
        overlap: int = 0,
        *,
        min_size: int = 0,
        balance: bool = False,
        trim: bool = True,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
    ) -> None:
        public = _given(locals())
        super().__init__(public)


class SentenceChunker(_LevelChunker):
    """Whole sentences (line and paragraph ends count as sentence ends) merged up to ``size``; a sentence too long
    for one chunk is cut at clauses, then words."""

    _strategy = "sentence"


class ParagraphChunker(_LevelChunker):
    """Whole paragraphs merged up to ``size``; an oversized paragraph is cut at sentences, then clauses, then
    words. Overlap is taken from the end of the previous chunk, in whole sentences or words."""

    _strategy = "paragraph"


class FixedChunker(BaseChunker):
    """Windows of ``size`` units, ``overlap`` units apart from the previous window's end, cut between grapheme
    clusters; with ``snap`` > 0 a cut moves back up to ``snap`` units to a sentence or word boundary.

    ``restart`` ("paragraph" or "line"; default None: windows follow each other from the start of the text) makes
    the windows edit-stable, for re-ingestion (see :func:`chunkwise.diff`):

    - "paragraph": windows start anew at paragraph breaks (blank lines, form feeds). A window holds as many whole
      paragraphs as fit in ``size`` and ends after the last of them; the next window starts at the next paragraph,
      with no overlap. Only a paragraph longer than ``size`` is cut into fixed windows, with ``overlap`` and
      ``snap`` as above; the last of them takes in the whole paragraphs after it that fit.
    - "line": the same, with the lines of a paragraph longer than ``size`` as the next level: whole paragraphs
      fill a window when at least one fits, whole lines (every line break) when none does, and only a line longer
      than ``size`` is cut into fixed windows. A window of lines ends at the line break, among those in its last
      third, that a hash of the text just before it ranks first: lines of much the same length (code) would
      otherwise keep the packing an edit shifted down to the end of the paragraph. For text with few blank lines
      (code, logs, tables, hard-wrapped text), which "paragraph" would cut as one long paragraph into fixed windows.

    Where a window ends then depends only on the text from its start, and every window that holds a break starts
    at one. An edit changes the window it falls in (and, inside a paragraph cut into windows, the windows of that
    paragraph after it); the windows after it are the same again from the first one that ends where it ended
    before, usually the next. Without ``restart`` a sentence inserted near the start moves every later window. The
    cost: a window ends at a break rather than full, so there are more windows.
    """

    _strategy = "fixed"

    def __init__(
        self,
        size: Optional[int] = 512,
        overlap: int = 0,
        *,
        snap: int = 0,
        restart: Optional[str] = None,
        trim: bool = True,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
    ) -> None:
        public = _given(locals())
        super().__init__(public)


class _SectionChunker(BaseChunker):
    """A chunker over a document's sections (headings, numbered provisions): the common arguments, plus
    ``merge_sections`` and ``size_includes_context``."""

    def __init__(
        self,
        size: Optional[int] = 512,
        overlap: int = 0,
        *,
        merge_sections: bool = True,
        size_includes_context: bool = True,
        min_size: int = 0,
        balance: bool = False,
        trim: bool = True,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
    ) -> None:
        public = _given(locals())
        super().__init__(public)


class MarkdownChunker(_SectionChunker):
    """Markdown (CommonMark with GFM tables and front matter) cut along its structure: sections by heading level,
    then thematic breaks, blocks, list items, table rows and code lines, then sentences, clauses and words.

    A section that fits stays whole, and a chunk never runs past the end of the section it starts in; with
    ``merge_sections`` it may take in the sibling sections after it when they fit. Tables, code blocks and lists
    (tables and lists with the paragraph that leads into them, e.g. a caption) that fit are never cut; larger ones
    are cut between rows, lines or items, and each piece's ``context`` carries the table's caption and header, the
    fence line or the lead-in. A code block whose fence names a language :class:`CodeChunker` knows is cut as
    CodeChunker cuts it (definitions whole when they fit), and its chunks also carry CodeChunker's ``language``,
    ``symbol_path``, ``start_line``/``end_line`` (lines of the document) and ``node_types``, with the signatures
    of the definitions they start inside after the fence line in ``context``. Every chunk's
    metadata has ``title_path`` (the headings above its first line), ``headings`` (their levels) and
    ``chunk_type``; its ``context`` holds the rendered path. With ``size_includes_context`` the context counts
    toward ``size``.
    """

    _strategy = "markdown"


class ClauseChunker(_SectionChunker):
    """Legal and policy text cut at its numbered provisions: 第X编/章/节/条, 一、, （一）, Article N, Section N, § N,
    1. / 1.1 / (a) / (i) ... The numbering hierarchy is the title path (``metadata["title_path"]``, rendered in
    ``context``); a provision that fits stays whole, sibling provisions share a chunk when they fit together
    (``merge_sections``), and an over-long provision falls back to paragraphs, sentences, clauses and words.
    """

    _strategy = "clause"


class TableChunker(BaseChunker):
    """One table (``format``: "markdown", "csv" or "tsv") cut between rows, never inside one unless a single row
    is over ``size``: at most ``rows_per_chunk`` data rows and ``size`` units per chunk (give either or both).

    ``overlap`` is counted in the chunker's unit (characters or tokens), like every chunker's, and is made of whole
    data rows: the last rows of the previous chunk that fit in ``overlap`` units. Never part of a row (an overlap
    smaller than the last row is no overlap) and never the header, which ``context`` carries already.
    ``rows_per_chunk`` bounds every chunk's rows, overlap rows included: a chunk repeats at most
    ``rows_per_chunk - 1`` rows, so with ``rows_per_chunk=1`` there is no overlap. The overlap never repeats every
    row of the previous chunk, and a chunk cut inside a row (a row over ``size``) has none.
    ``row_start``/``row_end`` count the overlap rows: ``TableChunker(rows_per_chunk=2, overlap=5)`` gives the rows
    [0, 2), [1, 3), [2, 4) of a table whose rows are 5 characters long.

    Every chunk's metadata has ``chunk_type="table"``, ``row_start``/``row_end`` (0-based data rows, end exclusive)
    and ``total_rows``. A Markdown piece that does not start at the header carries the header and delimiter rows
    in ``context``; a CSV or TSV chunk carries its header rendered as Markdown in ``context``, and its
    ``embedding_text`` is the chunk's rows rendered as a Markdown table under that header.
    """

    _strategy = "table"

    def __init__(
        self,
        size: Optional[int] = None,
        overlap: int = 0,
        *,
        rows_per_chunk: Optional[int] = None,
        format: str = "markdown",
        size_includes_context: bool = True,
        trim: bool = True,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
    ) -> None:
        public = _given(locals())
        super().__init__(public)


class CodeChunker(BaseChunker):
    """Source code cut along its syntax tree (tree-sitter grammars compiled into the extension: nothing is
    downloaded, ever). A definition (function, method, class, impl, ...) or statement that fits in ``size`` stays
    whole, and neighbours are merged up to ``size``; a larger one is cut between its children (the methods of a
    class, the statements of a body), then at blank lines and lines. Comments, decorators and attributes right
    above a definition go with it.

    ``language``: "auto", or one of :data:`CODE_LANGUAGES` (python, rust, go, java, typescript, tsx, javascript,
    c, cpp, csharp, ruby, php, kotlin, swift, bash, sql; aliases such as "py", "js", "ts", "rs", "golang", "c++",
    "c#", "rb", "kt", "sh" too). With "auto" the language is that of the file named by ``metadata["source"]`` (by
    its extension, or a name such as ``Gemfile``; a ``.h`` header is C++ when its text reads as C++), else detected
    from the text: a shebang (``#!/usr/bin/env python3``), else the language whose keyword patterns (``def ...:``,
    ``fn``, ``package``, ``import java.``, ``#include``, ``<?php``, ``CREATE TABLE``...) match most often in the
    first 64 KB. A text of no known language is cut at blank lines and lines, and its chunks say so in
    ``metadata["note"]``; so are the parts of a file around a syntax error.

    Every chunk's metadata has ``language``, ``symbol_path`` (the definitions around its first character, such as
    ``["class Parser", "def feed"]``: each kind's word and the name; a definition inside more than 32 others is
    left out), ``start_line`` and ``end_line`` (1-based), ``node_types`` (the syntax node kinds of the outermost
    nodes that start in it) and ``chunk_type="code"``. A
    chunk that starts inside a definition has the signatures of the definitions around it in ``context`` (so in
    ``embedding_text``); ``text`` is still the exact slice. With ``size_includes_context`` the context counts
    toward ``size`` (by default it does not: a definition that fits in ``size`` is never cut).
    """

    _strategy = "code"

    def __init__(
        self,
        size: Optional[int] = 512,
        overlap: int = 0,
        *,
        language: str = "auto",
        size_includes_context: bool = False,
        min_size: int = 0,
        trim: bool = True,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
    ) -> None:
        if not isinstance(language, str):
            raise TypeError(f"language must be a str, got {type(language).__name__}")
        public = _given(locals())
        super().__init__(public)
        # One core splitter per language named by a file name, made when first needed.
        self._by_language: Dict[str, Any] = {}

    def _splitter_for(self, metadata: Optional[Mapping[str, Any]], text: Optional[str] = None) -> Any:
        if self._kwargs["language"] != "auto" or not metadata:
            return self._splitter
        source = metadata.get("source")
        if not isinstance(source, (str, os.PathLike)):
            return self._splitter
        # (A header, C's by its name, is C++ when its text says so: the first 64 KB tell.)
        language = _core.code_language(os.fspath(source), text[:65536] if isinstance(text, str) else None)
        if language is None:
            return self._splitter
        splitter = self._by_language.get(language)
        if splitter is None:
            splitter = _core.Splitter(self._strategy, **dict(self._core_args, language=language))
            self._by_language[language] = splitter
        return splitter

    def chunk_batch(
        self,
        texts: Sequence[str],
        metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    ) -> List[List[Chunk]]:
        """:meth:`BaseChunker.chunk_batch`, the texts of each language named by ``metadata["source"]`` in one batch."""
        texts = _as_list(texts, "texts")
        dicts = _metadata_dicts(metadatas)
        if dicts is None:
            return self._splitter.chunk_batch(texts, None)
        if len(dicts) != len(texts):
            # The core's own check, with its message.
            return self._splitter.chunk_batch(texts, dicts)
        groups: Dict[int, List[int]] = {}
        splitters: Dict[int, Any] = {}
        for i, m in enumerate(dicts):
            s = self._splitter_for(m, texts[i])
            groups.setdefault(id(s), []).append(i)
            splitters[id(s)] = s
        out: List[List[Chunk]] = [[] for _ in texts]
        for key, indices in groups.items():
            got = splitters[key].chunk_batch([texts[i] for i in indices], [dicts[i] for i in indices])
            for i, chunks in zip(indices, got):
                out[i] = chunks
        return out


#: The languages CodeChunker knows, by the names its ``language`` argument takes.
CODE_LANGUAGES = tuple(_core.code_languages())
