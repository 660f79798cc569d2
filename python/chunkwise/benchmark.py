"""The throughput of chunkwise and of every installed peer splitter on the user's own files,
at the user's sizes, in one run, as MB/s and ratios (a table, JSON, a plot).

Each implementation splits each file into chunks of at most ``size`` characters with no overlap, under its own
default boundary rules; the time of a call is the fastest of ``rounds`` calls (on a shared machine the least noisy
estimate of a call's own cost), MB are 10**6 bytes of the file's UTF-8 text, and every ratio is between two numbers
of the same run. A peer that is not installed is listed as skipped, with the package to install.

From the command line (:mod:`chunkwise.cli.bench`): ``chunkwise bench FILE... [--size 512] [--rounds 3]``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

Split = Callable[[str], Any]


def _chunkwise_spans(size: int) -> Split:
    from . import RecursiveChunker

    return RecursiveChunker(size).spans


def _chunkwise_chunks(size: int) -> Split:
    from . import RecursiveChunker

    return RecursiveChunker(size).chunk


def _langchain(size: int) -> Split:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0, length_function=len).split_text


def _text_splitter(size: int) -> Split:
    from semantic_text_splitter import TextSplitter

    return TextSplitter(size, overlap=0, trim=True).chunks


def _chonkie(size: int) -> Split:
    import chonkie

    chunker = chonkie.RecursiveChunker(tokenizer="character", chunk_size=size)
    return lambda text: [c.text for c in chunker.chunk(text)]


def _semchunk(size: int) -> Split:
    import semchunk

    # memoize=False: the default caches the counter in a module-wide cache that would carry over between rounds
    return semchunk.chunkerify(len, chunk_size=size, memoize=False)


def _llama_index(size: int) -> Split:
    from llama_index.core.node_parser import SentenceSplitter

    # tokenizer=list: sizes in characters, as for the others (and no tokenizer to fetch)
    return SentenceSplitter(chunk_size=size, chunk_overlap=0, tokenizer=list).split_text


#: name -> (factory(size) -> split(text), the package to install). chunkwise's two first.
IMPLEMENTATIONS: Dict[str, Tuple[Callable[[int], Split], str]] = {
    "chunkwise (spans)": (_chunkwise_spans, "chunkwise"),
    "chunkwise (chunks)": (_chunkwise_chunks, "chunkwise"),
    "langchain": (_langchain, "langchain-text-splitters"),
    "semantic-text-splitter": (_text_splitter, "semantic-text-splitter"),
    "chonkie": (_chonkie, "chonkie"),
    "semchunk": (_semchunk, "semchunk"),
    "llama-index": (_llama_index, "llama-index-core"),
}
#: What the ratios divide: chunkwise's chunks (objects with text, offsets and metadata), as the peers give strings.
BASELINE = "chunkwise (chunks)"


@dataclass
class Bench:
    """MB/s per (implementation, file, size); ``skipped``: implementation -> why."""

    files: List[Tuple[str, int]]  # (name, UTF-8 bytes)
    sizes: List[int]
    rounds: int
    mbps: Dict[Tuple[str, str, int], float] = field(default_factory=dict)
    skipped: Dict[str, str] = field(default_factory=dict)

    def implementations(self) -> List[str]:
        """Those measured, in the order of IMPLEMENTATIONS."""
        measured = {impl for impl, _, _ in self.mbps}
        return [n for n in IMPLEMENTATIONS if n in measured]

    def table(self) -> str:
        """Per size, a row per implementation: MB/s on each file and chunkwise's ratio over it."""
        out = []
        for size in self.sizes:
            names = [f for f, _ in self.files]
            out.append(f"size {size} characters: MB/s (fastest of {self.rounds}), and {BASELINE} / each\n")
            out.append("| implementation | " + " | ".join(names) + " | " + " | ".join(f"ratio {n}" for n in names) + " |")
            out.append("|---|" + "---:|" * (2 * len(names)))
            for impl in self.implementations():
                speeds = [self.mbps.get((impl, f, size)) for f in names]
                ratios = []
                for f, s in zip(names, speeds):
                    base = self.mbps.get((BASELINE, f, size))
                    ratios.append(f"{base / s:.1f}x" if base and s else "-")
                out.append(f"| {impl} | " + " | ".join(f"{s:.1f}" if s else "-" for s in speeds) + " | "
                           + " | ".join(ratios) + " |")
            out.append("")
        for impl, why in self.skipped.items():
            out.append(f"skipped {impl}: {why}")
        return "\n".join(out).rstrip() + "\n"

    def to_json(self) -> str:
        rows = [{"implementation": i, "file": f, "size": s, "MBps": round(v, 2),
                 "ratio": round(self.mbps[(BASELINE, f, s)] / v, 3) if (BASELINE, f, s) in self.mbps and v else None}
                for (i, f, s), v in self.mbps.items()]
        return json.dumps({"rounds": self.rounds, "files": [{"name": f, "bytes": b} for f, b in self.files],
                           "rows": rows, "skipped": self.skipped}, ensure_ascii=False, indent=1)

    def plot(self, path: Any) -> None:
        """A bar chart of MB/s per implementation, one group of bars per file and size (log scale)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        impls = self.implementations()
        groups = [(f, s) for s in self.sizes for f, _ in self.files]
        fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(groups) + 2), 4.2))
        width = 0.8 / max(1, len(impls))
        for k, impl in enumerate(impls):
            xs = [g + k * width for g in range(len(groups))]
            ax.bar(xs, [self.mbps.get((impl, f, s), 0.0) for f, s in groups], width, label=impl)
        ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))], [f"{f}\n{s} chars" for f, s in groups])
        ax.set_yscale("log")
        ax.set_ylabel("MB/s (log scale)")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


def run(files: Sequence[Path], sizes: Sequence[int], rounds: int = 3, only: Optional[Sequence[str]] = None,
        progress: Optional[Callable[[str], None]] = None) -> Bench:
    """Times every implementation (``only``: these names) on every file at every size."""
    # utf-8-sig: a leading byte order mark is no part of the text (as ``chunkwise chunk`` reads files)
    texts = [(p.name, p.read_text(encoding="utf-8-sig")) for p in files]
    bench = Bench([(n, len(t.encode("utf-8"))) for n, t in texts], list(sizes), rounds)
    for impl, (factory, package) in IMPLEMENTATIONS.items():
        if only is not None and impl not in only and impl != BASELINE:
            continue
        for size in sizes:
            try:
                split = factory(size)
                split(texts[0][1][:10_000] if texts else "")  # imports and caches, untimed
            except ImportError:
                bench.skipped[impl] = f"not installed (pip install {package})"
                break
            except Exception as exc:  # a peer that cannot run here (a resource it fetches, a version it lacks)
                bench.skipped[impl] = f"failed: {type(exc).__name__}: {exc}"
                break
            for (name, text), (_, nbytes) in zip(texts, bench.files):
                if progress is not None:
                    progress(f"{impl}, {name}, {size}")
                best = float("inf")
                for _ in range(rounds):
                    t0 = time.perf_counter()
                    split(text)
                    best = min(best, time.perf_counter() - t0)
                bench.mbps[(impl, name, size)] = nbytes / 1e6 / max(best, 1e-9)
    return bench

