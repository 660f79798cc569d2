"""The Markdown reference of the MarkdownChunker tests (md_oracle.py) on small hand-made documents, so that a wrong
answer there cannot pass for a wrong chunker."""

from __future__ import annotations

import pytest

pytest.importorskip("markdown_it")

from support.md_oracle import (
    blocks,
    front_matter_lines,
    heading_ancestry,
    heading_index_at,
    headings,
    line_of,
    line_starts,
    structures,
    table_header,
)

NESTED = "# A\n\nintro\n\n## B\n\nb text\n\n### C\n\nc text\n\n## D\n\nd text\n"


def titles(text):
    return [[t for _, t in path] for path in heading_ancestry(text)]


def test_lines_and_offsets():
    text = "ab\r\ncd\ref\n\ngh"
    assert line_starts(text) == [0, 4, 7, 10, 11]
    assert [line_of(text, i) for i in range(len(text) + 1)] == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 4, 4, 4]
    # Only CommonMark's line breaks count: \u2028 and \x0c are characters of a line.
    assert line_starts("a\u2028b\x0cc\nd") == [0, 6]
    assert line_starts("x\n") == [0, 2]


@pytest.mark.parametrize(
    "text, expected",
    [
        (NESTED, [["A"]] * 4 + [["A", "B"]] * 4 + [["A", "B", "C"]] * 4 + [["A", "D"]] * 4),
        ("Top\n===\n\nbody\n\nSub\n---\n\nmore", [["Top"]] * 5 + [["Top", "Sub"]] * 4),
        ("### deep first\n\n# top\n\n### deep again", [["deep first"]] * 2 + [["top"]] * 2 + [["top", "deep again"]]),
        ("intro\n\n# H\n", [[], [], ["H"], ["H"]]),
        ("# H #\n\n#NoSpace\n\n##   Spaced ##  ", [["H"], ["H"], ["H"], ["H"], ["H", "Spaced"]]),
    ],
    ids=["atx-nested", "setext", "skipped-level", "preamble", "closing-hashes"],
)
def test_ancestry(text, expected):
    assert titles(text) == expected


def test_levels_come_with_titles():
    assert heading_ancestry(NESTED)[9] == [(1, "A"), (2, "B"), (3, "C")]
    assert heading_ancestry("Top\n===\n\nSub\n---\n")[3] == [(1, "Top"), (2, "Sub")]


@pytest.mark.parametrize(
    "fence",
    [
        "```\n# not a heading\n```",
        "~~~\n# not a heading\n~~~",
        "````md\n```\n# not a heading\n```\n````",
        "    # indented code, not a heading",
    ],
    ids=["backticks", "tildes", "four-backticks", "indented"],
)
def test_hash_lines_inside_code_are_not_headings(fence):
    text = f"# Real\n\n{fence}\n\nafter\n"
    assert [h.title for h in headings(text)] == ["Real"]
    assert all(t == ["Real"] for t in titles(text))
    assert [text[b.start : b.end] for b in blocks(text)] == [fence.strip()]


def test_a_fence_inside_a_longer_fence_does_not_close_it():
    text = "````md\n```\n# not a heading\n```\n````\n\n# Next"
    (code,) = blocks(text)
    assert text[code.start : code.end] == "````md\n```\n# not a heading\n```\n````"
    assert code.fence == "````md" and code.language == "md"
    assert titles(text)[-1] == ["Next"]


@pytest.mark.parametrize(
    "line, title",
    [
        ("# **Bold** and `code`", "Bold and code"),
        ("## [Link text](https://example.com) tail", "Link text tail"),
        ("# ![alt *text*](img.png) x", "alt text x"),
        ("# <span>html</span> kept text", "html kept text"),
        ("# A &amp; B \\* C", "A & B * C"),
        ("# 第三章 环境保护", "第三章 环境保护"),
        ("## 3.2 水生态修复", "3.2 水生态修复"),
        ("# 日本語の見出し「テスト」", "日本語の見出し「テスト」"),
        ("#   padded   ", "padded"),
    ],
)
def test_plain_titles(line, title):
    (h,) = headings(line + "\n\nbody")
    assert h.title == title


def test_setext_title_over_two_lines_joins_with_a_space():
    (h,) = headings("first line\nsecond *line*\n===\n")
    assert (h.level, h.title, h.line) == (1, "first line second line", 0)
    assert titles("first line\nsecond *line*\n===\n")[:3] == [["first line second line"]] * 3


def test_cjk_ancestry():
    text = "# 第三章 环境保护\n\n概述。\n\n## 3.2 水生态修复\n\n第一段。\n\n第二段。\n"
    assert titles(text)[-2] == ["第三章 环境保护", "3.2 水生态修复"]
    assert heading_ancestry(text)[4] == [(1, "第三章 环境保护"), (2, "3.2 水生态修复")]


def test_headings_inside_quotes_and_lists_are_not_sections():
    text = "# Top\n\n> # quoted\n\n- # in a list\n\nend"
    assert [h.title for h in headings(text)] == ["Top"]
    assert all(t == ["Top"] for t in titles(text))


