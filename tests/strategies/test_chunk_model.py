"""The Chunk contract: immutable (its metadata a read-only dict holding copies), equal by value, validated."""

from __future__ import annotations

import copy
import json
import pickle
import types

import pytest

from chunkwise import (
    Chunk, ChunkingError, ClauseChunker, FixedChunker, MarkdownChunker, RecursiveChunker, TableChunker,
)
from chunkwise.chunk import Metadata

MD = "# Guide\n\nIntro text here.\n\n## Install\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nDone.\n"
CSV = "city,population\nBeijing,21.9\nShanghai,24.9\nShenzhen,17.7\n"
# Texts some of whose chunks get a shortened context (``context_shortened``): a header or title path too long for
# the size.
TABLE_SHORTENED = "| name of the thing | value of the thing |\n|---|---|\n" + "".join(f"| row{i} | {i} |\n" for i in range(30))
MD_SHORTENED = "# Guide\n\n## Install\n\n" + TABLE_SHORTENED
CLAUSES_SHORTENED = "第一章 总则总则总则总则总则总则总则总则\n\n第一节 一般规定一般规定一般规定一般规定\n\n第一条 " + "这是一个很长的条款内容。" * 20


def _samples():
    yield RecursiveChunker(12).chunk("Alpha beta. Gamma delta.\n\nEpsilon.", {"source": "a.txt", "tags": ["x"]})
    yield MarkdownChunker(30).chunk(MD, {"source": "guide.md"})
    yield TableChunker(rows_per_chunk=2, format="csv").chunk(CSV)  # embedding_text rendered by the chunker
    yield ClauseChunker(40).chunk("第一条 总则。\n第二条 适用范围。\n第三条 其他。")
    yield FixedChunker(5).chunk("abcdefghij", pages=None)
    yield RecursiveChunker(8).chunk(pages=["page one", "page two"])


# -- equality, hashing, round trips ---------------------------------------------------------------------------------


def test_a_chunk_made_from_its_dict_is_equal_and_hashes_alike():
    for chunks in _samples():
        assert chunks
        for c in chunks:
            made = Chunk(**c.to_dict())
            assert made == c and hash(made) == hash(c)
            # The same before and after embedding_text was read on either side.
            c.embedding_text
            assert Chunk(**c.to_dict()) == c and made.to_dict() == c.to_dict()
            assert pickle.loads(pickle.dumps(c)) == c and copy.deepcopy(c) == c and copy.copy(c) == c


def test_embedding_text_is_compared_by_value():
    plain = Chunk("abc", 3, 6, context="Title")
    given = Chunk("abc", 3, 6, context="Title", embedding_text="Title\n\nabc")
    assert plain == given and hash(plain) == hash(given) and len({plain, given}) == 1
    assert Chunk("abc", 3, 6, context="Title", embedding_text="other") != plain


@pytest.mark.parametrize(
    "change",
    [
        dict(text="abd"), dict(start=4, end=7), dict(index=1), dict(size=4), dict(token_count=3),
        dict(level="word"), dict(metadata={"k": 2}), dict(context="C"), dict(context_sep="\n"), dict(id="other"),
        dict(prev_id="p2"), dict(next_id="n2"), dict(embedding_text="E"),
    ],
)
def test_chunks_differing_in_one_field_are_not_equal(change):
    base = dict(text="abc", start=3, end=6, index=0, size=3, token_count=2, level="end", metadata={"k": 1},
                context="", context_sep="\n\n", id="i", prev_id="p", next_id="n")
    assert Chunk(**base) == Chunk(**base)
    assert Chunk(**{**base, **change}) != Chunk(**base)


# -- metadata -------------------------------------------------------------------------------------------------------


