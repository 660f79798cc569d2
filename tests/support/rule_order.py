"""The order of MarkdownChunker's rules where they conflict, counted on a text's chunks against the independent
reference (md_oracle, through markdown_checks.Ref): the cap is never exceeded > a block that fits (table, fence,
list with its lead-in) is never split > a heading never ends a chunk > a heading is not a chunk of its own.

Shared by tests/structure/test_rule_order.py (generated Markdown, the corpus) and benches/markdown_rules.py (the
Markdown files found on a machine).
"""

from __future__ import annotations

import bisect
from typing import Dict, List

from support.markdown_checks import Measure, expected_fields, problems, ref_for


def counts(text: str, chunks, size: int, *, measure: Measure = len, size_includes_context: bool = False) -> Dict:
    """What the chunks of ``text`` do that the rules forbid, and how often they had the chance to: ``over_cap``
    (chunks over ``size``, their context counted in that mode), ``blocks`` / ``split_that_fit`` (code blocks, tables
    and lists, and those cut though they fit, alone or with the heading above them), ``headings`` /
    ``heading_ends`` (a chunk with other text ending with a heading that content follows: not a heading of an
    empty section, which another heading of its level or above follows), ``heading_alone`` (a
    chunk of nothing but headings that content follows) / ``alone_needlessly`` (such a chunk whose next block would
    have fitted with it) / ``alone_untyped`` (such a chunk whose ``chunk_type`` is not ``heading``), ``lead_ins`` /
    ``lead_ins_apart`` (a list's or table's lead-in in another chunk than the block's first line) /
    ``lead_ins_apart_that_fit`` (of those, the lead-ins that fitted with the whole block)."""
    ref = ref_for(text)
    found = problems(text, chunks, size, measure=measure, size_includes_context=size_includes_context, limit=10**9)
    out = {
        "chunks": len(chunks),
        "over_cap": sum(1 for p in found if "> " + str(size) in p and ("size " in p or "context + join" in p)),
        "blocks": len(ref.structures),
        "split_that_fit": sum(1 for p in found if "fits (" in p),
        "headings": len(ref.headings),
        "heading_ends": 0,
        "heading_alone": 0,
        "alone_needlessly": 0,
        "alone_untyped": 0,
        "lead_ins": 0,
        "lead_ins_apart": 0,
        "lead_ins_apart_that_fit": 0,
    }
    heading_by_end = {h.end: h for h in ref.headings}
    heading_lines = {k for h in ref.headings for k in range(h.line, ref.line(h.end) + 1)}
    ends = sorted({c.end for c in chunks})
    for i, c in enumerate(chunks):
        h = heading_by_end.get(c.start + len(c.text.rstrip()))
        if h is None or not text[c.end :].strip() or _empty_section(ref, h):
            continue
        only_headings = all(
            not line.strip() or ref.line(c.start + off) in heading_lines for line, off in _lines(c.text)
        )
        if not only_headings:
            out["heading_ends"] += 1
            continue
        out["heading_alone"] += 1
        if c.metadata.get("chunk_type") != "heading":
            out["alone_untyped"] += 1
        nxt = chunks[i + 1] if i + 1 < len(chunks) else None
        if nxt is not None:
            # The heading would have fitted with the next chunk's first block, had that block stayed whole with it.
            block = next((b for b in ref.structures if b.start >= nxt.start and b.start < nxt.end), None)
            if block is not None and block.end <= nxt.end:
                need = measure(text[h.start if c.start > h.start else c.start : block.end])
                if size_includes_context and c.context:
                    need += measure(c.context) + 2
                if need <= size:
                    out["alone_needlessly"] += 1
    blocks = {b.start: b for b in ref.structures}
    for start, span in ref.lead_ins.items():
        if span is None or start not in blocks:
            continue
        out["lead_ins"] += 1
        k = bisect.bisect_left(ends, span[1])
        if k < len(ends) and ends[k] <= start:
            out["lead_ins_apart"] += 1
            # Apart though the lead-in and its block fit in one chunk together (with the context a chunk starting at
            # the lead-in, or at the heading right above it, would carry).
            above = ref.heading_above(span[0])
            starts = [span[0]] + ([above.start] if above is not None else [])
            need = min(_cost(ref, a, blocks[start].end, size, measure, size_includes_context) for a in starts)
            if need <= size:
                out["lead_ins_apart_that_fit"] += 1
    return out


def _cost(ref, start: int, end: int, size: int, measure: Measure, size_includes_context: bool) -> int:
    """What a chunk of ``text[start:end]`` counts: its text, and in that mode the context it carries (shortened to
    half the size at most)."""
    n = measure(ref.text[start:end])
    if size_includes_context:
        exp = expected_fields(ref, start, end, [t for _, t in ref.ancestry[ref.line(start)]])
        if exp["context"]:
            n += min(measure(exp["context"]) + measure(exp["join"]), size // 2)
    return n


def _empty_section(ref, h) -> bool:
    """Whether nothing but a heading of its level or above follows heading ``h``: no content is under it."""
    k = ref.headings.index(h)
    nxt = ref.headings[k + 1] if k + 1 < len(ref.headings) else None
    return nxt is not None and not ref.text[h.end : nxt.start].strip() and nxt.level <= h.level


def _lines(s: str) -> List[tuple]:
    out, off = [], 0
    for line in s.split("\n"):
        out.append((line, off))
        off += len(line) + 1
    return out


def add(total: Dict, more: Dict) -> Dict:
    for k, v in more.items():
        total[k] = total.get(k, 0) + v
    return total
