"""Documents that are not plain text, read into text a chunker can cut: HTML (the standard library's parser), PDF
(pypdfium2) and DOCX (python-docx). Headings become Markdown headings, so that ``MarkdownChunker`` gives title
paths; a PDF's pages become the pages of ``chunk(pages=...)``.

``load(path)`` picks the reader by suffix. pypdfium2 and python-docx are optional (``pip install
"chunkwise[pdf]"``, ``"chunkwise[docx]"``); without them, reading such a file raises :class:`MissingLoader`.
"""

from __future__ import annotations

import html.parser
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Union

__all__ = ["Loaded", "MissingLoader", "SUFFIXES", "load", "html_to_markdown", "pdf_pages", "docx_to_markdown"]

#: The suffixes ``load`` reads (lower case).
SUFFIXES = (".html", ".htm", ".xhtml", ".pdf", ".docx")


class MissingLoader(ImportError):
    """The package that reads this kind of file is not installed; the message says which."""


@dataclass(frozen=True)
class Loaded:
    """A document read into text: ``text``, or ``pages`` (a PDF's page texts, to be chunked with ``pages=``)."""

    text: str
    pages: Optional[List[str]] = None
    #: Headings are Markdown headings: chunk with MarkdownChunker for title paths.
    markdown: bool = False


def load(path: Union[str, Path], data: Optional[bytes] = None) -> Loaded:
    """Reads ``path`` (or its bytes, ``data``) by its suffix."""
    suffix = Path(path).suffix.lower()
    if data is None:
        data = Path(path).read_bytes()
    if suffix in (".html", ".htm", ".xhtml"):
        return Loaded(html_to_markdown(_decode_html(data)), markdown=True)
    if suffix == ".pdf":
        pages = pdf_pages(data)
        return Loaded("\f".join(pages), pages=pages)
    if suffix == ".docx":
        return Loaded(docx_to_markdown(data), markdown=True)
    raise ValueError(f"no loader for {suffix or 'a file without a suffix'} (known: {', '.join(SUFFIXES)})")


# -- HTML ---------------------------------------------------------------------------------------------------------

