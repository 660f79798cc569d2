"""AutoChunker: the strategy each document gets, by file name and by content, and the chunks it then gives."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from chunkwise import (
    AutoChunker,
    ChunkingError,
    ClauseChunker,
    CodeChunker,
    MarkdownChunker,
    RecursiveChunker,
    TableChunker,
)
from support.corpus import DATA


STATUTE_ZH = "\n\n".join(
    f"第{n}条 为了规范{topic}的管理，保障当事人的合法权益，根据有关法律，制定本条。" for n, topic in
    zip("一二三四五六七八", ["数据", "网络", "个人信息", "档案", "统计", "标准", "计量", "认证"])
)
STATUTE_EN = "\n\n".join(
    f"Article {n}. The {what} shall be kept by the controller for no longer than is necessary." for n, what in
    enumerate(["record", "log", "copy", "archive", "index"], start=1)
)
BOOK_ZH = "第一章 开始\n\n" + "这是一本书的正文，讲述了很多故事。" * 40 + "\n\n第二章 继续\n\n" + "故事还在继续。" * 40
CSV = "name,age,city\n" + "\n".join(f"person{i},{20 + i},city{i}" for i in range(12)) + "\n"
TSV = "name\tage\tcity\n" + "\n".join(f"person{i}\t{20 + i}\tcity{i}" for i in range(12)) + "\n"
MARKDOWN_TXT = "# Notes\n\nSome intro.\n\n## Install\n\nRun `pip install x`.\n\n## Use\n\n- one\n- two\n"
SCRIPT = "#!/usr/bin/env python3\nimport sys\n\n\ndef main():\n    print(sys.argv)\n\n\nmain()\n"
PYTHON_NO_NAME = (DATA / "code.py").read_text(encoding="utf-8")[:20_000]


@pytest.mark.parametrize(
    "name, strategy",
    [("en.txt", "prose"), ("zh.txt", "prose"), ("ja.txt", "prose"), ("mixed.md", "markdown"),
     ("code.py", "code"), ("table.md", "markdown"), ("code/itoa_lib.rs", "code"), ("code/nbagg_mpl.js", "code")],
)
def test_corpus_files_by_name_and_by_content(name, strategy):
    text = (DATA / name).read_text(encoding="utf-8")
    auto = AutoChunker(512)
    by_name = auto.choose(text, name)
    by_content = auto.choose(text)
    assert by_name.strategy == strategy, by_name
    assert by_content.strategy == strategy, by_content
    chunks = auto.chunk(text, {"source": name})
    assert chunks and all(text[c.start : c.end] == c.text for c in chunks)
    assert {c.metadata["strategy"] for c in chunks} == {strategy}
    assert chunks[0].metadata["strategy_reason"] == by_name.reason
    if strategy == "code":
        language = {"code.py": "python", "code/itoa_lib.rs": "rust", "code/nbagg_mpl.js": "javascript"}[name]
        assert {c.metadata["language"] for c in chunks} == {language}
        # The same chunks as the chunker of that kind.
        assert [c.text for c in chunks] == [c.text for c in CodeChunker(512).chunk(text, {"source": name})]


@pytest.mark.parametrize(
    "text, source, strategy, reason",
    [
        (MARKDOWN_TXT, "notes.txt", "markdown", "content: Markdown"),
        (MARKDOWN_TXT, None, "markdown", "content: Markdown (3 headings"),
        (SCRIPT, "run", "code", "content: shebang"),
        (PYTHON_NO_NAME, "tool", "code", "lines shaped like code"),
        (CSV, None, "table", "fields"),
        (CSV, "people.csv", "table", "file name .csv"),
        (TSV, "people.txt", "table", "tsv fields"),
        (STATUTE_ZH, "law.txt", "clause", "numbered provisions"),
        (STATUTE_EN, None, "clause", "numbered provisions"),
        (BOOK_ZH, None, "prose", "content: prose"),
        ("", None, "prose", "no lines"),
        ("Just a sentence, with a comma.", "x.txt", "prose", "content: prose"),
    ],
)
def test_edge_cases(text, source, strategy, reason):
    auto = AutoChunker(200)
    choice = auto.choose(text, source)
    assert choice.strategy == strategy and reason in choice.reason, choice
    chunks = auto.chunk(text, {"source": source} if source else None)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert all(c.metadata["strategy"] == strategy for c in chunks)
    expected = {"markdown": MarkdownChunker, "code": CodeChunker, "table": TableChunker, "clause": ClauseChunker,
                "prose": RecursiveChunker}[strategy]
    assert isinstance(auto.chunker_for(choice), expected)


def test_a_file_named_as_a_table_that_is_not_one_is_prose_and_says_why():
    text = 'name,"an open quote\n' + "Just prose here. " * 20
    chunks = AutoChunker(100).chunk(text, {"source": "broken.csv"})
    assert {c.metadata["strategy"] for c in chunks} == {"prose"}
    reason = chunks[0].metadata["strategy_reason"]
    assert reason.startswith("file name .csv, but not a csv table (") and "unterminated quote" in reason
    assert [c.text for c in chunks] == RecursiveChunker(100).split(text)


def test_overrides_batch_pickle_and_bad_input():
    md = MarkdownChunker(80, merge_sections=False)
    auto = AutoChunker(300, markdown=md)
    assert auto.chunker_for(auto.choose(MARKDOWN_TXT)) is md
    texts = [MARKDOWN_TXT, CSV, STATUTE_ZH, PYTHON_NO_NAME, "plain words here", ""]
    metas = [None, {"source": "p.csv"}, {"doc_id": "law"}, {"source": "tool"}, None, None]
    assert auto.chunk_batch(texts, metas) == [auto.chunk(t, m) for t, m in zip(texts, metas)]
    assert [c.text for c in auto.chunk(MARKDOWN_TXT)] == md.split(MARKDOWN_TXT)
    clone = pickle.loads(pickle.dumps(auto))
    assert clone == auto and repr(clone) == repr(auto)
    assert clone.chunk(MARKDOWN_TXT) == auto.chunk(MARKDOWN_TXT)
    assert auto.spans(CSV).tolist() == TableChunker(300, format="csv").spans(CSV).tolist()
    assert auto.split(STATUTE_ZH) == ClauseChunker(300).split(STATUTE_ZH)
    pages = ["Page one. " * 5, "Page two. " * 5]
    paged = auto.chunk(pages=pages)
    assert (paged[0].metadata["page_start"], paged[-1].metadata["page_end"]) == (1, 2)
    with pytest.raises(TypeError, match="markdown must be a chunkwise chunker"):
        AutoChunker(markdown="md")  # type: ignore[arg-type]
    with pytest.raises(ChunkingError, match="'strategy' is set by AutoChunker"):
        auto.chunk("text", {"strategy": "mine"})
    with pytest.raises(TypeError, match="text must be a str"):
        auto.choose(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(ChunkingError, match=r"one entry per text \(2\), got 1"):
        auto.chunk_batch(["a", "b"], [None])


CJK_MARKDOWN = "# 说明\n\n这是第一段，介绍本项目。\n\n## 安装\n\n运行安装程序。\n\n## 使用\n\n- 第一步\n- 第二步\n"
CJK_PROSE = "这是一段很长的中文文字，讲述了一个故事。" * 30 + "\n\n" + "日本語の文章もここにあります。" * 20
QUOTED_CSV = 'name,address,note\n"Ada","12, Lane","says ""hi"""\n"Alan","3, Road",x\n"Grace","",y\n'
ONE_LINK = "See [the docs](https://example.org/docs) for more.\n\nThat is all there is to it, really.\n"