def test_metadata_is_a_read_only_dict():
    c = RecursiveChunker(10).chunk("Alpha beta gamma.", {"source": "x", "n": 1})[0]
    m = c.metadata
    assert isinstance(m, dict) and isinstance(m, Metadata) and m == {"source": "x", "n": 1}
    for change in (
        lambda: m.__setitem__("n", 2), lambda: m.__delitem__("n"), lambda: m.update(n=2), lambda: m.pop("n"),
        lambda: m.popitem(), lambda: m.clear(), lambda: m.setdefault("z", 0), lambda: m.__ior__({"z": 0}),
    ):
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert c.metadata == {"source": "x", "n": 1}
    # What one does with a dict still works: JSON, a mutable copy, pickling, copying.
    assert json.loads(json.dumps(m)) == {"source": "x", "n": 1}
    mine = m.copy()
    mine["n"] = 2
    assert type(mine) is dict and c.metadata["n"] == 1 and {**m, "n": 3}["n"] == 3 and (m | {"n": 4})["n"] == 4
    assert pickle.loads(pickle.dumps(m)) == m and copy.deepcopy(m) == m and copy.copy(m) == m
    assert type(pickle.loads(pickle.dumps(m))) is Metadata
    # A chunk without metadata reads as an empty one.
    assert RecursiveChunker(10).chunk("abc")[0].metadata == {}


@pytest.mark.parametrize("chunker", [RecursiveChunker(8), MarkdownChunker(8), FixedChunker(8)])
@pytest.mark.parametrize("batch", [False, True])
def test_the_callers_metadata_is_copied_deeply(chunker, batch):
    text = "# Title\n\nOne two three four five six seven."
    meta = {"source": "x", "tags": ["a"], "nested": {"k": [1]}}
    chunks = chunker.chunk_batch([text], [meta])[0] if batch else chunker.chunk(text, meta)
    assert len(chunks) > 1
    meta["tags"].append("b")
    meta["nested"]["k"].append(2)
    meta["added"] = True
    for c in chunks:
        assert c.metadata["tags"] == ["a"] and c.metadata["nested"] == {"k": [1]} and "added" not in c.metadata
    # One copy per text, whose values its chunks share (read-only by contract); to_dict() gives a copy of one's own.
    assert chunks[0].metadata["tags"] is chunks[1].metadata["tags"]
    mine = chunks[0].to_dict()["metadata"]
    mine["tags"].append("mine")
    assert chunks[0].metadata["tags"] == ["a"]


def test_the_constructor_copies_metadata_and_takes_any_mapping():
    meta = {"a": [1]}
    c = Chunk("x", 0, 1, metadata=meta)
    meta["a"].append(2)
    assert c.metadata == {"a": [1]}
    assert Chunk("x", 0, 1, metadata=types.MappingProxyType({"a": 1})).metadata == {"a": 1}
    with pytest.raises(TypeError, match="metadata must be a mapping or None, got list"):
        Chunk("x", 0, 1, metadata=[("a", 1)])  # type: ignore[arg-type]


def test_unusual_metadata_values_are_copied_like_deepcopy():
    class Own:
        def __init__(self):
            self.copies = 0

        def __deepcopy__(self, memo):
            new = Own()
            new.copies = self.copies + 1
            return new

    loop: list = []
    loop.append(loop)  # a container that holds itself
    deep: list = []
    for _ in range(100):
        deep = [deep]
    meta = {"own": Own(), "loop": loop, "deep": deep, "t": (1, ["x"]), "s": {1, 2}, "b": b"raw", "f": 1.5}
    c = RecursiveChunker(10).chunk("abc", meta)[0]
    assert c.metadata["own"].copies == 1
    assert c.metadata["loop"][0] is c.metadata["loop"] and c.metadata["loop"] is not loop
    assert c.metadata["t"] == (1, ["x"]) and c.metadata["t"][1] is not meta["t"][1]
    assert c.metadata["s"] == {1, 2} and c.metadata["s"] is not meta["s"]
    assert (c.metadata["b"], c.metadata["f"]) == (b"raw", 1.5)
    depth, node = 0, c.metadata["deep"]
    while node:
        node, depth = node[0], depth + 1
    assert depth == 100


