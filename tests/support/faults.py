"""Killing an engine's worker process in the middle of a job, from the test: :class:`Killer` watches the process
table from a thread and sends SIGKILL to worker processes as soon as they run (by pid, as an OOM killer or a lost
machine would end them)."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Callable, List, Optional, Tuple


def process(pid: int) -> Tuple[Optional[str], Optional[int]]:
    """A process's command line (its arguments joined by spaces; a Ray worker's is its task's title) and its
    parent's pid, or (None, None) once it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        with open(f"/proc/{pid}/stat") as f:
            ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        return cmd, ppid
    except (OSError, ValueError, IndexError):
        return None, None


def pids(match: Callable[[int, str, int], bool]) -> List[int]:
    """The pids of the live processes for which ``match(pid, command line, parent pid)`` holds."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            cmd, ppid = process(int(name))
            if cmd and ppid is not None and match(int(name), cmd, ppid):
                out.append(int(name))
    return out


def ray_task_worker(pid: int, cmd: str, ppid: int) -> bool:
    """A Ray worker process running a task of a Dataset's map step (Ray titles it ``ray::...MapBatches(...)``)."""
    return cmd.startswith("ray::") and "MapBatches" in cmd


def spark_python_worker(pid: int, cmd: str, ppid: int) -> bool:
    """A Python worker of Spark: a process forked by the ``pyspark.daemon`` (not the daemon itself)."""
    if "pyspark.daemon" not in cmd:
        return False
    parent, _ = process(ppid)
    return parent is not None and "pyspark.daemon" in parent


def spark_executor(driver: int, worker: int) -> Optional[int]:
    """The executor whose Python worker is the process ``worker``, if it is an executor JVM of the standalone
    cluster whose driver is the JVM ``driver`` (its workers run in that JVM and launch their executors as its
    children: ``CoarseGrainedExecutorBackend`` on their command line), else None. Executors of other clusters on
    the machine (another test run's) are never named."""
    _, daemon = process(worker)
    _, executor = process(daemon) if daemon else (None, None)
    cmd, parent = process(executor) if executor else (None, None)
    if cmd is None or parent != driver or "CoarseGrainedExecutorBackend" not in cmd:
        return None
    return executor


class Killer:
    """Kills up to ``times`` processes that ``match``, each once it has run for ``after`` seconds, while a job runs
    (``with Killer(...) as k: job()``); ``k.killed`` lists their pids. ``target``: the process to kill for a
    matched one (the executor of a Python worker seen at work, say; None: none), the matched one itself by
    default."""

    def __init__(self, match: Callable[[int, str, int], bool], times: int = 1, after: float = 0.2,
                 target: Optional[Callable[[int], Optional[int]]] = None) -> None:
        self.match, self.times, self.after = match, times, after
        self.target = target or (lambda pid: pid)
        self.killed: List[int] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Killer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _run(self) -> None:
        seen: dict = {}
        while not self._done.is_set() and len(self.killed) < self.times:
            now = time.monotonic()
            for pid in pids(self.match):
                if pid in self.killed:
                    continue
                first = seen.setdefault(pid, now)
                if now - first >= self.after:
                    victim = self.target(pid)
                    if victim is None or victim in self.killed:
                        continue
                    try:
                        os.kill(victim, signal.SIGKILL)
                    except ProcessLookupError:
                        continue
                    self.killed.append(victim)
                    break
            time.sleep(0.01)
