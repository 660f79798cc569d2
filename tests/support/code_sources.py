"""Source code for CodeChunker's tests and benchmarks: real files of each language, the tree-sitter grammar of each
language from its PyPI wheel (for the independent reader and the peers), and adversarial texts.

The real files: sources that the test environment has on any machine of this project's kind (matplotlib's
JavaScript, the grammar crates' ``grammar.js`` and the Rust crates of Cargo.lock in cargo's registry after the
build, this repository's own Rust, the corpus's code.py in tests/data), files the machine may have (npm's
TypeScript declarations, a JDK's ``src.zip``, Go in git's contrib), and samples under tests/data/code written for
these tests for the languages no installed package ships.
"""

from __future__ import annotations

import glob
import os
import sys
import zipfile
from pathlib import Path
from typing import Dict, List, Tuple

from support.corpus import ROOT

CODE = ROOT / "tests" / "data" / "code"
CARGO_HOME = Path(os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo")))

# chunkwise's language name -> the grammar's wheel (module, function returning the language capsule)
GRAMMARS: Dict[str, Tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "rust": ("tree_sitter_rust", "language"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
}


def grammar_capsule(language: str) -> object:
    """The grammar's language capsule from its wheel (ImportError when the wheel is missing)."""
    import importlib

    module, attr = GRAMMARS[language]
    return getattr(importlib.import_module(module), attr)()


def _cargo_lock_crates() -> Dict[str, str]:
    import tomllib

    lock = tomllib.loads((ROOT / "Cargo.lock").read_text(encoding="utf-8"))
    return {p["name"]: p["version"] for p in lock["package"]}


def _registry(crate: str, rel: str) -> List[Path]:
    version = _cargo_lock_crates().get(crate)
    if version is None:
        return []
    return [Path(p) for p in sorted(glob.glob(str(CARGO_HOME / "registry" / "src" / "*" / f"{crate}-{version}" / rel)))]


def _site_packages(rel: str) -> List[Path]:
    return [Path(p) for base in sys.path if base.endswith("site-packages") for p in sorted(glob.glob(f"{base}/{rel}"))]


def _jdk_sources(names: List[str]) -> List[Tuple[str, str]]:
    for z in sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip")):
        try:
            with zipfile.ZipFile(z) as zf:
                found = {}
                for entry in zf.namelist():
                    for n in names:
                        if entry.endswith("/" + n):
                            found[n] = (f"{z}:{entry}", zf.read(entry).decode("utf-8"))
                if found:
                    return [found[n] for n in names if n in found]
        except (OSError, zipfile.BadZipFile):
            continue
    return []


def sources() -> List[Tuple[str, str, str]]:
    """(language, where, text) of every real file, each text once."""
    out: List[Tuple[str, str, str]] = []

    def add(language: str, paths: List[Path], limit: int = 6) -> None:
        # (files of a few lines, such as a declaration file of one export, define nothing worth checking)
        for p in [p for p in paths if p.stat().st_size > 2000][:limit]:
            out.append((language, str(p), p.read_text(encoding="utf-8")))

    add("python", [ROOT / "tests" / "data" / "code.py"])
    add("javascript", _site_packages("matplotlib/backends/web_backend/js/*.js"), 3)
    grammars = [
        ("tree-sitter-javascript", "grammar.js"),
        ("tree-sitter-typescript", "common/define-grammar.js"),
        ("tree-sitter-rust", "grammar.js"),
        ("tree-sitter-python", "grammar.js"),
    ]
    add("javascript", [p for crate, rel in grammars for p in _registry(crate, rel)])
    add("javascript", [CODE / "nbagg_mpl.js"])
    add("typescript", sorted(Path(p) for p in glob.glob("/usr/lib/node_modules/npm/node_modules/glob/dist/esm/*.d.ts")))
    add("typescript", sorted(CODE.glob("*.ts")))
    add("tsx", sorted(CODE.glob("*.tsx")))
    rust = [
        ("tree-sitter", "binding_rust/lib.rs"),
        ("memchr", "src/memchr.rs"),
        ("regex-automata", "src/meta/regex.rs"),
        ("itoa", "src/lib.rs"),
    ]
    add("rust", [p for crate, rel in rust for p in _registry(crate, rel)])
    add("rust", [ROOT / "rust/core/src/structure/code/mod.rs", ROOT / "rust/core/src/assemble/mod.rs", CODE / "itoa_lib.rs"])
    add("go", sorted(Path(p) for p in glob.glob("/usr/share/doc/git/contrib/persistent-https/*.go")), 4)
    add("go", sorted(CODE.glob("*.go")))
    for where, text in _jdk_sources(["ArrayList.java", "HashMap.java", "Optional.java"]):
        out.append(("java", where, text))
    add("java", sorted(CODE.glob("*.java")))
    seen = set()
    return [f for f in out if not (f[2] in seen or seen.add(f[2]))]


# -- adversarial texts -------------------------------------------------------------------------------------------------


def long_function(lines: int) -> str:
    """One Python function of ``lines`` statements."""
    body = "".join(f"    total = total + {i} * value  # step {i}\n" for i in range(lines))
    return f"def long(value):\n    total = 0\n{body}    return total\n"


def nested_python(depth: int) -> str:
    """``depth`` nested ``if`` blocks, each indented one level more (tree-sitter's Python scanner keeps a bounded
    indentation stack: past a few hundred levels the file parses with errors, and falls back to lines)."""
    return "".join(f"{'    ' * i}if x{i}:\n" for i in range(depth)) + f"{'    ' * depth}pass\n"


def nested_js(depth: int) -> str:
    """``depth`` nested functions, one a line, each body's brace on the function's line."""
    opening = "".join(f"{'  ' * i}function f{i}(a) {{\n" for i in range(depth))
    closing = "".join(f"{'  ' * i}}}\n" for i in reversed(range(depth)))
    return opening + f"{'  ' * depth}return a;\n" + closing


def nested_braces_js(depth: int) -> str:
    """``depth`` nested blocks and array brackets on one line."""
    return "function f() {" + "{" * depth + "x = " + "[" * depth + "1" + "]" * depth + ";" + "}" * depth + "}\n"


def minified_js(nbytes: int) -> str:
    """A webpack-like bundle of ``nbytes`` or so on one line: modules of functions, arrow functions, classes and
    object literals, no line break and no space that is not needed."""
    parts, size, i = [], 0, 0
    while size < nbytes:
        part = (
            f'{i}:(e,t,n)=>{{"use strict";n.d(t,{{Z:()=>C{i},k:()=>f{i}}});var r=n({i * 7 % 9973}),o=n(2791),'
            f"a={{name:\"m{i}\",size:{i % 97},tags:[\"a\",\"b{i}\"],on:function(e){{return e&&e.v>{i}}}}};"
            f"function f{i}(e,t){{for(var n=0;n<e.length;n++)if(e[n]===t)return n;return-1}}"
            f"const g{i}=(e,t=1)=>e.map(e=>e*t+{i}).filter(Boolean);"
            f"class C{i} extends r.Z{{constructor(e){{super(e),this.state={{v:e.v||{i},s:\"x{i}\"}}}}"
            f"render(){{return o.createElement(\"div\",{{className:\"c{i}\",onClick:()=>this.setState({{v:f{i}(g{i}"
            f"([1,2,3]),2)}})}},this.state.s)}}}}t.default=C{i}}}"
        )
        parts.append(part)
        size += len(part) + 1
        i += 1
    return "(()=>{var e={" + ",".join(parts) + "};})();"
