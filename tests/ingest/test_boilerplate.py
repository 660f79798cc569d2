"""chunkwise.ingest.boilerplate: which lines are boilerplate (shared by most documents of a tree, or at the edges of
most pages of one document), and which chunks are made of nothing else."""

from __future__ import annotations

import pickle

from chunkwise.ingest.boilerplate import (DOC_EDGE, LineCounts, boilerplate_runs, edge_keys, is_boilerplate, line_keys,
                                          page_furniture)

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


def test_edge_keys_read_only_the_ends_and_find_what_the_whole_text_holds(monkeypatch) -> None:
    """edge_keys reads a window at each end, cut at a line break and grown until it holds DOC_EDGE lines: the same
    keys as the first and last DOC_EDGE of the whole text's, whatever the line breaks and the window."""
    import random

    from chunkwise import _core
    from chunkwise.ingest import boilerplate

    def whole(text: str) -> frozenset:
        keys = _core.line_keys(text)
        return frozenset(keys[:DOC_EDGE] + keys[-DOC_EDGE:] if len(keys) > 2 * DOC_EDGE else keys)

    rng = random.Random(35)
    parts = ["a", "Z", "7", " ", "é", "字", "-", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\n\n"]
    texts = ["", "one line", FOOTER * 50]
    for _ in range(300):
        texts.append("".join(rng.choice(parts) for _ in range(rng.randint(0, 300))))
        texts.append("".join(rng.choice(parts) * rng.randint(1, 500) for _ in range(rng.randint(0, 10))))
    for window in (1, 7, 64, 8192):
        monkeypatch.setattr(boilerplate, "_WINDOW", window)
        for text in texts:
            assert edge_keys(text) == whole(text), (window, text[:60])
