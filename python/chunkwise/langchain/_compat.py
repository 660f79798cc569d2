"""LangChain's own ``TextSplitter``, ``Document`` and ``Language`` when installed; small stand-ins of ours when not."""

from __future__ import annotations

import enum
from typing import Optional

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
