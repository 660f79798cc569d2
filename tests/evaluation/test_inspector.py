"""The chunk inspector page (``chunkwise.inspector``, ``chunkwise inspect``): every chunk on it with its offsets,
overlaps and gaps drawn apart, text escaped, several chunkers side by side; and the page in a real headless Chromium
(its DOM holds every chunk, the side panel fills, the screenshot is a picture), skipped where Chromium is missing.

``CHUNKWISE_UPDATE_SCREENSHOT=1 python -m pytest tests/evaluation/test_inspector.py -k readme_screenshot`` rewrites
docs/inspector.png from the command its page (docs/inspector.md) shows."""

from __future__ import annotations

import os
import random
import re
import shlex
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Dict, List, Optional

import pytest

from chunkwise import Chunk, MarkdownChunker, RecursiveChunker, SentenceChunker, Tokenizer, inspector
from chunkwise.__main__ import main
from support.corpus import ROOT

DATA = ROOT / "tests" / "data"
SAMPLE = ROOT / "samples" / "sample.md"
SCREENSHOT = ROOT / "docs" / "inspector.png"


class Page(HTMLParser):
    """What a page shows, read back: per column its name, chunk markers (attributes), pieces (chunks, classes,
    text) and whole text; the ids in the page; the side panel's text."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.columns: List[dict] = []
        self.ids: List[str] = []
        self.detail = ""
        self.bars: List[str] = []
        self.body: Dict[str, str] = {}
        self._stack: List[str] = []  # what each open element is: "doc", "piece", "detail", "bar" or ""
        self._piece: Optional[dict] = None
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a: Dict[str, str] = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "body":
            self.body = a
        role = ""
        if tag == "section" and "col" in classes:
            self.columns.append({"id": a["id"], "name": a["data-name"], "unit": a["data-unit"],
                                 "count": int(a["data-chunks"]), "markers": [], "pieces": [], "text": []})
        elif "doc" in classes:
            role = "doc"
        elif "mk" in classes:
            self.columns[-1]["markers"].append(a)
        elif tag == "span" and ("s" in classes or "gap" in classes):
            held = [int(k) for k in a.get("data-c", "").split()]
            self._piece = {"chunks": held, "classes": classes, "text": ""}
            self.columns[-1]["pieces"].append(self._piece)
            role = "piece"
        elif a.get("id") == "detail":
            role = "detail"
        elif tag == "title" and "bar" in self._stack:
            role = "bartitle"
        elif tag == "rect":
            role = "bar"
        if tag not in ("meta", "br", "hr", "img", "link", "input"):  # void elements have no end tag
            self._stack.append(role)

    def handle_startendtag(self, tag: str, attrs: list) -> None:  # <line/>: no end tag follows
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._stack:
            role = self._stack.pop()
            if role == "piece":
                self._piece = None

    def handle_data(self, data: str) -> None:
        if "doc" in self._stack:
            self.columns[-1]["text"].append(data)
            if self._piece is not None:
                self._piece["text"] += data
        if "detail" in self._stack:
            self.detail += data + " "
        if self._stack and self._stack[-1] == "bartitle":
            self.bars.append(data)

    def text(self, column: int) -> str:
        return "".join(self.columns[column]["text"])


def check_page(page: Page, text: str, columns: Dict[str, list]) -> None:
    """The invariants of every page: one column per chunker, each showing the whole text, one marker per chunk at
    its offsets, each chunk's pieces spelling its text, ids unique."""
    assert [c["name"] for c in page.columns] == list(columns)
    assert len(page.ids) == len(set(page.ids))
    for n, (column, chunks) in enumerate(zip(page.columns, columns.values())):
        assert page.text(n) == text  # the page's text is the document's, character for character
        assert column["count"] == len(chunks) == len(column["markers"])
        for k, (marker, chunk) in enumerate(zip(column["markers"], chunks)):
            assert marker["id"] == f"v{n}-c{k}"
            assert (int(marker["data-start"]), int(marker["data-end"])) == (chunk.start, chunk.end)
            assert int(marker["data-index"]) == chunk.index and int(marker["data-size"]) == chunk.size
            assert "".join(p["text"] for p in column["pieces"] if k in p["chunks"]) == chunk.text
        for piece in column["pieces"]:
            drawn = "gap" if not piece["chunks"] else "ov" if len(piece["chunks"]) > 1 else "single"
            assert drawn == ("gap" if "gap" in piece["classes"] else "ov" if "ov" in piece["classes"] else "single")


