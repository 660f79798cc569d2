//! Tests of the table parsers and the Markdown row renderer.

use super::*;

/// Asserts what every parse promises and returns the header and the rows as text.
fn checked<'t>(text: &'t str, table: &Table) -> (&'t str, Vec<&'t str>) {
    let ranges = std::iter::once(&table.header)
        .chain(&table.rows)
        .chain(&table.header_cells);
    for r in ranges {
        assert!(r.start <= r.end && r.end <= text.len(), "{r:?}");
        assert!(
            text.is_char_boundary(r.start) && text.is_char_boundary(r.end),
            "{r:?}"
        );
    }
    for r in std::iter::once(&table.header).chain(&table.rows) {
        let s = &text[r.clone()];
        assert!(!s.is_empty(), "{r:?}");
        assert!(!s.ends_with(['\n', '\r']) && !s.starts_with('\n'), "{s:?}");
    }
    for c in &table.header_cells {
        assert!(
            table.header.start <= c.start && c.end <= table.header.end,
            "{c:?}"
        );
    }
    let mut last = table.header.end;
    for r in &table.rows {
        assert!(
            last < r.start,
            "rows overlap or go back: {r:?} after {last}"
        );
        last = r.end;
    }
    let rows = table.rows.iter().map(|r| &text[r.clone()]).collect();
    (&text[table.header.clone()], rows)
}

fn header_cells<'t>(text: &'t str, table: &Table) -> Vec<&'t str> {
    table
        .header_cells
        .iter()
        .map(|r| &text[r.clone()])
        .collect()
}

fn parse_ok(text: &str, format: TableFormat) -> Table {
    parse_table(text, format).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn error(text: &str, format: TableFormat) -> String {
    match parse_table(text, format) {
        Ok(t) => panic!("{text:?} parsed: {t:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn markdown_alignment_row() {
    let text = "| Left | Center | Right |\n|:--|:-:|--:|\n| a | b | c |\n| 1 | 2 | 3 |\n";
    let table = parse_ok(text, TableFormat::Markdown);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "| Left | Center | Right |\n|:--|:-:|--:|");
    assert_eq!(header_cells(text, &table), ["Left", "Center", "Right"]);
    assert_eq!(rows, ["| a | b | c |", "| 1 | 2 | 3 |"]);
    assert_eq!(markdown_cells(rows[1]), ["1", "2", "3"]);
    let spaced = "| a | b |\n| :--- | ---: |\n";
    assert!(parse_table(spaced, TableFormat::Markdown).is_ok());
}

#[test]
fn markdown_code_span_with_pipe() {
    let text = "| cmd | note |\n| --- | --- |\n| `a|b` | x |\n| ``c`|`d`` | y |\n| `open | z |\n";
    let table = parse_ok(text, TableFormat::Markdown);
    let (_, rows) = checked(text, &table);
    let cells: Vec<_> = rows.iter().map(|r| markdown_cells(r)).collect();
    assert_eq!(cells[0], ["`a|b`", "x"]);
    assert_eq!(cells[1], ["``c`|`d``", "y"]);
    // A backtick without a closing run of the same length is literal.
    assert_eq!(cells[2], ["`open", "z"]);
    assert_eq!(markdown_cells("| `a | b` | c `|` |"), ["`a | b`", "c `|`"]);
    // An escaped backtick opens nothing.
    assert_eq!(markdown_cells("| \\`a | b` |"), ["\\`a", "b`"]);
    // A backslash inside a code span is literal, so it escapes no pipe there.
    assert_eq!(markdown_cells("| `a\\|b` | c |"), ["`a\\|b`", "c"]);
}

#[test]
fn markdown_escaped_pipe() {
    let text = "| a | b |\n|---|---|\n| x \\| y | z |\n";
    let table = parse_ok(text, TableFormat::Markdown);
    let (_, rows) = checked(text, &table);
    assert_eq!(markdown_cells(rows[0]), ["x \\| y", "z"]);
    // An escaped backslash does not escape the pipe after it.
    assert_eq!(markdown_cells("| a \\\\| b |"), ["a \\\\", "b"]);
    assert_eq!(markdown_cells("| a \\|"), ["a \\|"]);
}

#[test]
fn markdown_without_outer_pipes() {
    let text = "a | b\n--- | :---:\n1 | 2\n3 | 4";
    let table = parse_ok(text, TableFormat::Markdown);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "a | b\n--- | :---:");
    assert_eq!(header_cells(text, &table), ["a", "b"]);
    assert_eq!(rows, ["1 | 2", "3 | 4"]);
    // Only one of the outer pipes, or a single column.
    assert_eq!(markdown_cells("| 1 | 2"), ["1", "2"]);
    assert_eq!(markdown_cells("1 | 2 |"), ["1", "2"]);
    let single = "| a |\n| - |\n| 1 |";
    assert_eq!(
        checked(single, &parse_ok(single, TableFormat::Markdown)).1,
        ["| 1 |"]
    );
}

#[test]
fn markdown_cell_edges() {
    assert!(markdown_cells("").is_empty());
    assert!(markdown_cells(" \t ").is_empty());
    assert_eq!(markdown_cells("|"), [""]);
    assert_eq!(markdown_cells("| |"), [""]);
    assert_eq!(markdown_cells("| | |"), ["", ""]);
    assert_eq!(markdown_cells("a"), ["a"]);
    assert_eq!(markdown_cells("|a||b|"), ["a", "", "b"]);
}

#[test]
fn markdown_cjk_cells() {
    let text = "| 名前 | 説明 |\r\n| --- | --- |\r\n| 東京 | 日本の首都。「大都市」 |\r\n| 서울 | 한국　|\r\n";
    let table = parse_ok(text, TableFormat::Markdown);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "| 名前 | 説明 |\r\n| --- | --- |");
    assert_eq!(header_cells(text, &table), ["名前", "説明"]);
    assert_eq!(
        rows,
        ["| 東京 | 日本の首都。「大都市」 |", "| 서울 | 한국　|"]
    );
    // An ideographic space is content, not padding.
    assert_eq!(markdown_cells(rows[1]), ["서울", "한국　"]);
}

