"""achunk, achunk_batch and aiter_chunks under asyncio: the synchronous calls' chunks, with the event loop free.

A heartbeat task watches the loop: it sleeps 5 ms at a time and records when it woke. Were the call run on the loop's
thread, the heartbeat could not wake while it ran (not once: the call would return before the loop ran again); run
off it, the heartbeat keeps ticking. Counted, not timed: a loaded machine makes ticks late, never absent.
"""

from __future__ import annotations

import asyncio
import io
import pickle
import time

import pytest

from chunkwise import (
    AutoChunker,
    ChunkingError,
    CodeChunker,
    ElementsChunker,
    HierarchicalChunker,
    MarkdownChunker,
    RecursiveChunker,
    SemanticChunker,
    SentenceChunker,
)
from support.corpus import code_corpus, data, long_text
from support.embedders import embed

META = {"doc_id": "doc"}
EN, ZH, MD = data("en.txt"), data("zh.txt"), data("mixed.md")


def run(coro):
    return asyncio.run(coro)


async def _with_heartbeat(coro):
    """``coro``'s result, how many times the heartbeat woke while it ran, and the longest gap between two wakes
    (for the message)."""
    ticks = []
    running = True

    async def beat():
        while running:
            await asyncio.sleep(0.005)
            ticks.append(time.perf_counter())

    ticker = asyncio.create_task(beat())
    await asyncio.sleep(0)  # the heartbeat starts before the call
    start = time.perf_counter()
    result = await coro
    end = time.perf_counter()
    running = False
    await ticker
    during = [t for t in ticks if start < t < end]
    gaps = [b - a for a, b in zip([start] + during, during + [end])]
    return result, len(during), max(gaps)


def _assert_loop_free(ticks: int, longest_gap: float) -> None:
    assert ticks >= 3, f"the heartbeat woke {ticks} times during the call (longest gap {longest_gap:.3f} s)"


CHUNKERS = [
    RecursiveChunker(300),
    SentenceChunker(200, overlap=40),
    MarkdownChunker(400),
    AutoChunker(),
    HierarchicalChunker([1024, 256]),
    SemanticChunker(400, embed=embed),
]


@pytest.mark.parametrize("chunker", CHUNKERS, ids=lambda c: type(c).__name__)
def test_achunk_and_achunk_batch_give_the_chunks_of_chunk(chunker):
    texts = [EN, ZH, MD]
    got = run(chunker.achunk(MD, META))
    assert got == chunker.chunk(MD, META)
    batch = run(chunker.achunk_batch(texts, [META, None, {"doc_id": "md"}]))
    assert batch == chunker.chunk_batch(texts, [META, None, {"doc_id": "md"}])


def test_elements_chunker_achunk():
    elements = [
        {"type": "Title", "text": "Report"},
        {"type": "NarrativeText", "text": EN[:3000]},
        {"type": "Table", "text": "| a | b |\n|---|---|\n| 1 | 2 |"},
    ]
    chunker = ElementsChunker(300)
    assert run(chunker.achunk(elements, META)) == chunker.chunk(elements, META)
    assert run(chunker.achunk_batch([elements, elements[:2]])) == chunker.chunk_batch([elements, elements[:2]])


def test_many_concurrent_calls_each_get_their_own_chunks():
    chunker = RecursiveChunker(256, overlap=32)
    texts = [(EN if i % 3 == 0 else ZH if i % 3 == 1 else MD)[i * 97 :] for i in range(300)]
    metas = [{"doc_id": f"d{i}", "i": i} for i in range(300)]

    async def main():
        return await asyncio.gather(*(chunker.achunk(t, m) for t, m in zip(texts, metas)))

    got = run(main())
    assert len(got) == 300
    for text, meta, chunks in zip(texts, metas, got):
        assert chunks == chunker.chunk(text, meta)
        assert all(c.metadata["i"] == meta["i"] for c in chunks)


def test_a_long_achunk_leaves_the_event_loop_free():
    # A syntax tree of ~2 MB of Python: a call of a good fraction of a second on any machine.
    text = code_corpus(2_000_000)
    chunker = CodeChunker(language="python")
    chunks, ticks, gap = run(_with_heartbeat(chunker.achunk(text, META)))
    assert chunks == chunker.chunk(text, META)
    _assert_loop_free(ticks, gap)


def test_a_long_achunk_batch_leaves_the_event_loop_free():
    texts = [long_text("en.txt", 2_000_000), long_text("zh.txt", 2_000_000)] * 3
    chunker = SentenceChunker(128)
    batch, ticks, gap = run(_with_heartbeat(chunker.achunk_batch(texts)))
    assert batch == chunker.chunk_batch(texts)
    _assert_loop_free(ticks, gap)


def test_a_cancelled_call_is_cancelled_at_once_and_the_loop_goes_on():
    text = code_corpus(2_000_000)
    chunker = CodeChunker(language="python")

    async def main():
        task = asyncio.create_task(chunker.achunk(text, META))
        await asyncio.sleep(0.01)
        task.cancel()
        start = time.perf_counter()
        with pytest.raises(asyncio.CancelledError):
            await task
        cancelled_in = time.perf_counter() - start
        # The loop still serves calls.
        return cancelled_in, await chunker.achunk("def f():\n    return 1\n", META)

    cancelled_in, small = run(main())
    assert cancelled_in < 0.05
    assert [c.text for c in small] == ["def f():\n    return 1"]


