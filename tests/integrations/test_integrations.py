"""The native chunkers behind LangChain's TextSplitter and LlamaIndex's NodeParser: in a document pipeline, an
IngestionPipeline and a VectorStoreIndex, with exact offsets, relations and every chunk's metadata."""

from __future__ import annotations

import hashlib
import pickle
from typing import List

import pytest

from chunkwise import FixedChunker, MarkdownChunker, RecursiveChunker, SentenceChunker, TableChunker, Tokenizer
from support.corpus import DATA

MD = (DATA / "mixed.md").read_text(encoding="utf-8")[:30_000]
ZH = (DATA / "zh.txt").read_text(encoding="utf-8")[:20_000]
TABLE = (DATA / "table.md").read_text(encoding="utf-8")

CHUNKERS = [
    RecursiveChunker(300, 30),
    SentenceChunker(200),
    FixedChunker(256, 20, snap=40),
    MarkdownChunker(400),
    RecursiveChunker(100, tokenizer=Tokenizer.tiktoken("cl100k_base")),
]


# -- LangChain ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lc():
    pytest.importorskip("langchain_text_splitters")
    from langchain_core.documents import Document

    from chunkwise.integrations.langchain import ChunkwiseTextSplitter

    return Document, ChunkwiseTextSplitter


@pytest.mark.parametrize("chunker", CHUNKERS, ids=repr)
def test_langchain_documents_are_the_chunks_with_their_metadata(lc, chunker):
    Document, Splitter = lc
    splitter = Splitter(chunker)
    docs = [Document(page_content=MD, metadata={"source": "mixed.md", "tags": ["a"]}),
            Document(page_content=ZH, metadata={"source": "zh.txt"})]
    out = splitter.split_documents(docs)
    assert out == splitter.transform_documents(docs)
    expected = [c for d in docs for c in chunker.chunk(d.page_content, d.metadata)]
    assert [d.page_content for d in out] == [c.text for c in expected]
    for d, c in zip(out, expected):
        source = MD if d.metadata["source"] == "mixed.md" else ZH
        assert source[d.metadata["start_index"] : d.metadata["end_index"]] == d.page_content
        assert d.metadata["chunk_id"] == c.id and d.metadata["chunk_index"] == c.index
        for key, value in c.metadata.items():
            assert d.metadata[key] == (list(value) if isinstance(value, tuple) else value)
        if c.context:
            assert d.metadata["embedding_text"] == c.embedding_text
    assert splitter.split_text(ZH) == chunker.split(ZH)
    # The metadata of one document is not shared between its chunks.
    out[0].metadata["tags"].append("b")
    assert out[1].metadata.get("tags", ["a"]) == ["a"]


def test_langchain_splitter_pickles_and_checks_its_argument(lc):
    _, Splitter = lc
    splitter = Splitter(MarkdownChunker(100), embedding_text=False)
    again = pickle.loads(pickle.dumps(splitter))
    assert again.chunker == splitter.chunker and again.embedding_text is False
    assert again.split_text(MD[:2000]) == splitter.split_text(MD[:2000])
    with pytest.raises(TypeError, match="chunkwise chunker"):
        Splitter("not a chunker")
    table = Splitter(TableChunker(rows_per_chunk=3)).create_documents([TABLE], [{"source": "t.md"}])
    assert table and all("row_start" in d.metadata for d in table)


# -- LlamaIndex -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def li():
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.schema import NodeRelationship

    from chunkwise.integrations.llama_index import ChunkwiseNodeParser

    class HashEmbedding(BaseEmbedding):
        """A deterministic bag-of-words embedding: each word (or CJK character) adds to one of 256 dimensions."""

        def _vector(self, text: str) -> List[float]:
            v = [0.0] * 256
            for word in text.lower().replace("\n", " ").split(" "):
                for token in ([word] if word.isascii() else list(word)):
                    if token:
                        v[int(hashlib.md5(token.encode()).hexdigest(), 16) % 256] += 1.0
            return v

        def _get_query_embedding(self, query: str) -> List[float]:
            return self._vector(query)

        async def _aget_query_embedding(self, query: str) -> List[float]:
            return self._vector(query)

        def _get_text_embedding(self, text: str) -> List[float]:
            return self._vector(text)

    return Document, VectorStoreIndex, IngestionPipeline, NodeRelationship, ChunkwiseNodeParser, HashEmbedding


