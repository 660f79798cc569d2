"""Acceptance tests for MarkdownChunker, judged against an independent Markdown reference (md_oracle.py, built on
markdown-it-py) rather than against chunkwise's own parse.

One checker, :func:`problems`, states every invariant and returns what it finds wrong; the corpus test and each
hand-made case run it, and the ``test_checker_*`` tests show that each of its checks accepts right chunks and rejects
wrong ones. The rules, for every chunk ``c`` of a text (overlap 0, trim on):

* ``c.text == text[c.start:c.end]``; chunks in order and not overlapping; every non-blank character of the text (front
  matter included) in some chunk;
* ``c.size`` is the size of ``c.text`` in the unit, at most ``size`` unless the chunk is one grapheme cluster; with
  ``size_includes_context=True``, size(context) + size(join) + size(text) <= size;
* ``title_path`` / ``headings`` are the reference's heading ancestry of the chunk's first line (titles compared after
  collapsing runs of whitespace);
* ``context`` is the chunk's own ``title_path`` joined with " > ", less a heading that starts the chunk; a chunk that
  starts in a table's data rows adds the header and delimiter rows, one that starts inside a fenced code block after
  its fence line adds that line; ``embedding_text`` is context + "\\n" + text after a table header or fence line,
  context + "\\n\\n" + text otherwise, and the bare text without a context. With ``size_includes_context=True`` a
  context whose full form takes more than half of ``size`` may be shortened (see :func:`shortened_contexts`);
* a boundary inside a table falls between data rows, one inside a code block between lines, unless no such cut
  exists (see :meth:`Ref.cut_problem`) or the block is code of a language CodeChunker knows (cut by its syntax);
* a code block, table or document-level list that fits in a chunk is never cut by a chunk boundary;
* ``chunk_type`` of a chunk lying inside one block is that block's kind (the innermost: a fence inside a list is
  "code"), with ``language`` for code and ``row_start`` / ``row_end`` / ``total_rows`` for tables (a row the chunk
  holds only part of may count or not); a chunk that is just a heading is "heading"; one touching no block and no
  heading is "text".

How sections share chunks is checked on its own (:func:`section_problems`): with ``merge_sections=False`` sibling
sections share a chunk only inside a parent section kept whole; with ``merge_sections=True`` a chunk may merge sibling
sections but never leaves the parent of the section it starts in.
"""

from __future__ import annotations

import bisect
from types import SimpleNamespace
from typing import Callable, List, Optional

import pytest

pytest.importorskip("markdown_it")

import md_oracle as oracle
from markdown_it import MarkdownIt
from test_cjk import load

try:
    from chunkwise import MarkdownChunker
except ImportError:  # before it lands the checker's own tests still run; every other test fails in chunker()
    MarkdownChunker = None

try:
    import regex
except ImportError:
    regex = None

Measure = Callable[[str], int]


def chunker(size: int, **kwargs):
    assert MarkdownChunker is not None, "chunkwise.MarkdownChunker is not importable"
    return MarkdownChunker(size=size, **kwargs)


# -- the checker -----------------------------------------------------------------------------------------------------


def collapse(s: str) -> str:
    return " ".join(s.split())


def lines_stripped(s: str) -> str:
    return "\n".join(line.strip() for line in s.split("\n"))


def one_grapheme(s: str) -> bool:
    return bool(regex.fullmatch(r"\X", s)) if regex is not None else len(s) == 1


class Ref:
    """The reference's facts about one text, looked up by offset."""

    def __init__(self, text: str):
        self.text = text
        self.starts = oracle.line_starts(text)
        self.ancestry = oracle.heading_ancestry(text)
        self.headings = oracle.headings(text)
        self.heading_starts = [h.start for h in self.headings]
        self.heading_by_line = {h.line: h for h in self.headings}
        self.heading_by_last_line = {self.line(h.end): h for h in self.headings}
        blocks = oracle.blocks(text)
        self.structures = [b for b in blocks if b.kind in ("code", "table", "list")]
        # Code blocks and tables never nest in each other, nor do top-level blocks: two sorted, disjoint lists.
        self.leaves = [b for b in blocks if b.kind in ("code", "table")]
        self.tops = [b for b in blocks if b.kind in ("list", "quote", "html")]
        self.leaf_starts = [b.start for b in self.leaves]
        self.top_starts = [b.start for b in self.tops]
        self.lead_ins = {b.start: self._lead_in(b) for b in self.tops if b.kind == "list"}
        # A top-level table takes the paragraph that leads into it too (its caption).
        self.lead_ins.update(
            (b.start, self._lead_in(b)) for b in self.leaves
            if b.kind == "table" and self._around(self.tops, self.top_starts, b.start, b.end) is None
        )

    def heading_above(self, offset: int):
        """The heading that the line holding ``offset`` comes right under (only blank lines between), if any."""
        k = self.line(offset) - 1
        while k >= 0 and not oracle.line_text(self.text, self.starts, k).strip():
            k -= 1
        return self.heading_by_last_line.get(k)

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def line_bounds(self, offset: int):
        """(first non-blank, end of non-blank) of the line holding offset."""
        i = self.line(offset)
        raw = oracle.line_text(self.text, self.starts, i)
        return self.starts[i] + len(raw) - len(raw.lstrip()), self.starts[i] + len(raw.rstrip())

    def cut_problem(self, offset: int, size: int, measure: Measure, with_context: bool, chunk_start=None, room=None):
        """What is wrong with a chunk boundary at offset, if it is inside a table or code block: such a boundary falls
        between data rows or code lines. Exceptions, where no such cut exists: inside a line too long for any chunk;
        between a table's header and delimiter rows, or after them, or after an opening fence line, when the chunk
        that ends there (from ``chunk_start``, in ``room`` units: the size less its counted context) could not have
        held the rows or line that follow. Those three rules are checked on chunk ends only."""
        leaf = self.leaf_inside(offset)
        if leaf is None:
            return None
        lo, hi = self.line_bounds(offset)
        if lo < offset < hi and leaf.fence is not None and code_language(leaf.language) is not None:
            # Code of a language CodeChunker knows is cut by its syntax, as CodeChunker cuts it (a string's
            # content kept whole, say, apart from its quotes): test_markdown_fences checks those cuts.
            return None
        if lo < offset < hi:  # inside a line's text
            return None if not self.line_fits(offset, size, measure, with_context) else f"inside a {leaf.kind} line"
        if chunk_start is None:
            return None
        # At a line edge: the cut is between line `before` and the next one.
        before = self.line(offset) - (1 if offset <= lo else 0)
        lines = range(leaf.first_line, min(leaf.first_line + 3, len(self.starts)))
        ends = [self.line_bounds(self.starts[k])[1] for k in lines]

        def could_hold(k: int) -> bool:
            return k < len(ends) and measure(self.text[chunk_start : ends[k]]) <= room

        if leaf.kind == "table":
            if before == leaf.first_line and could_hold(1):
                return "between a table's header and delimiter rows, which fit in the chunk"
            if before == leaf.first_line + 1 and could_hold(2):
                return "between a table's delimiter row and first data row, which fit in the chunk"
        elif leaf.fence is not None and before == leaf.first_line and could_hold(1):
            return "between an opening fence line and the first code line, which fit in the chunk"
        return None

    def line_fits(self, offset: int, size: int, measure: Measure, size_includes_context: bool) -> bool:
        """Whether the line holding offset fits in a chunk of its own (with the context such a chunk would carry)."""
        lo, hi = self.line_bounds(offset)
        need = measure(self.text[lo:hi])
        if size_includes_context:
            path = [t for _, t in self.ancestry[self.line(lo)]]
            exp = expected_fields(self, lo, hi, path)
            if exp["context"]:
                need += measure(exp["context"]) + measure(exp["join"])
        return need <= size

    @staticmethod
    def _around(blocks, starts, lo: int, hi: int):
        k = bisect.bisect_right(starts, lo) - 1
        return blocks[k] if k >= 0 and blocks[k].end >= hi else None

    def leaf_inside(self, offset: int):
        """The code block or table that offset is strictly inside of."""
        b = self._around(self.leaves, self.leaf_starts, offset, offset)
        return b if b is not None and b.start < offset < b.end else None

    def enclosing(self, start: int, end: int):
        """The innermost block holding all of [start, end)."""
        return self._around(self.leaves, self.leaf_starts, start, end) or self._around(
            self.tops, self.top_starts, start, end
        )

    def _lead_in(self, lst):
        """(start, end) of the paragraph that leads into a top-level list: the paragraph right before it, when no
        blank line separates them or it reads as a lead-in (``leads_in``); None without one."""
        k = lst.first_line - 1
        blank = 0
        while k >= 0 and not oracle.line_text(self.text, self.starts, k).strip():
            blank, k = blank + 1, k - 1
        last = k
        while k >= 0 and oracle.line_text(self.text, self.starts, k).strip():
            k -= 1
        first = k + 1
        if last < 0 or first > last:
            return None
        lo = self.line_bounds(self.starts[first])[0]
        hi = self.line_bounds(self.starts[last])[1]
        body = self.text[lo:hi]
        if self.touches_block(lo, hi) or any(first <= h.line <= last for h in self.headings):
            return None
        if len(body.split()) == 1 and set(body.replace(" ", "")) <= set("-*_") and len(body.strip()) >= 3:
            return None  # a thematic break
        if blank and not leads_in(body):
            return None
        return lo, hi

    def caption(self, start: int):
        """The caption (lead-in paragraph) of the top-level table that ``start`` is in, at or after its header."""
        table = self._around(self.leaves, self.leaf_starts, start, start)
        if table is None or table.kind != "table" or not (table.start <= start < table.end):
            return None
        span = self.lead_ins.get(table.start)
        return None if span is None else self.text[span[0] : span[1]]

    def list_lead_in(self, start: int):
        """The lead-in paragraph's text of the top-level list that ``start`` is inside of, if it has one."""
        lst = self._around(self.tops, self.top_starts, start, start)
        if lst is None or lst.kind != "list" or not (lst.start <= start < lst.end):
            return None
        span = self.lead_ins.get(lst.start)
        return None if span is None else self.text[span[0] : span[1]]

    def heading_starting(self, start: int):
        """The heading that a chunk starting at ``start`` begins with."""
        h = self.heading_by_line.get(self.line(start))
        return h if h is not None and start <= h.start else None

    def touches_block(self, start: int, end: int) -> bool:
        for blocks, starts in ((self.leaves, self.leaf_starts), (self.tops, self.top_starts)):
            k = bisect.bisect_left(starts, end)
            if k > 0 and blocks[k - 1].end > start:
                return True
        return False

    def crosses_heading(self, start: int, end: int) -> bool:
        k = bisect.bisect_right(self.heading_starts, start)
        return k < len(self.headings) and self.headings[k].start < end


