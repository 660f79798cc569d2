"""Re-ingestion: which chunks of a new run to embed, which to keep and which to delete.

A chunk id hashes the document id, the chunk's text and which occurrence of that text it is (see
:attr:`Chunk.id`), not its offsets: an edit changes the ids of the chunks it touches, and a chunk elsewhere in the
document keeps its id even when its offsets move. So comparing the ids of two runs says what changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, List, Mapping

__all__ = ["ChunkDiff", "diff", "id_of"]


@dataclass(frozen=True)
class ChunkDiff:
    """The difference between two runs over the same documents, in the order of each run.

    ``added``: chunks of the new run whose id the old run did not have (to embed). ``kept``: chunks of the new run
    whose id the old run had (their embeddings stay valid; their offsets may have moved). ``removed``: chunks of
    the old run whose id the new run does not have (to delete from the index).
    """

    added: List[Any]
    kept: List[Any]
    removed: List[Any]

    def __repr__(self) -> str:
        return f"ChunkDiff(added={len(self.added)}, kept={len(self.kept)}, removed={len(self.removed)})"


def id_of(item: Any, name: str = "chunk") -> str:
    """The id of a :class:`Chunk`, of a mapping with an ``"id"`` (a line of ``chunkwise chunk``'s output), or an id
    itself."""
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping):
        value = item.get("id")
    else:
        value = getattr(item, "id", None)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a Chunk, a mapping with a str 'id', or a str id, got {type(item).__name__}")
    return value


def diff(old: Iterable[Any], new: Iterable[Any]) -> ChunkDiff:
    """What to embed, keep and delete when ``new`` (this run's chunks) replaces ``old`` (the last run's): chunks,
    mappings with an ``"id"`` (the lines of ``chunkwise chunk``'s JSON output), or ids, for one document or many.
    Only ids are compared; each list keeps its own items and order."""
    old_items = list(old)
    new_items = list(new)
    old_ids = {id_of(item, f"old[{i}]") for i, item in enumerate(old_items)}
    new_ids = [id_of(item, f"new[{i}]") for i, item in enumerate(new_items)]
    seen = set(new_ids)
    added = [item for item, i in zip(new_items, new_ids) if i not in old_ids]
    kept = [item for item, i in zip(new_items, new_ids) if i in old_ids]
    removed = [item for item in old_items if id_of(item) not in seen]
    return ChunkDiff(added, kept, removed)