class Spans:
    """A chunker of given spans, to draw any layout of chunks (overlaps of three, gaps, empty chunks)."""

    def __init__(self, *spans: tuple) -> None:
        self.spans = spans

    def chunk(self, text: str) -> List[Chunk]:
        return [Chunk(text[s:e], s, e, index=i, size=e - s, level="word") for i, (s, e) in enumerate(self.spans)]


class Loose:
    """A chunker of any objects with ``start`` and ``end``: the page reads only what a chunk has."""

    def __init__(self, chunks: list) -> None:
        self.chunks = chunks

    def chunk(self, text: str) -> list:
        return self.chunks


# -- the page -----------------------------------------------------------------------------------------------------


def test_every_chunk_is_on_the_page_with_its_offsets():
    text = (DATA / "en.txt").read_text(encoding="utf-8")
    chunker = RecursiveChunker(size=300, overlap=80)
    page = Page(inspector.render(text, chunker))
    chunks = chunker.chunk(text)
    assert len(chunks) > 20
    check_page(page, text, {"RecursiveChunker(size=300, overlap=80)": chunks})
    assert any("ov" in p["classes"] for p in page.columns[0]["pieces"])


def test_overlaps_are_hatched_and_gaps_plain():
    text = "abcdefghijklmnopqrstuvwxyz"
    spans = Spans((0, 10), (6, 14), (8, 12), (16, 20), (20, 20), (22, 26))
    page = Page(inspector.render(text, {"hand": spans}))
    check_page(page, text, {"hand": spans.chunk(text)})
    pieces = [(p["text"], p["chunks"], p["classes"][1:]) for p in page.columns[0]["pieces"]]
    assert pieces == [
        ("abcdef", [0], ["p0"]),
        ("gh", [0, 1], ["p1", "ov"]),
        ("ij", [0, 1, 2], ["p2", "ov", "ov3"]),
        ("kl", [1, 2], ["p2", "ov"]),
        ("mn", [1], ["p1"]),
        ("op", [], []),  # in no chunk
        ("qrst", [3], ["p3"]),
        ("uv", [], []),
        ("wxyz", [5], ["p5"]),
    ]
    summary = Page(inspector.render(text, spans)).columns  # one chunker alone, named by its class
    assert summary[0]["name"] == "Spans"


def test_no_overlap_no_hatching():
    text = (DATA / "en.txt").read_text(encoding="utf-8")
    page = Page(inspector.render(text, RecursiveChunker(size=200)))
    assert not any("ov" in p["classes"] for p in page.columns[0]["pieces"])
    assert any("gap" in p["classes"] for p in page.columns[0]["pieces"])  # whitespace trimmed between chunks


@pytest.mark.parametrize("seed", range(20))
def test_pieces_agree_with_a_per_character_count(seed):
    rng = random.Random(seed)
    length = rng.randrange(0, 60)
    spans = []
    for _ in range(rng.randrange(0, 12)):
        a = rng.randrange(0, length + 1)
        spans.append((a, rng.randrange(a, length + 1)))
    pieces = inspector._segments(length, spans)
    cuts = sorted({0, length, *(s for s, _ in spans), *(e for _, e in spans)})
    assert [(a, b) for a, b, _ in pieces] == list(zip(cuts, cuts[1:]))  # cut at every boundary, all text covered
    for a, b, held in pieces:
        for i in range(a, b):
            assert held == tuple(k for k, (s, e) in enumerate(spans) if s <= i < e)


def test_markup_in_the_text_and_metadata_is_escaped():
    text = ("# a < b & \"c\" <i>'x'</i>\n\n<b>Bold</b> & co\n\n<script>alert('x')</script> a < b && c > d \"q\" 'r'"
            "\r\n\r\nend &amp; </div>")
    chunkers = {"<md>": MarkdownChunker(size=30), "rec": RecursiveChunker(size=20, overlap=5)}
    html = inspector.render(text, chunkers, title="<title> & 'x'")
    assert "<script>alert" not in html and "<b>Bold" not in html and "</div>\n</section>" in html
    assert html.count("<script>") == 1  # the page's own
    page = Page(html)
    check_page(page, text, {name: c.chunk(text) for name, c in chunkers.items()})
    markers = page.columns[0]["markers"]
    assert markers[0]["data-path"] == '["a < b & \\"c\\" \'x\'"]'
    contexts = [c.context for c in chunkers["<md>"].chunk(text)]
    assert [m.get("data-context", "") for m in markers] == contexts and any('< b & "c' in c for c in contexts)


