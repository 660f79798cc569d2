"""A drop-in for langchain-text-splitters: the same chunks, byte for byte, computed in Rust.

Change one import::

    from chunkwise.langchain import RecursiveCharacterTextSplitter

and keep everything else. Matched against langchain-text-splitters 1.1.3: constructor arguments, defaults,
validation messages, methods, return types and quirks (chunk sizes are sums of piece sizes, overlap only inside one
merge, oversized last-level pieces returned unstripped, ``start_index`` found with ``str.find``). With
langchain-core installed, the classes subclass LangChain's own ``TextSplitter`` (or ``BaseDocumentTransformer``)
and return its ``Document``; without it, a small ``Document`` of ours with ``page_content`` and ``metadata``.

The separators are found, the pieces measured and merged, and ``start_index`` computed in Rust. Three cases run a
pure-Python loop instead, so the answer never differs: a separator regex outside the subset Rust matches exactly as
Python's ``re`` does (see ``rust/core/src/langchain/pyre.rs``), a text holding lone surrogates, and a length function
returning something other than an ``int``.

One addition, off by default: ``exact_offsets=True`` adds ``metadata["start"]`` and ``metadata["end"]``, the chunk's
true ``str`` span in its text (LangChain's ``start_index`` is -1 or another occurrence on repeated text).
"""

from __future__ import annotations

import asyncio
import copy
import enum
import functools
import logging
import re
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple

from chunkwise import _core
from chunkwise._core import Tokenizer

__all__ = [
    "CharacterTextSplitter",
    "Document",
    "Language",
    "LatexTextSplitter",
    "MarkdownHeaderTextSplitter",
    "MarkdownTextSplitter",
    "PythonCodeTextSplitter",
    "RecursiveCharacterTextSplitter",
    "TextSplitter",
    "TokenTextSplitter",
]

LANGCHAIN_VERSION = "1.1.3"
"""The langchain-text-splitters release whose output this module reproduces."""

# LangChain logs oversized chunks on this logger; so do we, so existing log filters keep working.
logger = logging.getLogger("langchain_text_splitters.base")

try:  # the real classes, so isinstance checks and pipelines keep working
    from langchain_text_splitters import Language as _LCLanguage
    from langchain_text_splitters import TextSplitter as _Base

    from langchain_core.documents import Document
except ImportError:  # pragma: no cover - exercised in a subprocess test
    _LCLanguage = None  # type: ignore[misc,assignment]
    try:
        from langchain_core.documents import BaseDocumentTransformer as _Base  # type: ignore[assignment]
        from langchain_core.documents import Document
    except ImportError:
        _Base = object  # type: ignore[assignment,misc]

        class Document:  # type: ignore[no-redef]
            """A chunk and its metadata, shaped like ``langchain_core.documents.Document``."""

            __slots__ = ("page_content", "metadata", "id")

            def __init__(self, page_content: str, metadata: Optional[dict] = None, id: Optional[str] = None):
                self.page_content = page_content
                self.metadata = {} if metadata is None else metadata
                self.id = id

            def __eq__(self, other: object) -> bool:
                return (
                    isinstance(other, Document)
                    and (self.page_content, self.metadata, self.id) == (other.page_content, other.metadata, other.id)
                )

            def __repr__(self) -> str:
                return f"Document(page_content={self.page_content!r}, metadata={self.metadata!r})"

            def __reduce__(self):  # type: ignore[no-untyped-def]
                return (Document, (self.page_content, self.metadata, self.id))


if _LCLanguage is not None:
    Language = _LCLanguage
else:  # pragma: no cover - exercised in a subprocess test

    class Language(str, enum.Enum):  # type: ignore[no-redef]
        """The programming languages ``from_language`` knows (LangChain's values)."""

        CPP = "cpp"
        GO = "go"
        JAVA = "java"
        KOTLIN = "kotlin"
        JS = "js"
        TS = "ts"
        PHP = "php"
        PROTO = "proto"
        PYTHON = "python"
        R = "r"
        RST = "rst"
        RUBY = "ruby"
        RUST = "rust"
        SCALA = "scala"
        SWIFT = "swift"
        MARKDOWN = "markdown"
        LATEX = "latex"
        HTML = "html"
        SOL = "sol"
        CSHARP = "csharp"
        COBOL = "cobol"
        C = "c"
        LUA = "lua"
        PERL = "perl"
        HASKELL = "haskell"
        ELIXIR = "elixir"
        POWERSHELL = "powershell"
        VISUALBASIC6 = "visualbasic6"


