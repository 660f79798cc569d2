"""Retrievers for evaluation: BM25 (``bm25s``) over words, with Chinese, Japanese and Korean text cut into
character unigrams and bigrams (it has no spaces between words), and exact cosine search over embeddings from any
``embed(list of str) -> array`` function, cached on disk by model name and text hash so that a grid of chunkers
embeds each distinct text once."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

# Runs of Han, kana and Hangul (and the CJK compatibility and extension blocks) vs. runs of other word characters.
_CJK = "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(f"[{_CJK}]+|[^\\W{_CJK}]+")
_IS_CJK = re.compile(f"[{_CJK}]")


def analyze(text: str) -> List[str]:
    """BM25's terms of ``text``: lower-cased words, and the characters and character pairs of CJK runs."""
    terms: List[str] = []
    for m in _TOKEN.finditer(text.lower()):
        run = m.group()
        if _IS_CJK.match(run):
            terms.extend(run)
            terms.extend(run[i:i + 2] for i in range(len(run) - 1))
        else:
            terms.append(run)
    return terms


class BM25:
    """BM25 (``bm25s``, Lucene's variant by default) over the chunks' texts."""

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75, method: str = "lucene") -> None:
        self.k1, self.b, self.method = k1, b, method

    def __call__(self, chunks: Sequence[str], queries: Sequence[str], k: int) -> np.ndarray:
        """The indices of the ``k`` best chunks for every query, best first (an array of shape (queries, k'), with
        k' = min(k, chunks))."""
        try:
            import bm25s  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            raise ImportError("the BM25 retriever needs bm25s: pip install 'chunkwise[eval]'") from None
        k = min(k, len(chunks))
        if k == 0:
            return np.zeros((len(queries), 0), dtype=np.int64)
        retriever = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        retriever.index([analyze(c) for c in chunks], show_progress=False)
        vocab = retriever.vocab_dict
        out = np.empty((len(queries), k), dtype=np.int64)
        for i, q in enumerate(queries):
            terms = [t for t in analyze(q) if t in vocab]
            if not terms:  # nothing in common with any chunk: every chunk scores 0, the first k are returned
                out[i] = np.arange(k)
                continue
            scores = retriever.get_scores(terms)
            out[i] = _top(scores, k)
        return out


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """The indices of the k highest scores, highest first; ties by index (a stable order across runs)."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    return order[:k]


EmbedFn = Callable[[List[str]], Any]


class EmbeddingCache:
    """Embeddings on disk, one ``.npy`` file per (model, text): a text already embedded by that model is read, not
    embedded again. ``folder`` is created when needed."""

    def __init__(self, folder: Union[str, Path]) -> None:
        self.folder = Path(folder)

    def _path(self, model: str, text: str) -> Path:
        key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
        model_key = hashlib.blake2b(model.encode("utf-8"), digest_size=8).hexdigest()
        return self.folder / model_key / key[:2] / f"{key}.npy"

    def embed(self, model: str, embed: EmbedFn, texts: Sequence[str], batch_size: int = 64,
              progress: Optional[Callable[[int, int], None]] = None) -> np.ndarray:
        """The embeddings of ``texts`` (rows in order), computing only those not cached yet, in batches;
        ``progress(done, total)`` after each batch (texts embedded, texts to embed)."""
        rows: Dict[int, np.ndarray] = {}
        missing: Dict[str, List[int]] = {}
        for i, t in enumerate(texts):
            p = self._path(model, t)
            if p.is_file():
                rows[i] = np.load(p)
            else:
                missing.setdefault(t, []).append(i)
        todo = list(missing)
        for at in range(0, len(todo), batch_size):
            if progress is not None:
                progress(at, len(todo))
            part = todo[at:at + batch_size]
            vectors = np.asarray(embed(part), dtype=np.float32)
            if vectors.shape[0] != len(part):
                raise ValueError(f"embed: returned {vectors.shape[0]} vectors for {len(part)} texts")
            for t, v in zip(part, vectors):
                p = self._path(model, t)
                p.parent.mkdir(parents=True, exist_ok=True)
                tmp = p.with_suffix(".tmp.npy")
                np.save(tmp, v)
                tmp.replace(p)
                for i in missing[t]:
                    rows[i] = v
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([rows[i] for i in range(len(texts))])


class Dense:
    """Exact cosine search over embeddings. ``embed`` turns a list of texts into an array of vectors; ``model``
    names it (the cache key: two different models must not share a name); ``cache`` keeps the vectors on disk."""

    def __init__(self, embed: EmbedFn, model: str, cache: Optional[Union[EmbeddingCache, str, Path]] = None,
                 batch_size: int = 64) -> None:
        if not callable(embed):
            raise TypeError(f"embed: expected a callable (list of str -> array), got {type(embed).__name__}")
        if not model:
            raise ValueError("model: a name for the embedding model is needed (it keys the cache)")
        self.embed, self.model, self.batch_size = embed, model, batch_size
        self.cache = EmbeddingCache(cache) if isinstance(cache, (str, Path)) else cache
        #: Called with (texts embedded, texts to embed) as a cached search embeds (``evaluate`` sets it to show
        #: progress on a terminal).
        self.progress: Optional[Callable[[int, int], None]] = None
        self.name = f"dense ({model.split(':')[1] if model.startswith('bert:') else model})"

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        if self.cache is not None:
            v = self.cache.embed(self.model, self.embed, texts, self.batch_size, self.progress)
        else:
            parts = [np.asarray(self.embed(list(texts[a:a + self.batch_size])), dtype=np.float32)
                     for a in range(0, len(texts), self.batch_size)]
            v = np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)
        norms = np.linalg.norm(v, axis=1, keepdims=True) if v.size else v
        return v / np.where(norms == 0, 1, norms) if v.size else v

    def __call__(self, chunks: Sequence[str], queries: Sequence[str], k: int) -> np.ndarray:
        k = min(k, len(chunks))
        if k == 0:
            return np.zeros((len(queries), 0), dtype=np.int64)
        c, q = self.vectors(chunks), self.vectors(queries)
        sims = q @ c.T
        return np.stack([_top(row, k) for row in sims])
