"""Documents that are not plain text: HTML, PDF and DOCX read into text with their headings and pages, alone and
through ``chunkwise chunk`` on a folder of mixed files."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from chunkwise import MarkdownChunker, loaders
from chunkwise import __main__ as cli
from support.pdf_files import make_pdf

PAGES = [
    "Chapter one. The first page has two sentences.",
    "The second page starts here. It says more.",
    "Page three is the last page.",
]

HTML = """<!doctype html><html><head><meta charset="utf-8"><title>T</title><style>p {color: red}</style>
<script>var x = "<p>not text</p>";</script></head><body><nav><a href="/">Home</a></nav>
<h1>User guide</h1><p>Welcome to the <b>guide</b>.</p>
<h2>Install</h2><p>Run the installer,
then restart.</p><ul><li>Linux</li><li>macOS<ul><li>Intel</li></ul></li></ul>
<h2>Use</h2><pre>tool --run
  --fast</pre><table><tr><th>Option</th><th>Meaning</th></tr><tr><td>-v</td><td>verbose</td></tr></table>
<footer>Copyright</footer></body></html>"""


def make_docx():
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_heading("Report", level=1)
    document.add_paragraph("The opening paragraph.")
    document.add_heading("Findings", level=2)
    document.add_paragraph("First finding.", style="List Bullet")
    document.add_paragraph("Second finding.", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for (r, c), value in {(0, 0): "Name", (0, 1): "Value", (1, 0): "speed", (1, 1): "fast"}.items():
        table.cell(r, c).text = value
    document.add_heading("Summary", level=2)
    document.add_paragraph("All good.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_html_keeps_headings_lists_code_and_tables_and_drops_the_rest():
    text = loaders.html_to_markdown(HTML)
    assert text == (
        "# User guide\n\nWelcome to the guide.\n\n## Install\n\nRun the installer, then restart.\n\n- Linux\n- macOS\n"
        "  - Intel\n\n## Use\n\n```\ntool --run\n  --fast\n```\n\n| Option | Meaning |\n|---|---|\n| -v | verbose |\n"
    )
    chunks = MarkdownChunker(60).chunk(text)
    assert ["User guide", "Install"] in [list(c.metadata["title_path"]) for c in chunks]
    assert "Home" not in text and "Copyright" not in text and "not text" not in text


def test_html_charset_is_read_from_its_meta():
    data = '<html><head><meta charset="iso-8859-1"></head><body><p>café</p></body></html>'.encode("latin-1")
    assert loaders.load("page.html", data).text == "café\n"


def test_pdf_pages():
    pytest.importorskip("pypdfium2")
    pages = loaders.pdf_pages(make_pdf(PAGES))
    assert [" ".join(p.split()) for p in pages] == PAGES
    loaded = loaders.load("doc.pdf", make_pdf(PAGES))
    assert loaded.pages == pages and loaded.text == "\f".join(pages)


def test_docx_headings_lists_and_tables():
    text = loaders.load("r.docx", make_docx()).text
    assert text == (
        "# Report\n\nThe opening paragraph.\n\n## Findings\n\n- First finding.\n- Second finding.\n\n"
        "| Name | Value |\n|---|---|\n| speed | fast |\n\n## Summary\n\nAll good.\n"
    )


def test_a_missing_loader_says_what_to_install(monkeypatch):
    import builtins

    real = builtins.__import__

    def missing(name, *args, **kwargs):
        if name in ("pypdfium2", "docx"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", missing)
    with pytest.raises(loaders.MissingLoader, match=r"chunkwise\[pdf\]"):
        loaders.load("a.pdf", b"%PDF")
    with pytest.raises(loaders.MissingLoader, match=r"chunkwise\[docx\]"):
        loaders.load("a.docx", b"PK")


def read_output(form: str, stdout: str, path: Path) -> list:
    """The chunk records of a run, as JSON lines hold them: a Parquet row's metadata columns gathered back into
    ``metadata`` (a null column is a key the chunk does not have)."""
    if form == "jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    pq = pytest.importorskip("pyarrow.parquet")
    records = []
    meta_keys = ("title_path", "headings", "chunk_type", "row_start", "row_end", "total_rows", "language",
                 "context_shortened", "page_start", "page_end")
    for row in pq.read_table(path).to_pylist():
        meta = {"source": row["source"]}
        meta.update({k: row.pop(k) for k in meta_keys if row.get(k) not in (None, False)})
        records.append({**{k: v for k, v in row.items() if k not in meta_keys}, "metadata": meta})
    return records


@pytest.mark.parametrize("form", ["jsonl", "parquet"])
def test_a_folder_of_mixed_files(tmp_path, capsys, form):
    pytest.importorskip("pypdfium2")
    if form == "parquet":
        pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Plain text file. With two sentences.", encoding="utf-8")
    (folder / "b.md").write_text("# Notes\n\nA note under a heading.\n", encoding="utf-8")
    (folder / "c.html").write_text(HTML, encoding="utf-8")
    (folder / "d.pdf").write_bytes(make_pdf(PAGES))
    (folder / "e.docx").write_bytes(make_docx())
    (folder / "f.html.gz").write_bytes(gzip.compress(HTML.encode()))
    (folder / "g.pdf").write_bytes(b"%PDF-1.4 broken")
    (folder / "h.bin").write_bytes(b"\x00\x01\x02" * 100)
    target = tmp_path / f"chunks.{form}"
    code = cli.main(["chunk", str(folder), "--strategy", "auto", "--size", "60", "--no-progress", "--out", str(target)])
    out, err = capsys.readouterr()
    records = read_output(form, out, target)
    by = {}
    for r in records:
        by.setdefault(Path(r["source"]).name, []).append(r)
    assert code == 1  # the broken PDF
    assert "g.pdf" in err and "cannot read as PDF" in err and "1 skipped: binary" in err
    assert sorted(by) == ["a.txt", "b.md", "c.html", "d.pdf", "e.docx", "f.html.gz"]
    assert by["b.md"][0]["metadata"]["title_path"] == ["Notes"]
    assert ["User guide", "Install"] in [r["metadata"]["title_path"] for r in by["c.html"]]
    assert [r["text"] for r in by["f.html.gz"]] == [r["text"] for r in by["c.html"]]
    assert ["Report", "Findings"] in [r["metadata"]["title_path"] for r in by["e.docx"]]
    pdf = by["d.pdf"]
    assert {(r["metadata"]["page_start"], r["metadata"]["page_end"]) for r in pdf} <= {(1, 1), (2, 2), (3, 3)}
    assert [r["metadata"]["page_start"] for r in pdf][-1] == 3
    for page, text in enumerate(PAGES, 1):  # every page's text is in its chunks, in order
        chunks = [r["text"] for r in pdf if r["metadata"]["page_start"] == page]
        assert " ".join(" ".join(chunks).split()) == " ".join(text.split())
    assert "title_path" not in by["a.txt"][0]["metadata"]  # a plain text goes to the recursive chunker
