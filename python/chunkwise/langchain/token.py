"""``TokenTextSplitter``: windows of tiktoken tokens."""

from __future__ import annotations

from typing import Any, List, Optional

from chunkwise import _core
from chunkwise.langchain.base import TextSplitter
from chunkwise.langchain.lengths import _check_encoding, _encoding_for_model, _TiktokenLength

class TokenTextSplitter(TextSplitter):
    """Windows of ``chunk_size`` tokens of a tiktoken encoding, decoded (LangChain's ``TokenTextSplitter``). The
    encodings are built in: no download, no tiktoken package needed."""

    def __init__(
        self,
        encoding_name: str = "gpt2",
        model_name: Optional[str] = None,
        allowed_special: Any = None,
        disallowed_special: Any = "all",
        **kwargs: Any,
    ) -> None:
        if allowed_special is None:
            allowed_special = set()
        super().__init__(**kwargs)
        if model_name is not None:
            encoding_name = _encoding_for_model(model_name)
        self._encoding = _TiktokenLength(_check_encoding(encoding_name), allowed_special, disallowed_special)
        self._allowed_special = allowed_special
        self._disallowed_special = disallowed_special

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "gpt2",
        model_name: Optional[str] = None,
        allowed_special: Any = None,
        disallowed_special: Any = "all",
        **kwargs: Any,
    ) -> "TokenTextSplitter":
        length_function = cls._tiktoken_length_function(encoding_name, model_name, allowed_special, disallowed_special)
        return cls(
            length_function=length_function,
            encoding_name=encoding_name,
            model_name=model_name,
            allowed_special=allowed_special,
            disallowed_special=disallowed_special,
            **kwargs,
        )

    def split_text(self, text: str) -> List[str]:
        """Windows of ``chunk_size`` tokens, ``chunk_size - chunk_overlap`` apart, decoded."""
        name = self._encoding.encoding_name
        allowed, disallowed = self._encoding.special_args()
        if self._chunk_size <= self._chunk_overlap:
            self._encoding.check(text)  # tiktoken refuses the text before LangChain checks the sizes
            raise ValueError("tokens_per_chunk must be greater than chunk_overlap")
        size, overlap = self._chunk_size, self._chunk_overlap
        out = _core.tiktoken_windows(name, text, size, overlap, allowed, disallowed)
        if out is None:  # lone surrogates: tiktoken pairs what pairs up and makes the rest U+FFFD
            fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            out = _core.tiktoken_windows(name, fixed, size, overlap, allowed, disallowed)
        if out is None:  # no lone surrogate is left in `fixed`
            raise _core.ChunkingError("internal error in chunkwise: the text could not be encoded; please report it")
        return out
