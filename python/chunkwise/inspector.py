"""The chunk inspector: one self-contained HTML page that shows where a chunker cut a document.

:func:`render` runs each chunker on the same text and lays the results side by side, one column per chunker. Every
chunk is a coloured background (the colours alternate, so neighbours differ); text that two chunks share (their
overlap) is hatched, text that no chunk holds (whitespace trimmed between chunks, anything a chunker left out) is
plain grey. Hovering over a chunk shows its metadata in the side panel (index, ``start``/``end`` offsets, size, token
count, level, title path, context); a click pins it. The side panel also holds each chunker's summary (chunks,
mean/min/max size, overlap and gaps) and a histogram of its chunk sizes.

The page is one file with no network access: its style, script and the histograms (SVG drawn here) are inline.
Each chunk is an element ``<span class="mk" id="v{column}-c{chunk}" data-start=... data-end=...>`` at its start,
and the text between two consecutive chunk boundaries a ``<span class="s" data-c="...">`` naming the chunks that
hold it, so the page is built from one sort of the boundaries and stays small for long texts and many chunks.

From the command line (:mod:`chunkwise.cli.inspect`): ``chunkwise inspect FILE --strategy recursive --strategy markdown
--out page.html``.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._core import Tokenizer

__all__ = ["render", "write"]

#: Background colours of the chunks, in turn: light enough to read the text on, far enough apart to tell neighbours.
PALETTE = ("#ffe08a", "#a8e6cf", "#ffb3ba", "#b5d0ff", "#e2c2ff", "#c9f0a0")

#: Bars of a size histogram (fewer when the chunks have fewer distinct sizes).
HISTOGRAM_BINS = 20

#: How much of a chunk's text the side panel shows.
PREVIEW_CHARS = 600

Chunkers = Union[Any, Mapping[str, Any], Sequence[Any]]


@dataclass(frozen=True)
class _Chunk:
    """What the page shows of one chunk, read from a chunk object."""

    index: int
    start: int
    end: int
    size: int
    tokens: Optional[int]
    level: str
    title_path: Optional[List[str]]
    context: str
    metadata: Dict[str, Any]


@dataclass(frozen=True)
class _Column:
    name: str
    chunks: List[_Chunk]
    unit: str


def render(text: str, chunkers: Chunkers, *, title: Optional[str] = None,
           tokenizer: Optional[Union[Tokenizer, str]] = None) -> str:
    """The HTML page that shows ``text`` cut by ``chunkers``.

    ``chunkers``: one chunker (anything with a ``chunk(text)`` method returning chunks with ``start``/``end``
    offsets into ``text``), a dict of name -> chunker (one column each, in order), or a list of chunkers (named by
    their class, size and overlap). ``title`` heads the page. ``tokenizer`` (a :class:`chunkwise.Tokenizer`, or a
    tiktoken encoding name such as ``"cl100k_base"``) counts the tokens of chunks that have no ``token_count``
    (chunkers that measure in characters).

    Raises ``TypeError`` for something that is not a chunker and ``ValueError`` for a chunk whose offsets do not lie
    within ``text``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    counter = _counter(tokenizer)
    columns = [_column(name, chunker, text, counter) for name, chunker in _named(chunkers)]
    heading = title if title is not None else "chunkwise inspect"
    out: List[str] = [
        "<!DOCTYPE html>\n<html lang=\"und\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        f"<meta name=\"generator\" content=\"chunkwise inspect\">\n<title>{_text(heading)}</title>\n",
        f"<style>{_style(len(columns))}</style>\n</head>\n<body>\n",
        f"<header><h1>{_text(heading)}</h1><p>{len(text):,} characters, "
        f"{_plural(len(columns), 'chunker')}. Hover over a chunk for its metadata, click to pin it; hatched text is in "
        "two chunks or more (overlap), grey text in none.</p></header>\n<main>\n<div class=\"cols\">\n",
    ]
    pieces = [_segments(len(text), [(c.start, c.end) for c in column.chunks]) for column in columns]
    for n, column in enumerate(columns):
        _write_column(out, n, column, text, pieces[n])
    out.append("</div>\n<aside class=\"panel\">\n<section id=\"detail\"><h2>Chunk</h2>"
               "<p class=\"hint\">Hover over a chunk, or click one to pin it (Esc unpins).</p></section>\n")
    for n, column in enumerate(columns):
        _write_summary(out, n, column, text, pieces[n])
    out.append(f"</aside>\n</main>\n<script>{_SCRIPT}</script>\n</body>\n</html>\n")
    return "".join(out)