@pytest.mark.parametrize(
    "call, arg, key",
    [
        (lambda m: MarkdownChunker(20).chunk(MD, m), "metadata", "title_path"),
        (lambda m: MarkdownChunker(20).chunk(MD, m), "metadata", "chunk_type"),
        (lambda m: ClauseChunker(20).chunk("第一条 总则。", m), "metadata", "headings"),
        (lambda m: TableChunker(rows_per_chunk=1, format="csv").chunk(CSV, m), "metadata", "row_start"),
        (lambda m: MarkdownChunker(20).chunk_batch(["a", MD], [None, m]), r"metadatas\[1\]", "language"),
        (lambda m: RecursiveChunker(20).chunk(pages=["a", "b"], metadata=m), "metadata", "page_start"),
        (lambda m: RecursiveChunker(20).chunk("a\fb", m), "metadata", "page_end"),
        # Drift of issue 32: context_shortened (set on chunks whose context was cut to fit) was overwritten in
        # silence on Markdown, clause and table chunks (failed on main: the bindings' list of structure keys lacked
        # it).
        (lambda m: MarkdownChunker(30).chunk(MD_SHORTENED, m), "metadata", "context_shortened"),
        (lambda m: ClauseChunker(30).chunk(CLAUSES_SHORTENED, m), "metadata", "context_shortened"),
        (lambda m: TableChunker(30).chunk(TABLE_SHORTENED, m), "metadata", "context_shortened"),
    ],
)
def test_a_key_the_chunker_sets_is_refused_not_overwritten(call, arg, key):
    with pytest.raises(ChunkingError, match=rf"^{arg} has the key '{key}', which the chunker sets itself"):
        call({key: "mine", "source": "s"})


@pytest.mark.parametrize("chunker, text", [
    (MarkdownChunker(30), MD_SHORTENED), (ClauseChunker(30), CLAUSES_SHORTENED), (TableChunker(30), TABLE_SHORTENED),
])
def test_the_shortened_texts_get_a_shortened_context(chunker, text):
    # What makes the refusal of a caller's context_shortened above a refusal of a key these chunks set.
    assert any(c.metadata.get("context_shortened") is True for c in chunker.chunk(text))


def test_keys_the_chunker_does_not_set_are_kept():
    # A text chunker sets no structural key, and a text without form feeds no page key.
    c = RecursiveChunker(20).chunk("abc", {"chunk_type": "mine", "page_start": 7})[0]
    assert c.metadata == {"chunk_type": "mine", "page_start": 7}