_REFS: dict = {}


def ref_for(text: str) -> Ref:
    if text not in _REFS:
        _REFS.clear()  # one text at a time: the corpus is 3 MB
        _REFS[text] = Ref(text)
    return _REFS[text]


def render_context(path: List[str], block: Optional[str]) -> str:
    context = " > ".join(path)
    if block is not None:
        context = context + "\n\n" + block if context else block
    return context


def shortened_contexts(exp: dict, size: int, measure: Measure) -> List[tuple]:
    """(context, join) pairs a chunk may carry instead of the full context when the context counts toward the size.

    The API leaves open what happens when the context is too big to leave room for text (a table header can be
    longer than the size). Read here as: only when the full context and its join take more than half of ``size`` may
    it be shortened, by leaving out outer headings and/or the table header / fence line, to at most half."""
    full = exp["context"]
    if measure(full) + measure(exp["join"]) <= size // 2:
        return []
    out = []
    path = exp["path"]
    for block in ([exp["block"], None] if exp["block"] is not None else [None]):
        join = exp["block_join"] if block is not None else "\n\n"
        for k in range(len(path) + 1):
            ctx = render_context(path[k:], block)
            if not ctx or measure(ctx) + measure(join) <= size // 2:
                out.append((ctx, join))
    return out


def cut_context(ctx: str, exp: dict, size: int, measure: Measure) -> Optional[str]:
    """The join of ``ctx`` if it is the context ``exp`` cut short when even its nearest heading and block do not fit
    in half the size: the nearest heading (or none) and the start of the block (a table header's first columns, or
    the start of a fence line or lead-in followed by an ellipsis); with no block, the start of the nearest heading
    and an ellipsis. None if it is not."""
    path, block = exp["path"], exp["block"]
    join = exp["block_join"] if block is not None else "\n\n"
    if measure(exp["context"]) + measure(exp["join"]) <= size // 2:
        return None  # the whole context fits: nothing may be cut
    if not ctx or measure(ctx) + measure(join) > size // 2:
        return None
    if block is None:
        ok = bool(path) and ctx.endswith("…") and path[-1].startswith(ctx[:-1].rstrip())
        return join if ok else None
    for head in ([path[-1] + "\n\n"] if path else []) + [""]:
        if not ctx.startswith(head):
            continue
        rest = ctx[len(head) :]
        if join == "\n" and "\n" in block:  # a table header: each line cut after one of its first cells
            lines, full = rest.split("\n"), block.split("\n")
            cells = all(f.startswith(x) and x.endswith("|") for x, f in zip(lines, full))
            if len(lines) == len(full) and cells and lines != full:
                return join
        elif rest.endswith("…") and block.startswith(rest[:-1].rstrip()):
            return join
    return None


def code_language(word: Optional[str]) -> Optional[str]:
    """The name CodeChunker gives the language a fence's info string names, if it knows it."""
    if word is None:
        return None
    if word not in _LANGUAGES:
        from chunkwise import ChunkingError, CodeChunker

        try:
            _LANGUAGES[word] = CodeChunker(100, language=word).chunk("x")[0].metadata["language"]
        except ChunkingError:
            _LANGUAGES[word] = None
    return _LANGUAGES[word]


_LANGUAGES: dict = {}


