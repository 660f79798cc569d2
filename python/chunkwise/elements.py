"""Documents that arrive parsed: a list of typed elements (headings with levels, paragraphs, list items, tables with
captions, code, pages), as a layout parser gives them, become one Markdown source text that MarkdownChunker cuts.

The source text is what the offsets refer to (:meth:`ElementsChunker.render` gives it with each element's span);
each chunk records the elements it holds and their pages. Headings give title paths; a table's caption and header
go in the ``context`` of its pieces; a table too wide for the size is written as several tables of column groups,
each with the key (first) column, and cut by rows like any table.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import _core
from ._core import Tokenizer
from .chunk import Chunk
from .chunkers import MarkdownChunker, _as_dict, _as_list, _batch_metadatas, _Configured, _given
from .record import metadata_keys

__all__ = ["ELEMENT_KEYS", "ElementsChunker", "RenderedElements", "chunk_elements", "from_docling", "from_unstructured"]

#: The keys :class:`ElementsChunker` sets in a chunk's metadata (``page_start`` / ``page_end`` when the elements have
#: pages).
ELEMENT_KEYS = tuple(k for k in metadata_keys("elements") if k not in metadata_keys("pages"))

# Element types, by the names parsers use (lower case, "_" and "-" and spaces dropped), and what each renders as.
_KINDS: Dict[str, str] = {}
for _kind, _names in {
    "heading": ("heading", "title", "sectionheader", "header1", "subtitle"),
    "paragraph": (
        "paragraph", "text", "narrativetext", "uncategorizedtext", "pageheader", "pagefooter", "header", "footer",
        "footnote", "formula", "equation", "address", "emailaddress", "figurecaption", "reference", "checkbox",
        "keyvalue", "form", "image", "figure", "picture", "pagenumber",
    ),
    "list_item": ("listitem", "list", "bullet"),
    "table": ("table",),
    "caption": ("caption", "tablecaption"),
    "code": ("code", "codesnippet"),
}.items():
    for _name in _names:
        _KINDS[_name] = _kind


class RenderedElements(NamedTuple):
    """The source text of a list of elements, and where each element's text is in it (None: the element has no
    text)."""

    text: str
    spans: List[Optional[Tuple[int, int]]]
    #: Each element's normalized type ("heading", "paragraph", "list_item", "table", "caption", "code").
    types: List[str]
    #: Each element's page (None when not given).
    pages: List[Optional[int]]
    #: For each table element, the column indices of each of its parts, in order (one part: all columns).
    table_parts: Dict[int, List[Tuple[Tuple[int, int], List[int]]]]


class ElementsChunker(_Configured):
    """Chunks a parsed document given as elements: dicts such as ``{"type": "heading", "level": 2, "text": ...,
    "page": 3}``. Types (as layout parsers name them): heading / title / section_header (``level`` 1-6, default 1),
    paragraph / text / narrative_text (and page headers, footers, footnotes, formulas: their text as a paragraph),
    list_item (``level`` for nesting), table (``rows``: a list of rows of cells, the first the header; or ``text``:
    a Markdown table; ``caption``), caption (the caption of the table right after it), code (``language``).

    The elements are written as one Markdown text (:meth:`render`), which :class:`MarkdownChunker` cuts (``size``,
    ``overlap``, ``unit``, ``tokenizer``, ``max_chars``, ``merge_sections``, ``size_includes_context``,
    ``min_size``): offsets refer to that text. Each chunk's metadata has, besides MarkdownChunker's (``title_path``
    from the headings, ``chunk_type``, ...): ``element_indices`` (the elements it holds text of), ``element_types``,
    ``page_start`` / ``page_end`` (of those elements, when they have pages) and, for a table written in column
    groups, ``table_columns`` (the columns of the table it shows, the key column first). A table's caption and header are in the
    ``context`` of each of its pieces.

    A table whose rows are wider than half of ``size`` (with the header and the delimiter row) is written as
    several tables, each of the first (key) column and as many next columns as fit, each under the caption.
    """

    _strategy = "elements"

    def __init__(
        self,
        size: int = 512,
        overlap: int = 0,
        *,
        merge_sections: bool = True,
        size_includes_context: bool = True,
        min_size: int = 0,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
    ) -> None:
        self._kwargs = _given(locals())
        self._markdown = MarkdownChunker(
            size, overlap, merge_sections=merge_sections, size_includes_context=size_includes_context,
            min_size=min_size, unit=unit, tokenizer=tokenizer, max_chars=max_chars,
        )
        self._size = size

    def render(self, elements: Sequence[Mapping[str, Any]]) -> RenderedElements:
        """The Markdown source text of ``elements`` and where each is in it."""
        return _render(_normalize(elements), self._size, self._markdown._splitter)

    def chunk(self, elements: Sequence[Mapping[str, Any]], metadata: Optional[Mapping[str, Any]] = None) -> List[Chunk]:
        """The chunks of the document ``elements`` make (offsets in :meth:`render`'s text); ``metadata`` is
        copied into each chunk."""
        metadata = _checked(_as_dict(metadata, "metadata"))
        rendered = self.render(elements)
        return _annotate(rendered, self._markdown.chunk(rendered.text, metadata))

    def chunk_batch(
        self,
        documents: Sequence[Sequence[Mapping[str, Any]]],
        metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    ) -> List[List[Chunk]]:
        """:meth:`chunk` for many documents (their texts chunked in parallel in the core)."""
        docs, metas = _batch_metadatas(documents, metadatas)  # type: ignore[arg-type]
        metas = [_checked(m) for m in metas]
        rendered = [self.render(d) for d in docs]
        out = self._markdown.chunk_batch([r.text for r in rendered], metas)
        return [_annotate(r, chunks) for r, chunks in zip(rendered, out)]


def _checked(metadata: Optional[dict]) -> Optional[dict]:
    taken = [k for k in metadata_keys("elements") if metadata is not None and k in metadata]
    if taken:
        raise _core.ChunkingError(f"metadata key {taken[0]!r} is set by ElementsChunker: rename it")
    return metadata


def chunk_elements(elements: Sequence[Mapping[str, Any]], size: int = 512, **kwargs: Any) -> List[Chunk]:
    """``ElementsChunker(size, **kwargs).chunk(elements)``."""
    return ElementsChunker(size, **kwargs).chunk(elements)


class _Element(NamedTuple):
    """An element as the core takes it (its first six fields), and its page."""

    kind: str
    text: str
    level: int
    rows: Optional[List[List[str]]]
    caption: Optional[str]
    language: str
    page: Optional[int]


def _normalize(elements: Sequence[Mapping[str, Any]]) -> List[_Element]:
    out = []
    for i, e in enumerate(_as_list(elements, "elements")):
        name = f"elements[{i}]"
        if not isinstance(e, Mapping):
            raise TypeError(f"{name} must be a mapping, got {type(e).__name__}")
        raw = e.get("type")
        if not isinstance(raw, str):
            raise _core.ChunkingError(f"{name} needs a 'type' (a str), got {raw!r}")
        kind = _KINDS.get(re.sub(r"[\s_\-]", "", raw).lower())
        if kind is None:
            known = ", ".join(sorted({"heading", "title", "paragraph", "text", "list_item", "table", "caption",
                                      "code"}))
            raise _core.ChunkingError(f"{name}: unknown type {raw!r} (known: {known}, and parsers' names of them)")
        text = e.get("text")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise TypeError(f"{name}['text'] must be a str, got {type(text).__name__}")
        level = e.get("level", 1)
        if isinstance(level, bool) or not isinstance(level, int) or level < 0:
            raise _core.ChunkingError(f"{name}['level'] must be an int >= 0, got {level!r}")
        page = e.get("page")
        if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 0):
            raise _core.ChunkingError(f"{name}['page'] must be an int >= 0 or None, got {page!r}")
        rows = e.get("rows")
        if rows is not None:
            if kind != "table":
                raise _core.ChunkingError(f"{name}: 'rows' belongs to a table, not to a {raw!r}")
            rows = [[_cell(c) for c in _as_list(r, f"{name}['rows'][{k}]")] for k, r in
                    enumerate(_as_list(rows, f"{name}['rows']"))]
        caption = e.get("caption")
        if caption is not None and not isinstance(caption, str):
            raise TypeError(f"{name}['caption'] must be a str, got {type(caption).__name__}")
        language = e.get("language") or ""
        if not isinstance(language, str):
            raise TypeError(f"{name}['language'] must be a str, got {type(language).__name__}")
        out.append(_Element(kind, text, level, rows, caption, language, page))
    return out


def _cell(value: Any) -> str:
    """A table cell's text (its whitespace collapsed and pipes escaped by the core)."""
    return "" if value is None else str(value)


def _render(elements: List[_Element], size: int, splitter: Any) -> RenderedElements:
    """The Markdown text of ``elements``, written by the core (``_core.render_elements``)."""
    text, spans, parts = _core.render_elements(splitter, [e[:6] for e in elements], size)
    return RenderedElements(text, spans, [e.kind for e in elements], [e.page for e in elements], dict(parts))


def _annotate(rendered: RenderedElements, chunks: List[Chunk]) -> List[Chunk]:
    """The chunks with the elements they hold text of, their pages, and a column group's columns."""
    located = [(s[0], s[1], i) for i, s in enumerate(rendered.spans) if s is not None]
    starts = [s for s, _, _ in located]
    ends = [e for _, e, _ in located]
    pages_known = any(p is not None for p in rendered.pages)
    out = []
    for c in chunks:
        lo = bisect_right(ends, c.start)
        hi = bisect_left(starts, c.end)
        held = [located[k][2] for k in range(lo, hi)]
        meta = dict(c.metadata)
        meta["element_indices"] = held
        meta["element_types"] = [rendered.types[k] for k in held]
        if pages_known:
            pages = [p for p in (rendered.pages[k] for k in held) if p is not None]
            meta["page_start"] = min(pages) if pages else None
            meta["page_end"] = max(pages) if pages else None
        for k in held:
            parts = rendered.table_parts.get(k, [])
            if len(parts) > 1:
                # A table written in column groups: the columns of the groups the chunk shows rows of.
                shown = {col for (s, t), cols in parts if c.start < t and s < c.end for col in cols}
                if shown:
                    meta["table_columns"] = sorted(shown)
                break
        out.append(
            Chunk(
                c.text, c.start, c.end, index=c.index, size=c.size, level=c.level, metadata=meta, context=c.context,
                id=c.id, prev_id=c.prev_id, next_id=c.next_id, token_count=c.token_count, context_sep=c.context_sep,
            )
        )
    return out


# -- adapters from the common parsers' outputs ---------------------------------------------------------------------


def from_docling(document: Any) -> List[Dict[str, Any]]:
    """The elements of a docling ``DoclingDocument`` (docling-core), in reading order: title and section headers
    (a section header of level n is a heading of level n + 1, under the title), texts, list items, code, tables with
    their cells and caption, pictures' captions; pages from each item's provenance. Needs docling-core."""
    try:
        from docling_core.types.doc import DocItemLabel, TableItem
    except ImportError as exc:  # pragma: no cover - the message is the point
        raise ImportError("from_docling needs docling-core: pip install docling-core") from exc
    out: List[Dict[str, Any]] = []
    captions = set()
    for item, _ in document.iterate_items():
        for ref in getattr(item, "captions", None) or []:
            captions.add(ref.cref)
    for item, _ in document.iterate_items():
        label = getattr(item, "label", None)
        page = item.prov[0].page_no if getattr(item, "prov", None) else None
        if getattr(item, "self_ref", None) in captions:
            continue  # written with its table (or picture)
        if isinstance(item, TableItem):
            grid = item.data.grid
            rows = [[cell.text for cell in row] for row in grid]
            caption = item.caption_text(document) or None
            if rows:
                out.append({"type": "table", "rows": rows, "caption": caption, "page": page})
            continue
        text = getattr(item, "text", None)
        if label == DocItemLabel.PICTURE:
            caption = item.caption_text(document)
            if caption:
                out.append({"type": "paragraph", "text": caption, "page": page})
            continue
        if text is None:
            continue
        if label == DocItemLabel.TITLE:
            out.append({"type": "heading", "level": 1, "text": text, "page": page})
        elif label == DocItemLabel.SECTION_HEADER:
            out.append({"type": "heading", "level": 1 + getattr(item, "level", 1), "text": text, "page": page})
        elif label == DocItemLabel.LIST_ITEM:
            out.append({"type": "list_item", "text": text, "page": page})
        elif label == DocItemLabel.CODE:
            out.append({"type": "code", "text": text, "language": _docling_language(item), "page": page})
        else:
            out.append({"type": "paragraph", "text": text, "page": page})
    return out


def _docling_language(item: Any) -> str:
    language = getattr(item, "code_language", None)
    value = getattr(language, "value", language)
    return "" if value in (None, "unknown") else str(value).lower()


def from_unstructured(elements: Sequence[Any]) -> List[Dict[str, Any]]:
    """The elements of unstructured's ``partition`` (``Element`` objects, or their ``to_dict()`` / JSON form):
    Title (a heading, its level from ``category_depth``), NarrativeText, ListItem, Table (cells from
    ``text_as_html``, else its text as a paragraph), FigureCaption / caption before a table, Header, Footer...;
    pages from ``page_number``."""
    out: List[Dict[str, Any]] = []
    for i, e in enumerate(_as_list(elements, "elements")):
        if isinstance(e, Mapping):
            category, text, meta = e.get("type"), e.get("text") or "", e.get("metadata") or {}
        else:
            category = getattr(e, "category", None)
            text = getattr(e, "text", "") or ""
            to_dict = getattr(getattr(e, "metadata", None), "to_dict", None)
            meta = to_dict() if callable(to_dict) else {}
        if not isinstance(category, str):
            raise _core.ChunkingError(f"elements[{i}] has no category (type)")
        page = meta.get("page_number")
        depth = meta.get("category_depth")
        if category == "Title":
            level = depth + 1 if isinstance(depth, int) and depth >= 0 else 1
            out.append({"type": "heading", "level": level, "text": text, "page": page})
        elif category == "Table":
            rows = _html_rows(meta.get("text_as_html") or "")
            if rows:
                out.append({"type": "table", "rows": rows, "page": page})
            else:
                out.append({"type": "paragraph", "text": text, "page": page})
        elif category == "FigureCaption":
            out.append({"type": "caption", "text": text, "page": page})
        elif category == "ListItem":
            out.append({"type": "list_item", "text": text, "page": page})
        elif category == "CodeSnippet":
            out.append({"type": "code", "text": text, "page": page})
        else:
            out.append({"type": "paragraph", "text": text, "page": page})
    return out


def _html_rows(html: str) -> List[List[str]]:
    """The rows of cells of the first HTML table in ``html`` (colspans repeated, as a grid)."""
    if "<t" not in html:
        return []
    from html.parser import HTMLParser

    class Rows(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.rows: List[List[str]] = []
            self.cell: Optional[List[str]] = None
            self.span = 1

        def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = []
                span = dict(attrs).get("colspan") or "1"
                self.span = int(span) if span.isdigit() else 1

        def handle_endtag(self, tag: str) -> None:
            if tag in ("td", "th") and self.cell is not None:
                if not self.rows:
                    self.rows.append([])
                self.rows[-1].extend([" ".join("".join(self.cell).split())] * max(1, self.span))
                self.cell = None

        def handle_data(self, data: str) -> None:
            if self.cell is not None:
                self.cell.append(data)

    parser = Rows()
    parser.feed(html)
    return [r for r in parser.rows if r]
