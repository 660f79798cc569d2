"""Semantic chunking: chunks cut where the meaning of neighbouring sentences shifts, measured with the caller's
embedding model, under the same exact size cap as every other chunker.

The text's units (its sentences, by the core's own CJK-aware boundaries; a sentence larger than ``size`` in pieces)
are embedded once each, in batches; the core reads the cuts off the vectors and assembles the chunks with the one
engine, which cuts a segment larger than ``size`` at paragraphs, lines, sentences, clauses and words.
"""

from __future__ import annotations

import hashlib
import pickle
import types
from pathlib import Path
from typing import IO, Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import _core
from ._core import ChunkingError, Tokenizer
from .chunk import Chunk
from .chunkers import (
    BaseChunker, _as_dict, _as_list, _batch_metadatas, _given, _int64_pairs, _pairs_array,
    _text_or_pages, _unit,
)

__all__ = ["SemanticChunker", "from_fastembed", "from_model2vec", "from_onnx", "from_sentence_transformers"]

# The constructor's arguments that stay in Python (the rest go to the core).
_PYTHON_ONLY = ("embed", "batch_size", "cache")


class SemanticChunker(BaseChunker):
    """Sentences grouped into chunks where their meaning shifts, as an embedding model sees it.

    ``embed``: any callable taking a list of str and returning a 2-D array of floats (numpy, or anything
    ``numpy.asarray`` reads), one row per text. Each unit of a text is embedded once; :meth:`chunk_batch` embeds the
    units of all its texts together, ``batch_size`` texts per call, and a unit text that occurs more than once in a
    call is embedded once. With ``cache=True`` the vectors are kept, keyed by a hash of the unit's text, for the
    chunker's lifetime (for texts that repeat across calls; it grows with every new unit). Whatever ``embed`` does
    wrong (raises, returns the wrong shape, a non-numeric array, NaN or infinity) raises a ChunkingError naming it.

    The units embedded are the text's sentences (a line or paragraph end ends one too), except that a run of units
    narrower than ``min_unit`` (short lines of a table or a list, fragments such as "Yes.") is embedded as one unit,
    as long as it fits ``size``. Width is counted in characters, a CJK one (Han, kana, Hangul, fullwidth) counting
    two, as a terminal shows it (default ``min_unit``: 40, a short English sentence or a Chinese one of 20
    characters; 0 embeds every sentence and line on its own). A cut falls only between units, so a larger ``min_unit`` embeds
    fewer texts (a model pays per text as well as per token) and leaves fewer places to cut; a unit always starts and ends where a sentence, line or paragraph does.

    Boundaries are compared through windows: the mean of the ``window`` unit vectors before a boundary against the
    mean of the ``window`` after it. Their cosine distance (``1 - cosine``: 0 for the same meaning, 1 for unrelated,
    up to 2) makes the distance curve. ``mode`` says where to cut (default "optimal", the one mode that beats
    size-matched recursive chunking on retrieval in benches/README.md), and what ``threshold`` is:

    - "percentile" (default 95): where the distance is above this percentile (0-100) of the text's distances;
    - "stddev" (default 3): where it is above the mean distance plus this many standard deviations;
    - "interquartile" (default 1.5): where it is above the mean distance plus this many interquartile ranges;
    - "gradient" (default 95): where the distance rose from the boundary before by more than this percentile (0-100)
      of all such rises;
    - "minima": at the local minima of the similarity curve (``1 - distance``, smoothed over three boundaries)
      whose depth (how far the similarity climbs back on the left plus on the right, in cosine similarity) is at
      least this; by default the minima deeper than their mean depth less half its standard deviation
      (TextTiling's cutoff);
    - "optimal" (default 3): the segmentation of the whole text that makes chunks most coherent (the sum of each
      unit's cosine to its chunk's mean) with sizes near ``target`` (default three quarters of ``size``), found by
      dynamic programming; ``threshold`` weighs even sizes against coherence: a unit in a chunk whose size is off
      the target by a fraction f costs ``threshold * f**2``, in units of the text's contrast (one minus the mean
      cosine of its units to their mean). 0 cuts for coherence alone.

    In the threshold modes a segment larger than ``size`` is cut again at its largest distances (pieces of at least
    half the size where possible). In every mode the cap is exact: no chunk is larger than ``size``, in characters
    or in tokens of ``tokenizer`` counted as the other chunkers count them; a segment still too large is cut at
    paragraphs, lines, sentences, clauses, words. ``min_size`` merges a smaller chunk into the one before it (or the
    first into the next) when the two fit together. ``overlap`` applies inside a segment cut at those levels; a
    chunk never starts with the end of the topic before it.

    ``format="markdown"`` reads the text's Markdown structure as :class:`~chunkwise.MarkdownChunker` reads it (the
    core's one parser). A unit never straddles a heading, a table, a code block, a list or a quote: a table, code
    block or list (with the paragraph that leads into it) that fits in a chunk is one unit, so it is never cut; a
    heading is one unit with the text under it when the two fit; inside a larger table or code block a unit ends
    only at a line end. The sections bound the chunks as MarkdownChunker's rule says: a chunk never runs past the
    end of the section it starts in, but may take in the sibling sections after it when they fit. In the optimal
    mode the segmentation keeps to that rule, each chunk's capacity is ``size`` less its context when
    ``size_includes_context``, and a cut before a heading earns a bonus of ten contrast units (the size cost's
    unit), so that chunks end where sections do unless the sizes say otherwise. In the threshold modes a segment
    between two cuts that fits is one chunk and a larger one is cut as MarkdownChunker cuts (headings, thematic
    breaks, blocks, items, rows, lines, then the text levels). Every chunk's metadata then has ``title_path``,
    ``headings`` and ``chunk_type``, and its ``context`` (the rendered title path; a cut table's header, a cut code
    block's fence line, a cut list's lead-in) exactly as MarkdownChunker gives them; ``embedding_text`` is the
    context and the text. With ``size_includes_context`` (the default, as in MarkdownChunker) the context counts
    toward ``size``, in characters or tokens. ``format="text"`` (the default) reads sentences, lines and
    paragraphs only, and its chunks have no context.

    Every chunk's metadata has ``cut_score``, the distance at the boundary the chunk ends at (None at the end of the
    text, or at a cut inside a unit), and ``cut_mode``; its ``level`` is "semantic" when it ends at a cut of the
    mode, else the level the engine cut at. Offsets are ``str`` indices and ``text`` is ``source[start:end]``.

    Pickling pickles ``embed`` along: it must be picklable (a module-level function, or an object that pickles).
    """

    _strategy = "semantic"
    # The chunker embeds its units in Python: paths that hand the core splitter a text alone cannot take it.
    _embeds = True

    def __init__(
        self,
        size: int = 512,
        overlap: int = 0,
        *,
        embed: Callable[[List[str]], Any],
        mode: str = "optimal",
        threshold: Optional[float] = None,
        window: int = 1,
        target: Optional[int] = None,
        min_unit: Optional[int] = None,
        min_size: int = 0,
        format: str = "text",
        size_includes_context: bool = True,
        unit: Optional[str] = None,
        tokenizer: Optional[Tokenizer] = None,
        max_chars: Union[int, str, None] = "auto",
        batch_size: int = 256,
        cache: bool = False,
    ) -> None:
        public = _given(locals())
        if not callable(embed):
            raise TypeError(
                f"embed must be a callable taking a list of str and returning a 2-D float array, "
                f"got {type(embed).__name__}"
            )
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ChunkingError(f"batch_size must be an int >= 1, got {batch_size!r}")
        if not isinstance(cache, bool):
            raise TypeError(f"cache must be a bool, got {type(cache).__name__}")
        for name, value in (("mode", mode), ("format", format)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {type(value).__name__}")
        self._kwargs = public
        args = {k: v for k, v in public.items() if k not in _PYTHON_ONLY}
        args["unit"] = _unit(unit, tokenizer)
        self._splitter = _core.Splitter(self._strategy, **args)
        self._embed = embed
        self._batch_size = batch_size
        self._cache: Optional[Dict[bytes, Any]] = {} if cache else None

    # -- calls -----------------------------------------------------------------------------------------------------

    def chunk(
        self,
        text: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        *,
        pages: Optional[Sequence[str]] = None,
    ) -> List[Chunk]:
        """Splits ``text`` (or the joined ``pages``, see :meth:`BaseChunker.chunk`) into :class:`Chunk` objects."""
        text = _text_or_pages(text, pages)
        (vectors, dim), = self._embedded([text], "text")
        return self._splitter.semantic_chunk(text, vectors, dim, _as_dict(metadata, "metadata"), pages is not None)

    def split(self, text: str) -> List[str]:
        """The chunks' texts only."""
        pairs = _int64_pairs(self._spans(text))
        return [text[pairs[i] : pairs[i + 1]] for i in range(0, len(pairs), 2)]

    def spans(self, text: str):
        """The chunks' ``(start, end)`` ``str`` offsets as an ``n x 2`` int64 numpy array."""
        return _pairs_array(self._spans(text))

    def chunk_batch(
        self,
        texts: Sequence[str],
        metadatas: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    ) -> List[List[Chunk]]:
        """:meth:`chunk` for many texts, their units embedded together in calls of ``batch_size`` texts."""
        texts, dicts = _batch_metadatas(texts, metadatas)
        embedded = self._embedded(texts, "texts")
        return [
            self._splitter.semantic_chunk(text, vectors, dim, meta, False)
            for text, (vectors, dim), meta in zip(texts, embedded, dicts)
        ]

    def spans_batch(self, texts: Sequence[str]) -> list:
        """:meth:`spans` for many texts, their units embedded together."""
        texts = _as_list(texts, "texts")
        embedded = self._embedded(texts, "texts")
        return [
            _pairs_array(self._splitter.semantic_spans(text, vectors, dim))
            for text, (vectors, dim) in zip(texts, embedded)
        ]

    def iter_chunks(
        self,
        source: Union[str, Iterable[str], IO[Any]],
        metadata: Optional[Mapping[str, Any]] = None,
        *,
        paged: bool = False,
        read_size: int = 1 << 20,
    ) -> Iterator[Chunk]:
        """The chunks of a text that arrives in pieces (see :meth:`BaseChunker.iter_chunks` for ``source``): the
        same chunks as :meth:`chunk`. The cuts depend on the whole text (the thresholds on all its distances, the
        optimal mode on all its units), so the source is read whole before the first chunk."""
        return super().iter_chunks(source, metadata, paged=paged, read_size=read_size)

    def _stream(self, metadata: Optional[dict], paged: bool) -> "_WholeText":
        return _WholeText(self, metadata, paged)

    # -- embedding -------------------------------------------------------------------------------------------------

    def _spans(self, text: str) -> bytearray:
        (vectors, dim), = self._embedded([text], "text")
        return self._splitter.semantic_spans(text, vectors, dim)

    def _embedded(self, texts: List[str], arg: str) -> List[Tuple[bytes, int]]:
        """For each text, the float32 bytes of its units' vectors and their dimension (0 for a text of no units)."""
        import numpy as np

        units: List[List[str]] = []
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                name = arg if len(texts) == 1 and arg == "text" else f"{arg}[{i}]"
                raise TypeError(f"{name} must be a str, got {type(text).__name__}")
            pairs = _int64_pairs(self._splitter.semantic_units(text))
            units.append([text[pairs[j] : pairs[j + 1]] for j in range(0, len(pairs), 2)])
        vectors = self._vectors([u for us in units for u in us])
        out = []
        row = 0
        for us in units:
            rows = vectors[row : row + len(us)]
            row += len(us)
            out.append((np.ascontiguousarray(rows, dtype=np.float32).tobytes(), rows.shape[1] if len(us) else 0))
        return out

    def _vectors(self, units: List[str]) -> Any:
        """The vectors of ``units`` (one row each, float32), each distinct text embedded once (or taken from the
        cache), in calls of ``batch_size`` texts of like length."""
        import numpy as np

        keys = [hashlib.blake2b(u.encode("utf-8"), digest_size=16).digest() for u in units]
        found: Dict[bytes, Any] = {}
        if self._cache is not None:
            found = {k: self._cache[k] for k in keys if k in self._cache}
        todo: Dict[bytes, str] = {}
        for k, u in zip(keys, units):
            if k not in found:
                todo.setdefault(k, u)
        # Shortest first: a transformer pads each batch to its longest text, so texts of like length go together
        # (the model's cost is then that of the tokens it reads, not of the padding).
        missing = sorted(todo.items(), key=lambda item: len(item[1]))
        dim = next(iter(found.values())).shape[0] if found else None
        for b in range(0, len(missing), self._batch_size):
            batch = missing[b : b + self._batch_size]
            got = self._call_embed([u for _, u in batch], dim)
            dim = got.shape[1]
            for (k, _), v in zip(batch, got):
                found[k] = v
        if self._cache is not None:
            for k, _ in missing:
                self._cache[k] = found[k]
        if not units:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def _call_embed(self, texts: List[str], dim: Optional[int]) -> Any:
        """``embed(texts)`` as a checked ``len(texts) x dim`` float32 array."""
        import numpy as np

        try:
            raw = self._embed(texts)
        except Exception as e:
            raise ChunkingError(f"embed raised {type(e).__name__}: {e}") from e
        try:
            array = np.asarray(raw)
        except Exception as e:
            raise ChunkingError(f"embed must return a 2-D array of floats, got {type(raw).__name__} ({e})") from e
        if array.dtype.kind not in "fiu":
            raise ChunkingError(f"embed must return a 2-D array of floats, got an array of dtype {array.dtype}")
        if array.ndim != 2 or array.shape[0] != len(texts) or array.shape[1] == 0:
            raise ChunkingError(
                f"embed must return one row per text: an array of shape ({len(texts)}, dim) for {len(texts)} "
                f"texts, got shape {array.shape}"
            )
        if dim is not None and array.shape[1] != dim:
            raise ChunkingError(f"embed returned rows of {array.shape[1]} values after rows of {dim}: one model only")
        array = array.astype(np.float32)
        if not np.isfinite(array).all():
            bad = int(np.argwhere(~np.isfinite(array))[0][0])
            raise ChunkingError(f"embed returned NaN or infinity, in the row of {texts[bad]!r}")
        return array

    # -- plumbing --------------------------------------------------------------------------------------------------

    def __reduce__(self):
        embed = self._embed
        if isinstance(embed, types.FunctionType) and ("<lambda>" in embed.__qualname__ or "<locals>" in embed.__qualname__):
            raise pickle.PicklingError(
                f"SemanticChunker pickles with its embed, and embed {embed.__qualname__!r} is a lambda or a local "
                f"function, which pickle cannot send: pass a module-level function or a picklable object"
            )
        if not isinstance(embed, (types.FunctionType, types.BuiltinFunctionType)):
            try:
                pickle.dumps(embed)
            except Exception as e:
                raise pickle.PicklingError(
                    f"SemanticChunker pickles with its embed, and embed ({type(embed).__name__}) cannot be "
                    f"pickled: {e}"
                ) from e
        return super().__reduce__()


# -- embedders -------------------------------------------------------------------------------------------------------


def _needs(package: str, helper: str, pip: str) -> ImportError:
    return ImportError(f"{helper} needs the {package} package, which is not installed: pip install {pip}")


def from_sentence_transformers(model: Any, **encode_kwargs: Any) -> Callable[[List[str]], Any]:
    """``embed`` for :class:`SemanticChunker` from a ``sentence_transformers.SentenceTransformer`` (or the name of
    one, loaded here): its ``encode`` as unit vectors, ``encode_kwargs`` passed along (``batch_size``...)."""
    if isinstance(model, str):
        try:
            from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise _needs("sentence-transformers", "from_sentence_transformers", "sentence-transformers") from None
        model = SentenceTransformer(model)
    encode = _method(model, "encode", "a SentenceTransformer (with encode) or its name")
    kwargs = {"convert_to_numpy": True, "normalize_embeddings": True, "show_progress_bar": False, **encode_kwargs}
    return lambda texts: encode(list(texts), **kwargs)


def from_model2vec(model: Any) -> Callable[[List[str]], Any]:
    """``embed`` for :class:`SemanticChunker` from a ``model2vec.StaticModel`` (or the name or folder of one,
    loaded here with ``StaticModel.from_pretrained``): its ``encode``."""
    if isinstance(model, str):
        try:
            from model2vec import StaticModel  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise _needs("model2vec", "from_model2vec", "model2vec") from None
        model = StaticModel.from_pretrained(model)
    encode = _method(model, "encode", "a model2vec StaticModel (with encode) or its name")
    return lambda texts: encode(list(texts))


def from_fastembed(model: Any, **embed_kwargs: Any) -> Callable[[List[str]], Any]:
    """``embed`` for :class:`SemanticChunker` from a ``fastembed.TextEmbedding`` (or the name of one, loaded here):
    its ``embed`` generator stacked into one array, ``embed_kwargs`` passed along (``batch_size``...)."""
    if isinstance(model, str):
        try:
            from fastembed import TextEmbedding  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise _needs("fastembed", "from_fastembed", "fastembed") from None
        model = TextEmbedding(model_name=model)
    embed = _method(model, "embed", "a fastembed TextEmbedding (with embed) or its name")

    def run(texts: List[str]) -> Any:
        import numpy as np

        rows = list(embed(list(texts), **embed_kwargs))
        return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    return run


def from_onnx(model: Union[str, Path], tokenizer: Union[str, Path], *,
              pooling: str = "mean", max_length: int = 512, batch_size: int = 32) -> Callable[[List[str]], Any]:
    """``embed`` for :class:`SemanticChunker` from an encoder exported to ONNX (``model.onnx``, as Optimum or
    ``torch.onnx`` export it) and its ``tokenizer.json``, run by onnxruntime on the CPU: the token vectors pooled by
    mean over the attention mask (``pooling="cls"``: the first token's), as unit vectors, texts cut at ``max_length``
    tokens. Nothing is downloaded: both files are read from disk (onnxruntime and tokenizers are needed)."""
    from .evaluation.embedders import OnnxEmbedder

    return OnnxEmbedder(model, tokenizer, pooling=pooling, max_length=max_length, batch_size=batch_size)


def _method(model: Any, name: str, expected: str) -> Callable[..., Any]:
    method = getattr(model, name, None)
    if not callable(method):
        raise TypeError(f"model: expected {expected}, got {type(model).__name__}")
    return method


class _WholeText:
    """A semantic chunker's stream (see ``BaseChunker._stream``): the pieces are kept, and chunked at the end."""

    def __init__(self, chunker: SemanticChunker, metadata: Optional[dict], paged: bool) -> None:
        self._chunker = chunker
        self._metadata = metadata
        self._paged = paged
        self._pieces: List[Union[str, bytes]] = []

    def push(self, piece: Union[str, bytes]) -> List[Chunk]:
        self._pieces.append(piece)
        return []

    def finish(self) -> List[Chunk]:
        pieces, self._pieces = self._pieces, []
        if any(isinstance(p, bytes) for p in pieces):
            text = b"".join(p if isinstance(p, bytes) else p.encode() for p in pieces).decode("utf-8")
        else:
            text = "".join(pieces)  # type: ignore[arg-type]
        chunker = self._chunker
        (vectors, dim), = chunker._embedded([text], "text")
        return chunker._splitter.semantic_chunk(text, vectors, dim, self._metadata, self._paged)  # type: ignore[no-any-return]
