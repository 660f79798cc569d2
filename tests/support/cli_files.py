"""Files for the command-line tests: folders written from a dict, and the JSON lines read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List


def write_files(folder: Path, files: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def lines_of(path: Path) -> List[Dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def by_source(rows: List[Dict]) -> Dict[str, List[Dict]]:
    out: Dict[str, List[Dict]] = {}
    for row in rows:
        out.setdefault(Path(row["source"]).name, []).append(row)
    return out
