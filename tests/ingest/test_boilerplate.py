"""chunkwise.ingest.boilerplate: which lines are boilerplate (shared by most documents of a tree, or at the edges of
most pages of one document), and which chunks are made of nothing else."""

from __future__ import annotations

import pickle

import pytest

from chunkwise import ChunkingError, _core
from chunkwise.ingest.boilerplate import (DOC_EDGE, EDGE, LineCounts, boilerplate_runs, edge_keys, is_boilerplate,
                                          line_keys, page_furniture)

FOOTER = "© 2026 Example Corp. All rights reserved.\nPrivacy | Terms | Contact"


def test_lines_are_compared_normalized() -> None:
    assert line_keys("Page 3 of 12") == line_keys("  page 47   OF 9 ")
    assert line_keys("Page 3 of 12") != line_keys("Page of")
    assert line_keys("---\n\n* * *\n") == frozenset()  # nothing carried: never a line of its own
    assert line_keys("a\nb\na") == line_keys("b\na")


def test_a_line_in_half_the_documents_and_three_at_least_is_common() -> None:
    counts = LineCounts()
    for i in range(6):
        counts.add(line_keys(f"Page {'x' * i} has a text of its own.\n{FOOTER if i < 3 else 'no footer'}"))
    common = counts.common()
    assert line_keys(FOOTER) <= common  # 3 of 6: half, and 3
    assert line_keys("no footer") <= common  # the other half: half is enough
    assert not (line_keys("Page xx has a text of its own.") & common)
    two = LineCounts()
    for _ in range(2):
        two.add(line_keys(FOOTER))
    assert two.common() == frozenset()  # two documents alike are not a tree's boilerplate


def test_normalized_digits_make_numbered_lines_one() -> None:
    counts = LineCounts()
    for i in range(4):
        counts.add(line_keys(f"Release {i}.{i + 1}\nA text of its own {'x' * i}"))
    assert line_keys("Release 9.10") <= counts.common()
    assert not (line_keys("A text of its own xx") & counts.common())


def test_a_chunk_is_boilerplate_only_if_every_line_is() -> None:
    common = line_keys(FOOTER)
    assert is_boilerplate(FOOTER, common)
    assert is_boilerplate("\n\n" + FOOTER.upper() + "\n---\n", common)
    assert not is_boilerplate(FOOTER + "\nA paragraph of real content.", common)
    assert not is_boilerplate("", common) and not is_boilerplate("---", common)
    assert not is_boilerplate(FOOTER, frozenset())


def test_running_heads_and_page_numbers_of_a_paged_document() -> None:
    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    pages = [f"ACME Annual Report 2025\nChapter {i}\n" + "\n".join(f"{w} {words[i]} line" for w in words)
             + f"\n\nPage {i + 1}" for i in range(5)]
    furniture = page_furniture(pages)
    assert line_keys("ACME Annual Report 2025") <= furniture and line_keys("Page 9") <= furniture
    assert line_keys("Chapter 7") <= furniture  # the second line at the top of every page
    # The body's last line is at an edge, but each page's differs; its middle lines are not at an edge.
    assert not (line_keys(pages[0].split("\n", 2)[2].rsplit("\n", 2)[0]) & furniture)
    assert page_furniture(pages[:2]) == frozenset()  # two pages are too few to tell
    assert is_boilerplate("Page 4\n\nACME Annual Report 2025", furniture)


def test_only_a_documents_head_and_foot_count() -> None:
    """Translations of one text share their code samples, in their middle: content, not boilerplate."""
    body = [f"line {chr(97 + i % 26)}{chr(97 + i // 26)} of the body" for i in range(3 * DOC_EDGE)]
    text = "\n".join(["Site name", *body, "Footer line"])
    keys = edge_keys(text)
    assert line_keys("Site name\nFooter line") <= keys
    assert line_keys(body[DOC_EDGE - 2]) <= keys and line_keys(body[-DOC_EDGE + 1]) <= keys
    assert not (line_keys(body[DOC_EDGE]) & keys) and not (line_keys(body[-DOC_EDGE - 2]) & keys)
    assert edge_keys("a\nb") == line_keys("a\nb")  # a short document is all head and foot
    counts = LineCounts()
    for _ in range(4):
        counts.add(edge_keys(text))
    assert line_keys("Footer line") <= counts.common() and not (line_keys(body[DOC_EDGE + 5]) & counts.common())


