"""How often MarkdownChunker's cuts break its rules where they conflict, on real Markdown: the cap is never exceeded >
a block that fits (table, fence, list with its lead-in) is never split > a heading never ends a chunk > a heading
is not a chunk of its own. Counted against the independent reference (tests/support/md_oracle.py) by
tests/support/rule_order.py.

    python benches/markdown_rules.py [FILE | @LIST]... [--sizes 256,1024] [--balance] [--json]

Without files: the corpus's mixed.md. ``@LIST``: a file naming one Markdown file per line (for instance
``find / -name '*.md' -not -path '/proc/*' > list``). ``--balance``: the chunker's balanced cuts. Prints one row per
size and context mode.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import chunkwise  # noqa: E402
from support.corpus import DATA  # noqa: E402
from support.rule_order import add, counts  # noqa: E402

COLUMNS = ("files", "chunks", "over_cap", "blocks", "split_that_fit", "headings", "heading_ends", "heading_alone",
           "alone_needlessly", "alone_untyped", "lead_ins", "lead_ins_apart", "lead_ins_apart_that_fit")


def paths(args: list) -> list:
    out = []
    for a in args:
        if a.startswith("@"):
            out += [Path(line.strip()) for line in Path(a[1:]).read_text().splitlines() if line.strip()]
        else:
            out.append(Path(a))
    return out or [DATA / "mixed.md"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--sizes", default="256,1024")
    p.add_argument("--balance", action="store_true")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    texts = []
    for f in paths(a.files):
        try:
            texts.append(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    rows = []
    for size in (int(s) for s in a.sizes.split(",")):
        for with_context in (True, False):
            total = {"size": size, "size_includes_context": with_context, "files": len(texts)}
            for text in texts:
                chunks = chunkwise.MarkdownChunker(
                    size, size_includes_context=with_context, balance=a.balance
                ).chunk(text)
                add(total, counts(text, chunks, size, size_includes_context=with_context))
            rows.append(total)
    if a.json:
        print(json.dumps(rows))
        return 0
    print("| size | context counts | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for r in rows:
        print(f"| {r['size']} | {r['size_includes_context']} | " + " | ".join(str(r.get(c, 0)) for c in COLUMNS) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
