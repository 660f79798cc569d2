"""One-shot peer baseline: throughput and where chunks end on zh.txt.

    python benches/measure_peers.py [--limit-over SECONDS]

Times one single-threaded run per (peer, file, size).  A peer whose run on
the first 1 MB extrapolates to more than --limit-over seconds (default 60)
for the full file is reported on that first 1 MB only (marked "1MB").
Prints Markdown tables; the numbers go into PEERS_BASELINE.md.
"""

from __future__ import annotations

import argparse
import time

import pytest

from benchlib import CORPUS_FILES, load_doc
from peers import MARKDOWN_PEERS, PEERS

SIZES = (512, 2048)
SAMPLE = 1_000_000  # bytes timed first, to decide on a full run

# Chunk-end classes, judged on the last non-whitespace char of a chunk.
SENTENCE = set("。！？.!?")
CLOSERS = set("」』）”’\"')]")  # may follow a sentence end
CLAUSE = set("，、；：,;:")
BAD_START = set("。，、」』）！？；：")  # closing/clause punctuation


def head(text: str, nbytes: int) -> str:
    return text.encode()[:nbytes].decode("utf-8", errors="ignore")


def run_once(split, text: str) -> tuple[float, list[str]]:
    t0 = time.perf_counter()
    chunks = split(text)
    return time.perf_counter() - t0, chunks


def end_class(text: str, chunk: str, end: int) -> str:
    """Classify one chunk end; `end` is its end offset in text (-1 unknown)."""
    body = chunk.rstrip()
    # Step back over closing quotes/brackets to a sentence terminator.
    i = len(body) - 1
    while i > 0 and body[i] in CLOSERS:
        i -= 1
    if body and body[i] in SENTENCE:
        return "sentence"
    # A cut at a newline: the chunk keeps it, or the source has one next.
    after = text[end:end + 8].lstrip(" \t") if end >= 0 else ""
    if "\n" in chunk[len(body):] or after.startswith(("\n", "\r")):
        return "newline"
    if body and body[-1] in CLAUSE:
        return "clause"
    return "other"


def boundary_stats(text: str, chunks: list[str]) -> dict[str, float]:
    counts = dict.fromkeys(("sentence", "newline", "clause", "other"), 0)
    cursor = 0
    for chunk in chunks[:-1]:  # the final chunk ends where the text ends
        start = text.find(chunk, cursor)
        end = start + len(chunk) if start >= 0 else -1
        cursor = end if end >= 0 else cursor
        counts[end_class(text, chunk, end)] += 1
    n = max(1, len(chunks) - 1)
    stats = {k: v / n for k, v in counts.items()}
    stats["bad_starts"] = sum(1 for c in chunks if c.lstrip()[:1] in BAD_START)
    stats["chunks"] = len(chunks)
    return stats


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit-over", type=float, default=60.0)
    args = ap.parse_args()
    peers = {**PEERS, **MARKDOWN_PEERS}

    print("| peer | size | " + " | ".join(CORPUS_FILES) + " |")
    print("|---|---:|" + "---:|" * len(CORPUS_FILES))
    for name, factory in peers.items():
        for size in SIZES:
            try:
                split = factory(size)
            except pytest.skip.Exception:
                print(f"| {name} | {size} | skipped (not installed) |")
                break
            cells = []
            for fname in CORPUS_FILES:
                if name in MARKDOWN_PEERS and fname != "mixed.md":
                    cells.append("")
                    continue
                doc = load_doc(fname)
                sample = head(doc.text, SAMPLE)
                secs, _ = run_once(split, sample)
                mark = " (1MB)"
                nbytes = len(sample.encode())
                if secs * doc.nbytes / nbytes <= args.limit_over:
                    secs, _ = run_once(split, doc.text)
                    mark, nbytes = "", doc.nbytes
                cells.append(f"{nbytes / 1e6 / secs:.2f}{mark}")
            print(f"| {name} | {size} | " + " | ".join(cells) + " |", flush=True)

    print("\nzh.txt, size 256: share of non-final chunk ends\n")
    print("| peer | chunks | sentence | newline | clause | other | bad starts |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    zh = load_doc("zh.txt").text
    for name, factory in PEERS.items():
        try:
            split = factory(256)
        except pytest.skip.Exception:
            continue
        s = boundary_stats(zh, split(zh))
        print(f"| {name} | {s['chunks']} | {s['sentence']:.1%} | {s['newline']:.1%}"
              f" | {s['clause']:.1%} | {s['other']:.1%} | {s['bad_starts']} |",
              flush=True)


if __name__ == "__main__":
    main()
