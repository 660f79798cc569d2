"""A long text measured in tokens is counted on all threads (issue 34): its chunks are those of one thread.

The reference is the same call in a process whose thread pool has one thread (RAYON_NUM_THREADS=1), where the text
is cut by a single run; here the pool has a thread per core, and a text of more than 4 MB is cut in segments whose
runs are joined where they meet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import chunkwise
from support.tokenizer_assets import minilm_path

DATA = Path(__file__).resolve().parents[1] / "data"

pytestmark = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: nothing runs in parallel")


def long_text() -> str:
    # The repository's corpus (English, Chinese, Japanese, Markdown, Thai...), each copy numbered so that no two
    # stretches are alike, past 4 MB.
    parts = [p.read_text(encoding="utf-8") for p in sorted(DATA.glob("*.txt")) + [DATA / "mixed.md"]]
    out, n = [], 0
    while n < 5_000_000:
        for p in parts:
            out.append(f"Copy {len(out)}.\n\n{p}")
            n += len(out[-1].encode())
    return "\n\n".join(out)


REFERENCE = """
import json, sys
sys.path[:0] = {paths!r}
import chunkwise
from test_long_text_threads import long_text, make
print(json.dumps(make({case!r}).spans(long_text()).tolist()))
"""


def make(case: str):
    kind, size, overlap = case.split(":")
    if kind == "minilm":
        tok = chunkwise.Tokenizer.from_file(minilm_path())
    else:
        tok = chunkwise.Tokenizer.tiktoken(kind)
    cls = chunkwise.SentenceChunker if kind == "o200k_base" else chunkwise.RecursiveChunker
    return cls(size=int(size), overlap=int(overlap), tokenizer=tok)


CASES = ["cl100k_base:64:0", "cl100k_base:256:40", "o200k_base:128:0"] + (
    ["minilm:254:0"] if minilm_path() is not None else [])


@pytest.mark.parametrize("case", CASES)
def test_a_long_text_cut_on_all_threads_gives_the_chunks_of_one(case):
    text = long_text()
    assert len(text.encode()) > 4 << 20
    here = make(case).spans(text).tolist()
    paths = [str(Path(__file__).parent), str(Path(__file__).parents[1]), str(Path(chunkwise.__file__).parents[1])]
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    run = subprocess.run([sys.executable, "-c", REFERENCE.format(paths=paths, case=case)], env=env,
                         capture_output=True, text=True, check=True)
    one = json.loads(run.stdout)
    assert len(here) == len(one)
    assert here == one
