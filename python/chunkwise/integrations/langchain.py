"""A chunkwise chunker as a LangChain ``TextSplitter`` (and so a document transformer): ``split_documents`` gives
``Document`` objects whose metadata holds the document's metadata, the chunk's own (``title_path``, pages, table
rows...) and its offsets (``start_index``, ``end_index``), id, index, level, size, token count and context.

Needs langchain-text-splitters (``pip install langchain-text-splitters``).
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "chunkwise.integrations.langchain needs LangChain's splitters: pip install langchain-text-splitters"
    ) from exc

from ..auto import AutoChunker
from ..chunkers import BaseChunker
from ._fields import check_chunker, chunk_metadata

__all__ = ["ChunkwiseTextSplitter", "parent_documents"]


class ChunkwiseTextSplitter(TextSplitter):
    """Any chunkwise chunker that cuts a text into a flat list of chunks (every one but HierarchicalChunker, whose
    chunks :func:`parent_documents` takes, and ElementsChunker, which takes parsed elements) behind LangChain's
    ``TextSplitter`` interface.

    ``split_text`` gives the chunks' texts; ``create_documents`` / ``split_documents`` / ``transform_documents``
    give one ``Document`` per chunk, its ``page_content`` the exact slice of the text (``embedding_text``, the slice
    with its context, is in the metadata when the chunker adds a context). The document's metadata names the
    chunk ids' namespace (``doc_id``, ``id`` or ``source``), as in :meth:`BaseChunker.chunk`.
    """

    def __init__(self, chunker: Union[BaseChunker, AutoChunker], *, embedding_text: bool = True) -> None:
        check_chunker(chunker)
        config = chunker.config
        size = config.get("size") or 1
        overlap = config.get("overlap") or 0
        super().__init__(chunk_size=size, chunk_overlap=min(overlap, size - 1) if size > 1 else 0)
        self.chunker = chunker
        self.embedding_text = embedding_text

    def split_text(self, text: str) -> List[str]:
        return self.chunker.split(text)

    def create_documents(self, texts: List[str], metadatas: Optional[List[dict]] = None) -> List[Document]:
        metadatas = metadatas or [{}] * len(texts)
        if len(metadatas) != len(texts):
            raise ValueError(f"metadatas has {len(metadatas)} items for {len(texts)} texts")
        documents: List[Document] = []
        for text, metadata in zip(texts, metadatas):
            for chunk in self.chunker.chunk(text, metadata):
                meta = chunk_metadata(chunk, self.embedding_text)  # the document's metadata is in the chunk's
                documents.append(Document(page_content=chunk.text, metadata=meta))
        return documents

    def split_documents(self, documents: Iterable[Document]) -> List[Document]:
        documents = list(documents)
        return self.create_documents([d.page_content for d in documents], [d.metadata for d in documents])

    def __reduce__(self) -> Any:
        return (type(self), (self.chunker,), {"embedding_text": self.embedding_text})

    def __setstate__(self, state: dict) -> None:
        self.embedding_text = state["embedding_text"]


def parent_documents(
    chunks: Sequence[Any],
    *,
    child_depth: Optional[int] = None,
    parent_depth: Optional[int] = None,
    id_key: str = "parent_id",
) -> Tuple[List[Document], List[Tuple[str, Document]]]:
    """The chunks of a :class:`~chunkwise.HierarchicalChunker` as LangChain's ``ParentDocumentRetriever`` takes
    them: the chunks of level ``child_depth`` (default: the last) as ``Document``s for the vector store, each with
    the id of its ancestor at ``parent_depth`` (default: its parent's level) under ``id_key``; and the chunks of
    that level as ``(id, Document)`` pairs for the docstore (``docstore.mset(parents)``). Build the retriever with
    the same ``id_key``. Every Document's metadata holds the chunk's (offsets, ids, title path...)."""
    if not chunks:
        return [], []
    depths = []
    for i, chunk in enumerate(chunks):
        depth = chunk.metadata.get("depth") if hasattr(chunk, "metadata") else None
        if not isinstance(depth, int):
            raise TypeError(f"chunks[{i}] must be a Chunk made by HierarchicalChunker")
        depths.append(depth)
    deepest = max(depths)
    child_depth = deepest if child_depth is None else child_depth
    parent_depth = child_depth - 1 if parent_depth is None else parent_depth
    if not 0 <= parent_depth < child_depth <= deepest:
        raise ValueError(
            f"need 0 <= parent_depth < child_depth <= {deepest}, got parent_depth={parent_depth}, "
            f"child_depth={child_depth}"
        )
    if id_key == "parent_id" and parent_depth != child_depth - 1:
        raise ValueError('id_key "parent_id" names the parent: pass another id_key for an ancestor further up')
    by_id = {c.id: c for c in chunks}
    children, parents = [], []
    for chunk, depth in zip(chunks, depths):
        if depth == parent_depth:
            parents.append((chunk.id, Document(page_content=chunk.text, metadata=chunk_metadata(chunk), id=chunk.id)))
        elif depth == child_depth:
            ancestor = chunk
            for _ in range(child_depth - parent_depth):
                ancestor = by_id[ancestor.metadata["parent_id"]]
            meta = chunk_metadata(chunk)
            meta[id_key] = ancestor.id
            children.append(Document(page_content=chunk.text, metadata=meta, id=chunk.id))
    return children, parents