def signature_lines(ref: Ref, start: int, context: str) -> Optional[str]:
    """The lines a chunk starting at ``start`` inside a fence of a known language carries in its context under the
    fence line (the signatures of the definitions it starts inside, which CodeChunker's tests check exactly), if
    they read as such: each the start of a line of the block above the chunk's first line, further down and more
    indented than the one before, the last one possibly cut short with an ellipsis. None if the chunk is not in
    such a fence or the lines are not such."""
    leaf = ref.leaf_inside(start)
    if leaf is None or leaf.fence is None or code_language(leaf.language) is None:
        return None
    lines = context.split("\n")
    fence = leaf.fence.strip()
    if fence not in lines:
        return None
    extra = lines[lines.index(fence) + 1 :]
    if not extra:
        return None
    body = [oracle.line_text(ref.text, ref.starts, k) for k in range(leaf.first_line + 1, ref.line(start))]
    k, indent = -1, -1
    for n, line in enumerate(extra):
        cut = n == len(extra) - 1 and line.endswith("…")
        stem = line[:-1].rstrip() if cut else line
        k = next((j for j in range(k + 1, len(body)) if stem and body[j].lstrip(" >").startswith(stem.lstrip())), -1)
        width = len(stem) - len(stem.lstrip())
        if k < 0 or (width <= indent and not cut):
            return None
        indent = width
    return "\n".join(extra)


def expected_fields(ref: Ref, start: int, end: int, title_path: List[str], signatures: Optional[str] = None) -> dict:
    """What a chunk spanning [start, end) must carry, its title path aside (taken as given: it is checked against the
    reference separately, so that one wrong title does not also fail every other field). ``signatures``: the lines
    under the fence line of a chunk inside a fence of a known language (see :func:`signature_lines`)."""
    text = ref.text
    path = list(title_path)
    heading = ref.heading_starting(start)
    if heading is not None and path:
        path = path[:-1]
    extra = None
    inline = True
    leaf = ref.leaf_inside(start)
    caption = ref.caption(start)
    if leaf is not None and leaf.kind == "table" and leaf.rows and start >= leaf.rows[0][0]:
        extra = "\n".join(oracle.table_header(text, leaf))
        if caption is not None:
            extra = f"{caption}\n\n{extra}"
    elif leaf is not None and leaf.fence is not None:
        extra = leaf.fence if signatures is None else f"{leaf.fence}\n{signatures}"
    elif caption is not None:
        # A table's piece that starts at its header: the caption above it.
        extra, inline = caption, False
    else:
        # A piece of a list that does not start with its lead-in paragraph carries the lead-in.
        extra, inline = ref.list_lead_in(start), False
    out = {"context": render_context(path, extra), "join": "\n" if extra is not None and inline else "\n\n",
           "path": path, "block": extra, "block_join": "\n" if inline else "\n\n", "chunk_type": None}
    block = ref.enclosing(start, end)
    if block is not None and block.kind in ("code", "table", "list", "quote"):
        out["chunk_type"] = block.kind
        if block.kind == "code":
            # A language CodeChunker knows goes by its name there ("py" fences are "python" code).
            out["language"] = code_language(block.language) or block.language
        if block.kind == "table":
            # Data rows the chunk holds at least part of; when it starts (ends) inside a row, that row may count
            # or not: either is accepted.
            row_starts = [r[0] for r in block.rows]
            r0 = bisect.bisect_right([r[1] for r in block.rows], start)
            r1 = bisect.bisect_left(row_starts, end)
            starts = {r0, r0 + 1} if r0 < len(block.rows) and block.rows[r0][0] < start else {r0}
            ends = {r1, r1 - 1} if r1 > 0 and block.rows[r1 - 1][1] > end else {r1}
            out["rows"] = (starts, ends, len(block.rows))
    elif heading is not None and end <= heading.end:
        out["chunk_type"] = "heading"
    elif (
        not ref.touches_block(start, end)
        and not ref.crosses_heading(start, end)
        and ref.heading_by_line.get(ref.line(start)) is None
    ):
        out["chunk_type"] = "text"
    return out


