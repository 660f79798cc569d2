"""Sizes in tokens: counts equal the tokenizer's own, and every strategy keeps every chunk within the size in exact
tokens.

The reference is always the tokenizer itself: Hugging Face ``tokenizers`` ``encode(text, add_special_tokens=...)``
and Python tiktoken's ``encode_ordinary``. Tokenizers: four trained here (byte-level BPE, WordPiece, Metaspace, and
one without a pre-tokenizer), all-MiniLM-L6-v2 when its package is installed, a Unigram with XLM-R's pipeline when
sentencepiece is, and the five tiktoken encodings when tiktoken and the rank files are available offline (see
tokenizer_assets.py).
"""

from __future__ import annotations

import pickle

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chunkwise
from chunkwise import ChunkingError, FixedChunker, ParagraphChunker, RecursiveChunker, SentenceChunker, Tokenizer

from support.alphabets import FRAGMENTS, graphemes, short_run
from support.corpus import DATA
from support.token_cases import CASE_IDS, CASES, TOKEN_EDGES
from support.tokenizer_assets import hf_reference, tiktoken_encoding, trained

tokenizers = pytest.importorskip("tokenizers")

# Slices of the shared corpus that ship with the repository.

# -- tokenizers under test, each with its reference counter (support/token_cases.py) --------------------------------


@pytest.fixture(scope="module", params=CASES, ids=CASE_IDS)
def case(request):
    return request.param


# -- texts -----------------------------------------------------------------------------------------------------------

token_fragment = st.sampled_from(FRAGMENTS + TOKEN_EDGES)
token_texts = st.lists(st.one_of(token_fragment, short_run), max_size=80).map("".join)


def corpus_slices(limit=20_000):
    out = []
    for name in ("en.txt", "zh.txt", "ja.txt", "mixed.md", "code.py"):
        out.append((DATA / name).read_text(encoding="utf-8")[:limit])
    return out


# -- exact counts ----------------------------------------------------------------------------------------------------


@given(text=token_texts)
@example(text="Hello world.  Two  spaces\n\nand 1234567 [SEP] <|endoftext|> 中文，测试。")
def test_count_equals_the_tokenizers_own_count(case, text):
    assert case.make().count(text) == case.reference(text)


def test_count_on_the_corpus(case):
    tok = case.make()
    for text in corpus_slices():
        for start in range(0, len(text), 1777):
            piece = text[start : start + 3000]
            assert tok.count(piece) == case.reference(piece), (case, start)


# -- every strategy, in tokens ---------------------------------------------------------------------------------------

