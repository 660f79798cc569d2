"""The checker of MarkdownChunker's output against the independent reference (md_oracle): every invariant in one place,
with the section rules.
"""

from __future__ import annotations

import bisect
from types import SimpleNamespace
from typing import Callable, List, Optional
from support import md_oracle as oracle

try:
    import regex
except ImportError:
    regex = None


Measure = Callable[[str], int]


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


def shortened_contexts(exp: dict, size: int, measure: Measure, budget: Optional[int] = None) -> List[tuple]:
    """(context, join) pairs a chunk may carry instead of the full context when the context counts toward the size.

    The API leaves open what happens when the context is too big to leave room for text (a table header can be
    longer than the size). Read here as: only when the full context and its join take more than half of ``size`` may
    it be shortened, by leaving out outer headings and/or the table header / fence line, to at most half. A whole
    list whose lead-in is in its context has ``budget`` (see ``context_budget``) instead of half."""
    half = size // 2 if budget is None else budget
    full = exp["context"]
    if measure(full) + measure(exp["join"]) <= half:
        return []
    out = []
    path = exp["path"]
    for block in ([exp["block"], None] if exp["block"] is not None else [None]):
        join = exp["block_join"] if block is not None else "\n\n"
        for k in range(len(path) + 1):
            ctx = render_context(path[k:], block)
            if not ctx or measure(ctx) + measure(join) <= half:
                out.append((ctx, join))
    return out


def cut_context(ctx: str, exp: dict, size: int, measure: Measure, budget: Optional[int] = None) -> Optional[str]:
    """The join of ``ctx`` if it is the context ``exp`` cut short when even its nearest heading and block do not fit
    in half the size (or ``budget``, as for ``shortened_contexts``): the nearest heading (or none) and the start of
    the block (a table header's first columns, or the start of a fence line or lead-in followed by an ellipsis);
    with no block, the start of the nearest heading and an ellipsis. None if it is not."""
    path, block = exp["path"], exp["block"]
    half = size // 2 if budget is None else budget
    join = exp["block_join"] if block is not None else "\n\n"
    if measure(exp["context"]) + measure(exp["join"]) <= half:
        return None  # the whole context fits: nothing may be cut
    if not ctx or measure(ctx) + measure(join) > half:
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


def context_budget(ref: Ref, start: int, end: int, size: int, measure: Measure) -> Optional[int]:
    """What the context of the chunk ``[start:end]`` may take when it is less than half the size: the chunk holds a
    whole list that starts it and whose lead-in is in its context (the lead-in does not fit with it), and the list
    with the context's title path fits; then the context takes at most what the list leaves. None otherwise."""
    block = next((b for b in ref.structures if b.start == start and b.kind == "list"), None)
    if block is None or not ref.lead_ins.get(start) or end < len(ref.text[: block.end].rstrip()):
        return None
    room = size - measure(ref.text[start : block.end].rstrip())
    return room if 0 <= room < size // 2 else None


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
            budget = context_budget(ref, c.start, c.end, size, measure)
            allowed = shortened_contexts(exp, size, measure, budget) if size_includes_context else []
            match = [j for ctx, j in allowed if lines_stripped(ctx) == lines_stripped(c.context)]
            cut = cut_context(c.context, exp, size, measure, budget) if size_includes_context else None
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
        # The rules in their order: the cap > a block that fits is never split > a heading never ends a chunk > a
        # heading is not a chunk of its own. A block that fits, alone or with the heading right above it, is whole
        # (the heading is a chunk of its own when the two do not fit together).
        first = b.start
        if b.kind in ("list", "table") and ref.lead_ins.get(b.start):
            first = ref.lead_ins[b.start][0]
        above = ref.heading_above(first)
        starts = [first] + ([above.start] if above is not None else [])

        def cost(start: int) -> int:
            n = measure(text[start : b.end])
            if size_includes_context:
                # The context a chunk starting there carries (a list's lead-in included); a context over half the
                # size may be shortened to at most half.
                exp = expected_fields(ref, start, b.end, [t for _, t in ref.ancestry[ref.line(start)]])
                if exp["context"]:
                    n += min(measure(exp["context"]) + measure(exp["join"]), size // 2)
            return n

        need = min(cost(start) for start in starts)
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


SMALL = (
    "# Guide\n\nIntro paragraph.\n\n## Install\n\nRun this:\n\n```sh\nmake\nmake install\n```\n\n"
    "## Data\n\n| k | v |\n|---|--:|\n| a | 1 |\n| b | 2 |\n| c | 3 |\n\n- item one\n- item two\n"
)


def cut(chunks, i, at):
    """Chunk i cut in two at offset ``at``."""
    c = chunks[i]
    return chunks[:i] + [fake_chunk(SMALL, c.start, at), fake_chunk(SMALL, at, c.end)] + chunks[i + 1 :]
