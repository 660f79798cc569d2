"""The bar chart of the documentation's Performance page, drawn from the figures in benches/README.md.

It reads the table "chunkwise RecursiveChunker vs each peer" of the README's "Latest results" (so the figures are
written once, where they are measured) and draws chunkwise's speed over each peer, warm ``spans()``, one panel per
chunk size. Run it after a new run of ``python benches/report.py`` has replaced that table:

    python benches/plot_ratios.py                 # writes docs/perf-ratios.png
    python benches/plot_ratios.py --out FILE.png
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "benches" / "README.md"
TABLE = "### chunkwise RecursiveChunker vs each peer"
# The prose peers, in the order of the table; the Markdown peers are compared with MarkdownChunker elsewhere.
PEERS = {
    "langchain": "LangChain RecursiveCharacterTextSplitter",
    "chonkie": "chonkie",
    "semchunk": "semchunk",
    "text_splitter": "semantic-text-splitter",
}


def latest_run(text: str) -> str:
    """When and on what the Latest results ran, from their "Run 2026-12-02T14:25:54 UTC; ..., 2 CPUs; ..." line."""
    latest = text[text.index("## Latest results") :]
    line = re.search(r"^Run (\S+ UTC).*?(\d+ CPUs)", latest, re.M)
    return f"{line.group(1)}, {line.group(2)}" if line else "?"


def ratios(text: str) -> dict:
    """{size: {peer: [(file, warm spans ratio), ...]}} from the table's cells "warm / cold / chunk"."""
    latest = text[text.index("## Latest results") :]
    rows = []
    for line in latest[latest.index(TABLE) :].splitlines()[1:]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif rows:
            break
    header, body = rows[0], rows[2:]
    out: dict = {}
    for row in body:
        file, size = row[0], row[1]
        for peer in PEERS:
            cell = row[header.index(peer)]
            if cell:
                out.setdefault(size, {}).setdefault(peer, []).append((file, float(cell.split("/")[0].rstrip(" x"))))
    return out


def plot(data: dict, run: str, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(data, key=int)
    fig, axes = plt.subplots(1, len(sizes), figsize=(11, 4.6), sharey=True)
    for ax, size in zip(axes, sizes):
        files = [f for f, _ in data[size]["langchain"]]
        width = 0.8 / len(PEERS)
        for k, (peer, label) in enumerate(PEERS.items()):
            values = dict(data[size][peer])
            xs = [i + (k - (len(PEERS) - 1) / 2) * width for i in range(len(files))]
            bars = ax.bar(xs, [values[f] for f in files], width, label=label)
            ax.bar_label(bars, labels=[f"{values[f]:.0f}x" for f in files], fontsize=7, padding=1)
        ax.set_yscale("log")
        ax.axhline(1, color="black", linewidth=0.8)
        ax.set_xticks(range(len(files)), files)
        ax.set_title(f"chunks of {size} characters")
        ax.grid(axis="y", which="major", alpha=0.3)
    axes[0].set_ylabel("chunkwise's speed / the peer's (log scale)")
    axes[0].set_ylim(0.8, None)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(PEERS), fontsize=9, frameon=False)
    fig.suptitle(f"RecursiveChunker(size).spans() against each peer, same run ({run})", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(out, dpi=110, metadata={"Software": None})
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "perf-ratios.png")
    args = parser.parse_args()
    text = README.read_text(encoding="utf-8")
    plot(ratios(text), latest_run(text), args.out)


if __name__ == "__main__":
    main()
