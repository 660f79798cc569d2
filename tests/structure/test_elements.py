"""ElementsChunker: parsed documents (typed elements, docling documents, unstructured elements) chunked with title
paths, captions, pages and element indices; wide tables split by column groups with the key column in each."""

from __future__ import annotations

import pickle

import pytest

from chunkwise import ChunkingError, ElementsChunker, chunk_elements
from chunkwise.elements import from_docling, from_unstructured

REPORT = [
    {"type": "title", "text": "年度报告", "page": 1},
    {"type": "section_header", "level": 2, "text": "第一节 概况", "page": 1},
    {"type": "paragraph", "text": "本报告介绍了本年度的主要情况，包括收入、成本和各地区的结果。" * 3, "page": 1},
    {"type": "list_item", "text": "收入增长", "page": 1},
    {"type": "list_item", "text": "成本下降", "page": 2},
    {"type": "caption", "text": "表 3：各地区的结果", "page": 2},
    {"type": "table", "rows": [["地区", "收入", "成本"]] + [[f"地区{i}", str(100 + i), str(50 + i)] for i in range(40)],
     "page": 2},
    {"type": "section_header", "level": 2, "text": "第二节 展望", "page": 3},
    {"type": "paragraph", "text": "# 不是标题\n- 也不是列表", "page": 3},
    {"type": "code", "text": "print('hi')", "language": "python", "page": 3},
]


def test_title_paths_pages_captions_and_element_indices():
    chunker = ElementsChunker(200)
    rendered = chunker.render(REPORT)
    chunks = chunker.chunk(REPORT, {"doc_id": "report"})
    text = rendered.text
    assert all(text[c.start : c.end] == c.text for c in chunks)
    # Every element's text is in the source, and every chunk lists the elements it holds.
    for i, span in enumerate(rendered.spans):
        if span is not None:
            holders = [c for c in chunks if i in c.metadata["element_indices"]]
            assert holders, f"element {i} is in no chunk"
            for c in holders:
                assert c.start < span[1] and span[0] < c.end
    for c in chunks:
        pages = [REPORT[k]["page"] for k in c.metadata["element_indices"]]
        assert (c.metadata["page_start"], c.metadata["page_end"]) == (min(pages), max(pages))
        assert c.metadata["element_types"] == [rendered.types[k] for k in c.metadata["element_indices"]]
        assert c.metadata["doc_id"] == "report"
    table = [c for c in chunks if 6 in c.metadata["element_indices"]]
    assert len(table) >= 3
    for c in table:
        assert c.metadata["title_path"] == ["年度报告", "第一节 概况"]
        if c.text.startswith("| 地区"):
            assert "表 3：各地区的结果" in c.context
            if not c.text.startswith("| 地区 |"):
                assert "| 地区 | 收入 | 成本 |" in c.context
    last = [c for c in chunks if 8 in c.metadata["element_indices"]]
    assert last[0].metadata["title_path"] == ["年度报告", "第二节 展望"]
    # A paragraph's text never turns into Markdown structure.
    assert "\\# 不是标题\n\\- 也不是列表" in text
    assert "```python\nprint('hi')\n```" in text


def test_a_wide_table_splits_by_column_groups_with_the_key_column_in_each():
    header = ["key"] + [f"column {j}" for j in range(1, 40)]
    rows = [header] + [[f"row{i}"] + [f"v{i}.{j}" for j in range(1, 40)] for i in range(6)]
    elements = [{"type": "heading", "text": "Data"}, {"type": "table", "rows": rows, "caption": "Table 1: wide"}]
    chunker = ElementsChunker(400)
    rendered = chunker.render(elements)
    parts = rendered.table_parts[1]
    assert len(parts) > 2
    assert sorted({c for _, cols in parts for c in cols}) == list(range(40))
    for (s, t), cols in parts:
        assert cols[0] == 0
        table = rendered.text[s:t]
        lines = table.split("\n")
        assert lines[0].startswith("| key |")
        assert [line.split(" | ")[0] for line in lines[2:]] == [f"| row{i}" for i in range(6)]
        assert all(len(line) <= 200 for line in lines)
    chunks = chunker.chunk(elements)
    assert all(rendered.text[c.start : c.end] == c.text for c in chunks)
    shown = [c.metadata["table_columns"] for c in chunks if "table_columns" in c.metadata]
    assert all(cols[0] == 0 for cols in shown)
    assert sorted({col for cols in shown for col in cols}) == list(range(40))
    for c in chunks:
        assert len(c.context) + len(c.context_sep) + len(c.text) <= 400


