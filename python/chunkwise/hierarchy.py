"""Parent-child chunks: one pass over a document gives its chunks at several sizes, each level tiling the one above
it, with the relations a retriever needs (index the small chunks, return their parents).

:class:`HierarchicalChunker` makes the chunks; :func:`merge_hits` and :func:`expand` are the retrieval helpers. The
exporters to LlamaIndex and LangChain live in :mod:`chunkwise.integrations`.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _core
from ._core import Tokenizer
from .chunk import Chunk
from .chunkers import (
    PAGE_BREAK,
    BaseChunker,
    RecursiveChunker,
    _as_dict,
    _as_list,
    _batch_metadatas,
    _Configured,
    _given,
    _text_or_pages,
)
from .record import COLUMNS, metadata_keys

__all__ = ["HIERARCHY_KEYS", "HierarchicalChunker", "expand", "merge_hits"]

#: The keys :class:`HierarchicalChunker` sets in every chunk's metadata.
HIERARCHY_KEYS = metadata_keys("hierarchy")

# What a child takes from its parent when its own chunker knows nothing of the document's structure (the record's
# inherited keys: where the chunk stands in the document).
_INHERITED = tuple(c.name for c in COLUMNS if c.inherited)

Level = Union[int, BaseChunker]


class HierarchicalChunker(_Configured):
    """Chunks at several sizes at once, as one flat list over all levels: level 0 (the largest) tiles the document,
    and each chunk of level ``d + 1`` lies inside one chunk of level ``d`` (its parent), the children of a parent
    tiling it exactly: no gap, no overlap, every character of the parent in one child.

    ``levels``: the levels, largest first, each a size (an ``int``: a :class:`RecursiveChunker` of that size in
    ``unit``/``tokenizer``, exact as every chunker's sizes) or a chunker (e.g. a :class:`MarkdownChunker` for
    sections, then sizes or a :class:`SentenceChunker`). Below level 0 each chunker runs with ``trim=False`` over its
    parent's text, which is what makes the children tile the parent. A structural chunker as level 0 must not merge
    sections (``merge_sections=False``): each parent is then one section, and its children take its ``title_path``
    and ``headings``, and its ``context`` when they have none of their own.

    Every chunk's ``text`` is ``source[start:end]`` with ``start``/``end`` in the whole document (not its parent),
    ``index`` is its position in the returned list (level 0 first, then level 1, ...), and its metadata holds, besides
    the caller's and its chunker's:

    - ``depth``: its level (0 for the largest chunks);
    - ``parent_id`` (None at level 0), ``children_ids`` (empty at the last level) and ``root_id`` (its level-0
      ancestor; its own id at level 0).

    ``prev_id`` / ``next_id`` link the chunks of one level in document order, across parents. Ids are the core's,
    as every chunk's: content-addressed and namespaced by document (``doc_id``, ``id`` or ``source`` in the
    metadata; without one, a digest of the whole text) and by level: the same document chunked twice gets the same
    ids, the same passage in two documents (or at two levels) two ids, and level 0's ids are those its chunker
    gives.
    """

    _strategy = "hierarchical"

    def __init__(
        self,
        levels: Sequence[Level] = (2048, 512, 128),
        *,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
    ) -> None:
        public = _given(locals())
        if isinstance(levels, (str, bytes)) or not isinstance(levels, Sequence):
            raise TypeError(f"levels must be a sequence of sizes or chunkers, got {type(levels).__name__}")
        if not levels:
            raise _core.ChunkingError("levels must hold at least one level")
        public["levels"] = tuple(levels)
        self._kwargs = public
        chunkers: List[BaseChunker] = []
        sized: Optional[int] = None
        for depth, level in enumerate(levels):
            name = f"levels[{depth}]"
            if isinstance(level, bool) or not isinstance(level, (int, BaseChunker)):
                raise TypeError(f"{name} must be a size (int) or a chunkwise chunker, got {type(level).__name__}")
            if isinstance(level, int):
                if level < 1:
                    raise _core.ChunkingError(f"{name} must be a size >= 1, got {level}")
                if sized is not None and level >= sized:
                    raise _core.ChunkingError(
                        f"{name} ({level}) must be smaller than the size of the level above it ({sized})"
                    )
                sized = level
                chunkers.append(
                    RecursiveChunker(level, unit=unit, tokenizer=tokenizer, max_chars=max_chars, trim=depth == 0)
                )
                continue
            if getattr(level, "_embeds", False) and depth > 0:
                raise _core.ChunkingError(f"{name}: a SemanticChunker can only be level 0")
            config = level.config
            if depth == 0:
                if config.get("merge_sections", False):
                    raise _core.ChunkingError(
                        f"{name}: a {type(level).__name__} that merges sections makes parents of several "
                        "sections, whose children cannot take one title path: pass merge_sections=False"
                    )
                chunkers.append(level)
            elif config.get("trim", True) is False:
                chunkers.append(level)
            else:
                # The same chunker, keeping whitespace: its chunks then tile the parent.
                chunkers.append(type(level)(**{**config, "trim": False}))
        self._chunkers = chunkers

    # -- calls -----------------------------------------------------------------------------------------------------

    def chunk(
        self,
        text: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        *,
        pages: Optional[Sequence[str]] = None,
    ) -> List[Chunk]:
        """The chunks of ``text`` at every level, as one list: level 0 first (see the class). ``metadata`` is
        copied into each chunk; ``pages`` as for :meth:`BaseChunker.chunk`."""
        text = _text_or_pages(text, pages)
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return self._chunk(text, _as_dict(metadata, "metadata"), pages is not None)

    def chunk_batch(
        self,
        texts: Sequence[str],
        metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    ) -> List[List[Chunk]]:
        """:meth:`chunk` for many texts (each level of each text is chunked in parallel in the core)."""
        texts, metas = _batch_metadatas(texts, metadatas)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"texts[{i}] must be a str, got {type(t).__name__}")
        return [self._chunk(t, m, False) for t, m in zip(texts, metas)]

    def _chunk(self, text: str, metadata: Optional[dict], paged: bool) -> List[Chunk]:
        if metadata is not None:
            taken = [k for k in HIERARCHY_KEYS if k in metadata]
            if taken:
                raise _core.ChunkingError(
                    f"metadata key {taken[0]!r} is set by HierarchicalChunker on every chunk: rename it"
                )
        levels = self._levels(text, metadata, paged or PAGE_BREAK in text)
        return _assemble(text, levels, metadata)

    def _levels(self, text: str, metadata: Optional[dict], paged: bool) -> List[List["_Node"]]:
        """The chunks of each level as nodes (absolute offsets), each knowing its parent's position."""
        # The metadata goes to level 0's chunker, which refuses a key of its own (a caller's "title_path").
        top = [_Node.of(c, 0, -1) for c in self._chunkers[0].chunk(text, metadata)]
        out = [top]
        for chunker in self._chunkers[1:]:
            parents = out[-1]
            # One call for all the parents of the level: the core chunks them in parallel.
            pieces = chunker.chunk_batch([text[p.start : p.end] for p in parents])
            level: List[_Node] = []
            for k, (parent, kids) in enumerate(zip(parents, pieces)):
                for c in kids:
                    level.append(_Node.of(c, parent.start, k))
            out.append(level)
        if paged:
            # Pages of the whole document: a child's chunker saw only its parent's text.
            breaks = _positions(text, PAGE_BREAK)
            for level in out:
                for node in level:
                    node.meta["page_start"] = bisect_left(breaks, node.start) + 1
                    node.meta["page_end"] = bisect_left(breaks, max(node.start, node.end - 1)) + 1
        return out

    @property
    def levels(self) -> List[BaseChunker]:
        """The chunker of each level, largest first (sizes as the RecursiveChunker they stand for)."""
        return list(self._chunkers)


