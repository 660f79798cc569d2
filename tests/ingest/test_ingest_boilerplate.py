"""Boilerplate in a run: the chunks made only of lines half of the tree shares (a site's footer) are flagged
(``"boilerplate": true``), or left out with ``skip_boilerplate``; which lines are boilerplate depends on the whole tree,
and the store still equals a fresh ingestion when another document changes it."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any, Callable, Dict, List

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


#: Pages whose last paragraph and footer fit in one chunk (the chunker alone packs them together).
PACKING = RecursiveChunker(400)


def rows_of(into: str) -> List[Dict[str, Any]]:
    return sorted(by_id(snapshot(into)).values(), key=lambda r: (r["doc_id"], r["start"]))


def test_a_footer_packed_with_the_last_paragraph_is_a_chunk_of_its_own(tmp_path: Path,
                                                                      store_uri: Callable[..., str]) -> None:
    docs = site(tmp_path, 8, 6)  # 6 of 8 pages end with the footer: boilerplate
    assert any(FOOTER in c.text and c.text != FOOTER for c in PACKING.chunk(page(0)))
    into = store_uri("index")
    report = ingest(docs, into, HashEmbedder(), PACKING)
    rows = rows_of(into)
    assert len({r["id"] for r in rows}) == len(rows) == len(snapshot(into)[0])
    footer_lines = FOOTER.split("\n")
    for r in rows:
        text = Path(r["doc_id"]).read_text(encoding="utf-8")
        assert text[r["start"] : r["end"]] == r["text"]
        if json.loads(r["metadata"]).get("boilerplate"):
            assert r["text"] == FOOTER
        else:
            assert not any(line in r["text"] for line in footer_lines), r["text"]
    assert report.chunks_boilerplate == sum(json.loads(r["metadata"]).get("boilerplate", False) for r in rows) == 6
    # A page without the footer is chunked as its chunker chunks it alone: the same ids, offsets and texts.
    for i in (6, 7):
        path = docs / f"page{i}.txt"
        mine = [(r["id"], r["start"], r["end"], r["text"], r["index"]) for r in rows if r["doc_id"] == str(path)]
        alone = PACKING.chunk(path.read_text(encoding="utf-8"), {"source": str(path)})
        assert mine == [(c.id, c.start, c.end, c.text, c.index) for c in alone]
    skipped = store_uri("skipped")
    embed = HashEmbedder()
    ingest(docs, skipped, embed, PACKING, skip_boilerplate=True)
    kept = rows_of(skipped)
    assert len(kept) == len(rows) - 6 and not any(line in t for t in embed.texts for line in footer_lines)
    assert [r["text"] for r in kept] == [r["text"] for r in rows if r["text"] != FOOTER]


def test_footers_that_come_and_go_with_packing_chunks_keep_the_store_exact(tmp_path: Path,
                                                                          store_uri: Callable[..., str]) -> None:
    into = store_uri("index")
    docs = site(tmp_path, 6, 4)
    steps = [lambda: None, lambda: [(docs / f"page{i}.txt").write_text(page(i, footer=False), encoding="utf-8")
                                    for i in (6, 7)],
             lambda: (docs / "page0.txt").write_text(page(0, footer=False), encoding="utf-8"),
             lambda: [(docs / f"page{i}.txt").write_text(page(i), encoding="utf-8") for i in range(8)]]
    for n, step in enumerate(steps):
        step()
        ingest(docs, into, HashEmbedder(), PACKING)
        fresh = store_uri(f"fresh{n}")
        ingest(docs, fresh, HashEmbedder(), PACKING)
        assert snapshot(into) == snapshot(fresh), f"step {n}"
        flagged = [r for r in rows_of(into) if json.loads(r["metadata"]).get("boilerplate")]
        assert len(flagged) == [4, 4, 0, 8][n] and all(r["text"] == FOOTER for r in flagged)


def test_running_heads_and_feet_of_a_pdf_are_chunks_of_their_own(tmp_path: Path) -> None:
    pytest.importorskip("pypdfium2")
    from chunkwise import loaders
    from support.pdf_files import make_pdf

    body = [" ".join(f"{w}{'abcde'[i]}{'abcde'[j]}" for j in range(3) for w in WORDS[i:] + WORDS[:i])
            for i in range(5)]
    pages = [f"ACME Annual Report 2025\n{body[i]}.\nPage {i + 1} of 5" for i in range(5)]
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = docs / "report.pdf"
    pdf.write_bytes(make_pdf(pages))
    source = "\f".join(loaders.load(pdf, pdf.read_bytes()).pages or [])
    chunker = RecursiveChunker(2000)  # the whole report in one chunk, alone
    assert len(chunker.chunk(source)) == 1
    into = str(tmp_path / "index")
    report = ingest(docs, into, HashEmbedder(), chunker)
    rows = rows_of(into)
    assert all(source[r["start"] : r["end"]] == r["text"] for r in rows)
    flagged = [r for r in rows if json.loads(r["metadata"]).get("boilerplate")]
    content = [r for r in rows if r not in flagged]
    assert report.chunks_boilerplate == len(flagged) == 6  # the head, four page breaks, the last foot
    assert all("ACME" not in r["text"] and "of 5" not in r["text"] for r in content)
    assert [(json.loads(r["metadata"])["page_start"], json.loads(r["metadata"])["page_end"]) for r in content] == [
        (i, i) for i in range(1, 6)]
    assert [json.loads(r["metadata"])["page_start"] for r in flagged] == [1, 1, 2, 3, 4, 5]
    skipped = str(tmp_path / "skipped")
    ingest(docs, skipped, HashEmbedder(), chunker, skip_boilerplate=True)
    assert [r["text"] for r in rows_of(skipped)] == [r["text"] for r in content]


def test_in_markdown_only_the_head_and_foot_are_cut_apart(tmp_path: Path) -> None:
    """A piece chunked apart has no heading above it: in Markdown, a run between a heading and its text stays
    (its chunk keeps its title path), and the footer at the foot is cut apart."""
    from chunkwise import MarkdownChunker

    nav = "Home | Docs | Blog"
    docs = tmp_path / "site"
    docs.mkdir()
    for i in range(4):
        (docs / f"p{i}.md").write_text(f"# Title {'abcd'[i]}\n\n{nav}\n\n{page(i)}\n", encoding="utf-8")
    into = str(tmp_path / "index")
    ingest(docs, into, HashEmbedder(), MarkdownChunker(2000))
    for doc, rows in itertools.groupby(rows_of(into), key=lambda r: r["doc_id"]):
        rows = list(rows)
        assert [r["text"] for r in rows[1:]] == [FOOTER]
        assert json.loads(rows[1]["metadata"])["boilerplate"]
        assert rows[0]["title_path"] == [f"Title {'abcd'[int(doc[-4])]}"]
        assert nav in rows[0]["text"] and not any(line in rows[0]["text"] for line in FOOTER.split("\n"))
