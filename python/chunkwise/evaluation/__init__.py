"""Evaluation built in: how well do a chunker's chunks serve retrieval on a question set?

    from chunkwise.evaluation import load_dataset, evaluate
    report = evaluate(load_dataset("questions.csv"), {"recursive-400": RecursiveChunker(400)})
    print(report.table())

See ``metrics`` for what is measured (Chroma's token-level recall, precision and IoU; hit rate, MRR, nDCG),
``data`` for the question format, ``retrieval`` for BM25 and embedding search, ``spans`` for the chunkers taken.
"""

from .data import Dataset, Question, Reference, load_dataset
from .embedders import BertEmbedder, OnnxEmbedder, minilm, read_safetensors, sentence_transformers_embedder
from .metrics import METRICS, Scores, Units, score
from .retrieval import BM25, Dense, EmbeddingCache, analyze
from .run import Report, Result, evaluate
from .spans import locate, spans_function

__all__ = [
    "BM25", "BertEmbedder", "Dataset", "Dense", "EmbeddingCache", "METRICS", "OnnxEmbedder", "Question", "Reference", "Report", "Result", "Scores",
    "Units", "analyze", "evaluate", "load_dataset", "locate", "minilm", "read_safetensors", "score",
    "sentence_transformers_embedder", "spans_function",
]
