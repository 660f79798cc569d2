"""HierarchicalChunker: chunks at several levels in one pass, children tiling their parents, relations, ids, and the
retrieval helpers (merge_hits, expand) and exporters (LlamaIndex AutoMergingRetriever, LangChain
ParentDocumentRetriever)."""

from __future__ import annotations

import pickle
import re
import zlib
from collections import defaultdict
from typing import Dict, List

import pytest

import chunkwise as cw
from chunkwise import (
    ChunkingError,
    HierarchicalChunker,
    MarkdownChunker,
    RecursiveChunker,
    SentenceChunker,
    Tokenizer,
    expand,
    merge_hits,
)
from support.hierarchy_checks import by_depth, check_hierarchy
from support.corpus import DATA

TEXTS = {name: (DATA / name).read_text(encoding="utf-8")[:60_000] for name in ["en.txt", "zh.txt", "ja.txt", "mixed.md"]}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_sizes_in_chars(name):
    text = TEXTS[name]
    sizes = [2048, 512, 128]
    chunks = HierarchicalChunker(sizes).chunk(text)
    check_hierarchy(text, chunks, sizes)
    # Level 0 is the RecursiveChunker of its size.
    top = [(c.start, c.end) for c in chunks if c.metadata["depth"] == 0]
    assert top == [tuple(p) for p in RecursiveChunker(2048).spans(text).tolist()]


@pytest.mark.parametrize("name", ["en.txt", "zh.txt"])
def test_sizes_in_tokens(name):
    text = TEXTS[name][:30_000]
    tok = Tokenizer.tiktoken("cl100k_base")
    sizes = [512, 128, 32]
    chunks = HierarchicalChunker(sizes, tokenizer=tok).chunk(text)
    check_hierarchy(text, chunks)
    for c in chunks:
        assert c.token_count == tok.count(c.text)
        assert c.token_count <= sizes[c.metadata["depth"]]


def test_sections_then_sentences_keep_the_title_path():
    text = TEXTS["mixed.md"]
    sections = MarkdownChunker(2000, merge_sections=False)
    chunks = HierarchicalChunker([sections, SentenceChunker(300)]).chunk(text, {"doc_id": "mixed"})
    check_hierarchy(text, chunks)
    own = {(c.start, c.end): c.metadata["title_path"] for c in sections.chunk(text)}
    levels = by_depth(chunks)
    assert {(c.start, c.end): c.metadata["title_path"] for c in levels[0]} == own
    by_id = {c.id: c for c in chunks}
    for c in levels[1]:
        parent = by_id[c.metadata["parent_id"]]
        assert c.metadata["title_path"] == parent.metadata["title_path"]
        assert c.context == parent.context
        assert c.metadata["doc_id"] == "mixed"
    assert any(c.metadata["title_path"] for c in levels[1])


def test_a_merging_section_chunker_is_refused_as_level_0():
    with pytest.raises(ChunkingError, match=r"levels\[0\].*merge_sections=False"):
        HierarchicalChunker([MarkdownChunker(2000), 200])


def test_ids_stable_and_namespaced_by_document_and_level():
    text = TEXTS["en.txt"][:20_000]
    h = HierarchicalChunker([1024, 256])
    first, again = h.chunk(text), h.chunk(text)
    assert [c.id for c in first] == [c.id for c in again]
    # The same passage in two documents: two sets of ids.
    a = h.chunk(text, {"doc_id": "a"})
    b = h.chunk(text, {"doc_id": "b"})
    assert [c.text for c in a] == [c.text for c in b]
    assert not {c.id for c in a} & {c.id for c in b}
    # Without a doc_id the whole text names the document: a different text changes every id.
    other = h.chunk(text + "\n\nOne more paragraph.")
    assert not {c.id for c in first} & {c.id for c in other}
    # A short text is one chunk per level, each with its own id.
    short = h.chunk("Just one sentence.")
    assert [c.text for c in short] == ["Just one sentence."] * 2
    assert short[0].id != short[1].id


