"""Length functions: tiktoken and Hugging Face tokenizers counted natively, and tiktoken's model table."""

from __future__ import annotations

import re
from typing import Any, Optional, Tuple

from chunkwise import _core
from chunkwise._core import Tokenizer

class _TiktokenLength:
    """``len(encoding.encode(text, allowed_special=..., disallowed_special=...))``, counted natively.

    The splitters hand the encoding and the two sets to the core, which checks and counts each piece as tiktoken
    does (a disallowed special raises tiktoken's ``ValueError``); calling it counts one text the same way.
    """

    def __init__(self, encoding_name: str, allowed_special: Any, disallowed_special: Any) -> None:
        self.encoding_name = encoding_name
        self.tokenizer = Tokenizer.tiktoken(encoding_name)
        specials = _TIKTOKEN_SPECIALS[encoding_name]
        allowed = specials if allowed_special == "all" else frozenset(allowed_special or ())
        disallowed = specials - allowed if disallowed_special == "all" else frozenset(disallowed_special)
        self.allowed_special = allowed_special
        self.disallowed_special = disallowed_special
        self._allowed = allowed
        self._disallowed = disallowed
        self._specials = specials
        self._disallowed_re = _specials_regex(disallowed)
        self._allowed_re = _specials_regex(allowed & specials)  # tiktoken ignores other strings

    def special_args(self) -> Tuple[list, list]:
        """The allowed special tokens (those of the encoding: tiktoken ignores other strings) and the disallowed
        strings, for the core's counter."""
        return sorted(self._allowed & self._specials), sorted(self._disallowed)

    def check(self, text: str) -> None:
        if self._disallowed_re is not None:
            found = self._disallowed_re.search(text)
            if found:
                _raise_disallowed_special(found.group())

    def __call__(self, text: str) -> int:
        self.check(text)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # as tiktoken: surrogates paired where they pair, U+FFFD for the rest
            text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        if self._allowed_re is None:
            return self.tokenizer.count(text)
        total, pos = 0, 0
        for m in self._allowed_re.finditer(text):
            total += self.tokenizer.count(text[pos : m.start()]) + 1
            pos = m.end()
        return total + self.tokenizer.count(text[pos:])

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (_TiktokenLength, (self.encoding_name, self.allowed_special, self.disallowed_special))


# The built-in encodings and their special tokens: the core's list.
_TIKTOKEN_SPECIALS = {name: frozenset(specials) for name, specials in _core.tiktoken_encodings().items()}

# tiktoken's model -> encoding table (public interface data), used when the tiktoken package is absent.
_MODEL_PREFIXES = [
    ("o1-", "o200k_base"), ("o3-", "o200k_base"), ("o4-mini-", "o200k_base"), ("gpt-5-", "o200k_base"),
    ("gpt-4.5-", "o200k_base"), ("gpt-4.1-", "o200k_base"), ("chatgpt-4o-", "o200k_base"), ("gpt-4o-", "o200k_base"),
    ("gpt-4-", "cl100k_base"), ("gpt-3.5-turbo-", "cl100k_base"), ("gpt-35-turbo-", "cl100k_base"),
    ("ft:gpt-4o", "o200k_base"), ("ft:gpt-4", "cl100k_base"), ("ft:gpt-3.5-turbo", "cl100k_base"),
    ("ft:davinci-002", "cl100k_base"), ("ft:babbage-002", "cl100k_base"),
]
_MODELS = {
    **{m: "o200k_base" for m in ("o1", "o3", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4o")},
    **{m: "cl100k_base" for m in (
        "gpt-4", "gpt-3.5-turbo", "gpt-3.5", "gpt-35-turbo", "davinci-002", "babbage-002",
        "text-embedding-ada-002", "text-embedding-3-small", "text-embedding-3-large",
    )},
    **{m: "p50k_base" for m in ("text-davinci-003", "text-davinci-002", "code-davinci-002", "code-davinci-001",
                                "code-cushman-002", "code-cushman-001", "davinci-codex", "cushman-codex")},
    **{m: "r50k_base" for m in (
        "text-davinci-001", "text-curie-001", "text-babbage-001", "text-ada-001", "davinci", "curie", "babbage",
        "ada", "text-similarity-davinci-001", "text-similarity-curie-001", "text-similarity-babbage-001",
        "text-similarity-ada-001", "text-search-davinci-doc-001", "text-search-curie-doc-001",
        "text-search-babbage-doc-001", "text-search-ada-doc-001", "code-search-babbage-code-001",
        "code-search-ada-code-001",
    )},
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}


def _encoding_for_model(model_name: str) -> str:
    try:
        import tiktoken.model  # the package's own table when it is there
    except ImportError:
        pass
    else:
        return tiktoken.model.encoding_name_for_model(model_name)
    if model_name in _MODELS:
        return _MODELS[model_name]
    for prefix, name in _MODEL_PREFIXES:
        if model_name.startswith(prefix):
            return name
    raise KeyError(
        f"Could not automatically map {model_name} to a tokeniser. "
        "Please use `tiktoken.get_encoding` to explicitly get the tokeniser you expect."
    ) from None


def _check_encoding(encoding_name: str) -> str:
    if encoding_name not in _TIKTOKEN_SPECIALS:
        try:
            import tiktoken
        except ImportError:
            raise ValueError(f"Unknown encoding {encoding_name}.") from None
        tiktoken.get_encoding(encoding_name)  # raises tiktoken's own error for an unknown name
        raise ValueError(f"encoding {encoding_name!r} is not built into chunkwise")
    return encoding_name


def _specials_regex(tokens: Any) -> Optional["re.Pattern[str]"]:
    tokens = sorted(tokens)
    return re.compile("|".join(map(re.escape, tokens))) if tokens else None


def _raise_disallowed_special(token: str) -> None:
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, "
        f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        f"If you want this text to be encoded as normal text, disable the check for this token "
        f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )


class _HuggingFaceLength:
    """``len(tokenizer.tokenize(text))`` of a transformers tokenizer; counted natively for a fast tokenizer."""

    def __init__(self, tokenizer: Any) -> None:
        self.hf = tokenizer
        self.tokenizer: Optional[Tokenizer] = None
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if backend is not None and getattr(tokenizer, "is_fast", False):
            try:
                self.tokenizer = Tokenizer.from_huggingface(tokenizer)
            except Exception:  # an unusual backend: counted by transformers itself
                self.tokenizer = None

    def __call__(self, text: str) -> int:
        return len(self.hf.tokenize(text))

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (_HuggingFaceLength, (self.hf,))
