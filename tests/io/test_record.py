"""The chunk record, once: every shape a chunk leaves in (``Chunk.to_dict``, JSON lines, the Arrow table, the
Parquet file, the LlamaIndex node, the LangChain Document) carries exactly the keys the core's record
(``chunkwise.record``, ``_core.columns()``) gives for its chunker, with equal values, over every chunker and the
corpus files (and their CRLF, BOM and paged variants); and the keys the exporters keep out of the embedded text are
the record's."""

from __future__ import annotations

import io
import json
from typing import Any, Dict, List

import pytest

from chunkwise import (
    AutoChunker, ClauseChunker, CodeChunker, ElementsChunker, FixedChunker, HierarchicalChunker, MarkdownChunker,
    ParagraphChunker, RecursiveChunker, SemanticChunker, SentenceChunker, TableChunker, Tokenizer, _core, record,
)
from chunkwise.cli.outputs import FIELDS
from support.corpus import data
from support.embedders import embed

LIMIT = 2500
FILES = ["en.txt", "zh.txt", "ja.txt", "mixed.md", "code.py", "table.md"]


def variants(name: str) -> Dict[str, str]:
    text = data(name, LIMIT)
    half = len(text) // 2
    return {name: text, f"{name}+crlf": text.replace("\n", "\r\n"), f"{name}+bom": "\ufeff" + text,
            f"{name}+pages": text[:half] + "\f" + text[half:]}


TEXTS: Dict[str, str] = {k: v for name in FILES for k, v in variants(name).items()}
TABLES = {k: v for k, v in TEXTS.items() if k.startswith("table.md") and not k.endswith("+pages")}

CHUNKERS = {
    "recursive": RecursiveChunker(300, 30),
    "sentence": SentenceChunker(200),
    "paragraph": ParagraphChunker(300),
    "fixed": FixedChunker(256, 20, snap=20),
    "markdown": MarkdownChunker(300),
    "clause": ClauseChunker(300),
    "table": TableChunker(200),
    "code": CodeChunker(300),
    "tokens": RecursiveChunker(80, tokenizer=Tokenizer.tiktoken("cl100k_base")),
    "semantic": SemanticChunker(300, embed=embed),
    "auto": AutoChunker(300),
}
# The chunkers run by a core splitter (those the command line and chunk_arrow take).
CORE = [k for k, c in CHUNKERS.items() if k not in ("semantic", "auto")]


def texts_for(name: str) -> Dict[str, str]:
    return TABLES if name == "table" else TEXTS


