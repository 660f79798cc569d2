"""The store fixture of the ingestion tests: each store-generic test runs over every store in ``STORES``."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from support.ingest_tree import STORES, store_uri


@pytest.fixture(params=list(STORES))
def store(request, tmp_path: Path) -> Callable[[str], str]:
    """``store(name)``: the URI of a store of this kind in the folder ``tmp_path / name``."""
    pytest.importorskip(STORES[request.param])
    return lambda name: store_uri(request.param, tmp_path / name)
