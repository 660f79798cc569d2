"""ClauseChunker on real licences (tests/data/licences, see SOURCES.md there): the title paths a reader of the
licence expects, and the chunk invariants on every licence.

Licences are plain text wrapped at about 70 columns, with a preamble before their numbered terms, enumerations
run into sentences ("(1) assert copyright on the software, and (2) offer you this License") and numbers that a
wrap puts at a line start ("... added under section\\n    7.  This requirement ..."). None of these is a
provision.
"""

from __future__ import annotations

import re

import pytest

from chunkwise import ClauseChunker
from support.corpus import DATA

LICENCES = DATA / "licences"
NAMES = ["GPL-3", "GPL-2", "LGPL-2.1", "LGPL-3", "Apache-2.0", "MPL-2.0", "GFDL-1.3", "Artistic"]
# The numbers of each licence's top-level sections, in order.
TOP_LEVEL = {
    "GPL-3": range(0, 18),
    "GPL-2": range(0, 13),
    "LGPL-2.1": range(0, 17),
    "LGPL-3": range(0, 7),
    "Apache-2.0": range(1, 10),
    "MPL-2.0": range(1, 11),
    "GFDL-1.3": range(0, 12),
    "Artistic": range(1, 11),
}


def read(name: str) -> str:
    return (LICENCES / f"{name}.txt").read_text(encoding="utf-8")


GPL3 = read("GPL-3")
GPL3_SECTIONS = [
    "0. Definitions.",
    "1. Source Code.",
    "2. Basic Permissions.",
    "3. Protecting Users' Legal Rights From Anti-Circumvention Law.",
    "4. Conveying Verbatim Copies.",
    "5. Conveying Modified Source Versions.",
    "6. Conveying Non-Source Forms.",
    "7. Additional Terms.",
    "8. Termination.",
    "9. Acceptance Not Required for Having Copies.",
    "10. Automatic Licensing of Downstream Recipients.",
    "11. Patents.",
    "12. No Surrender of Others' Freedom.",
    "13. Use with the GNU Affero General Public License.",
    "14. Revised Versions of this License.",
    "15. Disclaimer of Warranty.",
    "16. Limitation of Liability.",
    "17. Interpretation of Sections 15 and 16.",
]


def check(text: str, chunks, size: int) -> None:
    """The invariants every chunk list keeps: exact slices, in order, no overlap, only whitespace left out, each
    chunk within the size, each title of a path taken from the text."""
    assert chunks
    covered = 0
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.start >= covered
        assert not text[covered : c.start].strip(), text[covered : c.start]
        assert 0 < c.size <= size
        assert all(title in text for title in c.metadata["title_path"])
        covered = c.end
    assert not text[covered:].strip()


def paths(chunks) -> list[list[str]]:
    return [c.metadata["title_path"] for c in chunks]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", [200, 500, 1000])
def test_invariants_on_every_licence(name, size):
    text = read(name)
    check(text, ClauseChunker(size).chunk(text), size)
    check(text, ClauseChunker(size, merge_sections=False).chunk(text), size)


@pytest.mark.parametrize("size", [200, 500])
def test_gpl3_preamble_enumeration_parents_nothing(size):
    # "(1) assert copyright on the software, and (2) offer you this License" runs inside a preamble sentence.
    chunks = ClauseChunker(size).chunk(GPL3)
    check(GPL3, chunks, size)
    assert not any("(1)" in p for p in paths(chunks))
    terms = GPL3.index("0. Definitions.")
    for c in chunks:
        path = c.metadata["title_path"]
        if c.start < terms:
            assert path == [], (c.start, path)
        else:
            assert path and path[0] in GPL3_SECTIONS, (c.start, path)


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("size", [200, 500])
def test_gpl3_section_5_items_sit_under_section_5(size, merge):
    # In item b), "... added under section\n    7.  This requirement ..." is a wrapped number, not provision 7.
    chunks = ClauseChunker(size, merge_sections=merge).chunk(GPL3)
    check(GPL3, chunks, size)
    start = GPL3.index("  5. Conveying Modified Source Versions.")
    end = GPL3.index("  6. Conveying Non-Source Forms.")
    items = {m.start(): m.group(1) for m in re.finditer(r"(?m)^    ([a-d]\)) ", GPL3[:end]) if m.start() > start}
    assert list(items.values()) == ["a)", "b)", "c)", "d)"]
    inside = [c for c in chunks if start <= c.start < end]
    assert len(inside) >= 2
    for c in inside:
        item = [label for at, label in items.items() if at <= c.start]
        want = ["5. Conveying Modified Source Versions."] + item[-1:]
        assert c.metadata["title_path"] == want, (c.start, c.text[:40])
    # The wrapped "7." is text of item b): a chunk that starts at it or after it, up to item c), is in b).
    wrapped = GPL3.index("7.  This requirement")
    after = [c for c in inside if wrapped <= c.start < GPL3.index("    c) ")]
    assert all(c.metadata["title_path"][1:] == ["b)"] for c in after)


@pytest.mark.parametrize("size", [200, 500])
def test_gpl3_sections_are_top_level_in_order(size):
    chunks = ClauseChunker(size, merge_sections=False).chunk(GPL3)
    check(GPL3, chunks, size)
    tops = []
    for p in paths(chunks):
        if p and (not tops or tops[-1] != p[0]):
            tops.append(p[0])
    assert tops == GPL3_SECTIONS
    # Only lettered items sit below a section.
    assert all(len(p) <= 1 or re.fullmatch(r"[a-f]\)", p[1]) for p in paths(chunks))


@pytest.mark.parametrize("name", NAMES)
def test_top_level_numbering_of_every_licence(name):
    text = read(name)
    chunks = ClauseChunker(500, merge_sections=False).chunk(text)
    numbers = []
    for p in paths(chunks):
        if not p:
            continue
        # Every path starts at a numbered section: no preamble enumeration or wrapped number above it.
        match = re.match(r"(\d+)\.", p[0])
        assert match, p
        if not numbers or numbers[-1] != int(match.group(1)):
            numbers.append(int(match.group(1)))
    assert numbers == list(TOP_LEVEL[name])


@pytest.mark.parametrize("name, wrapped", [("GPL-2", "(2) offer you this license"), ("GFDL-1.3", "(2) were thus")])
def test_wrapped_enumeration_is_no_provision(name, wrapped):
    # "... with two steps: (1) copyright the software, and\n(2) offer you ..." (GPL-2's preamble), "... (1) had no
    # cover texts or invariant sections, and\n(2) were thus incorporated ..." (GFDL 11): the "(2)" a wrap put at a
    # line start opens nothing.
    text = read(name)
    assert "\n" + wrapped in text
    chunks = ClauseChunker(200, merge_sections=False).chunk(text)
    check(text, chunks, 200)
    assert not any("(2)" in p for p in paths(chunks))
