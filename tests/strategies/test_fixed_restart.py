"""FixedChunker(restart=...): windows that start anew at paragraph or line breaks, so that an edit changes only the
windows near it. Ids kept after edits on the corpus (with the figures without restarts for contrast), the chunks'
invariants in chars and tokens, the arguments, pickling, streaming."""

from __future__ import annotations

import pickle
import re

import pytest
from support.corpus import corpus, edits

import chunkwise
from chunkwise import ChunkingError, FixedChunker, Tokenizer

FILES = ["en.txt", "zh.txt", "ja.txt", "mixed.md", "code.py"]
RESTARTS = ["paragraph", "line"]


def kept_share(chunker: FixedChunker, name: str, text: str):
    """For each edit of ``edits``: (kind, chunks outside the edited region, how many of them keep their ids)."""
    meta = {"doc_id": name}
    old = chunker.chunk(text, meta)
    for seed in range(3):
        for kind, (a, b), edited in edits(text, seed):
            new_ids = {c.id for c in chunker.chunk(edited, meta)}
            outside = [c for c in old if c.end < a or c.start > b]
            yield kind, len(outside), sum(1 for c in outside if c.id in new_ids)


@pytest.mark.parametrize("full", [False, True], ids=["tests-data", "full-corpus"])
@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("restart", RESTARTS)
def test_ids_survive_edits_elsewhere(restart, name, full, capsys):
    text = corpus(name, full)
    figures = []
    for kind, outside, kept in kept_share(FixedChunker(512, restart=restart), name, text):
        figures.append(kept / outside)
        # The windows of the paragraph the edit falls in (all of them after the edit, in a paragraph longer than
        # the size) and the few after it until one ends where it ended before.
        if full:
            assert kept >= 0.99 * outside, (name, kind, kept, outside)
        else:
            assert outside - kept <= 10, (name, kind, kept, outside)
    # For contrast: without restarts an edit moves every window after it.
    plain = [kept / outside for _, outside, kept in kept_share(FixedChunker(512), name, text)]
    assert min(plain) < min(figures), (plain, figures)
    with capsys.disabled():
        print(f"\n{name} ({'full' if full else 'tests/data'}) restart={restart}: kept {min(figures):.2%} at worst, "
              f"{sum(figures) / len(figures):.2%} on average; without restart {min(plain):.2%}, "
              f"{sum(plain) / len(plain):.2%}")


@pytest.mark.parametrize("name", ["en.txt", "zh.txt", "code.py"])
def test_lines_keep_ids_in_text_without_blank_lines(name, capsys):
    """A text without blank lines is one paragraph: restarts at paragraphs are no restarts there, at lines are."""
    text = re.sub(r"\n\s*\n", "\n", corpus(name, True)[:1_000_000])
    lines = [kept / outside for _, outside, kept in kept_share(FixedChunker(512, restart="line"), name, text)]
    assert min(lines) >= 0.99, lines
    paragraphs = [kept / outside for _, outside, kept in kept_share(FixedChunker(512, restart="paragraph"), name, text)]
    assert min(paragraphs) < min(lines)
    with capsys.disabled():
        print(f"\n{name} without blank lines: restart='line' kept {min(lines):.2%} at worst, 'paragraph' "
              f"{min(paragraphs):.2%}")


def test_the_diff_lists_the_changed_windows():
    text = corpus("en.txt", False)
    chunker = FixedChunker(400, 40, snap=40, restart="paragraph")
    meta = {"doc_id": "en.txt"}
    old = chunker.chunk(text, meta)
    for kind, (a, b), edited in edits(text, 1):
        d = chunkwise.diff(old, chunker.chunk(edited, meta))
        assert 1 <= len(d.added) <= 12 and len(d.removed) <= 12, (kind, d)
        assert all(c.start <= b + 400 * 12 and c.end >= a - 400 for c in d.removed), kind


# -- what the windows are --------------------------------------------------------------------------------------------

TEXT = "One.\n\nTwo two.\n\nThree three three.\n\nFour."


def test_whole_paragraphs_fill_a_window():
    chunks = FixedChunker(20, restart="paragraph").chunk(TEXT)
    assert [(c.text, c.level) for c in chunks] == [
        ("One.\n\nTwo two.", "paragraph"), ("Three three three.", "paragraph"), ("Four.", "end")
    ]
    # No overlap across a paragraph break; inside a paragraph cut into windows, overlap as without restarts.
    assert FixedChunker(20, 5, restart="paragraph").split(TEXT) == [c.text for c in chunks]
    long = "abcdefghijklmnopqrstuv\n\nok\n\nlast one here"
    assert FixedChunker(10, 2, restart="paragraph").split(long) == [
        "abcdefghij", "ijklmnopqr", "qrstuv\n\nok", "last one h", "here"
    ]


def test_lines_restart_inside_a_long_paragraph():
    text = "a1\na2\n\nb1\nb2\nb3\nb4\nb5\nb6"
    assert FixedChunker(13, restart="line").split(text) == ["a1\na2", "b1\nb2\nb3\nb4", "b5\nb6"]
    assert FixedChunker(13, restart="paragraph").split(text) == ["a1\na2", "b1\nb2\nb3\nb4\nb", "5\nb6"]
    assert [c.level for c in FixedChunker(13, restart="line").chunk(text)] == ["paragraph", "line", "end"]


