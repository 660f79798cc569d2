"""Table-driven behaviour of each strategy: the exact chunks for small, readable inputs."""

from __future__ import annotations

import gc
import pickle
import weakref

import numpy as np
import pytest

from chunkwise import Chunk, FixedChunker, ParagraphChunker, RecursiveChunker, SentenceChunker

PROSE = "First paragraph here.\n\nSecond one, which is longer. It has two sentences."

CASES = [
    # (chunker, text, expected chunks)
    (RecursiveChunker(40), PROSE, ["First paragraph here.", "Second one, which is longer.", "It has two sentences."]),
    (RecursiveChunker(200), PROSE, [PROSE]),
    (RecursiveChunker(12), "alpha beta gamma delta", ["alpha beta", "gamma delta"]),
    (RecursiveChunker(5), "abcdefghijk", ["abcde", "fghij", "k"]),
    (RecursiveChunker(6), "你好，世界。再见！", ["你好，世界。", "再见！"]),
    (RecursiveChunker(4), "你好，世界。", ["你好，", "世界。"]),
    (RecursiveChunker(9), "他说：「好。」然后走了。", ["他说：「好。」", "然后走了。"]),
    (RecursiveChunker(10), "line one\nline two\nline three", ["line one", "line two", "line three"]),
    (RecursiveChunker(20), "a\r\n\r\nb\r\nc", ["a\r\n\r\nb\r\nc"]),
    (RecursiveChunker(3), "a\r\n\r\nb\r\nc", ["a", "b", "c"]),
    (RecursiveChunker(4), "a\r\n\r\nb\r\nc", ["a", "b\r\nc"]),
    (RecursiveChunker(30, separators=["|"]), "aaa|bbb|ccc", ["aaa|bbb|ccc"]),
    (RecursiveChunker(8, separators=["|"]), "aaa|bbb|ccc", ["aaa|bbb|", "ccc"]),
    (RecursiveChunker(8, separators=["|"], keep_separator="start"), "aaa|bbb|ccc", ["aaa|bbb", "|ccc"]),
    (RecursiveChunker(6, separators=[r"\d+"], is_separator_regex=True), "ab12cd345ef", ["ab12", "cd345", "ef"]),
    (SentenceChunker(30), "One. Two! Three? Four.", ["One. Two! Three? Four."]),
    (SentenceChunker(10), "One. Two! Three? Four.", ["One. Two!", "Three?", "Four."]),
    (SentenceChunker(25), "Pi is 3.14 and e is 2.71. Ok.", ["Pi is 3.14 and e is 2.71.", "Ok."]),
    (SentenceChunker(12), "Heading\nBody text.", ["Heading", "Body text."]),
    (ParagraphChunker(30), "Para one.\n\nPara two.\n\nPara three.", ["Para one.\n\nPara two.", "Para three."]),
    (ParagraphChunker(20), "Long para with two. Sentences here.", ["Long para with two.", "Sentences here."]),
    (FixedChunker(4), "abcdefghij", ["abcd", "efgh", "ij"]),
    (FixedChunker(4, 2), "abcdefgh", ["abcd", "cdef", "efgh"]),
    (FixedChunker(3), "e\u0301e\u0301e\u0301e\u0301", ["e\u0301", "e\u0301", "e\u0301", "e\u0301"]),
    (FixedChunker(12, snap=6), "hello world again", ["hello world", "again"]),
]


@pytest.mark.parametrize("chunker, text, expected", CASES, ids=[f"{type(c[0]).__name__}-{i}" for i, c in enumerate(CASES)])
def test_exact_chunks(chunker, text, expected):
    assert chunker.split(text) == expected
    chunks = chunker.chunk(text)
    assert [c.text for c in chunks] == expected
    for c in chunks:
        assert text[c.start : c.end] == c.text