#[test]
fn markdown_blank_lines_around_the_table() {
    let text = "\n \n\t\n| a |\n|---|\n| 1 |\n| 2 |\n\n   \n\r\n";
    let table = parse_ok(text, TableFormat::Markdown);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "| a |\n|---|");
    assert_eq!(table.header.start, 5);
    assert_eq!(rows, ["| 1 |", "| 2 |"]);
    // A header and no rows.
    let bare = "| a |\n|---|\n";
    assert!(parse_ok(bare, TableFormat::Markdown).rows.is_empty());
}

#[test]
fn markdown_text_after_the_table() {
    let after_blank = error("| a |\n|---|\n| 1 |\n\nmore text", TableFormat::Markdown);
    assert!(
        after_blank.contains("line 5 follows the Markdown table"),
        "{after_blank}"
    );
    let no_pipe = error("| a |\n|---|\n| 1 |\nno pipe here\n", TableFormat::Markdown);
    assert!(no_pipe.contains("line 4 follows"), "{no_pipe}");
    assert!(no_pipe.contains("\"no pipe here\""), "{no_pipe}");
    let second = error("| a |\n|---|\n\n| b |\n|---|\n", TableFormat::Markdown);
    assert!(second.contains("line 4"), "{second}");
}

#[test]
fn csv_quoted_commas_and_quotes() {
    let text = "name,quote\n\"Smith, J\",\"He said \"\"hi\"\"\"\nplain,\"\"\n";
    let table = parse_ok(text, TableFormat::Csv);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "name,quote");
    assert_eq!(header_cells(text, &table), ["name", "quote"]);
    assert_eq!(rows, ["\"Smith, J\",\"He said \"\"hi\"\"\"", "plain,\"\""]);
    assert_eq!(
        delimited_cells(rows[0], TableFormat::Csv),
        ["Smith, J", "He said \"hi\""]
    );
    assert_eq!(delimited_cells(rows[1], TableFormat::Csv), ["plain", ""]);
    // A doubled quote does not close the field: the comma and the line break after it are inside.
    assert_eq!(
        delimited_cells("\"a\"\",b\",c", TableFormat::Csv),
        ["a\",b", "c"]
    );
    let doubled = "h\n\"a\"\"\nb\"\n";
    assert_eq!(
        checked(doubled, &parse_ok(doubled, TableFormat::Csv)).1,
        ["\"a\"\"\nb\""]
    );
    // Raw header fields keep their quotes.
    let quoted = "\"a,b\",c\n1,2";
    assert_eq!(
        header_cells(quoted, &parse_ok(quoted, TableFormat::Csv)),
        ["\"a,b\"", "c"]
    );
    // Lenient where RFC 4180 is silent: a quote inside a field is literal, text after a closing quote is kept.
    assert_eq!(delimited_cells("a\"b,c", TableFormat::Csv), ["a\"b", "c"]);
    assert_eq!(delimited_cells("\"a\"b,c", TableFormat::Csv), ["ab", "c"]);
    assert_eq!(
        delimited_cells(" \"a\" ,", TableFormat::Csv),
        [" \"a\" ", ""]
    );
    assert_eq!(delimited_cells("", TableFormat::Csv), [""]);
    assert_eq!(
        delimited_cells("\"open, rest", TableFormat::Csv),
        ["open, rest"]
    );
}