def test_docling_document():
    doc_types = pytest.importorskip("docling_core.types.doc")
    from docling_core.types.doc import (
        BoundingBox, DocItemLabel, DoclingDocument, ProvenanceItem, Size, TableCell, TableData,
    )

    def prov(page: int):
        return ProvenanceItem(page_no=page, bbox=BoundingBox(l=0, t=0, r=1, b=1), charspan=(0, 1))

    doc = DoclingDocument(name="report")
    for page in (1, 2):
        doc.add_page(page_no=page, size=Size(width=100, height=100))
    doc.add_title("Annual report", prov=prov(1))
    doc.add_heading("Results", level=1, prov=prov(1))
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue grew in every region.", prov=prov(1))
    caption = doc.add_text(label=DocItemLabel.CAPTION, text="Table 3: Revenue by region", prov=prov(2))
    grid = [["Region", "2023", "2024"]] + [[f"Region {i}", str(10 + i), str(12 + i)] for i in range(30)]
    cells = [
        TableCell(text=t, start_row_offset_idx=r, end_row_offset_idx=r + 1, start_col_offset_idx=c,
                  end_col_offset_idx=c + 1, column_header=r == 0)
        for r, row in enumerate(grid) for c, t in enumerate(row)
    ]
    doc.add_table(data=TableData(num_rows=len(grid), num_cols=3, table_cells=cells), caption=caption, prov=prov(2))
    doc.add_list_item("A closing remark", prov=prov(2))
    elements = from_docling(doc)
    assert [e["type"] for e in elements] == ["heading", "heading", "paragraph", "table", "list_item"]
    assert elements[3]["caption"] == "Table 3: Revenue by region" and elements[3]["rows"][0] == grid[0]
    chunks = ElementsChunker(300).chunk(elements)
    table = [c for c in chunks if c.metadata["element_types"] == ["table"]]
    assert table and all(c.metadata["title_path"] == ["Annual report", "Results"] for c in table)
    assert all(c.metadata["page_start"] == 2 for c in table)
    assert any(c.context.startswith("Annual report > Results\n\nTable 3: Revenue by region\n\n| Region |")
               for c in table)
    assert chunks[0].metadata["page_start"] == 1
    assert doc_types is not None


def test_unstructured_elements():
    elements = [
        {"type": "Title", "text": "Intro", "metadata": {"page_number": 1, "category_depth": 0}},
        {"type": "NarrativeText", "text": "Some words about the data.", "metadata": {"page_number": 1}},
        {"type": "Title", "text": "Details", "metadata": {"page_number": 2, "category_depth": 1}},
        {"type": "FigureCaption", "text": "Table 2: measures", "metadata": {"page_number": 2}},
        {"type": "Table", "text": "a b 1 2", "metadata": {
            "page_number": 2,
            "text_as_html": "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"}},
        {"type": "ListItem", "text": "an item", "metadata": {"page_number": 3}},
        {"type": "Footer", "text": "page 3", "metadata": {"page_number": 3}},
    ]
    parsed = from_unstructured(elements)
    assert parsed[2] == {"type": "heading", "level": 2, "text": "Details", "page": 2}
    assert parsed[4]["rows"] == [["a", "b"], ["1", "2"]]
    chunks = chunk_elements(parsed, 60)
    table = next(c for c in chunks if "table" in c.metadata["element_types"])
    assert table.metadata["title_path"] == ["Intro", "Details"]
    assert "Table 2: measures" in table.text or "Table 2: measures" in table.context
    assert chunks[-1].metadata["page_end"] == 3


