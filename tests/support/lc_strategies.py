"""Hypothesis strategies for the LangChain differential tests (``test_langchain_compat.py``).

Texts are joined from sampled fragments so that the cases LangChain's splitters care about come up often: separators
next to each other, repeated substrings (a small per-example vocabulary), Python-only whitespace (U+001C..U+001F),
CRLF, CJK punctuation, emoji, code and markdown keywords, and now and then a lone surrogate.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from hypothesis import strategies as st

# -- text fragments --------------------------------------------------------------------------------------------------

ASCII = ["a", "b", "ab", "abc", "x", "the", "quick", "brown", "fox", "chunk", "Dr.", "e.g.", "3.14", "42", "Hello"]
PUNCT = list(".,!?;:()[]{}*|$#`-_=<>/\\'\"") + [". ", "...", "$$", "\\n", "\\s", "…"]
SPACES = [" ", " ", "  ", "\t", "   "]
BREAKS = ["\n", "\n", "\n\n", "\r\n", "\r\n\r\n", "\r", "\n\n\n", " \n", "\n "]
# Whitespace for str.strip()/str.split() but not for Rust's char::is_whitespace (U+001C..U+001F), and friends.
ODD_SPACES = ["\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u2028", "\u2029", "\u3000", "\x0b", "\x0c", "\u1680",
              "\u202f", "\u200b", "\ufeff", "\x00"]
CJK = list("中文字我你的了是") + ["中文字", "東京都", "ひらがな", "カタカナ", "한국어", "機械学習"]
CJK_PUNCT = list("。！？，、「」（）：；") + ["。」", "\u3000", "\u3000\u3000"]
MIXED = ["Ελληνικά", "Русский", "עברית", "العربية", "हिन्दी", "e\u0301", "ก\u0e34", "Straße", "ﬁ", "İ"]
EMOJI = ["😀", "👨\u200d👩\u200d👧", "🇯🇵", "👍🏽", "❤\ufe0f", "𝔘"]
SURROGATES = ["\ud800", "\udfff"]  # lone surrogates: legal in Python str, not UTF-8 encodable
CODE = [
    "\nclass ", "\ndef ", "\n\tdef ", "class ", "def ", "    return 1", "\n    ", "():", "{\n", "\n}", "\nfunction ",
    "\nconst ", "\nlet ", "\nvar ", "\nif ", "\nfor ", "\nwhile ", "\nfn ", "\nimpl ", "<div>", "<p>", "</p>",
    "<br/>", "<body", "\\section{", "\\begin{itemize}", "\nPublic Sub ", "\nEnd Sub", "\nIf ", "\nEnd If",
]
MARKDOWN = [
    "# ", "## ", "\n# Title\n", "\n## Section\n", "\n### Sub\n", "\n####### Seven\n", "#NoSpace", "```", "```\n",
    "```python\n", "~~~\n", "\n---\n", "\n***\n", "\n___\n", "**Bold**", "- item\n", "> quote\n",
]
SPECIAL_TOKENS = ["<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>"]

FRAGMENTS: List[str] = (
    ASCII + PUNCT + SPACES + BREAKS + ODD_SPACES + CJK + CJK_PUNCT + MIXED + EMOJI + SURROGATES + CODE + MARKDOWN
)
NO_SURROGATE_FRAGMENTS: List[str] = [f for f in FRAGMENTS if f not in SURROGATES]


def _run(pool: List[str]) -> st.SearchStrategy[str]:
    """One fragment repeated: long words, long whitespace runs, ``chunk chunk chunk``."""
    return st.builds(lambda f, n: f * n, st.sampled_from(pool), st.integers(2, 12))


def texts(
    extra: Optional[List[str]] = None, *, surrogates: bool = True, max_fragments: int = 20
) -> st.SearchStrategy[str]:
    """Texts of up to ``max_fragments`` fragments; ``extra`` fragments (e.g. a language's keywords) are favoured.

    Half the texts come from a small per-example vocabulary, so repeats (and so wrong ``start_index`` guesses) are
    common; a few are arbitrary ``st.text()``. (Strategies are built once here: building them inside a draw costs
    more than the splitting being tested.)
    """
    pool = FRAGMENTS if surrogates else NO_SURROGATE_FRAGMENTS
    pools = [st.sampled_from(pool), _run(pool)]
    if extra:
        pools.insert(0, st.sampled_from(extra))
    fragment = st.one_of(*pools)
    count = st.integers(0, max_fragments)
    vocabulary = st.lists(fragment, min_size=1, max_size=5)
    pick = st.integers(0, 4)

    # A drawn length, not st.lists' own (whose average is a handful of elements): most texts need several chunks.
    @st.composite
    def general(draw: st.DrawFn) -> str:
        return "".join(draw(fragment) for _ in range(draw(count)))

    @st.composite
    def repetitive(draw: st.DrawFn) -> str:
        vocab = draw(vocabulary)
        return "".join(vocab[draw(pick) % len(vocab)] for _ in range(draw(count)))

    return st.one_of(general(), repetitive(), st.text(max_size=30))


def markdown_texts() -> st.SearchStrategy[str]:
    """Markdown documents as lines: headers of every level, fences, custom ``**bold**`` headers, blank lines."""
    line = st.one_of(
        st.sampled_from(
            [
                "# Title", "## Section", "### Sub", "#### Deep", "##### Five", "###### Six", "####### Seven",
                "#NoSpace", "#", "##", "  # Indented", "# Title  ", "#\tTab", "# Title", "## Section",
                "**Bold**", "***Bolder***", "** **", "**a**b**", "****", "*Italic*",
                "```", "```python", "``` inline ``` code", "~~~", "~~~~", "    code()", "\tcode", "    return 1",
                "text", "more text", "text", "", "", "   ", "中文。还有，标点！", "\u3000# 全角", "\x07bell\x00",
                "a\u200bb", "\x1c", "emoji 😀 👨\u200d👩\u200d👧", "\ud800", "- item", "---", "***", "> quote",
            ]
        ),
        st.text(max_size=12),
    )
    eol = st.sampled_from(["\n", "\n", "\n", "\r\n", "\n\n"])
    return st.lists(st.tuples(line, eol), max_size=30).map(lambda ls: "".join(a + b for a, b in ls))


# -- separators ------------------------------------------------------------------------------------------------------

LITERAL_SEPARATORS = [
    "\n\n", "\n", " ", "", ".", ". ", "。", "，", "、", "\r\n", "\u3000", "\xa0", "\x1c", "chunk", "ab", "zzz-never",
    "\\n", "#", "```", "\nclass ", "\ndef ", "|", "(", "*", "😀", "\ud800", "a", "\t", "  ",
]
REGEX_SEPARATORS = [
    r"\n\n", r"\n", r"\s+", r"\s", r" +", r"[。！？]", r"(?<=[。！？])", r"(?<=\. )", r"(?=\n)", r"(?=#)",
    r"(?<!\d)\.", r"\n(?!#)", r"\n#{1,6} ", r"x{100}", r"(?!)", r"\b", r"(?:ab)+", r"[\u3000\xa0]", r"\d+", r"$",
    r"^", r"(?=a)", r"(?<=a)", r"\x1c", r"(?=\n\n)", r"(?<=\n)", r"(?<!\n)\n", r".", r"\$\$",
    # Rare but legal user input: capture groups (LangChain's pairing of re.split parts breaks), an inline global flag
    # (an error once LangChain wraps the pattern in a group), invalid patterns, an empty alternative.
    r"(\.)", r"(a)|b", r"(?P<dot>\.)", r"(?i)CHUNK", r"(", r"*", r"[", r"a|", r"|",
]
LOOKAROUND_SEPARATORS = [r"(?=\n)", r"(?<=\. )", r"(?<=[。！？])", r"(?!a)", r"(?<!\s)\s", r"(?=#)", r"(?<=\n)"]
ALL_SEPARATORS = LITERAL_SEPARATORS + REGEX_SEPARATORS

# A text each regex separator matches ("" where none is useful), so that drawn separators can be made to occur.
_REGEX_EXAMPLES = {
    r"\s+": " \t", r"\s": " ", r" +": "  ", r"[。！？]": "！", r"(?<=[。！？])": "。", r"(?<=\. )": ". ", r"(?=\n)": "\n",
    r"(?=#)": "#", r"(?<!\d)\.": "a.", r"\n(?!#)": "\nx", r"\n#{1,6} ": "\n## ", r"x{100}": "", r"(?!)": "",
    r"\b": "", r"(?:ab)+": "abab", r"[\u3000\xa0]": "\u3000", r"\d+": "42", r"$": "", r"^": "", r"(?=a)": "a",
    r"(?<=a)": "a", r"\x1c": "\x1c", r"(?=\n\n)": "\n\n", r"(?<=\n)": "\n", r"(?<!\n)\n": "x\n", r".": "",
    r"\$\$": "$$", r"(\.)": ".", r"(a)|b": "ab", r"(?P<dot>\.)": ".", r"(?i)CHUNK": "chunk", r"(?!a)": "",
    r"(?<!\s)\s": "x ", r"\n\n": "\n\n", r"\n": "\n", r"a|": "a",
}


def separator_example(separator: str, regex: bool) -> str:
    """A text that ``separator`` matches (itself when it is taken literally)."""
    return _REGEX_EXAMPLES.get(separator, separator) if regex else separator


injections = st.lists(st.integers(0, 10_000), max_size=8)


def inject(text: str, pieces: List[str], positions: List[int]) -> str:
    """Insert ``pieces`` in turn at ``positions`` (taken modulo the length), so that separators actually occur."""
    for k, pos in enumerate(positions):
        if pieces:
            at = pos % (len(text) + 1)
            text = text[:at] + pieces[k % len(pieces)] + text[at:]
    return text


separator = st.sampled_from(ALL_SEPARATORS)
separator_lists: st.SearchStrategy[Optional[List[str]]] = st.one_of(
    st.none(),
    st.just([]),
    st.just(["\n\n", "\n", " ", ""]),
    st.lists(separator, min_size=1, max_size=6),
)
keep_separator = st.sampled_from([True, False, "start", "end"])

# -- sizes -----------------------------------------------------------------------------------------------------------


def sizes(small: int = 60, large: int = 5000) -> st.SearchStrategy[Tuple[int, int]]:
    """(chunk_size, chunk_overlap): mostly valid, biased small; about one in twenty-five is invalid on purpose."""
    invalid = st.sampled_from([(0, 0), (-1, 0), (5, -1), (3, 4), (1, 2)])
    tiny, short = st.integers(1, max(1, small // 4)), st.integers(1, small)
    size = st.one_of(tiny, short, short, st.integers(1, large))
    overlap_kind = st.sampled_from(["zero", "small", "any"])
    raw = st.integers(0, large)

    @st.composite
    def draw_sizes(draw: st.DrawFn) -> Tuple[int, int]:
        if draw(st.integers(0, 24)) == 24:
            return draw(invalid)
        n = draw(size)
        kind = draw(overlap_kind)
        if kind == "zero":
            return n, 0
        return n, draw(raw) % ((min(n, 8) if kind == "small" else n) + 1)

    return draw_sizes()


# -- length functions (named, so that hypothesis prints something readable) -----------------------------------------


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def word_count(text: str) -> int:
    """Zero for whitespace, so pieces can be free: the merge loop's corner cases."""
    return len(text.split())


def double_len(text: str) -> int:
    return 2 * len(text)


length_functions = st.sampled_from([None, None, utf8_len, word_count, double_len])

# -- metadata --------------------------------------------------------------------------------------------------------

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(st.text(max_size=3), inner, max_size=2)),
    max_leaves=3,
)
metadata = st.dictionaries(st.sampled_from(["source", "page", "start_index", "nested", "k", "中"]), _values, max_size=3)