def _lines(*keywords: str) -> List[str]:
    """Separators before a line starting with each keyword, then blank lines, lines, spaces and chars."""
    return ["\n" + k for k in keywords] + ["\n\n", "\n", " ", ""]


_C_LIKE = _lines("class ", "void ", "int ", "float ", "double ", "if ", "for ", "while ", "switch ", "case ")
_VB_DECL = r"\n(?!End\s)(?:Public|Private|Friend|Global|Static)\s+?"

# The separators LangChain uses per language (interface data: a test checks them against LangChain's own).
_SEPARATORS = {
    "c": _C_LIKE,
    "cpp": _C_LIKE,
    "go": _lines("func ", "var ", "const ", "type ", "if ", "for ", "switch ", "case "),
    "java": _lines(
        "class ", "public ", "protected ", "private ", "static ", "if ", "for ", "while ", "switch ", "case "
    ),
    "kotlin": _lines(
        "class ", "public ", "protected ", "private ", "internal ", "companion ", "fun ", "val ", "var ",
        "if ", "for ", "while ", "when ", "else ",
    ),
    "js": _lines(
        "function ", "const ", "let ", "var ", "class ", "if ", "for ", "while ", "switch ", "case ", "default "
    ),
    "ts": _lines(
        "enum ", "interface ", "namespace ", "type ", "class ", "function ", "const ", "let ", "var ", "if ",
        "for ", "while ", "switch ", "case ", "default ",
    ),
    "php": _lines("function ", "class ", "if ", "foreach ", "while ", "do ", "switch ", "case "),
    "proto": _lines("message ", "service ", "enum ", "option ", "import ", "syntax "),
    "python": _lines("class ", "def ", "\tdef "),
    "r": _lines(
        "function ", r"setClass\(", r"setMethod\(", r"setGeneric\(", "if ", "else ", "for ", "while ",
        "repeat ", r"library\(", r"require\(",
    ),
    "rst": ["\n=+\n", "\n-+\n", "\n\\*+\n", "\n\n.. *\n\n", "\n\n", "\n", " ", ""],
    "ruby": _lines("def ", "class ", "if ", "unless ", "while ", "for ", "do ", "begin ", "rescue "),
    "rust": _lines("fn ", "const ", "let ", "if ", "while ", "for ", "loop ", "match "),
    "scala": _lines("class ", "object ", "def ", "val ", "var ", "if ", "for ", "while ", "match ", "case "),
    "swift": _lines("func ", "class ", "struct ", "enum ", "if ", "for ", "while ", "do ", "switch ", "case "),
    "markdown": ["\n#{1,6} ", "```\n", "\n\\*\\*\\*+\n", "\n---+\n", "\n___+\n", "\n\n", "\n", " ", ""],
    "latex": [
        "\n\\\\" + k
        for k in (
            "chapter{", "section{", "subsection{", "subsubsection{", "begin{enumerate}", "begin{itemize}",
            "begin{description}", "begin{list}", "begin{quote}", "begin{quotation}", "begin{verse}",
            "begin{verbatim}", "begin{align}",
        )
    ]
    + ["$$", "$", " ", ""],
    "html": [
        "<" + tag
        for tag in (
            "body", "div", "p", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "span", "table", "tr", "td", "th",
            "ul", "ol", "header", "footer", "nav", "head", "style", "script", "meta", "title",
        )
    ]
    + [""],
    "sol": _lines(
        "pragma ", "using ", "contract ", "interface ", "library ", "constructor ", "type ", "function ", "event ",
        "modifier ", "error ", "struct ", "enum ", "if ", "for ", "while ", "do while ", "assembly ",
    ),
    "csharp": _lines(
        "interface ", "enum ", "delegate ", "event ", "class ", "abstract ", "public ", "protected ", "private ",
        "static ", "return ", "if ", "continue ", "for ", "foreach ", "while ", "switch ", "break ", "case ",
        "else ", "try ", "throw ", "finally ", "catch ",
    ),
    "cobol": ["\n" + k for k in (
        "IDENTIFICATION DIVISION.", "ENVIRONMENT DIVISION.", "DATA DIVISION.", "PROCEDURE DIVISION.",
        "WORKING-STORAGE SECTION.", "LINKAGE SECTION.", "FILE SECTION.", "INPUT-OUTPUT SECTION.", "OPEN ",
        "CLOSE ", "READ ", "WRITE ", "IF ", "ELSE ", "MOVE ", "PERFORM ", "UNTIL ", "VARYING ", "ACCEPT ",
        "DISPLAY ", "STOP RUN.",
    )] + ["\n", " ", ""],
    "lua": _lines("local ", "function ", "if ", "for ", "while ", "repeat "),
    "haskell": _lines(
        "main :: ", "main = ", "let ", "in ", "do ", "where ", ":: ", "= ", "data ", "newtype ", "type ",
        "module ", "import ", "qualified ", "import qualified ", "class ", "instance ", "case ", "| ", "= {", ", ",
    ),
    "elixir": _lines(
        "def ", "defp ", "defmodule ", "defprotocol ", "defmacro ", "defmacrop ", "if ", "unless ", "case ",
        "cond ", "with ", "for ", "do ",
    ),
    "powershell": _lines(
        "function ", "param ", "if ", "foreach ", "for ", "while ", "switch ", "class ", "try ", "catch ",
        "finally ",
    ),
    "visualbasic6": [
        _VB_DECL + r"Sub\s+",
        _VB_DECL + r"Function\s+",
        _VB_DECL + r"Property\s+(?:Get|Let|Set)\s+",
        _VB_DECL + r"Type\s+",
        _VB_DECL + r"Enum\s+",
        r"\n(?!End\s)If\s+",
        r"\nElseIf\s+",
        r"\nElse\s+",
        r"\nSelect\s+Case\s+",
        r"\nCase\s+",
        r"\nFor\s+",
        r"\nDo\s+",
        r"\nWhile\s+",
        r"\nWith\s+",
        r"\n\n",
        r"\n",
        " ",
        "",
    ],
}


