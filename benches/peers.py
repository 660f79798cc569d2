"""Peer chunkers that chunkwise is benchmarked against.

Each entry maps a peer name to a factory ``factory(size) -> split`` where
``split(text) -> list[str]`` chunks ``text`` into pieces of at most ``size``
*characters* (``len(str)``, i.e. Unicode code points) with no overlap, using
the peer's own default boundary rules.  Packages are imported lazily and a
missing one makes the calling test skip (``pytest.importorskip``).

Verified against: langchain-text-splitters 1.1.3, semantic-text-splitter
0.33.1, chonkie 1.7.0, semchunk 4.1.1.
"""

from __future__ import annotations

from typing import Callable

import pytest

Split = Callable[[str], list[str]]
Factory = Callable[[int], Split]


def langchain(size: int) -> Split:
    # Default separators ["\n\n", "\n", " ", ""], keep_separator=True and
    # strip_whitespace=True; chunk_overlap defaults to 200, so pass 0.
    lts = pytest.importorskip("langchain_text_splitters")
    splitter = lts.RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=0, length_function=len
    )
    return splitter.split_text


def text_splitter(size: int) -> Split:
    # semantic-text-splitter: an int capacity is a hard maximum in chars;
    # overlap defaults to 0 and trim=True strips whitespace around chunks.
    sts = pytest.importorskip("semantic_text_splitter")
    return sts.TextSplitter(size, overlap=0, trim=True).chunks


def chonkie(size: int) -> Split:
    # tokenizer="character" maps to chonkie's CharacterTokenizer whose
    # count_tokens is len(text).  Default rules: paragraphs, ". ! ?",
    # ASCII pauses, whitespace, then a hard cut.  Returns Chunk objects.
    ch = pytest.importorskip("chonkie")
    chunker = ch.RecursiveChunker(tokenizer="character", chunk_size=size)
    return lambda text: [c.text for c in chunker.chunk(text)]


def semchunk(size: int) -> Split:
    # len is the token counter.  memoize=False: the default memoizes the
    # counter in a module-global unbounded cache that survives between
    # benchmark rounds and calls (and len is O(1) anyway).
    sc = pytest.importorskip("semchunk")
    return sc.chunkerify(len, chunk_size=size, memoize=False)


def text_splitter_md(size: int) -> Split:
    # Markdown-aware variant of semantic-text-splitter (same arguments).
    sts = pytest.importorskip("semantic_text_splitter")
    return sts.MarkdownSplitter(size, overlap=0, trim=True).chunks


def langchain_md(size: int) -> Split:
    # Langchain's documented two-step Markdown pipeline: split at ATX
    # headers (#..###, kept in the text), then size-limit each section.
    lts = pytest.importorskip("langchain_text_splitters")
    headers = lts.MarkdownHeaderTextSplitter(
        headers_to_split_on=[("#", "h1"), ("##", "h2"), ("###", "h3")],
        strip_headers=False,
    )
    sized = lts.RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=0, length_function=len
    )
    return lambda text: [
        d.page_content for d in sized.split_documents(headers.split_text(text))
    ]


# Plain-text peers, compared on every corpus file.
PEERS: dict[str, Factory] = {
    "langchain": langchain,
    "text_splitter": text_splitter,
    "chonkie": chonkie,
    "semchunk": semchunk,
}

# Markdown-aware peers, for mixed.md.
MARKDOWN_PEERS: dict[str, Factory] = {
    "text_splitter_md": text_splitter_md,
    "langchain_md": langchain_md,
}