def test_the_counts_pickle() -> None:
    counts = LineCounts()
    counts.add(line_keys(FOOTER))
    again = pickle.loads(pickle.dumps(counts))
    assert again.documents == 1 and again.counts == counts.counts


def test_the_runs_of_boilerplate_lines_where_they_were_counted() -> None:
    common = line_keys(FOOTER + "\nHome | Docs")
    body = "\n".join(f"line {chr(97 + i % 26)}{chr(97 + i // 26)} of the body" for i in range(3 * DOC_EDGE))
    text = f"Home | Docs\r\n\n{body}\nHome | Docs\n{body}\n\n{FOOTER.replace(chr(10), chr(10) + '---' + chr(10))}\n\n"
    runs = boilerplate_runs(text, common)
    # The head, and the footer whole (a line of symbols between its lines); not the same line in the middle.
    assert [text[a:b] for a, b in runs] == ["Home | Docs", FOOTER.replace("\n", "\n---\n")]
    assert boilerplate_runs(text, frozenset()) == [] and boilerplate_runs("", common) == []
    pages = [f"ACME Report\nbody {w}\nPage {i}" for i, w in enumerate("abcd")]
    paged = "\f".join(pages)
    runs = boilerplate_runs(paged, frozenset(), page_furniture(pages), paged=True)
    assert [paged[a:b] for a, b in runs] == ["ACME Report"] + [f"Page {i}\fACME Report" for i in range(3)] + ["Page 3"]
    assert boilerplate_runs(paged, frozenset(), page_furniture(pages)) == []  # not read as paged: no page edges


#: Texts whose lines are hard to read alike: every line break str.splitlines knows (CRLF, a lone CR, U+2028, form
#: feeds...), characters next to them that are not breaks, no last line break, empty texts and lines, and characters
#: beyond ASCII before the lines, so that offsets in characters and in bytes differ.
TRICKY = ["", "\n", "\r\n", "a", "a\n", "a\r\n\r\nb\rc\r", "\r\r\nx\n\ry", "\n\n\nPage 1\n\n",
          "é日本\u2028Page 1\u2029x\fy\x0b\x1cz\x85w\x1dv\x1eu", "éé\u2027x\x84y\n" * 30,
          "Kopf\fPage 1\f\fPage 2\f", "日本語のページ\r\n" * 50 + "fin", "🙂 a\n---\n" * 45 + "b"]


def _texts() -> list:
    import random

    rng = random.Random(35)
    parts = ["a", "Z", "7", " ", "é", "字", "🙂", "-", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028",
             "\u2029", "\u2027", "\n\n"]
    texts = TRICKY + [FOOTER * 50]
    for _ in range(150):
        texts.append("".join(rng.choice(parts) for _ in range(rng.randint(0, 300))))
        texts.append("".join(rng.choice(parts) * rng.randint(1, 100) for _ in range(rng.randint(0, 10))))
    return texts


def _body(line: str) -> int:
    """The length of a line of ``str.splitlines(keepends=True)`` without its line break."""
    breaks = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    return len(line) - (2 if line.endswith("\r\n") else 1 if line[-1:] in breaks else 0)


def _splitlines_edge_lines(text: str, edge: int, page_edge: int) -> tuple:
    """``_core.edge_lines`` read as the boilerplate pass read lines in Python before: ``str.splitlines``, each line
    keyed alone, every line of the text read."""
    carrying = []  # (start, end, key, page) of each line that carries something
    pos = page = 0
    for line in text.splitlines(keepends=True):
        body = _body(line)
        keys = _core.line_keys(line[:body])
        if keys:
            carrying.append((pos, pos + body, keys[0], page))
        page += line[body:] == "\f"
        pos += len(line)
    listed = []
    for i, (start, end, key, pg) in enumerate(carrying):
        same = [j for j, c in enumerate(carrying) if c[3] == pg]
        rank = same.index(i)
        at_text = i < edge or i >= len(carrying) - edge
        at_page = page_edge > 0 and (rank < page_edge or rank >= len(same) - page_edge)
        if at_text or at_page:
            listed.append((i, (start, end), key, at_text, at_page))
    next_to = [b[0] == a[0] + 1 for a, b in zip(listed, listed[1:])] + [False] * bool(listed)
    return [x[1] for x in listed], [x[2] for x in listed], [x[3] for x in listed], [x[4] for x in listed], next_to