class _Node:
    """A chunk of one level before its relations are known: offsets in the whole document."""

    __slots__ = ("start", "end", "size", "cut", "meta", "context", "sep", "tokens", "parent")

    def __init__(
        self, start: int, end: int, size: int, cut: str, meta: dict, context: str, sep: str,
        tokens: Optional[int], parent: int,
    ) -> None:
        self.start, self.end, self.size, self.cut = start, end, size, cut
        self.meta, self.context, self.sep, self.tokens, self.parent = meta, context, sep, tokens, parent

    @classmethod
    def of(cls, c: Chunk, shift: int, parent: int) -> "_Node":
        return cls(
            c.start + shift, c.end + shift, c.size, c.level, dict(c.metadata), c.context, c.context_sep,
            c.token_count, parent,
        )


def _positions(text: str, char: str) -> List[int]:
    """Where ``char`` stands in ``text``, found by ``str.find`` (not a Python step per character)."""
    out: List[int] = []
    at = text.find(char)
    while at >= 0:
        out.append(at)
        at = text.find(char, at + 1)
    return out


def _ids(text: str, depth: int, level: List["_Node"], metadata: Optional[dict]) -> List[str]:
    """The ids of one level's chunks: the core's ids (a hash of the document, the chunk's text and which occurrence
    of that text it is in the level, not of its offsets: an edit before a chunk shifts them), namespaced by the level
    below level 0, whose ids are those its chunker gave."""
    return _core.level_ids(text, [text[n.start : n.end] for n in level], metadata, depth)


