"""The invariants of a HierarchicalChunker result: exact slices at every level, children tiling their parents,
relations and chains.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Dict


def by_depth(chunks) -> Dict[int, list]:
    out: Dict[int, list] = defaultdict(list)
    for c in chunks:
        out[c.metadata["depth"]].append(c)
    return out


def check_hierarchy(text: str, chunks, sizes=None, measure=len) -> None:
    """Every property a hierarchy must have: exact slices, children tiling parents, consistent relations."""
    by_id = {c.id: c for c in chunks}
    assert len(by_id) == len(chunks), "ids are unique"
    levels = by_depth(chunks)
    assert sorted(levels) == list(range(len(levels)))
    for i, c in enumerate(chunks):
        assert c.index == i
        assert text[c.start : c.end] == c.text
        d = c.metadata["depth"]
        if sizes is not None:
            assert measure(c.text.strip() if d == 0 else c.text) <= sizes[d], (d, c.size)
        # Parent and children agree.
        parent = c.metadata["parent_id"]
        if d == 0:
            assert parent is None and c.metadata["root_id"] == c.id
        else:
            p = by_id[parent]
            assert p.metadata["depth"] == d - 1
            assert c.id in p.metadata["children_ids"]
            assert p.start <= c.start <= c.end <= p.end
            assert c.metadata["root_id"] == p.metadata["root_id"]
        kids = [by_id[k] for k in c.metadata["children_ids"]]
        if d + 1 < len(levels):
            # Children tile the parent: no gap, no overlap, in order.
            assert kids, f"chunk {i} has no children"
            assert kids[0].start == c.start and kids[-1].end == c.end
            for a, b in zip(kids, kids[1:]):
                assert a.end == b.start
            assert all(k.metadata["parent_id"] == c.id for k in kids)
        else:
            assert kids == []
    for d, level in levels.items():
        # prev/next chain the whole level, in document order, across parents.
        assert level[0].prev_id is None and level[-1].next_id is None
        for a, b in zip(level, level[1:]):
            assert a.next_id == b.id and b.prev_id == a.id
            assert a.end <= b.start
    deepest = levels[max(levels)]
    # The last level covers the content of the document.
    covered = "".join(c.text for c in deepest)
    assert re.sub(r"\s+", "", covered) == re.sub(r"\s+", "", text)
