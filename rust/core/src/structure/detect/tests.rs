use super::*;

fn kind(text: &str) -> (Kind, String) {
    let d = by_content(text);
    (d.kind, d.reason)
}

const MARKDOWN: &str =
    "# Notes\n\nSome intro.\n\n## Install\n\nRun `pip install x`.\n\n## Use\n\n- one\n- two\n";
const CSV: &str = "name,age,city\nAda,36,London\nAlan,41,Wilmslow\nGrace,85,Arlington\n";

#[test]
fn by_name_markdown_tables_and_code() {
    let d = detect("whatever", Some("docs/README.MD"));
    assert_eq!(
        (d.kind, d.reason.as_str()),
        (Kind::Markdown, "file name .md")
    );
    let d = detect("x", Some("data/people.tab"));
    assert_eq!((d.kind, d.format), (Kind::Table, Some(TableFormat::Tsv)));
    assert_eq!(d.reason, "file name .tab");
    let d = detect("", Some(r"C:\src\main.RS"));
    assert_eq!((d.kind, d.language), (Kind::Code, Some("rust")));
    assert_eq!(d.reason, "file name .rs: rust");
    // A whole file name says it (no suffix), and a leading dot starts none.
    assert_eq!(
        detect("", Some("x/Gemfile")).reason,
        "file name Gemfile: ruby"
    );
    assert_eq!(
        detect("", Some(".bashrc")).reason,
        "file name .bashrc: bash"
    );
    // A header is C++ when its content says so.
    let header = "#pragma once\n#include <vector>\nnamespace geo {\nclass A {\npublic:\n  std::vector<int> x;\n};\n}\n";
    assert_eq!(detect(header, Some("a.h")).language, Some("cpp"));
    assert_eq!(detect("int f(void);\n", Some("a.h")).language, Some("c"));
    // A name that says nothing leaves it to the content.
    assert_eq!(detect(MARKDOWN, Some("notes.txt")).kind, Kind::Markdown);
    assert_eq!(detect(CSV, Some("noext")).kind, Kind::Table);
}

#[test]
fn empty_blank_and_one_line_texts_are_prose() {
    for text in ["", "\n\n", "  \t\r\n\u{3000}\n", "\u{feff}"] {
        assert_eq!(
            kind(text),
            (Kind::Prose, "content: no lines".to_owned()),
            "{text:?}"
        );
    }
    assert_eq!(kind("Just a sentence, with a comma.").0, Kind::Prose);
    assert_eq!(kind("这是一句话，没有别的。").0, Kind::Prose);
    assert_eq!(kind("éé").0, Kind::Prose);
}

#[test]
fn shebangs_with_and_without_a_known_language() {
    let d = by_content("#!/usr/bin/env python3\nimport sys\nprint(sys.argv)\n");
    assert_eq!((d.kind, d.language), (Kind::Code, Some("python")));
    assert_eq!(d.reason, "content: shebang #!/usr/bin/env python3");
    // After a byte order mark and blank lines; CRLF.
    let d = by_content("\u{feff}\r\n#!/bin/sh\r\necho hi\r\n");
    assert_eq!((d.kind, d.language), (Kind::Code, Some("bash")));
    // Perl is code, of no language CodeChunker knows.
    let d = by_content("#! /usr/bin/perl -w\nprint 1;\n");
    assert_eq!((d.kind, d.language), (Kind::Code, None));
    // "#!" and no interpreter is not a shebang.
    assert_eq!(kind("#!!! wow\n\nWhat a day it was.\n").0, Kind::Prose);
}

#[test]
fn code_by_the_shape_of_its_lines() {
    let rust =
        "use std::io;\n\nfn main() {\n    let mut x = 1;\n    x += 2;\n    println!(\"{x}\");\n}\n";
    let d = by_content(rust);
    assert_eq!((d.kind, d.language), (Kind::Code, Some("rust")));
    assert!(d.reason.ends_with("lines shaped like code"), "{}", d.reason);
    // A long licence at the head does not hide the code below it: lines come from all over the text.
    let licence = "This program is free software: you may share it\nunder the terms of the licence that came with it.\n".repeat(150);
    let body = "def f(x):\n    y = x + 1\n    return y\n\n".repeat(400);
    assert_eq!(by_content(&format!("{licence}\n{body}")).kind, Kind::Code);
    // `#` lines are comments to this test (Markdown's come after it): a licence in a file with nothing else.
    assert_eq!(kind("# one\n# two\n# three\n").0, Kind::Code);
    assert_eq!(kind("# one\n# two\nx = 1\n").0, Kind::Code);
    // Prose that mentions code is prose.
    let prose = "The function returns a value. Call it when you need one.\n\nIt is quick.\n";
    assert_eq!(kind(prose).0, Kind::Prose);
    for line in [
        "x = 1",
        "a.b[k] += 2",
        "def f():",
        "}",
        "// note",
        "# comment",
        "foo(1, 2);",
        "\"a\",",
    ] {
        assert!(looks_like_code(line), "{line}");
    }
    for line in ["x == 1 is a test", "## Heading", "Just words.", "#"] {
        assert_eq!(looks_like_code(line), line == "#", "{line}");
    }
}