# ---------------------------------------------------------------------------------------------------------------
# Lengths: `len`, tokenizers counted natively, anything else called from Rust


class _TiktokenLength:
    """``len(encoding.encode(text, allowed_special=..., disallowed_special=...))``, counted natively.

    Text holding no special-token string is counted by the built-in encoding; text holding one is checked and split
    around the specials as tiktoken does (a disallowed special raises tiktoken's ``ValueError``).
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
        self._disallowed_re = _specials_regex(disallowed)
        self._allowed_re = _specials_regex(allowed)

    def native_for(self, text: str) -> bool:
        """Whether ``text`` (and pieces of it) can be counted by the plain encoding: no special-token string."""
        return "<|" not in text

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

    def encode_args(self) -> Tuple[str, list]:
        return self.encoding_name, sorted(self._allowed)

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

    def native_for(self, text: str) -> bool:
        return self.tokenizer is not None

    def __call__(self, text: str) -> int:
        return len(self.hf.tokenize(text))

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (_HuggingFaceLength, (self.hf,))


# ---------------------------------------------------------------------------------------------------------------
# The splitters


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


class _CoreSplitter(TextSplitter):
    """A splitter whose chunks come from ``_core.LangchainSplitter`` (or the Python loop where it cannot)."""

    _core_splitter: Optional[Any]

    def _build(self, separators: List[str], is_regex: bool, character_join: Optional[str]) -> None:
        measure = self._length_function
        tokenizer = None
        if isinstance(measure, Tokenizer):
            tokenizer = measure
        elif isinstance(measure, (_TiktokenLength, _HuggingFaceLength)):
            tokenizer = measure.tokenizer
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
            )
        except (NotImplementedError, TypeError, OverflowError, UnicodeError) as e:
            # Run in Python: a pattern Rust does not match as Python does, odd types, lone surrogates.
            self._core_splitter = None
            logger.debug("chunkwise: %s runs in Python (slower, same chunks): %s", type(self).__name__, e)

    def _python_length(self, text: str) -> Any:
        """The length function the core must call back for ``text``; None when it measures natively."""
        measure = self._length_function
        if measure is len or isinstance(measure, Tokenizer):
            return None
        if isinstance(measure, (_TiktokenLength, _HuggingFaceLength)):
            if measure.native_for(text) and all(measure.native_for(s) for s in self._separator_strings()):
                return None
        return measure

    def _separator_strings(self) -> List[str]:
        raise NotImplementedError

    def _chunks(self, text: str, start_index: bool, offsets: bool) -> Tuple[list, Optional[list], Optional[list]]:
        core = self._core_splitter
        if core is not None and type(text) is str:
            result = core.split(text, self._python_length(text), start_index, offsets)
            if result is not None:
                chunks, starts, spans, warnings = result
                for total in warnings:
                    logger.warning(
                        "Created a chunk of size %d, which is longer than the specified %d", total, self._chunk_size
                    )
                return chunks, starts, spans
            why = "the core handed it back (lone surrogates in the text, or a length it cannot take)"
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

    def _separator_strings(self) -> List[str]:
        return list(self._separators)

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

    def _separator_strings(self) -> List[str]:
        return [self._separator]

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
        self._encoding.check(text)
        name, allowed = self._encoding.encode_args()
        if self._chunk_size <= self._chunk_overlap:
            raise ValueError("tokens_per_chunk must be greater than chunk_overlap")
        out = _core.tiktoken_windows(name, text, self._chunk_size, self._chunk_overlap, allowed)
        if out is None:  # lone surrogates: tiktoken pairs what pairs up and makes the rest U+FFFD
            fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            out = _core.tiktoken_windows(name, fixed, self._chunk_size, self._chunk_overlap, allowed)
        if out is None:  # no lone surrogate is left in `fixed`
            raise _core.ChunkingError("internal error in chunkwise: the text could not be encoded; please report it")
        return out


# ---------------------------------------------------------------------------------------------------------------
# The Python loop, for what the core leaves to Python


def _py_split_regex(text: str, pattern: str, keep_separator: Any) -> List[str]:
    """``re.split`` with the separator kept at the start or end of a piece, or dropped; no empty pieces."""
    if not pattern:
        return [c for c in text]
    if not keep_separator:
        pieces = re.split(pattern, text)
    else:
        parts = re.split(f"({pattern})", text)
        if keep_separator == "end":
            pieces = [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)]
            if len(parts) % 2 == 0:
                pieces += parts[-1:]
            pieces = [*pieces, parts[-1]]
        else:
            pieces = [parts[i] + parts[i + 1] for i in range(1, len(parts), 2)]
            if len(parts) % 2 == 0:
                pieces += parts[-1:]
            pieces = [parts[0], *pieces]
    return [p for p in pieces if p]


class _PyLoop:
    """LangChain's recursion and merge on Python strings, for texts and patterns the core leaves to Python."""

    def __init__(self, splitter: TextSplitter) -> None:
        self.size = splitter._chunk_size
        self.overlap = splitter._chunk_overlap
        self.length = splitter._length_function
        self.keep = splitter._keep_separator
        self.strip = splitter._strip_whitespace
        self.regex = getattr(splitter, "_is_separator_regex", False)

    def recursive(self, text: str, separators: List[str]) -> List[str]:
        chosen, rest = separators[-1], []
        for i, sep in enumerate(separators):
            if not sep:
                chosen = sep
                break
            if re.search(sep if self.regex else re.escape(sep), text):
                chosen, rest = sep, separators[i + 1 :]
                break
        pieces = _py_split_regex(text, chosen if self.regex else re.escape(chosen), self.keep)
        join = "" if self.keep else chosen
        out: List[str] = []
        small: List[str] = []
        for piece in pieces:
            if self.length(piece) < self.size:
                small.append(piece)
                continue
            if small:
                out.extend(self.merge(small, join))
                small = []
            if rest:
                out.extend(self.recursive(piece, rest))
            else:
                out.append(piece)
        if small:
            out.extend(self.merge(small, join))
        return out

    def _joined(self, pieces: List[str], join: str) -> Optional[str]:
        text = join.join(pieces)
        if self.strip:
            text = text.strip()
        return text or None

    def merge(self, pieces: Iterable[str], join: str) -> List[str]:
        join_len = self.length(join)
        out: List[str] = []
        current: List[str] = []
        total = 0
        for piece in pieces:
            n = self.length(piece)
            if total + n + (join_len if current else 0) > self.size:
                if total > self.size:
                    logger.warning(
                        "Created a chunk of size %d, which is longer than the specified %d", total, self.size
                    )
                if current:
                    chunk = self._joined(current, join)
                    if chunk is not None:
                        out.append(chunk)
                    while total > self.overlap or (total + n + (join_len if current else 0) > self.size and total > 0):
                        total -= self.length(current[0]) + (join_len if len(current) > 1 else 0)
                        current = current[1:]
            current.append(piece)
            total += n + (join_len if len(current) > 1 else 0)
        chunk = self._joined(current, join)
        if chunk is not None:
            out.append(chunk)
        return out


