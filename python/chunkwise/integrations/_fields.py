"""What every adapter puts in a chunk's metadata besides the chunk's own (title path, pages, table rows...)."""

from __future__ import annotations

import copy
from typing import Any, Dict


def chunk_metadata(chunk: Any) -> Dict[str, Any]:
    """The chunk's metadata (a copy of its own: the chunks of a text share theirs) and what the Chunk object knows:
    offsets, id, index, level, sizes and context."""
    out: Dict[str, Any] = copy.deepcopy(dict(chunk.metadata))
    for key, value in (
        ("start_index", chunk.start),
        ("end_index", chunk.end),
        ("chunk_id", chunk.id),
        ("chunk_index", chunk.index),
        ("prev_chunk_id", chunk.prev_id),
        ("next_chunk_id", chunk.next_id),
        ("level", chunk.level),
        ("size", chunk.size),
        ("token_count", chunk.token_count),
        ("context", chunk.context),
    ):
        if value is not None and value != "":
            out.setdefault(key, value)
    for key, value in list(out.items()):
        if isinstance(value, tuple):
            out[key] = list(value)
    return out
