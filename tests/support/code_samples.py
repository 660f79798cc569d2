"""Small samples of code in the languages beyond the first seven (C, C++, C#, Ruby, PHP, Kotlin, Swift, Bash, SQL),
each with the definitions a reader expects.
"""

from __future__ import annotations

from typing import Dict, List, Tuple


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
