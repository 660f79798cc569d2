"""Ctrl-C stops a long call: KeyboardInterrupt within moments, not after the whole split (issue 12, defect 14)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from chunkwise import MarkdownChunker, RecursiveChunker, Tokenizer

# Runs in a fresh process: SIGINT while a batch that would take hours is split. Without the check the process runs
# until the test's timeout (a hang, not a timing: the passing run takes a fraction of a second). The signal is sent
# once the main thread is inside the call (a signal before it would stop Python, not chunkwise).
SCRIPT = """
import os, signal, sys, threading, time
import chunkwise
text = "Some words in a sentence. " * 12_000  # 300 KB
texts = [text] * 1_000_000  # 300 GB of work: hours on any machine
call = getattr(chunkwise.RecursiveChunker(512)._splitter, sys.argv[1])
main = threading.main_thread().ident

def interrupt(line):
    while sys._current_frames()[main].f_lineno != line:
        time.sleep(0.01)
    time.sleep(0.3)
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=interrupt, args=(sys._getframe().f_lineno + 2,), daemon=True).start()
try:
    call(texts)
except KeyboardInterrupt:
    print("interrupted")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to oneself")
@pytest.mark.parametrize("method", ["chunk_batch", "spans_batch"])
def test_ctrl_c_stops_a_batch(method):
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT), method], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "interrupted" and done.stderr == ""


class _Counter:
    """A token counter that raises KeyboardInterrupt (as Python's SIGINT handler would, inside it) on call `at`."""

    def __init__(self, at):
        self.at, self.calls = at, 0

    def __call__(self, text):
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return len(text.split())


@pytest.mark.parametrize("make", [RecursiveChunker, MarkdownChunker])
@pytest.mark.parametrize("batch", [False, True])
def test_an_exception_in_a_tokenizer_callable_stops_the_split(make, batch):
    text = "Some words in a sentence. " * 4_000
    counter = _Counter(at=200)
    chunker = make(16, tokenizer=Tokenizer.from_callable(counter))
    with pytest.raises(KeyboardInterrupt):
        chunker.chunk_batch([text, text]) if batch else chunker.chunk(text)
    # The split stopped within a few chunks of the exception, not after the thousands of calls of the whole text.
    assert counter.calls < 400
    # ...and the splitter works afterwards.
    counter.at = -1
    assert len(chunker.split("One two three.")) == 1