def test_edge_lines_read_the_lines_as_str_splitlines() -> None:
    for text in _texts():
        for edge, page_edge in ((DOC_EDGE, 0), (0, EDGE), (DOC_EDGE, EDGE), (1, 0), (2, 1), (3, 0), (0, 0)):
            assert _core.edge_lines(text, edge, page_edge) == _splitlines_edge_lines(text, edge, page_edge), (
                edge, page_edge, text[:60])


def test_edge_lines_arguments() -> None:
    for bad in (-1, "2", True, 2.0):
        with pytest.raises((TypeError, ChunkingError), match="edge"):
            _core.edge_lines("a", bad, 0)
        with pytest.raises((TypeError, ChunkingError), match="page_edge"):
            _core.edge_lines("a", 1, bad)
    with pytest.raises(TypeError, match="text must be a str"):
        _core.edge_lines(b"a", 1, 0)
    with pytest.raises(ChunkingError, match="text holds a lone surrogate"):
        _core.edge_lines("a\ud800", 1, 0)


def test_edge_keys_read_only_the_ends_and_find_what_the_whole_text_holds() -> None:
    """edge_keys reads lines from each end until DOC_EDGE of them carry something: the same keys as the first and
    last DOC_EDGE of the whole text's, whatever the line breaks."""

    def whole(text: str) -> frozenset:
        keys = _core.line_keys(text)
        return frozenset(keys[:DOC_EDGE] + keys[-DOC_EDGE:] if len(keys) > 2 * DOC_EDGE else keys)

    for text in _texts():
        assert edge_keys(text) == whole(text), text[:60]


def _splitlines_runs(text: str, tree: frozenset, pages: frozenset, paged: bool) -> list:
    """boilerplate_runs as it was read in Python before: every line of ``text`` by ``str.splitlines``."""
    spans, keys, page_ends = [], [], []
    pos = 0
    for line in text.splitlines(keepends=True):
        body = _body(line)
        spans.append((pos, pos + body))
        found_keys = _core.line_keys(line[:body])
        keys.append(found_keys[0] if found_keys else None)
        if line[body:] == "\f":
            page_ends.append(len(spans) - 1)
        pos += len(line)

    def edges(first: int, last: int, n: int) -> list:
        carrying = [i for i in range(first, last + 1) if keys[i] is not None]
        return carrying[:n] + carrying[-n:]

    found = set()
    if tree:
        found.update(i for i in edges(0, len(spans) - 1, DOC_EDGE) if keys[i] in tree)
    if paged and pages:
        first = 0
        for last in [*page_ends, len(spans) - 1]:
            found.update(i for i in edges(first, last, EDGE) if keys[i] in pages)
            first = last + 1
    runs: list = []
    previous = -1
    for i in sorted(found):
        if runs and all(keys[m] is None for m in range(previous + 1, i)):
            runs[-1] = (runs[-1][0], spans[i][1])
        else:
            runs.append(spans[i])
        previous = i
    return runs


def test_boilerplate_runs_are_those_of_the_lines_read_by_str_splitlines() -> None:
    import random

    rng = random.Random(7)
    lines = ["Home | Docs", "Page 1", "Page 22", "é body", "字 body", "other", "---", "", "  "]
    breaks = ["\n", "\r\n", "\r", "\f", "\u2028", "\x85", "\n\n"]
    texts = _texts()
    for _ in range(300):
        texts.append("".join(rng.choice(lines) + rng.choice(breaks) for _ in range(rng.randint(0, 120))))
    for text in texts:
        keys = sorted(set(_core.line_keys(text)))
        for _ in range(3):
            tree = frozenset(k for k in keys if rng.random() < 0.5)
            pages = frozenset(k for k in keys if rng.random() < 0.5)
            for paged in (False, True):
                assert boilerplate_runs(text, tree, pages, paged) == _splitlines_runs(text, tree, pages, paged), (
                    paged, text[:80])