def test_llama_index_nodes_in_a_pipeline_and_an_index(li):
    Document, VectorStoreIndex, IngestionPipeline, Rel, Parser, HashEmbedding = li
    docs = [Document(text=MD, doc_id="mixed.md", metadata={"author": "docs team"}),
            Document(text=ZH, doc_id="zh.txt", metadata={"lang": "zh"})]
    chunker = MarkdownChunker(400)
    nodes = IngestionPipeline(transformations=[Parser(chunker)]).run(documents=docs)
    by_doc = {d.doc_id: d for d in docs}
    expected = {d.doc_id: chunker.chunk(d.text, {**d.metadata, "doc_id": d.doc_id}) for d in docs}
    assert len(nodes) == sum(len(v) for v in expected.values())
    for doc_id, chunks in expected.items():
        mine = [n for n in nodes if n.ref_doc_id == doc_id]
        assert [n.node_id for n in mine] == [c.id for c in chunks]
        for i, (n, c) in enumerate(zip(mine, chunks)):
            text = by_doc[doc_id].text
            assert text[n.start_char_idx : n.end_char_idx] == n.text == c.text
            assert n.metadata["title_path"] == list(c.metadata["title_path"])
            assert n.metadata[next(iter(by_doc[doc_id].metadata))] == next(iter(by_doc[doc_id].metadata.values()))
            assert (Rel.PREVIOUS in n.relationships) == (i > 0)
            assert (Rel.NEXT in n.relationships) == (i < len(chunks) - 1)
            if i:
                assert n.relationships[Rel.PREVIOUS].node_id == chunks[i - 1].id
    index = VectorStoreIndex(nodes, embed_model=HashEmbedding())
    target = next(n for n in nodes if n.ref_doc_id == "mixed.md" and len(n.text) > 200)
    hits = index.as_retriever(similarity_top_k=1).retrieve(target.text)
    assert hits[0].node.node_id == target.node_id
    assert hits[0].node.metadata["title_path"] == target.metadata["title_path"]
    # The technical keys stay out of what is embedded; the title path stays in.
    embedded = target.get_content(metadata_mode="embed")
    assert "chunk_id" not in embedded and "title_path" in embedded


@pytest.mark.parametrize("chunker", CHUNKERS, ids=repr)
def test_llama_index_ids_are_stable_and_namespaced_by_document(li, chunker):
    Document, _, _, _, Parser, _ = li
    parser = Parser(chunker)
    one = parser.get_nodes_from_documents([Document(text=ZH, doc_id="a")])
    again = parser.get_nodes_from_documents([Document(text=ZH, doc_id="a")])
    other = parser.get_nodes_from_documents([Document(text=ZH, doc_id="b")])
    assert [n.node_id for n in one] == [n.node_id for n in again]
    assert not {n.node_id for n in one} & {n.node_id for n in other}
    assert [n.text for n in one] == chunker.split(ZH)
    assert pickle.loads(pickle.dumps(parser)).chunker == chunker


# -- every chunker behind both adapters -----------------------------------------------------------------------------


def every_chunker():
    """One chunker of each kind the package exports, with a text it cuts into several chunks, and the key it adds
    that describes the chunk rather than its meaning."""
    from chunkwise import AutoChunker, CodeChunker, SemanticChunker
    from support.embedders import embed

    code = (DATA / "code.py").read_text(encoding="utf-8")[:6000]
    return [
        pytest.param(CodeChunker(300), code, "start_line", id="code"),
        pytest.param(SemanticChunker(400, embed=embed), (DATA / "en.txt").read_text(encoding="utf-8")[:6000], "cut_score",
                     id="semantic"),
        pytest.param(AutoChunker(300), code, "strategy_reason", id="auto"),
        pytest.param(MarkdownChunker(300), MD[:6000], "chunk_type", id="markdown"),
    ]


@pytest.mark.parametrize("chunker, text, technical", every_chunker())
def test_llama_index_keeps_the_chunk_description_out_of_the_embedded_text(li, chunker, text, technical):
    # Drift of issue 32: the exporter's own list of keys to leave out lacked the code, semantic and auto keys, so
    # start_line, node_types, cut_score... were embedded with the text; and AutoChunker was refused with a TypeError
    # (both failed on main).
    from llama_index.core.schema import MetadataMode

    Document, _, _, _, Parser, _ = li
    nodes = Parser(chunker).get_nodes_from_documents([Document(text=text, doc_id="doc.py")])
    assert len(nodes) > 1
    assert any(technical in n.metadata for n in nodes)
    for n in nodes:
        embedded = n.get_metadata_str(MetadataMode.EMBED)
        shown = {line.split(": ", 1)[0] for line in embedded.splitlines() if ": " in line}
        assert technical not in shown and "chunk_id" not in shown, embedded
        assert set(n.excluded_embed_metadata_keys) == set(n.excluded_llm_metadata_keys)


@pytest.mark.parametrize("chunker, text, technical", every_chunker())
def test_langchain_takes_every_chunker_of_a_flat_list(lc, chunker, text, technical):
    Document, Splitter = lc
    out = Splitter(chunker).split_documents([Document(page_content=text, metadata={"source": "doc.py"})])
    chunks = chunker.chunk(text, {"source": "doc.py"})
    assert [d.page_content for d in out] == [c.text for c in chunks]
    assert any(technical in d.metadata for d in out)


def test_chunkers_that_do_not_give_a_flat_list_of_chunks_are_refused_with_the_reason(li, lc):
    from chunkwise import ElementsChunker, HierarchicalChunker

    _, Splitter = lc
    Parser = li[4]
    for adapter in (Splitter, Parser):
        with pytest.raises(TypeError, match="HierarchicalChunker.*levels"):
            adapter(HierarchicalChunker((400, 100)))
        with pytest.raises(TypeError, match="ElementsChunker.*elements"):
            adapter(ElementsChunker(400))