#[test]
fn tables_csv_tsv_quoted_and_not() {
    let d = by_content(CSV);
    assert_eq!((d.kind, d.format), (Kind::Table, Some(TableFormat::Csv)));
    assert_eq!(
        d.reason,
        "content: 4 lines of the same number of csv fields"
    );
    let tsv = CSV.replace(',', "\t");
    assert_eq!(by_content(&tsv).format, Some(TableFormat::Tsv));
    // Quoted commas, a quoted line break, CRLF, a byte order mark.
    let quoted = "\u{feff}name,address,city\r\n\"Ada\",\"12, Lane\",London\r\n\"Alan\",\"3\r\nRoad, x\",Wilmslow\r\n\"Grace\",\"\",Arlington\r\n";
    assert_eq!(by_content(quoted).format, Some(TableFormat::Csv));
    // Rows of different widths, two fields in too few rows, an open quote: no table.
    assert_eq!(kind("a,b,c\n1,2\n3,4,5\n").0, Kind::Prose);
    assert_eq!(kind("a,b\n1,2\n3,4\n").0, Kind::Prose);
    assert_eq!(by_content("a,b\n1,2\n3,4\n5,6\n7,8\n").kind, Kind::Table);
    assert_eq!(kind("a,\"b\nc,d,e\nf,g,h\n").0, Kind::Prose);
    // Sentences with commas, of different counts, are not a table.
    let prose = "Well, yes, said he.\nNo, she said.\nLater, then, maybe, or never.\n";
    assert_eq!(kind(prose).0, Kind::Prose);
}

#[test]
fn markdown_by_its_signals_and_prose_with_one_link() {
    let (k, reason) = kind(MARKDOWN);
    assert_eq!(k, Kind::Markdown);
    assert_eq!(reason, "content: Markdown (3 headings)");
    let cjk = "# 说明\n\n这是第一段。\n\n## 安装\n\n运行安装程序。\n";
    assert_eq!(kind(cjk).0, Kind::Markdown);
    let crlf = MARKDOWN.replace('\n', "\r\n");
    assert_eq!(kind(&crlf), kind(MARKDOWN));
    // Old Mac line breaks (a lone "\r") too, for the lines as for the Markdown.
    let cr = MARKDOWN.replace('\n', "\r");
    assert_eq!(kind(&cr), kind(MARKDOWN));
    assert_eq!(
        lines("a\rb\r\nc\n\nd").collect::<Vec<_>>(),
        ["a", "b", "c", "", "d"]
    );
    assert_eq!(lines("a\r\n").collect::<Vec<_>>(), ["a"]);
    assert_eq!(lines("").count(), 0);
    // One table is enough; one link in prose is not.
    assert_eq!(
        kind("Sizes:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n").0,
        Kind::Markdown
    );
    let one_link =
        "See [the docs](https://example.org/docs) for more.\n\nThat is all there is to it.\n";
    assert_eq!(kind(one_link).0, Kind::Prose);
    // A heading with list items and links.
    let list = "# Links\n\n- [a](http://a.org)\n- [b](http://b.org)\n- [c](http://c.org)\n";
    let (k, reason) = kind(list);
    assert_eq!(k, Kind::Markdown);
    assert_eq!(reason, "content: Markdown (1 headings, 3 links with URLs)");
    // "#" alone and "#hashtag" are no headings.
    assert_eq!(
        kind("#\nwords here\n#tag and more\n\nmore words\n").0,
        Kind::Prose
    );
    // Code inside fences is the document's content, not its shape.
    let fenced = "# Use\n\n```python\nx = 1\ny = f(x)\nz = [1, 2,\n     3]\n```\n\nThen run it.\n";
    assert_eq!(kind(fenced).0, Kind::Markdown);
    // Fenced blocks indented in list items hide their code too: the rest is a list and prose.
    let listed =
        "Steps:\n\n1. Install:\n\n    ```sh\n    x = 1\n    y = f(x)\n    ```\n\n2. Run it.\n";
    let mut md = Markdown::default();
    md.read(listed);
    assert_eq!((md.fenced, md.items), (1, 2));
    assert_eq!(md.outside, ["Steps:", "1. Install:", "2. Run it."]);
    // Titles underlined with `~` (reStructuredText, plain text) are no fences.
    let rst = "Install\n~~~~~~~\n\nRun it.\n\nUse\n~~~\n\nCall it.\n\nMore\n~~~~~~~~~~~\n\nDone.\n";
    assert_eq!(kind(rst).0, Kind::Prose);
    // With CRLF (or lone CR) line breaks too: the line above is the title, not the break's other half.
    let titled: String = (0..4)
        .map(|i| {
            format!(
                "Title number {i}\n~~~~~~~~~~~~~~\nSome words of section {i}.\n\nMore words.\n\n"
            )
        })
        .collect();
    for text in [
        titled.clone(),
        titled.replace('\n', "\r\n"),
        titled.replace('\n', "\r"),
    ] {
        assert_eq!(kind(&text).0, Kind::Prose, "{text:?}");
    }
    let tilde_fences = "# Use\n\n~~~\nx = 1\n~~~\n\nText.\n\n~~~\ny = 2\n~~~\n";
    assert_eq!(
        kind(tilde_fences),
        (
            Kind::Markdown,
            "content: Markdown (1 headings, 2 fenced blocks)".to_owned()
        )
    );
    // Tab-indented `#` lines are indented code in CommonMark, not headings.
    assert_eq!(
        kind("Run:\n\n\t# make it\n\tmake\n\n\t# install\n").0,
        Kind::Prose
    );
}

