use chunkwise_core::Strategy;
use serde_json::Value;

use super::*;
use crate::tests::{chunked, chunks, shape, splitter, MARKDOWN, PLAIN};

/// `s` as `json.dumps(s, ensure_ascii=False)` writes it, a character at a time.
fn python_dumps(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn escaped(s: &str) -> String {
    let mut out = Vec::new();
    string(&mut out, s);
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn strings_are_escaped_as_python_json_dumps_escapes_them() {
    let mut specials: Vec<String> = (0u8..0x20).map(|b| char::from(b).to_string()).collect();
    specials.extend(
        [
            "\"", "\\", "/", "\u{7f}", "é", "\u{2028}", "\u{2029}", "😀", "𝄞", "中", "\u{301}",
        ]
        .map(String::from),
    );
    for special in &specials {
        // At every position of the 8-byte words the escaper reads, and at the end.
        for before in 0..10 {
            for after in [0, 1, 7, 9] {
                let s = format!("{}{special}{}", "a".repeat(before), "b".repeat(after));
                assert_eq!(escaped(&s), python_dumps(&s), "{s:?}");
            }
        }
    }
    assert_eq!(escaped(""), "\"\"");
    // Nothing but the control characters, the quote and the backslash is escaped: not U+2028/9, DEL, astral.
    assert_eq!(
        escaped("\u{2028}\u{2029}\u{7f}😀"),
        "\"\u{2028}\u{2029}\u{7f}😀\""
    );
    assert_eq!(escaped("\u{0}\u{1f}"), "\"\\u0000\\u001f\"");
}

fn all_fields() -> Lines {
    Lines::new(
        crate::columns::fields()
            .filter(|&f| f != key::CHANGE)
            .collect(),
    )
}

/// The keys of a JSON object, in the order written (`serde_json`'s map sorts them).
fn keys(object: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut depth = 0;
    let mut chars = object.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            '"' => {
                let mut s = String::new();
                let mut escaped = false;
                for c in chars.by_ref() {
                    match c {
                        '"' if !escaped => break,
                        '\\' if !escaped => escaped = true,
                        c => {
                            escaped = false;
                            s.push(c);
                        }
                    }
                }
                if depth == 1 && chars.peek() == Some(&':') {
                    keys.push(s);
                }
            }
            _ => {}
        }
    }
    keys
}