def problems(
    text: str,
    chunks,
    size: int,
    *,
    measure: Measure = len,
    size_includes_context: bool = False,
    limit: int = 30,
) -> List[str]:
    """Everything wrong with ``chunks`` as MarkdownChunker(size, overlap=0, trim=True) output for ``text``."""
    ref = ref_for(text)
    found: List[str] = []

    def bad(i, c, what):
        found.append(f"chunk {i} [{c.start}:{c.end}] {c.text[:60]!r}: {what}")

    covered = 0
    bounds = set()
    for i, c in enumerate(chunks):
        if len(found) >= limit:
            break
        if text[c.start : c.end] != c.text or not c.text:
            bad(i, c, "text is not the (non-empty) slice text[start:end]")
            continue
        if c.start < covered:
            bad(i, c, f"starts before the previous chunk ends ({covered})")
        elif text[covered : c.start].strip():
            bad(i, c, f"text before it is in no chunk: {text[covered : c.start][:60]!r}")
        covered = max(covered, c.end)
        bounds.update((c.start, c.end))

        n = measure(c.text)
        if c.size != n:
            bad(i, c, f"size {c.size} != {n}")
        if n > size and not one_grapheme(c.text):
            bad(i, c, f"size {n} > {size}")

        md = c.metadata
        want = ref.ancestry[ref.line(c.start)]
        got = list(zip(md.get("headings", []), md.get("title_path", [])))
        if len(md.get("headings", [])) != len(md.get("title_path", [])) or [
            (level, collapse(t)) for level, t in got
        ] != [(level, collapse(t)) for level, t in want]:
            bad(i, c, f"title_path {md.get('title_path')} / headings {md.get('headings')} != {want}")

        exp = expected_fields(ref, c.start, c.end, md.get("title_path", []), signature_lines(ref, c.start, c.context))
        join = exp["join"]
        if lines_stripped(c.context) != lines_stripped(exp["context"]):
            allowed = shortened_contexts(exp, size, measure) if size_includes_context else []
            match = [j for ctx, j in allowed if lines_stripped(ctx) == lines_stripped(c.context)]
            cut = cut_context(c.context, exp, size, measure) if size_includes_context else None
            if match:
                join = match[0]
            elif cut is not None:
                join = cut
            else:
                bad(i, c, f"context {c.context!r} != {exp['context']!r}")
            if not md.get("context_shortened"):
                bad(i, c, f"context {c.context!r} was shortened but metadata does not say so")
        elif md.get("context_shortened"):
            bad(i, c, "context_shortened is set on a whole context")
        join = join if c.context else ""
        if c.embedding_text != c.context + join + c.text:
            bad(i, c, f"embedding_text is not context + {join!r} + text: {c.embedding_text[:80]!r}")
        if size_includes_context:
            total = measure(c.context) + measure(join) + n if c.context else n
            if total > size and not one_grapheme(c.text):
                bad(i, c, f"context + join + text is {total} > {size}")
        if exp["chunk_type"] is not None and md.get("chunk_type") != exp["chunk_type"]:
            bad(i, c, f"chunk_type {md.get('chunk_type')!r} != {exp['chunk_type']!r}")
        if "language" in exp and md.get("language") != exp["language"]:
            bad(i, c, f"language {md.get('language')!r} != {exp['language']!r}")
        if "rows" in exp:
            got_rows = (md.get("row_start"), md.get("row_end"), md.get("total_rows"))
            starts, ends, total = exp["rows"]
            if got_rows[0] not in starts or got_rows[1] not in ends or got_rows[2] != total:
                bad(i, c, f"(row_start, row_end, total_rows) {got_rows} != ({starts}, {ends}, {total})")
        room = size - (measure(c.context) + measure(join) if size_includes_context and c.context else 0)
        for offset, is_start in ((c.start, True), (c.end, False)):
            wrong = ref.cut_problem(
                offset, size, measure, size_includes_context, None if is_start else c.start, room
            )
            if wrong:
                bad(i, c, f"{'starts' if is_start else 'ends'} {wrong}")
    if len(found) < limit and text[covered:].strip():
        found.append(f"text after the last chunk is in no chunk: {text[covered:][:60]!r}")

    ordered = sorted(bounds)
    for b in ref.structures:
        if len(found) >= limit:
            break
        # A block right under a heading stays whole only together with the heading (a heading is never a chunk of
        # its own when content follows it): then the heading and the block must fit.
        first = b.start
        if b.kind in ("list", "table") and ref.lead_ins.get(b.start):
            first = ref.lead_ins[b.start][0]
        above = ref.heading_above(first)
        first = above.start if above is not None else b.start
        need = measure(text[first : b.end])
        if size_includes_context:
            # The context a chunk starting with the block carries (a list's lead-in included); a context over half
            # the size may be shortened to at most half.
            exp = expected_fields(ref, first, b.end, [t for _, t in ref.ancestry[ref.line(first)]])
            if exp["context"]:
                need += min(measure(exp["context"]) + measure(exp["join"]), size // 2)
        k = bisect.bisect_right(ordered, b.start)
        if need <= size and k < len(ordered) and ordered[k] < b.end:
            found.append(f"{b.kind} [{b.start}:{b.end}] fits ({need} <= {size}) but a chunk boundary at "
                         f"{ordered[k]} cuts it: {text[b.start : min(b.end, b.start + 60)]!r}")
    return found


# The README's rule for a list's lead-in across a blank line: it ends with a colon or an enumeration comma, or with
# one of these phrases (before a final stop or colon), or it is one short line (at most 80 characters).
LEAD_IN_ENDINGS = (":", "：", "、", "，", ",")
LEAD_IN_PHRASES = ("as follows", "following", "below", "include", "includes", "such as", "e.g.", "以下", "如下",
                   "下列", "下記", "次のとおり", "次の通り", "以下のとおり", "다음과 같다", "다음과 같습니다")


def leads_in(body: str) -> bool:
    if body.endswith(LEAD_IN_ENDINGS):
        return True
    tail = body.rstrip(".。．:： ").lower()
    return tail.endswith(LEAD_IN_PHRASES) or (len(body) <= 80 and "\n" not in body and not body.startswith("#"))


def assert_valid(text, chunks, size, **kwargs):
    found = problems(text, chunks, size, **kwargs)
    assert not found, f"{len(found)}{'+' if len(found) >= 30 else ''} problems:\n" + "\n".join(found)


def section_end(ref: Ref, k: int) -> int:
    """Where heading k's section ends: before the next heading as high or higher, without the blank before it."""
    h = ref.headings[k]
    nxt = next((g for g in ref.headings[k + 1 :] if g.level <= h.level), None)
    return len(ref.text[: nxt.start if nxt is not None else len(ref.text)].rstrip())


def section_problems(text: str, chunks, merge_sections: bool) -> List[str]:
    """How chunks keep sections apart; each chunk starts in some section (or in the preamble before the first
    heading).

    merge_sections=False: a heading inside a chunk that ends the section before it (one as high or higher) is allowed
    only when the chunk holds the whole section of that heading's parent (the whole text for a top-level heading):
    sibling sections share a chunk only as parts of a parent kept whole. merge_sections=True: siblings may share a
    chunk, but no heading inside it is as high as the parent of the section it starts in: the chunk never leaves the
    parent that its sections share, so its context is right for all of it."""
    ref = ref_for(text)
    found = []
    for i, c in enumerate(chunks):
        k = oracle.heading_index_at(text, ref.line(c.start))
        first = ref.headings[k] if k is not None else None
        inside = range(k + 1 if k is not None else 0, bisect.bisect_left(ref.heading_starts, c.end))
        wrong = None
        for j in inside:
            h = ref.headings[j]
            before = ref.headings[j - 1] if j > 0 else None
            if merge_sections:
                bound = ref.headings[first.parent].level if first is not None and first.parent is not None else 0
                if first is not None and h.level <= bound:
                    wrong = h
            elif before is not None and h.level <= before.level:
                p = h.parent
                whole = (ref.headings[p].start >= c.start and section_end(ref, p) <= c.end) if p is not None else (
                    not text[: c.start].strip() and not text[c.end :].strip()
                )
                if not whole:
                    wrong = h
            if wrong is not None:
                where = f"{first.title!r} (H{first.level})" if first is not None else "the preamble"
                found.append(f"chunk {i} starts in {where} and takes in {h.title!r} (H{h.level}): {c.text[:60]!r}")
                break
    return found


def fake_chunk(text: str, start: int, end: int, measure: Measure = len):
    """A chunk with every field as the rules above want: the checker must accept it."""
    ref = ref_for(text)
    path = ref.ancestry[ref.line(start)]
    exp = expected_fields(ref, start, end, [t for _, t in path])
    md = {"title_path": [t for _, t in path], "headings": [level for level, _ in path],
          "chunk_type": exp["chunk_type"] or "text"}
    if "language" in exp:
        md["language"] = exp["language"]
    if "rows" in exp:
        starts, ends, md["total_rows"] = exp["rows"]
        md["row_start"], md["row_end"] = min(starts), max(ends)
    chunk_text = text[start:end]
    embedding = exp["context"] + exp["join"] + chunk_text if exp["context"] else chunk_text
    return SimpleNamespace(text=chunk_text, start=start, end=end, size=measure(chunk_text), metadata=md,
                           context=exp["context"], embedding_text=embedding)


# -- the checker can fail ----------------------------------------------------------------------------------------------

SMALL = (
    "# Guide\n\nIntro paragraph.\n\n## Install\n\nRun this:\n\n```sh\nmake\nmake install\n```\n\n"
    "## Data\n\n| k | v |\n|---|--:|\n| a | 1 |\n| b | 2 |\n| c | 3 |\n\n- item one\n- item two\n"
)
SMALL_PIECES = [
    "# Guide\n\nIntro paragraph.",
    "## Install\n\nRun this:",
    "```sh\nmake\nmake install\n```",
    "## Data",
    "| k | v |\n|---|--:|\n| a | 1 |",
    "| b | 2 |\n| c | 3 |",
    "- item one\n- item two",
]


def small_chunks():
    out, at = [], 0
    for piece in SMALL_PIECES:
        start = SMALL.index(piece, at)
        out.append(fake_chunk(SMALL, start, start + len(piece)))
        at = start + len(piece)
    return out


METADATA = ("title_path", "headings", "chunk_type", "language", "row_start", "row_end", "total_rows")


def changed(chunks, i, **fields):
    """The chunks with chunk i's attributes or metadata entries replaced."""
    c = chunks[i]
    new = SimpleNamespace(**{**vars(c), "metadata": dict(c.metadata)})
    for key, value in fields.items():
        if key in METADATA:
            new.metadata[key] = value
        else:
            setattr(new, key, value)
    return chunks[:i] + [new] + chunks[i + 1 :]


def cut(chunks, i, at):
    """Chunk i cut in two at offset ``at``."""
    c = chunks[i]
    return chunks[:i] + [fake_chunk(SMALL, c.start, at), fake_chunk(SMALL, at, c.end)] + chunks[i + 1 :]


def test_checker_accepts_correct_chunks():
    chunks = small_chunks()
    assert problems(SMALL, chunks, 40) == []
    assert section_problems(SMALL, chunks, merge_sections=False) == []
    # The fields the rules want, spelled out for two chunks: the reference chunks are right, not merely consistent.
    table_piece = chunks[5]
    assert table_piece.context == "Guide > Data\n\n| k | v |\n|---|--:|"
    assert table_piece.embedding_text == "Guide > Data\n\n| k | v |\n|---|--:|\n| b | 2 |\n| c | 3 |"
    assert (table_piece.metadata["row_start"], table_piece.metadata["row_end"]) == (1, 3)
    assert chunks[1].context == "Guide" and chunks[1].metadata["title_path"] == ["Guide", "Install"]
    assert [c.metadata["chunk_type"] for c in chunks] == ["text", "text", "code", "heading", "table", "table", "list"]


@pytest.mark.parametrize(
    "breaking, expected",
    [
        (lambda cs: changed(cs, 1, text="## Install\n\nRun that:"), "slice"),
        (lambda cs: [cs[1], cs[0]] + cs[2:], "starts before"),
        (lambda cs: cs[:1] + cs[2:], "in no chunk"),
        (lambda cs: cs[:-1], "after the last chunk"),
        (lambda cs: changed(cs, 2, size=3), "size 3 !="),
        (lambda cs: changed(cs, 1, title_path=["Guide"], headings=[1]), "title_path"),
        (lambda cs: changed(cs, 1, headings=[1, 3]), "title_path"),
        (lambda cs: changed(cs, 1, context="Guide > Install", embedding_text="Guide > Install\n\n" + cs[1].text),
         "context"),
        (lambda cs: changed(cs, 5, context="Guide > Data", embedding_text="Guide > Data\n\n" + cs[5].text), "context"),
        (lambda cs: changed(cs, 5, embedding_text=cs[5].context + "\n\n" + cs[5].text), "embedding_text"),
        (lambda cs: changed(cs, 2, chunk_type="text"), "chunk_type"),
        (lambda cs: changed(cs, 2, language=None), "language"),
        (lambda cs: changed(cs, 5, row_start=2), "row_start"),
        (lambda cs: cut(cs, 2, SMALL.index("make install")), "fits"),
        (lambda cs: cut(cs, 4, SMALL.index("| a | 1 |") + 4), "inside a table line"),
        (lambda cs: cut(cs, 4, SMALL.index("|---|--:|")), "header and delimiter"),
        (lambda cs: cut(cs, 4, SMALL.index("| a | 1 |")), "delimiter row and first data row"),
        (lambda cs: cut(cs, 2, SMALL.index("make\n")), "opening fence line"),
    ],
    ids=["not-a-slice", "out-of-order", "gap", "tail-dropped", "size-field", "title-path", "levels",
         "heading-in-context", "no-table-header", "table-join", "chunk-type", "language", "rows", "fence-cut",
         "row-cut", "header-cut", "delimiter-cut", "fence-line-cut"],
)
def test_checker_rejects_broken_chunks(breaking, expected):
    found = problems(SMALL, breaking(small_chunks()), 40)
    assert any(expected in p for p in found), found


def test_checker_on_sizes_with_context():
    chunks = small_chunks()
    assert any("> 20" in p for p in problems(SMALL, chunks, 20))
    assert any("context + join + text" in p for p in problems(SMALL, chunks, 40, size_includes_context=True))
    assert problems(SMALL, chunks, 60, size_includes_context=True) == []
    # A context shortened to the table header: only when the full one (34 chars with its join) is over half the size.
    header = "| k | v |\n|---|--:|"
    unflagged = changed(chunks, 5, context=header, embedding_text=header + "\n" + chunks[5].text)
    assert any("does not say so" in p for p in problems(SMALL, unflagged, 60, size_includes_context=True))
    flag = {**chunks[5].metadata, "context_shortened": True}
    short = changed(unflagged, 5, metadata=flag)
    assert problems(SMALL, short, 60, size_includes_context=True) == []
    assert any("context" in p for p in problems(SMALL, short, 80, size_includes_context=True))
    assert any("context" in p for p in problems(SMALL, short, 60))
    wrong_join = changed(short, 5, embedding_text=header + "\n\n" + chunks[5].text)
    assert any("embedding_text" in p for p in problems(SMALL, wrong_join, 60, size_includes_context=True))


SECTIONS = "# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1\n\n## C\n\nc\n\n# Z\n\nz\n"


def spans_of(text, *pieces):
    out, pos = [], 0
    for piece in pieces:
        start = text.index(piece, pos)
        out.append(SimpleNamespace(start=start, end=start + len(piece), text=piece))
        pos = start + len(piece)
    return out


@pytest.mark.parametrize(
    "pieces, apart, merged",
    [
        # (chunks, problems with merge_sections=False, with merge_sections=True)
        (["# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1", "## C\n\nc", "# Z\n\nz"], 0, 0),
        (["# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1\n\n## C\n\nc", "# Z\n\nz"], 0, 0),  # A kept whole
        (["# A\n\nintro", "## B\n\nb\n\n### B1\n\nb1\n\n## C\n\nc", "# Z\n\nz"], 1, 0),
        (["# A\n\nintro\n\n## B\n\nb", "### B1\n\nb1\n\n## C\n\nc", "# Z\n\nz"], 1, 1),
        (["# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1", "## C\n\nc\n\n# Z\n\nz"], 1, 1),
        (["# A\n\nintro\n\n## B\n\nb", "b1\n\n## C\n\nc", "# Z\n\nz"], 1, 1),
        ([SECTIONS.strip()], 0, 0),
        (["# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1\n\n## C\n\nc\n\n# Z", "z"], 1, 0),
    ],
    ids=["chain", "children-of-a", "siblings", "b1-then-uncle", "c-then-z", "mid-b1-then-uncle", "whole",
         "a-and-z-heading"],
)
def test_section_checker(pieces, apart, merged):
    chunks = spans_of(SECTIONS, *pieces)
    assert len(section_problems(SECTIONS, chunks, merge_sections=False)) == apart
    assert len(section_problems(SECTIONS, chunks, merge_sections=True)) == merged


# -- the corpus ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mixed_md() -> str:
    # tests/data/mixed.md (86 KB of the shared corpus's 3 MB file; CHUNKWISE_CORPUS=../shared/corpus runs the whole
    # file: the reference parses it once, about 3 s, and the checker takes about a second a case).
    return load("mixed.md")


@pytest.mark.parametrize("size_includes_context", [False, True], ids=["text-size", "context-in-size"])
@pytest.mark.parametrize("size", [256, 512, 1024])
def test_corpus(mixed_md, size, size_includes_context):
    text = mixed_md
    ch = chunker(size, size_includes_context=size_includes_context)
    chunks = ch.chunk(text)
    assert len(chunks) > len(text) // size
    assert_valid(text, chunks, size, size_includes_context=size_includes_context)
    assert ch.split(text) == [c.text for c in chunks]
    # The corpus exercises the rules: blocks that must stay whole, and tables too long to, whose later pieces
    # repeat the header.
    ref = ref_for(text)
    assert sum(b.end - b.start <= size for b in ref.structures) >= 20
    assert sum(b.kind == "table" and b.end - b.start > size for b in ref.structures) >= 5
    assert any(c.metadata["chunk_type"] == "table" and "\n" in c.context for c in chunks)


# -- hand-made cases -------------------------------------------------------------------------------------------------

WORDS = "river basin water quality survey station sample nitrogen phosphate flow season report".split()


def prose(n: int, k: int = 0) -> str:
    """A sentence of about n characters (at most n)."""
    out, i = [], k
    while len(" ".join(out)) + len(WORDS[i % len(WORDS)]) + 2 <= n:
        out.append(WORDS[i % len(WORDS)])
        i += 5
    return " ".join(out).capitalize() + "."


def fields(chunks, *names):
    return [tuple(c.metadata.get(n) if n not in ("context", "text") else getattr(c, n) for n in names)
            for c in chunks]


@pytest.mark.parametrize("merge_sections", [True, False])
def test_nested_headings(merge_sections):
    body = prose(70)
    text = f"# A\n\n{body}\n\n## B\n\n{body}\n\n### C\n\n{body}\n\n## D\n\n{body}\n"
    chunks = chunker(100, merge_sections=merge_sections).chunk(text)
    assert_valid(text, chunks, 100)
    assert [c.text.split("\n")[0] for c in chunks] == ["# A", "## B", "### C", "## D"]
    assert fields(chunks, "title_path", "headings", "context") == [
        (["A"], [1], ""),
        (["A", "B"], [1, 2], "A"),
        (["A", "B", "C"], [1, 2, 3], "A > B"),
        (["A", "D"], [1, 2], "A"),
    ]
    assert chunks[2].embedding_text == "A > B\n\n### C\n\n" + body


def test_setext_headings():
    b = [prose(70, k) for k in range(4)]
    text = f"Guide\n=====\n\n{b[0]}\n\nInstall\n-------\n\n{b[1]}\n\nUsage\n-----\n\n{b[2]}\n\n{b[3]}\n"
    chunks = chunker(100).chunk(text)
    assert_valid(text, chunks, 100)
    assert fields(chunks, "title_path", "headings", "context") == [
        (["Guide"], [1], ""),
        (["Guide", "Install"], [1, 2], "Guide"),
        (["Guide", "Usage"], [1, 2], "Guide"),
        (["Guide", "Usage"], [1, 2], "Guide > Usage"),
    ]
    assert chunks[1].text.startswith("Install\n-------") and chunks[3].text == b[3]


def test_hash_lines_inside_fences_are_not_headings():
    fences = [
        "```\n# not a heading\n```",
        "~~~\n# not a heading either\n~~~",
        "````md\n```\n# nor this\n```\n````",
    ]
    paras = [prose(60, k) for k in range(4)]
    text = "# Real\n\n" + "\n\n".join(p + "\n\n" + f for p, f in zip(paras, fences)) + "\n\n" + paras[3] + "\n"
    chunks = chunker(80).chunk(text)
    assert_valid(text, chunks, 80)
    assert all(c.metadata["title_path"] == ["Real"] for c in chunks)
    assert all(c.context in ("", "Real") for c in chunks)
    # Each fence is whole in one chunk, and a chunk starts after the last one.
    for f in fences:
        assert any(f in c.text for c in chunks), f
    assert chunks[-1].text == paras[3] and chunks[-1].context == "Real"
    inner = next(c for c in chunks if "# nor this" in c.text)
    assert inner.text.endswith("```\n````") and inner.metadata["chunk_type"] == "code"
    assert inner.metadata["language"] == "md"


TABLE_HEADER = "| name | pattern | note |"
TABLE_DELIM = "|:-----|:-------:|-----:|"


def pipe_rows(n):
    return [f"| row {i} | `a|b` and `x\\|y` | c \\| d {i} |" for i in range(n)]


def test_table_with_inline_pipes_is_cut_between_rows_only():
    rows = pipe_rows(40)
    table = "\n".join([TABLE_HEADER, TABLE_DELIM] + rows)
    # The paragraphs around are too long to share a chunk with a row: every table piece is only rows.
    text = f"# Patterns\n\n{prose(180)}\n\n{table}\n\n{prose(190, 3)}\n"
    chunks = chunker(200).chunk(text)
    assert_valid(text, chunks, 200)
    pieces = [c for c in chunks if c.metadata["chunk_type"] == "table"]
    assert len(pieces) >= 5
    assert all(c.metadata["total_rows"] == 40 for c in pieces)
    for c in pieces[1:]:
        assert c.context == f"Patterns\n\n{TABLE_HEADER}\n{TABLE_DELIM}"
        assert c.embedding_text == c.context + "\n" + c.text
        assert c.text == "\n".join(rows[c.metadata["row_start"] : c.metadata["row_end"]])
    spans = [(c.metadata["row_start"], c.metadata["row_end"]) for c in pieces]
    assert spans[0][0] == 0 and spans[-1][1] == 40
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))


