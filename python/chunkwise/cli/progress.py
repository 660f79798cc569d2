"""What a command shows of its progress on stderr while it runs: :class:`Progress`, a bar of the files and bytes
done (``chunkwise chunk``), and :class:`StatusLine`, a line that names the step at hand (``chunkwise eval``,
``chunkwise bench``, and :func:`chunkwise.evaluation.evaluate` with ``progress``)."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


class Progress:
    """A one-line progress bar on stderr, shown only when stderr is a terminal (or with ``--progress``): the share
    of the input's bytes (on disk) done, which moves inside a big file too, and the files done."""

    def __init__(self, files: int, total_bytes: int, stream: TextIO, enabled: bool) -> None:
        self.files, self.total, self.stream, self.enabled = files, total_bytes, stream, enabled
        self.done_files = self.done_bytes = self.inside = 0
        self.last = 0.0

    def advance(self, files: int, nbytes: int) -> None:
        """``files`` more files done, of ``nbytes`` bytes on disk."""
        self.done_files += files
        self.done_bytes += nbytes
        self.inside = 0
        self.show(force=True)

    def within(self, nbytes: int) -> None:
        """``nbytes`` of the current (big) file done."""
        self.inside = nbytes
        self.show()

    def show(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.1:
            return
        self.last = now
        width = 30
        done = min(self.done_bytes + self.inside, self.total)
        filled = width * done // max(self.total, 1)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done_files}/{self.files} files, "
            f"{done / 1e6:.1f}/{self.total / 1e6:.1f} MB"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")


class StatusLine:
    """One line on stderr that each :meth:`show` rewrites in place, shown only when ``enabled`` (default: when
    stderr is a terminal); :meth:`clear` blanks it, so that what is printed next starts on a clean line."""

    #: The line is padded to this width, so that a shorter line hides the end of a longer one before it.
    WIDTH = 70

    def __init__(self, prefix: str, enabled: Optional[bool] = None) -> None:
        self.prefix = prefix
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def show(self, what: str) -> None:
        if self.enabled:
            print(f"\r{self.prefix}: {what}".ljust(self.WIDTH), end="", file=sys.stderr, flush=True)

    def clear(self) -> None:
        if self.enabled:
            print("\r".ljust(self.WIDTH + 1) + "\r", end="", file=sys.stderr, flush=True)
