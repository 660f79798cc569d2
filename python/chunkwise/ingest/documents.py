"""Which documents a run reads and how, as ``chunkwise chunk`` reads them (:mod:`chunkwise.cli.files`,
:mod:`chunkwise.cli.reading`): folders walked, regular files only, decompressed by suffix, binary files left out,
UTF-8 or a UTF-16/32 byte order mark, HTML, PDF and DOCX by their loaders."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import AbstractSet, Any, FrozenSet, List, Optional, Sequence, TextIO, Tuple

from .. import loaders
from ..cli import reading
from ..cli.files import BINARY, NO_LOADER, NOT_DECODED, NOT_TEXT, UNREADABLE, Problems, Skip

__all__ = ["Document", "Problems", "Reported", "doc_id_of", "decode", "read_bytes"]


def doc_id_of(path: Path) -> str:
    """A document's id: its path as given (the folder given, then the path under it), normalized (``./a/../b`` ->
    ``b``), with ``/``. The id is part of every chunk id: run from the same folder with the same paths, a tree keeps
    its ids."""
    return Path(os.path.normpath(path)).as_posix()


class _Discard:
    """Where the lines of a run without ``log`` go."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


class Reported(Problems):
    """Every file left out, named on ``stream`` (if any) when it happens, and kept as ``(path, why)`` for the run's
    report."""

    def __init__(self, stream: Optional[TextIO]) -> None:
        super().__init__(stream if stream is not None else _Discard())  # type: ignore[arg-type]
        self.items: List[Tuple[str, str]] = []

    def add(self, reason: Tuple[str, str], path: object, detail: object) -> None:
        super().add(reason, path, detail)
        if reason not in {BINARY}:
            self.items.append((str(path), f"{reason[0]} ({reason[1]}): {detail}"))


@dataclass
class Document:
    """A file read: its id, path and (decompressed) bytes; its text once decoded."""

    doc_id: str
    path: Path
    data: bytes
    text: Optional[str] = None
    pages: Optional[List[str]] = None
    markdown: bool = False
    #: its lines that are the tree's boilerplate, its running heads and feet (a paged document's), the ids of its
    #: chunks cut from its runs of boilerplate lines, and the ids of its chunks flagged
    boilerplate: FrozenSet[int] = frozenset()
    furniture: FrozenSet[int] = frozenset()
    cut: AbstractSet[str] = frozenset()
    flagged: AbstractSet[str] = frozenset()
    #: a document chunked as its rows are written rather than all at once (see ``run._Stream``), or None
    stream: Any = None


def read_bytes(path: Path, problems: Problems) -> Optional[bytes]:
    """The (decompressed) bytes of a regular file, or None (reported) for a file left out."""
    try:
        data = reading.read(path, set())
    except Skip as skip:
        problems.add(skip.reason, path, skip)
        return None
    if data is not None and reading.document_suffix(path) not in loaders.SUFFIXES and reading.is_binary(data):
        problems.add(BINARY, path, "binary")
        return None
    return data


def decode(doc: Document, encoding: Optional[str], problems: Problems) -> bool:
    """Fills in the document's text (or pages) by its loader or its encoding; False (reported) when it cannot."""
    path = doc.path
    try:
        if reading.document_suffix(path) in loaders.SUFFIXES:
            loaded = reading.load(path, doc.data)
            doc.text, doc.pages, doc.markdown = reading.loaded_text(loaded), loaded.pages, loaded.markdown
        else:
            doc.text = reading.decode(doc.data, encoding)
    except loaders.MissingLoader as exc:
        problems.add(NO_LOADER, path, exc)
        return False
    except UnicodeDecodeError as exc:
        problems.add(NOT_DECODED if encoding else NOT_TEXT, path, exc)
        return False
    except Exception as exc:  # a file its loader cannot parse: named, and the run goes on
        problems.add(UNREADABLE, path, f"cannot read as {reading.document_suffix(path)[1:].upper()}: {exc}")
        return False
    return True


def given_roots(paths: Sequence[Any]) -> List[str]:
    """The ids of the paths given: a stored document under one of them (or one of them) that the run did not find
    is gone from the tree."""
    return [doc_id_of(Path(p)) for p in paths]
