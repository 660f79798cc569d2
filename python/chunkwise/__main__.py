"""``python -m chunkwise``: the ``chunkwise`` command (see :mod:`chunkwise.cli`)."""

# main: also for programs that call chunkwise.__main__.main, as they did when the command lived here.
from chunkwise.cli import main, run

__all__ = ["main", "run"]

if __name__ == "__main__":
    raise SystemExit(run())