/// The lines of `text`'s chunks, parsed.
fn lines_of(lines: &Lines, strategy: Strategy, size: usize, text: &str) -> Vec<Value> {
    lines_written(lines, strategy, size, text)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The lines of `text`'s chunks.
fn lines_written(lines: &Lines, strategy: Strategy, size: usize, text: &str) -> String {
    let splitter = splitter(strategy, size);
    let chunks = chunks(&splitter, text);
    let changes = Changes::new(None::<[&str; 0]>);
    let mut out = Vec::new();
    let mut sink = Vec::new();
    let document = Document {
        source: "dir/ä.md",
        strategy: Some(("markdown", "a \"reason\"")),
    };
    lines
        .write(
            &mut out,
            &mut sink,
            &changes,
            &shape(&splitter),
            document,
            chunked(&chunks),
            0,
            |c| &text[c.start..c.end],
        )
        .expect("written");
    flush(&mut out, &mut sink).expect("flushed");
    let written = String::from_utf8(sink).expect("UTF-8");
    assert!(written.is_empty() || written.ends_with('\n'));
    written
}

#[test]
fn a_line_holds_each_field_in_order_with_the_chunk_values() {
    let written = lines_written(&all_fields(), Strategy::Recursive, 24, PLAIN);
    let names: Vec<&str> = all_fields().fields().iter().map(|f| f.name()).collect();
    for line in written.lines() {
        assert_eq!(keys(line), names);
    }
    let lines = lines_of(&all_fields(), Strategy::Recursive, 24, PLAIN);
    assert!(lines.len() > 3);
    let mut end = 0;
    for (i, line) in lines.iter().enumerate() {
        let text = line["text"].as_str().unwrap();
        let (start, stop) = (
            line["start"].as_u64().unwrap() as usize,
            line["end"].as_u64().unwrap() as usize,
        );
        // The text is the slice of the source between its char offsets (non-ASCII, CRLF, control characters).
        let slice: String = PLAIN.chars().skip(start).take(stop - start).collect();
        assert_eq!(text, slice);
        assert!(start >= end);
        end = stop;
        assert_eq!(line["index"], i);
        assert_eq!(line["source"], "dir/ä.md");
        assert_eq!(line["token_count"], Value::Null);
        assert_eq!(line["context"], "");
        assert_eq!(line["embedding_text"], text);
        assert_eq!(
            line["prev_id"],
            if i == 0 {
                Value::Null
            } else {
                lines[i - 1]["id"].clone()
            }
        );
        assert_eq!(
            line["next_id"],
            lines.get(i + 1).map_or(Value::Null, |l| l["id"].clone())
        );
        assert_eq!(
            line["metadata"],
            serde_json::json!({"source": "dir/ä.md", "strategy": "markdown", "strategy_reason": "a \"reason\""})
        );
    }
}

#[test]
fn an_empty_document_writes_no_line() {
    for strategy in [Strategy::Recursive, Strategy::Markdown] {
        assert!(lines_of(&all_fields(), strategy, 100, "").is_empty());
    }
}

#[test]
fn structural_chunks_carry_their_description_in_the_metadata() {
    let lines = lines_of(&all_fields(), Strategy::Markdown, 60, MARKDOWN);
    let table = lines
        .iter()
        .find(|l| l["metadata"]["chunk_type"] == "table")
        .expect("a table chunk");
    let meta = &table["metadata"];
    assert_eq!(meta["title_path"], serde_json::json!(["Überblick", "表"]));
    assert_eq!(meta["headings"], serde_json::json!([1, 2]));
    assert!(meta["row_start"].is_u64() && meta["total_rows"].is_u64());
    // Context and embedding text: the heading path before the text.
    let context = table["context"].as_str().unwrap();
    assert!(!context.is_empty());
    let embedding = table["embedding_text"].as_str().unwrap();
    assert!(embedding.starts_with(context) && embedding.ends_with(table["text"].as_str().unwrap()));
    for line in &lines {
        // `rows` only on a table's chunks, `context_shortened` only when true.
        let meta = line["metadata"].as_object().unwrap();
        assert_eq!(
            meta.contains_key("row_start"),
            meta["chunk_type"] == "table"
        );
        assert!(meta.get("context_shortened").is_none_or(|v| v == true));
    }
    let code = lines
        .iter()
        .find(|l| l["metadata"]["chunk_type"] == "code")
        .expect("a code block chunk");
    assert_eq!(code["metadata"]["language"], "python");
}

#[test]
fn code_chunks_carry_the_code_keys_in_their_order() {
    let text = "import os\n\n\nclass Parser:\n    def feed(self, data):\n        return data\n\n\ndef main():\n    pass\n";
    let written = lines_written(&Lines::new(vec![key::METADATA]), Strategy::Code, 40, text);
    assert!(!written.is_empty());
    for line in written.lines() {
        // The metadata is the one field: its object is the line's, less `{"metadata": ` and `}`.
        let keys = keys(&line["{\"metadata\": ".len()..line.len() - 1]);
        let expected = [
            "source",
            "strategy",
            "strategy_reason",
            "language",
            "symbol_path",
            "start_line",
            "end_line",
            "node_types",
            "chunk_type",
        ];
        assert_eq!(&keys[..expected.len()], expected, "{line}");
        let line: Value = serde_json::from_str(line).expect("a JSON line");
        assert_eq!(line["metadata"]["language"], "python");
    }
}

/// A sink that takes at most `most` bytes a call, as a raw file may.
struct Trickle {
    got: Vec<u8>,
    most: usize,
    calls: usize,
}

impl Write for Trickle {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.most);
        self.got.extend_from_slice(&buf[..n]);
        self.calls += 1;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn short_writes_to_the_sink_lose_nothing_and_pieces_are_bounded() {
    let text = PLAIN.repeat(400);
    let splitter = splitter(Strategy::Recursive, 64);
    let chunks = chunks(&splitter, &text);
    let changes = Changes::new(None::<[&str; 0]>);
    let lines = all_fields();
    let write = |sink: &mut dyn Write| {
        let mut out = Vec::new();
        let document = Document::new("s", None);
        lines
            .write(
                &mut out,
                sink,
                &changes,
                &shape(&splitter),
                document,
                chunked(&chunks),
                0,
                |c| &text[c.start..c.end],
            )
            .expect("written");
        // What is left is less than a piece plus a line.
        assert!(out.len() < PIECE + 4096);
        flush(&mut out, sink).expect("flushed");
    };
    let mut whole = Vec::new();
    write(&mut whole);
    assert!(whole.len() > 2 * PIECE, "more than one piece is written");
    let mut trickle = Trickle {
        got: Vec::new(),
        most: 4093,
        calls: 0,
    };
    write(&mut trickle);
    assert_eq!(trickle.got, whole);
    assert!(trickle.calls > whole.len() / 4093);
}

#[test]
fn a_sink_that_fails_or_writes_nothing_is_an_error() {
    let splitter = splitter(Strategy::Recursive, 16);
    let chunks = chunks(&splitter, PLAIN);
    let changes = Changes::new(None::<[&str; 0]>);
    let mut out = Vec::new();
    all_fields()
        .write(
            &mut out,
            &mut Vec::new(),
            &changes,
            &shape(&splitter),
            Document::new("s", None),
            chunked(&chunks),
            0,
            |c| &PLAIN[c.start..c.end],
        )
        .expect("written");
    let mut nothing = Trickle {
        got: Vec::new(),
        most: 0,
        calls: 0,
    };
    let e = flush(&mut out, &mut nothing).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::WriteZero);
    assert!(!out.is_empty(), "a piece not written is kept");
}

