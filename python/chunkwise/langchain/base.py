"""``TextSplitter``: LangChain's arguments, their validation, and the document methods every splitter shares."""

from __future__ import annotations

import asyncio
import copy
import functools
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple

from chunkwise.langchain._compat import Document, _Base
from chunkwise.langchain.lengths import _encoding_for_model, _check_encoding, _HuggingFaceLength, _TiktokenLength
from chunkwise.langchain.python_loop import _py_spans, _py_start_indices

def _keep_mode(keep_separator: Any) -> str:
    if not keep_separator:
        return "none"
    return "end" if keep_separator == "end" else "start"


class TextSplitter(_Base):  # type: ignore[misc,valid-type]
    """LangChain's ``TextSplitter`` interface: arguments, validation and document methods."""

    def __init__(
        self,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        length_function: Callable[[str], int] = len,
        keep_separator: Any = False,
        add_start_index: bool = False,
        strip_whitespace: bool = True,
        exact_offsets: bool = False,
    ) -> None:
        if chunk_size <= 0:
            raise ValueError(f"chunk_size must be > 0, got {chunk_size}")
        if chunk_overlap < 0:
            raise ValueError(f"chunk_overlap must be >= 0, got {chunk_overlap}")
        if chunk_overlap > chunk_size:
            raise ValueError(
                f"Got a larger chunk overlap ({chunk_overlap}) than chunk size ({chunk_size}), should be smaller."
            )
        self._chunk_size = chunk_size
        self._chunk_overlap = chunk_overlap
        self._length_function = length_function
        self._keep_separator = keep_separator
        self._add_start_index = add_start_index
        self._strip_whitespace = strip_whitespace
        self._exact_offsets = exact_offsets

    # -- what subclasses provide -------------------------------------------------------------------------------

    def _chunks(self, text: str, start_index: bool, offsets: bool) -> Tuple[list, Optional[list], Optional[list]]:
        """The chunks of ``text``, LangChain's start indices and exact spans when asked."""
        return self._with_offsets(text, self.split_text(text), start_index, offsets)

    def _with_offsets(
        self, text: str, chunks: list, start_index: bool, offsets: bool
    ) -> Tuple[list, Optional[list], Optional[list]]:
        """Chunks split in Python, with LangChain's start indices and the spans found in order, when asked."""
        starts = _py_start_indices(text, chunks, self._chunk_overlap) if start_index else None
        spans = _py_spans(text, chunks) if offsets else None
        return chunks, starts, spans

    def split_text(self, text: str) -> List[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- documents -----------------------------------------------------------------------------------------------

    def create_documents(self, texts: List[str], metadatas: Optional[List[dict]] = None) -> List[Document]:
        """One ``Document`` per chunk of each text, with a deep copy of that text's metadata."""
        metadatas_ = metadatas or [{}] * len(texts)
        documents = []
        start_index, offsets = self._add_start_index, getattr(self, "_exact_offsets", False)
        for i, text in enumerate(texts):
            chunks, starts, spans = self._chunks(text, start_index, offsets)
            base = metadatas_[i]
            copy_of = _copier(base)
            for j, chunk in enumerate(chunks):
                metadata = copy_of(base)
                if starts is not None:
                    metadata["start_index"] = starts[j]
                if spans is not None:
                    metadata["start"], metadata["end"] = spans[j]
                documents.append(Document(page_content=chunk, metadata=metadata))
        return documents

    def split_documents(self, documents: Iterable[Any]) -> List[Document]:
        """Splits each document's ``page_content``, keeping its metadata."""
        texts, metadatas = [], []
        for doc in documents:
            texts.append(doc.page_content)
            metadatas.append(doc.metadata)
        return self.create_documents(texts, metadatas=metadatas)

    def transform_documents(self, documents: Sequence[Any], **kwargs: Any) -> Sequence[Document]:
        """``split_documents``, as a LangChain document transformer."""
        return self.split_documents(list(documents))

    async def atransform_documents(self, documents: Sequence[Any], **kwargs: Any) -> Sequence[Document]:
        """``transform_documents`` in a worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, functools.partial(self.transform_documents, documents, **kwargs))

    # -- constructors with tokenizers -------------------------------------------------------------------------------

    @classmethod
    def from_huggingface_tokenizer(cls, tokenizer: Any, **kwargs: Any) -> Any:
        """Sizes in the tokens of a transformers tokenizer (``len(tokenizer.tokenize(text))``), counted natively
        when it is a fast tokenizer."""
        try:
            from transformers.tokenization_utils_base import PreTrainedTokenizerBase
        except ImportError:
            raise ValueError(
                "Could not import transformers python package. Please install it with `pip install transformers`."
            ) from None
        if not isinstance(tokenizer, PreTrainedTokenizerBase):
            raise ValueError("Tokenizer received was not an instance of PreTrainedTokenizerBase")
        return cls(length_function=_HuggingFaceLength(tokenizer), **kwargs)

    @staticmethod
    def _tiktoken_length_function(
        encoding_name: str = "gpt2",
        model_name: Optional[str] = None,
        allowed_special: Any = None,
        disallowed_special: Any = "all",
    ) -> Callable[[str], int]:
        if model_name is not None:
            encoding_name = _encoding_for_model(model_name)
        return _TiktokenLength(_check_encoding(encoding_name), allowed_special, disallowed_special)

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "gpt2",
        model_name: Optional[str] = None,
        allowed_special: Any = None,
        disallowed_special: Any = "all",
        **kwargs: Any,
    ) -> Any:
        """Sizes in the tokens of a tiktoken encoding; the ranks are built in, so this works offline and without
        the tiktoken package."""
        length_function = cls._tiktoken_length_function(encoding_name, model_name, allowed_special, disallowed_special)
        return cls(length_function=length_function, **kwargs)


def _copier(metadata: Any) -> Callable[[Any], Any]:
    """``copy.deepcopy``, or a cheaper copy giving the same result for a flat dict of immutable values."""
    if type(metadata) is dict and all(type(v) in _IMMUTABLE for v in metadata.values()):
        return dict.copy
    return copy.deepcopy


_IMMUTABLE = frozenset({str, int, float, bool, type(None), bytes, complex})