@pytest.mark.parametrize("metadata", [None, {"doc_id": "a"}, {"source": "a.md"}])
def test_ids_are_the_cores_level_0_those_of_its_chunker(metadata):
    # One id scheme (issue 32): the hierarchy's ids come from the core's id function, so level 0's are the ids its
    # chunker gives alone, and a deeper level's differ from the ids its chunker gives the parent's text.
    text = TEXTS["en.txt"][:8000]
    top = MarkdownChunker(1500, merge_sections=False)
    chunks = HierarchicalChunker([top, 300]).chunk(text, metadata)
    zero = [c for c in chunks if c.metadata["depth"] == 0]
    assert [c.id for c in zero] == [c.id for c in top.chunk(text, metadata)]
    one = [c for c in chunks if c.metadata["depth"] == 1]
    assert len({c.id for c in one}) == len(one) > len(zero)
    assert not {c.id for c in one} & {c.id for c in zero}


def test_pages_are_the_documents():
    pages = [TEXTS["en.txt"][i * 3000 : (i + 1) * 3000].replace("\f", " ") for i in range(5)]
    chunks = HierarchicalChunker([1500, 400]).chunk(pages=pages)
    text = "\f".join(pages)
    check_hierarchy(text, chunks)
    for c in chunks:
        assert c.metadata["page_start"] == text[: c.start].count("\f") + 1
        last = max(c.start, c.end - 1)
        assert c.metadata["page_end"] == text[:last].count("\f") + 1
    top = {(c.start, c.end): (c.metadata["page_start"], c.metadata["page_end"]) for c in by_depth(chunks)[0]}
    own = {(c.start, c.end): (c.metadata["page_start"], c.metadata["page_end"]) for c in
           RecursiveChunker(1500).chunk(pages=pages)}
    assert top == own


def test_batch_pickle_repr_and_bad_input():
    h = HierarchicalChunker([800, 200], max_chars=None)
    texts = [TEXTS["zh.txt"][:5000], "", "短文。", TEXTS["ja.txt"][:3000]]
    assert h.chunk_batch(texts) == [h.chunk(t) for t in texts]
    assert h.chunk("") == []
    clone = pickle.loads(pickle.dumps(h))
    assert clone == h and repr(clone) == repr(h) and clone.chunk(texts[0]) == h.chunk(texts[0])
    assert "levels=(800, 200)" in repr(h)
    # Plain dicts: every relation in the dict's metadata, and the chunk back from it.
    chunks = h.chunk(texts[0], {"doc_id": "zh"})
    dicts = [c.to_dict() for c in chunks]
    assert [cw.Chunk(**d) for d in dicts] == chunks
    assert all({"depth", "parent_id", "children_ids", "root_id"} <= set(d["metadata"]) for d in dicts)
    check_hierarchy(texts[0], [cw.Chunk(**d) for d in dicts])
    with pytest.raises(ChunkingError, match="at least one"):
        HierarchicalChunker([])
    with pytest.raises(ChunkingError, match=r"levels\[1\] \(900\) must be smaller"):
        HierarchicalChunker([800, 900])
    with pytest.raises(TypeError, match=r"levels\[1\] must be a size"):
        HierarchicalChunker([800, "200"])  # type: ignore[list-item]
    with pytest.raises(ChunkingError, match=r"levels\[0\] must be a size >= 1"):
        HierarchicalChunker([0])
    with pytest.raises(ChunkingError, match="'depth' is set by HierarchicalChunker"):
        h.chunk("text", {"depth": 3})
    with pytest.raises(ChunkingError, match=r"metadatas must have one entry per text \(2\), got 1"):
        h.chunk_batch(["a", "b"], [{}])