def _py_start_indices(text: str, chunks: List[str], overlap: int) -> List[int]:
    """LangChain's ``start_index``: ``text.find(chunk, max(0, previous + previous length - overlap))``."""
    out = []
    index, previous = 0, 0
    for chunk in chunks:
        index = text.find(chunk, max(0, index + previous - overlap))
        out.append(index)
        previous = len(chunk)
    return out


def _py_spans(text: str, chunks: List[str]) -> List[Tuple[int, int]]:
    """Each chunk's span, found in order (starts never decrease). A chunk that is not a slice of the text (its
    pieces re-joined with another separator) gets an empty span where the search stands."""
    out = []
    pos = 0
    for chunk in chunks:
        start = text.find(chunk, pos)
        if start < 0:
            out.append((pos, pos))
            continue
        out.append((start, start + len(chunk)))
        pos = start
    return out


# ---------------------------------------------------------------------------------------------------------------
# MarkdownHeaderTextSplitter


class MarkdownHeaderTextSplitter:
    """Splits Markdown at the headings you name and records them in metadata (LangChain's
    ``MarkdownHeaderTextSplitter``, line by line, its quirks included: lines are stripped, also in code)."""

    def __init__(
        self,
        headers_to_split_on: List[Tuple[str, str]],
        return_each_line: bool = False,
        strip_headers: bool = True,
        custom_header_patterns: Optional[dict] = None,
    ) -> None:
        self.return_each_line = return_each_line
        self.headers_to_split_on = sorted(headers_to_split_on, key=lambda h: len(h[0]), reverse=True)
        self.strip_headers = strip_headers
        self.custom_header_patterns = custom_header_patterns or {}

    def _custom_header(self, line: str, sep: str) -> bool:
        if sep not in self.custom_header_patterns:
            return False
        e = re.escape(sep)
        m = re.match(f"^{e}(?!{e})(.+?)(?<!{e}){e}$", line)
        if not m:
            return False
        inner = m.group(1).strip()
        return bool(inner) and not all(c in sep for c in inner.replace(" ", ""))

    def split_text(self, text: str) -> List[Document]:
        """The sections of ``text``, each with its headings in ``metadata``."""
        sections: List[Tuple[str, dict]] = []
        content: List[str] = []
        metadata: dict = {}
        headings: dict = {}
        stack: List[Tuple[int, Any]] = []
        fence = ""
        for raw in text.split("\n"):
            line = "".join(c for c in raw.strip() if c.isprintable())
            if not fence:
                if line.startswith("```") and line.count("```") == 1:
                    fence = "```"
                elif line.startswith("~~~"):
                    fence = "~~~"
            elif line.startswith(fence):
                fence = ""
            if fence:
                content.append(line)
                continue
            for sep, name in self.headers_to_split_on:
                standard = line.startswith(sep) and (len(line) == len(sep) or line[len(sep)] == " ")
                custom = self._custom_header(line, sep)
                if not (standard or custom):
                    continue
                if name is not None:
                    level = self.custom_header_patterns[sep] if sep in self.custom_header_patterns else sep.count("#")
                    while stack and stack[-1][0] >= level:
                        popped = stack.pop()[1]
                        headings.pop(popped, None)
                    title = line[len(sep) : -len(sep)].strip() if custom else line[len(sep) :].strip()
                    stack.append((level, name))
                    headings[name] = title
                if content:
                    sections.append(("\n".join(content), metadata.copy()))
                    content.clear()
                if not self.strip_headers:
                    content.append(line)
                break
            else:
                if line:
                    content.append(line)
                elif content:
                    sections.append(("\n".join(content), metadata.copy()))
                    content.clear()
            metadata = headings.copy()
        if content:
            sections.append(("\n".join(content), metadata))
        if self.return_each_line:
            return [Document(page_content=c, metadata=m) for c, m in sections]
        merged: List[List[Any]] = []
        for c, m in sections:
            if merged and merged[-1][1] == m:
                merged[-1][0] += "  \n" + c
            elif (
                merged
                and len(merged[-1][1]) < len(m)
                and merged[-1][0].split("\n")[-1][0] == "#"
                and not self.strip_headers
            ):
                merged[-1][0] += "  \n" + c
                merged[-1][1] = m
            else:
                merged.append([c, m])
        return [Document(page_content=c, metadata=m) for c, m in merged]
