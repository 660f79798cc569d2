"""``MarkdownHeaderTextSplitter``: LangChain's line-by-line Markdown header splitter."""

from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple

from chunkwise.langchain._compat import Document

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