@pytest.mark.parametrize(
    "text, lines",
    [
        ("---\ntitle: Doc\ntags: [a]\n---\n\n# Intro\n", 4),
        ("---\ntitle: Doc\n...\n\nText\n", 3),
        ("---  \ntitle: Doc\n---\t\nText\n", 3),
        ("---\n\ntitle: Doc\n---\n", 0),  # a blank line after the opener: a thematic break
        ("---\n---\n", 0),  # nothing inside
        ("---\ntitle: never closed\n", 0),
        ("Text\n---\ntitle: x\n---\n", 0),  # not at the start
        ("----\ntitle: x\n----\n", 0),  # four dashes
    ],
)
def test_front_matter_detection(text, lines):
    assert front_matter_lines(text) == lines


def test_front_matter_is_not_a_setext_heading():
    text = "---\ntitle: Doc\ntags: [a]\n---\n\n# Intro\n\nBody.\n"
    assert [h.title for h in headings(text)] == ["Intro"]
    assert titles(text) == [[]] * 5 + [["Intro"]] * 4
    assert headings(text)[0].line == 5 and headings(text)[0].start == text.index("# Intro")
    # Without the front-matter rule "tags: [a]" would be a Setext H2: show that the rule is what prevents it.
    assert [h.title for h in headings("x\n\n" + text[4:])] == ["title: Doc tags: [a]", "Intro"]


def test_crlf_line_numbers_and_offsets():
    text = "# One\r\n\r\npara\r\n\r\n## Two\r\n\r\n```py\r\nx = 1\r\n```\r\n"
    assert titles(text) == [["One"]] * 4 + [["One", "Two"]] * 6
    (code,) = blocks(text)
    assert text[code.start : code.end] == "```py\r\nx = 1\r\n```"
    assert code.fence == "```py" and code.language == "py"
    h = headings(text)[1]
    assert text[h.start : h.start + 6] == "## Two"
    assert heading_ancestry("---\r\na: 1\r\n---\r\nT\r\n=\r\n")[3] == [(1, "T")]


def test_structures_offsets():
    text = (
        "Intro.\n\n"
        "```python\nprint(1)\n```\n\n"
        "| a | b |\n|:--|--:|\n| `x\\|y` | c \\| d |\n| 1 | 2 |\n\n"
        "- one\n  - nested\n\n  ```sh\n  make\n  ```\n- two\n\n\n"
        "Not in the list.\n\n"
        "    indented\n    code\n\n"
        "> - quoted list\n"
    )
    got = [(k, text[s:e]) for k, s, e in structures(text)]
    assert got == [
        ("code", "```python\nprint(1)\n```"),
        ("table", "| a | b |\n|:--|--:|\n| `x\\|y` | c \\| d |\n| 1 | 2 |"),
        ("list", "- one\n  - nested\n\n  ```sh\n  make\n  ```\n- two"),
        ("code", "```sh\n  make\n  ```"),
        ("code", "indented\n    code"),
    ]
    table = [b for b in blocks(text) if b.kind == "table"][0]
    assert table_header(text, table) == ("| a | b |", "|:--|--:|")
    assert [text[s:e] for s, e in table.rows] == ["| `x\\|y` | c \\| d |", "| 1 | 2 |"]
    langs = [(b.fence, b.language) for b in blocks(text) if b.kind == "code"]
    assert langs == [("```python", "python"), ("```sh", "sh"), (None, None)]


def test_fence_info_first_word_and_no_info():
    text = "``` console extra words\n$ ls\n```\n\n~~~\nplain\n~~~\n"
    assert [(b.fence, b.language) for b in blocks(text)] == [("``` console extra words", "console"), ("~~~", None)]


def test_unclosed_fence_runs_to_the_end_without_trailing_blank_lines():
    text = "para\n\n```js\nlet a;\n\n\n"
    (code,) = blocks(text)
    assert text[code.start : code.end] == "```js\nlet a;"


def test_block_ends_leave_out_surrounding_spaces():
    text = "   - item one  \n   - item two   \n\nafter"
    (lst,) = blocks(text)
    assert text[lst.start : lst.end] == "- item one  \n   - item two"


def test_heading_index_at():
    hs = headings(NESTED)
    assert heading_index_at(NESTED, 0) == 0 and heading_index_at(NESTED, 3) == 0
    assert hs[heading_index_at(NESTED, 10)].title == "C" and hs[heading_index_at(NESTED, 10)].parent == 1
    assert heading_index_at("text\n\n# H", 0) is None
    assert [h.parent for h in hs] == [None, 0, 1, 0]


def test_heading_spans():
    text = "  ## Indented ##  \n\nSetext title  \n---\n\nbody"
    atx, setext = headings(text)
    assert text[atx.start : atx.end] == "## Indented ##"
    assert text[setext.start : setext.end] == "Setext title  \n---"
    assert (setext.line, setext.level, setext.path) == (2, 2, ((2, "Setext title"),))  # a sibling of the first


def test_quotes_and_html_are_blocks_but_not_structures():
    text = "> quoted\n> more\n\n<div>\nraw\n</div>\n\n- item\n"
    assert [(b.kind, text[b.start : b.end]) for b in blocks(text)] == [
        ("quote", "> quoted\n> more"),
        ("html", "<div>\nraw\n</div>"),
        ("list", "- item"),
    ]
    assert [k for k, _, _ in structures(text)] == ["list"]
