"""The chunk record: every column a chunk leaves chunkwise with, as the core's one table of them
(``_core.columns()``) says. Every list of keys in the package is read from here: the keys ``chunk_arrow`` keeps
apart from the caller's columns, the command line's fields and metadata columns, the keys the LlamaIndex and
LangChain exporters carry and those they keep out of the embedded text, the keys AutoChunker, HierarchicalChunker
and ElementsChunker set.

Each :class:`Column` has its ``name``; ``type`` (``str``, ``int``, ``float``, ``bool``, ``list[str]``,
``list[int]``, ``dict``); ``nullable`` (a chunk of a chunker that sets it may have no value); ``role`` (``field``:
an attribute of :class:`~chunkwise.Chunk`; ``metadata``: a key its chunker sets in ``Chunk.metadata``;
``document``: the document, written beside the chunk by a writer; ``run``: what a command-line run did);
``sources`` (the groups of chunkers whose outputs have it: their tables have its column, and they refuse a
caller's metadata key of its name), ``written_for`` (those chunkers) and ``chunkers`` (the chunkers that set it); ``when`` (on which chunks, in words); ``formats`` (``chunk``: the
``Chunk`` object and ``to_dict``; ``lines``: the command line's JSON lines and Parquet; ``arrow``: ``chunk_arrow``);
``arrow_at`` (its place among ``chunk_arrow``'s columns that are not metadata); ``export`` (its key in a LlamaIndex
node's or LangChain Document's metadata); ``embedded`` (whether the exporters keep it in the embedded text) and
``inherited`` (whether HierarchicalChunker passes a parent's value down to a child whose chunker does not set it).
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from . import _core

__all__ = ["COLUMNS", "Column", "chunker_name", "keys", "metadata_keys", "names"]


class Column(NamedTuple):
    name: str
    type: str
    nullable: bool
    role: str
    sources: Tuple[str, ...]
    chunkers: Tuple[str, ...]
    written_for: Tuple[str, ...]
    when: str
    formats: Tuple[str, ...]
    arrow_at: Optional[int]
    export: Optional[str]
    embedded: bool
    inherited: bool

    @property
    def excluded_from_embedding(self) -> bool:
        """Whether the exporters carry it but keep it out of the text that is embedded and shown to an LLM."""
        return self.export is not None and not self.embedded


def _column(d: Dict[str, Any]) -> Column:
    values: Dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    return Column(**values)


#: The columns, in the core's order: the command line's fields, then the metadata keys.
COLUMNS: Tuple[Column, ...] = tuple(_column(d) for d in _core.columns())

_BY_NAME = {c.name: c for c in COLUMNS}


def names(*, role: Optional[str] = None, format: Optional[str] = None, source: Optional[str] = None) -> Tuple[str, ...]:
    """The names of the columns of ``role``, written in ``format``, set by ``source``, in the record's order."""
    return tuple(
        c.name for c in COLUMNS
        if (role is None or c.role == role)
        and (format is None or format in c.formats)
        and (source is None or source in c.sources)
    )


def metadata_keys(*sources: str) -> Tuple[str, ...]:
    """The metadata keys the chunkers of ``sources`` (``structure``, ``code``, ``pages``, ``strategy``...) set, in
    the record's order."""
    return tuple(c.name for c in COLUMNS if c.role == "metadata" and any(s in c.sources for s in sources))


def chunker_name(chunker: Any) -> str:
    """The record's name of a chunker (its strategy: ``recursive``, ``markdown``, ``auto``, ``hierarchical``...)."""
    name = getattr(chunker, "_strategy", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"chunker must be a chunkwise chunker, got {type(chunker).__name__}")
    return name


def keys(chunker: Any, *, role: str = "metadata", written: bool = False) -> List[str]:
    """The columns of ``role`` that the chunks of ``chunker`` may carry (``written``: that its outputs have, a table
    its column even where no chunk has a value), in the record's order: a composite's own and those of the chunkers
    it runs (a HierarchicalChunker's levels)."""
    names_ = {chunker_name(chunker)}
    for level in getattr(chunker, "levels", None) or ():
        names_.add(chunker_name(level))
    return [c.name for c in COLUMNS if c.role == role and names_ & set(c.written_for if written else c.chunkers)]


def column(name: str) -> Column:
    """The column named ``name``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"name {name!r} is not a column of the chunk record") from None