def write(path: Union[str, "PathLike[str]"], text: str, chunkers: Chunkers, **kwargs: Any) -> Path:
    """Writes :func:`render`'s page (``kwargs`` are its keywords) to ``path`` in UTF-8; returns the path."""
    page = render(text, chunkers, **kwargs)
    target = Path(path)
    target.write_text(page, encoding="utf-8", errors="replace")  # a lone surrogate has no UTF-8 form
    return target


# -- chunks ---------------------------------------------------------------------------------------------------------


def _named(chunkers: Chunkers) -> List[Tuple[str, Any]]:
    if isinstance(chunkers, Mapping):
        items = [(str(name), chunker) for name, chunker in chunkers.items()]
    elif callable(getattr(chunkers, "chunk", None)):
        items = [(_name(chunkers), chunkers)]
    elif isinstance(chunkers, (list, tuple)):
        items = []
        seen: Dict[str, int] = {}
        for chunker in chunkers:
            name = _name(chunker)
            seen[name] = seen.get(name, 0) + 1
            items.append((name if seen[name] == 1 else f"{name} #{seen[name]}", chunker))
    else:
        raise TypeError(f"chunkers must be a chunker, a dict of name -> chunker or a list of chunkers, "
                        f"got {type(chunkers).__name__}")
    if not items:
        raise ValueError("chunkers is empty: give at least one chunker")
    for name, chunker in items:
        if not callable(getattr(chunker, "chunk", None)):
            raise TypeError(f"chunker {name!r} is a {type(chunker).__name__}, which has no chunk(text) method")
    return items


def _name(chunker: Any) -> str:
    """``RecursiveChunker(size=512, overlap=0)``: the class and the arguments that decide the sizes."""
    config = getattr(chunker, "config", None)
    if isinstance(config, Mapping):
        shown = ", ".join(f"{key}={config[key]}" for key in ("size", "overlap") if key in config)
        return f"{type(chunker).__name__}({shown})"
    return type(chunker).__name__


def _counter(tokenizer: Optional[Union[Tokenizer, str]]) -> Optional[Tokenizer]:
    if tokenizer is None or isinstance(tokenizer, Tokenizer):
        return tokenizer
    if isinstance(tokenizer, str):
        return Tokenizer.tiktoken(tokenizer)
    raise TypeError(f"tokenizer must be a chunkwise.Tokenizer or a tiktoken encoding name, "
                    f"got {type(tokenizer).__name__}")


def _column(name: str, chunker: Any, text: str, counter: Optional[Tokenizer]) -> _Column:
    chunks = []
    for position, chunk in enumerate(chunker.chunk(text)):
        start, end = chunk.start, chunk.end
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(text)):
            raise ValueError(f"chunker {name!r}: chunk {position} has offsets {start!r}..{end!r}, not within the "
                             f"text (0..{len(text)})")
        metadata = dict(getattr(chunk, "metadata", None) or {})
        tokens = getattr(chunk, "token_count", None)
        if tokens is None and counter is not None:
            tokens = counter.count(text[start:end])
        path = metadata.get("title_path")
        chunks.append(_Chunk(
            index=_int(getattr(chunk, "index", None), position),
            start=start,
            end=end,
            size=_int(getattr(chunk, "size", None), end - start),
            tokens=tokens,
            level=str(getattr(chunk, "level", "") or ""),
            title_path=[str(p) for p in path] if isinstance(path, (list, tuple)) else None,
            context=str(getattr(chunk, "context", "") or ""),
            metadata=metadata,
        ))
    return _Column(name, chunks, _unit(chunker))


def _unit(chunker: Any) -> str:
    """What a chunk's ``size`` counts: a chunkwise chunker's unit ("chars", "tokens"), else "size"."""
    config = getattr(chunker, "config", None)
    if not isinstance(config, Mapping):
        return "size"
    unit = config.get("unit")
    return str(unit) if unit is not None else ("chars" if config.get("tokenizer") is None else "tokens")


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) else default


def _segments(length: int, spans: Sequence[Tuple[int, int]]) -> List[Tuple[int, int, Tuple[int, ...]]]:
    """The text cut at every chunk boundary: ``(a, b, chunks)`` for each piece ``[a, b)``, where ``chunks`` are the
    positions (in ``spans``) of the chunks that hold it, in order; the pieces cover ``0..length`` whole.

    One sort of the boundaries, and a sweep that keeps the chunks open at the current offset (a few at most, as
    chunks overlap only their neighbours), so that a long text with thousands of chunks costs ``n log n``."""
    cuts = sorted({0, length, *(s for s, _ in spans), *(e for _, e in spans)})
    by_start = sorted(range(len(spans)), key=lambda i: spans[i][0])
    by_end = sorted(range(len(spans)), key=lambda i: spans[i][1])
    open_: Dict[int, None] = {}
    pieces = []
    s = e = 0
    for a, b in zip(cuts, cuts[1:]):
        while s < len(by_start) and spans[by_start[s]][0] <= a:
            open_[by_start[s]] = None
            s += 1
        while e < len(by_end) and spans[by_end[e]][1] <= a:
            open_.pop(by_end[e], None)
            e += 1
        pieces.append((a, b, tuple(sorted(open_))))
    return pieces


