"""Peak memory and speed of iter_chunks over a generated file larger than memory should need.

    python benches/stream_peak.py --mb 2000 [--compare] [--json] [--tokenizer NAME --size N] [--distinct]

Run it in a fresh process (test_bench_streaming.py does). It writes a file of ``--mb`` MB of UTF-8 made of the
corpus (en.txt, zh.txt and ja.txt; each copy has its paragraphs numbered, so that chunk texts do not repeat and the
stream's table of chunk ids grows as it would on real text), then, in this process:

* streams it with ``RecursiveChunker(512).iter_chunks(open(path, "rb"))``, keeping a digest of every chunk's
  ``(start, end, id, prev_id, next_id, text)`` and nothing else, and reports the peak RSS (VmHWM, reset just
  before, as in memory_peak.py) minus the RSS before: ``stream_peak_mb``;
* with ``--compare``: reads the whole file, runs ``chunk()`` on it and digests its chunks the same way: ``equal``
  says whether the two digests match (this part needs several times the file in memory).

``--tokenizer NAME`` sizes the chunks in tokens (``RecursiveChunker(--size, tokenizer=NAME)``, size 256 by default):
a tiktoken encoding's name or a tokenizer.json's path; the peak then includes the Tokenizer's memo of pieces.
``--distinct`` starts every paragraph with a word of letters made from its numbers (``qbzf``), so that the text has
millions of pieces never seen before and the memo fills to its bound, as it would on years of varied documents.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import corpus_dir  # noqa: E402
from memory_peak import peak_bytes, reset_peak, rss_bytes, trim_heap  # noqa: E402

META = {"doc_id": "stream-bench"}


def letters(n: int) -> str:
    """``n`` in base 26, written with the letters a to z."""
    out = []
    while True:
        n, r = divmod(n, 26)
        out.append("abcdefghijklmnopqrstuvwxyz"[r])
        if n == 0:
            return "".join(reversed(out))


def write_file(path: Path, mb: float, distinct: bool = False) -> int:
    base = "\n\n".join((corpus_dir() / n).read_text(encoding="utf-8") for n in ("en.txt", "zh.txt", "ja.txt"))
    paragraphs = base.split("\n\n")
    written, k = 0, 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        while written < mb * 1e6:
            if distinct:
                piece = "\n\n".join(f"{k}.{i} q{letters(k * len(paragraphs) + i)} {p}"
                                    for i, p in enumerate(paragraphs)) + "\n\n"
            else:
                piece = "\n\n".join(f"{k}.{i} {p}" for i, p in enumerate(paragraphs)) + "\n\n"
            data = piece.encode("utf-8")
            f.write(piece)
            written += len(data)
            k += 1
    return written


def digest(chunks) -> tuple[str, int]:
    h = hashlib.blake2b(digest_size=16)
    n = 0
    for c in chunks:
        h.update(f"{c.start},{c.end},{c.id},{c.prev_id},{c.next_id}\0{c.text}\0".encode("utf-8", "surrogatepass"))
        n += 1
    return h.hexdigest(), n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=2000)
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tokenizer", help="a tiktoken encoding's name or a tokenizer.json's path")
    ap.add_argument("--size", type=int, default=None)
    ap.add_argument("--distinct", action="store_true")
    args = ap.parse_args()

    import chunkwise

    if args.tokenizer:
        tok = (chunkwise.Tokenizer.from_file(args.tokenizer) if args.tokenizer.endswith(".json")
               else chunkwise.Tokenizer.tiktoken(args.tokenizer))
        chunker = chunkwise.RecursiveChunker(args.size or 256, tokenizer=tok)
    else:
        chunker = chunkwise.RecursiveChunker(args.size or 512)
    list(chunker.iter_chunks("warm up " * 1000, META))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.txt"
        nbytes = write_file(path, args.mb, args.distinct)
        trim_heap()
        before = rss_bytes()
        reset = reset_peak()
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            streamed, n = digest(chunker.iter_chunks(f, META))
        secs = time.perf_counter() - t0
        peak = peak_bytes() - before
        result = {
            "bytes": nbytes,
            "chunks": n,
            "stream_peak_mb": round(peak / 1e6, 1),
            "stream_MBps": round(nbytes / 1e6 / secs, 1),
            "hwm_reset": reset,
        }
        if args.compare:
            t0 = time.perf_counter()
            whole, m = digest(chunker.chunk(path.read_text(encoding="utf-8"), META))
            result["chunk_MBps"] = round(nbytes / 1e6 / (time.perf_counter() - t0), 1)
            result["equal"] = whole == streamed and m == n
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k}: {v}")


if __name__ == "__main__":
    main()
