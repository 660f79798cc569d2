"""Constructor arguments: every int checked as an int (not a bool) within its range, separators as a list, the
regex dialect of separators; messages name the argument once."""

from __future__ import annotations

import re

import pytest

from chunkwise import (
    ChunkingError, ClauseChunker, FixedChunker, MarkdownChunker, ParagraphChunker, RecursiveChunker, SentenceChunker,
    TableChunker,
)

INT_ARGS = [
    (RecursiveChunker, "size"), (RecursiveChunker, "overlap"), (RecursiveChunker, "min_size"),
    (SentenceChunker, "size"), (ParagraphChunker, "min_size"), (FixedChunker, "snap"), (MarkdownChunker, "overlap"),
    (ClauseChunker, "size"), (TableChunker, "size"), (TableChunker, "rows_per_chunk"),
]


def _make(cls, **kw):
    if cls is TableChunker and "size" not in kw and "rows_per_chunk" not in kw:
        kw["size"] = 100
    if "size" not in kw and kw.keys() & {"overlap", "snap", "min_size"}:
        kw["size"] = 100
    return cls(**kw)


@pytest.mark.parametrize("cls, arg", INT_ARGS)
@pytest.mark.parametrize("huge", [2**63, 2**70])
def test_a_huge_int_is_a_chunking_error_naming_the_argument(cls, arg, huge):
    with pytest.raises(ChunkingError, match=rf"^{arg} must be at most 9223372036854775807 \(2\*\*63 - 1\), got {huge}$"):
        _make(cls, **{arg: huge})


@pytest.mark.parametrize("cls, arg", INT_ARGS)
@pytest.mark.parametrize("value", [True, False])
def test_a_bool_is_not_an_int(cls, arg, value):
    with pytest.raises(TypeError, match=rf"^{arg} must be an int(eger)?( or None)?, got bool$"):
        _make(cls, **{arg: value})


def test_a_huge_negative_int_gets_the_lower_bound():
    with pytest.raises(ChunkingError, match=r"^size must be >= 1, got -1180591620717411303424$"):
        RecursiveChunker(-(2**70))
    with pytest.raises(ChunkingError, match=r"^overlap must be >= 0, got -1$"):
        RecursiveChunker(10, -1)


def test_ints_from_numpy_and_large_sizes_work():
    np = pytest.importorskip("numpy")
    assert RecursiveChunker(np.int64(5), np.int32(1)).split("abc def ghi") == RecursiveChunker(5, 1).split("abc def ghi")
    # The largest sizes are valid: everything fits in one chunk.
    for chunker in (RecursiveChunker(2**63 - 1), FixedChunker(2**62), MarkdownChunker(2**62)):
        assert len(chunker.chunk("# a\n\nb c d " * 50)) == 1


def test_separators_must_be_a_list_of_str():
    with pytest.raises(TypeError, match=r"^separators must be a list of str, not a str$"):
        RecursiveChunker(10, separators="\n\n")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        RecursiveChunker(10, separators=["a", 3])  # type: ignore[list-item]
    assert RecursiveChunker(10, separators=("\n\n", " ")).split("aaa bbb\n\nccc") == ["aaa bbb", "ccc"]


# -- the regex dialect of separators: Python's re -------------------------------------------------------------------

REGEX_CASES = [
    # (pattern, keep, size, text): Python's re.finditer gives the expected cut positions.
    (r"(?<=\.)", "end", 6, "ab.cd.ef.gh."),
    (r"(?=\n#)", "start", 12, "intro\n# A\ntext a\n# B\nbbb"),
    (r"(?<=。)", "end", 4, "你好。世界。再见。"),
    (r"\.\s+", "end", 8, "One. Two.  Three.\tFour."),
    (r"(\n)(?P<h>#+) ", "start", 10, "intro\n## A body\n# B more"),
    (r"[;,]", "end", 5, "a,b;cc,dd;e"),
    (r"\s", "end", 3, "ab\x1ccd\x1fef"),  # Python's \s holds U+001C..U+001F, Rust's does not
    (r"(?<!\d)\.(?!\d)", "end", 8, "Pi is 3.14. Next."),
]


@pytest.mark.parametrize("pattern, keep, size, text", REGEX_CASES)
def test_separators_are_python_re_patterns(pattern, keep, size, text):
    chunker = RecursiveChunker(size, separators=[pattern], is_separator_regex=True, keep_separator=keep, trim=False)
    chunks = chunker.split(text)
    assert "".join(chunks) == text
    # Every cut but those a chunk over `size` forces is where Python's re matches.
    matches = {m.end() if keep == "end" else m.start() for m in re.finditer(pattern, text)}
    cuts = [sum(map(len, chunks[: i + 1])) for i in range(len(chunks) - 1)]
    assert cuts and all(c in matches or len(chunks[i]) == size for i, c in enumerate(cuts))


@pytest.mark.parametrize(
    "pattern, message",
    [
        (r"x*", r'\("x\*"\) can match the empty string as well as text'),
        (r"\w+", r"is not a valid regex for chunkwise .*\\w, \\W, \\b, \\B"),
        (r"\bword", r"is not a valid regex for chunkwise .*\\w, \\W, \\b, \\B"),
        (r"(?i)abc", r"is not a valid regex for chunkwise .*inline flags"),
        (r"a$", r"is not a valid regex for chunkwise .*\$ and \\Z are not supported"),
        (r"(a)\1", r"is not a valid regex for chunkwise"),
        (r"(?<=a+)b", r"look-behind of variable width"),
        (r"(", r"is not a valid regex for chunkwise"),
    ],
)
def test_a_regex_outside_the_dialect_is_refused_saying_why(pattern, message):
    with pytest.raises(ChunkingError, match=r"^separators\[1\] .*" + message):
        RecursiveChunker(10, separators=["\n\n", pattern], is_separator_regex=True)


# -- messages name the argument once --------------------------------------------------------------------------------


def test_messages_do_not_repeat_the_argument_name():
    calls = [
        lambda: RecursiveChunker(10).chunk("a \ud800"),
        lambda: RecursiveChunker(10).chunk_batch(["a", "b \udfff"]),
        lambda: TableChunker(10).chunk_batch(["a|b\n-|-\n1|2", "   "]),
        lambda: TableChunker(10).chunk("   "),
    ]
    for call in calls:
        with pytest.raises(ChunkingError) as info:
            call()
        message = str(info.value)
        assert not re.match(r"^(\w+(\[\d+\])?): \1\b", message) and not re.match(r"^texts\[\d+\]: text\b", message), message
    with pytest.raises(ChunkingError, match=r"^texts\[1\] holds no table"):
        TableChunker(10).chunk_batch(["a|b\n-|-\n1|2", "   "])
