"""Ingestion that re-embeds only what changed: files -> chunks -> embeddings -> a vector store kept in sync.

:func:`ingest` (``chunkwise ingest``) and :func:`query` (``chunkwise query``); the embedding cache
(:class:`EmbeddingCache`); the one interface of the stores (:class:`~chunkwise.ingest.stores.Store`) and
:func:`open_store`. See ``docs/ingestion/ingest.md``.
"""

from .cache import EmbeddingCache
from .run import IngestReport, ingest, query
from .stores import Replacement, Store, open_store

__all__ = ["EmbeddingCache", "IngestReport", "Replacement", "Store", "ingest", "open_store", "query"]
