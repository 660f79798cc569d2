"""The texts the property tests draw: ASCII, Han, kana, Hangul, Thai, Lao, Khmer, Myanmar, emoji ZWJ sequences,
combining marks, CRLF, CJK punctuation, the sentence terminators of other scripts and structure lines, joined from fragments so that grapheme clusters appear whole.
"""

from __future__ import annotations

import pytest
from hypothesis import strategies as st


regex = pytest.importorskip("regex", reason="grapheme segmentation needs the `regex` package")


ASCII = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") + [
    "the", "quick", "brown", "fox", "Dr.", "e.g.", "3.14", "U.S.",
]


ASCII_PUNCT = list(".,!?;:'\"()-[]/") + ["...", "…"]


SPACES = [" ", " ", " ", "  ", "\t", "\u3000", "\u00a0"]


BREAKS = ["\n", "\n\n", "\r\n", "\r\n\r\n", "\n\n\n"]


HAN = list("中文字漢語我你他说的了是在有人大国") + ["中文字", "我们的", "北京大学"]


KANA = list("ひらがなカタカナですます") + ["ひら", "カナ", "日本語", "東京都"]


HANGUL = list("한국어가나다") + ["한국어", "안녕하세요"]


CJK_PUNCT = list("。！？，、」「『』（）：；") + ["。」", "！」", "\n\n"]


# Scripts whose words a dictionary finds (runs of them, whole words and not), with their stops; other terminators.
SPACELESS = [
    "ทุกสอง", "สัปดาห์", "ไปตลาด", "ก", "ປະເທດ", "ລາວ", "កញ្ចប់", "និម្មិត", "។", "៕", "မင်္ဂလာပါ", "။", "၊", "\u200b",
]
TERMINATORS = ["।", "॥", "؟", "۔", "։", "።", "፧", "‽", "𑁇"]


EMOJI = ["👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "👍🏽", "🇯🇵", "😀", "❤\ufe0f"]


COMBINING = ["e\u0301", "a\u0308\u0323", "\u0915\u094d\u0937", "ก\u0e34"]  # é, ạ̈, Devanagari conjunct, Thai


# Structure for the Markdown and clause chunkers (plain text to the others): headings, fences, tables, lists, breaks,
# numbered provisions, each at the start of a line.
STRUCTURE = [
    "\n# ", "\n## ", "\n### ", "\n===\n", "\n---\n", "\n```py\n", "\n```\n", "\n~~~\n", "\n    ",
    "\n| a | b |\n|---|:-:|\n", "\n| 1 | `x|y` |", "\n- ", "\n  - ", "\n1. ", "\n> ",
    "\n第一章 ", "\n第二条 ", "\n（一）", "\nArticle 2. ", "\n(a) ", "\n1.1 ", "\n§ 3 ",
]


FRAGMENTS = (
    ASCII + ASCII_PUNCT + SPACES + BREAKS + HAN + KANA + HANGUL + SPACELESS + TERMINATORS + CJK_PUNCT + EMOJI
    + COMBINING + STRUCTURE
)


fragment = st.sampled_from(FRAGMENTS)


# Runs of one kind make long words / long CJK runs / long whitespace runs more likely than uniform sampling does.
short_run = st.one_of(
    fragment,
    st.builds(lambda f, n: f * n, st.sampled_from(ASCII + HAN + KANA + SPACES + BREAKS + EMOJI), st.integers(2, 40)),
)


long_whitespace = st.builds(
    lambda f, n: f * n, st.sampled_from([" ", "\n", "\t", "\r\n", " \n", "\u00a0", "\u3000"]), st.integers(50, 700)
)


texts = st.lists(st.one_of(short_run, long_whitespace), max_size=120).map("".join)


def graphemes(text: str) -> list:
    return regex.findall(r"\X", text)
