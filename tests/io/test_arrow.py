"""chunkwise.arrow.chunk_arrow: the table it gives equals, row by row and field by field, what chunk_batch gives for
the same texts, for every chunker, in chars and in tokens, whatever the Arrow layout of the input."""

from __future__ import annotations

import gc
import pickle
import subprocess
import sys

import pytest

import chunkwise
from chunkwise import (
    ClauseChunker,
    FixedChunker,
    MarkdownChunker,
    ParagraphChunker,
    RecursiveChunker,
    SentenceChunker,
    TableChunker,
    Tokenizer,
)

pa = pytest.importorskip("pyarrow")

from chunkwise import record  # noqa: E402
from chunkwise.arrow import chunk_arrow  # noqa: E402

from support.tokenizer_assets import tiktoken_encoding, trained  # noqa: E402
from support.corpus import DATA



def _read(name: str, limit: int = 3000) -> str:
    return (DATA / name).read_text(encoding="utf-8")[:limit]


PROSE = [
    _read("en.txt"),
    _read("zh.txt", 1500),
    "",
    None,
    _read("ja.txt", 1500),
    "emoji 🙂 👨‍👩‍👧 and combining e\u0301 marks. " * 20,
    "   ",
    _read("mixed.md"),
    "page one text.\fpage two text, a little longer.\fthree",
    None,
    "short",
    _read("code.py", 2000),
]
TABLES = [
    _read("table.md", 2500),
    None,
    "| a | b |\n|---|---|\n| 1 | 🙂 |\n| 中文 | x |\n" * 3,
]
LEGAL = [
    "第一章 总则\n\n第一条 为了规范管理，制定本办法。\n\n第二条 本办法适用于全国。\n\n第二章 附则\n\n第三条 本办法自发布之日起施行。",
    None,
    "Article 1. Scope\n\n1. This applies to all.\n2. (a) first; (b) second.\n\nArticle 2. Definitions\n\nWords mean things. " * 3,
]

CHARS = {
    "RecursiveChunker": lambda tok: RecursiveChunker(120, 20, tokenizer=tok),
    "SentenceChunker": lambda tok: SentenceChunker(100, 10, tokenizer=tok),
    "ParagraphChunker": lambda tok: ParagraphChunker(150, tokenizer=tok),
    "FixedChunker": lambda tok: FixedChunker(80, 10, snap=10, tokenizer=tok),
    "MarkdownChunker": lambda tok: MarkdownChunker(120, tokenizer=tok),
    "ClauseChunker": lambda tok: ClauseChunker(100, tokenizer=tok),
    "TableChunker": lambda tok: TableChunker(150, rows_per_chunk=3, overlap=10, tokenizer=tok),
}
TEXTS = {"TableChunker": TABLES, "ClauseChunker": LEGAL + PROSE}


COMPOSITE = {"AutoChunker": chunkwise.AutoChunker(100), "HierarchicalChunker": chunkwise.HierarchicalChunker([100, 50]),
             "ElementsChunker": chunkwise.ElementsChunker(100)}


def test_every_chunker_is_covered():
    exported = {name for name in chunkwise.__all__ if name.endswith("Chunker")}
    # SemanticChunker embeds its units in Python; chunk_arrow refuses it (see tests/semantic/test_semantic.py), and
    # CodeChunker's columns are its own keys (test_code_chunker_columns_equal_its_metadata); the chunkers made of
    # others are refused (below).
    assert exported - {"SemanticChunker", "CodeChunker"} - set(COMPOSITE) == set(CHARS)


@pytest.mark.parametrize("name", sorted(COMPOSITE))
def test_chunkers_made_of_others_are_refused_with_the_reason(name):
    with pytest.raises(TypeError, match=f"one strategy .*got {name}: "):
        chunk_arrow(pa.table({"text": ["x y z"]}), COMPOSITE[name])


# The code chunker's metadata keys, in the record's order (the order of every table's metadata columns).
CODE_COLUMNS = ["chunk_type", "language", "context_shortened", "symbol_path", "start_line", "end_line", "node_types",
                "note"]
