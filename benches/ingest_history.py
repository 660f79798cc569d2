"""A real edit history, ingested release after release: chunkwise's ``ingest`` against LangChain's indexing API.

The histories are documentation trees that nobody here wrote: the ``docs/`` folder of a package's source
distributions on PyPI, release after release (Flask 3.0.3 -> 3.1.0 -> 3.1.1, reStructuredText, BSD-3-Clause;
attrs 23.2.0 -> 24.1.0 -> 24.2.0, mostly Markdown, MIT). Each sdist is fetched once with ``pip download``, its
sha256 checked against the one written here, and only its ``docs/*.rst`` and ``docs/*.md`` files are used.

Each release in turn is copied into the same folder (so that a document keeps its id from release to release) and
ingested into one store, as a user syncing an index with each release would:

* chunkwise: ``chunkwise.ingest.ingest(folder, into=lance://...)`` with its default chunker (AutoChunker, 512
  characters) and with ``RecursiveChunker(512)``;
* LangChain: ``RecursiveCharacterTextSplitter(chunk_size=512, chunk_overlap=0)`` over one Document per file
  (``metadata["source"]`` = its path), then ``index(..., record_manager=SQLRecordManager(sqlite), vector_store=
  InMemoryVectorStore, cleanup="incremental", source_id_key="source")``, and the same with
  ``cleanup="scoped_full"`` (see :data:`LANGCHAIN_RUNS`).

Both embed with the same counting embedder (a text's vector is its sha256, so that two stores can be compared
vector by vector). Per release: how many texts each embedded, and for chunkwise how many distinct embedding texts
the new release has that the store did not (the texts that had to be embedded), then whether the store equals a
fresh ingestion of that release (ids, texts, offsets, vectors, manifest).

Run: ``PYTHONPATH=python python benches/ingest_history.py`` (prints a Markdown table); the bench
``test_bench_ingest_history.py`` asserts the acceptance of issue 35 on it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

#: package -> its releases, in order, each with the sha256 of its sdist on PyPI.
HISTORIES: Dict[str, List[Tuple[str, str]]] = {
    "flask": [
        ("3.0.3", "ceb27b0af3823ea2737928a4d99d125a06175b8512c445cbd9a9ce200ef76842"),
        ("3.1.0", "5f873c5184c897c8d9d1b05df1e3d01b14910ce69607a117bd3277098a5836ac"),
        ("3.1.1", "284c7b8f2f58cb737f0cf1c30fd7eaf0ccfcde196099d24ecede3fc2005aa59e"),
    ],
    "attrs": [
        ("23.2.0", "935dc3b529c262f6cf76e50877d35a4bd3c1de194fd41f47a2b7ae8f19971f30"),
        ("24.1.0", "adbdec84af72d38be7628e353a09b6a6790d15cd71819f6e9d7b0faa8a125745"),
        ("24.2.0", "5cfb1b9148b5b086569baec03f20d7b6bf3bcacc9a42bebf87ffaaca362f6346"),
    ],
}

#: The files of a docs tree that are read (the rest is images, Sphinx's conf.py and make files).
INCLUDE = ("*.rst", "*.md")

SIZE = 512
DIM = 16

CACHE = Path(os.environ.get("CHUNKWISE_BENCH_CACHE", Path.home() / ".cache" / "chunkwise-bench")) / "releases"


#: Where a row of :func:`store_snapshot` has its embedding text (the order of ``chunkwise.ingest.stores.COLUMNS``).
EMBEDDING_TEXT = 3


class FetchError(RuntimeError):
    """A release that could not be fetched (no network) or whose sdist is not the one recorded."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(package: str, version: str, sha256: str) -> Path:
    """The ``docs/`` folder of ``package==version``'s sdist, fetched once into ``CACHE`` and checked."""
    docs = CACHE / f"{package}-{version}" / "docs"
    if docs.is_dir():
        return docs
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        try:
            done = subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                 f"{package}=={version}", "-d", tmp],
                capture_output=True, text=True, timeout=300,
            )
        except subprocess.TimeoutExpired as exc:
            # An index that does not answer is a fetch that failed, as one that refuses (a CI run saw PyPI hang).
            raise FetchError(f"pip download {package}=={version} timed out after {exc.timeout:.0f} s") from exc
        sdists = list(Path(tmp).glob("*.tar.gz"))
        if done.returncode != 0 or len(sdists) != 1:
            raise FetchError(f"pip download {package}=={version} failed: {done.stderr.strip()[-300:]}")
        if _sha256(sdists[0]) != sha256:
            raise FetchError(f"{sdists[0].name}: sha256 {_sha256(sdists[0])}, expected {sha256}")
        out = Path(tmp) / "out"
        with tarfile.open(sdists[0]) as tar:
            prefix = f"{sdists[0].name[: -len('.tar.gz')]}/docs/"
            members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
            tar.extractall(out, members=members, filter="data")
        (CACHE / f"{package}-{version}").mkdir(exist_ok=True)
        os.replace(out / prefix.rstrip("/"), docs)
    return docs


