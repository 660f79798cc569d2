"""The process's C heap: glibc's settings and trims, in one place (the command and ingestion use them).

Only glibc is touched (on Linux, looked up once); with another C library these do nothing."""

from __future__ import annotations

import ctypes
import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from . import _core

#: glibc's ``M_MMAP_THRESHOLD`` (malloc.h), and the value the command sets it to.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 1 << 20

#: glibc, once looked up (False: another C library, or not Linux).
_libc: Any = None


def glibc() -> Any:
    """glibc's functions, or None where the C library is another (whose ``mallopt`` takes other numbers)."""
    global _libc
    if _libc is None:
        _libc = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None)
                libc.gnu_get_libc_version  # glibc only
                _libc = libc
            except (OSError, AttributeError):
                pass
    return _libc or None


def settle() -> None:
    """Has glibc give every block of 1 MiB or more (a file's bytes, a decompressed file) memory of its own, returned
    to the OS when the block is freed. By default glibc raises that threshold each time such a block is freed, up to
    32 MiB; the files of batch after batch then come from the heap, and the freed ones stay resident: a folder of
    5 MB files held about twice the memory. Only the ``chunkwise`` command calls this, in a process of its own; a
    program's allocator is left alone."""
    libc = glibc()
    if libc is not None:
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def release() -> None:
    """Memory freed back to the OS now: the core's (mimalloc), and glibc's free blocks in the heaps of every thread
    (``malloc_trim``). Threads each allocate from a heap of their own, and glibc keeps what one freed resident while
    another works: in ingestion, the peaks of a batch's cut and of the one before's write stack. This returns what
    is free and changes no setting. It costs a few milliseconds a call, and the pages faulted in again."""
    _core._release_memory()
    libc = glibc()
    if libc is not None:
        libc.malloc_trim(0)


@contextmanager
def prompt() -> Iterator[None]:
    """Within: the core's allocator gives memory back to the OS as soon as it is freed, rather than after its purge
    delay (then the delay as it was). For ingestion, whose threads each free what another allocated: with the delay,
    what one step freed stayed resident under the next. The price is system calls, a few percent of the CPU time.
    A ``MIMALLOC_PURGE_DELAY`` set by the user is kept."""
    if "MIMALLOC_PURGE_DELAY" in os.environ:
        yield
        return
    before = _core._purge_delay(0)
    try:
        yield
    finally:
        _core._purge_delay(before)
