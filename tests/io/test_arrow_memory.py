"""A huge row is chunked in bounded memory: one document of hundreds of MB in one Arrow batch, through chunk_arrow and
through a Polars expression, in a child process (so that its peak RSS is the call's own). The peak, over the RSS
just before the call (the input is already there), is at most the Arrow output plus a margin: a constant and
``PER_CHUNK`` bytes a chunk (the spans while the columns are built, the hashes that number repeated chunk texts in
the ids); through Polars, plus what Polars' own ``map_batches`` holds around any batch function on that column.
Holding every chunk as a ``Chunk`` (112 bytes) exceeds it, and so does any copy of the document or of the chunk
texts. The result is checked equal to ``chunker.spans()`` on the same text. The measure is
benches/arrow_huge_peak.py's (``--check``), run as a script.

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

ROOT = Path(__file__).resolve().parents[2]
# What the call may hold beyond its output: a constant (the allocators' arenas, rayon's stacks) and bytes a chunk
# (measured: 45 through chunk_arrow; through Polars 90, the Arrow offsets of the string columns being alive while
# Polars makes its string views of them).
CONSTANT = 24 << 20
PER_CHUNK = {"arrow": 64, "polars": 128}

SCRIPT = ROOT / "benches" / "arrow_huge_peak.py"


def _peak(mb: float, unit: str, via: str) -> dict:
    """benches/arrow_huge_peak.py's measure in a child process, the chunks checked against ``spans()`` there."""
    got = subprocess.run(
        [sys.executable, str(SCRIPT), "--mb", str(mb), "--unit", unit, "--via", via, "--json", "--check"],
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
        own = _peak(mb, unit, "polars-own")["peak_increase"]
    got = _peak(mb, unit, via)
    per_chunk = PER_CHUNK[via]
    bound = own + got["output_bytes"] + CONSTANT + per_chunk * got["chunks"]
    assert got["chunks"] > mb * 1e6 / 4000, got  # chunks of a few hundred characters or tokens
    assert got["hwm_reset"] or not sys.platform.startswith("linux"), got
    assert got["peak_increase"] <= bound, (
        f"peak RSS rose {got['peak_increase'] >> 20} MiB for a {got['input_bytes'] >> 20} MiB document: over its "
        f"output ({got['output_bytes'] >> 20} MiB) and Polars' own ({own >> 20} MiB) by "
        f"{(got['peak_increase'] - got['output_bytes'] - own) >> 20} MiB, more than "
        f"{CONSTANT >> 20} MiB + {per_chunk} bytes x {got['chunks']} chunks"
    )