#[test]
fn provisions_at_article_level() {
    let zh: String = ["数据", "网络", "个人信息", "档案"]
        .iter()
        .enumerate()
        .map(|(n, t)| {
            format!(
                "第{}条 为了规范{t}的管理，制定本条。\n\n",
                ["一", "二", "三", "四"][n]
            )
        })
        .collect();
    assert_eq!(
        kind(&zh),
        (
            Kind::Clause,
            "content: 4 numbered provisions in 4 lines".to_owned()
        )
    );
    let en = "Article 1. Scope.\n\nArticle 2. Terms.\n\nSection 3 Records\n\n§ 4 Repeal.\n";
    assert_eq!(kind(en).0, Kind::Clause);
    // Chapters alone make a book; references are no provisions.
    let book = "第一章 开始\n\n正文。\n\n第二章 继续\n\n正文。\n\n第三章 结束\n\n正文。\n";
    assert_eq!(kind(book).0, Kind::Prose);
    let refs =
        "Article 5 of the Act applies.\nArticle 6 of the Act too.\nArticle 7 of the Act also.\n";
    assert_eq!(kind(refs).0, Kind::Prose);
    // Too few among many lines.
    let sparse = format!("{en}{}", "Plain prose line.\n".repeat(500));
    assert_eq!(kind(&sparse).0, Kind::Prose);
}

#[test]
fn the_sample_is_bounded_and_cut_at_char_boundaries() {
    assert_eq!(sample("short").len(), 1);
    // Multi-byte chars and no line break: windows cut inside the one line, at char boundaries.
    let line = "é中".repeat(200_000);
    let windows = sample(&line);
    assert_eq!(windows.len(), WINDOWS);
    for w in &windows {
        assert!(!w.is_empty() && w.len() <= WINDOW, "{}", w.len());
    }
    assert_eq!(by_content(&line).kind, Kind::Prose);
    // With line breaks, windows hold whole lines.
    let text = "第一条 规定。\n".repeat(100_000);
    for w in sample(&text) {
        assert!(
            w.starts_with('第') && w.ends_with('\n') && w.len() <= WINDOW,
            "{}",
            w.len()
        );
    }
    assert_eq!(by_content(&text).kind, Kind::Clause);
    // Markdown all through a large text is seen in every window.
    let md = "## Part\n\nSome text here.\n\n".repeat(20_000);
    let (k, reason) = kind(&md);
    assert_eq!(k, Kind::Markdown);
    let headings: usize = reason["content: Markdown (".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((WINDOWS..20_000).contains(&headings), "{reason}");
}