CODE_TEXTS = [
    "import os\n\n\nclass Parser:\n    def feed(self, data):\n        return data\n\n\ndef main():\n    pass\n",
    "fn main() {\n    println!(\"hi\");\n}\n\nstruct A { x: i32 }\n\nimpl A {\n    fn get(&self) -> i32 { self.x }\n}\n",
    "中文注释 = 1  # 注释：😀\n\ndef f():\n    return '字'\n",
    None,
    "",
    "no language here, just words\n\nand more words\n",
]


@pytest.mark.parametrize("key", ["symbol_path", "start_line", "end_line", "node_types", "note"])
def test_keep_refuses_a_code_column_of_the_output(key):
    # Drift of issue 32: the keep check had its own list of output columns, without the code chunker's, so a kept
    # column of that name came out twice (failed on main before the list was read from the core's record).
    chunker = chunkwise.CodeChunker(40)
    table = pa.table({"body": [CODE_TEXTS[0]], key: [1]})
    with pytest.raises(chunkwise.ChunkingError, match=f"keep names '{key}', a column of the output"):
        chunk_arrow(table, chunker, text_column="body", keep=[key])


def test_markdown_fences_of_a_known_language_fill_the_code_columns():
    code = CODE_TEXTS[0]
    docs = [f"# Guide\n\nSome words first.\n\n```python\n{code}```\n\nAfter.\n", "# Plain\n\nNo code.\n", None]
    chunker = MarkdownChunker(60)
    table = chunk_arrow(pa.array(docs, pa.string()), chunker)
    rows = assert_same(table, chunker, docs)
    fenced = [r for r in rows if r["symbol_path"] is not None]
    assert fenced and {r["language"] for r in fenced} == {"python"}
    assert any(r["symbol_path"] == ["class Parser"] for r in fenced)
    assert all(r["start_line"] is None for r in rows if r["symbol_path"] is None)


@pytest.mark.parametrize("name", [*CHARS, "CodeChunker"])
def test_the_metadata_columns_are_the_records_keys_of_the_chunker(name):
    """The table's columns past the fields are the record's metadata keys its chunker's outputs have (in Arrow), in
    the record's order: the writer keeps no list of its own."""
    chunker = CHARS[name](None) if name in CHARS else chunkwise.CodeChunker(60)
    text = next(t for t in TEXTS.get(name, [_read("mixed.md")]) if t)
    table = chunk_arrow(pa.array([text], pa.string()), chunker)
    fields = [c for c in table.column_names if c in chunkwise.arrow.OUTPUT_COLUMNS]
    assert fields == list(chunkwise.arrow.OUTPUT_COLUMNS)
    arrow_keys = [k for k in record.keys(chunker, written=True) if "arrow" in record.column(k).formats]
    assert table.column_names[len(fields):] == arrow_keys


@pytest.mark.parametrize("language", ["auto", "python"])
def test_code_chunker_columns_equal_its_metadata(language):
    chunker = chunkwise.CodeChunker(40, language=language)
    table = chunk_arrow(pa.array(CODE_TEXTS, pa.string()), chunker)
    base = [c for c in expected_columns(chunker) if c not in ("page_start", "page_end")]
    assert table.column_names == base + CODE_COLUMNS + ["page_start", "page_end"]
    rows = table.to_pylist()
    present = [i for i, t in enumerate(CODE_TEXTS) if t is not None]
    want = [(r, c) for r, chunks in zip(present, chunker.chunk_batch([CODE_TEXTS[i] for i in present])) for c in chunks]
    assert len(rows) == len(want) > 6
    for got, (r, c) in zip(rows, want):
        assert got["row"] == r and got["text"] == c.text == CODE_TEXTS[r][got["start"] : got["end"]]
        assert (got["context"], got["embedding_text"], got["id"]) == (c.context, c.embedding_text, c.id)
        md = dict(c.metadata)
        for key in CODE_COLUMNS:
            assert got[key] == md.pop(key, None if key in ("note", "language") else False), key
        assert md == {}


def _tokenizer(kind):
    if kind == "chars":
        return None
    if kind == "tiktoken":
        if tiktoken_encoding("cl100k_base") is None:
            pytest.skip("tiktoken ranks unavailable")
        return Tokenizer.tiktoken("cl100k_base")
    return Tokenizer.from_str(trained("bytelevel"))


STRUCTURE = ["title_path", "headings", "chunk_type", "row_start", "row_end", "total_rows", "language"]
FENCE_CODE = ["symbol_path", "start_line", "end_line", "node_types", "note"]


