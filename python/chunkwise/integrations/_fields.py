"""What every adapter puts in a chunk's metadata besides the chunk's own (title path, pages, table rows...), which
chunkers it takes, and which keys it keeps out of the embedded text: all read from the core's record
(:mod:`chunkwise.record`)."""

from __future__ import annotations

import copy
from typing import Any, Dict, FrozenSet

from ..auto import AutoChunker
from ..chunkers import BaseChunker
from ..record import COLUMNS

#: The keys the exporters carry but keep out of what is embedded and what an LLM reads: those that describe the chunk
#: (offsets, ids, sizes, rows, lines, scores, relations), not its meaning (the title path, the symbol path, the
#: language and the document's own keys stay in).
EXCLUDED_FROM_EMBEDDING: FrozenSet[str] = frozenset(c.export for c in COLUMNS if c.excluded_from_embedding and c.export)

# The chunk's fields the exporters carry in the metadata, as (attribute, key).
_FIELDS = tuple((c.name, c.export) for c in COLUMNS if c.role == "field" and c.export and c.name != "embedding_text")

#: Why the chunkers whose output is not a flat list of chunks of a text are not taken by an adapter.
_NOT_FLAT = {
    "HierarchicalChunker": "its chunks are several levels over the same text, not a flat list: chunk with it and "
                           "use hierarchical_nodes (LlamaIndex) or parent_documents (LangChain)",
    "ElementsChunker": "it takes parsed elements, not a text: chunk them with its chunk() and build the nodes or "
                       "Documents from its chunks",
}


def check_chunker(chunker: Any) -> None:
    """Refuses anything but a chunker that cuts a text into a flat list of chunks, naming why a known one is not."""
    name = type(chunker).__name__
    if name in _NOT_FLAT:
        raise TypeError(f"chunker must give a flat list of chunks of a text, and a {name} does not: {_NOT_FLAT[name]}")
    if not isinstance(chunker, (BaseChunker, AutoChunker)):
        raise TypeError(f"chunker must be a chunkwise chunker, got {name}")


def chunk_metadata(chunk: Any, embedding_text: bool = False) -> Dict[str, Any]:
    """The chunk's metadata (a copy of its own: the chunks of a text share theirs) and what the Chunk object knows:
    offsets, id, index, level, sizes and context; and its ``embedding_text`` when asked and it has a context."""
    out: Dict[str, Any] = copy.deepcopy(dict(chunk.metadata))
    for name, key in _FIELDS:
        value = getattr(chunk, name)
        if value is not None and value != "":
            out.setdefault(key, value)
    if embedding_text and chunk.context:
        out["embedding_text"] = chunk.embedding_text
    for key, value in list(out.items()):
        if isinstance(value, tuple):
            out[key] = list(value)
    return out
