"""CPU time of the boilerplate pass's line reading (``chunkwise.ingest.boilerplate``) over the corpus folder's files.

    python benches/boilerplate_run.py [--rounds 5]

Per round, over every file of the corpus folder (read and decoded outside the timing):

* ``edge_keys``: the keys of each file's head and foot (the first pass of every run, changed files or not);
* ``runs``: ``boilerplate_runs`` of each file with every line of its head and foot boilerplate (the most a document
  of a tree can have);
* ``paged``: each file cut into pages of 40 lines, each page given a running head and a page number:
  ``page_furniture`` of its pages, then ``boilerplate_runs`` of the pages joined, read as paged (a PDF's).

Prints the median CPU seconds of each case over the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import corpus_dir  # noqa: E402

from chunkwise.chunkers import join_pages  # noqa: E402
from chunkwise.ingest.boilerplate import boilerplate_runs, edge_keys, page_furniture  # noqa: E402

PAGE_LINES = 40


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    texts = [p.read_text(encoding="utf-8") for p in sorted(corpus_dir().iterdir()) if p.is_file()]
    paged = []
    for text in texts:
        lines = text.replace("\f", "\n").split("\n")
        paged.append([f"ACME Report\n{chr(10).join(lines[i : i + PAGE_LINES])}\nPage {i // PAGE_LINES + 1}"
                      for i in range(0, len(lines), PAGE_LINES)])
    trees = [edge_keys(text) for text in texts]

    def edges() -> None:
        for text in texts:
            edge_keys(text)

    def runs() -> None:
        for text, tree in zip(texts, trees):
            boilerplate_runs(text, tree)

    def pages() -> None:
        for each in paged:
            boilerplate_runs(join_pages(each), frozenset(), page_furniture(each), paged=True)

    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(f"{len(texts)} files, {mb:.1f} MB, median CPU seconds of {args.rounds} rounds:")
    for name, case in (("edge_keys", edges), ("runs", runs), ("paged", pages)):
        times = []
        for _ in range(args.rounds):
            start = time.process_time()
            case()
            times.append(time.process_time() - start)
        print(f"  {name:10} {statistics.median(times):.4f}  ({', '.join(f'{t:.4f}' for t in times)})")


if __name__ == "__main__":
    main()
