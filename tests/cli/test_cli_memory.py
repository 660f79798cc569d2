"""How the command line keeps its memory bounded (issue 15): the core's allocator gives back what a batch freed,
and the command's own process has glibc return big blocks (a file's bytes) when they are freed. Each check runs in
a fresh interpreter, with a control run that shows the memory kept without the measure (else the check skips:
nothing to show on that allocator)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from support.corpus import ROOT


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")

RSS = """
import os
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
"""


def kept_mib(script: str, *args: str) -> float:
    """Runs ``script`` (which prints a number of bytes) in a fresh interpreter; that number in MiB."""
    out = subprocess.run([sys.executable, "-c", RSS + textwrap.dedent(script), *args], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1]) / 2**20


def test_the_command_has_glibc_return_freed_file_bytes():
    pytest.importorskip("ctypes")
    script = """
        import sys
        from chunkwise._heap import settle
        if sys.argv[1] == "settled":
            settle()
        del bytearray(12 << 20)[:]  # a freed big block: glibc raises its mmap threshold past the next ones
        base = rss()
        for _ in range(3):
            data = bytearray(b"x") * (6 << 20)  # a file of 6 MiB read, chunked, let go
            del data
        print(rss() - base)
    """
    control = kept_mib(script, "default")
    if control < 4:
        pytest.skip(f"this C library keeps {control:.1f} MiB of a freed 6 MiB block anyway")
    assert kept_mib(script, "settled") < 1


def test_release_memory_gives_back_what_a_batch_freed():
    script = """
        import io, sys
        import chunkwise
        from chunkwise import _core
        from chunkwise.cli.outputs import FIELDS
        text = ("A sentence of a document, cut into chunks. " * 40 + "\\n\\n") * 12_000
        splitter = chunkwise.RecursiveChunker(512)._splitter
        lines = _core.JsonLines(list(FIELDS))
        base = rss()
        lines.write_batch(splitter, [text.encode()], ["doc"], io.BytesIO())  # the lines, dropped with the BytesIO
        if sys.argv[1] == "released":
            _core._release_memory()
        print(rss() - base)
    """
    control = kept_mib(script, "kept")
    if control < 4:
        pytest.skip(f"the allocator kept only {control:.1f} MiB without being asked")
    assert kept_mib(script, "released") < control / 2


def test_the_console_script_settles_the_heap():
    from chunkwise.cli import run

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'chunkwise = "chunkwise.cli:run"' in pyproject
    assert run.__module__ == "chunkwise.cli"


def test_ingestion_has_the_core_allocator_give_memory_back_at_once_for_its_run_only(monkeypatch):
    from chunkwise import _core, _heap

    monkeypatch.delenv("MIMALLOC_PURGE_DELAY", raising=False)
    before = _core._purge_delay(250)
    try:
        with _heap.prompt():
            assert _core._purge_delay(0) == 0
        assert _core._purge_delay(250) == 250  # as it was
        monkeypatch.setenv("MIMALLOC_PURGE_DELAY", "250")  # the user's setting is kept
        with _heap.prompt():
            assert _core._purge_delay(250) == 250
    finally:
        _core._purge_delay(before)