# -- constructor arguments ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        (("abc", 5, 1), {}, ChunkingError, r"^end must be >= start \(5\), got 1$"),
        (("abc", 0, 10), {}, ChunkingError, r"^end - start must be len\(text\) \(3\)"),
        (("abc", -1, 2), {}, ChunkingError, r"^start must be >= 0, got -1$"),
        (("abc", 0, 2**64), {}, ChunkingError, r"^end must be at most 9223372036854775807 \(2\*\*63 - 1\), got 18446744073709551616$"),
        (("abc", True, 3), {}, TypeError, r"^start must be an int, got bool$"),
        (("abc", 0, 3.0), {}, TypeError, r"^end must be an int, got float$"),
        ((b"abc", 0, 3), {}, TypeError, r"^text must be str, got bytes$"),
        (("abc", 0, 3), dict(index=-1), ChunkingError, r"^index must be >= 0, got -1$"),
        (("abc", 0, 3), dict(size=-2), ChunkingError, r"^size must be >= 0, got -2$"),
        (("abc", 0, 3), dict(token_count=False), TypeError, r"^token_count must be an int, got bool$"),
        (("abc", 0, 3), dict(level=1), TypeError, r"^level must be str, got int$"),
        (("abc", 0, 3), dict(id=5), TypeError, r"^id must be str, got int$"),
        (("abc", 0, 3), dict(embedding_text=b"x"), TypeError, r"^embedding_text must be str, got bytes$"),
    ],
)
def test_the_constructor_checks_its_arguments(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        Chunk(*args, **kwargs)


def test_the_constructor_takes_numpy_integers():
    np = pytest.importorskip("numpy")
    c = Chunk("abc", np.int64(2), np.int32(5), index=np.int64(1))
    assert (c.start, c.end, c.index) == (2, 5, 1)


# -- ids ------------------------------------------------------------------------------------------------------------

PARAS = ["First paragraph here.", "Second one, longer.", "Third and last."]


def _ids(texts, meta=None, chunker=RecursiveChunker(25)):
    chunks = chunker.chunk("\n\n".join(texts), meta)
    return {c.text: c.id for c in chunks}, chunks


def test_ids_depend_on_the_text_not_only_on_the_span():
    chunker = RecursiveChunker(100)
    a = chunker.chunk("Alpha beta gamma.", {"source": "x"})[0]
    b = chunker.chunk("Other words here.", {"source": "x"})[0]
    assert (a.start, a.end) == (b.start, b.end) and a.id != b.id


@pytest.mark.parametrize("meta", [{"source": "doc.txt"}, {"doc_id": 7}, {"id": "d1"}])
def test_an_edit_elsewhere_keeps_the_ids_of_unchanged_chunks(meta):
    before, chunks = _ids(PARAS, meta)
    assert len(chunks) == 3
    # A paragraph inserted before the second shifts its offsets: its id, and the others', stay.
    after, moved = _ids([PARAS[0], "A new paragraph.", *PARAS[1:]], meta)
    assert all(after[t] == before[t] for t in PARAS)
    assert after["A new paragraph."] not in before.values()
    assert moved[2].start != chunks[1].start and moved[2].id == chunks[1].id
    # prev_id/next_id follow the new order.
    assert moved[2].prev_id == moved[1].id == after["A new paragraph."]
    # An edited chunk gets a new id.
    edited, _ = _ids([PARAS[0], "Second one, longer!", PARAS[2]], meta)
    assert edited[PARAS[0]] == before[PARAS[0]] and edited["Second one, longer!"] != before[PARAS[1]]


def test_repeated_chunk_texts_are_told_apart_by_occurrence():
    text = "\n\n".join(["Same words.", "Other.", "Same words."])
    chunks = RecursiveChunker(12).chunk(text, {"source": "s"})
    assert [c.text for c in chunks] == ["Same words.", "Other.", "Same words."]
    assert len({c.id for c in chunks}) == 3
    # A third copy appended leaves the first two ids as they were.
    more = RecursiveChunker(12).chunk(text + "\n\nSame words.", {"source": "s"})
    assert [c.id for c in more[:3]] == [c.id for c in chunks] and more[3].id not in {c.id for c in chunks}


def test_the_document_id_is_part_of_the_id():
    ids = {RecursiveChunker(100).chunk("Alpha.", meta)[0].id
           for meta in ({"source": "a"}, {"source": "b"}, {"doc_id": "a"}, None)}
    assert len(ids) == 4
    # Without a document id the whole text stands for the document: the same passage in two texts, two ids.
    one = RecursiveChunker(10).chunk("Alpha one.\n\nBeta two.")
    two = RecursiveChunker(10).chunk("Alpha one.\n\nGamma three.")
    assert one[0].text == two[0].text and one[0].id != two[0].id
    assert [c.id for c in RecursiveChunker(10).chunk("Alpha one.\n\nBeta two.")] == [c.id for c in one]


def test_batch_ids_are_the_single_call_ids():
    texts = ["\n\n".join(PARAS), "Alpha beta gamma.", "\n\n".join(PARAS[::-1])]
    metas = [{"source": "a"}, None, {"source": "a"}]
    chunker = RecursiveChunker(25)
    assert [[c.id for c in cs] for cs in chunker.chunk_batch(texts, metas)] == [
        [c.id for c in chunker.chunk(t, m)] for t, m in zip(texts, metas)
    ]