def test_a_table_that_fits_stays_whole():
    table = "\n".join([TABLE_HEADER, TABLE_DELIM] + pipe_rows(3))
    text = f"{prose(150)}\n\n{table}\n\n{prose(150, 2)}\n"
    chunks = chunker(200).chunk(text)
    assert_valid(text, chunks, 200)
    (whole,) = [c for c in chunks if TABLE_HEADER in c.text]
    assert table in whole.text


def test_a_fence_that_fits_stays_whole():
    code = "```python\n" + "\n".join(f"total_{i} = compute(step={i}, scale=0.{i})" for i in range(5)) + "\n```"
    before, after = prose(200), prose(150, 1)
    text = f"{before}\n\n{code}\n\n{after}\n"
    assert len(code) <= 300 < len(before) + len(code)
    chunks = chunker(300).chunk(text)
    assert_valid(text, chunks, 300)
    assert [c.text for c in chunks] == [before, code, after]
    assert chunks[1].metadata["chunk_type"] == "code" and chunks[1].metadata["language"] == "python"


LIST = (
    "1. Fetch the sources:\n\n"
    "   ```sh\n   git clone https://example.com/repo.git\n   ```\n\n"
    "2. Configure the build:\n"
    "   - release mode\n"
    "   - with tests\n"
    "     - unit tests\n"
    "     - integration tests\n"
    "3. Build it:\n\n"
    "   ```sh\n   make -j2\n   ```"
)