def test_unstructured_element_objects():
    """Real unstructured ``Element`` objects (unstructured is in the test extras), as ``partition_pdf`` gives them:
    the same parsed elements as their ``to_dict()`` form, title paths by ``category_depth``, the caption in the
    table's context, a table from ``text_as_html`` split by rows with its header, pages kept."""
    el = pytest.importorskip("unstructured.documents.elements")
    staging = pytest.importorskip("unstructured.staging.base")
    meta = el.ElementMetadata
    rows = "".join(f"<tr><td>Region {i}</td><td>{10 + i}</td><td>{12 + i}</td></tr>" for i in range(25))
    html = f"<table><thead><tr><th>Region</th><th>2023</th><th>2024</th></tr></thead><tbody>{rows}</tbody></table>"
    objects = [
        el.Title("年度报告", metadata=meta(page_number=1, category_depth=0)),
        el.NarrativeText("本报告说明各地区的收入。每个地区都有增长。", metadata=meta(page_number=1)),
        el.Title("Results", metadata=meta(page_number=2, category_depth=1)),
        el.FigureCaption("表 3：各地区收入", metadata=meta(page_number=2)),
        el.Table("Region 2023 2024 ...", metadata=meta(page_number=2, text_as_html=html)),
        el.ListItem("A closing remark", metadata=meta(page_number=3)),
        el.Footer("page 3", metadata=meta(page_number=3)),
    ]
    parsed = from_unstructured(objects)
    assert parsed == from_unstructured(staging.elements_to_dicts(objects))
    assert [e["type"] for e in parsed] == ["heading", "paragraph", "heading", "caption", "table", "list_item",
                                           "paragraph"]
    assert parsed[2]["level"] == 2 and parsed[4]["rows"][0] == ["Region", "2023", "2024"]
    assert len(parsed[4]["rows"]) == 26
    chunks = ElementsChunker(200).chunk(parsed)
    table = [c for c in chunks if c.metadata["element_types"] == ["table"]]
    assert len(table) > 1  # 25 rows do not fit 200 characters: split by rows
    for c in table:
        assert c.metadata["title_path"] == ["年度报告", "Results"]
        assert c.metadata["page_start"] == c.metadata["page_end"] == 2
        assert "表 3：各地区收入" in c.context and "| Region | 2023 | 2024 |" in c.context + c.text
    assert chunks[0].metadata["title_path"] == ["年度报告"] and chunks[0].metadata["page_start"] == 1
    assert chunks[-1].metadata["page_end"] == 3


def test_batch_pickle_and_bad_input():
    chunker = ElementsChunker(120)
    docs = [REPORT, [{"type": "text", "text": "One paragraph."}], []]
    assert chunker.chunk_batch(docs) == [chunker.chunk(d) for d in docs]
    assert chunker.chunk([]) == []
    clone = pickle.loads(pickle.dumps(chunker))
    assert clone == chunker and clone.chunk(REPORT) == chunker.chunk(REPORT)
    with pytest.raises(ChunkingError, match=r"elements\[0\]: unknown type 'chart-ish'"):
        chunker.chunk([{"type": "chart-ish", "text": "x"}])
    with pytest.raises(ChunkingError, match=r"elements\[1\] needs a 'type'"):
        chunker.chunk([{"type": "text", "text": "x"}, {"text": "y"}])
    with pytest.raises(ChunkingError, match=r"elements\[0\]\['level'\] must be an int"):
        chunker.chunk([{"type": "heading", "text": "x", "level": "2"}])
    with pytest.raises(ChunkingError, match=r"'rows' belongs to a table"):
        chunker.chunk([{"type": "paragraph", "rows": [["a"]]}])
    with pytest.raises(TypeError, match=r"elements\[0\] must be a mapping"):
        chunker.chunk(["just a string"])  # type: ignore[list-item]
    with pytest.raises(ChunkingError, match="'element_indices' is set by ElementsChunker"):
        chunker.chunk(REPORT, {"element_indices": [1]})
