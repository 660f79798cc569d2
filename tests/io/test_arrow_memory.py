"""A huge row is chunked in bounded memory: one document of hundreds of MB in one Arrow batch, through chunk_arrow and
through a Polars expression, in a child process (so that its peak RSS is the call's own). The peak, over the RSS
just before the call (the input is already there), is at most the Arrow output plus a margin: a constant and
``PER_CHUNK`` bytes a chunk (the spans while the columns are built, the hashes that number repeated chunk texts in
the ids); through Polars, plus what Polars' own ``map_batches`` holds around any batch function on that column.
Holding every chunk as a ``Chunk`` (112 bytes) exceeds it, and so does any copy of the document or of the chunk
texts. The result is checked equal to ``chunker.spans()`` on the same text.

A memory bound, not a timing: the figures are in benches/README.md ("A huge document"), from
benches/arrow_huge_peak.py on 500 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from support.corpus import DATA  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# What the call may hold beyond its output: a constant (the allocators' arenas, rayon's stacks) and bytes a chunk
# (measured: 45 through chunk_arrow; through Polars 90, the Arrow offsets of the string columns being alive while
# Polars makes its string views of them).
CONSTANT = 24 << 20
PER_CHUNK = {"arrow": 64, "polars": 128}

CHILD = r"""
import gc, json, resource, sys
import pyarrow as pa
import chunkwise
from chunkwise.arrow import chunk_arrow

mb, unit, via, data_dir = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]


def kib(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss():
    now = kib("VmRSS")
    return (now if now is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def peak():
    hwm = kib("VmHWM")
    return (hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def reset():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass  # the peak is then the process's: its input was built without a copy, so the bound still holds


unit_text = b"".join(
    (open(f"{data_dir}/{name}", "rb").read() + b"\n\n") for name in ("en.txt", "zh.txt")
)
n = int(mb * 1e6) // len(unit_text) * len(unit_text)
data = bytearray(n)  # one allocation, filled in place: no transient copy before the measure
for at in range(0, n, len(unit_text)):
    data[at : at + len(unit_text)] = unit_text
offsets = pa.array([0, n], pa.int32()).buffers()[1]
array = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(data)])
tokenizer = chunkwise.Tokenizer.tiktoken("cl100k_base") if unit == "tokens" else None
chunker = chunkwise.RecursiveChunker(512, tokenizer=tokenizer)
chunk_arrow(pa.array(["warm up. " * 200, "\u4e2d\u6587\u3002" * 200]), chunker)
if via.startswith("polars"):
    import polars as pl
    import chunkwise.polars

    def call():
        if via == "polars-own":  # what Polars itself holds around a batch function on this column
            return frame.select(pl.col("text").map_batches(lambda s: pl.Series([0] * len(s)), return_dtype=pl.Int64))
        return frame.select(pl.col("text").chunkwise.chunk(chunker).alias("chunks"))

    frame = pl.DataFrame({"text": ["warm up. " * 200]})
    call()
    frame = pl.DataFrame({"text": pl.from_arrow(array)})
    del array
else:
    def call():
        return chunk_arrow(array, chunker)

gc.collect()
try:
    import ctypes
    ctypes.CDLL("libc.so.6").malloc_trim(0)
except (OSError, AttributeError):
    pass
before = rss()
reset()
out = call()
increase = peak() - before
if via == "polars-own":
    print(json.dumps({"increase": increase}))
    sys.exit(0)

# The output's buffers, each counted once (embedding_text shares text's); Polars' as it holds them (string views).
held = out.to_arrow(compat_level=pl.CompatLevel.newest()) if via == "polars" else out
seen = {}
for column in held.columns:
    for part in column.chunks:
        for b in part.buffers():
            if b is not None:
                seen[b.address] = max(seen.get(b.address, 0), b.size)
output = sum(seen.values())
del held
if via == "polars":
    table = out.explode("chunks").unnest("chunks").to_arrow()
    del out
else:
    table = out

text = data.decode()
spans = chunker.spans(text)
assert table.num_rows == len(spans), (table.num_rows, len(spans))
starts = table.column("start").to_numpy()
ends = table.column("end").to_numpy()
assert (starts == spans[:, 0]).all() and (ends == spans[:, 1]).all(), "offsets differ from chunker.spans()"
texts = table.column("text").to_pylist()
assert all(t == text[a:b] for t, a, b in zip(texts, starts.tolist(), ends.tolist())), "a text differs"
print(json.dumps({"increase": increase, "output": output, "chunks": len(spans), "input": n}))
"""


def _peak(mb: float, unit: str, via: str) -> dict:
    got = subprocess.run(
        [sys.executable, "-c", CHILD, str(mb), unit, via, str(DATA)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert got.returncode == 0, got.stderr[-3000:]
    return json.loads(got.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RSS read from /proc")
@pytest.mark.parametrize(
    ("mb", "unit", "via"),
    [(200, "chars", "arrow"), (40, "tokens", "arrow"), (100, "chars", "polars")],
    ids=["chars", "tokens", "polars"],
)
def test_a_huge_row_is_chunked_in_bounded_memory(mb, unit, via):
    own = 0
    if via == "polars":
        pytest.importorskip("polars")
        # Polars' map_batches holds a few times the column around any batch function (one returning zeros too):
        # Polars' own, outside chunkwise's reach, measured in a process of its own and allowed for.
        own = _peak(mb, unit, "polars-own")["increase"]
    got = _peak(mb, unit, via)
    per_chunk = PER_CHUNK[via]
    bound = own + got["output"] + CONSTANT + per_chunk * got["chunks"]
    assert got["chunks"] > mb * 1e6 / 4000, got  # chunks of a few hundred characters or tokens
    assert got["increase"] <= bound, (
        f"peak RSS rose {got['increase'] >> 20} MiB for a {got['input'] >> 20} MiB document: over its output "
        f"({got['output'] >> 20} MiB) and Polars' own ({own >> 20} MiB) by "
        f"{(got['increase'] - got['output'] - own) >> 20} MiB, more than "
        f"{CONSTANT >> 20} MiB + {per_chunk} bytes x {got['chunks']} chunks"
    )