_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_\-]+)""", re.I)


def _decode_html(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8")
    m = _CHARSET.search(data[:4096])
    codec = m.group(1).decode("ascii") if m else "utf-8"
    try:
        return data.decode(codec)
    except (LookupError, UnicodeDecodeError):
        return data.decode("utf-8")


class _Markdown(html.parser.HTMLParser):
    """HTML to Markdown-like text: headings, paragraphs, list items, preformatted blocks and table rows keep their
    shape; scripts, styles and page furniture (nav, header, footer, aside) are left out."""

    SKIP = {"script", "style", "noscript", "template", "nav", "header", "footer", "aside", "head", "svg", "form"}
    BLOCKS = {"p", "div", "section", "article", "main", "blockquote", "figure", "figcaption", "dl", "dt", "dd",
              "address", "details", "summary", "table", "ul", "ol", "hr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: List[str] = []
        self.skip = 0
        self.pre = 0
        self.lists: List[str] = []
        self.row: Optional[List[str]] = None
        self.cell: Optional[List[str]] = None
        self.rows_done = 0

    def _block(self) -> None:
        if self.out and not self.out[-1].endswith("\n\n"):
            self.out.append("\n\n" if not self.out[-1].endswith("\n") else "\n")

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self.SKIP:
            self.skip += 1
            return
        if self.skip:
            return
        if re.fullmatch(r"h[1-6]", tag):
            self._block()
            self.out.append("#" * int(tag[1]) + " ")
        elif tag == "pre":
            self._block()
            self.out.append("```\n")
            self.pre += 1
        elif tag in ("ul", "ol"):
            self._block() if not self.lists else self.out.append("\n")
            self.lists.append(tag)
        elif tag == "li":
            if self.out and not self.out[-1].endswith("\n"):
                self.out.append("\n")
            depth = max(len(self.lists) - 1, 0)
            self.out.append("  " * depth + ("1. " if self.lists and self.lists[-1] == "ol" else "- "))
        elif tag == "br":
            self.out.append("\n")
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []
        elif tag in self.BLOCKS:
            self._block()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(self.skip - 1, 0)
            return
        if self.skip:
            return
        if re.fullmatch(r"h[1-6]", tag) or tag in self.BLOCKS:
            self._block()
            if tag == "table":
                self.rows_done = 0
        elif tag == "pre":
            if self.out and not self.out[-1].endswith("\n"):
                self.out.append("\n")
            self.out.append("```")
            self.pre = max(self.pre - 1, 0)
            self._block()
        elif tag in ("ul", "ol"):
            if self.lists:
                self.lists.pop()
            if not self.lists:
                self._block()
        elif tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(" ".join("".join(self.cell).split()).replace("|", "\\|"))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.rows_done == 0 and self.out and not self.out[-1].endswith("\n\n"):
                self._block()
            self.out.append("| " + " | ".join(self.row) + " |\n")
            if self.rows_done == 0:
                self.out.append("|" + "---|" * len(self.row) + "\n")
            self.rows_done += 1
            self.row = None

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.cell is not None:
            self.cell.append(data)
        elif self.pre:
            self.out.append(data)
        else:
            text = " ".join(data.split())
            if text:
                if data[:1].isspace() and self.out and not self.out[-1].endswith((" ", "\n", "# ", "- ", ". ")):
                    text = " " + text
                if data[-1:].isspace():
                    text += " "
                self.out.append(text)


def html_to_markdown(text: str) -> str:
    """The readable text of an HTML page, with Markdown headings, lists, code blocks and tables."""
    parser = _Markdown()
    parser.feed(text)
    parser.close()
    joined = "".join(parser.out)
    lines = [line.rstrip() for line in joined.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


# -- PDF ----------------------------------------------------------------------------------------------------------


def pdf_pages(data: bytes) -> List[str]:
    """The text of each page of a PDF (pdfium's text extraction, in reading order)."""
    try:
        import pypdfium2 as pdfium  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise MissingLoader('reading PDF needs pypdfium2: pip install "chunkwise[pdf]"') from None
    pdf = pdfium.PdfDocument(data)
    try:
        pages = []
        for page in pdf:
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            textpage.close()
            page.close()
            # pdfium ends lines with CRLF; a form feed would start a new page in the joined text.
            pages.append(text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", " "))
        return pages
    finally:
        pdf.close()


# -- DOCX ---------------------------------------------------------------------------------------------------------


def docx_to_markdown(data: bytes) -> str:
    """A Word document's text in order: headings (the Heading / Title styles) as Markdown headings, list paragraphs
    as list items, tables as Markdown tables."""
    try:
        import docx  # type: ignore[import-untyped,unused-ignore]
        from docx.table import Table  # type: ignore[import-untyped,unused-ignore]
        from docx.text.paragraph import Paragraph  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise MissingLoader('reading DOCX needs python-docx: pip install "chunkwise[docx]"') from None
    import io

    document = docx.Document(io.BytesIO(data))
    blocks: List[str] = []
    body = document.element.body
    for child in body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            para = Paragraph(child, document)
            text = para.text.strip()
            if not text:
                continue
            style = (para.style.name if para.style is not None else "") or ""
            level = re.fullmatch(r"Heading (\d)", style)
            if style == "Title":
                blocks.append("# " + text)
            elif level:
                blocks.append("#" * min(int(level.group(1)), 6) + " " + text)
            elif style.startswith("List"):
                marker = "1." if "Number" in style else "-"
                if blocks and blocks[-1].startswith(("- ", "1. ")):
                    blocks[-1] += f"\n{marker} {text}"
                else:
                    blocks.append(f"{marker} {text}")
            else:
                blocks.append(text)
        elif tag == "tbl":
            table = Table(child, document)
            rows = [[" ".join(c.text.split()).replace("|", "\\|") for c in row.cells] for row in table.rows]
            if rows:
                lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
                lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
                blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")