@pytest.mark.parametrize(
    "text, strategy, reason, detail",
    [
        (MARKDOWN_TXT.replace("\n", "\r\n"), "markdown", "content: Markdown (3 headings", None),
        ("\ufeff" + MARKDOWN_TXT, "markdown", "content: Markdown (3 headings", None),
        ("\ufeff" + SCRIPT, "code", "content: shebang #!/usr/bin/env python3", "python"),
        (SCRIPT.replace("\n", "\r\n"), "code", "content: shebang", "python"),
        ("", "prose", "content: no lines", None),
        (" \n\t\r\n\u3000\n", "prose", "content: no lines", None),
        ("\n" * 500 + MARKDOWN_TXT, "markdown", "content: Markdown (3 headings", None),
        (MARKDOWN_TXT.replace("\n", "\r"), "markdown", "content: Markdown (3 headings", None),
        ("One line of text.", "prose", "content: prose", None),
        (CJK_PROSE, "prose", "content: prose", None),
        (CJK_MARKDOWN, "markdown", "content: Markdown (3 headings)", None),
        (QUOTED_CSV, "table", "content: 4 lines of the same number of csv fields", "csv"),
        (QUOTED_CSV.replace("\n", "\r\n"), "table", "content: 4 lines of the same number of csv fields", "csv"),
        (TSV, "table", "content: 13 lines of the same number of tsv fields", "tsv"),
        (ONE_LINK, "prose", "content: prose", None),
        ("a,b,c\n1,2\n3,4,5\n", "prose", "content: prose", None),
        (STATUTE_ZH.replace("\n", "\r\n"), "clause", "content: 8 numbered provisions in 8 lines", None),
        ("Article 5 of the Act applies.\nArticle 6 of the Act too.\nArticle 7 of the Act also.\n", "prose",
         "content: prose", None),
        ("#!/usr/bin/perl -w\nuse strict;\nprint 1;\n", "code", "content: shebang #!/usr/bin/perl -w", None),
    ],
)
def test_content_edge_cases(text, strategy, reason, detail):
    choice = AutoChunker(200).choose(text)
    assert (choice.strategy, choice.table_format or choice.language) == (strategy, detail), choice
    assert choice.reason.startswith(reason), choice
    chunks = AutoChunker(200).chunk(text)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert all(c.metadata["strategy"] == strategy for c in chunks)