# -- the page -------------------------------------------------------------------------------------------------------


def _text(value: str) -> str:
    """Text content: escaped, and a carriage return written as a reference, which (unlike a raw one) the HTML parser
    keeps, so that the page's text is the document's, character for character."""
    return html.escape(value, quote=False).replace("\r", "&#13;")


def _attr(value: Any) -> str:
    return html.escape(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str),
                       quote=True).replace("\r", "&#13;").replace("\n", "&#10;")


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _write_column(out: List[str], n: int, column: _Column, text: str,
                  pieces: List[Tuple[int, int, Tuple[int, ...]]]) -> None:
    starts: Dict[int, List[int]] = {}
    for k, chunk in enumerate(column.chunks):
        starts.setdefault(chunk.start, []).append(k)
    out.append(f"<section class=\"col\" id=\"v{n}\" data-name=\"{_attr(column.name)}\" "
               f"data-chunks=\"{len(column.chunks)}\" data-unit=\"{column.unit}\">\n"
               f"<h2>{_text(column.name)}</h2>\n<p class=\"sum\">{_summary_line(column)}</p>\n<div class=\"doc\">")
    for a, b, held in pieces:
        for k in starts.pop(a, ()):
            out.append(_marker(n, k, column.chunks[k]))
        piece = _text(text[a:b])
        if not held:
            out.append(f"<span class=\"gap\">{piece}</span>")
        else:
            overlap = "" if len(held) == 1 else (" ov" if len(held) == 2 else " ov ov3")
            out.append(f"<span class=\"s p{held[-1] % len(PALETTE)}{overlap}\" "
                       f"data-c=\"{' '.join(map(str, held))}\">{piece}</span>")
    for k in (k for ks in starts.values() for k in ks):  # empty chunks at the very end
        out.append(_marker(n, k, column.chunks[k]))
    out.append("</div>\n</section>\n")


def _marker(n: int, k: int, chunk: _Chunk) -> str:
    """A chunk's own element, at its start: its badge, and its metadata for the side panel."""
    tokens = "" if chunk.tokens is None else f" data-tokens=\"{chunk.tokens}\""
    path = "" if chunk.title_path is None else f" data-path=\"{_attr(chunk.title_path)}\""
    context = f" data-context=\"{_attr(chunk.context)}\"" if chunk.context else ""
    others = {key: value for key, value in chunk.metadata.items() if key != "title_path"}
    meta = f" data-meta=\"{_attr(others)}\"" if others else ""
    return (f"<span class=\"mk p{k % len(PALETTE)}\" id=\"v{n}-c{k}\" data-k=\"{k}\" data-index=\"{chunk.index}\" "
            f"data-start=\"{chunk.start}\" data-end=\"{chunk.end}\" data-size=\"{chunk.size}\"{tokens} "
            f"data-level=\"{_attr(chunk.level)}\"{path}{context}{meta}></span>")


def _stats(column: _Column) -> Optional[Tuple[float, int, int]]:
    sizes = [c.size for c in column.chunks]
    return (sum(sizes) / len(sizes), min(sizes), max(sizes)) if sizes else None


def _summary_line(column: _Column) -> str:
    stats = _stats(column)
    if stats is None:
        return "no chunks"
    mean, low, high = stats
    return (f"{_plural(len(column.chunks), 'chunk')}, size ({column.unit}) mean {mean:,.1f}, min {low:,}, "
            f"max {high:,}")


