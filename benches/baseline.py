"""The command line's throughput and peak memory against another git ref of chunkwise, in the same run: the check
that a change to the outputs does not regress them.

    python benches/baseline.py build REF [--dir DIR]      # a worktree of REF with its extension built; prints its python/
    python benches/baseline.py compare BASELINE_PYTHON [--rounds 3] [--copies 4] [--impls jsonl,parquet]

``build`` makes a git worktree of REF (under ``~/.cache/chunkwise-baseline/<sha>`` unless ``--dir``), builds its
extension with ``cargo build --release -p chunkwise-python`` (the profile ``pip install .`` builds: compare it with
a checkout built the same way) and copies it next to its Python package. ``compare`` runs ``cli_run.py`` (the
``chunkwise chunk`` run of ``test_bench_cli.py``: a folder of ``--copies`` copies of every corpus text file, 512
chars) for each impl, this checkout's package (``python/`` beside this file, or whatever ``import chunkwise`` finds
when that has no built extension) and the baseline's, interleaved round by round so that both see the same load,
each in a fresh process with ``PYTHONPATH`` set to its package; it prints the median of the rounds and the ratios
(this checkout over the baseline). Set ``CHUNKWISE_BASELINE`` to the baseline's python/ and ``test_bench_cli.py``
runs the same comparison once, inside the benchmark session.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPT = HERE / "cli_run.py"


def build(ref: str, where: Path | None) -> Path:
    sha = subprocess.run(["git", "rev-parse", ref], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    tree = where or Path.home() / ".cache" / "chunkwise-baseline" / sha
    if not (tree / ".git").exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), sha], cwd=ROOT, check=True)
    subprocess.run(["cargo", "build", "--release", "-p", "chunkwise-python", "--target-dir", str(tree / "target")],
                   cwd=tree, check=True)
    lib = tree / "target" / "release" / "lib_core.so"
    (tree / "python" / "chunkwise" / "_core.abi3.so").write_bytes(lib.read_bytes())
    return tree / "python"


def current_python() -> Path | None:
    """This checkout's package when its extension is built in place, else None (the installed one)."""
    package = ROOT / "python" / "chunkwise"
    return ROOT / "python" if any(package.glob("_core*.so")) else None


def run_once(impl: str, python: Path | None, copies: int) -> dict:
    env = dict(os.environ)
    if python is not None:
        env["PYTHONPATH"] = str(python)
    out = subprocess.run([sys.executable, str(SCRIPT), "--impl", impl, "--copies", str(copies), "--json"],
                         capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"{impl} ({python}): {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(baseline: Path, impls: list, rounds: int, copies: int) -> list:
    current = current_python()
    rows = []
    for impl in impls:
        runs: dict = {"current": [], "baseline": []}
        for _ in range(rounds):
            runs["current"].append(run_once(impl, current, copies))
            runs["baseline"].append(run_once(impl, baseline, copies))
        row = {"impl": impl, "rounds": rounds}
        for side, results in runs.items():
            row[f"{side}_MBps"] = statistics.median(r["MBps"] for r in results)
            row[f"{side}_multiple"] = statistics.median(r["multiple"] for r in results)
            row[f"{side}_MBps_runs"] = [r["MBps"] for r in results]
            # CPU time of all threads: on a loaded machine, what the run costs whatever the load.
            row[f"{side}_cpu_seconds"] = statistics.median(r["cpu_seconds"] for r in results)
        row["speed_ratio"] = round(row["current_MBps"] / row["baseline_MBps"], 2)
        row["cpu_ratio"] = round(row["current_cpu_seconds"] / row["baseline_cpu_seconds"], 2)
        row["peak_ratio"] = round(row["current_multiple"] / row["baseline_multiple"], 2)
        row["bytes"] = runs["current"][0]["bytes"]
        rows.append(row)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("ref")
    b.add_argument("--dir", type=Path, default=None)
    c = sub.add_parser("compare")
    c.add_argument("baseline", type=Path)
    c.add_argument("--rounds", type=int, default=3)
    c.add_argument("--copies", type=int, default=4)
    c.add_argument("--impls", default="jsonl,parquet")
    c.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.command == "build":
        print(build(a.ref, a.dir))
        return 0
    rows = compare(a.baseline, a.impls.split(","), a.rounds, a.copies)
    if a.json:
        print(json.dumps(rows))
        return 0
    print(f"| impl | MB/s, this checkout | MB/s, baseline | speed ratio | CPU ratio | peak / largest file, this | "
          f"baseline | peak ratio |  (median of {a.rounds}, {rows[0]['bytes'] / 1e6:.1f} MB)")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['impl']} | {r['current_MBps']} | {r['baseline_MBps']} | {r['speed_ratio']} | {r['cpu_ratio']} | "
              f"{r['current_multiple']} | {r['baseline_multiple']} | {r['peak_ratio']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
