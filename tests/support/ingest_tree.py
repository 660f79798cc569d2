"""What the ingestion tests share: a small tree of real text (from tests/data), a cheap deterministic embedder, and
a store read back whole, to compare two stores row by row."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np

DATA = Path(__file__).resolve().parents[1] / "data"

#: The files of the tree: small whole files, and the start of two long ones (cut at a paragraph break).
WHOLE = ("SOURCES.md", "km.txt", "lo.txt", "table.md", "th.txt")
HEADS = {"en.txt": 12_000, "mixed.md": 12_000}

DIM = 16

#: The kinds of store the store-generic tests run over (the ``store_uri`` fixture of support/ingest_stores.py).
STORES = ("lance", "postgres", "qdrant")


def make_tree(root: Path) -> Path:
    """The tree under ``root/docs``: a folder of texts in several scripts and formats, one in a subfolder."""
    docs = root / "docs"
    (docs / "sub").mkdir(parents=True)
    for name in WHOLE:
        shutil.copy(DATA / name, docs / name)
    for name, size in HEADS.items():
        text = (DATA / name).read_text(encoding="utf-8")
        cut = text.index("\n\n", size)
        (docs / "sub" / name).write_text(text[:cut], encoding="utf-8")
    return docs


def edit(docs: Path) -> None:
    """One file edited in its middle, one deleted, one added."""
    en = docs / "sub" / "en.txt"
    text = en.read_text(encoding="utf-8")
    middle = text.index("\n\n", len(text) // 2)
    en.write_text(text[:middle] + " This sentence was inserted by an edit." + text[middle:], encoding="utf-8")
    (docs / "lo.txt").unlink()
    shutil.copy(DATA / "my.txt", docs / "my.txt")


def hash_vector(text: str, dim: int = DIM, salt: str = "") -> np.ndarray:
    digest = hashlib.sha256((salt + text).encode("utf-8", "surrogatepass")).digest()
    v = np.frombuffer(digest[:dim], dtype=np.uint8).astype(np.float32) + 1.0
    return v / np.linalg.norm(v)


class HashEmbedder:
    """A deterministic embedder that costs nothing: a text's vector is its sha256. Counts the texts it embeds."""

    def __init__(self, name: str = "hash-16", dim: int = DIM) -> None:
        self.name, self.dim = name, dim
        self.texts: List[str] = []

    def __call__(self, texts: List[str]) -> np.ndarray:
        self.texts.extend(texts)
        return np.stack([hash_vector(t, self.dim, self.name) for t in texts])


def hash16(texts: List[str]) -> np.ndarray:
    """The same as a plain function (no name: ``--embed support.ingest_tree:hash16`` is known by that spec)."""
    return np.stack([hash_vector(t, DIM, "hash-16") for t in texts])


def snapshot(store: Any, table: str = "chunks") -> Tuple[List[Tuple[Any, ...]], List[Tuple[Any, ...]]]:
    """A store (any URI :func:`chunkwise.ingest.open_store` takes, or a folder) read back whole through the
    :class:`~chunkwise.ingest.Store` interface: its rows sorted by id (the vector as a rounded tuple) and its
    manifest sorted by document (a document with rows and no entry as ``(doc_id, None)``)."""
    from chunkwise.ingest import open_store

    opened = open_store(str(store), table, write=False)
    try:
        documents = opened.documents()
        rows: List[Tuple[Any, ...]] = []
        for r in opened.rows(sorted(documents)):
            r["vector"] = tuple(round(float(x), 6) for x in r["vector"])
            rows.append(tuple(sorted(r.items())))
    finally:
        opened.close()
    return sorted(rows), sorted((doc_id, entry) for doc_id, entry in documents.items())


def copy_store(source: str, target: str, table: str = "chunks") -> None:
    """The rows and manifest of the store ``source`` written into the empty store ``target``, through the
    :class:`~chunkwise.ingest.Store` interface (any two kinds of store)."""
    from chunkwise.ingest import Replacement, open_store

    src, dst = open_store(source, table, write=False), open_store(target, table)
    try:
        documents = src.documents()
        rows = src.rows(sorted(documents))
        replacements = []
        for doc_id, entry in sorted(documents.items()):
            assert entry is not None, f"{doc_id} has no manifest entry in {source}"
            upsert = [r for r in rows if r["doc_id"] == doc_id]
            replacements.append(Replacement(doc_id, entry[0], entry[1], len(upsert), upsert))
        dst.replace_documents(replacements)
    finally:
        src.close()
        dst.close()


def by_id(snap: Tuple[List[Tuple[Any, ...]], Any]) -> Dict[str, Dict[str, Any]]:
    return {dict(r)["id"]: dict(r) for r in snap[0]}


def killed_run(docs: str, store: str, started: Any, batch_files: int) -> None:
    """A run of ``ingest`` in a process of its own (killed by the test at a random moment): many small batches,
    so that the kill can fall between any two of the store's writes."""
    from chunkwise.ingest import ingest, run

    run.BATCH_FILES = batch_files
    started.set()
    ingest(docs, store, HashEmbedder())


def holding_run(store: str, started: Any) -> None:
    """A run that has opened ``store`` to write (so holds its run lock) and goes no further: killed by the test."""
    import time

    from chunkwise.ingest import open_store

    held = open_store(store)
    started.set()
    time.sleep(600)
    held.close()
