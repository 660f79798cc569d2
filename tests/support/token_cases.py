"""The tokenizers the token tests run, each with its reference counter (the tokenizer itself: Hugging Face
``tokenizers`` ``encode(text, add_special_tokens=...)``, Python tiktoken's ``encode_ordinary``), and the texts that
break naive token sums. Shared by tests/tokens/test_tokens.py and test_token_fuzz.py."""

from __future__ import annotations

from pathlib import Path

from chunkwise import Tokenizer
from support.tokenizer_assets import hf_reference, minilm_path, tiktoken_encoding, trained, unigram_json


class Case:
    def __init__(self, name, make, reference, references=None):
        self.name, self.make, self.reference = name, make, reference
        # The reference's counts of many texts at once (the tokenizer's own batch call, on all cores), or one by one.
        self._references = references

    def references(self, texts):
        if self._references is not None:
            return self._references(texts)
        return [self.reference(t) for t in texts]

    def __repr__(self):
        return self.name


def _hf_case(name, json_text, special=False):
    ref = hf_reference(json_text)
    return Case(
        name + ("+special" if special else ""),
        lambda: Tokenizer.from_str(json_text, add_special_tokens=special),
        lambda s: len(ref.encode(s, add_special_tokens=special).ids),
        lambda texts: [len(e.ids) for e in ref.encode_batch(texts, add_special_tokens=special)],
    )


def _cases():
    cases = [_hf_case(k, trained(k)) for k in ("bytelevel", "wordpiece", "metaspace", "whole")]
    cases.append(_hf_case("wordpiece", trained("wordpiece"), special=True))
    path = minilm_path()
    if path is not None:
        cases.append(_hf_case("minilm", Path(path).read_text(encoding="utf-8")))
    unigram = unigram_json()
    if unigram is not None:
        cases.append(_hf_case("unigram", unigram))
    for name in ("cl100k_base", "o200k_base", "r50k_base", "p50k_base", "gpt2"):
        enc = tiktoken_encoding(name)
        if enc is not None:
            cases.append(Case(name, lambda n=name: Tokenizer.tiktoken(n), lambda s, e=enc: len(e.encode_ordinary(s))))
    return cases


CASES = _cases()
CASE_IDS = [c.name for c in CASES]


# What breaks naive token sums, besides the mixed-script fragments of the property tests: digit runs, space runs
# before words, contractions, the tokenizers' own special tokens written in the text, control characters.
TOKEN_EDGES = [
    "12345678901234567890", "3.14159", "1,000,000", " 2024", "it's", "we'll", "I'M", "  word", "   ", " \n ",
    "[SEP]", "[CLS]", "<|endoftext|>", "<unk>", "<s>", "x[MASK]y", "\x00", "\x0b", "\x0c", "\u200b", "\u0085",
    "\u2028", "ﬁ", "Ｆｕｌｌ", "Straße", "İ", "naïve", "\ufeff", "a\u0301\u0301\u0301", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ".\n/", "\n/usr", "x.\n\n#", "\r\n-", " \n\n", "\n\n\n)", ":\n", "\n\t*",
]
