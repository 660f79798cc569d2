"""The stores the ingestion tests run over (a pytest plugin, loaded by tests/conftest.py).

``store_uri`` is parametrized over :data:`support.ingest_tree.STORES`: a function ``store_uri(name) -> URI`` that
gives each name a new, empty store of that kind, private to the test (a folder for LanceDB and for Qdrant's local
mode; a database of its own on a PostgreSQL server that the session starts once, with pgserver, and stops and
deletes at its end)."""

from __future__ import annotations

import itertools
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterator

import pytest

from support.ingest_tree import STORES

_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A PostgreSQL 16 server with pgvector (pgserver's), on a socket in a folder of its own, for the session."""
    pytest.importorskip("psycopg")
    pytest.importorskip("pgvector")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR on a CI machine, a fallback is used
        pgserver = pytest.importorskip("pgserver")
    # Not under pytest's folder: a later pytest session takes the group's and others' access to it away, and the
    # server (run as the user pgserver when root starts it) would lose its files while this one still stops it.
    base = Path(tempfile.mkdtemp(prefix="chunkwise-postgres-"))
    server = pgserver.get_server(base / "data", cleanup_mode="delete")
    try:
        yield server
    finally:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


def new_database(server: Any) -> str:
    """The URI of a new, empty database on ``server``."""
    import psycopg

    name = f"chunkwise_test_{next(_databases)}"
    with psycopg.connect(server.get_uri(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    uri: str = server.get_uri(name)
    return uri


@pytest.fixture(params=STORES)
def store_uri(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], str]:
    """``store_uri(name)``: the URI of a store of this kind, new and empty the first time a test names it."""
    made: Dict[str, str] = {}
    if request.param == "lance":
        pytest.importorskip("lancedb")

        def make(name: str) -> str:
            return str(tmp_path / name)
    elif request.param == "qdrant":
        pytest.importorskip("qdrant_client")

        def make(name: str) -> str:
            return f"qdrant://{tmp_path / name}"
    else:
        server = request.getfixturevalue("postgres")

        def make(name: str) -> str:
            return new_database(server)

    def store(name: str = "index") -> str:
        if name not in made:
            made[name] = make(name)
        return made[name]

    return store