def docs_files(root: Path) -> List[Path]:
    import fnmatch

    return sorted(p for p in root.rglob("*") if p.is_file() and any(fnmatch.fnmatch(p.name, g) for g in INCLUDE))


def place(release: Path, folder: Path) -> None:
    """``folder`` made exactly the release's docs files (others removed), so each document keeps its path."""
    if folder.exists():
        shutil.rmtree(folder)
    for path in docs_files(release):
        target = folder / path.relative_to(release)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def hash_vectors(texts: Sequence[str]) -> np.ndarray:
    out = np.empty((len(texts), DIM), dtype=np.float32)
    for i, text in enumerate(texts):
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        v = np.frombuffer(digest[:DIM], dtype=np.uint8).astype(np.float32) + 1.0
        out[i] = v / np.linalg.norm(v)
    return out


class CountingEmbedder:
    """The same vectors for every tool; counts the texts it is asked to embed."""

    name = "sha256-16"

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, texts: List[str]) -> np.ndarray:
        self.count += len(texts)
        return hash_vectors(texts)


def store_snapshot(uri: str) -> Tuple[List[Tuple[Any, ...]], List[Tuple[Any, ...]]]:
    """A store read back whole through the Store interface: rows sorted by id, the manifest by document."""
    from chunkwise.ingest.stores import COLUMNS, open_store

    assert COLUMNS[EMBEDDING_TEXT] == "embedding_text"
    store = open_store(uri, write=False)
    try:
        manifest = store.documents()
        rows = []
        for row in store.rows(sorted(manifest)):
            values = [row[c] for c in COLUMNS[:-1]]
            values[COLUMNS.index("title_path")] = tuple(values[COLUMNS.index("title_path")])
            rows.append(tuple(values) + (tuple(np.round(row["vector"].astype(float), 6)),))
        return sorted(rows), sorted((d, e) for d, e in manifest.items())
    finally:
        store.close()


@dataclass
class Step:
    """One release ingested on top of the previous one."""

    release: str
    files: int
    files_changed: int
    chunks: Dict[str, int] = field(default_factory=dict)
    embedded: Dict[str, int] = field(default_factory=dict)
    #: chunkwise: distinct embedding texts of this release the store did not hold before it
    new_texts: Dict[str, int] = field(default_factory=dict)
    equals_fresh: Dict[str, bool] = field(default_factory=dict)


def run_chunkwise(label: str, chunker: Any, releases: List[Path], work: Path, steps: List[Step]) -> None:
    from chunkwise.ingest import ingest

    folder, into = work / "docs", f"lance://{work / ('index-' + label)}"
    before: set = set()
    for k, release in enumerate(releases):
        place(release, folder)
        embed = CountingEmbedder()
        report = ingest(str(folder), into, embed, chunker, include=INCLUDE)
        rows, _ = store_snapshot(into)
        after = {r[EMBEDDING_TEXT] for r in rows}
        step = steps[k]
        step.embedded[label], step.chunks[label] = embed.count, len(rows)
        assert embed.count == report.texts_embedded
        step.new_texts[label] = len(after - before)
        fresh = f"lance://{work / ('fresh-' + label + '-' + str(k))}"
        ingest(str(folder), fresh, CountingEmbedder(), chunker, include=INCLUDE)
        step.equals_fresh[label] = store_snapshot(into) == store_snapshot(fresh)
        before = after


