"""Real text the way real files hold it: every text of tests/data (see its SOURCES.md) in nine variants (as it is,
CRLF, lone CR, a byte order mark, U+2028 line separators, U+2029 paragraph separators, NULs, tabs for leading
spaces, all line ends mixed), through every chunker at three sizes in characters and one in tokens, and through
``chunk_batch``.

The invariants, on every chunk of every case (trim on, as by default):

* ``source[c.start:c.end] == c.text``, with no whitespace at either edge; ``index`` counts from 0; starts strictly
  increase; ``embedding_text`` is ``context + context_sep + text``, or the text alone without a context;
* without overlap the chunks are disjoint, and every character of the source that is not whitespace (a leading byte
  order mark aside) is in some chunk; with overlap two neighbours share at most ``overlap`` characters;
* ``c.size`` is the chunk's size in the unit and at most ``size``, unless the chunk is a single grapheme cluster. In
  characters that is ``len(c.text)``; in tokens (cl100k_base) ``Tokenizer.count(c.text)`` of the whole chunk, while
  the chunker counts piece by piece (test_tokens.py checks ``count`` against tiktoken itself);
* with ``size_includes_context`` a chunk with a context fits with it: size(context) + size(context_sep) + size(text)
  <= ``size``, measured as the chunker measures (in characters that is ``len(c.embedding_text)``);
* MarkdownChunker: ``title_path`` and ``headings`` are the heading ancestry, by the independent markdown-it-py
  reference (md_oracle.py), of the line where the chunk starts. markdown-it knows only LF, CRLF and CR as line ends,
  so the reference reads the variant with VT, NEL, LS and lone CRs written as LF (a lone CR is a line end to
  markdown-it too, but one before a written LF would make a CRLF of the two), and each PS, a paragraph break to
  chunkwise, as a blank line; a leading byte order mark (which chunkwise skips when reading structure) is left out.
  Offsets map back through those changes.
* TableChunker (on table.md only): whole rows, every data row in some chunk, at most ``rows_per_chunk`` rows; a
  variant that is no table to the reference either (a NUL in the delimiter row) gets a ChunkingError.

A case that fails names the text, the variant, the chunker and the size in its id, e.g.
``test_variant[md-mixed-md-ctx-c64]``.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re

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

regex = pytest.importorskip("regex", reason="grapheme segmentation needs the `regex` package")
pytest.importorskip("markdown_it")

from support import md_oracle as oracle  # noqa: E402
from support.corpus import DATA

TEXTS = {"en": "en.txt", "zh": "zh.txt", "ja": "ja.txt", "md": "mixed.md", "code": "code.py", "table": "table.md"}

# -- variants --------------------------------------------------------------------------------------------------------

BOM = "\ufeff"
PS = "\u2029"  # a paragraph separator: chunkwise reads it as a paragraph break, a blank line
# The "mixed" variant: each line end of the text becomes the next of LINE_ENDS in turn, and every third paragraph
# break (a run of line ends) a U+2029 instead. In this order a lone CR is never followed by an LF, so the variant has
# as many line ends as the text.
LINE_ENDS = ["\r\n", "\n", "\r", "\u2028", "\x85", "\x0b"]


def _nuls(text: str, every: int = 97) -> str:
    return "\x00".join(text[i : i + every] for i in range(0, len(text), every))


def _tabs(text: str) -> str:
    # Every four leading spaces become a tab (an editor's "tabify"); 1-3 spaces left over stay.
    return re.sub(r"(?m)^(?:    )+", lambda m: "\t" * (len(m.group()) // 4), text)


def _mixed(text: str) -> str:
    ends = itertools.cycle(LINE_ENDS)
    paragraphs = itertools.cycle([False, False, True])

    def end(m):
        if len(m.group()) > 1 and next(paragraphs):
            return PS
        return "".join(next(ends) for _ in m.group())

    return re.sub("\n+", end, text)


VARIANTS = {
    "asis": lambda t: t,
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "cr": lambda t: t.replace("\n", "\r"),
    "bom": lambda t: BOM + t,
    "ls": lambda t: t.replace("\n", "\u2028"),
    "ps": lambda t: re.sub(r"\n{2,}", PS, t),  # paragraphs end with U+2029, lines within them with LF
    "nul": _nuls,
    "tabs": _tabs,
    "mixed": _mixed,
}


# For table.md, whose "nul" variant is no table (a NUL lands in the delimiter row): NULs in the data rows only.
TABLE_VARIANTS = {**VARIANTS, "nul-rows": lambda t: "\n".join(t.split("\n", 2)[:2] + [_nuls(t.split("\n", 2)[2])])}


@functools.lru_cache(maxsize=None)
def source(text: str, variant: str) -> str:
    return TABLE_VARIANTS[variant]((DATA / TEXTS[text]).read_text(encoding="utf-8"))


# -- chunkers --------------------------------------------------------------------------------------------------------

ENCODING = "cl100k_base"


@functools.lru_cache(maxsize=1)
def tokenizer() -> Tokenizer:
    return Tokenizer.tiktoken(ENCODING)


# (id, size, overlap, in tokens)
SIZES = [("c64", 64, 0, False), ("c300o60", 300, 60, False), ("c1500", 1500, 0, False), ("t128", 128, 0, True)]
BATCH_SIZE = SIZES[2]

CHUNKERS = {
    "recursive": lambda size, overlap, **kw: RecursiveChunker(size, overlap, **kw),
    "sentence": lambda size, overlap, **kw: SentenceChunker(size, overlap, **kw),
    "paragraph": lambda size, overlap, **kw: ParagraphChunker(size, overlap, **kw),
    "fixed": lambda size, overlap, **kw: FixedChunker(size, overlap, **kw),
    "fixed-snap": lambda size, overlap, **kw: FixedChunker(size, overlap, snap=size // 4, **kw),
    "fixed-restart": lambda size, overlap, **kw: FixedChunker(size, overlap, snap=size // 4, restart="line", **kw),
    "md": lambda size, overlap, **kw: MarkdownChunker(size, overlap, **kw),
    "md-ctx": lambda size, overlap, **kw: MarkdownChunker(size, overlap, size_includes_context=True, **kw),
    "md-apart": lambda size, overlap, **kw: MarkdownChunker(size, overlap, merge_sections=False, **kw),
    "md-apart-ctx": lambda size, overlap, **kw: MarkdownChunker(
        size, overlap, merge_sections=False, size_includes_context=True, **kw
    ),
    "clause": lambda size, overlap, **kw: ClauseChunker(size, overlap, **kw),
}
# TableChunker reads one table: it runs on table.md only, with its own settings (the header is ~300 chars wide).
TABLE_CHUNKERS = {
    "table-c400": lambda tok: TableChunker(400),
    "table-c1000o300": lambda tok: TableChunker(1000, 300),
    "table-rows5": lambda tok: TableChunker(rows_per_chunk=5),
    "table-c1000-rows4-ctx": lambda tok: TableChunker(1000, rows_per_chunk=4, size_includes_context=True),
    "table-t150": lambda tok: TableChunker(150, tokenizer=tok),
    "table-t400-ctx": lambda tok: TableChunker(400, size_includes_context=True, tokenizer=tok),
}
TABLE_ROWS = 27  # data rows of table.md


def make(chunker: str, size_id: str):
    _, size, overlap, tokens = next(s for s in SIZES if s[0] == size_id)
    kw = {"tokenizer": tokenizer()} if tokens else {}
    return CHUNKERS[chunker](size, overlap, **kw)


# -- the checks ------------------------------------------------------------------------------------------------------


def one_grapheme(s: str) -> bool:
    return regex.fullmatch(r"\X", s) is not None


def where(c) -> str:
    return f"chunk {c.index} [{c.start}:{c.end}] {c.text[:80]!r}"


def check(src: str, chunks, size: int, overlap: int, tokens: bool, includes_context: bool) -> None:
    measure = tokenizer().count if tokens else len
    covered = 0  # end of the text covered so far
    prev_start = -1
    for i, c in enumerate(chunks):
        # Each field read once: the checks cost as much as the chunking.
        start, end, text, context = c.start, c.end, c.text, c.context
        assert c.index == i, where(c)
        assert 0 <= start < end <= len(src), where(c)
        assert src[start:end] == text, f"{where(c)}: not the slice source[start:end]"
        assert not text[0].isspace() and not text[-1].isspace(), f"{where(c)}: whitespace at an edge (trim)"
        embedding = c.embedding_text
        assert embedding == (context + c.context_sep + text if context else text), where(c)
        assert start > prev_start, f"{where(c)} does not start after the chunk before"
        if overlap == 0:
            assert start >= covered, f"{where(c)} overlaps the chunk before"
        else:
            assert covered - start <= overlap, f"{where(c)} shares more than {overlap} with the chunk before"
        gap = src[covered:start]
        if covered == 0 and gap.startswith(BOM):
            gap = gap[1:]
        assert not gap.strip(), f"text before {where(c)} is in no chunk: {gap[:80]!r}"
        covered = max(covered, end)
        prev_start = start

        n = measure(text)
        assert c.size == n, f"{where(c)}: size {c.size} != {n}"
        assert c.token_count == (n if tokens else None), where(c)
        assert n <= size or one_grapheme(text), f"{where(c)}: size {n} > {size}"
        if includes_context and context:
            total = measure(context) + measure(c.context_sep) + n
            assert total <= size or one_grapheme(text), f"{where(c)}: context {context[:80]!r} + text: {total} > {size}"
    tail = src[covered:]
    if covered == 0 and tail.startswith(BOM):
        tail = tail[1:]
    assert not tail.strip(), f"text after the last chunk is in no chunk: {tail[:80]!r}"


# The line terminators markdown-it does not know, and a lone CR (one before them would join them into a CRLF): the
# reference reads each as an LF, one character for one. A U+2029 is a paragraph break: it reads it as a blank line.
OTHER_LINE_ENDS = re.compile(r"\r(?!\n)|[\x0b\x85\u2028]")


@functools.lru_cache(maxsize=None)
def title(s: str) -> str:
    # markdown-it writes a NUL as U+FFFD, as CommonMark says; titles are compared with runs of whitespace collapsed.
    return " ".join(s.replace("\x00", "\ufffd").split())


class Reference:
    """The markdown-it reference's view of a variant: its text, and the map from the variant's offsets to it."""

    def __init__(self, src: str):
        # A leading byte order mark is not part of the document's structure (chunkwise skips it there, offsets
        # unchanged); the reference does not see it at all.
        self.bom = 1 if src.startswith(BOM) else 0
        body = src[self.bom :]
        self.ps = [m.start() + self.bom for m in re.finditer(PS, body)]  # in src offsets
        self.text = OTHER_LINE_ENDS.sub("\n", body).replace(PS, "\n\n")
        self.starts = oracle.line_starts(self.text)
        self.ancestry = [[(level, title(t)) for level, t in path] for path in oracle.heading_ancestry(self.text)]

    def offset(self, src_offset: int) -> int:
        return max(src_offset - self.bom, 0) + bisect.bisect_left(self.ps, src_offset)

    def path_at(self, src_offset: int):
        """(level, title) of the headings in effect on the line holding ``src_offset``, titles as :func:`title`."""
        return self.ancestry[oracle.line_of(self.text, self.offset(src_offset), self.starts)]


@functools.lru_cache(maxsize=None)
def reference(text: str, variant: str) -> Reference:
    return Reference(source(text, variant))


def check_title_paths(ref: Reference, chunks) -> None:
    for c in chunks:
        md = c.metadata
        assert len(md["headings"]) == len(md["title_path"]), where(c)
        got = [(level, title(t)) for level, t in zip(md["headings"], md["title_path"])]
        want = ref.path_at(c.start)
        assert got == want, f"{where(c)}: title path {got} != reference {want}"


# -- the cases -------------------------------------------------------------------------------------------------------


def _cases():
    for text in TEXTS:
        for variant in VARIANTS:
            for chunker in CHUNKERS:
                for size_id, *_ in SIZES:
                    yield pytest.param(text, variant, chunker, size_id, id=f"{text}-{variant}-{chunker}-{size_id}")


@pytest.mark.parametrize("text, variant, chunker, size_id", list(_cases()))
def test_variant(text, variant, chunker, size_id):
    _, size, overlap, tokens = next(s for s in SIZES if s[0] == size_id)
    src = source(text, variant)
    splitter = make(chunker, size_id)
    chunks = splitter.chunk(src)
    assert chunks, "no chunks for a text with words"
    check(src, chunks, size, overlap, tokens, includes_context=chunker.endswith("-ctx"))
    if chunker.startswith("md"):
        check_title_paths(reference(text, variant), chunks)


def _table_cases():
    for variant in TABLE_VARIANTS:
        for chunker in TABLE_CHUNKERS:
            yield pytest.param(variant, chunker, id=f"table-{variant}-{chunker}")


@pytest.mark.parametrize("variant, chunker", list(_table_cases()))
def test_table_variant(variant, chunker):
    splitter = TABLE_CHUNKERS[chunker](tokenizer())
    src = source("table", variant)
    ref = reference("table", variant)
    tables = [b for b in oracle.blocks(ref.text) if b.kind == "table"]
    if len(tables) != 1 or len(tables[0].rows) != TABLE_ROWS:
        # Not one whole table to the reference either (a NUL in the delimiter row, say): a clear error, no chunks.
        with pytest.raises(chunkwise.ChunkingError, match="table"):
            splitter.chunk(src)
        return
    chunks = splitter.chunk(src)
    config = splitter.config
    tokens = config["tokenizer"] is not None
    size = config["size"] if config["size"] is not None else len(src)
    check(src, chunks, size, config["overlap"], tokens, includes_context=config["size_includes_context"])
    rows = set()
    for c in chunks:
        md = c.metadata
        assert md["chunk_type"] == "table" and md["total_rows"] == TABLE_ROWS, where(c)
        assert 0 <= md["row_start"] <= md["row_end"] <= TABLE_ROWS, where(c)
        if config["rows_per_chunk"] is not None:
            assert md["row_end"] - md["row_start"] <= config["rows_per_chunk"], where(c)
        rows.update(range(md["row_start"], md["row_end"]))
    assert rows == set(range(TABLE_ROWS))


def _batch_cases():
    for text in TEXTS:
        for chunker in CHUNKERS:
            yield pytest.param(text, chunker, id=f"{text}-{chunker}")


@pytest.mark.parametrize("text, chunker", list(_batch_cases()))
def test_batch_of_all_variants(text, chunker):
    """All nine variants of a text in one ``chunk_batch``: the same chunks as one by one (whose invariants
    test_variant checks), and the same offsets from ``spans`` and ``spans_batch``."""
    splitter = make(chunker, BATCH_SIZE[0])
    texts = [source(text, v) for v in VARIANTS]
    singles = [[c.to_dict() for c in splitter.chunk(t)] for t in texts]
    batched = splitter.chunk_batch(texts)
    assert len(batched) == len(texts)
    for variant, got, want in zip(VARIANTS, batched, singles):
        assert [c.to_dict() for c in got] == want, variant
    offsets = [[[d["start"], d["end"]] for d in cs] for cs in singles]
    assert [splitter.spans(t).tolist() for t in texts] == offsets
    assert [sp.tolist() for sp in splitter.spans_batch(texts)] == offsets


def test_the_variants_are_what_they_say():
    """The variants differ from the text as named, so that a case cannot pass on an unchanged text."""
    text = (DATA / TEXTS["md"]).read_text(encoding="utf-8")
    lines = text.count("\n")
    assert source("md", "asis") == text and "\r" not in text
    assert source("md", "crlf").count("\r\n") == lines
    assert source("md", "cr").count("\r") == lines and "\n" not in source("md", "cr")
    assert source("md", "bom") == BOM + text
    assert source("md", "ls").count("\u2028") == lines and len(source("md", "ls")) == len(text)
    assert source("md", "ps").count("\u2029") == len(re.findall(r"\n{2,}", text)) > 100
    assert source("md", "nul").count("\x00") == (len(text) - 1) // 97
    assert source("code", "tabs").count("\n\t\t") > 100 and "\n    " not in source("code", "tabs")
    mixed = source("md", "mixed")
    assert all(end in mixed for end in LINE_ENDS + [PS]) and "\n" in mixed.replace("\r\n", "")
    # The reference sees the text's lines, and its blank lines where the variant has paragraph separators.
    def lf(t):
        return re.sub(r"\n{2,}", "\n\n", t.replace("\r\n", "\n"))

    for variant in set(VARIANTS) - {"nul", "tabs"}:
        assert lf(reference("md", variant).text) == lf(text), variant
    # Offsets map 1:1, less a BOM, plus one for each U+2029 before.
    mixed_ref = reference("md", "mixed")
    for i in range(0, len(mixed), 101):
        j = mixed_ref.offset(i)
        if mixed[i] not in "\r\n\x0b\x85\u2028\u2029":
            assert mixed_ref.text[j] == mixed[i], i