def test_levels_name_the_boundary():
    chunks = RecursiveChunker(40).chunk(PROSE)
    assert [c.level for c in chunks] == ["paragraph", "sentence", "end"]
    assert [c.level for c in RecursiveChunker(12).chunk("alpha beta gamma delta")] == ["word", "end"]
    assert [c.level for c in RecursiveChunker(5).chunk("abcdefghijk")] == ["grapheme", "grapheme", "end"]
    assert [c.level for c in RecursiveChunker(8, separators=["|"]).chunk("aaa|bbb|ccc")] == ["separator", "end"]


def test_trim_false_keeps_every_character():
    text = "  Lead.\n\n\nPara two here.  More text.\n"
    for chunker in (RecursiveChunker(10, trim=False), SentenceChunker(10, trim=False), FixedChunker(7, trim=False)):
        assert "".join(chunker.split(text)) == text


def test_overlap_repeats_the_tail_in_whole_words():
    text = "one two three four five six seven eight nine ten"
    chunks = RecursiveChunker(20, 8).chunk(text)
    assert [c.text for c in chunks] == ["one two three four", "four five six seven", "seven eight nine ten"]
    for a, b in zip(chunks, chunks[1:]):
        assert 0 < a.end - b.start <= 8


def test_min_size_merges_a_tiny_tail():
    text = "A sentence of some length here. Tiny."
    assert RecursiveChunker(33).split(text) == ["A sentence of some length here.", "Tiny."]
    assert RecursiveChunker(40, min_size=10).split(text) == [text]
    # Merging never makes a chunk bigger than size.
    assert RecursiveChunker(33, min_size=10).split(text) == ["A sentence of some length here.", "Tiny."]


def test_offsets_are_str_indices_on_non_ascii_and_repeated_text():
    text = "Ünïcödé 🙂 text. " * 50
    chunker = RecursiveChunker(37)
    chunks = chunker.chunk(text)
    assert len({c.text for c in chunks}) < len(chunks)  # repeated chunks ...
    assert len({c.start for c in chunks}) == len(chunks)  # ... at distinct, exact offsets
    for c in chunks:
        assert text[c.start : c.end] == c.text
    spans = chunker.spans(text)
    assert spans.dtype == np.int64 and spans.shape == (len(chunks), 2)
    assert spans.tolist() == [[c.start, c.end] for c in chunks]


def test_chunk_fields_and_ids():
    text = "Alpha beta. Gamma delta.\n\nEpsilon."
    chunker = RecursiveChunker(12)
    chunks = chunker.chunk(text, metadata={"source": "a.txt", "lang": "en"})
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.size == len(c.text) for c in chunks)
    assert all(c.metadata == {"source": "a.txt", "lang": "en"} for c in chunks)
    with pytest.raises(TypeError, match="read-only"):
        chunks[0].metadata["lang"] = "fr"  # one read-only copy, which the chunks of a text may share
    assert chunks[0].prev_id is None and chunks[-1].next_id is None
    assert [c.next_id for c in chunks[:-1]] == [c.id for c in chunks[1:]]
    assert len({c.id for c in chunks}) == len(chunks)
    # Stable: same document id and span, same id; another document, another id.
    again = chunker.chunk(text + " Extra.", metadata={"source": "a.txt"})
    assert again[0].id == chunks[0].id
    other = chunker.chunk(text, metadata={"source": "b.txt"})
    assert other[0].id != chunks[0].id
    # Without a document id, the text itself identifies the document.
    assert chunker.chunk(text)[0].id == chunker.chunk(text)[0].id != chunker.chunk(text + ".")[0].id
    d = chunks[0].to_dict()
    assert d["text"] == chunks[0].text and d["embedding_text"] == chunks[0].text and d["context"] == ""
    d["metadata"]["lang"] = "changed"
    assert chunks[0].metadata["lang"] == "en"