#[test]
fn csv_multiline_field() {
    let text = "id,text\n1,\"line one\nline two\"\n2,\"x\r\ny\"\r\n3,z";
    let table = parse_ok(text, TableFormat::Csv);
    let (_, rows) = checked(text, &table);
    assert_eq!(rows, ["1,\"line one\nline two\"", "2,\"x\r\ny\"", "3,z"]);
    assert_eq!(
        delimited_cells(rows[0], TableFormat::Csv),
        ["1", "line one\nline two"]
    );
    assert_eq!(delimited_cells(rows[1], TableFormat::Csv), ["2", "x\r\ny"]);
    // A multi-line header, and a field that is only line breaks.
    let text = "\"a\nb\",c\n1,\"\n\n\"\n";
    let table = parse_ok(text, TableFormat::Csv);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "\"a\nb\",c");
    assert_eq!(header_cells(text, &table), ["\"a\nb\"", "c"]);
    assert_eq!(rows, ["1,\"\n\n\""]);
}

#[test]
fn csv_crlf() {
    let text = "a,b\r\n1,2\r\n3,\r\n";
    let table = parse_ok(text, TableFormat::Csv);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "a,b");
    assert_eq!(header_cells(text, &table), ["a", "b"]);
    assert_eq!(rows, ["1,2", "3,"]);
    assert_eq!(delimited_cells(rows[1], TableFormat::Csv), ["3", ""]);
    let empty_last = "a,\r\n1,2";
    let table = parse_ok(empty_last, TableFormat::Csv);
    assert_eq!(header_cells(empty_last, &table), ["a", ""]);
    assert_eq!(table.header_cells[1], 2..2);
}

#[test]
fn csv_missing_trailing_newline() {
    for (text, last) in [
        ("a,b\n1,2", "1,2"),
        ("a,b\n1,\"2\"", "1,\"2\""),
        ("a,b\n1,2\r", "1,2"),
        ("a,b\n1,2\n\n\n", "1,2"),
    ] {
        let table = parse_ok(text, TableFormat::Csv);
        assert_eq!(checked(text, &table).1, [last], "{text:?}");
    }
    let header_only = "a,b";
    assert!(parse_ok(header_only, TableFormat::Csv).rows.is_empty());
}

#[test]
fn csv_blank_lines_are_not_rows() {
    let text = "\n\na,b\n\n1,2\n   \n\r\n,\n3,4\n\n";
    let table = parse_ok(text, TableFormat::Csv);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "a,b");
    // "," is a record of two empty fields, not a blank line.
    assert_eq!(rows, ["1,2", ",", "3,4"]);
}

#[test]
fn csv_byte_order_mark_is_skipped() {
    let text = "\u{feff}a,b\n1,2";
    let table = parse_ok(text, TableFormat::Csv);
    assert_eq!(checked(text, &table).0, "a,b");
    assert_eq!(header_cells(text, &table), ["a", "b"]);
    let md = "\u{feff}| a |\n|---|";
    assert_eq!(
        header_cells(md, &parse_ok(md, TableFormat::Markdown)),
        ["a"]
    );
}

