"""What a run embeds with: the user's callable, its identity (half of every cache key, and recorded with every
vector in the store), and the checks its output passes before anything is written."""

from __future__ import annotations

import importlib
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from .._core import ChunkingError

__all__ = ["Embedder", "embedder_from_spec", "model_identity"]

#: What ``--embed`` (and ``embed=`` as a string) names besides ``module:function``: chunkwise's own adapters.
NAMED = ("minilm",)


def model_identity(embed: Any, embed_id: Optional[str] = None) -> str:
    """The identity of an embedding model: ``embed_id`` when given, else the callable's own ``model_id`` or ``name``
    (chunkwise's adapters have one: it names the model and hashes its weights). A bare callable has none that can be
    trusted (a function's name says nothing of the model it calls), so the user names it: vectors of two models must
    never be mixed up, in the cache or in the store."""
    if embed_id is not None:
        if not isinstance(embed_id, str) or not embed_id:
            raise TypeError(f"embed_id must be a non-empty str, got {embed_id!r}")
        return embed_id
    for attr in ("model_id", "name"):
        value = getattr(embed, attr, None)
        if isinstance(value, str) and value:
            return value
    raise ChunkingError(
        f"embed: {_describe(embed)} has no model_id or name attribute to say which model it is: give embed_id= "
        "(--embed-id on the command line), a name that changes when the model does (the embedding cache and the "
        "store keep vectors by it)"
    )


def _describe(embed: Any) -> str:
    name = getattr(embed, "__qualname__", None) or type(embed).__name__
    module = getattr(embed, "__module__", None)
    return f"{module}.{name}" if module and module != "builtins" else str(name)


def embedder_from_spec(spec: str) -> Any:
    """The embedder ``spec`` names: ``minilm`` (all-MiniLM-L6-v2 in numpy, offline), or ``module:function`` (a
    callable ``list[str] -> 2-D array``, or a factory of one: a function that takes no texts is called once). A
    ``module:function`` without ``model_id``/``name`` is known by its spec."""
    if spec == "minilm":
        from ..evaluation.embedders import minilm

        return minilm()
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ChunkingError(f"embed: {spec!r} is neither {' nor '.join(NAMED)} nor module:function")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise ChunkingError(f"embed: cannot load {spec!r}: {exc}") from None
    if not callable(target):
        raise ChunkingError(f"embed: {spec!r} is a {type(target).__name__}, not a callable")
    if isinstance(target, type):
        target = target()
    return target


class Embedder:
    """The user's embedder, called on batches of texts, its output checked: a 2-D array of finite floats with a row
    per text, the same width every call (and as wide as the store's vectors)."""

    def __init__(self, embed: Callable[[List[str]], Any], model: str, batch_size: int = 256,
                 dim: Optional[int] = None) -> None:
        if not callable(embed):
            raise TypeError(f"embed must be a callable list[str] -> 2-D array, got {type(embed).__name__}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
        self.embed, self.model, self.batch_size, self.dim = embed, model, batch_size, dim
        self.calls = 0

    def __call__(self, texts: Sequence[str]) -> List[np.ndarray]:
        """One float32 vector per text, ``batch_size`` texts per call of the model."""
        out: List[np.ndarray] = []
        for i in range(0, len(texts), self.batch_size):
            part = list(texts[i : i + self.batch_size])
            out.extend(self._call(part))
        return out

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of :meth:`__call__` as one float32 array ``(len(texts), dim)``."""
        parts = [self._call(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _call(self, texts: List[str]) -> np.ndarray:
        who = f"embed ({self.model!r})"
        self.calls += 1
        try:
            raw = self.embed(texts)
        except Exception as exc:
            raise ChunkingError(f"{who} raised {type(exc).__name__}: {exc}") from exc
        try:
            vectors = np.asarray(raw, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise ChunkingError(f"{who} returned {type(raw).__name__}, not a 2-D array of floats: {exc}") from None
        if vectors.ndim != 2 or vectors.shape[0] != len(texts) or vectors.shape[1] == 0:
            raise ChunkingError(f"{who} returned shape {vectors.shape} for {len(texts)} texts: expected "
                                f"({len(texts)}, dimension)")
        if self.dim is not None and vectors.shape[1] != self.dim:
            raise ChunkingError(f"{who} returned vectors of dimension {vectors.shape[1]}, where its earlier ones (or "
                                f"the store's) have {self.dim}")
        bad = ~np.isfinite(vectors).all(axis=1)
        if bad.any():
            first = int(np.argmax(bad))
            raise ChunkingError(f"{who} returned NaN or infinite values for {int(bad.sum())} of {len(texts)} texts "
                                f"(the first: {texts[first][:60]!r})")
        self.dim = int(vectors.shape[1])
        return vectors