def test_errors_are_raised_by_the_await_naming_the_argument():
    chunker = RecursiveChunker(100)
    with pytest.raises(TypeError, match="metadata must be a mapping or None, got int"):
        run(chunker.achunk("text", 3))
    with pytest.raises(TypeError, match="texts"):
        run(chunker.achunk_batch(5))


def test_chunkers_with_async_calls_still_pickle():
    for chunker in CHUNKERS[:-1]:
        assert pickle.loads(pickle.dumps(chunker)) == chunker


# -- aiter_chunks ----------------------------------------------------------------------------------------------------


async def _collect(agen):
    return [c async for c in agen]


async def _byte_pieces(data: bytes, step: int):
    """An async source of UTF-8 bytes cut every ``step`` bytes, inside characters too (as a network body is)."""
    for i in range(0, len(data), step):
        await asyncio.sleep(0)
        yield data[i : i + step]


@pytest.mark.parametrize("step", [7, 4096, 100_000])
def test_aiter_chunks_of_async_bytes_cut_inside_characters(step):
    text = "\n\n".join([ZH, EN, ZH])
    chunker = SentenceChunker(200, overlap=30)
    got = run(_collect(chunker.aiter_chunks(_byte_pieces(text.encode(), step), META)))
    assert got == chunker.chunk(text, META)


def test_aiter_chunks_of_every_sync_source():
    text = long_text("en.txt", 300_000)
    chunker = RecursiveChunker(300)
    whole = chunker.chunk(text, META)
    assert run(_collect(chunker.aiter_chunks(text, META))) == whole
    assert run(_collect(chunker.aiter_chunks([text[:1000], text[1000:]], META))) == whole
    assert run(_collect(chunker.aiter_chunks(io.StringIO(text), META, read_size=50_000))) == whole
    assert run(_collect(chunker.aiter_chunks(io.BytesIO(text.encode()), META, read_size=33_333))) == whole


def test_aiter_chunks_of_a_stream_reader():
    text = "\n\n".join([EN, ZH])

    async def main():
        reader = asyncio.StreamReader()
        data = text.encode()
        for i in range(0, len(data), 10_001):
            reader.feed_data(data[i : i + 10_001])
        reader.feed_eof()
        return await _collect(RecursiveChunker(256).aiter_chunks(reader, META, read_size=4096))

    assert run(main()) == RecursiveChunker(256).chunk(text, META)


def test_aiter_chunks_yields_chunks_before_the_source_ends():
    # A stream does not wait for its end: chunks come out while the source is still sending (once a block of the
    # stream, a few MB, is read).
    text = "\n\n".join([long_text("en.txt", 4_000_000)] * 3)
    step = 1_000_000
    sent = []

    async def source():
        for i in range(0, len(text), step):
            sent.append(i)
            yield text[i : i + step]

    async def main():
        firsts = []
        async for chunk in RecursiveChunker(200).aiter_chunks(source(), META):
            firsts.append(len(sent))
        return firsts

    firsts = run(main())
    assert firsts[0] < len(range(0, len(text), step))


def test_a_semantic_chunker_streams_asynchronously_too():
    chunker = SemanticChunker(400, embed=embed)
    text = "\n\n".join([EN[:20_000], ZH[:20_000]])
    got = run(_collect(chunker.aiter_chunks(_byte_pieces(text.encode(), 5000), META)))
    assert got == chunker.chunk(text, META) == list(chunker.iter_chunks(text, META))


def test_a_long_aiter_chunks_leaves_the_event_loop_free():
    text = long_text("zh.txt", 3_000_000)

    async def pieces():
        for i in range(0, len(text), 1_000_000):
            yield text[i : i + 1_000_000]

    chunker = SentenceChunker(64)
    got, ticks, gap = run(_with_heartbeat(_collect(chunker.aiter_chunks(pieces(), META))))
    assert got == chunker.chunk(text, META)
    _assert_loop_free(ticks, gap)


def test_leaving_aiter_chunks_early_is_clean():
    async def main():
        agen = RecursiveChunker(100).aiter_chunks(_byte_pieces(EN.encode(), 1000), META)
        first = [c async for c, _ in zip_async(agen, range(3))]
        await agen.aclose()
        return first

    first = run(main())
    assert [c.text for c in first] == [c.text for c in RecursiveChunker(100).chunk(EN, META)[:3]]


async def zip_async(agen, counter):
    for _ in counter:
        yield await agen.__anext__(), None


def test_aiter_chunks_bad_sources_are_named():
    chunker = RecursiveChunker(100)

    async def mixed():
        yield "a"
        yield 3

    with pytest.raises(TypeError, match=r"source\[1\] must be a str or bytes, got int"):
        run(_collect(chunker.aiter_chunks(mixed(), META)))
    with pytest.raises(TypeError, match=r"source\[1\] must be a str, got int"):
        run(_collect(chunker.aiter_chunks(["a", 1], META)))
    with pytest.raises(TypeError, match="got float"):
        run(_collect(chunker.aiter_chunks(1.5, META)))
    with pytest.raises(ValueError, match="read_size"):
        run(_collect(chunker.aiter_chunks("a", META, read_size=0)))
    with pytest.raises(ValueError, match="metadata must name the document"):
        run(_collect(chunker.aiter_chunks("text")))
    with pytest.raises(ChunkingError, match="ends inside a character"):
        run(_collect(chunker.aiter_chunks(_byte_pieces("abc é".encode()[:-1], 2), META)))
    with pytest.raises(ChunkingError, match="cannot stream"):
        run(_collect(MarkdownChunker(100).aiter_chunks("# A\n\ntext", META)))