#[test]
fn tsv_fields_are_verbatim() {
    let text = "name\tnote\n\"quoted\"\ta \"b\"\n\t\n x \t,y\n\"open\tno close\n";
    let table = parse_ok(text, TableFormat::Tsv);
    let (header, rows) = checked(text, &table);
    assert_eq!(header, "name\tnote");
    assert_eq!(header_cells(text, &table), ["name", "note"]);
    // "\t" is a record of two empty fields; quotes neither open fields nor span lines.
    assert_eq!(
        rows,
        ["\"quoted\"\ta \"b\"", "\t", " x \t,y", "\"open\tno close"]
    );
    assert_eq!(
        delimited_cells(rows[0], TableFormat::Tsv),
        ["\"quoted\"", "a \"b\""]
    );
    assert_eq!(delimited_cells(rows[1], TableFormat::Tsv), ["", ""]);
    assert_eq!(delimited_cells(rows[2], TableFormat::Tsv), [" x ", ",y"]);
    let crlf = "a\tb\r\n1\t2\r\n";
    let table = parse_ok(crlf, TableFormat::Tsv);
    assert_eq!(checked(crlf, &table).1, ["1\t2"]);
    assert_eq!(header_cells(crlf, &table), ["a", "b"]);
}

#[test]
fn errors_for_empty_text() {
    for format in [TableFormat::Markdown, TableFormat::Csv, TableFormat::Tsv] {
        for text in ["", "\n", " \t\r\n\n", "\u{feff}"] {
            let e = error(text, format);
            assert!(
                e.contains("empty or only whitespace"),
                "{format:?} {text:?}: {e}"
            );
        }
    }
    let e = parse_table("", TableFormat::Csv).unwrap_err();
    assert!(matches!(e, ChunkError::InvalidArgument { arg: "text", .. }));
}

#[test]
fn errors_for_a_missing_delimiter_row() {
    for text in [
        "| a | b |\n| c | d |",
        "| a | b |",
        "| a | b |\n",
        "| a | b |\n|---|",
        "| a | b |\n|---|---|---|",
        "| a |\n\n|---|",
        "| a |\n|-:-|",
        "| a |\n| : |",
        "| a |\n| :: |",
        "| a |\n---",
    ] {
        let e = error(text, TableFormat::Markdown);
        assert!(e.contains("no delimiter row: line 2"), "{text:?}: {e}");
    }
    let e = error("| a | b |\n|---|", TableFormat::Markdown);
    assert!(e.contains("got 1 cell:"), "{e}");
    let e = error("\n\n| a | b |", TableFormat::Markdown);
    assert!(
        e.contains("line 4") && e.contains("ends after the header"),
        "{e}"
    );
    let e = error("a\n---", TableFormat::Markdown);
    assert!(e.contains("line 1") && e.contains("no '|'"), "{e}");
}

#[test]
fn errors_for_an_unterminated_quote() {
    let e = error("a,b\n1,\"x\n2\n3", TableFormat::Csv);
    assert!(
        e.contains("unterminated quote") && e.contains("line 2"),
        "{e}"
    );
    // Counted past an earlier multi-line field and blank lines.
    let e = error("h\n\"a\nb\"\n\n\"c", TableFormat::Csv);
    assert!(e.contains("line 5"), "{e}");
    let e = error("\"h", TableFormat::Csv);
    assert!(e.contains("line 1"), "{e}");
    // A field quoted only after its first byte is literal, not unterminated.
    assert!(parse_table("a,b\n1,x\"y", TableFormat::Csv).is_ok());
}