def _assemble(text: str, levels: List[List[_Node]], metadata: Optional[dict]) -> List[Chunk]:
    ids = [_ids(text, d, level, metadata) for d, level in enumerate(levels)]
    children: List[List[List[str]]] = [[[] for _ in level] for level in levels]
    for d in range(1, len(levels)):
        for k, node in enumerate(levels[d]):
            children[d - 1][node.parent].append(ids[d][k])
    roots: List[List[str]] = [ids[0]]
    for d in range(1, len(levels)):
        above = roots[d - 1]
        roots.append([above[n.parent] for n in levels[d]])
    out: List[Chunk] = []
    base = dict(metadata) if metadata else {}
    for d, level in enumerate(levels):
        level_ids = ids[d]
        parents = levels[d - 1] if d else None
        for k, node in enumerate(level):
            meta = {**base, **node.meta}
            context, sep = node.context, node.sep
            if parents is not None:
                parent = parents[node.parent]
                for key in _INHERITED:
                    if key in parent.meta and key not in node.meta:
                        meta[key] = parent.meta[key]
                if not context and parent.context:
                    context, sep = parent.context, parent.sep
                    # Passed down to the grandchildren too.
                    node.context, node.sep = context, sep
                for key in _INHERITED:
                    if key in meta:
                        node.meta.setdefault(key, meta[key])
            meta["depth"] = d
            meta["parent_id"] = ids[d - 1][node.parent] if d else None
            meta["children_ids"] = children[d][k]
            meta["root_id"] = roots[d][k]
            out.append(
                Chunk(
                    text[node.start : node.end],
                    node.start,
                    node.end,
                    index=len(out),
                    size=node.size,
                    level=node.cut,
                    metadata=meta,
                    context=context,
                    id=level_ids[k],
                    prev_id=level_ids[k - 1] if k else None,
                    next_id=level_ids[k + 1] if k + 1 < len(level_ids) else None,
                    token_count=node.tokens,
                    context_sep=sep,
                )
            )
    return out


# -- retrieval helpers ---------------------------------------------------------------------------------------------


def _by_id(chunks: Iterable[Chunk], name: str) -> Dict[str, Chunk]:
    out: Dict[str, Chunk] = {}
    for i, c in enumerate(chunks):
        if not isinstance(c, Chunk) or "depth" not in c.metadata:
            raise TypeError(f"{name}[{i}] must be a Chunk made by HierarchicalChunker")
        out[c.id] = c
    return out


def _hit_ids(hits: Sequence[Union[Chunk, str]], known: Mapping[str, Chunk]) -> List[str]:
    out: List[str] = []
    seen = set()
    for i, h in enumerate(hits):
        cid = h.id if isinstance(h, Chunk) else h
        if not isinstance(cid, str):
            raise TypeError(f"hits[{i}] must be a Chunk or a chunk id, got {type(h).__name__}")
        if cid not in known:
            raise _core.ChunkingError(f"hits[{i}] ({cid}) is not one of chunks")
        if cid not in seen:
            seen.add(cid)
            out.append(cid)
    return out


