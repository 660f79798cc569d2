"""A chunkwise chunker as a LlamaIndex ``NodeParser``: ``TextNode``s with exact ``start_char_idx`` /
``end_char_idx`` in their document, ids that are the chunks' content-addressed ids (re-ingesting an edited document
keeps the ids of the chunks it did not touch), SOURCE / PREVIOUS / NEXT relations, and the chunk's metadata
(``title_path``, pages, table rows...) merged over the document's.

Needs llama-index-core (``pip install llama-index-core``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Union

try:
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.schema import BaseNode, Document, MetadataMode, NodeRelationship, TextNode
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("chunkwise.integrations.llama_index needs LlamaIndex: pip install llama-index-core") from exc

from pydantic import PrivateAttr

from ..auto import AutoChunker
from ..chunkers import BaseChunker
from ._fields import EXCLUDED_FROM_EMBEDDING, check_chunker, chunk_metadata

__all__ = ["ChunkwiseNodeParser", "hierarchical_nodes"]

class ChunkwiseNodeParser(NodeParser):
    """Any chunkwise chunker that cuts a text into a flat list of chunks behind LlamaIndex's ``NodeParser``
    interface (``get_nodes_from_documents``, and a transformation of an ``IngestionPipeline``); HierarchicalChunker's
    chunks go through :func:`hierarchical_nodes`, and ElementsChunker takes parsed elements, not a node's text.
    The keys that describe a chunk rather than its meaning (``chunkwise.record``: offsets, ids, sizes, rows, lines,
    scores) are left out of what is embedded and what the LLM reads."""

    _chunker: Any = PrivateAttr()

    def __init__(self, chunker: Union[BaseChunker, AutoChunker], **kwargs: Any) -> None:
        check_chunker(chunker)
        super().__init__(**kwargs)
        self._chunker = chunker

    @classmethod
    def class_name(cls) -> str:
        return "ChunkwiseNodeParser"

    @property
    def chunker(self) -> Union[BaseChunker, AutoChunker]:
        return self._chunker

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> List[BaseNode]:
        out: List[BaseNode] = []
        for node in nodes:
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            # The node's id namespaces the chunk ids, so that equal passages of two documents get two ids.
            metadata: Dict[str, Any] = {**node.metadata, "doc_id": node.node_id}
            chunks = self._chunker.chunk(text, metadata)
            # A TextNode's templates carry over to its chunks (how metadata and text are joined for the LLM).
            templates = (
                {k: getattr(node, k) for k in ("metadata_separator", "metadata_template", "text_template")}
                if isinstance(node, TextNode)
                else {}
            )
            made = []
            for chunk in chunks:
                meta = chunk_metadata(chunk)
                meta.pop("doc_id", None)
                for key, value in node.metadata.items():
                    meta.setdefault(key, value)
                child = TextNode(
                    id_=chunk.id,
                    text=chunk.text,
                    start_char_idx=chunk.start,
                    end_char_idx=chunk.end,
                    metadata=meta,
                    excluded_embed_metadata_keys=[k for k in meta if k in EXCLUDED_FROM_EMBEDDING]
                    + list(node.excluded_embed_metadata_keys),
                    excluded_llm_metadata_keys=[k for k in meta if k in EXCLUDED_FROM_EMBEDDING]
                    + list(node.excluded_llm_metadata_keys),
                    **templates,
                )
                child.relationships[NodeRelationship.SOURCE] = node.as_related_node_info()
                made.append(child)
            if self.include_prev_next_rel:
                for prev, nxt in zip(made, made[1:]):
                    prev.relationships[NodeRelationship.NEXT] = nxt.as_related_node_info()
                    nxt.relationships[NodeRelationship.PREVIOUS] = prev.as_related_node_info()
            out.extend(made)
        return out

    def _postprocess_parsed_nodes(self, nodes: List[BaseNode], parent_doc_map: Dict[str, Document]) -> List[BaseNode]:
        # LlamaIndex's own post-processing finds each node's text in its document again and relinks neighbours by
        # position: the chunks already carry their exact offsets and relations.
        return nodes

    def __reduce__(self) -> Any:
        return (type(self), (self._chunker,), None)


def hierarchical_nodes(chunks: Sequence[Any], document: Any = None) -> List[TextNode]:
    """The chunks of a :class:`~chunkwise.HierarchicalChunker` as LlamaIndex ``TextNode``s, in the same order, ids
    the chunks' ids, with PARENT, CHILD, PREVIOUS and NEXT relations (and SOURCE when the ``document`` they were cut
    from is given), so that ``AutoMergingRetriever`` merges hit children into their parent and fills the gap
    between two hits of one level. Put all of them in the docstore, and the last level's in the vector index
    (``llama_index.core.node_parser.get_leaf_nodes`` picks them)."""
    made: Dict[str, TextNode] = {}
    for i, chunk in enumerate(chunks):
        meta = chunk_metadata(chunk)
        if "depth" not in meta:
            raise TypeError(f"chunks[{i}] must be a Chunk made by HierarchicalChunker")
        made[chunk.id] = TextNode(
            id_=chunk.id,
            text=chunk.text,
            start_char_idx=chunk.start,
            end_char_idx=chunk.end,
            metadata=meta,
            excluded_embed_metadata_keys=[k for k in meta if k in EXCLUDED_FROM_EMBEDDING],
            excluded_llm_metadata_keys=[k for k in meta if k in EXCLUDED_FROM_EMBEDDING],
        )
    # Relations once every node exists: each is the related node's own info, so that two nodes naming the same
    # neighbour name it alike (the retriever compares them).
    info = {cid: node.as_related_node_info() for cid, node in made.items()}
    source = document.as_related_node_info() if document is not None else None
    for chunk in chunks:
        rel = made[chunk.id].relationships
        parent = chunk.metadata["parent_id"]
        if parent is not None:
            rel[NodeRelationship.PARENT] = info[parent]
        kids = chunk.metadata["children_ids"]
        if kids:
            rel[NodeRelationship.CHILD] = [info[k] for k in kids]
        if chunk.prev_id is not None:
            rel[NodeRelationship.PREVIOUS] = info[chunk.prev_id]
        if chunk.next_id is not None:
            rel[NodeRelationship.NEXT] = info[chunk.next_id]
        if source is not None:
            rel[NodeRelationship.SOURCE] = source
    return list(made.values())
