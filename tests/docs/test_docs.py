"""The documentation cannot rot: every python block of README.md and of the site (docs/) runs, the README's commands
are the ones CI runs, every page is in the site's nav, every relative link leads somewhere, and the site builds."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from support.corpus import ROOT
from support.engine_docs import needs_java

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
# A fenced block: its language, then its text, up to the closing fence at the start of a line.
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def blocks(path: Path, lang: str) -> list:
    return [code for found, code in FENCE.findall(path.read_text(encoding="utf-8")) if found == lang]


# Each block runs on its own, in a fresh namespace: a page's examples are self-contained, so any one can be copied.
PYTHON_BLOCKS = [(rel(page), i, code) for page in PAGES for i, code in enumerate(blocks(page, "python"))]
README_SHELL = [line for code in blocks(ROOT / "README.md", "sh") for line in code.splitlines()]


def test_every_page_has_examples_and_the_readme_a_first_one_per_use():
    assert len(PYTHON_BLOCKS) >= 34  # the README's 34 examples moved to the site, none lost
    readme = blocks(ROOT / "README.md", "python")
    assert len(readme) >= 2, "README: a first text, the LangChain import swap"


@pytest.mark.parametrize(
    "page, index, code", PYTHON_BLOCKS, ids=[f"{page}-{index}" for page, index, _ in PYTHON_BLOCKS]
)
def test_python_block_runs(page, index, code, monkeypatch):
    if "import pyarrow" in code:
        pytest.importorskip("pyarrow")  # an optional extra (chunkwise[arrow]); the test extras install it
    # The cluster examples (optional extras too) start a local engine, stopped after the block.
    engines = [name for name in ("ray", "daft", "pyspark") if re.search(rf"^(import|from) {name}\b", code, re.M)]
    for name in engines:
        pytest.importorskip(name)
    if "pyspark" in engines:
        needs_java()
        monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)  # Spark's Python workers: this interpreter
    monkeypatch.chdir(ROOT)  # the examples read samples/ and tests/data/ from the repository's root
    try:
        exec(compile(code, f"{page} python block {index}", "exec"), {"__name__": "__docs__"})
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


# -- the README's commands ----------------------------------------------------------------------------------------


def _command(prefix: str) -> str:
    found = [line for line in README_SHELL if line.startswith(prefix)]
    assert len(found) == 1, f"README must show exactly one '{prefix}...' command, found {found}"
    return found[0]


SETUP = 'pip install . && chunkwise chunk '
TESTS = 'pip install ".[test]" && '


def test_setup_command_chunks_the_sample(tmp_path):
    line = _command(SETUP)
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
    line = _command(TESTS)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert line in ci, ".ci/run must run the README's test command verbatim"


def test_the_site_shows_the_readme_setup_commands():
    page = [line for code in blocks(DOCS / "getting-started.md", "sh") for line in code.splitlines()]
    for prefix in (SETUP, TESTS):
        assert _command(prefix) in page, f"docs/getting-started.md must show the README's '{prefix}...' verbatim"


def test_readme_folder_example_writes_parquet(tmp_path):
    """The README's folder example, run on this repository's own docs/ folder, writes one Parquet row per chunk."""
    pq = pytest.importorskip("pyarrow.parquet")
    (line,) = [x for x in README_SHELL if x.startswith("chunkwise chunk ") and "--out chunks.parquet" in x]
    args = shlex.split(line)[1:]
    out = tmp_path / "chunks.parquet"
    args = [str(out) if a == "chunks.parquet" else a for a in args]
    proc = subprocess.run([sys.executable, "-m", "chunkwise", *args, "--no-progress"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = pq.read_table(out).to_pylist()
    assert {r["strategy"] for r in rows} >= {"markdown"}
    first = next(r for r in rows if r["source"].endswith("getting-started.md"))
    source = (ROOT / first["source"]).read_text(encoding="utf-8")
    assert source[first["start"] : first["end"]] == first["text"]
    assert first["title_path"] == ["Getting started"]


# -- the site's structure -----------------------------------------------------------------------------------------


def nav_pages() -> list:
    """The pages mkdocs.yml's nav lists (the .md paths under its `nav:` key), read without a YAML parser."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:") :]
    return re.findall(r"^\s+-\s+(?:[^:\n]+:\s+)?(\S+\.md)\s*$", nav, re.M)


def test_every_page_is_in_the_nav():
    listed = nav_pages()
    assert len(listed) == len(set(listed)), "a page listed twice in mkdocs.yml's nav"
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert sorted(pages - set(listed)) == [], "pages missing from mkdocs.yml's nav (orphans)"
    assert sorted(set(listed) - pages) == [], "mkdocs.yml's nav lists pages that do not exist"


# [text](target) and ![alt](target), the text possibly over several lines; code spans and blocks are left out.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def links(path: Path) -> list:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`]*`", "", text)
    return LINK.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=[rel(p) for p in PAGES])
def test_relative_links_resolve(page):
    found = links(page)
    broken = []
    for target in found:
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address, or an anchor of the page itself (mkdocs --strict checks the site's anchors)
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            broken.append(target)
        elif page.parent == DOCS or DOCS in page.parents:
            # The site is built from docs/ alone: a link out of it would be broken on the site.
            if DOCS not in path.parents:
                broken.append(f"{target} (outside docs/)")
    assert broken == [], f"{rel(page)}: links to nothing: {broken}"


def test_readme_links_into_the_site():
    targets = {t.split("#", 1)[0] for t in links(ROOT / "README.md")}
    for page in ("docs/getting-started.md", "docs/strategies/index.md", "docs/performance.md",
                 "docs/reference/index.md", "docs/integrations/langchain.md", "docs/ingestion/cli.md"):
        assert page in targets, f"README.md should link to {page}"


# -- the site builds ----------------------------------------------------------------------------------------------


def test_site_builds_strict(tmp_path):
    """`mkdocs build --strict`, as CI runs it: a broken link or anchor, a page out of the nav, or an API reference
    entry griffe cannot load fails it. Then every name chunkwise exports has its entry in the API reference."""
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason='the docs tools are not installed: pip install ".[docs]"')
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    import chunkwise

    html = "".join(p.read_text(encoding="utf-8") for p in (site / "reference").rglob("*.html"))
    anchors = set(re.findall(r'id="(chunkwise\.[^"]+)"', html))
    assert [n for n in chunkwise.__all__ if f"chunkwise.{n}" not in anchors] == []
    assert (site / "perf-ratios.png").is_file() and (site / "inspector.png").is_file()
