"""Separators matched by Python's ``re``, for the patterns the core does not translate: the core asks where they
match and does the splitting, merging and ``start_index`` itself."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple


class _PyMatches:
    """``re.search`` and ``re.finditer`` of each separator, with the patterns LangChain passes to ``re``: escaped
    unless ``is_separator_regex``, and wrapped in a group for ``re.split`` when separators are kept. Patterns are
    compiled when first used, so an invalid one raises ``re.error`` where LangChain's would."""

    def __init__(self, separators: List[str], is_regex: bool, keep_separator: Any) -> None:
        self.separators = list(separators)
        self.is_regex = bool(is_regex)
        self.keep = bool(keep_separator)
        self._search: Dict[int, "re.Pattern[str]"] = {}
        self._split: Dict[int, "re.Pattern[str]"] = {}

    def _pattern(self, i: int) -> str:
        sep = self.separators[i]
        return sep if self.is_regex else re.escape(sep)

    def search(self, i: int, hay: str) -> bool:
        """``re.search(separator, hay)``, as LangChain picks a separator."""
        pattern = self._search.get(i)
        if pattern is None:
            pattern = self._search[i] = re.compile(self._pattern(i))
        return pattern.search(hay) is not None

    def find_all(self, i: int, hay: str) -> Optional[List[Tuple[int, int]]]:
        """The spans ``re.split`` cuts ``hay`` at; None when the pattern has capturing groups of its own, whose
        captures ``re.split`` returns as pieces too."""
        pattern = self._split.get(i)
        if pattern is None:
            source = self._pattern(i)
            pattern = self._split[i] = re.compile(f"({source})" if self.keep else source)
        if pattern.groups != int(self.keep):
            return None
        return [m.span() for m in pattern.finditer(hay)]
