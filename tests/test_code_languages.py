"""CodeChunker on the languages beyond the first seven: C, C++, C#, Ruby, PHP, Kotlin, Swift, Bash and SQL.

Each language has a real-looking source file below (with CJK comments and emoji, so offsets are checked as ``str``
indices) and its definitions derived by hand: label, first line (that of the comments right above it, which go with
it), last line, depth. For every chunk: ``text[c.start:c.end] == c.text``, sizes within ``size`` (characters and
tokens), no definition that fits in ``size`` cut, and ``symbol_path`` equal to the definitions around the chunk's
first line. Real files of some of these languages that packages of the test environment ship (C, C++, shell) are
chunked too, when installed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from chunkwise import CODE_LANGUAGES, CodeChunker, Tokenizer
from test_code import check_slices_and_sizes, line_starts

C = """\
#include <math.h>
#include <stdlib.h>

/* 几何：二维的点 📐 */
struct point {
    double x;
    double y;
};

typedef struct {
    struct point *items;
    size_t len;
} path_t;

// Euclidean norm of a point.
static double norm(const struct point *p)
{
    return sqrt(p->x * p->x + p->y * p->y);
}

/* Total length of a path; 0 for fewer than two points. */
double path_length(const path_t *path)
{
    double total = 0.0;
    for (size_t i = 1; i < path->len; i++) {
        struct point d = {
            path->items[i].x - path->items[i - 1].x,
            path->items[i].y - path->items[i - 1].y,
        };
        total += norm(&d);
    }
    return total;
}

enum unit { UNIT_MM, UNIT_INCH };
"""

CPP = """\
#include <string>
#include <vector>

namespace geo {

// 形状的基类 🔷
class Shape {
public:
    virtual ~Shape() {}
    virtual double area() const = 0;

    /// A name for logs: "shape ✨".
    std::string name() const {
        return "shape";
    }
};

template <typename T>
T clamp(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

struct Circle : Shape {
    double r;
    double area() const override { return 3.14159 * r * r; }
};

}  // namespace geo

double total_area(const std::vector<geo::Shape *> &shapes) {
    double sum = 0;
    for (auto *s : shapes) {
        sum += s->area();
    }
    return sum;
}
"""

CSHARP = """\
using System;
using System.Collections.Generic;

namespace Shop.Inventory
{
    /// <summary>库存中的一件商品 📦</summary>
    public class Item
    {
        public string Name { get; set; }
        public int Count { get; private set; }

        public Item(string name, int count)
        {
            Name = name;
            Count = count;
        }

        // Takes n items out; false when there are not enough.
        public bool Take(int n)
        {
            if (n > Count)
            {
                return false;
            }
            Count -= n;
            return true;
        }
    }

    public interface IStore
    {
        Item Find(string name);
    }

    public enum Unit { Piece, Box }
}
"""

RUBY = """\
require 'json'

# 商店：按名字存放商品 🛒
module Shop
  # An item with a name and a price.
  class Item
    attr_reader :name, :price

    def initialize(name, price)
      @name = name
      @price = price
    end

    # The price with tax, rounded to cents.
    def with_tax(rate = 0.2)
      (price * (1 + rate)).round(2)
    end

    def self.from_json(text)
      data = JSON.parse(text)
      new(data['name'], data['price'])
    end
  end

  def self.total(items)
    items.sum(&:price)
  end
end

puts Shop.total([Shop::Item.new('茶 🍵', 3.5)])
"""

PHP = """\
<?php

namespace App\\Models;

use Illuminate\\Support\\Str;

/**
 * 用户模型 👤
 */
class User extends Model
{
    protected $fillable = ['name', 'email'];

    // The display name, trimmed.
    public function displayName(): string
    {
        return Str::of($this->name)->trim();
    }