#[test]
fn five_thousand_rows() {
    let n = 5_000;
    let mut md = String::from("| id | name | code |\n|--:|:--|:-:|\n");
    let mut csv = String::from("id,name,note\r\n");
    let mut tsv = String::from("id\tname\n");
    for i in 0..n {
        md.push_str(&format!("| {i} | 名前{i} | `x|{i}` |\n"));
        if i % 7 == 0 {
            csv.push_str(&format!("{i},\"名, {i}\",\"two\nlines \"\"{i}\"\"\"\r\n"));
        } else {
            csv.push_str(&format!("{i},名{i},plain\r\n"));
        }
        tsv.push_str(&format!("{i}\t名{i}\n"));
    }
    let table = parse_ok(&md, TableFormat::Markdown);
    let (_, rows) = checked(&md, &table);
    assert_eq!(rows.len(), n);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(
            markdown_cells(row),
            [i.to_string(), format!("名前{i}"), format!("`x|{i}`")]
        );
    }
    let table = parse_ok(&csv, TableFormat::Csv);
    let (_, rows) = checked(&csv, &table);
    assert_eq!(rows.len(), n);
    assert_eq!(
        delimited_cells(rows[14], TableFormat::Csv),
        ["14", "名, 14", "two\nlines \"14\""]
    );
    assert_eq!(
        delimited_cells(rows[15], TableFormat::Csv),
        ["15", "名15", "plain"]
    );
    let table = parse_ok(&tsv, TableFormat::Tsv);
    let (_, rows) = checked(&tsv, &table);
    assert_eq!(rows.len(), n);
    assert_eq!(rows[n - 1], format!("{}\t名{}", n - 1, n - 1));
}

#[test]
fn many_unmatched_backtick_runs() {
    // Runs of every length from 1 to 300, none closed: every pipe separates.
    let row: Vec<String> = (1..=300).map(|k| "`".repeat(k)).collect();
    assert_eq!(markdown_cells(&row.join(" | ")), row);
}

#[test]
fn render_rows_and_delimiters() {
    assert_eq!(render_markdown_row(&["a", "b"]), "| a | b |");
    assert_eq!(
        render_markdown_row(&["a|b", "x\ny", "c\r\nd\re"]),
        "| a\\|b | x<br>y | c<br>d<br>e |"
    );
    // Already escaped, or inside a code span: left alone.
    assert_eq!(
        render_markdown_row(&["a\\|b", "`x|y`"]),
        "| a\\|b | `x|y` |"
    );
    assert_eq!(render_markdown_row(&["a\\\\|b"]), "| a\\\\\\|b |");
    assert_eq!(render_markdown_row(&[String::new()]), "|  |");
    assert_eq!(render_markdown_row::<&str>(&[]), "|");
    assert_eq!(render_markdown_delimiter(3), "| --- | --- | --- |");
    assert_eq!(render_markdown_delimiter(0), "|");
}

#[test]
fn render_round_trip() {
    let text = "\
| Left | Center | Right | Code |
|:--|:-:|--:|---|
| a \\| b | 東京 | | `x|y` |
| ``p`|`q`` | \\`r | s\\\\ | 한국어 テキスト |
a|b|c|d
|   spaced   |x|  y  |`|`|
";
    let table = parse_ok(text, TableFormat::Markdown);
    let (_, rows) = checked(text, &table);
    assert_eq!(rows.len(), 4);
    let header_line = &text[table.header.start..text.find('\n').unwrap_or(0)];
    let header: Vec<String> = header_cells(text, &table)
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(markdown_cells(header_line), header);
    for row in std::iter::once(header_line).chain(rows) {
        let cells = markdown_cells(row);
        assert_eq!(cells.len(), 4, "{row:?}");
        let rendered = render_markdown_row(&cells);
        assert_eq!(markdown_cells(&rendered), cells, "{row:?} -> {rendered:?}");
    }
    // A table rendered from the header cells parses back with the same cells.
    let mut rebuilt = render_markdown_row(&header);
    rebuilt.push('\n');
    rebuilt.push_str(&render_markdown_delimiter(header.len()));
    let table = parse_ok(&rebuilt, TableFormat::Markdown);
    assert_eq!(header_cells(&rebuilt, &table), header);
    // CSV cells with pipes and line breaks render to a row of the same number of cells.
    let record = "\"a|b\",\"x\ny\",`c|d";
    let cells = delimited_cells(record, TableFormat::Csv);
    assert_eq!(
        markdown_cells(&render_markdown_row(&cells)),
        ["a\\|b", "x<br>y", "`c\\|d"]
    );
}
