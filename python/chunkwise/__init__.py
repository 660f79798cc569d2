"""chunkwise: fast, structure- and CJK-aware text chunking with exact offsets.

Every chunker cuts text at the strongest boundary that fits (paragraph, line, sentence, clause, word, grapheme),
in a Rust core, and returns :class:`Chunk` objects whose ``text`` is always ``source[start:end]``.
"""

from ._core import ChunkingError, Tokenizer, __version__
from .chunk import Chunk
from .auto import AutoChunker
from .diff import ChunkDiff, diff
from .chunkers import (
    CODE_LANGUAGES,
    ClauseChunker,
    CodeChunker,
    FixedChunker,
    MarkdownChunker,
    ParagraphChunker,
    RecursiveChunker,
    SentenceChunker,
    TableChunker,
    join_pages,
)
from .hierarchy import HierarchicalChunker, expand, merge_hits
from .semantic import SemanticChunker

__all__ = [
    "AutoChunker",
    "Chunk",
    "ChunkDiff",
    "ChunkingError",
    "CODE_LANGUAGES",
    "ClauseChunker",
    "CodeChunker",
    "FixedChunker",
    "HierarchicalChunker",
    "MarkdownChunker",
    "ParagraphChunker",
    "RecursiveChunker",
    "SemanticChunker",
    "SentenceChunker",
    "TableChunker",
    "Tokenizer",
    "__version__",
    "diff",
    "expand",
    "join_pages",
    "merge_hits",
]