    public static function findByEmail(string $email): ?User
    {
        return static::where('email', $email)->first();
    }
}

interface HasAvatar
{
    public function avatarUrl(): string;
}

function slugify(string $text): string
{
    $text = strtolower(trim($text));
    return preg_replace('/[^a-z0-9]+/', '-', $text);
}
"""

KOTLIN = """\
package shop.cart

import kotlin.math.max

/**
 * 购物车里的一行 🛍️
 */
data class Line(val name: String, val count: Int) {
    // Never below zero.
    fun decrement(): Line {
        return copy(count = max(0, count - 1))
    }
}

class Cart {
    private val lines = mutableListOf<Line>()

    fun add(line: Line) {
        lines.add(line)
    }

    companion object {
        fun empty(): Cart {
            return Cart()
        }
    }
}

interface Pricing {
    fun price(line: Line): Double
}

fun total(cart: Cart, pricing: Pricing): Double {
    return 0.0
}
"""

SWIFT = """\
import Foundation

/// 平面上的点 📍
struct Point {
    var x: Double
    var y: Double

    // Distance to another point.
    func distance(to other: Point) -> Double {
        let dx = x - other.x
        let dy = y - other.y
        return (dx * dx + dy * dy).squareRoot()
    }
}

protocol Shape {
    func area() -> Double
}

class Circle: Shape {
    let radius: Double

    init(radius: Double) {
        self.radius = radius
    }

