"""The chunk model: one immutable, slotted object per chunk."""

from __future__ import annotations

from typing import Any, Dict, Optional

__all__ = ["Chunk"]

_FIELDS = (
    "text",
    "start",
    "end",
    "index",
    "size",
    "level",
    "metadata",
    "context",
    "id",
    "prev_id",
    "next_id",
)


class Chunk:
    """A piece of a source text.

    ``text`` is always ``source[start:end]`` (``start``/``end`` are Python ``str`` indices). Text that belongs with
    the chunk when it is embedded but is not part of the slice (a heading path, a table header) lives in
    ``context``; ``embedding_text`` joins the two.

    Attributes:
        text: the chunk's text, an exact slice of the source.
        start: index of the first character in the source.
        end: index past the last character.
        index: position of the chunk in the document's chunk list.
        size: the chunk's size in the chunker's unit.
        level: the boundary the chunk ends on: "paragraph", "line", "sentence", "clause", "word", "grapheme",
            "separator", or "end" (the end of the text).
        metadata: the caller's metadata, copied into every chunk.
        context: text to prepend when embedding (empty unless a strategy provides one).
        id: stable id of the chunk: the same for the same document id and span.
        prev_id: id of the previous chunk of the document, or None.
        next_id: id of the next chunk of the document, or None.
    """

    __slots__ = _FIELDS

    text: str
    start: int
    end: int
    index: int
    size: int
    level: str
    metadata: Dict[str, Any]
    context: str
    id: str
    prev_id: Optional[str]
    next_id: Optional[str]

    def __init__(
        self,
        text: str,
        start: int,
        end: int,
        index: int = 0,
        size: Optional[int] = None,
        level: str = "end",
        metadata: Optional[Dict[str, Any]] = None,
        context: str = "",
        id: str = "",
        prev_id: Optional[str] = None,
        next_id: Optional[str] = None,
    ) -> None:
        setter = object.__setattr__
        setter(self, "text", text)
        setter(self, "start", start)
        setter(self, "end", end)
        setter(self, "index", index)
        setter(self, "size", len(text) if size is None else size)
        setter(self, "level", level)
        setter(self, "metadata", {} if metadata is None else metadata)
        setter(self, "context", context)
        setter(self, "id", id)
        setter(self, "prev_id", prev_id)
        setter(self, "next_id", next_id)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Chunk is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Chunk is immutable: cannot delete {name!r}")

    @property
    def embedding_text(self) -> str:
        """The text to embed: ``context`` and ``text`` separated by a blank line (just ``text`` without context)."""
        return f"{self.context}\n\n{self.text}" if self.context else self.text

    def to_dict(self) -> Dict[str, Any]:
        """All fields as a plain dict (``metadata`` copied), plus ``embedding_text``."""
        d = {name: getattr(self, name) for name in _FIELDS}
        d["metadata"] = dict(self.metadata)
        d["embedding_text"] = self.embedding_text
        return d

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chunk):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.id, self.start, self.end, self.text))

    def __reduce__(self):
        return (Chunk, self._key()[:8] + (self.id, self.prev_id, self.next_id))

    def __repr__(self) -> str:
        text = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return (
            f"Chunk(index={self.index}, start={self.start}, end={self.end}, size={self.size}, "
            f"level={self.level!r}, text={text!r})"
        )