def _write_summary(out: List[str], n: int, column: _Column, text: str,
                   pieces: List[Tuple[int, int, Tuple[int, ...]]]) -> None:
    overlap = sum(b - a for a, b, held in pieces if len(held) > 1)
    gaps = [text[a:b] for a, b, held in pieces if not held]
    gap_chars = sum(map(len, gaps))
    gap_text = sum(len("".join(g.split())) for g in gaps)
    tokens = [c.tokens for c in column.chunks if c.tokens is not None]
    rows = [("chunks", f"{len(column.chunks):,}")]
    stats = _stats(column)
    if stats is not None:
        rows += [(f"mean size ({column.unit})", f"{stats[0]:,.1f}"), ("min size", f"{stats[1]:,}"),
                 ("max size", f"{stats[2]:,}")]
    if tokens and len(tokens) == len(column.chunks):
        rows.append(("tokens in chunks", f"{sum(tokens):,}"))
    rows += [("chars in 2+ chunks", f"{overlap:,}"),
             ("chars in no chunk", f"{gap_chars:,}" + (f" ({gap_text:,} not whitespace)" if gap_text else ""))]
    table = "".join(f"<tr><th>{_text(k)}</th><td>{_text(v)}</td></tr>" for k, v in rows)
    out.append(f"<section class=\"stats\" id=\"s{n}\"><h2>{_text(column.name)}</h2><table>{table}</table>"
               f"{_histogram([c.size for c in column.chunks], column.unit)}</section>\n")