def plain(value: Any) -> Any:
    """A value as JSON and Arrow give it back: tuples as lists."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def check_keys(chunker: Any, chunks: List[Any], caller: Dict[str, Any]) -> None:
    """The chunks' fields are the record's, their metadata keys (beyond the caller's) among the record's keys for
    the chunker, and the keys every chunk of a chunker of one strategy has are there."""
    fields = set(record.names(role="field", format="chunk"))
    allowed = set(record.keys(chunker))
    name = record.chunker_name(chunker)
    required = {k for k in allowed if not record.column(k).nullable}
    if not hasattr(chunker, "_splitter"):
        # A composite: only its own keys are on every chunk (the others depend on the chunker it ran).
        required = {k for k in required if record.column(k).chunkers == (name,)}
    for c in chunks:
        d = c.to_dict()
        assert set(d) == fields
        own = set(c.metadata) - set(caller)
        assert own <= allowed, (name, own - allowed)
        assert required <= own, (name, required - own)


@pytest.mark.parametrize("name", CHUNKERS)
def test_chunk_to_dict_and_metadata_carry_the_records_keys(name):
    chunker = CHUNKERS[name]
    seen = set()
    for source, text in texts_for(name).items():
        caller = {"source": source, "mine": [1]}
        chunks = chunker.chunk(text, caller)
        assert chunks, source
        check_keys(chunker, chunks, caller)
        for c in chunks:
            d = c.to_dict()
            assert d["text"] == text[d["start"] : d["end"]]
            assert plain(d["metadata"]) == plain(dict(c.metadata))
            seen |= set(c.metadata) - set(caller)
    # The record's keys for the chunker are the keys it sets (pages: the paged variants).
    never = {k for k in record.keys(chunker) if "chunk" in record.column(k).formats} - seen
    optional = {"row_start", "row_end", "total_rows", "context_shortened", "note", "symbol_path", "start_line",
                "end_line", "node_types", "language"}
    if name in ("auto", "markdown"):
        assert never <= optional, never
    elif name == "code":
        assert never <= {"note", "context_shortened"}, never
    elif name == "table":  # (no paged table)
        assert never <= {"context_shortened", "page_start", "page_end"}, never
    else:
        assert never <= {"row_start", "row_end", "total_rows", "context_shortened"}, never


def test_composites_carry_the_records_keys():
    doc = data("mixed.md", 4000)
    hierarchy = HierarchicalChunker((MarkdownChunker(800, merge_sections=False), 200))
    chunks = hierarchy.chunk(doc, {"source": "mixed.md"})
    check_keys(hierarchy, chunks, {"source": "mixed.md"})
    assert set(record.metadata_keys("hierarchy")) <= set(chunks[-1].metadata)
    elements = ElementsChunker(300)
    parts = [{"type": "heading", "text": "Title", "level": 1, "page": 1}] + [
        {"type": "paragraph", "text": p, "page": 1 + i % 3} for i, p in enumerate(doc.split("\n\n")[:20]) if p.strip()
    ]
    chunks = elements.chunk(parts, {"source": "x"})
    check_keys(elements, chunks, {"source": "x"})
    assert {"element_indices", "element_types", "page_start", "page_end"} <= set(chunks[0].metadata)


@pytest.mark.parametrize("name", CORE)
def test_json_lines_are_the_chunks(name):
    chunker = CHUNKERS[name]
    texts = texts_for(name)
    lines = _core.JsonLines(list(FIELDS))
    assert list(lines.fields) == list(FIELDS)
    out = io.BytesIO()
    counts = lines.write_batch(chunker._splitter, list(texts.values()), list(texts), out, False, None)
    records = [json.loads(line) for line in out.getvalue().decode("utf-8").splitlines()]
    assert sum(counts) == len(records)
    want = [c for source, text in texts.items() for c in chunker.chunk(text, {"source": source})]
    assert len(records) == len(want)
    for r, c in zip(records, want):
        assert list(r) == list(FIELDS)
        d = c.to_dict()
        for f in FIELDS:
            if f == "source":
                assert r[f] == c.metadata["source"]
            else:
                assert r[f] == plain(d[f]), f


def present(meta: Dict[str, Any]) -> Dict[str, Any]:
    """A chunk's metadata as a table's columns can tell it: a None (or false) value is no value."""
    return {k: plain(v) for k, v in meta.items() if v is not None and v is not False}


def arrow_value(row: Dict[str, Any], key: str) -> Any:
    """A metadata column's value as the chunk's metadata has it: null (or false, for a flag) is no key."""
    value = row[key]
    return None if value is None or value is False else value


@pytest.mark.parametrize("name", CORE)
def test_the_arrow_table_and_the_parquet_file_are_the_chunks(name, tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from chunkwise.arrow import chunk_arrow

    chunker = CHUNKERS[name]
    texts = texts_for(name)
    sources = list(texts)
    table = chunk_arrow(pa.array(list(texts.values())), chunker, doc_ids=sources)
    want = [c for source, text in texts.items() for c in chunker.chunk(text, {"doc_id": source})]
    tokens = name == "tokens"
    meta = [k for k in record.keys(chunker, written=True) if "arrow" in record.column(k).formats]
    fields = [c.name for c in record.COLUMNS if c.role != "metadata" and "arrow" in c.formats
              and (tokens or c.name != "token_count")]
    assert sorted(table.column_names) == sorted(fields + meta)
    rows = table.to_pylist()
    assert len(rows) == len(want)
    for r, c in zip(rows, want):
        d = c.to_dict()
        for f in fields:
            if f != "row":
                assert r[f] == d[f], f
        md = present({k: v for k, v in c.metadata.items() if k != "doc_id"})
        assert md == {k: arrow_value(r, k) for k in meta if arrow_value(r, k) is not None}

    # Parquet: the command line's columns for the chunker, the record's metadata columns among them.
    path = tmp_path / "out.parquet"
    structural = chunker._splitter.is_structural()
    code = record.chunker_name(chunker) in ("code", "markdown")  # the command line's rule
    with open(path, "wb") as f:
        rows_ = _core.ParquetRows(f, list(FIELDS), None, structural, tokens, "snappy", code, False)
        rows_.write_batch(chunker._splitter, list(texts.values()), sources, False, None)
        rows_.close()
    got = pq.read_table(path).to_pylist()
    lines = [c for source, text in texts.items() for c in chunker.chunk(text, {"source": source})]
    lines_meta = record.names(role="metadata", format="lines")
    columns = pq.read_schema(path).names
    assert set(meta) <= set(columns) <= set(FIELDS) | set(lines_meta)
    for r, c in zip(got, lines):
        d = c.to_dict()
        for f in FIELDS:
            if f not in ("metadata", "source"):
                assert r[f] == d[f], f
        md = present({k: v for k, v in c.metadata.items() if k != "source"})
        filled = {k: arrow_value(r, k) for k in columns if k in lines_meta and arrow_value(r, k) is not None}
        assert filled == md
        # The columns beyond the keys the chunker sets (a writer's columns for a kind of run) hold nothing.
        assert set(filled) <= set(record.keys(chunker))
    assert set(record.keys(chunker, written=True)) & set(record.names(role="metadata", format="lines")) <= set(columns)


FLAT = list(CHUNKERS)


@pytest.mark.parametrize("name", FLAT)
def test_the_exporters_carry_the_records_keys(name):
    pytest.importorskip("llama_index.core")
    pytest.importorskip("langchain_text_splitters")
    from langchain_core.documents import Document as LCDocument
    from llama_index.core import Document
    from llama_index.core.schema import MetadataMode

    from chunkwise.integrations.langchain import ChunkwiseTextSplitter
    from chunkwise.integrations.llama_index import ChunkwiseNodeParser

    chunker = CHUNKERS[name]
    exported = {c.name: c.export for c in record.COLUMNS if c.role == "field" and c.export}
    excluded = {c.export for c in record.COLUMNS if c.excluded_from_embedding}
    metadata_exports = {c.name: c.export for c in record.COLUMNS if c.role == "metadata"}
    assert all(k == v for k, v in metadata_exports.items())  # metadata keys keep their names
    for source, text in list(texts_for(name).items())[:8]:
        chunks = chunker.chunk(text, {"doc_id": source})
        nodes = ChunkwiseNodeParser(chunker).get_nodes_from_documents([Document(text=text, doc_id=source)])
        docs = ChunkwiseTextSplitter(chunker).split_documents([LCDocument(page_content=text, metadata={"doc_id": source})])
        assert len(nodes) == len(docs) == len(chunks)
        for c, n, doc in zip(chunks, nodes, docs):
            d = c.to_dict()
            own = {k: plain(v) for k, v in c.metadata.items() if k != "doc_id"}
            fields = {exported[f]: d[f] for f in exported if f != "embedding_text" and d[f] not in (None, "")}
            assert n.text == doc.page_content == c.text
            assert n.metadata == {**own, **fields}
            want = {**own, **fields, "doc_id": source}
            if c.context:
                want["embedding_text"] = c.embedding_text
            assert doc.metadata == want
            assert set(n.excluded_embed_metadata_keys) == set(n.metadata) & excluded
            shown = {line.split(": ", 1)[0] for line in n.get_metadata_str(MetadataMode.EMBED).splitlines()}
            assert not shown & excluded
