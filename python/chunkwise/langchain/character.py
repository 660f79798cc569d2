"""The character splitters: recursive, single-separator, and LangChain's Markdown, Python and LaTeX presets."""

from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple

from chunkwise import _core
from chunkwise._core import Tokenizer
from chunkwise.langchain._compat import Language
from chunkwise.langchain.base import TextSplitter, _keep_mode
from chunkwise.langchain.lengths import _HuggingFaceLength, _TiktokenLength
from chunkwise.langchain.log import logger
from chunkwise.langchain.matching import _PyMatches
from chunkwise.langchain.python_loop import _py_split_regex, _PyLoop
from chunkwise.langchain.separators import _SEPARATORS

class _CoreSplitter(TextSplitter):
    """A splitter whose chunks come from ``_core.LangchainSplitter`` (or the Python loop where it cannot)."""

    _core_splitter: Optional[Any]
    _matcher: Optional[_PyMatches] = None

    def _build(self, separators: List[str], is_regex: bool, character_join: Optional[str]) -> None:
        measure = self._length_function
        tokenizer = None
        allowed: List[str] = []
        disallowed: List[str] = []
        if isinstance(measure, Tokenizer):
            tokenizer = measure
        elif isinstance(measure, (_TiktokenLength, _HuggingFaceLength)):
            tokenizer = measure.tokenizer
        if isinstance(measure, _TiktokenLength):
            allowed, disallowed = measure.special_args()
        try:
            self._core_splitter = _core.LangchainSplitter(
                list(separators),
                bool(is_regex),
                _keep_mode(self._keep_separator),
                self._chunk_size,
                self._chunk_overlap,
                bool(self._strip_whitespace),
                character_join,
                tokenizer,
                allowed,
                disallowed,
            )
        except (NotImplementedError, TypeError, OverflowError, UnicodeError) as e:
            # Run in Python: odd types, lone surrogates in a separator.
            self._core_splitter = None
            logger.debug("chunkwise: %s runs in Python (slower, same chunks): %s", type(self).__name__, e)
            return
        external = self._core_splitter.external_separators()
        if external:
            self._matcher = _PyMatches(separators, is_regex, self._keep_separator)
            for separator, why in external:
                logger.debug(
                    "chunkwise: %s matches the separator %r with Python's re (%s); splitting and merging stay in "
                    "Rust",
                    type(self).__name__,
                    separator,
                    why,
                )

    def _python_length(self) -> Any:
        """The length function the core must call back; None when it measures natively."""
        measure = self._length_function
        if measure is len or isinstance(measure, (Tokenizer, _TiktokenLength)):
            return None
        if isinstance(measure, _HuggingFaceLength) and measure.tokenizer is not None:
            return None
        return measure

    def _chunks(self, text: str, start_index: bool, offsets: bool) -> Tuple[list, Optional[list], Optional[list]]:
        core = self._core_splitter
        if core is not None and type(text) is str:
            result = core.split(text, self._python_length(), start_index, offsets, self._matcher)
            if result is not None:
                chunks, starts, spans, warnings = result
                for total in warnings:
                    logger.warning(
                        "Created a chunk of size %d, which is longer than the specified %d", total, self._chunk_size
                    )
                return chunks, starts, spans
            why = (
                "the core handed it back (lone surrogates in the text, a length that is not an int, or a separator "
                "with capturing groups of its own, whose captures re.split returns as pieces)"
            )
        elif core is not None:
            why = f"the text is a {type(text).__name__}, not a str"
        else:
            why = "its arguments need Python (see the message when it was built)"
        logger.debug("chunkwise: %s.split_text runs in Python (slower, same chunks): %s", type(self).__name__, why)
        return self._with_offsets(text, self._py_split(text), start_index, offsets)

    def split_text(self, text: str) -> List[str]:
        """The chunks of ``text``."""
        return self._chunks(text, False, False)[0]

    def _py_split(self, text: str) -> List[str]:  # pragma: no cover - abstract
        raise NotImplementedError


class RecursiveCharacterTextSplitter(_CoreSplitter):
    """Splits by the first separator found in the text, and splits pieces that are still too long by the next
    ones; merges pieces up to ``chunk_size`` (LangChain's ``RecursiveCharacterTextSplitter``)."""

    def __init__(
        self,
        separators: Optional[List[str]] = None,
        keep_separator: Any = True,
        is_separator_regex: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(keep_separator=keep_separator, **kwargs)
        self._separators = separators or ["\n\n", "\n", " ", ""]
        self._is_separator_regex = is_separator_regex
        self._build(self._separators, is_separator_regex, None)

    def _py_split(self, text: str) -> List[str]:
        return _PyLoop(self).recursive(text, self._separators)

    @classmethod
    def from_language(cls, language: Any, **kwargs: Any) -> "RecursiveCharacterTextSplitter":
        """A splitter with LangChain's separators for a programming or markup language (regexes)."""
        separators = cls.get_separators_for_language(language)
        return cls(separators=separators, is_separator_regex=True, **kwargs)

    @staticmethod
    def get_separators_for_language(language: Any) -> List[str]:
        """LangChain's separators for ``language``."""
        value = getattr(language, "value", language)
        if value in _SEPARATORS and language in Language._value2member_map_:
            return list(_SEPARATORS[value])
        if language in Language._value2member_map_:
            raise ValueError(f"Language {language} is not implemented yet!")
        raise ValueError(f"Language {language} is not supported! Please choose from {list(Language)}")


class CharacterTextSplitter(_CoreSplitter):
    """Splits by one separator and merges the pieces up to ``chunk_size`` (LangChain's ``CharacterTextSplitter``)."""

    def __init__(self, separator: str = "\n\n", is_separator_regex: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._separator = separator
        self._is_separator_regex = is_separator_regex
        self._build([separator], is_separator_regex, self._merge_separator())

    def _merge_separator(self) -> str:
        lookaround = self._is_separator_regex and any(
            self._separator.startswith(p) for p in ("(?=", "(?<!", "(?<=", "(?!")
        )
        return "" if (self._keep_separator or lookaround) else self._separator

    def _py_split(self, text: str) -> List[str]:
        loop = _PyLoop(self)
        pattern = self._separator if self._is_separator_regex else re.escape(self._separator)
        pieces = _py_split_regex(text, pattern, self._keep_separator)
        return loop.merge(pieces, self._merge_separator())


class MarkdownTextSplitter(RecursiveCharacterTextSplitter):
    """LangChain's ``MarkdownTextSplitter``: the Markdown separators, as literals (LangChain does not pass
    ``is_separator_regex``, so the heading pattern never matches; ``from_language(Language.MARKDOWN)`` does)."""

    def __init__(self, **kwargs: Any) -> None:
        separators = self.get_separators_for_language(Language.MARKDOWN)
        super().__init__(separators=separators, **kwargs)


class PythonCodeTextSplitter(RecursiveCharacterTextSplitter):
    """LangChain's ``PythonCodeTextSplitter``: the Python separators."""

    def __init__(self, **kwargs: Any) -> None:
        separators = self.get_separators_for_language(Language.PYTHON)
        super().__init__(separators=separators, **kwargs)


class LatexTextSplitter(RecursiveCharacterTextSplitter):
    """LangChain's ``LatexTextSplitter``: the LaTeX separators, as literals (as LangChain passes them)."""

    def __init__(self, **kwargs: Any) -> None:
        separators = self.get_separators_for_language(Language.LATEX)
        super().__init__(separators=separators, **kwargs)
