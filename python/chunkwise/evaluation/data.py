"""Evaluation data: corpora and questions with the exact excerpts that answer them, in Chroma's format (a CSV with
``question``, ``references`` (a JSON list of ``{content, start_index, end_index}`` in ``str`` offsets) and
``corpus_id``) or the same fields as JSON lines. Every excerpt is checked against its corpus on load."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

PathLike = Union[str, Path]


@dataclass(frozen=True)
class Reference:
    """An excerpt of a corpus that answers a question: ``corpus[start:end] == content`` (``str`` offsets)."""

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Question:
    """A question, the corpus it is asked of, and the excerpts that answer it."""

    text: str
    corpus_id: str
    references: Tuple[Reference, ...]


@dataclass(frozen=True)
class Dataset:
    """Corpora (id -> text) and the questions asked of them."""

    corpora: Mapping[str, str]
    questions: Tuple[Question, ...]

    def __post_init__(self) -> None:
        for i, q in enumerate(self.questions):
            _check_question(self.corpora, q, f"questions[{i}]")

    def __len__(self) -> int:
        return len(self.questions)

    def subset(self, corpus_ids: Iterable[str]) -> "Dataset":
        """The questions of some corpora only, with those corpora."""
        keep = set(corpus_ids)
        unknown = keep - set(self.corpora)
        if unknown:
            raise ValueError(f"corpus_ids: no corpus {sorted(unknown)[0]!r} (known: {sorted(self.corpora)})")
        return Dataset({c: t for c, t in self.corpora.items() if c in keep},
                       tuple(q for q in self.questions if q.corpus_id in keep))


def _check_question(corpora: Mapping[str, str], q: Question, where: str) -> None:
    if q.corpus_id not in corpora:
        raise ValueError(f"{where}: corpus_id {q.corpus_id!r} names no corpus (known: {sorted(corpora)})")
    if not q.references:
        raise ValueError(f"{where}: no references: a question needs at least one excerpt that answers it")
    text = corpora[q.corpus_id]
    for j, r in enumerate(q.references):
        if not 0 <= r.start < r.end <= len(text):
            raise ValueError(f"{where}, reference {j}: [{r.start}, {r.end}) is not a non-empty range of "
                             f"{q.corpus_id!r} ({len(text)} characters)")
        if text[r.start:r.end] != r.content:
            found = text.find(r.content)
            hint = f"; the content is at {found}" if found >= 0 else "; the content is nowhere in the corpus"
            raise ValueError(f"{where}, reference {j}: {q.corpus_id!r}[{r.start}:{r.end}] is not its content "
                             f"(str offsets, not bytes){hint}")


def load_dataset(questions: PathLike, corpora: Optional[Mapping[str, PathLike]] = None) -> Dataset:
    """Reads questions (``.csv`` in Chroma's layout, or ``.jsonl``: one object per line with the same fields, where
    ``references`` may be a list or its JSON text) and the corpora they name. ``corpora`` maps a ``corpus_id`` to its
    file; without it, a ``corpus_id`` is a path relative to the questions file's folder, or (as in Chroma's general
    evaluation data) a bare name found as ``corpora/<name>.md`` or ``corpora/<name>.txt`` there. A clear error names
    the row of any excerpt that is not its corpus's text at its offsets."""
    path = Path(questions)
    if not path.is_file():
        raise FileNotFoundError(f"questions: no file {str(path)!r}")
    rows = list(_rows(path))
    texts: Dict[str, str] = {}
    parsed: List[Question] = []
    for where, row in rows:
        for key in ("question", "references", "corpus_id"):
            if key not in row:
                raise ValueError(f"{where}: no {key!r} field (Chroma's layout: question, references, corpus_id)")
        corpus_id = str(row["corpus_id"])
        if corpus_id not in texts:
            texts[corpus_id] = _corpus_text(path.parent, corpus_id, corpora, where)
        refs = row["references"]
        if isinstance(refs, str):
            refs = _json(refs, f"{where}: references")
        if not isinstance(refs, list):
            raise ValueError(f"{where}: references must be a list of {{content, start_index, end_index}}")
        references = []
        for j, ref in enumerate(refs):
            try:
                references.append(Reference(int(ref["start_index"]), int(ref["end_index"]), str(ref["content"])))
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"{where}, reference {j}: needs content, start_index and end_index") from None
        q = Question(str(row["question"]), corpus_id, tuple(references))
        _check_question(texts, q, where)
        parsed.append(q)
    if not parsed:
        raise ValueError(f"questions: {str(path)!r} holds no question")
    return Dataset(texts, tuple(parsed))


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not JSON: {exc}") from None


def _rows(path: Path) -> Iterable[Tuple[str, Dict[str, Any]]]:
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                row = _json(line, f"{path.name} line {n}")
                if not isinstance(row, dict):
                    raise ValueError(f"{path.name} line {n}: not a JSON object")
                yield f"{path.name} line {n}", row
        return
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        for n, row in enumerate(reader, 1):
            # pandas writes an unnamed index column first; it is not a field
            yield f"{path.name} row {n}", {k: v for k, v in row.items() if k}


def _corpus_text(base: Path, corpus_id: str, corpora: Optional[Mapping[str, PathLike]], where: str) -> str:
    if corpora is not None:
        if corpus_id not in corpora:
            raise ValueError(f"{where}: corpus_id {corpus_id!r} is not in corpora (known: {sorted(corpora)})")
        candidates = [Path(corpora[corpus_id])]
    else:
        candidates = [base / corpus_id, base / "corpora" / f"{corpus_id}.md", base / "corpora" / f"{corpus_id}.txt"]
    for candidate in candidates:
        if candidate.is_file():
            # newline="": offsets count a "\r\n" as two characters, as the file holds them
            with open(candidate, encoding="utf-8", newline="") as f:
                return f.read()
    raise FileNotFoundError(f"{where}: no corpus file for corpus_id {corpus_id!r} (looked for "
                            f"{', '.join(str(c) for c in candidates)})")