def expected_columns(chunker) -> list:
    tokens = chunker._splitter.config()["tokenizer"] is not None
    out = ["row", "index", "text", "start", "end", "size"] + (["token_count"] if tokens else [])
    out += ["level", "id", "prev_id", "next_id", "context", "embedding_text"]
    if isinstance(chunker, (MarkdownChunker, ClauseChunker, TableChunker)):
        out += STRUCTURE + ["context_shortened"]
    if isinstance(chunker, MarkdownChunker):
        out += FENCE_CODE  # the code keys of a chunk of a code block of a known language
    return out + ["page_start", "page_end"]


def assert_same(table, chunker, texts, metadatas=None, kept=None):
    """Row by row, field by field: the table against chunk_batch on the same texts."""
    assert table.column_names == list(kept or {}) + expected_columns(chunker)
    # A null has no chunks (and is not a text a chunker could refuse, as TableChunker refuses an empty one).
    present = [i for i, t in enumerate(texts) if t is not None]
    metas = None if metadatas is None else [metadatas[i] for i in present]
    batch: list = [[] for _ in texts]
    for i, chunks in zip(present, chunker.chunk_batch([texts[i] for i in present], metas)):
        batch[i] = chunks
    rows = table.to_pylist()
    want = [(r, c) for r, chunks in enumerate(batch) for c in chunks]
    assert len(rows) == len(want)
    structural = "title_path" in table.column_names
    for got, (r, c) in zip(rows, want):
        assert texts[r] is not None
        assert got["row"] == r and got["index"] == c.index
        assert got["text"] == c.text == texts[r][got["start"] : got["end"]]
        assert (got["start"], got["end"], got["size"]) == (c.start, c.end, c.size)
        if "token_count" in got:
            assert got["token_count"] == c.token_count is not None
        assert (got["level"], got["id"], got["prev_id"], got["next_id"]) == (c.level, c.id, c.prev_id, c.next_id)
        assert got["context"] == c.context
        assert got["embedding_text"] == c.embedding_text
        md = dict(c.metadata)
        if structural:
            for key in STRUCTURE:
                assert got[key] == md.pop(key, None), key
            assert got["context_shortened"] == md.pop("context_shortened", False)
        if "symbol_path" in table.column_names and "title_path" in table.column_names:
            for key in FENCE_CODE:
                assert got[key] == md.pop(key, None), key
        assert got["page_start"] == md.pop("page_start", None)
        assert got["page_end"] == md.pop("page_end", None)
        for name, column in (kept or {}).items():
            assert got[name] == column[r]
        # What is left is the caller's own metadata, which the table does not carry.
        assert set(md) <= {"doc_id"}
    return rows


@pytest.mark.parametrize("unit", ["chars", "tiktoken", "tokenizer.json"])
@pytest.mark.parametrize("name", sorted(CHARS))
def test_equals_chunk_batch(name, unit):
    chunker = CHARS[name](_tokenizer(unit))
    texts = TEXTS.get(name, PROSE)
    rows = assert_same(chunk_arrow(pa.array(texts, pa.string()), chunker), chunker, texts)
    assert rows, "the case must produce chunks"
    assert {r["row"] for r in rows} == {i for i, t in enumerate(texts) if t and t.strip()}


