"""A drop-in for langchain-text-splitters: the same chunks, byte for byte, computed in Rust.

Change one import::

    from chunkwise.langchain import RecursiveCharacterTextSplitter

and keep everything else. Matched against langchain-text-splitters 1.1.3: constructor arguments, defaults,
validation messages, methods, return types and quirks (chunk sizes are sums of piece sizes, overlap only inside one
merge, oversized last-level pieces returned unstripped, ``start_index`` found with ``str.find``). With
langchain-core installed, the classes subclass LangChain's own ``TextSplitter`` (or ``BaseDocumentTransformer``)
and return its ``Document``; without it, a small ``Document`` of ours with ``page_content`` and ``metadata``.

The separators are found, the pieces measured and merged, and ``start_index`` computed in Rust. A separator regex
outside the subset Rust matches exactly as Python's ``re`` does (see ``rust/core/src/langchain/pyre.rs``) is matched
by ``re`` (``matching.py``), the rest still in Rust. Three cases run a pure-Python loop (``python_loop.py``) instead,
so the answer never differs: a separator with capturing groups of its own (``re.split`` returns the captures as
pieces), a text holding lone surrogates, and a length function returning something other than an ``int``.

The modules: ``_compat`` (LangChain's classes or our stand-ins), ``base`` (``TextSplitter``: arguments and document
methods), ``character`` (the splitters the core computes), ``token`` (``TokenTextSplitter``), ``lengths``
(tokenizer length functions), ``separators`` (per-language lists), ``markdown`` (``MarkdownHeaderTextSplitter``).

One addition, off by default: ``exact_offsets=True`` adds ``metadata["start"]`` and ``metadata["end"]``, the chunk's
true ``str`` span in its text (LangChain's ``start_index`` is -1 or another occurrence on repeated text).
"""

from __future__ import annotations

from chunkwise.langchain._compat import Document, Language
from chunkwise.langchain.base import TextSplitter
from chunkwise.langchain.character import (
    CharacterTextSplitter,
    LatexTextSplitter,
    MarkdownTextSplitter,
    PythonCodeTextSplitter,
    RecursiveCharacterTextSplitter,
)
from chunkwise.langchain.lengths import _HuggingFaceLength, _TiktokenLength
from chunkwise.langchain.log import logger as _logger
from chunkwise.langchain.markdown import MarkdownHeaderTextSplitter
from chunkwise.langchain.token import TokenTextSplitter

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

logger = _logger
"""LangChain's logger, ``langchain_text_splitters.base``."""

LANGCHAIN_VERSION = "1.1.3"
"""The langchain-text-splitters release whose output this module reproduces."""

# Objects pickle and print under the package's name, where they are imported from.
for _cls in (
    CharacterTextSplitter,
    LatexTextSplitter,
    MarkdownHeaderTextSplitter,
    MarkdownTextSplitter,
    PythonCodeTextSplitter,
    RecursiveCharacterTextSplitter,
    TextSplitter,
    TokenTextSplitter,
    _HuggingFaceLength,
    _TiktokenLength,
):
    _cls.__module__ = __name__
if Document.__module__.startswith(__name__):  # our stand-in, when langchain-core is absent
    Document.__module__ = __name__
if Language.__module__.startswith(__name__):
    Language.__module__ = __name__
del _cls
