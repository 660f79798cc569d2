"""A griffe extension for the API reference: the docstrings' reST roles (:class:`Chunk`, :meth:`chunk`) as code.

The docstrings are written for ``help()`` and IDEs, in reST's inline roles; Markdown would show the role's name.
This keeps their words and drops the role (``~`` included), so the reference reads as the docstring does.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|attr|mod|data|exc|obj|const):`~?([^`]+)`")


class ReSTRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
