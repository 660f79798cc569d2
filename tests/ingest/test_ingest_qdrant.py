"""chunkwise.ingest's Qdrant store (local mode) beside the store-generic tests of test_ingest.py: its folder is one
run's at a time, a collection that is not chunkwise's is refused, and vectors come back as written (a cosine
collection keeps them normalized). Also, over every store, the vectors read back are the model's to the bit."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from chunkwise import ChunkingError
from chunkwise.ingest import ingest, open_store
from support.ingest_tree import HashEmbedder, hash_vector, make_tree


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return make_tree(tmp_path)


def test_vectors_read_back_are_the_ones_written(docs: Path, store_uri: Callable[..., str]) -> None:
    """Not unit vectors (a cosine store may keep its vectors normalized): each row's vector is, to the bit, what the
    model returned for its text, and so is a vector the store gives back for reuse."""

    def scaled(texts):
        return np.stack([hash_vector(t) * (1.0 + len(t) % 7) for t in texts]).astype(np.float32)

    into = store_uri("index")
    ingest(docs, into, scaled, embed_id="scaled")
    store = open_store(into, write=False)
    try:
        rows = store.rows(sorted(store.documents()))
    finally:
        store.close()
    assert rows and all(r["vector"].dtype == np.float32 for r in rows)
    assert all(np.array_equal(r["vector"], scaled([r["embedding_text"]])[0]) for r in rows)
    assert any(abs(float(np.linalg.norm(r["vector"])) - 1.0) > 0.5 for r in rows)


def test_a_qdrant_store_is_one_run_at_a_time(docs: Path, tmp_path: Path) -> None:
    """A second run is refused, naming the store, before it embeds anything: by the run lock, and by Qdrant's own
    lock of its folder for any other client; and a collection that is not chunkwise's is refused too."""
    pytest.importorskip("qdrant_client")
    from qdrant_client import QdrantClient, models

    into = f"qdrant://{tmp_path / 'index'}"
    ingest(docs, into, HashEmbedder())
    held = open_store(into)
    try:
        embed = HashEmbedder()
        with pytest.raises(ChunkingError, match="another run is writing") as info:
            ingest(docs, into, embed, lock_timeout=0)
        assert repr(into) in str(info.value) and embed.texts == []
        with pytest.raises(ChunkingError, match="cannot open") as info:
            ingest(docs, into, embed, table="other", lock_timeout=0)
        assert repr(into) in str(info.value) and embed.texts == []
    finally:
        held.close()
    client = QdrantClient(path=str(tmp_path / "index"))
    client.create_collection("named", vectors_config={"v": models.VectorParams(size=4, distance=models.Distance.DOT)})
    client.close()
    with pytest.raises(ChunkingError, match="'named' is not a chunkwise collection"):
        ingest(docs, into, HashEmbedder(), table="named")
    assert ingest(docs, into, HashEmbedder()).documents_unchanged == 7
    with pytest.raises(ChunkingError, match="no folder after qdrant://"):
        ingest(docs, "qdrant://", HashEmbedder())


def test_a_qdrant_folder_that_cannot_be_written_names_its_uri(docs: Path, tmp_path: Path) -> None:
    pytest.importorskip("qdrant_client")
    (tmp_path / "file").write_text("x")
    into = f"qdrant://{tmp_path / 'file' / 'index'}"
    embed = HashEmbedder()
    with pytest.raises(ChunkingError) as info:
        ingest(docs, into, embed)
    assert repr(into) in str(info.value) and embed.texts == []