def test_an_edit_near_the_start_moves_no_later_window():
    text = corpus("en.txt", False)
    p = text.index(". ", 500) + 2
    edited = text[:p] + "A sentence inserted near the start. " + text[p:]
    for chunker in (FixedChunker(300, restart="paragraph"), FixedChunker(300, 30, snap=30, restart="line")):
        chunks = chunker.chunk(text)
        k = next(i for i, c in enumerate(chunks) if c.end > p)  # the window of the edit
        assert k < 10
        before, after = [c.text for c in chunks], chunker.split(edited)
        # From the third window after it on, every window is there again, as it was.
        assert before[k + 3 :] == after[-len(before[k + 3 :]) :], chunker


# -- invariants ------------------------------------------------------------------------------------------------------


def _tokenizer():
    return Tokenizer.tiktoken("cl100k_base")


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("restart", RESTARTS)
@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize("size, overlap, snap", [(64, 0, 0), (256, 32, 40), (512, 0, 100)])
def test_invariants(name, restart, unit, size, overlap, snap):
    text = corpus(name, False)
    tok = _tokenizer() if unit == "tokens" else None
    chunker = FixedChunker(size, overlap, snap=snap, restart=restart, tokenizer=tok)
    chunks = chunker.chunk(text)
    assert chunks and chunks[-1].level == "end"
    prev = None
    for c in chunks:
        assert text[c.start : c.end] == c.text and c.text == c.text.strip()
        measured = tok.count(c.text) if tok else len(c.text)
        assert measured <= size and c.token_count == (measured if tok else None)
        assert c.level in {"paragraph", "line", "sentence", "word", "grapheme", "end"}
        if restart == "paragraph":
            assert c.level != "line"
        if prev is not None:
            assert c.start > prev.start and c.end > prev.end
            shared = text[c.start : prev.end] if c.start < prev.end else ""
            if prev.level in {"paragraph", "line"}:
                # A restart: the next window starts after the break, with no overlap.
                assert not shared and not text[prev.end : c.start].strip()
            elif shared:
                assert (tok.count(shared.strip()) if tok else len(shared)) <= overlap
        prev = c
    # Nothing but whitespace is left out.
    covered = 0
    for c in chunks:
        assert not text[covered : c.start].strip()
        covered = max(covered, c.end)
    assert not text[covered:].strip()
    assert chunker.split(text) == [c.text for c in chunks]
    assert chunker.spans(text).tolist() == [[c.start, c.end] for c in chunks]


@pytest.mark.parametrize("restart", RESTARTS)
def test_untrimmed_windows_join_into_the_text(restart):
    text = corpus("mixed.md", False)
    assert "".join(FixedChunker(200, restart=restart, trim=False).split(text)) == text


def test_no_restart_is_the_plain_fixed_chunker():
    text = corpus("ja.txt", False)
    for kw in ({}, {"overlap": 20, "snap": 30}):
        assert FixedChunker(128, restart=None, **kw).chunk(text) == FixedChunker(128, **kw).chunk(text)


@pytest.mark.parametrize("restart", RESTARTS)
def test_a_stream_and_a_batch_give_the_same_chunks(restart):
    text = corpus("zh.txt", False)
    meta = {"doc_id": "zh"}
    chunker = FixedChunker(100, 10, snap=20, restart=restart)
    whole = chunker.chunk(text, meta)
    assert list(chunker.iter_chunks((text[i : i + 777] for i in range(0, len(text), 777)), meta)) == whole
    assert chunker.chunk_batch([text, text[:5000]], [meta, meta])[0] == whole


# -- the argument ----------------------------------------------------------------------------------------------------


def test_the_option_is_kept_by_config_repr_and_pickling():
    chunker = FixedChunker(100, 10, snap=20, restart="line")
    assert chunker.config["restart"] == "line"
    assert "restart='line'" in repr(chunker)
    assert chunker._splitter.config()["restart"] == "line"
    assert 'restart="line"' in repr(chunker._splitter)
    clone = pickle.loads(pickle.dumps(chunker))
    assert clone == chunker and clone.config == chunker.config and hash(clone) == hash(chunker)
    assert clone.split(TEXT * 5) == chunker.split(TEXT * 5)
    splitter = pickle.loads(pickle.dumps(chunker._splitter))
    assert splitter.config() == chunker._splitter.config()
    assert FixedChunker(100)._splitter.config()["restart"] is None
    assert "restart" not in repr(FixedChunker(100)._splitter)
    assert FixedChunker(100, restart="line") != FixedChunker(100, restart="paragraph")


def test_bad_restart_values_name_the_argument():
    with pytest.raises(ChunkingError, match=r"""^restart must be 'paragraph', 'line' or None, got "lines"$"""):
        FixedChunker(100, restart="lines")
    for bad, kind in ((1, "int"), (True, "bool"), (["line"], "list"), (b"line", "bytes")):
        with pytest.raises(TypeError, match=rf"^restart must be 'paragraph', 'line' or None, got {kind}$"):
            FixedChunker(100, restart=bad)  # type: ignore[arg-type]
    with pytest.raises(ChunkingError, match=r"^restart is only used by the fixed strategy$"):
        chunkwise._core.Splitter("recursive", 100, restart="line")
    with pytest.raises(TypeError):
        chunkwise.RecursiveChunker(100, restart="line")  # type: ignore[call-arg]