#[test]
fn change_says_kept_for_the_previous_run_ids() {
    let splitter = splitter(Strategy::Recursive, 24);
    let chunks = chunks(&splitter, PLAIN);
    let first = std::str::from_utf8(&hash_id(chunks.chunks[0].id))
        .unwrap()
        .to_owned();
    let changes = Changes::new(Some([first.as_str()]));
    let lines = Lines::new(vec![key::ID, key::CHANGE]);
    let (mut out, mut sink) = (Vec::new(), Vec::new());
    lines
        .write(
            &mut out,
            &mut sink,
            &changes,
            &shape(&splitter),
            Document::new("s", None),
            chunked(&chunks),
            0,
            |c| &PLAIN[c.start..c.end],
        )
        .expect("written");
    flush(&mut out, &mut sink).expect("flushed");
    // The document's chunks are counted once written.
    assert_eq!(changes.kept(), 1);
    assert_eq!(changes.added(), chunks.chunks.len() - 1);
    assert!(changes.written(&first));
    let parsed: Vec<Value> = String::from_utf8(sink)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(parsed[0]["change"], "kept");
    assert!(parsed[1..].iter().all(|l| l["change"] == "added"));
}

/// Every output writes the record's keys, and the same values: for every strategy, the metadata keys of each line
/// are keys the record says its chunker sets, and Arrow's metadata columns are the record's keys of the chunker
/// (those Arrow writes), each row holding the line's value (null where the line has no such key; a flag false).
#[test]
fn the_lines_and_the_arrow_rows_carry_the_records_keys_with_equal_values() {
    use chunkwise_core::record::{Formats, Role, COLUMNS};
    let code = "import os\n\n\nclass A:\n    def f(self):\n        return 1\n";
    let table = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n";
    for &name in Strategy::NAMES {
        let strategy: Strategy = name.parse().expect("a strategy");
        let text = match strategy {
            Strategy::Code => code,
            Strategy::Table => table,
            Strategy::Semantic => continue, // its units are embedded in Python: no output of its own here
            _ => MARKDOWN,
        };
        let splitter = splitter(strategy, 40);
        let lines = lines_of(&Lines::new(vec![key::METADATA]), strategy, 40, text);
        let spans = crate::tests::spans(&splitter, text);
        let batch = &crate::arrow::batches(
            &[text],
            &[crate::tests::spanned(&spans)],
            shape(&splitter),
            false,
            false,
        )
        .expect("batches")[0];
        let arrow_keys: Vec<&str> = COLUMNS
            .iter()
            .filter(|c| c.role == Role::Metadata && c.formats.has(Formats::ARROW))
            .filter(|c| c.written_for(name))
            .map(|c| c.name)
            .collect();
        let schema = batch.schema();
        let metadata_columns: Vec<&str> = schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .filter(|n| record::column(n).is_some_and(|c| c.role == Role::Metadata))
            .collect();
        assert_eq!(metadata_columns, arrow_keys, "{name}");
        assert_eq!(lines.len(), batch.num_rows(), "{name}");
        for (row, line) in lines.iter().enumerate() {
            let metadata = line["metadata"].as_object().expect("an object");
            for (k, value) in metadata {
                if k == "source" || k.starts_with("strategy") {
                    continue; // the document's keys (the caller's source; the test document's strategy)
                }
                let c = record::column(k).unwrap_or_else(|| panic!("{k} is not a column"));
                assert!(c.set_by(name), "{name} sets {k}");
                let column = batch.column_by_name(k).expect("a column of each key");
                let written = arrow_json(column.as_ref(), row);
                assert_eq!(&written, value, "{name}: {k} of chunk {row}");
            }
            for &k in &arrow_keys {
                if !metadata.contains_key(k) {
                    let column = batch.column_by_name(k).expect("a column");
                    let absent = arrow_json(column.as_ref(), row);
                    assert!(
                        absent.is_null()
                            || absent == false
                            || absent == Value::Array(vec![])
                            || absent == "",
                        "{name}: {k}"
                    );
                }
            }
        }
    }
}

/// Row `row` of an Arrow column as JSON.
fn arrow_json(column: &dyn arrow_array::Array, row: usize) -> Value {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_schema::DataType;
    if column.is_null(row) {
        return Value::Null;
    }
    match column.data_type() {
        DataType::Utf8 => Value::from(column.as_string::<i32>().value(row)),
        DataType::Int64 => Value::from(column.as_primitive::<Int64Type>().value(row)),
        DataType::Boolean => Value::from(column.as_boolean().value(row)),
        DataType::List(_) => {
            let items = column.as_list::<i32>().value(row);
            Value::Array(
                (0..items.len())
                    .map(|i| arrow_json(items.as_ref(), i))
                    .collect(),
            )
        }
        other => panic!("a column of type {other}"),
    }
}
