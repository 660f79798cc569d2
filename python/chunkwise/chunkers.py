"""The chunking strategies: thin classes over the Rust core.

Each class builds one core splitter in ``__init__`` (the core validates every argument) and shares the calls of
:class:`BaseChunker`; spans become :class:`Chunk` objects in exactly one place, :meth:`BaseChunker._build`.
"""

from __future__ import annotations

import hashlib
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from . import _core
from .chunk import Chunk

__all__ = ["BaseChunker", "RecursiveChunker", "SentenceChunker", "ParagraphChunker", "FixedChunker"]

_DOC_ID_KEYS = ("doc_id", "id", "source")


def _doc_key(text: str, metadata: Optional[Mapping[str, Any]]) -> str:
    """The document identity chunk ids derive from: a caller-given id, else a digest of the text."""
    if metadata:
        for key in _DOC_ID_KEYS:
            value = metadata.get(key)
            if value is not None:
                return f"{key}={value}"
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def _int64_pairs(buffer: bytearray) -> memoryview:
    return memoryview(buffer).cast("q")


class BaseChunker:
    """What every chunker can do. Subclasses only choose the core strategy and its arguments."""

    _strategy = ""

    def __init__(self, public: Dict[str, Any], **core: Any) -> None:
        # `public`: the constructor's own arguments (for repr, equality, pickling); `core`: the core's spelling.
        self._kwargs = public
        self._splitter = _core.Splitter(self._strategy, **core)
        self._level_names: Dict[int, str] = {}

    # -- calls -----------------------------------------------------------------------------------------------------

    def chunk(self, text: str, metadata: Optional[Mapping[str, Any]] = None) -> List[Chunk]:
        """Splits ``text`` into :class:`Chunk` objects; ``metadata`` is copied into each chunk."""
        _check_metadata(metadata, "metadata")
        offsets, levels = self._splitter.spans(text)
        return self._build(text, offsets, levels, metadata)

    def split(self, text: str) -> List[str]:
        """The chunks' texts only."""
        pairs = _int64_pairs(self._splitter.spans(text)[0])
        return [text[pairs[i] : pairs[i + 1]] for i in range(0, len(pairs), 2)]

    def spans(self, text: str):
        """The chunks' ``(start, end)`` ``str`` offsets as an ``n x 2`` int64 numpy array: no Python object per chunk."""
        import numpy as np

        offsets, _ = self._splitter.spans(text)
        return np.frombuffer(offsets, dtype=np.int64).reshape(-1, 2)

    def chunk_batch(
        self,
        texts: Sequence[str],
        metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    ) -> List[List[Chunk]]:
        """:meth:`chunk` for many texts; the splitting runs in parallel on all cores with the GIL released."""
        texts = _as_list(texts, "texts")
        if metadatas is None:
            metadatas = [None] * len(texts)
        else:
            metadatas = _as_list(metadatas, "metadatas")
            if len(metadatas) != len(texts):
                raise _core.ChunkingError(
                    f"metadatas: expected one metadata per text ({len(texts)}), got {len(metadatas)}"
                )
            for i, m in enumerate(metadatas):
                _check_metadata(m, f"metadatas[{i}]")
        packed = self._splitter.spans_batch(texts)
        return [self._build(t, o, l, m) for t, (o, l), m in zip(texts, packed, metadatas)]

    def spans_batch(self, texts: Sequence[str]) -> list:
        """:meth:`spans` for many texts, in parallel on all cores with the GIL released."""
        import numpy as np

        packed = self._splitter.spans_batch(_as_list(texts, "texts"))
        return [np.frombuffer(o, dtype=np.int64).reshape(-1, 2) for o, _ in packed]

    # -- the one place spans become chunks -------------------------------------------------------------------------

    def _build(
        self,
        text: str,
        offsets: bytearray,
        levels: bytes,
        metadata: Optional[Mapping[str, Any]],
    ) -> List[Chunk]:
        pairs = _int64_pairs(offsets)
        n = len(levels)
        if n == 0:
            return []
        names = self._names(levels)
        doc = _doc_key(text, metadata)
        blake = hashlib.blake2b
        ids = [blake(f"{doc}:{pairs[2 * i]}:{pairs[2 * i + 1]}".encode(), digest_size=8).hexdigest() for i in range(n)]
        base = dict(metadata) if metadata else {}
        chars = self._kwargs.get("unit", "chars") == "chars"
        size_of = self._splitter.size_of
        new = Chunk.__new__
        setter = object.__setattr__
        chunks = []
        for i in range(n):
            start, end = pairs[2 * i], pairs[2 * i + 1]
            piece = text[start:end]
            c = new(Chunk)
            setter(c, "text", piece)
            setter(c, "start", start)
            setter(c, "end", end)
            setter(c, "index", i)
            setter(c, "size", end - start if chars else size_of(piece))
            setter(c, "level", names[levels[i]])
            setter(c, "metadata", dict(base))
            setter(c, "context", "")
            setter(c, "id", ids[i])
            setter(c, "prev_id", ids[i - 1] if i else None)
            setter(c, "next_id", ids[i + 1] if i + 1 < n else None)
            chunks.append(c)
        return chunks

    def _names(self, levels: bytes) -> Dict[int, str]:
        names = self._level_names
        for code in set(levels) - names.keys():
            names[code] = self._splitter.level_name(code)
        return names

    # -- plumbing --------------------------------------------------------------------------------------------------

    @property
    def config(self) -> Dict[str, Any]:
        """The arguments this chunker was built with."""
        return dict(self._kwargs)

    def __reduce__(self):
        return (_restore, (type(self), self._kwargs))

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._kwargs == other._kwargs  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted((k, repr(v)) for k, v in self._kwargs.items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


def _restore(cls, kwargs):
    return cls(**kwargs)


def _as_list(values: Iterable[Any], name: str) -> list:
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of texts, not a single {type(values).__name__}")
    try:
        return list(values)
    except TypeError:
        raise TypeError(f"{name} must be an iterable, got {type(values).__name__}") from None


def _check_metadata(metadata: Any, name: str) -> None:
    if metadata is not None and not isinstance(metadata, Mapping):
        raise TypeError(f"{name} must be a mapping or None, got {type(metadata).__name__}")


class RecursiveChunker(BaseChunker):
    """Cuts at the strongest boundary that fits: paragraph > line > sentence > clause > word > grapheme.

    With ``separators``, the caller's separators (literal strings, or regexes with ``is_separator_regex=True``) are
    the levels instead, strongest first, with graphemes as the last resort; ``keep_separator`` says whether a
    separator ends the piece before it ("end") or starts the piece after it ("start").
    """

    _strategy = "recursive"

    def __init__(
        self,
        size: int = 512,
        overlap: int = 0,
        *,
        separators: Optional[Sequence[str]] = None,
        is_separator_regex: bool = False,
        keep_separator: str = "end",
        min_size: int = 0,
        trim: bool = True,
        unit: str = "chars",
    ) -> None:
        separators = None if separators is None else list(separators)
        public = dict(
            size=size,
            overlap=overlap,
            separators=separators,
            is_separator_regex=is_separator_regex,
            keep_separator=keep_separator,
            min_size=min_size,
            trim=trim,
            unit=unit,
        )
        super().__init__(
            public,
            size=size,
            overlap=overlap,
            min_size=min_size,
            trim=trim,
            unit=unit,
            separators=separators,
            separators_regex=is_separator_regex,
            keep_separator=keep_separator,
        )


class SentenceChunker(BaseChunker):
    """Whole sentences (line and paragraph ends count as sentence ends) merged up to ``size``; a sentence too long
    for one chunk is cut at clauses, then words."""

    _strategy = "sentence"

    def __init__(
        self, size: int = 512, overlap: int = 0, *, min_size: int = 0, trim: bool = True, unit: str = "chars"
    ) -> None:
        public = dict(size=size, overlap=overlap, min_size=min_size, trim=trim, unit=unit)
        super().__init__(public, **public)


class ParagraphChunker(BaseChunker):
    """Whole paragraphs merged up to ``size``; an oversized paragraph is cut at sentences, then clauses, then
    words. Overlap is taken from the end of the previous chunk, in whole sentences or words."""

    _strategy = "paragraph"

    def __init__(
        self, size: int = 512, overlap: int = 0, *, min_size: int = 0, trim: bool = True, unit: str = "chars"
    ) -> None:
        public = dict(size=size, overlap=overlap, min_size=min_size, trim=trim, unit=unit)
        super().__init__(public, **public)


class FixedChunker(BaseChunker):
    """Windows of ``size`` units, ``overlap`` units apart from the previous window's end, cut between grapheme
    clusters; with ``snap`` > 0 a cut moves back up to ``snap`` units to a sentence or word boundary."""

    _strategy = "fixed"

    def __init__(
        self, size: int = 512, overlap: int = 0, *, snap: int = 0, trim: bool = True, unit: str = "chars"
    ) -> None:
        public = dict(size=size, overlap=overlap, snap=snap, trim=trim, unit=unit)
        super().__init__(public, **public)