    func area() -> Double {
        return Double.pi * radius * radius
    }
}

extension Point {
    static let origin = Point(x: 0, y: 0)
}
"""

BASH = """\
#!/usr/bin/env bash
set -euo pipefail

# 部署脚本 🚀
LOG_DIR="${LOG_DIR:-/tmp/deploy}"

# Prints a message with a timestamp.
log() {
  echo "[$(date +%H:%M:%S)] $*" >> "$LOG_DIR/deploy.log"
}

function build {
  log "building"
  if [ -d dist ]; then
    rm -rf dist
  fi
  make all
}

deploy() {
  local target="$1"
  log "deploying to ${target}"
  rsync -a dist/ "${target}:/srv/app/"
}

build
deploy "${1:-staging}"
"""

SQL = """\
-- 商店的表 🗄️
CREATE TABLE shop.items (
    id serial PRIMARY KEY,
    name text NOT NULL,
    price numeric(10, 2)
);

-- Orders refer to items.
CREATE TABLE shop.orders (
    id serial PRIMARY KEY,
    item_id int REFERENCES shop.items (id),
    quantity int DEFAULT 1
);

CREATE VIEW shop.order_totals AS
SELECT o.id, o.quantity * i.price AS total
FROM shop.orders o
JOIN shop.items i ON i.id = o.item_id;

CREATE INDEX orders_item ON shop.orders (item_id);

INSERT INTO shop.items (name, price) VALUES ('茶 🍵', 3.50);

SELECT name FROM shop.items WHERE price > 2;
"""


#: Each language's sample: (file name, text, definitions as (label, first line, last line, depth)).
Definition = Tuple[str, int, int, int]
SAMPLES: Dict[str, Tuple[str, str, List[Definition]]] = {
    "c": (
        "shapes.c",
        C,
        [
            ("struct point", 4, 8, 1),
            ("typedef path_t", 10, 13, 1),
            ("function norm", 15, 19, 1),
            ("function path_length", 21, 33, 1),
            ("enum unit", 35, 35, 1),
        ],
    ),
    "cpp": (
        "shapes.cpp",
        CPP,
        [
            ("namespace geo", 4, 28, 1),
            ("class Shape", 6, 16, 2),
            ("function ~Shape", 9, 9, 3),
            ("function name", 12, 15, 3),
            ("function clamp", 18, 21, 2),
            ("struct Circle", 23, 26, 2),
            ("function area", 25, 25, 3),
            ("function total_area", 30, 36, 1),
        ],
    ),
    "csharp": (
        "Inventory.cs",
        CSHARP,
        [
            ("namespace Shop.Inventory", 4, 36, 1),
            ("class Item", 6, 28, 2),
            ("property Name", 9, 9, 3),
            ("property Count", 10, 10, 3),
            ("constructor Item", 12, 16, 3),
            ("method Take", 18, 27, 3),
            ("interface IStore", 30, 33, 2),
            ("method Find", 32, 32, 3),
            ("enum Unit", 35, 35, 2),
        ],
    ),
    "ruby": (
        "store.rb",
        RUBY,
        [
            ("module Shop", 3, 28, 1),
            ("class Item", 5, 23, 2),
            ("def initialize", 9, 12, 3),
            ("def with_tax", 14, 17, 3),
            ("def self.from_json", 19, 22, 3),
            ("def self.total", 25, 27, 2),
        ],
    ),
    "php": (
        "User.php",
        PHP,
        [
            ("namespace App\\Models", 3, 3, 1),
            ("class User", 7, 24, 1),
            ("function displayName", 14, 18, 2),
            ("function findByEmail", 20, 23, 2),
            ("interface HasAvatar", 26, 29, 1),
            ("function avatarUrl", 28, 28, 2),
            ("function slugify", 31, 35, 1),
        ],
    ),
    "kotlin": (
        "Cart.kt",
        KOTLIN,
        [
            ("class Line", 5, 13, 1),
            ("fun decrement", 9, 12, 2),
            ("class Cart", 15, 27, 1),
            ("fun add", 18, 20, 2),
            ("companion object", 22, 26, 2),
            ("fun empty", 23, 25, 3),
            ("interface Pricing", 29, 31, 1),
            ("fun price", 30, 30, 2),
            ("fun total", 33, 35, 1),
        ],
    ),
    "swift": (
        "Shapes.swift",
        SWIFT,
        [
            ("struct Point", 3, 14, 1),
            ("func distance", 8, 13, 2),
            ("protocol Shape", 16, 18, 1),
            ("func area", 17, 17, 2),
            ("class Circle", 20, 30, 1),
            ("init", 23, 25, 2),
            ("func area", 27, 29, 2),
            ("extension Point", 32, 34, 1),
        ],
    ),
    "bash": (
        "deploy.sh",
        BASH,
        [
            ("function log", 7, 10, 1),
            ("function build", 12, 18, 1),
            ("function deploy", 20, 24, 1),
        ],
    ),
    "sql": (
        "schema.sql",
        SQL,
        [
            ("table shop.items", 1, 6, 1),
            ("table shop.orders", 8, 13, 1),
            ("view shop.order_totals", 15, 18, 1),
        ],
    ),
}

LANGUAGES = sorted(SAMPLES)


def expected_path(defs: List[Definition], line: int) -> List[str]:
    return [label for label, first, last, _ in sorted(defs, key=lambda d: d[3]) if first <= line <= last]


def definition_span(text: str, first: int, last: int) -> Tuple[int, int]:
    """The str range of lines ``first`` to ``last`` (1-based), without the first line's indentation and trailing
    whitespace: what must lie inside one chunk when it fits."""
    starts = line_starts(text)
    a = starts[first - 1]
    a += len(text[a:]) - len(text[a:].lstrip(" \t"))
    b = starts[last] - 1 if last < len(starts) else len(text)
    return a, len(text[:b].rstrip())


def check_definitions(text: str, chunks, defs: List[Definition], size: int, measure=len) -> None:
    """No definition that fits is cut; each chunk's symbol path is the definitions around its first line."""
    for label, first, last, _ in defs:
        a, b = definition_span(text, first, last)
        if measure(text[a:b]) > size:
            continue
        assert any(c.start <= a and b <= c.end for c in chunks), f"{label} (lines {first}-{last}) was cut"
    wrong = [
        (c.metadata["start_line"], c.metadata["symbol_path"], expected_path(defs, c.metadata["start_line"]))
        for c in chunks
        if c.metadata["symbol_path"] != expected_path(defs, c.metadata["start_line"])
    ]
    assert not wrong, wrong


def test_every_language_is_known() -> None:
    assert set(LANGUAGES) <= set(CODE_LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", [40, 90, 200, 1000])
def test_definitions_stay_whole_and_paths_match(language: str, size: int) -> None:
    name, text, defs = SAMPLES[language]
    chunks = CodeChunker(size).chunk(text, {"source": "src/" + name})
    check_slices_and_sizes(text, chunks, size)
    assert {c.metadata["language"] for c in chunks} == {language}
    assert not [c for c in chunks if "note" in c.metadata]
    check_definitions(text, chunks, defs, size)


@pytest.mark.parametrize("language", LANGUAGES)
def test_sizes_in_tokens(language: str) -> None:
    _, text, defs = SAMPLES[language]
    tok = Tokenizer.tiktoken("cl100k_base")
    for size in (24, 64):
        chunks = CodeChunker(size, tokenizer=tok, language=language).chunk(text)
        check_slices_and_sizes(text, chunks, size, measure=tok.count)
        check_definitions(text, chunks, defs, size, measure=tok.count)


@pytest.mark.parametrize("language", LANGUAGES)
def test_comments_go_with_the_definition_they_document(language: str) -> None:
    _, text, defs = SAMPLES[language]
    lines = text.split("\n")
    commented = 0
    for label, first, last, _ in defs:
        if not lines[first - 1].lstrip().startswith(("/*", "//", "#", "--")):
            continue
        # At the size of the definition with its comments, one chunk is exactly that.
        a, b = definition_span(text, first, last)
        chunks = CodeChunker(b - a, language=language).chunk(text)
        own = [c for c in chunks if c.start == a]
        assert own and own[0].end == b, (label, [c.text[:40] for c in chunks])
        assert own[0].metadata["symbol_path"][-1] == label
        commented += 1
    assert commented > 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_detected_by_file_name_and_by_content(language: str) -> None:
    name, text, _ = SAMPLES[language]
    chunker = CodeChunker(200)
    assert chunker.chunk(text, {"source": name})[0].metadata["language"] == language
    assert chunker.chunk(text)[0].metadata["language"] == language
    assert CodeChunker(200, language=language).chunk(text)[0].metadata["language"] == language


@pytest.mark.parametrize(
    "source, language",
    [("Gemfile", "ruby"), ("x/.bashrc", "bash"), ("a.HPP", "cpp"), ("b.h", "c"), ("c.kts", "kotlin"), ("d.csx", "csharp")],
)
def test_file_names(source: str, language: str) -> None:
    assert CodeChunker(50).chunk("x = 1\n", {"source": source})[0].metadata["language"] == language


CPP_HEADER = """\
#pragma once
#include <string>

namespace geo {
// A shape with a name.
class Shape {
public:
    std::string name() const { return "shape"; }
};
}  // namespace geo
"""
C_HEADER = "#ifndef LIST_H\n#define LIST_H\n#include <stddef.h>\n\nstruct list { size_t len; };\n\nsize_t list_len(const struct list *l);\n#endif\n"


def test_a_header_is_cpp_when_its_content_says_so() -> None:
    chunker = CodeChunker(200)
    cpp = CodeChunker(80).chunk(CPP_HEADER, {"source": "include/geo/shape.h"})
    assert {c.metadata["language"] for c in cpp} == {"cpp"}
    assert not [c for c in cpp if "note" in c.metadata]
    assert any(c.metadata["symbol_path"][:2] == ["namespace geo", "class Shape"] for c in cpp)
    c_chunks = chunker.chunk(C_HEADER, {"source": "include/list.h"})
    assert {c.metadata["language"] for c in c_chunks} == {"c"}
    batch = chunker.chunk_batch([CPP_HEADER, C_HEADER], [{"source": "a.h"}, {"source": "b.h"}])
    assert [b[0].metadata["language"] for b in batch] == ["cpp", "c"]
    # A .c file stays C whatever it holds; a named language is kept.
    assert chunker.chunk(CPP_HEADER, {"source": "a.c"})[0].metadata["language"] == "c"
    assert CodeChunker(200, language="c").chunk(CPP_HEADER, {"source": "a.h"})[0].metadata["language"] == "c"


@pytest.mark.parametrize("language", LANGUAGES)
def test_non_ascii_offsets_are_str_indices(language: str) -> None:
    _, text, _ = SAMPLES[language]
    # The CJK comment and the emoji come early: every later offset would be off if counted in bytes.
    assert any(ord(ch) > 0xFFFF for ch in text[: len(text) // 2])
    chunks = CodeChunker(60, language=language).chunk(text)
    check_slices_and_sizes(text, chunks, 60)
    last = chunks[-1]
    assert last.end == len(text.rstrip())
    assert last.metadata["end_line"] == text.rstrip().count("\n") + 1


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_syntax_error_still_chunks(language: str) -> None:
    _, text, defs = SAMPLES[language]
    lines = text.split("\n")
    # Garbage in the middle of the file, between two definitions.
    middle = defs[len(defs) // 2][1] - 1
    broken = "\n".join(lines[:middle] + [")))) }}} ]]] @@@ ((( {{{ 🚧 断"] + lines[middle:])
    chunks = CodeChunker(80, language=language).chunk(broken)
    check_slices_and_sizes(broken, chunks, 80)
    assert any(c.metadata.get("note", "").startswith("syntax error") for c in chunks)
    assert {c.metadata["language"] for c in chunks} == {language}


# -- real files that packages of the test environment ship ----------------------------------------------------------


def package_file(package: str, path: str) -> Optional[Path]:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(list(spec.submodule_search_locations)[0]) / path
    return found if found.is_file() else None


REAL = [
    ("markupsafe", "_speedups.c", "c"),
    ("greenlet", "TGreenlet.cpp", "cpp"),
    ("pyarrow", "src/arrow/python/ipc.cc", "cpp"),
    ("pyarrow", "include/arrow/buffer.h", "cpp"),
    ("pyspark", "sbin/spark-daemon.sh", "bash"),
    ("pyspark", "bin/docker-image-tool.sh", "bash"),
]


@pytest.mark.parametrize("package, path, language", REAL)
@pytest.mark.parametrize("size", [200, 800])
def test_real_files(package: str, path: str, language: str, size: int) -> None:
    found = package_file(package, path)
    if found is None:
        pytest.skip(f"{package} does not ship {path} here")
    text = found.read_text(encoding="utf-8")
    # A .h file is C by its name; arrow's headers are C++: named.
    chunker = CodeChunker(size, language=language if path.endswith(".h") else "auto")
    chunks = chunker.chunk(text, {"source": str(found)})
    check_slices_and_sizes(text, chunks, size)
    assert {c.metadata["language"] for c in chunks} == {language}
    tok = Tokenizer.tiktoken("cl100k_base")
    check_slices_and_sizes(text, CodeChunker(size // 4, tokenizer=tok, language=language).chunk(text), size // 4, tok.count)
    # Every function on a chunk's symbol path is named in the chunk's context (the signatures of the definitions it
    # starts inside) or, when the chunk starts with it (or with the comments above it), in the first lines of its
    # signature; and some chunk is in a function.
    functions = 0
    for c in chunks:
        lines = text[c.start :].split("\n")
        while lines and lines[0].strip().startswith(COMMENT_LINE):
            lines.pop(0)
        signature = "\n".join(lines[:3])
        for label in c.metadata["symbol_path"]:
            if label.startswith("function "):
                functions += 1
                name = label.split(" ", 1)[1]
                assert name in c.context or name in signature, (label, c.context, c.text[:80])
    assert functions > 0


#: How a comment line starts in C, C++ and shell.
COMMENT_LINE = ("//", "/*", "*", "#")
