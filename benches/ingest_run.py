"""End to end speed and peak memory of ``chunkwise.ingest.ingest`` into LanceDB with an embedder that costs nothing,
and, in the same process, chunking alone on the same files.

    python benches/ingest_run.py [--limit N] [--rounds 1] [--chunk-peak] [--json]

Run in a fresh process (test_bench_ingest.py does). The folder is the corpus folder as it is (en.txt, zh.txt, ja.txt,
mixed.md, code.py, SOURCES.md, manifest.json: every file, as ``chunkwise ingest <folder>`` would take it), or, with
``--limit``, a copy of it with each file cut to that many bytes (smoke runs).

The embedder returns a view of one preallocated float32 array of zeros, ``(n, 384)`` (all-MiniLM-L6-v2's width): it
costs nothing, so what is timed is the tool alone, with vectors as wide as a real model's to write. Each round, into a
new LanceDB folder (``AutoChunker()``, the default chunker; no ``cache=``):

* ``first``: the first ingestion of the folder (walk, read, chunk, embed, write, manifest, ``optimize()``);
* ``again``: a second run over the unchanged folder (every document unchanged: the manifest read, the files read and
  fingerprinted);
* ``chunk``: ``AutoChunker().chunk_batch`` on the same files' texts (read and decoded outside the timing), with
  their names as ``source``: the chunking the first run cannot do without; ``vs_chunk`` is its time over the first
  run's.

MB/s with MB = 10**6 bytes of the files; ``--rounds`` rounds, the median of each case reported (``*_runs``: every
round). Memory: the peak RSS of the first round's first run minus the RSS before it (VmHWM reset through
/proc/self/clear_refs, as memory_peak.py does), and that peak as a multiple of the largest file (target < 3). With
``--chunk-peak``, in a process of its own, the peak of chunking alone (``chunk_batch`` on the files read), for scale:
what the chunker needs whatever ingest does.

Prints a short summary, or one JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import corpus_dir  # noqa: E402
from memory_peak import peak_bytes, reset_peak, rss_bytes, trim_heap  # noqa: E402

DIM = 384


class ZeroEmbedder:
    """Costs nothing: a view of one preallocated array of zeros, as many rows as texts (a run embeds in batches of
    ``batch_size``, 256 by default; a bigger call gets a new array)."""

    model_id = f"zeros-{DIM}"

    def __init__(self, rows: int = 256) -> None:
        self.zeros = np.zeros((rows, DIM), dtype=np.float32)

    def __call__(self, texts: list) -> np.ndarray:
        if len(texts) > len(self.zeros):
            self.zeros = np.zeros((len(texts), DIM), dtype=np.float32)
        return self.zeros[: len(texts)]


def make_folder(root: Path, limit: int | None) -> Path:
    """The corpus folder itself, or a copy of it with each file cut to ``limit`` bytes."""
    source = corpus_dir()
    if limit is None:
        return source
    folder = root / "corpus"
    folder.mkdir()
    for path in sorted(source.iterdir()):
        if path.is_file():
            data = path.read_bytes()[:limit].decode("utf-8", "ignore").encode("utf-8")
            (folder / path.name).write_bytes(data)
    return folder


def measure(limit: int | None, rounds: int) -> dict:
    from chunkwise import AutoChunker
    from chunkwise.ingest import ingest

    embed = ZeroEmbedder()
    times: dict = {"first": [], "again": [], "chunk": []}
    cpu: dict = {"first": [], "again": [], "chunk": []}
    result: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = make_folder(root, limit)
        files = sorted(p for p in folder.iterdir() if p.is_file())
        total = sum(p.stat().st_size for p in files)
        largest = max(p.stat().st_size for p in files)
        warm = root / "warm"
        warm.mkdir()
        (warm / "a.txt").write_text("Warm up. " * 2000 + "中文。" * 1000, encoding="utf-8")
        (warm / "b.md").write_text("# Warm\n\nup. " * 200, encoding="utf-8")
        (warm / "c.py").write_text("def f(x):\n    return x\n" * 200, encoding="utf-8")
        ingest(warm, str(root / "warm.lance"), embed)  # imports, caches, LanceDB's runtime
        texts = [p.read_text(encoding="utf-8") for p in files]
        sources = [{"source": str(p)} for p in files]
        for r in range(rounds):
            store = str(root / f"store{r}")
            gc.collect()
            trim_heap()
            before = rss_bytes()
            reset = reset_peak()
            t0, c0 = time.perf_counter(), time.process_time()
            report = ingest(folder, store, embed)
            times["first"].append(time.perf_counter() - t0)
            cpu["first"].append(time.process_time() - c0)
            if r == 0:
                peak = peak_bytes() - before
                result.update(peak_increase=peak, multiple=round(peak / largest, 2), hwm_reset=reset,
                              chunks=report.chunks_written, documents=report.documents_seen)
            t0, c0 = time.perf_counter(), time.process_time()
            again = ingest(folder, store, embed)
            times["again"].append(time.perf_counter() - t0)
            cpu["again"].append(time.process_time() - c0)
            assert again.documents_unchanged == report.documents_seen, again.summary()
            shutil.rmtree(store)
            chunker = AutoChunker()
            t0, c0 = time.perf_counter(), time.process_time()
            chunker.chunk_batch(texts, sources)
            times["chunk"].append(time.perf_counter() - t0)
            cpu["chunk"].append(time.process_time() - c0)
    for case, runs in times.items():
        median = statistics.median(runs)
        result[f"{case}_seconds"] = round(median, 4)
        result[f"{case}_MBps"] = round(total / 1e6 / median, 1)
        result[f"{case}_runs"] = [round(t, 4) for t in runs]
        result[f"{case}_cpu_seconds"] = round(statistics.median(cpu[case]), 4)
    result.update(bytes=total, largest_file=largest,
                  vs_chunk=round(result["first_seconds"] / result["chunk_seconds"], 2),
                  cpu_vs_chunk=round(result["first_cpu_seconds"] / result["chunk_cpu_seconds"], 2))
    return result


def chunk_peak(limit: int | None) -> dict:
    """The peak RSS increase of ``AutoChunker().chunk_batch`` on the folder's files (read before), once."""
    from chunkwise import AutoChunker

    with tempfile.TemporaryDirectory() as tmp:
        folder = make_folder(Path(tmp), limit)
        files = sorted(p for p in folder.iterdir() if p.is_file())
        texts = [p.read_text(encoding="utf-8") for p in files]
        largest = max(p.stat().st_size for p in files)
        chunker = AutoChunker()
        chunker.chunk_batch(["Warm up. " * 200, "# Warm\n\nup. " * 200, "def f(x):\n    return x\n" * 200],
                            [{"source": "a.txt"}, {"source": "b.md"}, {"source": "c.py"}])
        gc.collect()
        trim_heap()
        before = rss_bytes()
        reset = reset_peak()
        chunks = chunker.chunk_batch(texts, [{"source": str(p)} for p in files])
        peak = peak_bytes() - before
    return {"chunk_peak_increase": peak, "chunk_multiple": round(peak / largest, 2), "hwm_reset": reset,
            "chunks": sum(len(c) for c in chunks)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="cut each file to this many bytes (smoke runs)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--chunk-peak", action="store_true", help="only the peak RSS of chunking alone")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.chunk_peak:
        result = chunk_peak(args.limit)
        print(json.dumps(result) if args.json else f"chunking alone: peak +{result['chunk_peak_increase'] / 1e6:.1f} "
              f"MB = {result['chunk_multiple']}x the largest file")
        return
    result = measure(args.limit, args.rounds)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['bytes'] / 1e6:.1f} MB, {result['chunks']} chunks: first run {result['first_MBps']} MB/s "
              f"({result['first_seconds']} s), again {result['again_MBps']} MB/s ({result['again_seconds']} s), "
              f"chunking alone {result['chunk_MBps']} MB/s ({result['chunk_seconds']} s; first run = "
              f"{result['vs_chunk']}x it); CPU: first run {result['first_cpu_seconds']} s, again "
              f"{result['again_cpu_seconds']} s, chunking {result['chunk_cpu_seconds']} s "
              f"({result['cpu_vs_chunk']}x); peak +{result['peak_increase'] / 1e6:.1f} MB = {result['multiple']}x the "
              f"largest file")


if __name__ == "__main__":
    main()
