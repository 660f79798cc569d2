"""How a file is read into what a chunker cuts: opened (regular files only, never the run's own output),
decompressed by its suffix, left out when binary, and decoded: UTF-8, or UTF-16/UTF-32 when the file starts with
that encoding's byte order mark, or ``--encoding``. A leading BOM is never part of the text, so that ``start`` and
``end`` count in the text without it. HTML, PDF and DOCX files are read by :mod:`chunkwise.loaders`."""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import os
import stat
import sys
from pathlib import Path
from typing import IO, Any, Callable, Dict, Optional, Set, Union

from .. import join_pages, loaders
from .files import NO_ZSTD, NOT_REGULAR, UNREADABLE, Identity, Skip


def _zstd(raw: IO[bytes]) -> Any:
    try:
        import zstandard  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raw.close()
        raise Skip(NO_ZSTD, "pip install zstandard") from None
    return zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)


def _owning(make: Callable[[IO[bytes]], Any]) -> Callable[[IO[bytes]], Any]:
    """A decompressor over ``raw`` that closes ``raw`` when it is closed: gzip's, bz2's and lzma's leave a file
    object they were given open, and each file read would keep its descriptor until the garbage collector ran."""

    def open_(raw: IO[bytes]) -> Any:
        try:
            f = make(raw)
        except BaseException:
            raw.close()
            raise
        close = f.close

        def close_both() -> None:
            try:
                close()
            finally:
                raw.close()

        f.close = close_both
        return f

    return open_


#: Decompressors by file suffix (lower case); zstd needs the ``zstandard`` package.
OPENERS: Dict[str, Callable[[IO[bytes]], Any]] = {
    ".gz": _owning(lambda f: gzip.GzipFile(fileobj=f)),
    ".bz2": _owning(bz2.BZ2File),
    ".xz": _owning(lzma.LZMAFile),
    ".zst": _zstd,
}

# The byte order marks of UTF-16 and UTF-32, and the codec that reads past each; UTF-32 LE first, as its BOM begins
# with UTF-16 LE's. None of them can start a valid UTF-8 text, so no UTF-8 file is misread.
WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

#: How much of a file's start is looked at for a NUL byte (binary).
BINARY_HEAD = 8192


def document_name(path: Path) -> str:
    """A file's name without its compression suffix (``guide.md.gz`` -> ``guide.md``): the name that says what the
    file holds."""
    name = path.name
    suffix = path.suffix.lower()
    return name[: len(name) - len(suffix)] if suffix in OPENERS else name


def document_suffix(path: Path) -> str:
    """The suffix that says what a file holds, in lower case (``guide.html.gz`` -> ``.html``)."""
    return Path(document_name(path)).suffix.lower()


def open_file(path: Path, own: Set[Identity]) -> Optional[IO[bytes]]:
    """A binary file object of a regular file (decompressed by its suffix), or None when it is one of ``own``, the
    run's own outputs. Raises :class:`Skip` for anything else."""
    if str(path) == "-":
        return sys.stdin.buffer
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise Skip(NOT_REGULAR, "not a regular file")
        if (info.st_dev, info.st_ino) in own:
            return None
        # O_NONBLOCK: should the path become a FIFO after the stat, open() returns at once instead of waiting for a
        # writer (and reading it gives no bytes); it changes nothing for a regular file.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        raw: IO[bytes] = open(os.open(path, flags), "rb")
    except OSError as exc:
        raise Skip(UNREADABLE, exc.strerror or exc) from None
    opener = OPENERS.get(path.suffix.lower())
    return opener(raw) if opener else raw


def read(path: Path, own: Set[Identity]) -> Optional[bytes]:
    """The (decompressed) bytes of a regular file, or None when it is one of ``own``. Raises :class:`Skip`."""
    f = open_file(path, own)
    if f is None:
        return None
    if f is sys.stdin.buffer:
        return f.read()  # not closed: it is not ours
    try:
        with f:
            return f.read()
    except Exception as exc:  # OSError, EOFError, lzma.LZMAError, zlib.error, zstandard.ZstdError: a corrupt archive
        raise Skip(UNREADABLE, exc) from None


def wide_codec(data: bytes) -> Optional[str]:
    """The codec of the UTF-16 or UTF-32 byte order mark ``data`` starts with, if any: such a text is decoded here
    (the core reads UTF-8), and is full of NUL bytes without being binary."""
    return next((codec for bom, codec in WIDE_BOMS if data.startswith(bom)), None)


def is_binary(data: bytes) -> bool:
    """A NUL byte in the first 8 KiB, and no UTF-16/32 byte order mark."""
    return b"\0" in data[:BINARY_HEAD] and wide_codec(data) is None


def payload(data: bytes, encoding: Optional[str] = None) -> Union[str, bytes]:
    """What a file's bytes are chunked as: the bytes themselves when they should be UTF-8 (the core checks them as
    it chunks them, with no decoded copy made here), else the text decoded here (a UTF-16/32 byte order mark,
    ``encoding``). A leading BOM is not part of either. Raises UnicodeDecodeError."""
    if encoding is not None:
        text = data.decode(encoding)
        return text[1:] if text.startswith("\ufeff") else text
    codec = wide_codec(data)
    if codec is not None:
        return data.decode(codec)
    return data[len(codecs.BOM_UTF8):] if data.startswith(codecs.BOM_UTF8) else data


def decode(data: bytes, encoding: Optional[str] = None) -> str:
    """A file's text (see :func:`payload`). Raises UnicodeDecodeError."""
    text = payload(data, encoding)
    return text if isinstance(text, str) else text.decode("utf-8")


def load(path: Path, data: bytes) -> loaders.Loaded:
    """An HTML, PDF or DOCX file's bytes (``data``, decompressed), read by its loader, chosen by the suffix under
    a compression suffix. Raises MissingLoader, or what the loader raises on a file it cannot parse."""
    return loaders.load(path.with_name(document_name(path)), data)


def loaded_text(loaded: loaders.Loaded) -> str:
    """The text of a loaded document: a PDF's pages joined with page breaks (see :func:`chunkwise.join_pages`)."""
    return join_pages(loaded.pages) if loaded.pages is not None else loaded.text


class Prefixed:
    """A binary reader that gives ``start`` (bytes already read from ``rest``), then the rest of ``rest``."""

    def __init__(self, start: bytes, rest: Any) -> None:
        self.start, self.rest = start, rest

    def read(self, size: int = -1) -> bytes:
        if self.start:
            if size is None or size < 0:
                out, self.start = self.start + self.rest.read(), b""
                return out
            out, self.start = self.start[:size], self.start[size:]
            return out
        return bytes(self.rest.read(size))