def test_chunk_is_immutable_and_picklable():
    chunk = RecursiveChunker(10).chunk("Hello there, world.")[0]
    with pytest.raises(AttributeError):
        chunk.text = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(chunk)) == chunk
    assert hash(pickle.loads(pickle.dumps(chunk))) == hash(chunk)
    made = Chunk("abc", 3, 6, context="Title")
    assert made.embedding_text == "Title\n\nabc" and made.size == 3 and made.level == "end"


def test_chunks_without_metadata_cost_the_collector_nothing():
    chunks = RecursiveChunker(8).chunk("one two three four")
    assert not any(gc.is_tracked(c) for c in chunks)
    # Reading fields, comparing and pickling do not give a chunk a dict.
    assert chunks[0] == pickle.loads(pickle.dumps(chunks[0])) and chunks[0].to_dict()["metadata"] == {}
    assert not gc.is_tracked(chunks[0]) and chunks[0].metadata == {}
    assert not gc.is_tracked(chunks[0])  # its metadata is the one shared empty one
    # A chunk given metadata holds a dict from the start, and a value nested in it may come to hold the chunk
    # itself: the cycle must still be collected.
    class Marker:
        pass

    marker = Marker()
    alive = weakref.ref(marker)
    chunks = RecursiveChunker(8).chunk("one two", metadata={"a": []})
    assert all(gc.is_tracked(c) for c in chunks)
    chunk = chunks.pop(0)
    chunk.metadata["a"].extend([chunk, marker])
    del chunk, marker, chunks
    gc.collect()
    assert alive() is None


@pytest.mark.parametrize(
    "chunker",
    [RecursiveChunker(50, 5, separators=["\n", " "]), SentenceChunker(40), ParagraphChunker(60, min_size=5), FixedChunker(30, 3, snap=5)],
)
def test_chunkers_pickle_and_compare(chunker):
    text = "Some text. " * 30
    copy = pickle.loads(pickle.dumps(chunker))
    assert copy == chunker and repr(copy) == repr(chunker) and hash(copy) == hash(chunker)
    assert copy.split(text) == chunker.split(text)
    assert pickle.loads(pickle.dumps(chunker._splitter)).spans(text) == chunker._splitter.spans(text)


def test_empty_and_blank_texts():
    for chunker in (RecursiveChunker(10), SentenceChunker(10), ParagraphChunker(10), FixedChunker(10)):
        assert chunker.chunk("") == []
        assert chunker.chunk(" \n\n\t ") == []
        assert chunker.spans("").shape == (0, 2)


def test_chunk_text_is_made_on_first_read_and_the_document_let_go():
    import sys

    doc = "".join(f"Sentence number {i} is here. " for i in range(50))
    base = sys.getrefcount(doc)
    chunks = RecursiveChunker(40).chunk(doc)
    assert sys.getrefcount(doc) - base == len(chunks)  # each chunk holds its document until its text is read
    texts = [c.text for c in chunks]
    assert sys.getrefcount(doc) == base  # ... and lets it go then
    assert texts == [doc[c.start : c.end] for c in chunks]
    assert all(c.text is t for c, t in zip(chunks, texts))  # made once


@pytest.mark.parametrize(
    "text",
    [
        "राम घर गया । सीता बाज़ार गई । वे शाम को मिले ॥ फिर सब खुश थे । " * 3,
        "هل ذهبت إلى السوق ؟ نعم ذهبت أمس ؟ " * 3,
        "وہ گھر گیا ۔ پھر وہ واپس آیا ۔ " * 3,
    ],
    ids=["devanagari", "arabic", "urdu"],
)
def test_no_chunk_starts_with_a_full_stop_of_any_script(text):
    # The word rules kept their own list of sentence stops, without । ॥ ؟ ۔ (which the sentence rules had): a
    # chunk cut at a word could start with the stop of the sentence before it.
    for size in range(7, 40):
        for c in RecursiveChunker(size=size).chunk(text):
            assert c.text[0] not in "।॥؟۔", (size, c.text)
