"""End to end speed and peak memory of ``chunkwise chunk`` on a folder of corpus text, against the script a user
would write with LangChain (read each file, ``RecursiveCharacterTextSplitter.split_text``, ``json.dumps`` a line per
chunk).

    python benches/cli_run.py --impl jsonl|parquet|langchain [--copies 4] [--big-mb 0] [--size 512] [--json]

Run in a fresh process (test_bench_cli.py does). The folder holds ``--copies`` copies of every corpus text file
(en.txt, zh.txt, ja.txt, mixed.md, code.py), under names of their own. Each impl runs once untimed (imports, caches),
then once timed, in process, from the walk of the folder to the output file in place (``main()``'s own work; the
interpreter's start is not counted); its CPU time (all threads: on a shared machine, what the run costs whatever
the load). Memory: the peak RSS of the timed run minus the RSS before it (VmHWM reset
through /proc/self/clear_refs, as memory_peak.py does), and that peak as a multiple of the largest file.

Prints a short summary, or one JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import corpus_dir  # noqa: E402
from memory_peak import peak_bytes, reset_peak, rss_bytes, trim_heap  # noqa: E402

FILES = ("en.txt", "zh.txt", "ja.txt", "mixed.md", "code.py")


def make_folder(root: Path, copies: int, limit: int | None, big_mb: int) -> tuple[int, int]:
    """The input folder; returns (total bytes, largest file's bytes). ``big_mb``: also one file of about that many
    MB (en.txt repeated), the file whose size the peak memory is compared with."""
    total = largest = 0
    if big_mb:
        unit = (corpus_dir() / "en.txt").read_bytes()
        with open(root / "big.txt", "wb") as f:
            for _ in range(max(1, -(-big_mb * 1_000_000 // len(unit)))):
                f.write(unit)
                total += len(unit)
        largest = total
    for name in FILES:
        source = corpus_dir() / name
        if not source.is_file():
            continue
        data = source.read_bytes()
        if limit is not None:
            data = data[:limit].decode("utf-8", "ignore").encode("utf-8")
        stem, suffix = name.rsplit(".", 1)
        for k in range(copies):
            (root / f"{stem}-{k}.{suffix}").write_bytes(data)
            total += len(data)
        largest = max(largest, len(data))
    return total, largest


def langchain_run(folder: Path, out: Path, size: int) -> None:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0, add_start_index=True)
    with open(out, "w", encoding="utf-8") as f:
        for path in sorted(folder.rglob("*")):
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            for doc in splitter.create_documents([text], [{"source": str(path)}]):
                f.write(json.dumps({"text": doc.page_content, "source": str(path),
                                    "start": doc.metadata["start_index"]}, ensure_ascii=False) + "\n")


def run(impl: str, folder: Path, out: Path, size: int) -> None:
    if impl == "langchain":
        langchain_run(folder, out, size)
        return
    from chunkwise.cli import run as command

    # run(), as the console script calls it: the allocator settled first, as in the command's own process
    code = command(["chunk", str(folder), "--size", str(size), "--no-progress", "--out", str(out), "--format", impl])
    assert code == 0, code


def measure(impl: str, copies: int, size: int, limit: int | None, big_mb: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "docs"
        folder.mkdir()
        total, largest = make_folder(folder, copies, limit, big_mb)
        warm = root / "warm"
        warm.mkdir()
        (warm / "a.txt").write_text("Warm up. " * 2000 + "中文。" * 1000, encoding="utf-8")
        out = root / f"out.{impl}"
        run(impl, warm, out, size)  # imports, caches
        out.unlink()
        trim_heap()
        before = rss_bytes()
        reset = reset_peak()
        t0, c0 = time.perf_counter(), time.process_time()
        run(impl, folder, out, size)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        peak = peak_bytes() - before
        written = out.stat().st_size
        shutil.rmtree(folder)
    return {
        "impl": impl, "bytes": total, "largest_file": largest, "seconds": round(secs, 4),
        "MBps": round(total / 1e6 / secs, 1),
        "cpu_seconds": round(cpu, 4), "peak_increase": peak, "multiple": round(peak / largest, 2),
        "hwm_reset": reset, "output_bytes": written,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--impl", choices=["jsonl", "parquet", "langchain"], default="jsonl")
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--limit", type=int, default=None, help="cut each file to this many bytes (smoke runs)")
    ap.add_argument("--big-mb", type=int, default=0, help="also one big file of about this many MB")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = measure(args.impl, args.copies, args.size, args.limit, args.big_mb)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['impl']}: {result['MBps']} MB/s ({result['bytes'] / 1e6:.1f} MB in {result['seconds']} s, "
              f"{result['cpu_seconds']} s of CPU), "
              f"peak +{result['peak_increase'] / 1e6:.1f} MB = {result['multiple']}x the largest file")


if __name__ == "__main__":
    main()
