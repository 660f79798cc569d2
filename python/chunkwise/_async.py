"""The calls of every chunker for asyncio: ``achunk``, ``achunk_batch`` and, where the chunker streams,
``aiter_chunks`` (defined on :class:`~chunkwise.chunkers.BaseChunker`, fed by :func:`astreamed` here).

Each runs the synchronous call on a worker thread of the event loop's default executor (``asyncio.to_thread``, so
context variables follow), and the core releases the GIL while it splits: the loop keeps serving other tasks during
a long call, and calls awaited together run on several cores. The chunks are the synchronous call's, exactly.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING, Any, AsyncIterator, List, Union

if TYPE_CHECKING:
    from .chunk import Chunk

# A piece shorter than this is pushed into the stream on the event loop's thread: handing it to a worker costs
# more than the core's work on it (the core keeps the GIL below the same size: see DETACH_BYTES in the bindings).
_INLINE_BYTES = 16 * 1024
# Chunks handed out between two pauses for the event loop.
_YIELD_EVERY = 1024


class AsyncCalls:
    """``achunk`` and ``achunk_batch``: :meth:`chunk` and :meth:`chunk_batch` awaited, for web servers and agents.

    The work runs on the event loop's default executor (set another with ``loop.set_default_executor``). A task
    cancelled while it awaits one is cancelled at once; the worker thread finishes its call and the result is
    dropped.
    """

    async def achunk(self, *args: Any, **kwargs: Any) -> List[Chunk]:
        """:meth:`chunk` with the same arguments, run off the event loop: the same chunks."""
        return await asyncio.to_thread(self.chunk, *args, **kwargs)  # type: ignore[attr-defined,no-any-return]

    async def achunk_batch(self, *args: Any, **kwargs: Any) -> List[List[Chunk]]:
        """:meth:`chunk_batch` with the same arguments, run off the event loop (and on all cores, as it is)."""
        return await asyncio.to_thread(self.chunk_batch, *args, **kwargs)  # type: ignore[attr-defined,no-any-return]


async def astreamed(stream: Any, source: Any, read_size: int) -> AsyncIterator[Chunk]:
    """The chunks of ``stream`` (``push``/``finish``, see ``BaseChunker._stream``) fed with ``source``'s pieces: a
    large piece is pushed on a worker thread, and so is the end of the stream (where a semantic chunker embeds)."""
    async for piece in _apieces(source, read_size):
        if len(piece) < _INLINE_BYTES:
            chunks = stream.push(piece)
        else:
            chunks = await asyncio.to_thread(stream.push, piece)
        async for chunk in _handed_out(chunks):
            yield chunk
    async for chunk in _handed_out(await asyncio.to_thread(stream.finish)):
        yield chunk


async def _handed_out(chunks: List[Chunk]) -> AsyncIterator[Chunk]:
    """``chunks`` one by one, with a pause for the event loop every :data:`_YIELD_EVERY`: a stream's end can hand out
    tens of thousands at once, and an async generator's ``yield`` alone never lets the loop run (measured in CI: 39,072
    chunks of 3 MB of Chinese handed out in one go held the loop for 0.45 s)."""
    for i, chunk in enumerate(chunks, 1):
        yield chunk
        if i % _YIELD_EVERY == 0:
            await asyncio.sleep(0)


async def _apieces(source: Any, read_size: int) -> AsyncIterator[Union[str, bytes]]:
    """The pieces of an async stream's source: ``iter_chunks``'s sources, an async iterable of ``str`` or ``bytes``,
    or an object with a coroutine ``read(n)``."""
    from .chunkers import _items, _read_piece

    if isinstance(source, str):
        yield source
        return
    if hasattr(source, "__aiter__"):
        i = 0
        async for piece in source:
            if isinstance(piece, (bytearray, memoryview)):
                piece = bytes(piece)
            elif not isinstance(piece, (str, bytes)):
                raise TypeError(f"source[{i}] must be a str or bytes, got {type(piece).__name__}")
            i += 1
            if piece:
                yield piece
        return
    read = getattr(source, "read", None)
    if callable(read):
        blocking = not inspect.iscoroutinefunction(read)
        while True:
            got = await asyncio.to_thread(read, read_size) if blocking else read(read_size)
            if inspect.isawaitable(got):
                got = await got
            piece = _read_piece(got)
            if not piece:
                return
            yield piece
    # An iterable in memory: read on the loop's thread (a blocking source is a file, read above).
    for i, piece in enumerate(_items(source)):
        if not isinstance(piece, str):
            raise TypeError(f"source[{i}] must be a str, got {type(piece).__name__}")
        yield piece
