"""Which files a run reads: the paths given, folders walked (``--include``, ``--exclude``, ``--hidden``,
``--follow-links``), and the account of every file or folder left out and why (:class:`Problems`)."""

from __future__ import annotations

import fnmatch
import os
from collections import Counter
from pathlib import Path
from typing import Iterator, List, Sequence, Set, TextIO, Tuple

#: A file's identity: (device, inode), the same for every spelling of its path and for its hard links.
Identity = Tuple[int, int]

# Why a file was left out: (what happened, why), one summary line each.
NOT_REGULAR = ("skipped", "not a regular file")
UNREADABLE = ("skipped", "cannot read")
NOT_TEXT = ("skipped", "not UTF-8")
NOT_DECODED = ("skipped", "cannot decode")
BINARY = ("skipped", "binary")
NO_LOADER = ("skipped", "no loader installed")
NO_ZSTD = ("skipped", "zstd needs the zstandard package")
HIDDEN = ("left out", "hidden names, files and folders (--hidden reads them)")
LINKED = ("left out", "linked folders (--follow-links walks them)")
FAILED = ("failed", "chunking error")

#: Reasons counted in the summary only: not named file by file, and not a failure of the run.
QUIET = {BINARY, HIDDEN, LINKED}


class Problems:
    """Every file or folder left out: named on stderr when it happens, counted by reason for the summary."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.counts: Counter = Counter()

    def add(self, reason: Tuple[str, str], path: object, detail: object) -> None:
        self.counts[reason] += 1
        if reason not in QUIET:
            print(f"chunkwise: {reason[0]} {path}: {detail}", file=self.stream)

    def summary(self) -> List[str]:
        return [f"chunkwise: {n} {done}: {why}" for (done, why), n in self.counts.items()]

    def failed(self) -> bool:
        """Whether anything went wrong (binary files left out are not a failure)."""
        return any(reason not in QUIET for reason in self.counts)


class Skip(Exception):
    """A file that is not read, and why (one of the reasons above)."""

    def __init__(self, reason: Tuple[str, str], detail: object) -> None:
        super().__init__(detail)
        self.reason = reason


class Filter:
    """Which files found in a folder are read: ``--include``/``--exclude`` glob patterns, matched against the path
    relative to the folder given (with ``/``) and against the name; hidden names only with ``--hidden``."""

    def __init__(self, include: Sequence[str], exclude: Sequence[str], hidden: bool) -> None:
        self.include, self.exclude, self.hidden = list(include), list(exclude), hidden

    @staticmethod
    def _matches(patterns: Sequence[str], rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p) for p in patterns)

    def is_hidden(self, rel: str) -> bool:
        """A name starting with a dot, left out without ``--hidden``."""
        return not self.hidden and rel.rsplit("/", 1)[-1].startswith(".")

    def folder(self, rel: str) -> bool:
        return not self.is_hidden(rel) and not self._matches(self.exclude, rel)

    def file(self, rel: str) -> bool:
        if self.is_hidden(rel):
            return False
        if self.include and not self._matches(self.include, rel):
            return False
        return not self._matches(self.exclude, rel)


def walk(paths: Sequence[str], problems: Problems, keep: Filter, follow: bool) -> Iterator[Path]:
    """Each path given, and every file under a folder that ``keep`` takes, in a stable order. A folder that cannot
    be listed is reported (``os.walk`` drops it silently unless asked), whether it is given or found. With
    ``follow``, linked folders are walked too, each folder once (a link loop would never end)."""

    def unreadable(exc: OSError) -> None:
        problems.add(UNREADABLE, exc.filename, f"cannot list folder: {exc.strerror or exc}")

    for raw in paths:
        path = Path(raw)
        if raw == "-" or not path.is_dir():
            yield path  # anything else is checked when read: a missing file or a FIFO is reported there
            continue
        seen: Set[Identity] = set()
        for root, dirs, files in os.walk(path, onerror=unreadable, followlinks=follow):
            if follow:
                info = os.stat(root)
                if (info.st_dev, info.st_ino) in seen:
                    dirs[:] = []
                    continue
                seen.add((info.st_dev, info.st_ino))
            rel_root = Path(root).relative_to(path).as_posix()
            prefix = "" if rel_root == "." else rel_root + "/"
            for name in [*dirs, *files]:
                if keep.is_hidden(prefix + name):  # counted in the summary, as is what follows
                    problems.add(HIDDEN, Path(root) / name, "hidden")
            dirs[:] = sorted(d for d in dirs if keep.folder(prefix + d))
            if not follow:
                for d in dirs:
                    if os.path.islink(os.path.join(root, d)):
                        problems.add(LINKED, Path(root) / d, "linked folder")
            for name in sorted(files):
                if keep.file(prefix + name):
                    yield Path(root) / name


def disk_size(path: Path) -> int:
    """The size of a file on disk (0 for standard input, or a file that cannot be read: that is reported when it
    is read)."""
    try:
        return 0 if str(path) == "-" else os.stat(path).st_size
    except OSError:
        return 0