def test_cjk_text():
    text = (DATA / "zh.txt").read_text(encoding="utf-8")[:3000] + (DATA / "ja.txt").read_text(encoding="utf-8")[:3000]
    chunkers = {"sentence": SentenceChunker(size=120, overlap=30), "recursive": RecursiveChunker(size=200)}
    html = inspector.render(text, chunkers)
    assert '<meta charset="utf-8">' in html
    check_page(Page(html), text, {name: c.chunk(text) for name, c in chunkers.items()})


def test_write_writes_utf8(tmp_path):
    text = "中文没有空格。日本語の文。한국어 문장. Emoji 😀 and e\u0301."
    out = inspector.write(tmp_path / "page.html", text, RecursiveChunker(size=10))
    assert out == tmp_path / "page.html"
    assert Page(out.read_text(encoding="utf-8")).text(0) == text


def test_several_chunkers_side_by_side():
    text = SAMPLE.read_text(encoding="utf-8")
    chunkers = [RecursiveChunker(size=200), RecursiveChunker(size=200), MarkdownChunker(size=300, overlap=40)]
    page = Page(inspector.render(text, chunkers))
    names = ["RecursiveChunker(size=200, overlap=0)", "RecursiveChunker(size=200, overlap=0) #2",
             "MarkdownChunker(size=300, overlap=40)"]
    check_page(page, text, {name: c.chunk(text) for name, c in zip(names, chunkers)})
    assert len(page.bars) >= 3 and all(" chars: " in bar for bar in page.bars)


def test_summary_and_histogram_count_every_chunk():
    text = (DATA / "en.txt").read_text(encoding="utf-8")
    chunks = RecursiveChunker(size=250).chunk(text)
    html = inspector.render(text, {"r": RecursiveChunker(size=250)})
    sizes = [c.size for c in chunks]
    assert f"{len(chunks):,} chunks, size (chars) mean {sum(sizes) / len(sizes):,.1f}, min {min(sizes):,}, " \
           f"max {max(sizes):,}" in html
    bars = Page(html).bars
    counted = [int(re.search(r": ([\d,]+) chunks?$", bar)[1].replace(",", "")) for bar in bars]
    assert sum(counted) == len(chunks) and len(bars) <= inspector.HISTOGRAM_BINS
    ranges = [tuple(int(x) for x in bar.split(" ")[0].replace(",", "").split("-")) for bar in bars]
    edges = [x for r in ranges for x in (r[0], r[-1])]
    assert edges[0] == min(sizes) and edges[-1] == max(sizes)
    assert all(b + 1 == a for b, a in zip(edges[1::2], edges[2::2]))  # the bars tile the sizes, no gap, no overlap
    for (low, *high), n in zip(ranges, counted):
        assert n == sum(low <= s <= (high[0] if high else low) for s in sizes)


def test_token_counts():
    text = SAMPLE.read_text(encoding="utf-8")
    enc = Tokenizer.tiktoken("cl100k_base")
    for tokenizer in ("cl100k_base", enc):
        column = Page(inspector.render(text, RecursiveChunker(size=200), tokenizer=tokenizer)).columns[0]
        chunks = RecursiveChunker(size=200).chunk(text)
        assert [int(m["data-tokens"]) for m in column["markers"]] == [enc.count(c.text) for c in chunks]
        assert column["unit"] == "chars"
    column = Page(inspector.render(text, RecursiveChunker(size=60, tokenizer=enc))).columns[0]
    assert column["unit"] == "tokens" and all(m["data-tokens"] == m["data-size"] for m in column["markers"])
    assert "data-tokens" not in inspector.render(text, RecursiveChunker(size=200))


def test_chunks_with_offsets_alone():
    column = Page(inspector.render("one two", Loose([SimpleNamespace(start=0, end=3),
                                                     SimpleNamespace(start=4, end=7)]))).columns[0]
    assert column["name"] == "Loose" and column["unit"] == "size"
    assert [(m["data-index"], m["data-size"], m["data-level"]) for m in column["markers"]] == [("0", "3", ""),
                                                                                             ("1", "3", "")]