def test_names_paths_languages_and_bad_input():
    auto = AutoChunker()
    header = "#pragma once\n#include <vector>\nnamespace geo {\nclass A {\npublic:\n  std::vector<int> x;\n};\n}\n"
    assert auto.choose(header, "geo/a.h") == ("code", "file name .h: cpp", None, "cpp")
    assert auto.choose("int f(void);\n", Path("geo/a.h")) == ("code", "file name .h: c", None, "c")
    assert auto.choose("", "x/Gemfile") == ("code", "file name Gemfile: ruby", None, "ruby")
    assert auto.choose("", "NOTES.MKD") == ("markdown", "file name .mkd", None, None)
    assert auto.choose("a\tb\n", "t.tab") == ("table", "file name .tab", "tsv", None)
    # The code chunker's own choice of language agrees with the detector's.
    code = (DATA / "code" / "itoa_lib.rs").read_text(encoding="utf-8")
    assert auto.choose(code).language == "rust"
    assert {c.metadata["language"] for c in auto.chunk(code)} == {"rust"}
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        auto.choose(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="source must be a str or a path, got int"):
        auto.choose("text", 3)  # type: ignore[arg-type]
    with pytest.raises(ChunkingError, match="text holds a lone surrogate"):
        auto.choose("a\ud800b")


def test_a_large_text_is_judged_by_a_sample_of_windows():
    # Markdown past the first windows is still seen; a text of one long line is cut at char boundaries.
    md = "Intro words.\n\n" * 40_000 + "## Part\n\nSome text.\n\n" * 40_000
    assert AutoChunker().choose(md).strategy == "markdown"
    assert AutoChunker().choose("é中" * 300_000).strategy == "prose"
    statute = "第一条 规定。\n" * 100_000
    assert AutoChunker().choose(statute).reason.startswith("content: ")
    assert AutoChunker().choose(statute).strategy == "clause"


def test_the_core_judges_utf8_bytes_as_their_text():
    """``chunkwise chunk --strategy auto`` hands the core a file's bytes undecoded: the same choice as its text, and
    bytes that stop being UTF-8 are judged up to there (chunking then reports them)."""
    from chunkwise import _core

    for name in ("mixed.md", "zh.txt", "code.py"):
        text = (DATA / name).read_text(encoding="utf-8")
        assert _core.detect(text.encode("utf-8")) == _core.detect(text)
        assert _core.detect(text.encode("utf-8"), name) == _core.detect(text, name)
    head = "# Title\n\nSome words.\n\n## Part\n\nMore.\n"
    assert _core.detect(head.encode() + b"\xff\xfe tail") == _core.detect(head)
    with pytest.raises(TypeError, match="text must be a str \\(or UTF-8 bytes\\), got int"):
        _core.detect(3)  # type: ignore[arg-type]
