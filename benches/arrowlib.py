"""The documents and the reference implementation of the Arrow benchmark (test_bench_arrow.py, arrow_peak.py).

* ``make_docs(n)``: n documents cut from the corpus (tests/data when ../shared/corpus is absent), of varied length
  (100 to 2,000 bytes of UTF-8, about 1 KB on average), round-robin over the corpus files.
* ``loop_table(chunker, docs)``: what a per-row UDF does: ``chunk()`` on each document, then the same table as
  ``chunk_arrow`` built with pyarrow from Python lists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

from benchlib import CORPUS_FILES, corpus_dir

TESTS_DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def corpus_texts() -> List[str]:
    folder = corpus_dir()
    if not all((folder / name).is_file() for name in CORPUS_FILES):
        folder = TESTS_DATA
    return [(folder / name).read_text(encoding="utf-8") for name in CORPUS_FILES]


def make_docs(n: int) -> List[str]:
    texts = corpus_texts()
    per_byte = []  # chars per UTF-8 byte of each file
    for t in texts:
        sample = t[:200_000]
        per_byte.append(len(sample) / len(sample.encode("utf-8")))
    docs = []
    for i in range(n):
        k = i % len(texts)
        t = texts[k]
        nbytes = 100 + (i * 7919) % 1900
        c = max(1, round(nbytes * per_byte[k]))
        start = (i // len(texts)) * 7919 * (1 + k) % max(1, len(t) - c)
        docs.append(t[start : start + c])
    return docs


def table_of(pa: Any, batch: List[list]) -> Any:
    """The chunk_arrow table (RecursiveChunker columns) of ``chunk_batch``-shaped results, built with pyarrow."""
    cols: dict = {name: [] for name in (
        "row", "index", "text", "start", "end", "size", "level", "id", "prev_id", "next_id", "context",
        "embedding_text", "page_start", "page_end")}
    for row, chunks in enumerate(batch):
        for c in chunks:
            cols["row"].append(row)
            cols["index"].append(c.index)
            cols["text"].append(c.text)
            cols["start"].append(c.start)
            cols["end"].append(c.end)
            cols["size"].append(c.size)
            cols["level"].append(c.level)
            cols["id"].append(c.id)
            cols["prev_id"].append(c.prev_id)
            cols["next_id"].append(c.next_id)
            cols["context"].append(c.context)
            cols["embedding_text"].append(c.embedding_text)
            md = c.metadata
            cols["page_start"].append(md.get("page_start"))
            cols["page_end"].append(md.get("page_end"))
    ints = {"row", "index", "start", "end", "size", "page_start", "page_end"}
    return pa.table({k: pa.array(v, pa.int64() if k in ints else pa.string()) for k, v in cols.items()})


def loop_table(pa: Any, chunker: Any, docs: List[str]) -> Any:
    return table_of(pa, [chunker.chunk(d) for d in docs])