def test_a_list_stays_whole_with_its_lead_in():
    lead_in = "To build the project, follow these steps:"
    filler = prose(150)
    text = f"# Build\n\n{filler}\n\n{lead_in}\n\n{LIST}\n\n{prose(100, 4)}\n"
    size = 300
    assert len(lead_in) + 2 + len(LIST) <= size < len(filler) + len(lead_in) + len(LIST) + 4
    chunks = chunker(size).chunk(text)
    assert_valid(text, chunks, size)
    holder = [c for c in chunks if lead_in in c.text]
    assert len(holder) == 1 and f"{lead_in}\n\n{LIST}" in holder[0].text


ZH_3 = "# 第三章 环境保护"
ZH_31 = "## 3.1 大气污染防治"
ZH_32 = "## 3.2 水生态修复"
ZH_PARAS = [
    "推进河湖生态保护修复，实施水系连通和水美乡村建设，恢复河湖生态缓冲带，提升水源涵养能力，改善水生生物栖息环境。",
    "加强重点流域综合治理，开展入河排污口排查整治，控制农业面源污染，推动城镇污水管网全覆盖，提高污水收集处理效能。",
    "建立健全水生态监测评估体系，定期发布评估结果，完善生态补偿机制，鼓励社会资本参与水生态保护修复项目的建设运营。",
]