STRATEGIES = {
    "recursive": lambda size, overlap, tok: RecursiveChunker(size, overlap, tokenizer=tok),
    "recursive-custom": lambda size, overlap, tok: RecursiveChunker(
        size, overlap, separators=["\n\n", "。", ". ", " "], tokenizer=tok
    ),
    "sentence": lambda size, overlap, tok: SentenceChunker(size, overlap, tokenizer=tok),
    "paragraph": lambda size, overlap, tok: ParagraphChunker(size, overlap, tokenizer=tok),
    "fixed": lambda size, overlap, tok: FixedChunker(size, overlap, snap=size // 4, tokenizer=tok),
}


def check_chunks(case, text, chunks, size, overlap):
    prev = None
    for c in chunks:
        assert text[c.start : c.end] == c.text
        exact = case.reference(c.text)
        assert c.token_count == exact == c.size, (c, exact)
        assert exact <= size or len(graphemes(c.text)) == 1, f"{exact} tokens > {size}: {c.text!r}"
        if prev is not None:
            assert c.start > prev.start and c.end > prev.end
            if c.start < prev.end:
                assert case.reference(text[c.start : prev.end]) <= overlap
        prev = c
    if overlap == 0:
        kept = "".join(c.text for c in chunks)
        # Trimming leaves out whitespace, and a byte order mark that starts the text.
        assert "".join(kept.split()) == "".join(text.removeprefix("\ufeff").split())


# Five strategies times every tokenizer: a third of the profile's examples each keeps the suite to minutes.
@pytest.mark.parametrize("strategy", list(STRATEGIES))
@settings(max_examples=max(30, settings.default.max_examples // 3))
@given(text=token_texts, size=st.integers(1, 80), data=st.data())
def test_every_chunk_fits_in_exact_tokens(case, strategy, text, size, data):
    tok = case.make()
    fixed = tok.count("")
    if size <= fixed:
        with pytest.raises(ChunkingError, match="special tokens"):
            STRATEGIES[strategy](size, 0, tok)
        return
    overlap = data.draw(st.one_of(st.just(0), st.integers(0, size - 1)), label="overlap")
    chunker = STRATEGIES[strategy](size, overlap, tok)
    check_chunks(case, text, chunker.chunk(text), size, overlap)


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("size", [64, 256])
def test_corpus_chunks_fit_in_exact_tokens(case, strategy, size):
    chunker = STRATEGIES[strategy](size, size // 8, case.make())
    for text in corpus_slices(8_000):
        check_chunks(case, text, chunker.chunk(text), size, size // 8)


# Runs with no space (a letter repeated, one long word, punctuation, CJK) and words longer than a chunk, between
# prose: issue 34's adversarial texts, whose long pieces are counted from token ends kept from window to window.
RUNS = [
    "a" * 20_000,
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" * 400,
    "!\"#$%&'()*+,-./:;<=>?@[]^_{|}~" * 300,
    "\u3002" * 5_000,
    "中文的句子還有日本語のテキスト" * 600,
    " ".join("xyzzy" * (10 + 7 * i) + " " + "-" * (100 + 20 * i) for i in range(40)),
]


@pytest.mark.parametrize("size", [16, 256])
def test_runs_fit_in_exact_tokens(case, size):
    prose = corpus_slices(2_000)[0]
    texts = [prose + run + " " + prose for run in RUNS]
    for strategy in ("recursive", "fixed"):
        fresh = [STRATEGIES[strategy](size, 0, case.make()).chunk(t) for t in texts]
        for text, chunks in zip(texts, fresh):
            check_chunks(case, text, chunks, size, 0)
        # Whatever the tokenizer kept from other texts, the same chunks.
        used = STRATEGIES[strategy](size, 0, case.make())
        assert [used.chunk(t) for t in reversed(texts)][::-1] == fresh


def test_batch_and_spans_agree_with_chunk(case):
    chunker = RecursiveChunker(48, 8, tokenizer=case.make())
    texts = corpus_slices(3_000)
    batch = chunker.chunk_batch(texts)
    assert batch == [chunker.chunk(t) for t in texts]
    assert [s.tolist() for s in chunker.spans_batch(texts)] == [
        [[c.start, c.end] for c in chunks] for chunks in batch
    ]


def test_fixed_snap_zone_never_reaches_past_the_cut():
    # Found by hypothesis: the longest prefix within the snap budget ran past the cut (over whitespace that counts
    # no tokens), and the snap zone was scanned backwards.
    tok = Tokenizer.from_str(trained("wordpiece"), add_special_tokens=True)
    text = "a1,000,000aaa\r\n\r\naaaaaaaaaaaaaaaaaaaaaaaa🏳️\u200d🌈aa.aaa。」aaaaaa한국어        "
    chunks = FixedChunker(12, snap=3, tokenizer=tok).chunk(text)
    assert "".join(c.text for c in chunks).replace("\r\n", "") == text.strip().replace("\r\n", "")
    assert all(c.token_count <= 12 for c in chunks)


def test_chunks_do_not_depend_on_what_was_counted_before(case):
    texts = corpus_slices(4_000)
    fresh = [RecursiveChunker(40, 6, tokenizer=case.make()).chunk(t) for t in texts]
    used = RecursiveChunker(40, 6, tokenizer=case.make())
    for t in reversed(texts):
        used.chunk(t[::-1])
        used.chunk(t)
    assert [used.chunk(t) for t in texts] == fresh


# -- the Tokenizer API -----------------------------------------------------------------------------------------------


def test_special_tokens_count_when_asked():
    json_text = trained("wordpiece")
    plain, special = Tokenizer.from_str(json_text), Tokenizer.from_str(json_text, add_special_tokens=True)
    assert special.count("hello world") == plain.count("hello world") + 2
    assert special.add_special_tokens and not plain.add_special_tokens
    chunks = RecursiveChunker(10, tokenizer=special).chunk("hello world, this is a longer text " * 5)
    assert all(c.token_count <= 10 for c in chunks)
    with pytest.raises(ChunkingError, match=r"size must be > 2"):
        RecursiveChunker(2, tokenizer=special)


def test_constructors(tmp_path):
    json_text = trained("bytelevel")
    path = tmp_path / "tokenizer.json"
    path.write_text(json_text, encoding="utf-8")
    ref = hf_reference(json_text)
    text = "Constructors all count the same. 中文，测试。"
    expected = len(ref.encode(text, add_special_tokens=False).ids)
    assert Tokenizer.from_file(path).count(text) == expected
    assert Tokenizer.from_file(str(path)).count(text) == expected
    assert Tokenizer.from_huggingface(ref).count(text) == expected

    class FastTokenizer:  # what transformers' fast tokenizers look like to chunkwise
        backend_tokenizer = ref

    assert Tokenizer.from_huggingface(FastTokenizer()).count(text) == expected
    assert Tokenizer.from_callable(lambda s: len(s.split())).count("a b c") == 3
    assert Tokenizer.tiktoken("cl100k_base").count("hello world") == 2


def test_bad_tokenizers_are_clear_errors(tmp_path):
    with pytest.raises(ChunkingError, match="tokenizer: not a valid tokenizer.json|not a valid tokenizer.json"):
        Tokenizer.from_str("{}")
    with pytest.raises(ChunkingError, match="path: cannot read"):
        Tokenizer.from_file(tmp_path / "missing.json")
    with pytest.raises(ChunkingError, match="encoding must be one of 'cl100k_base'"):
        Tokenizer.tiktoken("cl100k")
    with pytest.raises(TypeError, match="tokenizer must be a tokenizers.Tokenizer"):
        Tokenizer.from_huggingface(object())
    with pytest.raises(TypeError, match="func must be a callable"):
        Tokenizer.from_callable(42)
    with pytest.raises(TypeError, match="tokenizer must be a chunkwise.Tokenizer"):
        RecursiveChunker(10, tokenizer="cl100k_base")
    with pytest.raises(ChunkingError, match="unit='tokens'"):
        RecursiveChunker(10, unit="chars", tokenizer=Tokenizer.tiktoken())


def test_callable_errors_reach_the_caller():
    def broken(text):
        raise RuntimeError("tokenizer exploded")

    chunker = RecursiveChunker(10, tokenizer=Tokenizer.from_callable(broken))
    with pytest.raises(RuntimeError, match="tokenizer exploded"):
        chunker.chunk("some text to split " * 10)
    with pytest.raises(TypeError, match="must return a non-negative int"):
        RecursiveChunker(10, tokenizer=Tokenizer.from_callable(lambda s: "many")).chunk("text " * 20)
    # The chunker still works afterwards with a good callable, in a batch too.
    words = RecursiveChunker(5, tokenizer=Tokenizer.from_callable(lambda s: len(s.split())))
    assert [c.token_count for c in words.chunk("one two three four five six seven")] == [5, 2]
    assert words.chunk_batch(["a b c", "d e f g h i"]) == [words.chunk("a b c"), words.chunk("d e f g h i")]


def test_tokenizers_and_token_chunkers_pickle():
    for tok in (Tokenizer.from_str(trained("wordpiece"), add_special_tokens=True), Tokenizer.tiktoken("o200k_base")):
        again = pickle.loads(pickle.dumps(tok))
        assert again == tok and hash(again) == hash(tok) and again.add_special_tokens == tok.add_special_tokens
        chunker = RecursiveChunker(32, tokenizer=tok)
        restored = pickle.loads(pickle.dumps(chunker))
        assert restored == chunker
        text = "Pickled chunkers split the same way. " * 20
        assert restored.chunk(text) == chunker.chunk(text)
    assert "tiktoken" in repr(Tokenizer.tiktoken()) and Tokenizer.tiktoken().piece_rule == "spaces+cjk+lines"
    assert Tokenizer.tiktoken("o200k_base").piece_rule == "spaces+cjk+lines"
    assert Tokenizer.tiktoken("gpt2").piece_rule == "spaces+cjk"  # the GPT-2 regex splits "\n\n" by what follows


def test_piece_rules_follow_the_tokenizer_configuration():
    assert Tokenizer.from_str(trained("bytelevel")).piece_rule == "spaces+cjk"
    assert Tokenizer.from_str(trained("wordpiece")).piece_rule == "bert+han"
    assert Tokenizer.from_str(trained("metaspace")).piece_rule == "spaces"
    # No pre-tokenizer: nothing is known to be separable, the text is counted whole (still exact).
    assert Tokenizer.from_str(trained("whole")).piece_rule == "whole"


def test_character_chunks_have_no_token_count():
    assert RecursiveChunker(10).chunk("hello world again")[0].token_count is None
    chunk = RecursiveChunker(10, tokenizer=Tokenizer.tiktoken()).chunk("hello world")[0]
    assert chunk.token_count == 2 and chunk.to_dict()["token_count"] == 2
    assert chunkwise.Chunk("ab", 0, 2, token_count=1).token_count == 1


def test_every_built_in_encoding_counts_as_tiktoken():
    # One list in the core (names and special tokens) that Python reads: p50k_edit was listed but refused.
    from chunkwise import _core

    encodings = _core.tiktoken_encodings()
    assert sorted(encodings) == ["cl100k_base", "gpt2", "o200k_base", "p50k_base", "p50k_edit", "r50k_base"]
    assert encodings["p50k_edit"] == ["<|endoftext|>", "<|fim_middle|>", "<|fim_prefix|>", "<|fim_suffix|>"]
    text = "Hello <|fim_prefix|> world, 中文。 " * 3
    for name in encodings:
        reference = tiktoken_encoding(name)
        if reference is None:
            pytest.skip(f"tiktoken or its offline {name} files are missing (see tests/support/tokenizer_assets.py)")
        assert Tokenizer.tiktoken(name).count(text) == len(reference.encode_ordinary(text)), name
        assert sorted(reference.special_tokens_set) == encodings[name], name
