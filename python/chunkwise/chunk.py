"""The chunk model. :class:`Chunk` is built in the Rust core (a chunk list is the hot path of ``chunk()``); this
module is its documented home, and that of :class:`Metadata`, the read-only dict a chunk's ``metadata`` is."""

from __future__ import annotations

from typing import Any, NoReturn

from ._core import Chunk

__all__ = ["Chunk", "Metadata"]


class Metadata(dict):  # type: ignore[type-arg]
    """A chunk's metadata: a ``dict`` that cannot be changed, since a chunk is immutable.

    It is a ``dict`` (``json.dumps``, ``isinstance(m, dict)`` and libraries that expect one take it as it is) whose
    changing methods raise ``TypeError``. The chunker deep-copies the metadata you pass once per text, so changing
    your dict afterwards does not change the chunks. Nested values (a list in the metadata) are that copy's, shared
    by the chunks of the text: Python cannot stop you from changing them, but treat them as read-only too. For a
    dict you can change, use ``chunk.to_dict()["metadata"]`` (a deep copy) or ``chunk.metadata.copy()`` (a plain
    ``dict``, values shared).
    """

    # No per-instance __dict__: one is made per chunk on the hot path.
    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a chunk's metadata is read-only: use chunk.metadata.copy() for a dict you can change")

    __setitem__ = __delitem__ = __ior__ = _read_only  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]

    def __reduce__(self) -> Any:
        # dict's own pickling of a subclass fills the new object with __setitem__, which refuses.
        return (type(self), (dict(self),))

    def __copy__(self) -> "Metadata":
        return self

    def __deepcopy__(self, memo: Any) -> "Metadata":
        import copy

        return type(self)(copy.deepcopy(dict(self), memo))

    def __repr__(self) -> str:
        return dict.__repr__(self)