@pytest.mark.parametrize("size_includes_context", [False, True])
def test_cjk_headings_in_context(size_includes_context):
    text = f"{ZH_3}\n\n{ZH_PARAS[0]}\n\n{ZH_31}\n\n{ZH_PARAS[1]}\n\n{ZH_32}\n\n" + "\n\n".join(ZH_PARAS) + "\n"
    size = 90 if not size_includes_context else 110
    chunks = chunker(size, size_includes_context=size_includes_context).chunk(text)
    assert_valid(text, chunks, size, size_includes_context=size_includes_context)
    path = ["第三章 环境保护", "3.2 水生态修复"]
    in_32 = [c for c in chunks if c.start > text.index(ZH_32)]
    assert len(in_32) >= 2 and all(c.metadata["title_path"] == path for c in in_32)
    assert all(c.context == "第三章 环境保护 > 3.2 水生态修复" for c in in_32)
    assert in_32[-1].embedding_text == "第三章 环境保护 > 3.2 水生态修复\n\n" + ZH_PARAS[2]
    # A heading that starts a chunk is in its text and title_path, not in its context.
    (starts_32,) = [c for c in chunks if c.text.startswith(ZH_32)]
    assert starts_32.metadata["title_path"] == path and starts_32.metadata["headings"] == [1, 2]
    assert starts_32.context == "第三章 环境保护"
    assert starts_32.embedding_text == "第三章 环境保护\n\n" + starts_32.text
    (starts_3,) = [c for c in chunks if c.text.startswith(ZH_3)]
    assert starts_3.context == "" and starts_3.embedding_text == starts_3.text


@pytest.mark.parametrize("closer", ["---", "..."])
def test_front_matter_is_not_a_heading(closer):
    front = f"---\ntitle: 环境报告\ntags: [water, policy]\n{closer}"
    text = f"{front}\n\n# Intro\n\n{prose(60)}\n\n## Next\n\n{prose(60, 2)}\n"
    chunks = chunker(80).chunk(text)
    assert_valid(text, chunks, 80)
    assert chunks[0].start == 0 and chunks[0].metadata["title_path"] == []
    assert all("tags" not in " ".join(c.metadata["title_path"]) + c.context for c in chunks)
    assert [c.metadata["title_path"] for c in chunks if c.start > len(front)][-1] == ["Intro", "Next"]


def test_a_setext_underline_after_a_paragraph_is_still_a_heading():
    # The counterpart of the front-matter case: the same lines not at the start of the text are a Setext heading.
    text = f"{prose(60)}\n\ntitle: x\n---\n\n{prose(60, 1)}\n"
    chunks = chunker(70).chunk(text)
    assert_valid(text, chunks, 70)
    assert chunks[-1].metadata["title_path"] == ["title: x"]


TABLE_ROWS = 5000
DATA_HEADER = "| id | station | value |"
DATA_DELIM = "|---:|:--------|------:|"


def data_rows(n):
    return [f"| {i} | S-{i % 97:02d} | {i * 37 % 1000 / 10:.1f} |" for i in range(n)]


@pytest.mark.parametrize("heading", ["", "# Measurements\n\n"], ids=["bare", "under-heading"])
@pytest.mark.parametrize("size_includes_context", [False, True])
def test_a_long_table_is_split_between_rows(heading, size_includes_context):
    rows = data_rows(TABLE_ROWS)
    table = "\n".join([DATA_HEADER, DATA_DELIM] + rows)
    text = heading + table + "\n"
    chunks = chunker(512, size_includes_context=size_includes_context).chunk(text)
    assert_valid(text, chunks, 512, size_includes_context=size_includes_context)
    start = text.index(DATA_HEADER)
    pieces = [c for c in chunks if c.end > start]
    assert len(pieces) > len(table) // 512
    prefix = "Measurements\n\n" if heading else ""
    spans = []
    for c in pieces:
        first = c.start <= start
        if first and heading and c.metadata.get("chunk_type") != "table":
            # The heading and the first rows in one chunk: its rows are read from its text.
            r0, r1 = 0, c.text.count("\n") - 3
        else:
            r0, r1 = c.metadata["row_start"], c.metadata["row_end"]
            assert c.metadata["chunk_type"] == "table" and c.metadata["total_rows"] == TABLE_ROWS
        assert 0 <= r0 < r1 <= TABLE_ROWS
        body = "\n".join(rows[r0:r1])
        if first:
            assert c.text.endswith(f"{DATA_HEADER}\n{DATA_DELIM}\n{body}")
            assert c.embedding_text.endswith(f"{DATA_HEADER}\n{DATA_DELIM}\n{body}")
        else:
            assert c.text == body
            assert c.context == f"{prefix}{DATA_HEADER}\n{DATA_DELIM}"
            assert c.embedding_text == f"{prefix}{DATA_HEADER}\n{DATA_DELIM}\n{body}"
        # What an embedding model gets is itself a table with these rows.
        tokens = MarkdownIt("commonmark").enable("table").parse(c.embedding_text)
        assert [t.type for t in tokens].count("tr_open") == r1 - r0 + 1
        spans.append((r0, r1))
    assert spans[0][0] == 0 and spans[-1][1] == TABLE_ROWS
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))


CODE_LINES = 50_000


@pytest.mark.parametrize("heading", ["", "# Generated\n\n"], ids=["bare", "under-heading"])
def test_a_long_fence_is_split_between_lines(heading):
    lines = [f"VALUE_{i:05d} = {i * 7919 % 100003}" for i in range(CODE_LINES)]
    lines[7] = "# a comment, not a heading"
    fence = "```python\n" + "\n".join(lines) + "\n```"
    text = heading + fence + "\n"
    chunks = chunker(512).chunk(text)
    assert_valid(text, chunks, 512)
    start = text.index("```python")
    pieces = [c for c in chunks if c.end > start]
    assert len(pieces) > len(fence) // 512
    prefix = "Generated\n\n" if heading else ""
    parser = MarkdownIt("commonmark")
    seen = []
    for c in pieces:
        assert c.metadata["title_path"] == (["Generated"] if heading else [])
        if c.start > start:
            assert c.metadata["chunk_type"] == "code" and c.metadata["language"] == "python"
            assert c.context == prefix + "```python"
            assert c.embedding_text == prefix + "```python\n" + c.text
            code = "```python\n" + c.text
        else:
            code = text[start : c.end]
            assert c.embedding_text.endswith(code)
        if not heading:
            assert c.embedding_text.startswith("```python\n")
        # What an embedding model gets is itself a python fence with these lines.
        (tok,) = [t for t in parser.parse(code) if t.type == "fence"]
        assert tok.info == "python"
        seen += tok.content.split("\n")[:-1] if tok.content.endswith("\n") else tok.content.split("\n")
    assert seen == lines


