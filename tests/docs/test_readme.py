"""README.md is the front door: every python block in it runs, and its commands are the ones CI runs."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest
from support.corpus import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.S)
PYTHON_BLOCKS = [code for lang, code in BLOCKS if lang == "python"]
SHELL_LINES = [line for lang, code in BLOCKS if lang == "sh" for line in code.splitlines()]


def test_readme_has_python_examples():
    assert len(PYTHON_BLOCKS) >= 6


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_block_runs(index, monkeypatch):
    code = PYTHON_BLOCKS[index]
    if "import pyarrow" in code:
        pytest.importorskip("pyarrow")  # an optional extra (chunkwise[arrow]); the test extras install it
    # The cluster examples (optional extras too) start a local engine, stopped after the block.
    engines = [name for name in ("ray", "daft", "pyspark") if re.search(rf"^(import|from) {name}\b", code, re.M)]
    for name in engines:
        pytest.importorskip(name)
    if "pyspark" in engines:
        monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)  # Spark's Python workers: this interpreter
    monkeypatch.chdir(ROOT)
    try:
        exec(compile(code, f"README.md python block {index}", "exec"), {"__name__": "__readme__"})
    finally:
        _stop_engines(engines)


def _stop_engines(engines) -> None:
    if "ray" in engines:
        import ray

        ray.shutdown()
    if "pyspark" in engines:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
        if session is not None:
            session.stop()


def _command(prefix: str) -> str:
    found = [line for line in SHELL_LINES if line.startswith(prefix)]
    assert len(found) == 1, f"README must show exactly one '{prefix}...' command, found {found}"
    return found[0]


def test_setup_command_chunks_the_sample(tmp_path):
    line = _command("pip install . && chunkwise chunk ")
    args = shlex.split(line.split("&&", 1)[1])
    assert args[0] == "chunkwise"
    out = tmp_path / "chunks.jsonl"
    args = [str(out) if a == "chunks.jsonl" else a for a in args[1:]]
    proc = subprocess.run(
        [sys.executable, "-m", "chunkwise", *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "1 document," in proc.stderr and "MB/s" in proc.stderr
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    source = (ROOT / "samples" / "sample.md").read_text(encoding="utf-8")
    assert len(records) > 5
    for r in records:
        assert source[r["start"] : r["end"]] == r["text"]
        assert r["size"] <= 256


def test_ci_runs_the_readme_test_command():
    line = _command('pip install ".[test]" && ')
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert line in ci, ".ci/run must run the README's test command verbatim"