def merge_hits(
    hits: Sequence[Union[Chunk, str]],
    chunks: Iterable[Chunk],
    *,
    ratio: float = 0.5,
    k: Optional[int] = None,
) -> List[Chunk]:
    """Retrieved chunks (``hits``, best first: chunks or their ids) with the children of a parent replaced by the
    parent when more than ``ratio`` of its children were hit, level after level up to the roots; duplicates are
    dropped (the first, best rank kept) before the list is cut to ``k``. A merged parent takes the rank of its best
    child. ``chunks``: the hierarchy the hits come from (all levels of their documents, as
    :meth:`HierarchicalChunker.chunk` returns them).
    """
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 <= ratio < 1:
        raise _core.ChunkingError(f"ratio must be a number in [0, 1), got {ratio!r}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 0):
        raise _core.ChunkingError(f"k must be an int >= 0 or None, got {k!r}")
    known = _by_id(chunks, "chunks")
    ranked = _hit_ids(_as_list(hits, "hits"), known)
    while True:
        hit = set(ranked)
        counts: Dict[str, int] = {}
        for cid in ranked:
            parent = known[cid].metadata["parent_id"]
            if parent is not None:
                counts[parent] = counts.get(parent, 0) + 1
        merge = {
            p for p, n in counts.items()
            if p in known and n / len(known[p].metadata["children_ids"]) > ratio and p not in hit
        }
        if not merge:
            break
        merged: List[str] = []
        placed = set()
        for cid in ranked:
            parent = known[cid].metadata["parent_id"]
            if parent in merge:
                if parent not in placed:
                    placed.add(parent)
                    merged.append(parent)
                continue
            merged.append(cid)
        # A parent already among the hits absorbs its children where it stands.
        ranked = list(dict.fromkeys(merged))
    # Children of a parent that is itself a hit add nothing: keep the parent.
    present = set(ranked)
    ranked = [cid for cid in ranked if not _has_ancestor_in(known, cid, present)]
    result = [known[cid] for cid in ranked]
    return result if k is None else result[:k]


def _has_ancestor_in(known: Mapping[str, Chunk], cid: str, present: set) -> bool:
    parent = known[cid].metadata["parent_id"]
    while parent is not None:
        if parent in present:
            return True
        node = known.get(parent)
        parent = None if node is None else node.metadata["parent_id"]
    return False


def expand(hit: Union[Chunk, str], chunks: Iterable[Chunk], *, to: str = "parent", window: int = 1) -> List[Chunk]:
    """The context of a retrieved chunk: ``to="parent"``: its parent (the chunk itself at level 0), as a one-item
    list; ``to="window"``: the chunk with up to ``window`` chunks of its level on each side (across parents, never
    across documents), in order."""
    known = _by_id(chunks, "chunks")
    (cid,) = _hit_ids([hit], known)
    chunk = known[cid]
    if to == "parent":
        parent = chunk.metadata["parent_id"]
        return [chunk if parent is None else known[parent]]
    if to != "window":
        raise _core.ChunkingError(f'to must be "parent" or "window", got {to!r}')
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise _core.ChunkingError(f"window must be an int >= 0, got {window!r}")
    before = _walk(known, chunk, "prev_id", window)
    after = _walk(known, chunk, "next_id", window)
    return before[::-1] + [chunk] + after


def _walk(known: Mapping[str, Chunk], chunk: Chunk, link: str, steps: int) -> List[Chunk]:
    """Up to ``steps`` chunks from ``chunk`` along ``link`` (``prev_id`` or ``next_id``), nearest first."""
    out: List[Chunk] = []
    for _ in range(steps):
        nxt = getattr(chunk, link)
        if nxt is None or nxt not in known:
            break
        chunk = known[nxt]
        out.append(chunk)
    return out
