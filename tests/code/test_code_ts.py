"""CodeChunker on real source files of every language it knows, judged by an independent reader: tree-sitter's own
Python bindings with the grammars' PyPI wheels, and a walker written here (a full walk of the tree, not the
chunker's walk of bodies), table-driven by language so that more languages are one row each.

What the reader finds, for each definition: its range (with the comments, decorators and attributes right above it,
no blank line between, and a comment on the line it ends on), its label (kind word and name, as in
``symbol_path``). What is asserted, for sizes in characters and in tokens (for every chunk ``c``, overlap 0):

* ``text[c.start:c.end] == c.text``, chunks in order and not overlapping, ``c.size`` is the chunk's size measured
  by a reference counter and at most ``size``; only whitespace is left out;
* no definition that fits in ``size`` is cut: one chunk holds the whole of it;
* ``c.metadata["symbol_path"]`` is the labels of the definitions whose range holds the chunk's first character.

The files are those of ``code_sources.sources()``: real files of every language (see there where they come from).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

import pytest

from chunkwise import CodeChunker, Tokenizer
from support.code_sources import grammar_capsule, sources
from support.code_checks import check_slices_and_sizes, line_of, line_starts

ts = pytest.importorskip("tree_sitter")

# A definition inside more than this many others is no symbol (chunkwise's MAX_SYMBOL_DEPTH).
MAX_SYMBOL_DEPTH = 32


# -- the independent reader --------------------------------------------------------------------------------------------


def _grammar(language: str) -> Callable[[], object]:
    def load() -> object:
        try:
            return ts.Language(grammar_capsule(language))
        except ImportError as e:
            pytest.skip(f"the {language} grammar's wheel is missing: {e}")

    return load


COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
JS_FUNCTION_VALUES = frozenset({"function_expression", "arrow_function", "function", "generator_function"})


@dataclass(frozen=True)
class Lang:
    """What a language's syntax tree calls a definition, and what goes with one."""

    name: str
    grammar: Callable[[], object]
    # node kind -> the word a symbol path shows before the name
    definitions: Dict[str, str]
    # node kinds that wrap a definition, and the field holding it (None: the first named child)
    wrappers: Dict[str, Optional[str]] = field(default_factory=dict)
    # node kinds right above a definition (no blank line between) that go with it
    attached: FrozenSet[str] = COMMENTS
    # `const f = () => {}`, `a.b = function () {}` define a function named by the left side
    assigned_functions: bool = False


JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function*",
    "class_declaration": "class",
    "method_definition": "method",
}
TS_DEFS = dict(
    JS_DEFS,
    function_signature="function",
    abstract_class_declaration="abstract class",
    method_signature="method",
    abstract_method_signature="method",
    interface_declaration="interface",
    enum_declaration="enum",
    type_alias_declaration="type",
    internal_module="namespace",
    module="module",
)

LANGS: Dict[str, Lang] = {
    lang.name: lang
    for lang in [
        Lang(
            "python",
            _grammar("python"),
            {"function_definition": "def", "class_definition": "class"},
            {"decorated_definition": "definition"},
        ),
        Lang(
            "javascript",
            _grammar("javascript"),
            JS_DEFS,
            {"export_statement": "declaration"},
            COMMENTS | {"decorator"},
            assigned_functions=True,
        ),
        Lang(
            "typescript",
            _grammar("typescript"),
            TS_DEFS,
            {"export_statement": "declaration", "ambient_declaration": None},
            COMMENTS | {"decorator"},
            assigned_functions=True,
        ),
        Lang(
            "tsx",
            _grammar("tsx"),
            TS_DEFS,
            {"export_statement": "declaration", "ambient_declaration": None},
            COMMENTS | {"decorator"},
            assigned_functions=True,
        ),
        Lang(
            "rust",
            _grammar("rust"),
            {
                "function_item": "fn",
                "function_signature_item": "fn",
                "impl_item": "impl",
                "trait_item": "trait",
                "struct_item": "struct",
                "enum_item": "enum",
                "union_item": "union",
                "mod_item": "mod",
                "macro_definition": "macro_rules!",
                "foreign_mod_item": "extern",
            },
            attached=COMMENTS | {"attribute_item"},
        ),
        Lang(
            "go",
            _grammar("go"),
            {"function_declaration": "func", "method_declaration": "func", "type_declaration": "type"},
        ),
        Lang(
            "java",
            _grammar("java"),
            {
                "class_declaration": "class",
                "interface_declaration": "interface",
                "enum_declaration": "enum",
                "record_declaration": "record",
                "annotation_type_declaration": "@interface",
                "method_declaration": "method",
                "constructor_declaration": "constructor",
            },
        ),
    ]
}


@dataclass
class Definition:
    start: int  # str offsets: with what goes with it
    end: int
    label: str


def _text(node, source: bytes) -> str:
    return " ".join(source[node.start_byte : node.end_byte].decode("utf-8", "replace").split())


def _label(lang: Lang, node, source: bytes) -> Optional[Tuple[object, str]]:
    """The definition ``node`` is (or wraps, or assigns), as (its outermost node, label), else None."""
    outer = node
    if node.type in lang.wrappers:
        fld = lang.wrappers[node.type]
        inner = node.child_by_field_name(fld) if fld else (node.named_children[0] if node.named_children else None)
        if inner is None:
            return None
        node = inner
    word = lang.definitions.get(node.type)
    if word is not None:
        name = node.child_by_field_name("name")
        if name is not None:
            return outer, f"{word} {_text(name, source)}"
        ty = node.child_by_field_name("type")
        if ty is not None:  # Rust's impl: its type, and the trait
            tr = node.child_by_field_name("trait")
            return outer, f"{word} {_text(tr, source) + ' for ' if tr else ''}{_text(ty, source)}"
        for child in node.named_children:  # Go's `type X struct`: the name of its spec
            name = child.child_by_field_name("name")
            if name is not None:
                return outer, f"{word} {_text(name, source)}"
        return outer, word
    if not lang.assigned_functions:
        return None
    target = value = None
    if node.type in ("lexical_declaration", "variable_declaration") and node.named_child_count == 1:
        decl = node.named_children[0]
        target, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
    elif node.type == "expression_statement" and node.named_child_count >= 1:
        expr = node.named_children[0]
        if expr.type == "assignment_expression":
            target, value = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if target is None or value is None or value.type not in JS_FUNCTION_VALUES:
        return None
    return outer, f"function {_text(target, source)}"


