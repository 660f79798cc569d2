"""A deterministic embedder for the semantic tests: hashed words and CJK character n-grams, no model."""

from __future__ import annotations

import re
import zlib
import numpy as np
from chunkwise import SemanticChunker


DIM = 256


STOP = {"the", "and", "a", "an", "by", "of", "to", "in", "is", "it", "meet"}


def features(text: str):
    """Lower-cased words of ASCII text but stop words; characters and character pairs of other runs (CJK has no
    spaces)."""
    for word in re.findall(r"\w+", text.lower()):
        if word in STOP:
            continue
        if word.isascii():
            yield word
        else:
            yield from word
            yield from (word[i : i + 2] for i in range(len(word) - 1))


def embed(texts):
    """A deterministic embedder: the normalised counts of each text's features hashed into DIM buckets."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for i, t in enumerate(texts):
        for f in features(t):
            out[i, zlib.crc32(f.encode("utf-8")) % DIM] += 1.0
        norm = np.linalg.norm(out[i])
        if norm:
            out[i] /= norm
    return out


def units(chunker: SemanticChunker, text: str) -> list:
    """The (start, end) str offsets of the units ``chunker`` embeds for ``text``."""
    from chunkwise.chunkers import _int64_pairs

    pairs = _int64_pairs(chunker._splitter.semantic_units(text))
    return [(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2)]
