"""A chunkwise chunker as a LangChain ``TextSplitter`` (and so a document transformer): ``split_documents`` gives
``Document`` objects whose metadata holds the document's metadata, the chunk's own (``title_path``, pages, table
rows...) and its offsets (``start_index``, ``end_index``), id, index, level, size, token count and context.

Needs langchain-text-splitters (``pip install langchain-text-splitters``).
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "chunkwise.integrations.langchain needs LangChain's splitters: pip install langchain-text-splitters"
    ) from exc

from ..chunkers import BaseChunker
from ._fields import chunk_metadata

__all__ = ["ChunkwiseTextSplitter"]


class ChunkwiseTextSplitter(TextSplitter):
    """Any chunkwise chunker behind LangChain's ``TextSplitter`` interface.

    ``split_text`` gives the chunks' texts; ``create_documents`` / ``split_documents`` / ``transform_documents``
    give one ``Document`` per chunk, its ``page_content`` the exact slice of the text (``embedding_text``, the slice
    with its context, is in the metadata when the chunker adds a context). The document's metadata names the
    chunk ids' namespace (``doc_id``, ``id`` or ``source``), as in :meth:`BaseChunker.chunk`.
    """

    def __init__(self, chunker: BaseChunker, *, embedding_text: bool = True) -> None:
        if not isinstance(chunker, BaseChunker):
            raise TypeError(f"chunker must be a chunkwise chunker, got {type(chunker).__name__}")
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
                meta = chunk_metadata(chunk)  # the document's metadata is in the chunk's
                if self.embedding_text and chunk.context:
                    meta["embedding_text"] = chunk.embedding_text
                documents.append(Document(page_content=chunk.text, metadata=meta))
        return documents

    def split_documents(self, documents: Iterable[Document]) -> List[Document]:
        documents = list(documents)
        return self.create_documents([d.page_content for d in documents], [d.metadata for d in documents])

    def __reduce__(self) -> Any:
        return (type(self), (self.chunker,), {"embedding_text": self.embedding_text})

    def __setstate__(self, state: dict) -> None:
        self.embedding_text = state["embedding_text"]