def definitions(lang: Lang, source: bytes, to_str: Callable[[int], int]) -> List[Definition]:
    """Every definition in the tree of ``source``, found by visiting every node (iteratively)."""
    parser = ts.Parser(lang.grammar())
    tree = parser.parse(source)
    out: List[Definition] = []
    inner_of_wrapper = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.id in inner_of_wrapper or node.is_error or node.is_missing:
            continue
        found = _label(lang, node, source)
        if found is None:
            continue
        outer, label = found
        if outer.id != node.id:
            continue
        if node.type in lang.wrappers:
            fld = lang.wrappers[node.type]
            inner = node.child_by_field_name(fld) if fld else node.named_children[0]
            inner_of_wrapper.add(inner.id)
        start, end, start_row = node.start_byte, node.end_byte, node.start_point.row
        # What goes with it: attached nodes right above (no blank line between), but not a comment ending the line
        # of the code before it; after it, the comments on the line it ends on.
        prev = node.prev_named_sibling
        while prev is not None and prev.type in lang.attached and prev.end_point.row + 1 >= start_row:
            before = prev.prev_named_sibling
            trailing = (
                prev.type in COMMENTS
                and before is not None
                and before.type not in lang.attached
                and before.end_point.row == prev.start_point.row
            )
            if trailing:
                break
            start, start_row = prev.start_byte, prev.start_point.row
            prev = before
        end_row = node.end_point.row
        nxt = node.next_named_sibling
        while nxt is not None and nxt.type in COMMENTS and nxt.start_point.row == end_row:
            end, end_row = nxt.end_byte, nxt.end_point.row
            nxt = nxt.next_named_sibling
        out.append(Definition(to_str(start), to_str(end), label))
    return out


def byte_to_str(text: str) -> Callable[[int], int]:
    data = text.encode("utf-8")
    if len(data) == len(text):
        return lambda b: b
    starts, pos = [], 0
    for ch in text:
        starts.append(pos)
        pos += len(ch.encode("utf-8"))
    return lambda b: bisect.bisect_left(starts, b)


def expected_path(defs: List[Definition], pos: int) -> List[str]:
    around = [d for d in defs if d.start <= pos < d.end]
    return [d.label for d in sorted(around, key=lambda d: (d.start, -d.end))][:MAX_SYMBOL_DEPTH]


# -- the files ---------------------------------------------------------------------------------------------------------

SOURCES = sources()


def test_every_language_has_files() -> None:
    have = {language for language, _, _ in SOURCES}
    assert have >= set(LANGS), sorted(set(LANGS) - have)


# -- the checks --------------------------------------------------------------------------------------------------------


def check(text: str, language: str, chunks, size: int, measure: Callable[[str], int]) -> None:
    check_slices_and_sizes(text, chunks, size, measure)
    assert {c.metadata["language"] for c in chunks} == {language}
    starts = line_starts(text)
    lang = LANGS[language]
    defs = definitions(lang, text.encode("utf-8"), byte_to_str(text))
    assert defs, "the reader found no definition"
    chunk_starts = [c.start for c in chunks]
    cut = []
    for d in defs:
        body = text[d.start : d.end].rstrip()
        if measure(body) > size:
            continue
        i = bisect.bisect_right(chunk_starts, d.start) - 1
        if i < 0 or chunks[i].end < d.start + len(body):
            cut.append((d.label, line_of(starts, d.start), measure(body)))
    assert not cut, f"{len(cut)} definitions that fit were cut, first: {cut[:5]}"
    wrong = [
        (c.metadata["start_line"], c.metadata["symbol_path"], expected_path(defs, c.start))
        for c in chunks
        if c.metadata["symbol_path"] != expected_path(defs, c.start)
    ]
    assert not wrong, f"{len(wrong)} of {len(chunks)} paths differ, first (line, got, expected): {wrong[:5]}"


IDS = [f"{lang}:{Path(where).name}" for lang, where, _ in SOURCES]


@pytest.mark.parametrize("language, where, text", SOURCES, ids=IDS)
@pytest.mark.parametrize("size", [300, 1500])
def test_chars(language: str, where: str, text: str, size: int) -> None:
    chunks = CodeChunker(size).chunk(text, {"source": where})
    check(text, language, chunks, size, len)


@pytest.fixture(scope="module")
def token_counter():
    """cl100k_base, counted by Python's tiktoken when its files are offline, else by chunkwise's own."""
    from support.tokenizer_assets import tiktoken_encoding

    tok = Tokenizer.tiktoken("cl100k_base")
    enc = tiktoken_encoding("cl100k_base")
    count = (lambda s: len(enc.encode_ordinary(s))) if enc is not None else tok.count
    return tok, count


@pytest.mark.parametrize("language, where, text", SOURCES, ids=IDS)
def test_tokens(language: str, where: str, text: str, token_counter) -> None:
    tok, count = token_counter
    chunks = CodeChunker(200, tokenizer=tok).chunk(text, {"source": where})
    check(text, language, chunks, 200, count)
