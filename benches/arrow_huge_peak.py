"""Peak memory of chunking one huge document in one Arrow batch: chunk_arrow, a Polars expression over it, or an
engine's adapter (Ray Data, Daft, Spark).

    python benches/arrow_huge_peak.py [--mb 500] [--unit chars|tokens] [--via arrow|polars|polars-own] [--json] [--check]
    python benches/arrow_huge_peak.py --via ray|daft|spark|spark-sql [--mb 500] [--own] [--conf key=value ...] [--json]

Run it in a fresh process (test_bench_arrow.py's test_arrow_huge_row does). The document is en.txt and zh.txt of the
corpus (tests/data when ../shared/corpus is absent), 1 MB slices of each in turn, repeated to ``--mb`` MB of UTF-8,
built in one buffer and handed to Arrow without a copy (a ``string`` array of one row, or a Polars Series of one
row). The chunker is RecursiveChunker(512), in characters or in cl100k_base tokens. The peak is measured as
memory_peak.py does: VmHWM, reset right before the call, minus the RSS just before (the input is already there).

* ``input_bytes``: the document's UTF-8 bytes.
* ``output_bytes``: the Arrow output's buffers, each counted once (``embedding_text`` shares ``text``'s); for
  ``--via polars``, the result's as Polars holds them (string views, exported without a copy).
* ``over``: peak increase - output_bytes: what the call holds beyond its input and its output.
* ``over_per_chunk``: ``over`` / chunks, in bytes.

``--check``: after the measure, the chunks must equal ``chunker.spans()`` on the document, offsets and texts (exit 1
if not): tests/io/test_arrow_memory.py runs this script so.

``--via polars-own``: Polars' own share, the same ``map_batches`` with a function that returns zeros (no chunking):
what Polars holds around any batch function on that column.

``--via ray|daft|spark|spark-sql``: the document in a Parquet file of one row, through ``chunkwise.ray.
chunk_dataset``, ``chunkwise.daft.chunks``, ``chunkwise.spark.chunk_dataframe`` or the table function of
``chunkwise.spark.register`` (from SQL), to Parquet; the peak of the whole process tree and of its busiest worker,
and whether the chunks equal ``chunker.spans()``: see engine_huge.py. ``--conf``: Spark settings (repeatable).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arrowlib import TESTS_DATA  # noqa: E402
from benchlib import corpus_dir  # noqa: E402
from memory_peak import peak_bytes, reset_peak, rss_bytes, trim_heap  # noqa: E402

SLICE = 1_000_000


def document(nbytes: int) -> bytearray:
    """``nbytes`` (about: whole characters) of en.txt and zh.txt, in one allocation."""
    folder = corpus_dir()
    if not (folder / "en.txt").is_file():
        folder = TESTS_DATA
    parts = []
    for name in ("en.txt", "zh.txt"):
        raw = (folder / name).read_bytes()[:SLICE]
        parts.append(raw.decode("utf-8", "ignore").encode("utf-8") + b"\n\n")
    unit = b"".join(parts)
    out = bytearray(nbytes)
    for at in range(0, nbytes, len(unit)):
        piece = unit[: nbytes - at]
        out[at : at + len(piece)] = piece
    # The last piece may end inside a character.
    end = len(bytes(out[-8:]).decode("utf-8", "ignore").encode("utf-8"))
    del out[nbytes - 8 + end :]
    return out


def output_bytes(table: Any) -> int:
    """The bytes of a table's buffers, each counted once."""
    seen: dict = {}
    for column in table.columns:
        for chunk in column.chunks:
            for b in chunk.buffers():
                if b is not None:
                    seen[b.address] = max(seen.get(b.address, 0), b.size)
    return sum(seen.values())


def check(data: bytearray, chunker: Any, table: Any) -> None:
    """Exit 1 unless ``table``'s chunks are ``chunker.spans()`` of the document: the same offsets and texts."""
    text = data.decode()
    spans = chunker.spans(text)
    starts = table.column("start").to_numpy()
    ends = table.column("end").to_numpy()
    if table.num_rows != len(spans):
        sys.exit(f"{table.num_rows} chunks, chunker.spans() gives {len(spans)}")
    if not ((starts == spans[:, 0]).all() and (ends == spans[:, 1]).all()):
        sys.exit("offsets differ from chunker.spans()")
    texts = table.column("text").to_pylist()
    if not all(t == text[a:b] for t, a, b in zip(texts, starts.tolist(), ends.tolist())):
        sys.exit("a chunk's text differs from the document's at its offsets")


ENGINES = ("ray", "daft", "spark", "spark-sql")