def test_empty_text():
    page = Page(inspector.render("", RecursiveChunker(size=10)))
    assert page.columns[0]["count"] == 0 and page.text(0) == ""


def test_a_long_text_with_thousands_of_chunks():
    text = (DATA / "en.txt").read_text(encoding="utf-8")
    text = (text * (120_000 // len(text) + 1))[:120_000]
    chunker = RecursiveChunker(size=60, overlap=20)
    chunks = chunker.chunk(text)
    assert len(chunks) > 2000
    check_page(Page(inspector.render(text, chunker)), text, {"RecursiveChunker(size=60, overlap=20)": chunks})


def test_bad_arguments():
    with pytest.raises(TypeError, match="has no chunk"):
        inspector.render("text", {"x": object()})
    with pytest.raises(TypeError, match="chunkers must be"):
        inspector.render("text", 42)
    with pytest.raises(ValueError, match="empty"):
        inspector.render("text", {})
    with pytest.raises(ValueError, match=r"chunker 'bad': chunk 0 has offsets 2\.\.9, not within the text \(0\.\.4\)"):
        inspector.render("text", {"bad": Loose([SimpleNamespace(start=2, end=9)])})
    with pytest.raises(TypeError, match="text must be a str"):
        inspector.render(b"text", RecursiveChunker(size=10))  # type: ignore[arg-type]


# -- in a real browser --------------------------------------------------------------------------------------------


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("no Chromium (chromium or chromium-browser on PATH): apt-get install chromium, as .ci/run does")
    return found


def browse(tmp_path: Path, url: str, *options: str) -> subprocess.CompletedProcess:
    """Headless Chromium on a file URL; its own profile folder, so runs side by side do not share one. The timeout
    only stops a hang, it measures nothing."""
    return subprocess.run(
        [chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", *options, url],
        capture_output=True, timeout=180, check=True,
    )


def png_pixels(png: bytes) -> tuple:
    """Width, height and the decompressed image data of a PNG (filter bytes included: enough to tell a picture
    from a blank)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    pos, data = 8, b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"IDAT":
            data += png[pos + 8:pos + 8 + length]
        pos += 12 + length
    return width, height, zlib.decompress(data)


def page_of_the_sample(tmp_path: Path) -> tuple:
    text = SAMPLE.read_text(encoding="utf-8")
    chunkers = {"recursive": RecursiveChunker(size=200, overlap=60), "markdown": MarkdownChunker(size=200)}
    path = inspector.write(tmp_path / "page.html", text, chunkers, title="sample.md")
    return path, text, {name: c.chunk(text) for name, c in chunkers.items()}


def test_browser_dom_holds_every_chunk(tmp_path):
    path, text, chunks = page_of_the_sample(tmp_path)
    dom = browse(tmp_path, path.as_uri(), "--dump-dom").stdout.decode("utf-8")
    assert dom.count('class="mk ') == sum(map(len, chunks.values()))
    check_page(Page(dom), text, chunks)  # as the browser parsed it: offsets, pieces, the text itself


def test_browser_side_panel_shows_the_chunk_in_the_address(tmp_path):
    path, text, chunks = page_of_the_sample(tmp_path)
    chunk = chunks["markdown"][6]
    dom = browse(tmp_path, path.as_uri() + "#v1-c6", "--dump-dom").stdout.decode("utf-8")
    detail = " ".join(Page(dom).detail.split())
    assert f"start..end {chunk.start}..{chunk.end}" in detail and f"level {chunk.level}" in detail
    assert "title path " + " > ".join(chunk.metadata["title_path"]) in detail
    assert " ".join(chunk.text.split())[:100] in detail


# What the pointer does, played by a script the test adds to the page; each step leaves the side panel's text (and
# how many pieces are lit) in an attribute of <body>, which the dumped DOM keeps.
POINTER = """<script>
const panel = () => document.getElementById('detail').textContent + ' lit=' + document.querySelectorAll('.hl').length;
const fire = (el, kind) => el.dispatchEvent(new MouseEvent(kind, {bubbles: true}));
const md = document.getElementById('v1'), rec = document.getElementById('v0');
fire(md.querySelector('.s[data-c="6"]'), 'mouseover');
document.body.dataset.hover = panel();
fire(md.querySelector('.s[data-c="6"]'), 'click');
fire(md.querySelector('.s[data-c="8"]'), 'mouseover');
document.body.dataset.pinned = panel();
document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));
document.body.dataset.unpinned = panel();
fire(rec.querySelector('.ov'), 'mouseover');
document.body.dataset.overlap = panel();
</script>
</body>"""


def test_browser_hover_click_and_escape(tmp_path):
    path, text, chunks = page_of_the_sample(tmp_path)
    drawn = Page(path.read_text(encoding="utf-8")).columns
    path.write_text(path.read_text(encoding="utf-8").replace("</body>", POINTER), encoding="utf-8")
    body = Page(browse(tmp_path, path.as_uri(), "--dump-dom").stdout.decode("utf-8")).body
    six = chunks["markdown"][6]
    lit = sum(6 in p["chunks"] for p in drawn[1]["pieces"])
    hover = body["data-hover"]
    assert f"start..end{six.start}..{six.end}" in hover and six.text[:40] in hover and hover.endswith(f"lit={lit}")
    assert body["data-pinned"] == hover  # pinned: another chunk under the pointer changes nothing
    assert "Hover over a chunk" in body["data-unpinned"] and body["data-unpinned"].endswith("lit=0")
    overlap = body["data-overlap"]
    held = next(p["chunks"] for p in drawn[0]["pieces"] if "ov" in p["classes"])
    assert "Overlap: this text is in 2 chunks." in overlap and len(held) == 2
    for k in held:
        chunk = chunks["recursive"][k]
        assert f"start..end{chunk.start}..{chunk.end}" in overlap


def test_browser_screenshot(tmp_path):
    path, _, _ = page_of_the_sample(tmp_path)
    png = tmp_path / "page.png"
    browse(tmp_path, path.as_uri() + "#v0-c2", f"--screenshot={png}", "--window-size=1200,800")
    width, height, pixels = png_pixels(png.read_bytes())
    assert (width, height) == (1200, 800)
    assert len(set(pixels)) > 100  # colours, text: not a blank page


# -- the command --------------------------------------------------------------------------------------------------


def test_command_puts_strategies_side_by_side(tmp_path, capsys):
    out = tmp_path / "page.html"
    argv = ["inspect", str(SAMPLE), "--strategy", "recursive", "--strategy", "markdown", "--strategy", "auto",
            "--size", "200", "--overlap", "40", "--out", str(out)]
    assert main(argv) == 0
    text = SAMPLE.read_text(encoding="utf-8")
    names = {"recursive": RecursiveChunker, "markdown": MarkdownChunker, "auto (markdown)": MarkdownChunker}
    check_page(Page(out.read_text(encoding="utf-8")), text,
               {name: cls(size=200, overlap=40).chunk(text) for name, cls in names.items()})
    assert f"{out}: {SAMPLE} (1,420 characters) cut by recursive, markdown, auto (markdown)" in capsys.readouterr().err


def test_command_defaults_and_options(tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["inspect", str(DATA / "en.txt"), "--tokenizer", "cl100k_base", "--size", "100", "--min-size", "20",
                 "--out", str(out)]) == 0
    text = (DATA / "en.txt").read_text(encoding="utf-8")
    chunker = RecursiveChunker(size=100, min_size=20, tokenizer=Tokenizer.tiktoken("cl100k_base"))
    page = Page(out.read_text(encoding="utf-8"))
    check_page(page, text, {"recursive": chunker.chunk(text)})
    assert page.columns[0]["unit"] == "tokens"
    assert main(["inspect", str(SAMPLE), "--out", "-"]) == 0
    assert Page(capsys.readouterr().out).text(0) == SAMPLE.read_text(encoding="utf-8")


def test_command_reads_what_chunk_reads(tmp_path):
    import gzip

    (tmp_path / "doc.html").write_text("<html><body><h1>Title</h1><p>Some text here.</p><h2>Part</h2><p>More text."
                                       "</p></body></html>", encoding="utf-8")
    (tmp_path / "notes.txt.gz").write_bytes(gzip.compress("Compressed notes. Two sentences.".encode()))
    out = tmp_path / "page.html"
    assert main(["inspect", str(tmp_path / "doc.html"), "--strategy", "auto", "--size", "30", "--out", str(out)]) == 0
    column = Page(out.read_text(encoding="utf-8")).columns[0]
    assert column["name"] == "auto (markdown)" and column["markers"][-1]["data-path"] == '["Title", "Part"]'
    assert main(["inspect", str(tmp_path / "notes.txt.gz"), "--out", str(out)]) == 0
    assert Page(out.read_text(encoding="utf-8")).text(0) == "Compressed notes. Two sentences."


@pytest.mark.parametrize("argv, message", [
    (["missing.txt"], "FILE missing.txt: No such file or directory"),
    (["."], "FILE .: not a regular file"),
    ([str(SAMPLE), "--overlap", "600"], "--overlap must be < --size"),
    ([str(SAMPLE), "--size", "0"], "--size must be >= 1"),
    ([str(SAMPLE), "--tokenizer", "no_such_base"], "--tokenizer no_such_base:"),
])
def test_command_bad_input_is_a_usage_error(tmp_path, capsys, argv, message):
    out = tmp_path / "page.html"
    assert main(["inspect", *argv, "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_command_bad_bytes_and_bad_out(tmp_path, capsys):
    (tmp_path / "latin.txt").write_bytes("café".encode("latin-1"))
    assert main(["inspect", str(tmp_path / "latin.txt"), "--out", str(tmp_path / "p.html")]) == 2
    assert "FILE " + str(tmp_path / "latin.txt") + ": cannot read as text" in capsys.readouterr().err
    assert main(["inspect", str(SAMPLE), "--out", str(tmp_path / "no" / "p.html")]) == 2
    assert "--out " in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--strategy", "nope", str(SAMPLE), "--out", "x.html"], "argument --strategy: invalid choice: 'nope'"),
    ([str(SAMPLE)], "the following arguments are required: --out"),
])
def test_command_bad_options_exit_2(argv, message):
    # The timeout only stops a hang (the defect), it measures nothing.
    proc = subprocess.run([sys.executable, "-m", "chunkwise", "inspect", *argv], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and message in proc.stderr


def test_command_usage_error_through_python_m(tmp_path):
    # The timeout only stops a hang (the defect), it measures nothing.
    proc = subprocess.run([sys.executable, "-m", "chunkwise", "inspect", str(SAMPLE), "--size", "0", "--out",
                           str(tmp_path / "p.html")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr == "chunkwise: error: --size must be >= 1, got 0\n"
    assert not (tmp_path / "p.html").exists()


# -- the README ---------------------------------------------------------------------------------------------------


def readme_command() -> List[str]:
    """The ``chunkwise inspect`` line of the docs' inspector page, as arguments."""
    readme = (ROOT / "docs" / "inspector.md").read_text(encoding="utf-8")
    lines = [line for lang, code in re.findall(r"```(\w+)\n(.*?)```", readme, flags=re.S) if lang == "sh"
             for line in code.splitlines() if line.startswith("chunkwise inspect ")]
    assert len(lines) == 1, lines
    return shlex.split(lines[0])[1:]


def test_readme_command_runs(tmp_path):
    args = [str(tmp_path / a) if a.endswith(".html") else a for a in readme_command()]
    assert main(args) == 0
    page = Page((tmp_path / "inspect.html").read_text(encoding="utf-8"))
    assert len(page.columns) >= 2 and all(c["count"] > 5 for c in page.columns)
    assert "](inspector.png)" in (ROOT / "docs" / "inspector.md").read_text(encoding="utf-8")  # beside the page


def test_readme_screenshot(tmp_path):
    """docs/inspector.png is the page of the README's command; rewritten with CHUNKWISE_UPDATE_SCREENSHOT=1."""
    if os.environ.get("CHUNKWISE_UPDATE_SCREENSHOT"):
        args = [str(tmp_path / a) if a.endswith(".html") else a for a in readme_command()]
        assert main(args) == 0
        image = pytest.importorskip("PIL.Image", reason="Pillow makes the picture small enough for the README")
        shot = tmp_path / "inspect.png"
        browse(tmp_path, (tmp_path / "inspect.html").as_uri() + "#v1-c6", f"--screenshot={shot}",
               "--window-size=1280,760")
        with image.open(shot) as picture:  # a palette of 64 colours: a third of the size, the text as sharp
            picture.convert("RGB").quantize(64).save(SCREENSHOT, optimize=True)
    width, height, pixels = png_pixels(SCREENSHOT.read_bytes())
    assert width >= 800 and len(set(pixels)) > 20  # palette indices: not one colour
