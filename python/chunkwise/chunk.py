"""The chunk model. :class:`Chunk` is built in the Rust core (a chunk list is the hot path of ``chunk()``); this
module is its documented home."""

from ._core import Chunk

__all__ = ["Chunk"]
