"""Adversarial inputs: RecursiveChunker(512) vs langchain's
RecursiveCharacterTextSplitter, mainly to show linear time.

Cases (full size; a smoke run under --benchmark-disable uses 1/8):

* ``blank_lines``   "start", 2,000,000 newlines, "end"
* ``long_line``     5,000,000 ASCII letters, no space, no punctuation
* ``cjk_line``      2,500,000 Han characters from zh.txt, no punctuation or
                    line break (7.5 MB)
* ``zwj_emoji``     50,000 ZWJ family emoji (7 code points, one grapheme each)
* ``nul``           2 MB of short words separated by NUL characters
* ``rtl``           ~3.7 MB of Hebrew/Arabic sentences with bidi controls
                    (RLE/PDF/RLM)

chunkwise: extra_info["linearity"] = MB/s on the whole input / MB/s on its
first quarter (1.0 = linear; quadratic would give ~0.25), both timed
interleaved, best of 5 to 50 rounds (~1 s).
Inputs of about 1 MB and up can run slower per byte than their quarter
because the quarter fits in the CPU cache (e.g. zwj_emoji: ~120 MB/s up to
0.3 MB, ~75 MB/s from 1.25 MB to 20 MB), so 0.7 here is not superlinear.  langchain: timed once on the whole input (rounds=1)
unless a run on 1/16 of it predicts more than LANGCHAIN_LIMIT_S seconds,
then skipped; its linearity is from one quarter run and one full run.
"""

from __future__ import annotations

import re
import string
import time

import pytest

from benchlib import best_times, load_doc, record

cw = pytest.importorskip("chunkwise")

SIZE = 512
LANGCHAIN_LIMIT_S = 30.0


def _repeat(unit: str, nchars: int) -> str:
    return (unit * (nchars // len(unit) + 1))[:nchars]


def _han(nchars: int) -> str:
    han = "".join(re.findall(r"[\u4e00-\u9fff]+", load_doc("zh.txt").text[:3_000_000]))
    return _repeat(han, nchars)


CASES = {
    "blank_lines": lambda k: "start\n" + "\n" * (2_000_000 // k) + "end",
    "long_line": lambda k: _repeat(string.ascii_letters, 5_000_000 // k),
    "cjk_line": lambda k: _han(2_500_000 // k),
    "zwj_emoji": lambda k: "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
    * (50_000 // k),
    "nul": lambda k: _repeat("abc\x00def\x00\x00 word\x00", 2_000_000 // k),
    "rtl": lambda k: _repeat(
        "\u202b\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd, \u05d6\u05d4\u05d5 "
        "\u05d8\u05e7\u05e1\u05d8.\u202c \u0645\u0631\u062d\u0628\u0627 "
        "\u0628\u0627\u0644\u0639\u0627\u0644\u0645\u060c \u0647\u0630\u0627 \u0646\u0635 "
        "\u062a\u062c\u0631\u064a\u0628\u064a\u061f \u200f",
        2_000_000 // k,
    ),
}

_built: dict = {}


def case_text(name: str, smoke: bool) -> str:
    key = (name, smoke)
    if key not in _built:
        _built[key] = CASES[name](8 if smoke else 1)
    return _built[key]


def _prefix(text: str, frac: int) -> str:
    return text[: len(text) // frac]


def _mbps(text: str, secs: float) -> float:
    return round(len(text.encode()) / 1e6 / secs, 3)


@pytest.mark.parametrize("case", list(CASES))
def test_chunkwise(benchmark, case, smoke):
    benchmark.group = f"adversarial: {case}"
    text = case_text(case, smoke)
    quarter = _prefix(text, 4)
    chunker = cw.RecursiveChunker(SIZE)
    chunker.spans(quarter[:10_000])  # warm-up (lazy tables)
    spans = benchmark.pedantic(chunker.spans, args=(text,), rounds=3, warmup_rounds=1)
    assert len(spans) > 0 and int((spans[:, 1] - spans[:, 0]).max()) <= SIZE
    assert (spans[1:, 0] >= spans[:-1, 1]).all()  # in order, no overlap
    if smoke:
        return
    # Enough rounds for ~1 s in all: fast cases take milliseconds per call.
    t0 = time.perf_counter()
    chunker.spans(text)
    rounds = max(5, min(50, int(0.8 / (time.perf_counter() - t0))))
    best = best_times({"quarter": lambda: chunker.spans(quarter),
                       "full": lambda: chunker.spans(text)}, rounds=rounds)
    q_mbps, f_mbps = _mbps(quarter, best["quarter"]), _mbps(text, best["full"])
    record(benchmark, len(text.encode()), impl="chunkwise", variant="recursive.spans",
           case=case, chars=len(text), chunks=len(spans), quarter_MBps=q_mbps,
           full_MBps=f_mbps, linearity=round(f_mbps / q_mbps, 3))


@pytest.mark.parametrize("case", list(CASES))
def test_langchain(benchmark, case, smoke):
    lts = pytest.importorskip("langchain_text_splitters")
    benchmark.group = f"adversarial: {case}"
    text = case_text(case, smoke)
    split = lts.RecursiveCharacterTextSplitter(
        chunk_size=SIZE, chunk_overlap=0, length_function=len
    ).split_text
    t0 = time.perf_counter()
    split(_prefix(text, 16))
    predicted = 16 * (time.perf_counter() - t0)
    if predicted > LANGCHAIN_LIMIT_S:
        pytest.skip(f"langchain predicted {predicted:.0f}s on {case}")
    if smoke:
        chunks = benchmark.pedantic(split, args=(text,), rounds=1)
        assert chunks and max(map(len, chunks)) <= SIZE
        return
    quarter = _prefix(text, 4)
    t0 = time.perf_counter()
    split(quarter)
    q_secs = time.perf_counter() - t0
    chunks = benchmark.pedantic(split, args=(text,), rounds=1, warmup_rounds=0)
    assert chunks and max(map(len, chunks)) <= SIZE
    f_mbps = record(benchmark, len(text.encode()), impl="peer", variant="langchain",
                    case=case, chars=len(text), chunks=len(chunks),
                    predicted_s=round(predicted, 2))
    q_mbps = _mbps(quarter, q_secs)
    benchmark.extra_info.update(quarter_MBps=q_mbps, full_MBps=round(f_mbps, 3),
                                linearity=round(f_mbps / q_mbps, 3))
