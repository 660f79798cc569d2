"""Tokenizers on hostile input: tokenizer.json files that Hugging Face cannot use, and long punctuation runs.

The reference is Hugging Face ``tokenizers`` itself: a file it loads but cannot encode with is rejected when the
``chunkwise.Tokenizer`` is built, with the reason HF's own ``encode`` gives.
"""

from __future__ import annotations

import json

import pytest

import chunkwise
from chunkwise import ChunkingError, Tokenizer

from support.tokenizer_assets import hf_reference, minilm_path, trained

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import models, normalizers, pre_tokenizers  # noqa: E402

# -- tokenizer.json files Hugging Face loads but cannot count with ---------------------------------------------------


def _bert(model) -> str:
    tok = tokenizers.Tokenizer(model)
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tok.to_str()


UNUSABLE = {
    # No [UNK] in the vocabulary: HF fails on the first word it does not hold.
    "wordpiece-empty": lambda: _bert(models.WordPiece({}, unk_token="[UNK]")),
    "wordpiece-no-unk": lambda: _bert(models.WordPiece({"hello": 0, "world": 1, "##s": 2}, unk_token="[UNK]")),
    "wordlevel-no-unk": lambda: _bert(models.WordLevel({"hello": 0}, unk_token="[UNK]")),
    "bpe-unk-not-in-vocab": lambda: _bert(models.BPE({"a": 0, "b": 1}, [], unk_token="<unk>")),
}


def _hf_reason(json_text: str, text: str = "Hello world, this is ordinary text.") -> str:
    """What HF's own encode says about ``text`` with this tokenizer.json."""
    with pytest.raises(Exception) as info:  # noqa: PT011 - tokenizers raises a bare Exception
        hf_reference(json_text).encode(text)
    return str(info.value)


@pytest.mark.parametrize("kind", sorted(UNUSABLE))
def test_a_tokenizer_json_that_hf_cannot_encode_with_is_rejected_with_hfs_reason(kind, tmp_path):
    json_text = UNUSABLE[kind]()
    reason = _hf_reason(json_text)
    assert reason  # e.g. "WordPiece error: Missing [UNK] token from the vocabulary"
    with pytest.raises(ChunkingError) as info:
        Tokenizer.from_str(json_text)
    assert str(info.value).startswith("json: ")
    assert reason in str(info.value)
    path = tmp_path / "tokenizer.json"
    path.write_text(json_text, encoding="utf-8")
    with pytest.raises(ChunkingError, match=r"^path: .*tokenizer\.json: .*") as info:
        Tokenizer.from_file(path)
    assert reason in str(info.value)
    with pytest.raises(ChunkingError, match=r"^tokenizer: ") as info:
        Tokenizer.from_huggingface(tokenizers.Tokenizer.from_str(json_text))
    assert reason in str(info.value)


def test_the_issue_case_an_empty_wordpiece_no_longer_makes_one_huge_chunk():
    json_text = UNUSABLE["wordpiece-empty"]()
    with pytest.raises(ChunkingError, match=r"WordPiece error: Missing \[UNK\] token from the vocabulary"):
        chunkwise.RecursiveChunker(128, tokenizer=Tokenizer.from_str(json_text))


def test_a_tokenizer_that_gives_no_tokens_at_all_is_rejected():
    # HF accepts an empty BPE and drops every character: every text counts 0 tokens.
    json_text = _bert(models.BPE({}, []))
    assert hf_reference(json_text).encode("Hello world").ids == []
    with pytest.raises(ChunkingError, match=r"^json: this tokenizer.json gives no tokens"):
        Tokenizer.from_str(json_text)


def test_text_hf_cannot_encode_raises_in_count_and_stays_bounded_in_chunks():
    # A BPE whose missing unk_token only a rare character reaches: it loads (every character of construction's probe
    # is in the vocabulary: the BMP, a few old scripts, the emoji), and fails, as HF does, on the snowman.
    codes = [*range(0xD800), *range(0xE000, 0x10400), *range(0x13000, 0x13010), *range(0x1F000, 0x1FB00)]
    vocab = {chr(c): i for i, c in enumerate(codes) if chr(c) != "☃"}
    json_text = _bert(models.BPE(vocab, [], unk_token="<unk>"))
    tok = Tokenizer.from_str(json_text)
    assert tok.count("abc de") == len(hf_reference(json_text).encode("abc de").ids) == 5
    reason = _hf_reason(json_text, "abc ☃ de")
    with pytest.raises(ChunkingError, match="cannot encode this text") as info:
        tok.count("abc ☃ de")
    assert reason in str(info.value)
    # Chunkers cannot stop mid-measure: such text counts one token per character, never nothing.
    chunks = chunkwise.RecursiveChunker(16, tokenizer=tok).chunk("☃" * 1000)
    assert "".join(c.text for c in chunks) == "☃" * 1000
    assert max(len(c.text) for c in chunks) == 16


def test_usable_tokenizers_still_load():
    for kind in ("bytelevel", "wordpiece", "metaspace", "whole"):
        assert Tokenizer.from_str(trained(kind)).count("Hello world") > 0
    path = minilm_path()
    if path is not None:
        text = "Hello world ☃ \U00013000"
        reference = hf_reference(open(path, encoding="utf-8").read())
        assert Tokenizer.from_file(path).count(text) == len(reference.encode(text, add_special_tokens=False).ids)
    # A WordPiece with its [UNK]: unknown words count one token each, as in HF.
    json_text = _bert(models.WordPiece({"[UNK]": 0, "hello": 1}, unk_token="[UNK]"))
    assert Tokenizer.from_str(json_text).count("hello snowman ☃ hello") == 4
    assert json.loads(json_text)["model"]["vocab"] == {"[UNK]": 0, "hello": 1}


# -- long punctuation runs ---------------------------------------------------------------------------------------------
# Chunking "!" * 1_600_000 with a WordPiece tokenizer took time quadratic in the run (each look-ahead window walked
# the rest of the terminator run); the speed is measured in benches/test_bench_token_runs.py. Here: the chunks of
# such runs are exact.


def _wordpiece_tokenizers():
    found = [("wordpiece", trained("wordpiece"))]
    path = minilm_path()
    if path is not None:
        found.append(("minilm", open(path, encoding="utf-8").read()))
    return found


@pytest.mark.parametrize("name,json_text", _wordpiece_tokenizers(), ids=lambda v: v if len(v) < 20 else "")
@pytest.mark.parametrize(
    "run",
    ["!" * 50_000, "。" * 20_000, "!」" * 10_000, "?!" * 15_000 + " end"],
    ids=["bangs", "cjk-stops", "bang-quotes", "interrobangs"],
)
@pytest.mark.parametrize(
    "chunker", [chunkwise.RecursiveChunker, chunkwise.SentenceChunker, chunkwise.FixedChunker, chunkwise.MarkdownChunker]
)
def test_long_punctuation_runs_chunk_exactly(name, json_text, run, chunker):
    tok, ref = Tokenizer.from_str(json_text), hf_reference(json_text)
    count = lambda s: len(ref.encode(s, add_special_tokens=False).ids)  # noqa: E731
    assert tok.count(run) == count(run)
    chunks = chunker(128, tokenizer=tok).chunk(run)
    assert len(chunks) > 1
    at = 0
    for c in chunks:
        assert run[c.start : c.end] == c.text
        assert run[at : c.start].strip() == ""  # in order, nothing left out but whitespace
        assert c.token_count == count(c.text) <= 128
        at = c.end
    assert run[at:].strip() == ""
