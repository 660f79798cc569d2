"""``evaluate``: chunk the corpora with every chunker under test, retrieve the top k chunks for every question, and
score them (see ``metrics``), with bootstrap confidence intervals; ``Report`` holds the per-question scores, the
means, and paired comparisons of two chunkers."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ..cli.progress import StatusLine
from .data import Dataset
from .metrics import METRICS, Hit, Units, score
from .retrieval import BM25
from .spans import spans_function

Retriever = Callable[[Sequence[str], Sequence[str], int], Any]


@dataclass
class Result:
    """One chunker's evaluation: its chunks' count and mean size (in the evaluation's unit), and per k the scores of
    every question (``scores[k][metric]``: an array, one value per question, in the dataset's order)."""

    name: str
    chunks: int
    mean_size: float
    scores: Dict[int, Dict[str, np.ndarray]]

    def mean(self, metric: str, k: int) -> float:
        return float(self.scores[k][metric].mean())


@dataclass
class Report:
    """What :func:`evaluate` measured. ``ci(name, metric, k)`` is the bootstrap percentile interval of a mean;
    ``compare(a, b, metric, k)`` the paired bootstrap interval of the difference of two chunkers' means."""

    results: Dict[str, Result]
    ks: Tuple[int, ...]
    unit: str
    retriever: str
    questions: int
    resamples: int = 1000
    seed: int = 0
    #: The corpus of each question, in the dataset's order (for :meth:`by_corpus`).
    corpus_ids: Tuple[str, ...] = ()
    _draws: Optional[np.ndarray] = field(default=None, repr=False)

    def _resampled(self) -> np.ndarray:
        if self._draws is None:
            rng = np.random.default_rng(self.seed)
            self._draws = rng.integers(0, self.questions, size=(self.resamples, self.questions))
        return self._draws

    def ci(self, name: str, metric: str, k: int, level: float = 0.95) -> Tuple[float, float]:
        """The ``level`` bootstrap percentile interval of the mean of ``metric`` at ``k`` for chunker ``name``."""
        values = self._values(name, metric, k)
        means = values[self._resampled()].mean(axis=1)
        lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
        return float(lo), float(hi)

    def compare(self, a: str, b: str, metric: str = "recall", k: Optional[int] = None,
                level: float = 0.95) -> Dict[str, float]:
        """``mean(a) - mean(b)`` of ``metric`` at ``k`` (default: the first k), and its paired bootstrap interval
        (the same resampled questions for both): an interval that holds 0 shows no difference at that level."""
        k = self.ks[0] if k is None else k
        diff = self._values(a, metric, k) - self._values(b, metric, k)
        means = diff[self._resampled()].mean(axis=1)
        lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
        return {"difference": float(diff.mean()), "low": float(lo), "high": float(hi)}

    def by_corpus(self, name: str, metric: str = "recall", k: Optional[int] = None) -> Dict[str, float]:
        """The mean of ``metric`` at ``k`` (default: the first k) for chunker ``name``, over each corpus's questions."""
        k = self.ks[0] if k is None else k
        values = self._values(name, metric, k)
        ids = np.array(self.corpus_ids)
        return {cid: float(values[ids == cid].mean()) for cid in dict.fromkeys(self.corpus_ids)}

    def corpus_table(self, k: Optional[int] = None) -> str:
        """A Markdown table: recall, precision and IoU at ``k`` (default: the first k) per chunker and corpus."""
        k = self.ks[0] if k is None else k
        lines = [f"| chunker | corpus | questions | recall@{k} | precision@{k} | IoU@{k} |",
                 "|---|---|---:|---:|---:|---:|"]
        counts = {cid: self.corpus_ids.count(cid) for cid in dict.fromkeys(self.corpus_ids)}
        for name in self.results:
            means = {m: self.by_corpus(name, m, k) for m in ("recall", "precision", "iou")}
            for cid, n in counts.items():
                lines.append(f"| {name} | {cid} | {n} | {100 * means['recall'][cid]:.1f} | "
                             f"{100 * means['precision'][cid]:.1f} | {100 * means['iou'][cid]:.1f} |")
        return "\n".join(lines)

    def _values(self, name: str, metric: str, k: int) -> np.ndarray:
        if name not in self.results:
            raise KeyError(f"name: no chunker {name!r} in this report (known: {sorted(self.results)})")
        if metric not in METRICS:
            raise ValueError(f"metric: expected one of {', '.join(METRICS)}, got {metric!r}")
        if k not in self.ks:
            raise ValueError(f"k: this report has k = {', '.join(map(str, self.ks))}, not {k}")
        return self.results[name].scores[k][metric]

    def rows(self) -> List[Dict[str, Any]]:
        """One row per chunker and k: means and their 95% intervals, as plain values (the JSON report)."""
        out = []
        for name, r in self.results.items():
            for k in self.ks:
                row: Dict[str, Any] = {"chunker": name, "k": k, "chunks": r.chunks, "mean_size": round(r.mean_size, 1)}
                for m in METRICS:
                    lo, hi = self.ci(name, m, k)
                    row[m] = r.mean(m, k)
                    row[f"{m}_ci"] = [lo, hi]
                out.append(row)
        return out

    def table(self) -> str:
        """A Markdown table: per chunker and k, recall, precision, IoU (with their 95% intervals, in points), hit
        rate, MRR and nDCG."""
        head = (f"| chunker | k | chunks | mean size ({self.unit}) | recall | precision | IoU | hit rate | MRR | "
                "nDCG |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        lines = [head]
        for row in self.rows():
            def pct(m: str) -> str:
                lo, hi = row[f"{m}_ci"]
                return f"{100 * row[m]:.1f} ({100 * lo:.1f}-{100 * hi:.1f})"
            lines.append(f"| {row['chunker']} | {row['k']} | {row['chunks']} | {row['mean_size']} | {pct('recall')} | "
                         f"{pct('precision')} | {pct('iou')} | {100 * row['hit']:.1f} | {row['rr']:.3f} | "
                         f"{row['ndcg']:.3f} |")
        return "\n".join(lines)

    def plot(self, path: Union[str, "os.PathLike[str]"], k: Optional[int] = None) -> None:
        """A PNG at ``path``: recall and IoU at ``k`` (default: the first k) against the mean chunk size, one line
        per strategy (a chunker named ``strategy-size-overlap`` belongs to ``strategy``; any other name is a
        strategy of its own), each point a chunker with its 95% interval. Needs matplotlib."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("Report.plot needs matplotlib: pip install 'chunkwise[eval]'") from None
        k = self.ks[0] if k is None else k
        if k not in self.ks:
            raise ValueError(f"k: this report has k = {', '.join(map(str, self.ks))}, not {k}")
        lines: Dict[str, List[str]] = {}
        for name in self.results:
            lines.setdefault(strategy_of(name), []).append(name)
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for ax, metric, label in ((axes[0], "recall", "recall"), (axes[1], "iou", "IoU")):
            for strategy, names in lines.items():
                names = sorted(names, key=lambda n: self.results[n].mean_size)
                xs = [self.results[n].mean_size for n in names]
                ys = [100 * self.results[n].mean(metric, k) for n in names]
                cis = [self.ci(n, metric, k) for n in names]
                err = [[y - 100 * lo for y, (lo, _) in zip(ys, cis)], [100 * hi - y for y, (_, hi) in zip(ys, cis)]]
                ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=strategy)
            ax.set_xlabel(f"mean chunk size ({self.unit})")
            ax.set_ylabel(f"{label} at k={k} (%)")
            ax.grid(alpha=0.3)
        axes[0].legend()
        fig.suptitle(f"{self.questions} questions, {self.retriever}")
        fig.tight_layout()
        fig.savefig(os.fspath(path), dpi=110)
        plt.close(fig)

    def to_json(self) -> str:
        return json.dumps({"unit": self.unit, "retriever": self.retriever, "questions": self.questions,
                           "k": list(self.ks), "rows": self.rows()}, ensure_ascii=False, indent=1)


def strategy_of(name: str) -> str:
    """The strategy of a chunker named ``strategy-size-overlap`` (as ``chunkwise eval`` names them), else the
    name."""
    m = re.fullmatch(r"(.+)-\d+-\d+", name)
    return m.group(1) if m else name


def _named(chunkers: Any) -> Dict[str, Any]:
    if isinstance(chunkers, Mapping):
        return dict(chunkers)
    if isinstance(chunkers, (list, tuple)):
        names: Dict[str, Any] = {}
        for c in chunkers:
            base = getattr(c, "name", None) or type(c).__name__
            name, n = base, 2
            while name in names:
                name, n = f"{base}-{n}", n + 1
            names[name] = c
        return names
    return {getattr(chunkers, "name", None) or type(chunkers).__name__: chunkers}


def _tokenizer(tokenizer: Any) -> Any:
    if tokenizer is None or hasattr(tokenizer, "token_spans"):
        return tokenizer
    if isinstance(tokenizer, str):
        from .. import Tokenizer

        if tokenizer.endswith(".json"):
            return Tokenizer.from_file(tokenizer)
        return Tokenizer.tiktoken(tokenizer)
    raise TypeError(f"tokenizer: expected a chunkwise Tokenizer, a tiktoken encoding name or a tokenizer.json path, "
                    f"got {type(tokenizer).__name__}")


def evaluate(dataset: Dataset, chunkers: Any, *, retriever: Union[str, Retriever] = "bm25",
             k: Union[int, Sequence[int]] = 5, unit: str = "tokens", tokenizer: Any = "cl100k_base",
             resamples: int = 1000, seed: int = 0, progress: Optional[bool] = None) -> Report:
    """Scores every chunker on ``dataset``: its chunks of all corpora form one index, each question retrieves the
    top ``k`` chunks of it (``retriever``: ``"bm25"``, or any ``(chunks, queries, k) -> indices`` such as
    :class:`~chunkwise.evaluation.Dense`), and the metrics of ``chunkwise.evaluation.metrics`` are taken in
    ``unit`` (``"tokens"`` of ``tokenizer``, cl100k by default, or ``"chars"``). ``chunkers``: one chunker, a list,
    or a dict name -> chunker; each a chunkwise chunker, a LangChain text splitter, or a callable (text -> spans or
    strings). ``resamples``: bootstrap resamples of the questions for the intervals (seeded: the same report every
    run)."""
    ks = tuple(sorted({k} if isinstance(k, int) else set(k)))
    if not ks or any(not isinstance(x, int) or x < 1 for x in ks):
        raise ValueError(f"k: expected positive integers, got {k!r}")
    if unit not in ("tokens", "chars"):
        raise ValueError(f"unit: expected 'tokens' or 'chars', got {unit!r}")
    if resamples < 1:
        raise ValueError(f"resamples: expected a positive number, got {resamples}")
    if isinstance(retriever, str):
        if retriever != "bm25":
            raise ValueError(f"retriever: expected 'bm25' or a retriever object, got {retriever!r}")
        retrieve: Retriever = BM25()
    elif callable(retriever):
        retrieve = retriever
    else:
        raise TypeError(f"retriever: expected 'bm25' or a callable (chunks, queries, k), got {type(retriever).__name__}")
    tok = _tokenizer(tokenizer) if unit == "tokens" else None
    if unit == "tokens" and tok is None:
        raise ValueError("tokenizer: unit='tokens' needs a tokenizer")
    named = _named(chunkers)
    if not named:
        raise ValueError("chunkers: nothing to evaluate")
    units = {cid: Units(text, tok) for cid, text in dataset.corpora.items()}
    queries = [q.text for q in dataset.questions]
    refs = [[(r.start, r.end) for r in q.references] for q in dataset.questions]
    status = StatusLine("chunkwise eval", progress)
    results: Dict[str, Result] = {}
    for n, (name, chunker) in enumerate(named.items(), 1):
        status.show(f"{n}/{len(named)} {name}")
        if status.enabled and hasattr(retrieve, "progress"):
            def step(done: int, todo: int, n: int = n, name: str = name) -> None:
                status.show(f"{n}/{len(named)} {name}: embedding {done}/{todo}")

            setattr(retrieve, "progress", step)
        fn = spans_function(chunker)
        hits: List[Hit] = []
        for cid, text in dataset.corpora.items():
            hits.extend((cid, a, b) for a, b in fn(text) if b > a)
        texts = [dataset.corpora[cid][a:b] for cid, a, b in hits]
        top = np.asarray(retrieve(texts, queries, max(ks)), dtype=np.int64).reshape(len(queries), -1)
        sizes = [units[cid].of(a, b) for cid, a, b in hits]
        relevant = [sum(1 for cid, a, b in hits if cid == q.corpus_id and any(a < re and ra < b for ra, re in r))
                    for q, r in zip(dataset.questions, refs)]
        per_k: Dict[int, Dict[str, np.ndarray]] = {}
        for kk in ks:
            rows = [score(q.corpus_id, r, [hits[i] for i in top[qi, :kk]], units, relevant[qi])
                    for qi, (q, r) in enumerate(zip(dataset.questions, refs))]
            per_k[kk] = {m: np.array([getattr(s, m) for s in rows]) for m in METRICS}
        mean_size = float(np.mean([j - i for i, j in sizes])) if sizes else 0.0
        results[name] = Result(name, len(hits), mean_size, per_k)
    status.clear()
    if status.enabled and hasattr(retrieve, "progress"):
        setattr(retrieve, "progress", None)
    return Report(results, ks, unit, getattr(retrieve, "name", type(retrieve).__name__), len(queries), resamples, seed,
                  tuple(q.corpus_id for q in dataset.questions))