def metadata_lists(n: int, *, reserved: Tuple[str, ...] = ()) -> st.SearchStrategy[Optional[List[Dict[str, Any]]]]:
    """None, ``[]`` (falsy, so LangChain treats it as None) or one dict per text; ``reserved`` keys are left out."""
    md = metadata.map(lambda d: {k: v for k, v in d.items() if k not in reserved})
    return st.one_of(st.none(), st.just([]), st.lists(md, min_size=n, max_size=n))


# -- language keywords -----------------------------------------------------------------------------------------------

# Texts that match LangChain's *regex* language separators (literal ones are found by matching them against themselves).
REGEX_SEPARATOR_EXAMPLES: Dict[str, List[str]] = {
    "markdown": ["\n# ", "\n## ", "\n###### ", "\n####### ", "```\n", "\n***\n", "\n*****\n", "\n---\n",
                 "\n-----\n", "\n___\n"],
    "latex": ["\n\\chapter{", "\n\\section{", "\n\\subsection{", "\n\\subsubsection{", "\n\\begin{enumerate}",
              "\n\\begin{itemize}", "\n\\begin{description}", "\n\\begin{list}", "\n\\begin{quote}",
              "\n\\begin{quotation}", "\n\\begin{verse}", "\n\\begin{verbatim}", "\n\\begin{align}", "$$", "$",
              "\\end{itemize}", "x^2"],
    "r": ["\nsetClass(", "\nsetMethod(", "\nsetGeneric(", "\nlibrary(", "\nrequire("],
    "rst": ["\n===\n", "\n---\n", "\n***\n", "\n\n..  \n\n", "\n\n.. \n\n", "\n\n.. note::\n\n"],
    "haskell": ["\n| ", "\n= {", "\n, "],
    "visualbasic6": ["\nSub ", "\nPublic Sub ", "\nPrivate  Function ", "\nEnd Sub", "\nEnd Function\n",
                     "\nProperty Get ", "\nFriend Property Let ", "\nIf ", "\nEnd If", "\nElseIf ", "\nElse ",
                     "\nSelect Case ", "\nCase ", "\nFor ", "\nDo ", "\nWhile ", "\nWith ", "\nType ", "\nEnum ",
                     "\nGlobal Enum ", "\nStatic\tSub "],
}


def language_fragments(value: str, separators: List[str]) -> List[str]:
    """Fragments that hit the separators of one language: each literal separator, plus hand-written regex matches."""
    literal = [s for s in separators if s and re.fullmatch(s, s)]
    return literal + REGEX_SEPARATOR_EXAMPLES.get(value, []) + [s for s in separators if s]
