"""What SemanticChunker sends to the model, and what the model costs, for a few ``min_unit`` values: units, MiniLM
tokens ([CLS] and [SEP] included, truncated at 256 as the model reads them), and the CPU time of all-MiniLM-L6-v2
(numpy) on those units, interleaved rounds; then the chunker's own time outside the model, end to end.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=python python benches/semantic_units.py [--file zh.txt] [--bytes 30000] \\
        [--size 512] [--min-unit 40 --min-unit 80 ...] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence

import numpy as np

from chunkwise import SemanticChunker
from chunkwise.evaluation import minilm


def units_of(text: str, size: int, min_unit: int) -> List[str]:
    chunker = SemanticChunker(size, embed=lambda t: np.zeros((len(t), 1)), min_unit=min_unit)
    pairs = chunker._splitter.semantic_units(text)
    offsets = memoryview(pairs).cast("q")
    return [text[offsets[i] : offsets[i + 1]] for i in range(0, len(offsets), 2)]


class Timed:
    """The model, with the CPU time spent inside it."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.seconds = 0.0

    def __call__(self, texts: List[str]) -> np.ndarray:
        t = time.process_time()
        out = self.model(texts)
        self.seconds += time.process_time() - t
        return out


def main(argv: Sequence[str] = ()) -> None:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default=str(here.parent.parent / "shared" / "corpus"))
    p.add_argument("--file", default="zh.txt")
    p.add_argument("--bytes", type=int, default=30_000, help="the file's first this many bytes of UTF-8")
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--min-unit", type=int, action="append", default=[])
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(list(argv) or None)

    data = (Path(args.corpus) / args.file).read_bytes()[: args.bytes]
    text = data.decode("utf-8", errors="ignore")
    model = minilm()
    tokenizer = model._load()[1]
    lists: Dict[int, List[str]] = {m: units_of(text, args.size, m) for m in args.min_unit or [40, 80, 120]}
    model(["warm up"])
    times: Dict[int, List[float]] = {m: [] for m in lists}
    for _ in range(args.rounds):
        for m, units in lists.items():
            t = time.process_time()
            model(units)
            times[m].append(time.process_time() - t)
    print(f"{args.file}, first {args.bytes:,} bytes ({len(text):,} chars), size {args.size}, "
          f"median of {args.rounds} interleaved rounds (CPU seconds)\n")
    print("| `min_unit` | units | MiniLM tokens | of which [CLS]/[SEP] | model CPU seconds |")
    print("|---:|---:|---:|---:|---:|")
    for m, units in lists.items():
        tokens = sum(min(len(e.ids), 256) for e in tokenizer.encode_batch(units))
        runs = ", ".join(f"{s:.2f}" for s in times[m])
        print(f"| {m} | {len(units)} | {tokens:,} | {2 * len(units)} | {statistics.median(times[m]):.2f} ({runs}) |")
    print()
    for m in lists:
        timed = Timed(model)
        t = time.process_time()
        SemanticChunker(args.size, embed=timed, min_unit=m).chunk(text)
        total = time.process_time() - t
        print(f"min_unit {m}: chunk() {total:.2f} s, of which the model {timed.seconds:.2f} s: chunkwise outside "
              f"the model {100 * (total - timed.seconds) / timed.seconds:.2f}%", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
