"""Peak memory of one chunkwise.arrow.chunk_arrow call on many documents.

    python benches/arrow_peak.py [--docs 100000] [--size 512] [--json]

Run it in a fresh process (test_bench_arrow.py does). It builds the documents of arrowlib.make_docs as a pyarrow
string array, drops the Python list, warms chunkwise up on a few documents, then measures the call the way
memory_peak.py does: the process's peak RSS (VmHWM, reset right before the call through /proc/self/clear_refs) minus
its RSS just before. RSS sees every allocation, Rust's (mimalloc) and Arrow's (jemalloc or mimalloc) as well as
Python's, which tracemalloc would not. The peak includes the output table, alive at the end of the call.

* ``input_bytes``: the Arrow size of the input (``array.nbytes``: UTF-8 bytes, offsets, validity).
* ``multiple``: peak increase / input_bytes (target < 3).
* ``output_bytes``: the Arrow size of the output table; ``retained``: RSS after the call minus RSS before.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arrowlib import make_docs  # noqa: E402
from memory_peak import peak_bytes, reset_peak, rss_bytes, trim_heap  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import pyarrow as pa

    import chunkwise
    from chunkwise.arrow import chunk_arrow

    docs = make_docs(args.docs)
    array = pa.array(docs, pa.string())
    utf8 = sum(len(d.encode("utf-8")) for d in docs)
    del docs
    chunker = chunkwise.RecursiveChunker(args.size)
    chunk_arrow(array.slice(0, 100), chunker)
    gc.collect()
    trim_heap()
    before = rss_bytes()
    reset = reset_peak()
    out = chunk_arrow(array, chunker)
    peak = peak_bytes()
    after = rss_bytes()
    result = {
        "docs": args.docs,
        "size": args.size,
        "utf8_bytes": utf8,
        "input_bytes": array.nbytes,
        "output_bytes": out.nbytes,
        "chunks": out.num_rows,
        "peak_increase": peak - before,
        "multiple": round((peak - before) / array.nbytes, 3),
        "retained": after - before,
        "hwm_reset": reset,
    }
    if args.json:
        print(json.dumps(result))
        return
    mib = 1 / 2**20
    print(f"{args.docs} docs, {array.nbytes * mib:.0f} MiB of Arrow input, {out.num_rows} chunks, "
          f"output {out.nbytes * mib:.0f} MiB")
    print(f"  peak +{(peak - before) * mib:.0f} MiB = {result['multiple']:.2f}x the input, "
          f"retained +{(after - before) * mib:.0f} MiB")
    if not reset:
        print("  (peak could not be reset: the numbers are upper bounds)")


if __name__ == "__main__":
    main()
