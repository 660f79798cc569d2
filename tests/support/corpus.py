"""The test corpus: the slices in tests/data that ship with the repository (see tests/data/SOURCES.md), and the full
corpus when it is beside it.

Every test runs on tests/data. A few measure more on the full corpus (``../shared/corpus`` beside the repository, or
the folder ``CHUNKWISE_CORPUS`` names): those read it through :func:`full`, which skips with the reason when it is
absent, or through :func:`long_text`, which falls back to the slice in tests/data.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
# The full corpus and the retrieval development set, where a checkout has them beside the repository.
SHARED = ROOT.parent / "shared"
EVAL = SHARED / "eval"


def full_dir() -> Path:
    """Where the full corpus is looked for: ``CHUNKWISE_CORPUS``, else ``../shared/corpus``."""
    return Path(os.environ.get("CHUNKWISE_CORPUS") or SHARED / "corpus")


def data(name: str, limit: Optional[int] = None) -> str:
    """The file ``name`` of tests/data, its first ``limit`` characters."""
    return (DATA / name).read_text(encoding="utf-8")[:limit]


def load(name: str) -> str:
    """A corpus file from ``CHUNKWISE_CORPUS`` when it is set (the full corpus, say), else from tests/data. A missing
    file fails the test: it is never skipped."""
    env = os.environ.get("CHUNKWISE_CORPUS")
    path = (Path(env) if env else DATA) / name
    assert path.is_file(), f"corpus file {path} not found"
    return path.read_text(encoding="utf-8")


def full(name: str, why: str = "") -> str:
    """The whole corpus file ``name``; the test is skipped, saying so, where the full corpus is not here."""
    path = full_dir() / name
    if not path.is_file():
        pytest.skip(f"the full corpus file {path} is not here ({why or 'this test measures the whole file'}): "
                    "put the corpus in ../shared/corpus or point CHUNKWISE_CORPUS at it")
    return path.read_text(encoding="utf-8")


def long_text(name: str, length: Optional[int] = None) -> str:
    """``length`` characters of the corpus file ``name``: from the full corpus when it is here, else the slice in
    tests/data repeated (its copies joined by a blank line) up to ``length``, a longer document of the same real
    text, so that a test of size runs on any clone."""
    path = full_dir() / name
    if path.is_file():
        return path.read_text(encoding="utf-8")[:length]
    part = data(name)
    if length is None or len(part) >= length:
        return part[:length]
    copies = -(-length // (len(part) + 2))
    return "\n\n".join([part] * copies)[:length]


def corpus(name: str, whole: bool) -> str:
    """The slice of a corpus file in tests/data, or the whole file (where an acceptance figure is measured on it)."""
    return full(name, "the acceptance figure needs it") if whole else data(name)


def code_corpus(min_length: Optional[int] = None) -> str:
    """The corpus's code.py (whole modules of Python's standard library): the full file when it is here, else the
    copy in tests/data, its modules repeated as whole modules until the text has ``min_length`` characters."""
    path = full_dir() / "code.py"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    part = data("code.py")
    copies = 1 if min_length is None else -(-min_length // len(part))
    return "\n\n".join([part] * copies)


SENTENCE_END = re.compile(r"[.。！？!?]\s?")


def edits(text: str, seed: int):
    """A sentence inserted, a sentence deleted and a few words changed, each at a sentence end."""
    import random

    rng = random.Random(seed)
    cjk = sum(1 for ch in text[:2000] if ord(ch) > 0x3000) > 200
    for kind in ("insert", "delete", "change"):
        at = SENTENCE_END.search(text, rng.randrange(len(text) // 10, len(text) * 9 // 10))
        assert at is not None
        p = at.end()
        if kind == "insert":
            new, edited = text[:p] + ("这是新插入的一句话。" if cjk else "A sentence inserted here. ") + text[p:], (p, p)
        elif kind == "delete":
            nxt = SENTENCE_END.search(text, p + 1)
            assert nxt is not None
            new, edited = text[:p] + text[nxt.end() :], (p, nxt.end())
        else:
            new, edited = text[:p] + ("改" if cjk else "Changed") + text[p + 3 :], (p, p + 3)
        yield kind, edited, new
