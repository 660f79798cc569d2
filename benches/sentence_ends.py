"""Where the cuts fall inside paragraphs: chunkwise's RecursiveChunker against semantic-text-splitter's TextSplitter
(and LangChain's RecursiveCharacterTextSplitter when installed), at the same size in characters; chunkwise's
balanced mode, ParagraphChunker and SentenceChunker for comparison.

    CHUNKWISE_CORPUS=../shared/corpus PYTHONPATH=python python benches/sentence_ends.py [--sizes 256,512] [FILE...]

Of the cuts strictly inside a paragraph (no blank line between a chunk and the next), the share right after a
sentence terminator and its closing punctuation; and the fill, the mean chunk length over the size. One measure
for all, from the chunks' offsets (tests/support/sentence_ends.py; tests/boundary/test_sentence_ends.py holds
chunkwise to at least semantic-text-splitter's share and fill less 2 points). Default files: zh.txt, ja.txt,
en.txt of the corpus.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import chunkwise  # noqa: E402
from support.corpus import full_dir  # noqa: E402
from support.sentence_ends import measure  # noqa: E402


def spans_of(chunker) -> Callable[[str], List[Tuple[int, int]]]:
    return lambda text: [tuple(s) for s in chunker.spans(text).tolist()]


def peers(size: int) -> dict:
    out = {
        # The default for prose (AutoChunker's too), then its balanced mode and the two other chunkers of prose.
        "chunkwise": spans_of(chunkwise.RecursiveChunker(size)),
        "chunkwise balance=True": spans_of(chunkwise.RecursiveChunker(size, balance=True)),
        "chunkwise ParagraphChunker": spans_of(chunkwise.ParagraphChunker(size)),
        "chunkwise SentenceChunker": spans_of(chunkwise.SentenceChunker(size)),
    }
    try:
        from semantic_text_splitter import TextSplitter
    except ImportError:
        pass
    else:
        splitter = TextSplitter(size)
        out["semantic-text-splitter"] = lambda text: [(o, o + len(p)) for o, p in splitter.chunk_indices(text)]
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError:
        pass
    else:
        lc = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0)

        def langchain(text: str) -> list:
            spans, cursor = [], 0
            for piece in lc.split_text(text):
                at = text.find(piece, cursor)
                if at >= 0:
                    spans.append((at, at + len(piece)))
                    cursor = at + len(piece)
            return spans

        out["langchain recursive"] = langchain
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--sizes", default="256,512")
    a = p.parse_args(argv)
    files = [Path(f) for f in a.files] or [full_dir() / n for n in ("zh.txt", "ja.txt", "en.txt")]
    print("| file | size | splitter | cuts inside paragraphs | after a sentence end | fill |")
    print("|---|---:|---|---:|---:|---:|")
    for f in files:
        text = f.read_text(encoding="utf-8")
        for size in (int(s) for s in a.sizes.split(",")):
            for name, spans in peers(size).items():
                m = measure(text, spans(text), size)
                print(f"| {f.name} | {size} | {name} | {m['cuts']:,} | {100 * m['sentence_ends']:.1f}% | "
                      f"{100 * m['fill']:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