def test_merge_hits_replaces_children_by_their_parent():
    text = TEXTS["en.txt"][:30_000]
    chunks = HierarchicalChunker([2048, 512, 128]).chunk(text, {"doc_id": "en"})
    by_id = {c.id: c for c in chunks}
    levels = by_depth(chunks)
    mid = next(p for p in levels[1] if len(p.metadata["children_ids"]) >= 3)
    kids = [by_id[k] for k in mid.metadata["children_ids"]]
    other = levels[2][-1]
    # More than half of mid's children hit (best first), one unrelated hit between them.
    hits = [kids[0], other, *kids[1:], kids[0]]
    merged = merge_hits(hits, chunks)
    parent_rank = merged.index(mid) if mid in merged else None
    assert parent_rank is not None, "the parent replaces its hit children"
    assert not set(mid.metadata["children_ids"]) & {c.id for c in merged}
    assert merged[:2] == [mid, other] or merged[:2] == [by_id[mid.metadata["parent_id"]], other]
    # Half or fewer of the children: no merge (the default ratio is strict, as LlamaIndex's).
    few = kids[: len(kids) // 2]
    assert merge_hits(few, chunks) == few
    assert merge_hits(few, chunks, ratio=0.2)[0].metadata["depth"] < 2
    # Recursively up: every leaf of a root merges into the root.
    root = levels[0][0]
    leaves = [c for c in levels[2] if c.metadata["root_id"] == root.id]
    assert merge_hits([c.id for c in leaves], chunks) == [root]
    # k cuts after merging and deduplicating.
    assert len(merge_hits(leaves + [other], chunks, k=1)) == 1
    with pytest.raises(ChunkingError, match="ratio"):
        merge_hits(hits, chunks, ratio=1.5)
    with pytest.raises(ChunkingError, match=r"hits\[0\].*not one of chunks"):
        merge_hits(["nope"], chunks)
    with pytest.raises(TypeError, match=r"chunks\[0\] must be a Chunk made by HierarchicalChunker"):
        merge_hits([], RecursiveChunker(100).chunk("some text here"))


def test_expand_to_parent_and_window_within_one_document():
    h = HierarchicalChunker([600, 150])
    a = h.chunk(TEXTS["en.txt"][:5000], {"doc_id": "a"})
    b = h.chunk(TEXTS["en.txt"][:5000], {"doc_id": "b"})
    chunks = a + b
    leaves_a = by_depth(a)[1]
    hit = leaves_a[-1]
    assert expand(hit, chunks) == [next(c for c in a if c.id == hit.metadata["parent_id"])]
    assert expand(a[0], chunks) == [a[0]]
    # The window crosses parents but never documents.
    assert expand(hit, chunks, to="window", window=2) == leaves_a[-3:]
    assert expand(leaves_a[0], chunks, to="window", window=1) == leaves_a[:2]
    with pytest.raises(ChunkingError, match="to must be"):
        expand(hit, chunks, to="sibling")


def test_llamaindex_auto_merging_retriever_merges_and_fills_gaps():
    llama = pytest.importorskip("llama_index.core")
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.node_parser import get_leaf_nodes
    from llama_index.core.retrievers import AutoMergingRetriever
    from llama_index.core.schema import NodeRelationship

    from chunkwise.integrations.llama_index import hierarchical_nodes

    class Words(BaseEmbedding):
        """A deterministic embedder: a bag of hashed words."""

        def _vec(self, text: str) -> List[float]:
            v = [0.0] * 4096
            for w in re.findall(r"\w+", text.lower()):
                v[zlib.crc32(w.encode()) % 4096] += 1.0
            return v

        def _get_query_embedding(self, query: str) -> List[float]:
            return self._vec(query)

        async def _aget_query_embedding(self, query: str) -> List[float]:
            return self._vec(query)

        def _get_text_embedding(self, text: str) -> List[float]:
            return self._vec(text)

    # Twelve topics of about 1,000 chars: each is one parent of about four leaves.
    text = "\n\n".join(
        f"Topic {i}: " + " ".join(f"word{i}x{j}" for j in range(110)) for i in range(12)
    )
    chunks = HierarchicalChunker([1200, 300]).chunk(text, {"doc_id": "t"})
    nodes = hierarchical_nodes(chunks)
    assert [n.node_id for n in nodes] == [c.id for c in chunks]
    leaves = get_leaf_nodes(nodes)
    assert {n.node_id for n in leaves} == {c.id for c in chunks if c.metadata["depth"] == 1}
    leaf = next(n for n in nodes if n.node_id == chunks[-1].id)
    assert leaf.relationships[NodeRelationship.PARENT].node_id == chunks[-1].metadata["parent_id"]
    storage = StorageContext.from_defaults()
    storage.docstore.add_documents(nodes)
    index = VectorStoreIndex(leaves, storage_context=storage, embed_model=Words())
    base = index.as_retriever(similarity_top_k=6)
    retriever = AutoMergingRetriever(base, storage, simple_ratio_thresh=0.5)
    # A query on every word of the first topic hits all the leaves of its parent: they merge into it.
    query = " ".join(f"word0x{j}" for j in range(110))
    got = retriever.retrieve(query)
    parent_of_topic0 = next(c for c in chunks if c.metadata["depth"] == 0 and "Topic 0:" in c.text)
    assert "Topic 1:" not in parent_of_topic0.text and len(parent_of_topic0.metadata["children_ids"]) >= 3
    assert got[0].node.node_id == parent_of_topic0.id
    # Two hits one leaf apart: the leaf between them is filled in through NEXT / PREVIOUS.
    level1 = [c for c in chunks if c.metadata["depth"] == 1]
    a, gap, b = level1[0], level1[1], level1[2]
    from llama_index.core.schema import NodeWithScore

    by_id = {n.node_id: n for n in nodes}
    filled, changed = retriever._fill_in_nodes([NodeWithScore(node=by_id[a.id], score=1.0),
                                                NodeWithScore(node=by_id[b.id], score=0.9)])
    assert changed and [n.node.node_id for n in filled] == [a.id, gap.id, b.id]
    assert llama is not None


def test_langchain_parent_document_retriever():
    pytest.importorskip("langchain_core")
    retrievers = pytest.importorskip("langchain_classic.retrievers")
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.stores import InMemoryStore
    from langchain_core.vectorstores import InMemoryVectorStore

    from chunkwise.integrations.langchain import parent_documents

    text = TEXTS["en.txt"][:20_000]
    chunks = HierarchicalChunker([2048, 512, 128]).chunk(text, {"doc_id": "en"})
    children, parents = parent_documents(chunks)
    assert {d.metadata["parent_id"] for d in children} <= {pid for pid, _ in parents}
    assert all(d.metadata["depth"] == 2 for d in children) and all(d.metadata["depth"] == 1 for _, d in parents)
    store = InMemoryStore()
    vectors = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    retriever = retrievers.ParentDocumentRetriever(
        vectorstore=vectors, docstore=store, child_splitter=RecursiveChunkerSplitter(), id_key="parent_id"
    )
    vectors.add_documents(children)
    store.mset(parents)
    # The exact text of a child finds it (a deterministic embedder of the text), and the retriever returns its parent.
    counts: Dict[str, int] = defaultdict(int)
    for d in children:
        counts[d.page_content] += 1
    target = next(d for d in children[7:] if counts[d.page_content] == 1 and len(d.page_content) > 80)
    got = retriever.invoke(target.page_content)
    assert got and got[0].page_content == dict(parents)[target.metadata["parent_id"]].page_content
    # Parents two levels up, under another key.
    kids, roots = parent_documents(chunks, parent_depth=0, id_key="root")
    assert {d.metadata["root"] for d in kids} == {pid for pid, _ in roots}
    with pytest.raises(ValueError, match="another id_key"):
        parent_documents(chunks, parent_depth=0)


def RecursiveChunkerSplitter():
    """The retriever wants a child splitter (used only by its add_documents, which the test does not call)."""
    from chunkwise.integrations.langchain import ChunkwiseTextSplitter

    return ChunkwiseTextSplitter(RecursiveChunker(128))


def test_exporters_refuse_flat_chunks():
    flat = RecursiveChunker(100).chunk("Some text. More text.")
    from chunkwise.integrations.langchain import parent_documents

    with pytest.raises(TypeError, match="HierarchicalChunker"):
        parent_documents(flat)
    pytest.importorskip("llama_index.core")
    from chunkwise.integrations.llama_index import hierarchical_nodes

    with pytest.raises(TypeError, match="HierarchicalChunker"):
        hierarchical_nodes(flat)
    assert cw.HierarchicalChunker is HierarchicalChunker
