"""Boilerplate in a run: the chunks made only of lines half of the tree shares (a site's footer) are flagged
(``"boilerplate": true``), or left out with ``skip_boilerplate``; which lines are boilerplate depends on the whole tree,
and the store still equals a fresh ingestion when another document changes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Dict, List

import pytest

pytest.importorskip("lancedb")

from chunkwise import RecursiveChunker  # noqa: E402
from chunkwise.ingest import ingest  # noqa: E402
from support.ingest_tree import HashEmbedder, by_id, snapshot  # noqa: E402

FOOTER = "© 2026 Example Corp. All rights reserved.\nPrivacy | Terms | Contact us"
WORDS = ("river", "stone", "lantern", "harbor", "meadow", "copper", "violet", "thunder", "orchard", "glacier")
CHUNKER = RecursiveChunker(200)


def page(i: int, footer: bool = True) -> str:
    """A page of its own text (paragraphs of about 150 characters, so that the footer is a chunk of its own)."""
    paragraphs = []
    for j in range(3):
        # Each page's words its own by letters (digits read alike: "river3" and "river4" are one word to it).
        words = [WORDS[(i * 7 + j * 3 + k) % len(WORDS)] + "abcdefghij"[i] + "abcdefghij"[j] for k in range(18)]
        paragraphs.append(" ".join(words).capitalize() + ".")
    return "\n\n".join(paragraphs + ([FOOTER] if footer else []))


def site(root: Path, pages: int, footers: int) -> Path:
    docs = root / "site"
    docs.mkdir(exist_ok=True)
    for old in docs.iterdir():
        old.unlink()
    for i in range(pages):
        (docs / f"page{i}.txt").write_text(page(i, footer=i < footers), encoding="utf-8")
    return docs


def flags(into: str) -> Dict[str, List[bool]]:
    out: Dict[str, List[bool]] = {}
    for row in sorted(by_id(snapshot(into)).values(), key=lambda r: (r["doc_id"], r["start"])):
        out.setdefault(Path(row["doc_id"]).name, []).append(bool(json.loads(row["metadata"]).get("boilerplate")))
    return out


def test_a_footer_shared_by_the_tree_is_flagged(tmp_path: Path, store_uri: Callable[..., str]) -> None:
    docs = site(tmp_path, 6, 6)
    into = store_uri("index")
    report = ingest(docs, into, HashEmbedder(), CHUNKER)
    rows = by_id(snapshot(into)).values()
    flagged = [r for r in rows if json.loads(r["metadata"]).get("boilerplate")]
    assert len(flagged) == report.chunks_boilerplate == 6
    assert {r["text"] for r in flagged} == {FOOTER}
    assert all("boilerplate" not in json.loads(r["metadata"]) for r in rows if r not in flagged)


def test_skip_boilerplate_leaves_it_out(tmp_path: Path, store_uri: Callable[..., str]) -> None:
    docs = site(tmp_path, 6, 6)
    into = store_uri("index")
    embed = HashEmbedder()
    report = ingest(docs, into, embed, CHUNKER, skip_boilerplate=True)
    texts = {r["text"] for r in by_id(snapshot(into)).values()}
    assert FOOTER not in texts and FOOTER not in embed.texts and report.chunks_boilerplate == 6
    assert len(texts) == 18  # three paragraphs a page, each kept


def test_without_boilerplate_nothing_is_flagged(tmp_path: Path) -> None:
    docs = site(tmp_path, 6, 6)
    into = str(tmp_path / "index")
    report = ingest(docs, into, HashEmbedder(), CHUNKER, boilerplate=False)
    assert report.chunks_boilerplate == 0 and not any(any(v) for v in flags(into).values())
    with pytest.raises(ValueError, match="skip_boilerplate"):
        ingest(docs, into, HashEmbedder(), CHUNKER, boilerplate=False, skip_boilerplate=True)
    with pytest.raises(TypeError, match="boilerplate must be a bool"):
        ingest(docs, into, HashEmbedder(), CHUNKER, boilerplate="yes")  # type: ignore[arg-type]


def test_a_line_in_fewer_than_half_the_documents_is_content(tmp_path: Path) -> None:
    docs = site(tmp_path, 8, 3)  # 3 of 8: not half
    into = str(tmp_path / "index")
    ingest(docs, into, HashEmbedder(), CHUNKER)
    assert not any(any(v) for v in flags(into).values())


def test_the_tree_changes_which_lines_are_boilerplate_and_the_store_follows(tmp_path: Path,
                                                                          store_uri: Callable[..., str]) -> None:
    """Four pages of six have the footer: it is boilerplate. Two more pages without it make it 4 of 8: still half.
    Then one page loses it: 3 of 8, and the three pages still holding it, their bytes unchanged, are redone (their
    footer chunk no longer flagged), with nothing embedded again; the store equals a fresh ingestion each time."""
    into = store_uri("index")
    docs = site(tmp_path, 6, 4)
    ingest(docs, into, HashEmbedder(), CHUNKER)
    assert sum(sum(v) for v in flags(into).values()) == 4
    for i in (6, 7):
        (docs / f"page{i}.txt").write_text(page(i, footer=False), encoding="utf-8")
    embed = HashEmbedder()
    report = ingest(docs, into, embed, CHUNKER)
    assert report.documents_unchanged == 6 and sum(sum(v) for v in flags(into).values()) == 4
    (docs / "page0.txt").write_text(page(0, footer=False), encoding="utf-8")
    embed = HashEmbedder()
    report = ingest(docs, into, embed, CHUNKER)
    assert sum(sum(v) for v in flags(into).values()) == 0
    assert report.documents_unchanged == 4 and embed.texts == []  # page0's chunks are all there already
    fresh = store_uri("fresh")
    ingest(docs, fresh, HashEmbedder(), CHUNKER)
    assert snapshot(into) == snapshot(fresh)
    again = HashEmbedder()
    assert ingest(docs, into, again, CHUNKER).documents_unchanged == 8 and again.texts == []