LAYOUTS = {
    "string": lambda texts: pa.array(texts, pa.string()),
    "large_string": lambda texts: pa.array(texts, pa.large_string()),
    "string_view": lambda texts: pa.array(texts, pa.string_view()),
    "sliced": lambda texts: pa.array(["before", None, "x y z"] + texts + ["after"], pa.string()).slice(3, len(texts)),
    "chunked": lambda texts: pa.chunked_array(
        [pa.array(texts[:3], pa.string()), pa.array([], pa.string()), pa.array(texts[3:], pa.string())]
    ),
    "chunked_sliced": lambda texts: pa.chunked_array(
        [pa.array(["skip"] + texts[:5], pa.large_string()).slice(1), pa.array(texts[5:] + ["x"], pa.large_string())]
    ).slice(0, len(texts)),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", ["RecursiveChunker", "MarkdownChunker", "TableChunker"])
def test_layouts(layout, name):
    chunker = CHARS[name](None)
    texts = TEXTS.get(name, PROSE)
    table = chunk_arrow(LAYOUTS[layout](texts), chunker)
    assert_same(table, chunker, texts)
    large = layout in ("large_string", "chunked_sliced")
    assert table.schema.field("text").type == (pa.large_string() if large else pa.string())


def test_string_columns_follow_the_input():
    chunker = MarkdownChunker(60)
    table = chunk_arrow(pa.array(PROSE, pa.large_string()), chunker)
    for name in ("text", "level", "id", "context", "embedding_text", "chunk_type", "language"):
        assert table.schema.field(name).type == pa.large_string(), name
    assert table.schema.field("title_path").type == pa.list_(pa.large_string())


class CapsuleOnly:
    """An Arrow producer that is not pyarrow: only the PyCapsule protocol."""

    def __init__(self, data, stream: bool):
        self._data = data
        if stream:
            self.__arrow_c_stream__ = data.__arrow_c_stream__
        else:
            self.__arrow_c_array__ = data.__arrow_c_array__


@pytest.mark.parametrize("stream", [True, False])
def test_pycapsule_inputs(stream):
    chunker = RecursiveChunker(100)
    array = pa.array(PROSE, pa.string())
    data = pa.chunked_array([array]) if stream else array
    assert_same(chunk_arrow(CapsuleOnly(data, stream), chunker), chunker, PROSE)
    # A struct (a record batch, a table) through the same protocol is read as a table.
    batch = pa.record_batch({"body": array, "n": pa.array(range(len(PROSE)))})
    tabular = pa.Table.from_batches([batch]) if stream else batch
    table = chunk_arrow(CapsuleOnly(tabular, stream), chunker, text_column="body", keep=["n"])
    assert_same(table, chunker, PROSE, kept={"n": list(range(len(PROSE)))})


def _table(texts):
    return pa.table(
        {
            "url": [f"https://example.org/{i}" for i in range(len(texts))],
            "body": pa.array(texts, pa.string()),
            "lang": pa.array(["en" if i % 2 else None for i in range(len(texts))]),
            "score": pa.array([i / 2 for i in range(len(texts))]),
        }
    )


@pytest.mark.parametrize("batch", [False, True])
def test_tables_keep_columns(batch):
    chunker = MarkdownChunker(90, tokenizer=Tokenizer.from_str(trained("bytelevel")))
    table = _table(PROSE)
    data = table.to_batches()[0] if batch else table
    out = chunk_arrow(data, chunker, text_column="body", keep=["score", "url", "lang"])
    kept = {name: table.column(name).to_pylist() for name in ("score", "url", "lang")}
    assert_same(out, chunker, PROSE, kept=kept)
    assert out.schema.field("score").type == pa.float64()
    # No keep: the chunk columns only.
    assert chunk_arrow(data, chunker, text_column="body").column_names == expected_columns(chunker)


def test_table_with_several_batches_and_a_sliced_table():
    chunker = SentenceChunker(80)
    table = pa.concat_tables([_table(PROSE[:4]), _table(PROSE[4:])])
    assert table.column("body").num_chunks == 2
    out = chunk_arrow(table, chunker, text_column="body", keep=["url"])
    assert_same(out, chunker, PROSE, kept={"url": table.column("url").to_pylist()})
    sliced = table.slice(2, 6)
    texts = sliced.column("body").to_pylist()
    out = chunk_arrow(sliced, chunker, text_column="body", keep=["url"])
    assert_same(out, chunker, texts, kept={"url": sliced.column("url").to_pylist()})


@pytest.mark.parametrize("kind", ["str", "int", "list", "array"])
def test_document_ids(kind):
    chunker = RecursiveChunker(100)
    values = {
        "str": [f"doc-{i}" if i % 3 else None for i in range(len(PROSE))],
        "int": [i * 1000 - 7 for i in range(len(PROSE))],
    }
    ids = values["int" if kind == "int" else "str"]
    metadatas = [{"doc_id": v} for v in ids]
    if kind in ("str", "int"):
        table = _table(PROSE).append_column("doc", pa.array(ids))
        out = chunk_arrow(table, chunker, text_column="body", id_column="doc")
    else:
        given = ids if kind == "list" else pa.array(ids)
        out = chunk_arrow(pa.array(PROSE), chunker, doc_ids=given)
    assert_same(out, chunker, PROSE, metadatas=metadatas)
    # Ids follow the documents: without them, chunks of equal text in two documents differ only by the text digest.
    plain = chunk_arrow(pa.array(PROSE), chunker)
    assert out.column("id").to_pylist() != plain.column("id").to_pylist()


def test_nulls_have_no_chunks_and_rows_stay_in_place():
    chunker = RecursiveChunker(50)
    texts = [None, "alpha beta", None, None, "gamma " * 30, None]
    out = chunk_arrow(pa.array(texts), chunker)
    rows = out.column("row").to_pylist()
    assert set(rows) == {1, 4}
    assert_same(out, chunker, texts)
    # A null slot whose bytes are not empty (pyarrow keeps the bytes under a null) is still null.
    masked = pa.array(["kept text", "hidden text under a null"], pa.string())
    masked = pa.Array.from_buffers(pa.string(), 2, [pa.py_buffer(b"\x02"), *masked.buffers()[1:]])
    assert masked.to_pylist() == [None, "hidden text under a null"]
    assert chunk_arrow(masked, chunker).column("row").to_pylist() == [1]


def test_empty_inputs():
    chunker = MarkdownChunker(50)
    for data in (pa.array([], pa.string()), pa.array([None, ""], pa.string()), pa.chunked_array([], pa.string())):
        out = chunk_arrow(data, chunker)
        assert out.num_rows == 0
        assert out.column_names == expected_columns(chunker)


def test_output_outlives_the_input():
    chunker = RecursiveChunker(60)
    texts = [t for t in PROSE if t]
    data = pa.array([t + "" for t in texts])
    out = chunk_arrow(data, chunker)
    del data
    gc.collect()
    assert_same(out, chunker, texts)


def test_pickled_chunker_gives_the_same_table():
    chunker = ClauseChunker(80, tokenizer=Tokenizer.tiktoken("cl100k_base"))
    again = pickle.loads(pickle.dumps(chunker))
    data = pa.array(LEGAL)
    assert chunk_arrow(data, again).equals(chunk_arrow(data, chunker))
    assert pickle.loads(pickle.dumps(chunk_arrow(data, chunker))).equals(chunk_arrow(data, chunker))


def test_errors_name_the_argument():
    chunker = RecursiveChunker(50)
    table = _table(PROSE[:3]).append_column("n", pa.array([1, 2, 3]))
    with pytest.raises(chunkwise.ChunkingError, match="text_column 'missing'"):
        chunk_arrow(table, chunker, text_column="missing")
    with pytest.raises(TypeError, match="text_column 'n' must hold strings.*int64"):
        chunk_arrow(table, chunker, text_column="n")
    with pytest.raises(TypeError, match="chunker must be a chunkwise chunker"):
        chunk_arrow(table, "recursive", text_column="body")
    with pytest.raises(chunkwise.ChunkingError, match="keep names the text column 'body'"):
        chunk_arrow(table, chunker, text_column="body", keep=["url", "body"])
    with pytest.raises(chunkwise.ChunkingError, match="keep names 'nope'"):
        chunk_arrow(table, chunker, text_column="body", keep=["nope"])
    with pytest.raises(TypeError, match="keep must be a list"):
        chunk_arrow(table, chunker, text_column="body", keep="url")
    with pytest.raises(chunkwise.ChunkingError, match="keep names 'url' twice|keep names a column twice"):
        chunk_arrow(table, chunker, text_column="body", keep=["url", "url"])
    with pytest.raises(chunkwise.ChunkingError, match="keep names 'start', a column of the output"):
        chunk_arrow(table.append_column("start", pa.array([0, 0, 0])), chunker, text_column="body", keep=["start"])
    with pytest.raises(TypeError, match="keep needs a table"):
        chunk_arrow(pa.array(["a"]), chunker, keep=["x"])
    with pytest.raises(TypeError, match="data must be .*got list"):
        chunk_arrow(["a", "b"], chunker)
    with pytest.raises(TypeError, match=r"data must hold strings .* or UTF-8 bytes .*double"):
        chunk_arrow(pa.array([1.5]), chunker)
    with pytest.raises(ValueError, match="on_error must be 'raise' or 'skip', got 'ignore'"):
        chunk_arrow(table, chunker, text_column="body", on_error="ignore")
    with pytest.raises(chunkwise.ChunkingError, match="id_column 'nope'"):
        chunk_arrow(table, chunker, text_column="body", id_column="nope")
    with pytest.raises(TypeError, match="id_column must hold strings or integers, got double"):
        chunk_arrow(table, chunker, text_column="body", id_column="score")
    with pytest.raises(chunkwise.ChunkingError, match=r"doc_ids must have one entry per text \(3\), got 2"):
        chunk_arrow(pa.array(["a", "b", "c"]), chunker, doc_ids=["x", "y"])
    # A core error names the row, as chunk_batch names the text; a null is no text, and no error.
    tables = ["| a |\n|---|\n| 1 |", None, ""]
    with pytest.raises(chunkwise.ChunkingError, match=r"texts\[2\] holds no table"):
        chunk_arrow(pa.array(tables), TableChunker(50))
    with pytest.raises(chunkwise.ChunkingError, match=r"texts\[1\] holds no table"):
        TableChunker(50).chunk_batch(["| a |\n|---|\n| 1 |", ""])
    assert chunk_arrow(pa.array(tables[:2]), TableChunker(50)).column("row").to_pylist() == [0]


def test_invalid_utf8_from_a_producer_is_refused():
    # pyarrow checks UTF-8 when it builds a string array from Python, not when it is given raw buffers.
    bad = pa.Array.from_buffers(
        pa.string(), 2, [None, pa.py_buffer(pa.array([0, 2, 4], pa.int32()).buffers()[1]), pa.py_buffer(b"ok\xff\xfe")]
    )
    with pytest.raises(chunkwise.ChunkingError, match=r"texts\[1\] is not valid UTF-8"):
        chunk_arrow(bad, RecursiveChunker(50))


def test_without_pyarrow_import_works_and_the_error_says_what_to_install():
    code = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "import chunkwise, chunkwise.arrow\n"
        "try:\n"
        "    chunkwise.arrow.chunk_arrow(None, chunkwise.RecursiveChunker())\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "chunkwise[arrow]" in proc.stdout, proc.stdout + proc.stderr


def test_description_and_page_columns_carry_values():
    # The comparison above holds for null columns too: here each column must hold real values.
    md = "# Guide\n\n## Install\n\n```python\nimport chunkwise\nprint(chunkwise.__version__)\n```\n\nText.\n" * 4
    texts = [md, "\f".join(f"Page {n} words. " * 6 for n in range(3)), TABLES[0]]
    chunker = MarkdownChunker(60)
    rows = assert_same(chunk_arrow(pa.array(texts), chunker), chunker, texts)
    assert ["Guide", "Install"] in [r["title_path"] for r in rows]
    assert [1, 2] in [r["headings"] for r in rows]
    assert "python" in [r["language"] for r in rows]
    assert {"code", "table"} <= {r["chunk_type"] for r in rows}
    assert any(r["context"] for r in rows) and any(r["context_shortened"] for r in rows)
    assert {(r["page_start"], r["page_end"]) for r in rows if r["row"] == 1} >= {(1, 1), (3, 3)}
    assert {r["page_start"] for r in rows if r["row"] != 1} == {None}
    table = TableChunker(rows_per_chunk=2, format="csv")
    csv = ["name,city\n" + "".join(f"n{i},c{i}\n" for i in range(7))]
    rows = assert_same(chunk_arrow(pa.array(csv), table), table, csv)
    assert [(r["row_start"], r["row_end"], r["total_rows"]) for r in rows] == [(0, 2, 7), (2, 4, 7), (4, 6, 7), (6, 7, 7)]
    assert all(r["embedding_text"].startswith("| name | city |") for r in rows)


def test_big_inputs_come_back_in_several_batches_that_join_up():
    # Over a few MB, the output is built as several record batches in parallel: rows, ids and neighbours' ids must
    # still line up across the batch boundaries.
    texts = (PROSE[:2] + PROSE[4:6] + [PROSE[7]]) * 300
    chunker = RecursiveChunker(200, 30)
    out = chunk_arrow(pa.array(texts), chunker)
    assert out.column("text").num_chunks > 1
    assert_same(out, chunker, texts)
    # Kept columns line up with the batches' rows.
    table = pa.table({"body": texts, "n": list(range(len(texts)))})
    kept = chunk_arrow(table, chunker, text_column="body", keep=["n"])
    assert kept.column("n").to_pylist() == kept.column("row").to_pylist() == out.column("row").to_pylist()


def test_a_python_tokenizer_callable():
    # Sizes from a Python callable: the split runs with the GIL held, one text after the other, same result.
    chunker = SentenceChunker(30, tokenizer=Tokenizer.from_callable(lambda s: len(s.split())))
    texts = PROSE[:6]
    rows = assert_same(chunk_arrow(pa.array(texts), chunker), chunker, texts)
    assert rows and all(r["token_count"] <= 30 for r in rows)


# -- bytes, and rows that are not UTF-8 ------------------------------------------------------------------------


BYTES = [PROSE[0].encode(), b"ok \xff\xfe then", None, PROSE[1].encode(), "caf\u00e9".encode()[:-1], b""]


@pytest.mark.parametrize("kind", ["binary", "large_binary", "binary_view"])
def test_utf8_bytes_are_texts(kind):
    good = [b for i, b in enumerate(BYTES) if i not in (1, 4)]
    chunker = SentenceChunker(120)
    got = chunk_arrow(pa.array(good, getattr(pa, kind)()), chunker)
    want = chunk_arrow(pa.array([None if b is None else b.decode() for b in good]), chunker)
    assert got.to_pylist() == want.to_pylist()


def test_a_row_that_is_not_utf8_raises_naming_it_and_its_id():
    table = pa.table({"doc": ["a", "b", "c", "d", "e", "f"], "text": pa.array(BYTES, pa.binary())})
    with pytest.raises(chunkwise.ChunkingError,
                       match=r"row 1 \(id_column 'doc' 'b'\) of text_column 'text' is not UTF-8: invalid byte 0xff at byte 3"):
        chunk_arrow(table, RecursiveChunker(100), id_column="doc")
    with pytest.raises(chunkwise.ChunkingError, match=r"^row 1 of data is not UTF-8"):
        chunk_arrow(table.column("text"), RecursiveChunker(100))


def test_skip_gives_each_bad_row_a_row_with_its_reason():
    table = pa.table({"doc": ["a", "b", "c", "d", "e", "f"], "text": pa.array(BYTES, pa.binary())})
    chunker = RecursiveChunker(100)
    got = chunk_arrow(table, chunker, keep=["doc"], id_column="doc", on_error="skip")
    assert got.column_names[-1] == "error"
    errors = [r for r in got.to_pylist() if r["error"] is not None]
    assert [(r["doc"], r["row"], r["error"]) for r in errors] == [
        ("b", 1, "not UTF-8: invalid byte 0xff at byte 3"),
        ("e", 4, "not UTF-8: invalid byte 0xc3 at byte 3"),
    ]
    assert all(r["text"] is None and r["index"] is None and r["id"] is None for r in errors)
    # The good rows' chunks are those of the good rows alone, in the rows' order, the error rows in place.
    good = [r for r in got.to_pylist() if r["error"] is None]
    texts = [None if i in (1, 4) or b is None else b.decode() for i, b in enumerate(BYTES)]
    want = chunk_arrow(pa.table({"doc": table.column("doc"), "text": texts}), chunker, keep=["doc"], id_column="doc")
    assert [{k: v for k, v in r.items() if k != "error"} for r in good] == want.to_pylist()
    assert got.column("row").to_pylist() == sorted(got.column("row").to_pylist())
    # A slice of a longer array (an engine's batch): the other rows' bytes are read where they are.
    longer = pa.array([b"x y z"] * 7 + BYTES, pa.binary()).slice(7)
    assert chunk_arrow(longer, chunker, on_error="skip").drop_columns(["row"]).to_pylist() == chunk_arrow(
        table.column("text"), chunker, on_error="skip").drop_columns(["row"]).to_pylist()
    # Views (Polars hands its columns over as views): the same rows.
    views = pa.array(BYTES, pa.binary_view())
    assert chunk_arrow(views, chunker, on_error="skip").to_pylist() == chunk_arrow(
        table.column("text"), chunker, on_error="skip").to_pylist()
    # Without a bad row: the same columns (one schema for every batch), the error column all null.
    clean = chunk_arrow(pa.array(["a b"]), chunker, on_error="skip")
    assert clean.column_names[-1] == "error" and clean.column("error").null_count == clean.num_rows == 1
    assert clean.schema.equals(chunk_arrow(pa.array([b"\xff"], pa.binary()), chunker, on_error="skip").schema)
