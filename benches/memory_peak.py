"""Peak memory of one RecursiveChunker(512).spans() call on a big text.

    python benches/memory_peak.py [--kind ascii|en|cjk] [--mb 100] [--json]

Run it in a fresh process (test_bench_memory.py does): it builds the text
(``--kind``: ``ascii`` = en.txt with its non-ASCII characters dropped,
``en`` = en.txt as is (it has emoji, so CPython stores it with 4 bytes per
char), ``cjk`` = zh.txt), repeated to at least ``--mb`` MB of UTF-8, imports
and warms chunkwise on a small text, then measures:

* ``peak_increase``: the process's peak RSS during the first spans() call
  minus its RSS just before it.  The peak is VmHWM from /proc/self/status,
  reset right before the call by writing 5 to /proc/self/clear_refs (Linux
  >= 4.0); where that is not possible, the fallback is ru_maxrss, which
  cannot go below the peak reached while building the text, so the result is
  then marked ``hwm_reset: false`` and is only an upper bound on how little
  was used.
* ``multiple``: peak_increase / UTF-8 size of the text (target < 3).
* ``retained``: RSS after the call minus RSS before it.  For a non-ASCII str
  this includes the UTF-8 copy that CPython caches on the str object
  (PyUnicode_AsUTF8AndSize), which lives as long as the str does.
* ``warm_*``: the same for a second call on the same str (cache reused).

Before each call the heap is trimmed (glibc malloc_trim) so that freed pages
still counted in RSS cannot be reused unseen.

Prints a short summary, or one JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import corpus_dir  # noqa: E402

SOURCES = {"ascii": "en.txt", "en": "en.txt", "cjk": "zh.txt"}


def status_kb() -> dict[str, int]:
    out = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(("VmHWM:", "VmRSS:")):
                    key, value = line.split(":")
                    out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def rss_bytes() -> int:
    kb = status_kb().get("VmRSS")
    if kb is None:  # no procfs: ru_maxrss is the best we have
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return kb * 1024


def trim_heap() -> None:
    """Give freed heap memory back to the OS (glibc), so that a later call
    cannot hide its needs by reusing pages an earlier call freed."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_bytes() -> int:
    kb = status_kb().get("VmHWM")
    if kb is None:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return kb * 1024


def build(kind: str, mb: float) -> tuple[str, int]:
    raw = (corpus_dir() / SOURCES[kind]).read_bytes()
    if kind == "ascii":
        raw = raw.decode("utf-8").encode("ascii", "ignore")
    unit = raw.decode("utf-8")
    del raw
    unit_bytes = len(unit.encode("utf-8"))
    copies = max(1, -(-int(mb * 1e6) // unit_bytes))
    text = "".join([unit] * copies)  # one allocation: no 2x temporary
    return text, unit_bytes * copies


def measure(text: str, nbytes: int, size: int) -> dict:
    import chunkwise

    chunker = chunkwise.RecursiveChunker(size)
    chunker.spans("warm up " * 1000 + "\u4e2d\u6587\u3002" * 1000)
    gc.collect()

    result: dict = {"bytes": nbytes, "chars": len(text),
                    "str_object_bytes": sys.getsizeof(text)}
    for label in ("", "warm_"):
        gc.collect()
        trim_heap()
        before = rss_bytes()
        reset = reset_peak()
        t0 = time.perf_counter()
        spans = chunker.spans(text)
        secs = time.perf_counter() - t0
        peak = peak_bytes()
        after = rss_bytes()
        result.update({
            f"{label}peak_increase": peak - before,
            f"{label}multiple": round((peak - before) / nbytes, 3),
            f"{label}retained": after - before,
            f"{label}MBps": round(nbytes / 1e6 / secs, 1),
        })
        result["hwm_reset"] = result.get("hwm_reset", True) and reset
        result["chunks"] = len(spans)
        result["spans_array_bytes"] = spans.nbytes
        del spans
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", choices=sorted(SOURCES), default="ascii")
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    text, nbytes = build(args.kind, args.mb)
    gc.collect()
    result = {"kind": args.kind, "size": args.size, **measure(text, nbytes, args.size)}
    if args.json:
        print(json.dumps(result))
        return
    mib = 1 / 2**20
    print(f"{args.kind}: {nbytes / 1e6:.1f} MB UTF-8, {result['chunks']} chunks, "
          f"str object {result['str_object_bytes'] * mib:.0f} MiB")
    print(f"  first call: peak +{result['peak_increase'] * mib:.0f} MiB = "
          f"{result['multiple']:.2f}x the UTF-8 size, retained "
          f"+{result['retained'] * mib:.0f} MiB, {result['MBps']} MB/s")
    print(f"  warm call:  peak +{result['warm_peak_increase'] * mib:.0f} MiB = "
          f"{result['warm_multiple']:.2f}x, {result['warm_MBps']} MB/s")
    if not result["hwm_reset"]:
        print("  (peak could not be reset: the numbers are upper bounds)")


if __name__ == "__main__":
    main()
