"""The piece rule of Metaspace tokenizers behind a SentencePiece normalizer (XLM-R's, T5's): "spaces-normalized",
cutting only before a space that the normalizer keeps a single space between two non-blank characters.

The tokenizer is the Unigram of tokenizer_assets.py (XLM-R's pipeline), as is and with the parts of its
configuration that other SentencePiece conversions have: T5's split on whitespace and "first" prepend scheme,
transformers' current normalizer (a strip of trailing whitespace, space runs into "▁"), an added token that takes
the whitespace before it, one matched after normalization. Each is counted against the tokenizer itself on every
pair of the characters the normalizer turns into spaces, deletes or joins to a neighbour, on both sides of a space.
Configurations whose effect on a space is not known stay "whole"."""

from __future__ import annotations

import json

import pytest

from chunkwise import RecursiveChunker, Tokenizer
from support.tokenizer_assets import hf_reference, unigram_json

BASE = unigram_json()
pytestmark = pytest.mark.skipif(BASE is None, reason="the Unigram tokenizer is trained with sentencepiece")

COLLAPSE = {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}


def _variant(change) -> str:
    config = json.loads(BASE)
    change(config)
    return json.dumps(config)


def _precompiled(config):
    return config["normalizer"]["normalizers"][0]


def _t5(config):
    config["normalizer"]["normalizers"] = [
        _precompiled(config),
        {"type": "Strip", "strip_left": False, "strip_right": True},
        dict(COLLAPSE, content="\u2581"),
    ]
    config["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"},
        {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True},
    ]}
    _token(config, "<mask>")["lstrip"] = True  # as XLM-R's own <mask>


def _token(config, content):
    return next(t for t in config["added_tokens"] if t["content"] == content)


def _normalized_token(config):
    # Matched in the normalized text: "ﬁx" is "fix" after NFKC.
    config["model"]["vocab"].append(["fix", -5.0])
    config["added_tokens"].append({"id": len(config["model"]["vocab"]) - 1, "content": "fix", "single_word": False,
                                   "lstrip": False, "rstrip": False, "normalized": True, "special": False})
    config["pre_tokenizer"]["prepend_scheme"] = "first"


def _append(step):
    return lambda config: config["normalizer"]["normalizers"].append(step)


def _set(path, value):
    def change(config):
        *parents, last = path
        node = config
        for key in parents:
            node = node[key]
        node[last] = value
    return change


RULES = [
    ("xlm-r", lambda config: None, "spaces-normalized"),
    ("t5", _t5, "spaces-normalized"),
    ("normalized token", _normalized_token, "spaces-normalized"),
    ("precompiled alone", lambda c: c.__setitem__("normalizer", _precompiled(c)), "spaces-normalized"),
    # Whose effect on a space is not known here: counted whole.
    ("nfkc after", _append({"type": "NFKC"}), "whole"),
    ("lowercase after", _append({"type": "Lowercase"}), "whole"),
    ("strip left", _append({"type": "Strip", "strip_left": True, "strip_right": True}), "whole"),
    ("other replace", _append({"type": "Replace", "pattern": {"String": "a"}, "content": " "}), "whole"),
    ("precompiled second", lambda c: c["normalizer"]["normalizers"].reverse(), "whole"),
    ("no split", _set(("pre_tokenizer", "split"), False), "whole"),
    ("rstrip token", lambda c: _token(c, "<mask>").__setitem__("rstrip", True), "whole"),
    ("single-word token", lambda c: _token(c, "<mask>").__setitem__("single_word", True), "whole"),
]

# What nmt_nfkc turns into a space (U+00A0, U+3000, U+2002, U+200B, "▁", U+FFFD, U+FEFF, tab, line break), into a
# space and a mark (U+00A8, U+00B4, U+309B), into nothing (controls), or expands (ligature, fraction, fullwidth);
# what joins a space or a neighbour into one grapheme cluster (marks, ZWJ, an Arabic number sign, regional
# indicators, Hangul jamo, a virama); and plain letters.
CHARS = ["a", "\u00a0", "\u3000", "\u2002", "\u200b", "\u2581", "\ufffd", "\ufeff", "\t", "\n", "\u00a8", "\u00b4",
         "\u309b", "\x01", "\x7f", "\ufb01", "\u00bd", "\uff26", "\u0301", "\u200d", "\u0600", "\U0001f1eb",
         "\u1161", "\u094d", "\u0915", " ", "<mask>", "fix"]


def _texts():
    out = []
    for c in CHARS:
        for d in CHARS:
            out += [f"xy{c} {d}zw", f"xy {c}{d} zw", f"{c} {d}", f"x{c}{d} {c}{d}y z"]
    return out


TEXTS = _texts()


@pytest.mark.parametrize("name, change, rule", RULES, ids=[r[0] for r in RULES])
def test_counts_next_to_what_the_normalizer_changes_are_the_tokenizers_own(name, change, rule):
    json_text = _variant(change)
    tok, ref = Tokenizer.from_str(json_text), hf_reference(json_text)
    assert tok.piece_rule == rule
    wrong = [t for t in TEXTS if tok.count(t) != len(ref.encode(t, add_special_tokens=False).ids)]
    assert not wrong, f"{len(wrong)} of {len(TEXTS)} texts miscounted, first {wrong[0]!r}"


def test_the_cuts_the_rule_refuses_would_change_the_count():
    # A text and its two parts either side of a space, counted apart: they differ where the normalizer joins the
    # space to its neighbour, so a rule that cut there would miscount (the texts above hold these).
    ref = hf_reference(BASE)

    def count(s):
        return len(ref.encode(s, add_special_tokens=False).ids)

    # After U+00A0, U+3000 or U+200B (spaces once normalized), after a deleted control that follows a space, and
    # after a mark on U+00A0: a cluster that the table replaces whole with its first character's space.
    for a, b in [("word\u00a0", " word"), ("word\u3000", " word"), ("word\u200b", " word"), ("word \x01", " word"),
                 ("word\u00a0\u0301", " word")]:
        assert count(a + b) < count(a) + count(b), (a, b)
    assert count("word word") == count("word") + count(" word")


@pytest.mark.parametrize("name, change", [(n, c) for n, c, rule in RULES if rule != "whole"],
                         ids=[n for n, c, rule in RULES if rule != "whole"])
def test_chunks_count_exactly_where_windows_start_and_end_beside_changed_spaces(name, change):
    # The texts above joined with plain words and added tokens between them, so that windows, and the pieces they
    # reuse from the last one, start and end next to every character of CHARS.
    json_text = _variant(change)
    tok, ref = Tokenizer.from_str(json_text), hf_reference(json_text)
    text = " word ".join(TEXTS[::3]) + " <mask> x<mask> " + " ".join(CHARS)
    for size in (5, 16, 61):
        for overlap in (0, size // 4):
            chunks = RecursiveChunker(size=size, overlap=overlap, tokenizer=tok).chunk(text)
            assert chunks
            for c in chunks:
                assert c.token_count == len(ref.encode(c.text, add_special_tokens=False).ids), (size, c.text[:80])