def merge_doc():
    b = [prose(45, k) for k in range(10)]
    return (
        f"# Manual\n\n{b[0]}\n\n## Install\n\n{b[1]}\n\n## Configure\n\n{b[2]}\n\n### Files\n\n{b[3]}\n\n"
        f"### Variables\n\n{b[4]}\n\n## Run\n\n{b[5]}\n\n# Appendix\n\n{b[6]}\n\n## Licence\n\n{b[7]}\n\n"
        f"## Credits\n\n{b[8]}\n\n## History\n\n{b[9]}\n"
    )


def merges_siblings(text, chunk) -> bool:
    """Whether the chunk holds two sibling sections without their whole parent."""
    ref = ref_for(text)
    heads = [k for k, h in enumerate(ref.headings) if chunk.start <= h.start < chunk.end]
    parents = [ref.headings[k].parent for k in heads]
    return any(
        parents.count(p) > 1 and (p is None or ref.headings[p].start < chunk.start or section_end(ref, p) > chunk.end)
        for p in set(parents)
    )


@pytest.mark.parametrize("size", [130, 200, 400])
def test_merge_sections_false_keeps_siblings_apart(size):
    text = merge_doc()
    chunks = chunker(size, merge_sections=False).chunk(text)
    assert_valid(text, chunks, size)
    assert section_problems(text, chunks, merge_sections=False) == []
    assert not any(merges_siblings(text, c) for c in chunks)


@pytest.mark.parametrize("size", [130, 200, 400])
def test_merge_sections_true_stays_under_the_shared_parent(size):
    text = merge_doc()
    merged = chunker(size, merge_sections=True).chunk(text)
    assert_valid(text, merged, size)
    assert section_problems(text, merged, merge_sections=True) == []
    if size <= 200:  # neither top-level section fits whole: a chunk holding siblings has merged them
        assert any(merges_siblings(text, c) for c in merged)
    assert len(merged) <= len(chunker(size, merge_sections=False).chunk(text))


def token_cases():
    pytest.importorskip("tokenizers")  # the trained tokenizer and its reference count
    from chunkwise import Tokenizer
    from tokenizer_assets import hf_reference, tiktoken_encoding, trained

    json_text = trained("bytelevel")
    ref = hf_reference(json_text)
    cases = [("bytelevel", Tokenizer.from_str(json_text, add_special_tokens=False),
              lambda s: len(ref.encode(s, add_special_tokens=False).ids))]
    enc = tiktoken_encoding("cl100k_base")
    if enc is not None:
        cases.append(("cl100k_base", Tokenizer.tiktoken("cl100k_base"), lambda s: len(enc.encode_ordinary(s))))
    return cases


def token_doc():
    rows = "\n".join([DATA_HEADER, DATA_DELIM] + data_rows(60))
    code = "```python\n" + "\n".join(f"x_{i} = compute({i})  # step {i}" for i in range(60)) + "\n```"
    return (
        f"{merge_doc()}\n{ZH_3}\n\n{ZH_PARAS[0]}\n\n{ZH_32}\n\n" + "\n\n".join(ZH_PARAS)
        + f"\n\n## Data\n\n{rows}\n\n## Code\n\n{code}\n\n## Steps\n\n{LIST}\n"
    )


@pytest.mark.parametrize("size_includes_context", [False, True])
@pytest.mark.parametrize("size", [48, 128])
def test_sizes_in_tokens(size, size_includes_context):
    text = token_doc()
    for name, tok, count in token_cases():
        chunks = chunker(size, unit="tokens", tokenizer=tok, size_includes_context=size_includes_context).chunk(text)
        assert_valid(text, chunks, size, measure=count, size_includes_context=size_includes_context)
        assert max(c.size for c in chunks) > size // 2, name  # sizes are counted in tokens, not characters


def test_user_metadata_is_kept_beside_the_markdown_fields():
    text = f"# A\n\n{prose(60)}\n\n## B\n\n{prose(60, 1)}\n"
    chunks = chunker(80).chunk(text, metadata={"source": "a.md"})
    assert_valid(text, chunks, 80)
    assert all(c.metadata["source"] == "a.md" for c in chunks)
    assert chunks[-1].metadata["title_path"] == ["A", "B"]


def test_empty_and_blank_texts():
    assert chunker(64).chunk("") == []
    assert chunker(64).chunk("\n\n  \n") == []


@pytest.mark.parametrize("caption", ["**Table 3. Results by region**", "表 3：各地区的结果"])
def test_a_table_keeps_its_caption_with_it_and_in_the_context_of_its_pieces(caption):
    rows = "\n".join(f"| region {i} | {100 + i} | {200 + i} |" for i in range(30))
    table = f"| region | 2023 | 2024 |\n|---|---|---|\n{rows}"
    filler = "Some text before the table, long enough to fill most of a chunk. " * 2
    text = f"# Report\n\n{filler}\n\n{caption}\n\n{table}\n\nText after.\n"
    # The caption and the table fit together: one chunk holds both, and the text before goes alone.
    whole = len(caption) + 2 + len(table)
    chunks = MarkdownChunker(whole + 5, size_includes_context=False).chunk(text)
    holder = [c for c in chunks if caption in c.text]
    assert len(holder) == 1 and holder[0].text.startswith(caption) and table in holder[0].text
    assert holder[0].metadata["chunk_type"] == "table"
    # The table alone fits, not with its caption: the table stays whole, the caption in its context.
    chunks = MarkdownChunker(len(table) + 5, size_includes_context=False).chunk(text)
    whole_table = [c for c in chunks if c.text == table]
    assert len(whole_table) == 1 and whole_table[0].context == f"Report\n\n{caption}"
    # Cut into pieces: the first piece is the caption, the header and the first rows (never the caption alone);
    # every piece after it carries the caption and the header.
    chunks = MarkdownChunker(200).chunk(text)
    header = "| region | 2023 | 2024 |\n|---|---|---|"
    first = [c for c in chunks if caption in c.text]
    assert len(first) == 1 and first[0].text.startswith(f"{caption}\n\n{header}\n| region 0 |"), first
    assert first[0].context == "Report" and first[0].metadata["chunk_type"] == "table"
    pieces = [c for c in chunks if c.metadata.get("chunk_type") == "table" and c.text.startswith("| region ")]
    assert len(pieces) >= 3
    for c in [*first, *pieces]:
        if c is not first[0]:
            assert c.context == f"Report\n\n{caption}\n\n{header}", c
        assert len(c.context) + len(c.context_sep) + len(c.text) <= 200
    assert all(text[c.start : c.end] == c.text for c in chunks)