def engine_main(args: Any) -> None:
    from engine_huge import run

    result = run(args, document, output_bytes)
    if args.json:
        print(json.dumps(result))
        return
    mib = 1 / 2**20
    if not result["completed"]:
        done = f"FAILED after {result['seconds']} s: {result['error']}"
    elif args.own:
        done = f"completed in {result['seconds']} s, no chunking (--own)"
    else:
        done = f"completed in {result['seconds']} s, {result['chunks']} chunks, equal to spans(): {result['equal']}"
    print(f"one document of {result['input_bytes'] * mib:.0f} MiB, {args.unit}, via {args.via}: {done}")
    print(f"  {result['processes']} processes: tree peak +{result['tree_peak_increase'] * mib:.0f} MiB (PSS) = "
          f"output {result['output_bytes'] * mib:.0f} MiB + {result['over'] * mib:.0f} MiB; busiest worker "
          f"({result['worker']}) +{result['worker_peak_increase'] * mib:.0f} MiB, driver "
          f"+{result['driver_peak_increase'] * mib:.0f} MiB (RSS)" + ("; ABORTED" if result["aborted"] else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=500)
    ap.add_argument("--unit", choices=("chars", "tokens"), default="chars")
    ap.add_argument("--via", choices=("arrow", "polars", "polars-own") + ENGINES, default="arrow")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true", help="the chunks must equal chunker.spans() (exit 1 if not)")
    ap.add_argument("--conf", action="append", default=[], help="with --via spark: a Spark setting, key=value")
    ap.add_argument("--limit-gb", type=float, default=12, help="with an engine: kill the tree above this (PSS)")
    ap.add_argument("--own", action="store_true", help="with an engine: a batch function returning one number")
    ap.add_argument("--dictionary", action="store_true", help="with an engine: the input file dictionary-encoded")
    ap.add_argument("--tmp", default=None, help="with an engine: where the Parquet files go")
    args = ap.parse_args()
    if args.via in ENGINES:
        engine_main(args)
        return

    import pyarrow as pa

    import chunkwise
    from chunkwise.arrow import chunk_arrow

    data = document(int(args.mb * 1e6))
    offsets = pa.array([0, len(data)], pa.int32()).buffers()[1]
    array = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(data)])
    tokenizer = chunkwise.Tokenizer.tiktoken("cl100k_base") if args.unit == "tokens" else None
    chunker = chunkwise.RecursiveChunker(512, tokenizer=tokenizer)
    chunk_arrow(pa.array(["warm up. " * 200, "\u4e2d\u6587\u3002" * 200]), chunker)
    if args.via != "arrow":
        import polars as pl

        import chunkwise.polars  # noqa: F401

        def call() -> Any:
            if args.via == "polars-own":
                zeros = pl.col("text").map_batches(lambda s: pl.Series([0] * len(s)), return_dtype=pl.Int64)
                return frame.select(zeros)
            return frame.select(pl.col("text").chunkwise.chunk(chunker).alias("chunks"))

        frame = pl.DataFrame({"text": ["warm up. " * 200]})
        call()
        frame = pl.DataFrame({"text": pl.from_arrow(array)})
        del array
    else:
        def call() -> Any:
            return chunk_arrow(array, chunker)
    gc.collect()
    trim_heap()
    before = rss_bytes()
    reset = reset_peak()
    t0 = time.perf_counter()
    out = call()
    secs = time.perf_counter() - t0
    peak = peak_bytes()
    if args.via == "polars-own":
        chunks = 0
        out = pa.table({"zeros": pa.array([0], pa.int64())})
    elif args.via == "polars":
        chunks = out["chunks"].list.len().sum()
        if args.check:
            check(data, chunker, out.explode("chunks").unnest("chunks").to_arrow())
        # Polars' own layout (string views), each buffer once.
        out = out.to_arrow(compat_level=pl.CompatLevel.newest())
    else:
        chunks = out.num_rows
        if args.check:
            check(data, chunker, out)
    output = output_bytes(out)
    result = {
        "mb": args.mb,
        "unit": args.unit,
        "via": args.via,
        "input_bytes": len(data),
        "output_bytes": output,
        "chunks": int(chunks),
        "peak_increase": peak - before,
        "over": peak - before - output,
        "over_per_chunk": round((peak - before - output) / max(1, chunks), 1),
        "seconds": round(secs, 2),
        "hwm_reset": reset,
    }
    if args.json:
        print(json.dumps(result))
        return
    mib = 1 / 2**20
    print(f"one document of {len(data) * mib:.0f} MiB, {args.unit}, via {args.via}: {chunks} chunks, output "
          f"{output * mib:.0f} MiB, {secs:.1f} s")
    print(f"  peak +{(peak - before) * mib:.0f} MiB = output + {result['over'] * mib:.0f} MiB "
          f"({result['over_per_chunk']} bytes a chunk)")
    if not reset:
        print("  (peak could not be reset: the numbers are upper bounds)")


if __name__ == "__main__":
    main()