#: LangChain's runs: ``index()`` with incremental cleanup at its default batch size (100 chunks: a file whose chunks
#: straddle two batches is deleted by the first batch's cleanup and embedded again by the second, as its docstring
#: warns), and with ``scoped_full`` cleanup (the same deletions, done once after the run: no such re-embedding).
LANGCHAIN_RUNS = {"langchain": "incremental", "langchain-scoped": "scoped_full"}


def run_langchain(label: str, releases: List[Path], work: Path, steps: List[Step]) -> None:
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.indexing import index
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    try:
        from langchain_classic.indexes import SQLRecordManager
    except ImportError:  # older LangChain: the record manager lived in langchain_community
        from langchain_community.indexes._sql_record_manager import SQLRecordManager  # type: ignore

    class Counting(Embeddings):
        def __init__(self) -> None:
            self.count = 0

        def embed_documents(self, texts: List[str]) -> List[List[float]]:
            self.count += len(texts)
            return hash_vectors(texts).tolist()

        def embed_query(self, text: str) -> List[float]:
            return hash_vectors([text])[0].tolist()

    work.mkdir(parents=True, exist_ok=True)
    embeddings = Counting()
    store = InMemoryVectorStore(embeddings)
    manager = SQLRecordManager("chunkwise-history", db_url=f"sqlite:///{work / 'langchain-records.sqlite'}")
    manager.create_schema()
    splitter = RecursiveCharacterTextSplitter(chunk_size=SIZE, chunk_overlap=0)
    folder = work / "docs"
    for k, release in enumerate(releases):
        place(release, folder)
        docs = [Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": str(p)})
                for p in docs_files(folder)]
        chunks = splitter.split_documents(docs)
        before = embeddings.count
        index(chunks, manager, store, cleanup=LANGCHAIN_RUNS[label], source_id_key="source")  # type: ignore
        steps[k].embedded[label] = embeddings.count - before
        steps[k].chunks[label] = len(chunks)


def history(package: str, work: Optional[Path] = None) -> List[Step]:
    """Every release of ``package``'s history ingested in turn by each tool; raises FetchError without network."""
    import chunkwise

    releases = [fetch(package, v, sha) for v, sha in HISTORIES[package]]
    steps: List[Step] = []
    previous: Dict[Path, bytes] = {}
    for (version, _), release in zip(HISTORIES[package], releases):
        files = {p.relative_to(release): p.read_bytes() for p in docs_files(release)}
        changed = sum(1 for p, data in files.items() if previous.get(p) != data) + sum(
            1 for p in previous if p not in files)
        steps.append(Step(f"{package} {version}", len(files), changed))
        previous = files
    own = work is None
    root = Path(tempfile.mkdtemp(prefix="chunkwise-history-")) if own else work
    assert root is not None
    try:
        run_chunkwise("auto", chunkwise.AutoChunker(SIZE), releases, root / "auto", steps)
        run_chunkwise("recursive", chunkwise.RecursiveChunker(SIZE), releases, root / "recursive", steps)
        for label in LANGCHAIN_RUNS:
            run_langchain(label, releases, root / label, steps)
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)
    return steps


def table(steps: Sequence[Step]) -> str:
    head = ("| release | files (changed) | chunkwise Auto: chunks / new texts / embedded / = fresh | "
            "chunkwise Recursive: chunks / new texts / embedded / = fresh | LangChain: chunks / embedded, "
            "incremental | scoped_full | LangChain incremental / chunkwise Auto |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|"]
    for s in steps:
        cw = [f"{s.chunks[k]:,} / {s.new_texts[k]:,} / {s.embedded[k]:,} / {'yes' if s.equals_fresh[k] else 'NO'}"
              for k in ("auto", "recursive")]
        ratio = s.embedded["langchain"] / max(1, s.embedded["auto"])
        lines.append(f"| {s.release} | {s.files} ({s.files_changed}) | {cw[0]} | {cw[1]} | "
                     f"{s.chunks['langchain']:,} / {s.embedded['langchain']:,} | {s.embedded['langchain-scoped']:,} | "
                     f"{ratio:.1f}x |")
    return "\n".join(lines)


def main() -> None:
    steps: List[Step] = []
    for package in HISTORIES:
        steps += history(package)
    print(table(steps))


if __name__ == "__main__":
    main()