def _histogram(sizes: Sequence[int], unit: str, width: int = 280, height: int = 110) -> str:
    """Chunk sizes as an inline SVG bar chart (each bar's tooltip says its range and count)."""
    if not sizes:
        return ""
    low, high = min(sizes), max(sizes)
    span = high - low + 1
    bins = min(HISTOGRAM_BINS, span)
    counts = [0] * bins
    for size in sizes:
        counts[(size - low) * bins // span] += 1
    top = max(counts)
    plot_h, base = height - 30, height - 18
    bar_w = (width - 10) / bins
    bars = []
    for i, count in enumerate(counts):
        h = plot_h * count / top
        first, last = low - (-i * span // bins), low - (-(i + 1) * span // bins) - 1  # the sizes bar i counts
        label = f"{first:,}" if first >= last else f"{first:,}-{last:,}"
        bars.append(f"<rect x=\"{5 + i * bar_w:.1f}\" y=\"{base - h:.1f}\" width=\"{max(bar_w - 1, 0.5):.1f}\" "
                    f"height=\"{h:.1f}\"><title>{label} {unit}: {_plural(count, 'chunk')}</title></rect>")
    return (f"<svg class=\"hist\" role=\"img\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" "
            f"xmlns=\"http://www.w3.org/2000/svg\"><title>Chunk sizes ({unit})</title>{''.join(bars)}"
            f"<line x1=\"5\" y1=\"{base}\" x2=\"{width - 5}\" y2=\"{base}\" class=\"axis\"/>"
            f"<text x=\"5\" y=\"{height - 4}\">{low:,}</text>"
            f"<text x=\"{width - 5}\" y=\"{height - 4}\" text-anchor=\"end\">{high:,} {unit}</text>"
            f"<text x=\"5\" y=\"10\">{_plural(top, 'chunk')} in the highest bar</text></svg>")


def _style(columns: int) -> str:
    colours = "".join(f".p{i}{{background-color:{c}}}" for i, c in enumerate(PALETTE))
    return (
        "*{box-sizing:border-box}"
        "body{margin:0;height:100vh;display:flex;flex-direction:column;color:#222;background:#fafafa;"
        "font:14px/1.5 system-ui,'Noto Sans','Noto Sans CJK SC','Noto Sans CJK JP','WenQuanYi Micro Hei',sans-serif}"
        "header{padding:8px 16px;border-bottom:1px solid #ddd;background:#fff}"
        "header h1{font-size:18px;margin:0}header p{margin:2px 0 0;color:#555;font-size:12px}"
        "main{flex:1;min-height:0;display:grid;grid-template-columns:minmax(0,1fr) 320px}"
        f".cols{{display:grid;grid-template-columns:repeat({columns},minmax(0,1fr));gap:8px;padding:8px;"
        "min-height:0}"
        ".col{display:flex;flex-direction:column;min-height:0;background:#fff;border:1px solid #ddd;"
        "border-radius:4px}"
        ".col h2{font-size:14px;margin:6px 10px 0}.col .sum{font-size:12px;color:#555;margin:0 10px 6px}"
        ".doc{flex:1;overflow:auto;padding:6px 10px;white-space:pre-wrap;overflow-wrap:anywhere;"
        "border-top:1px solid #eee}"
        ".s{cursor:pointer}"
        ".ov{background-image:repeating-linear-gradient(135deg,rgba(0,0,0,.28) 0 1.5px,transparent 1.5px 5px);"
        "outline:1px dashed #444}"
        ".ov3{background-image:repeating-linear-gradient(135deg,rgba(0,0,0,.45) 0 2px,transparent 2px 4px)}"
        ".gap{color:#999}"
        ".mk{font:bold 9px/1 sans-serif;vertical-align:super;border-radius:3px;padding:0 2px;margin-right:1px;"
        "border:1px solid rgba(0,0,0,.3);cursor:pointer}.mk::before{content:attr(data-index)}"
        ".hl{outline:2px solid #d33;outline-offset:-1px}"
        ".panel{overflow:auto;padding:8px;border-left:1px solid #ddd;background:#fff;font-size:12px}"
        ".panel h2{font-size:13px;margin:8px 0 4px}.hint{color:#777}"
        ".panel table{border-collapse:collapse;width:100%}.panel th{text-align:left;font-weight:normal;color:#555;"
        "padding:1px 6px 1px 0;vertical-align:top;white-space:nowrap}.panel td{overflow-wrap:anywhere}"
        ".panel pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:4px;margin:4px 0;"
        "max-height:30vh;overflow:auto}"
        ".stats{border-top:1px solid #eee;margin-top:8px}"
        ".hist rect{fill:#6a8fd8}.hist rect:hover{fill:#d33}.hist text{font-size:10px;fill:#555}"
        ".hist .axis{stroke:#999}"
        + colours
    )


# The side panel: the metadata of the chunk(s) under the pointer, read from their marker elements and written with
# textContent only (never innerHTML), so no text of the document is ever parsed as markup.
_SCRIPT = r"""
(() => {
  const detail = document.getElementById('detail');
  let lit = [], pinned = null;
  const add = (parent, tag, text, cls) => {
    const el = document.createElement(tag);
    if (text !== undefined) el.textContent = text;
    if (cls) el.className = cls;
    parent.appendChild(el);
    return el;
  };
  function target(el) {
    const hit = el.closest && el.closest('.s,.mk');
    if (!hit) return null;
    const col = hit.closest('.col');
    return {col, ks: hit.classList.contains('mk') ? [hit.dataset.k] : hit.dataset.c.split(' ')};
  }
  function show(t) {
    lit.forEach(e => e.classList.remove('hl'));
    lit = [];
    detail.replaceChildren();
    add(detail, 'h2', t ? t.col.dataset.name : 'Chunk');
    if (!t) { add(detail, 'p', 'Hover over a chunk, or click one to pin it (Esc unpins).', 'hint'); return; }
    if (t.ks.length > 1) add(detail, 'p', 'Overlap: this text is in ' + t.ks.length + ' chunks.', 'hint');
    for (const k of t.ks) {
      const m = document.getElementById(t.col.id + '-c' + k);
      const parts = t.col.querySelectorAll('.s[data-c~="' + k + '"]');
      parts.forEach(e => e.classList.add('hl'));
      lit.push(...parts);
      const d = m.dataset, rows = [['index', d.index], ['start..end', d.start + '..' + d.end],
        ['size (' + t.col.dataset.unit + ')', d.size], ['characters', d.end - d.start]];
      if (d.tokens !== undefined) rows.push(['tokens', d.tokens]);
      rows.push(['level', d.level]);
      if (d.path !== undefined) rows.push(['title path', JSON.parse(d.path).join(' > ')]);
      if (d.context !== undefined) rows.push(['context', d.context]);
      if (d.meta !== undefined) for (const [key, v] of Object.entries(JSON.parse(d.meta)))
        rows.push([key, typeof v === 'string' ? v : JSON.stringify(v)]);
      const table = add(detail, 'table');
      for (const [key, v] of rows) { const tr = add(table, 'tr'); add(tr, 'th', key); add(tr, 'td', String(v)); }
      let body = '';
      for (const e of parts) { body += e.textContent; if (body.length > PREVIEW) break; }
      add(detail, 'pre', body.length > PREVIEW ? body.slice(0, PREVIEW) + ' ...' : body);
    }
  }
  const same = (a, b) => a && b && a.col === b.col && a.ks.join() === b.ks.join();
  document.querySelectorAll('.doc').forEach(doc => {
    doc.addEventListener('mouseover', e => { if (!pinned) { const t = target(e.target); if (t) show(t); } });
    doc.addEventListener('click', e => {
      const t = target(e.target);
      pinned = t && !same(t, pinned) ? t : null;
      show(pinned || t);
    });
  });
  document.addEventListener('keydown', e => { if (e.key === 'Escape') { pinned = null; show(null); } });
  const hash = location.hash.slice(1), start = hash && document.getElementById(hash);
  if (start && start.classList.contains('mk')) {
    start.scrollIntoView({block: 'center'});
    pinned = target(start);
    show(pinned);
  }
})();
""".replace("PREVIEW", str(PREVIEW_CHARS))

