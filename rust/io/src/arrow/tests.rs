use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::Array;

use super::*;
use crate::tests::{chunks, shape, spanned, spans, splitter, MARKDOWN, PLAIN};
use chunkwise_core::Strategy;

fn names(batch: &RecordBatch) -> Vec<&str> {
    batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect()
}

fn nullable(batch: &RecordBatch) -> Vec<&str> {
    batch
        .schema_ref()
        .fields()
        .iter()
        .filter(|f| f.is_nullable())
        .map(|f| f.name().as_str())
        .collect()
}

const BASE: [&str; 12] = [
    "row",
    "index",
    "text",
    "start",
    "end",
    "size",
    "level",
    "id",
    "prev_id",
    "next_id",
    "context",
    "embedding_text",
];

#[test]
fn the_columns_depend_on_the_chunker_only() {
    let cases: [(Strategy, &str, &[&str]); 3] = [
        (Strategy::Recursive, PLAIN, &[]),
        (
            Strategy::Markdown,
            MARKDOWN,
            &[
                "title_path",
                "headings",
                "chunk_type",
                "row_start",
                "row_end",
                "total_rows",
                "language",
                "context_shortened",
                "symbol_path",
                "start_line",
                "end_line",
                "node_types",
                "note",
            ],
        ),
        (
            Strategy::Code,
            "def f(x):\n    return x\n\n\nclass A:\n    pass\n",
            // The code chunker's keys in the record's order (no title path: a chunk of code has its symbol path).
            &[
                "chunk_type",
                "language",
                "context_shortened",
                "symbol_path",
                "start_line",
                "end_line",
                "node_types",
                "note",
            ],
        ),
    ];
    for (strategy, text, described) in cases {
        let splitter = splitter(strategy, 40);
        // With and without chunks: the same schema.
        for texts in [vec![text], vec![""], vec![]] {
            let all: Vec<_> = texts.iter().map(|t| chunks(&splitter, t)).collect();
            let spans: Vec<_> = texts.iter().map(|t| spans(&splitter, t)).collect();
            let views: Vec<_> = spans.iter().map(spanned).collect();
            let batches = batches(&texts, &views, shape(&splitter), false, false).expect("batches");
            assert_eq!(batches.len(), 1);
            let batch = &batches[0];
            let expected: Vec<&str> = BASE
                .iter()
                .chain(described)
                .chain(&["page_start", "page_end"])
                .copied()
                .collect();
            assert_eq!(names(batch), expected, "{strategy:?}");
            let always = ["title_path", "headings", "chunk_type", "context_shortened"];
            let expected: Vec<&str> = ["prev_id", "next_id"]
                .iter()
                .chain(described.iter().filter(|c| !always.contains(c)))
                .chain(&["page_start", "page_end"])
                .copied()
                .collect();
            assert_eq!(nullable(batch), expected, "{strategy:?}");
            assert_eq!(
                batch.num_rows(),
                all.iter().map(|c| c.chunks.len()).sum::<usize>()
            );
        }
    }
}

#[test]
fn ids_link_the_chunks_of_each_text_and_rows_number_the_texts() {
    let splitter = splitter(Strategy::Recursive, 24);
    let texts = [PLAIN, "", MARKDOWN];
    let all: Vec<_> = texts.iter().map(|t| chunks(&splitter, t)).collect();
    let spans: Vec<_> = texts.iter().map(|t| spans(&splitter, t)).collect();
    let views: Vec<_> = spans.iter().map(spanned).collect();
    let batch = &batches(&texts, &views, shape(&splitter), false, false).expect("batches")[0];
    let column = |name: &str| {
        batch
            .column_by_name(name)
            .expect("a column")
            .as_string::<i32>()
            .clone()
    };
    let (id, prev, next, text) = (
        column("id"),
        column("prev_id"),
        column("next_id"),
        column("text"),
    );
    let row = batch
        .column_by_name("row")
        .unwrap()
        .as_primitive::<Int64Type>()
        .clone();
    let mut k = 0;
    for (t, c) in all.iter().enumerate() {
        for (i, chunk) in c.chunks.iter().enumerate() {
            assert_eq!(row.value(k), t as i64);
            assert_eq!(text.value(k), &texts[t][chunk.start..chunk.end]);
            assert_eq!(id.value(k).as_bytes(), hash_id(chunk.id));
            assert_eq!(prev.is_null(k), i == 0);
            assert_eq!(next.is_null(k), i + 1 == c.chunks.len());
            if i > 0 {
                assert_eq!(prev.value(k), id.value(k - 1));
            }
            if !next.is_null(k) {
                assert_eq!(next.value(k), id.value(k + 1));
            }
            k += 1;
        }
    }
    assert_eq!(k, batch.num_rows());
}

#[test]
fn large_strings_when_asked_and_batches_of_whole_texts() {
    let splitter = splitter(Strategy::Recursive, 200);
    let big = PLAIN.repeat(5000);
    let texts = [big.as_str(), big.as_str(), PLAIN];
    let all: Vec<_> = texts.iter().map(|t| chunks(&splitter, t)).collect();
    let spans: Vec<_> = texts.iter().map(|t| spans(&splitter, t)).collect();
    let views: Vec<_> = spans.iter().map(spanned).collect();
    let got = batches(&texts, &views, shape(&splitter), true, false).expect("batches");
    assert!(got.len() > 1, "about a megabyte of text a batch");
    // Asked for one batch: the same rows, in one.
    let one = batches(&texts, &views, shape(&splitter), true, true).expect("batches");
    assert_eq!(one.len(), 1);
    let mut at = 0;
    for batch in &got {
        assert_eq!(&one[0].slice(at, batch.num_rows()), batch);
        at += batch.num_rows();
    }
    assert_eq!(at, one[0].num_rows());
    for batch in &got {
        assert_eq!(
            batch
                .schema_ref()
                .field_with_name("text")
                .unwrap()
                .data_type(),
            &DataType::LargeUtf8
        );
    }
    assert_eq!(
        got.iter().map(RecordBatch::num_rows).sum::<usize>(),
        all.iter().map(|c| c.chunks.len()).sum::<usize>()
    );
}

#[test]
fn the_description_columns_are_the_parquet_rows_own() {
    // One builder for both outputs: the same title paths, types and code keys.
    let splitter = splitter(Strategy::Markdown, 60);
    let all = [chunks(&splitter, MARKDOWN)];
    let spans = [spans(&splitter, MARKDOWN)];
    let views: Vec<_> = spans.iter().map(spanned).collect();
    let batch = &batches(&[MARKDOWN], &views, shape(&splitter), false, false).expect("batches")[0];
    let types = batch
        .column_by_name("chunk_type")
        .unwrap()
        .as_string::<i32>()
        .clone();
    let start_line = batch
        .column_by_name("start_line")
        .unwrap()
        .as_primitive::<Int64Type>()
        .clone();
    let paths = batch
        .column_by_name("title_path")
        .unwrap()
        .as_list::<i32>()
        .clone();
    let d = all[0].description.as_ref().unwrap();
    for (k, info) in d.chunks.iter().enumerate() {
        assert_eq!(types.value(k), info.kind.as_str());
        assert_eq!(start_line.is_null(k), info.code.is_none());
        let path = paths.value(k);
        let path = path.as_string::<i32>();
        let expected: Vec<&str> = d.title_path(info).collect();
        assert_eq!(
            (0..path.len()).map(|i| path.value(i)).collect::<Vec<_>>(),
            expected
        );
    }
}

#[test]
fn texts_are_read_from_every_kind_of_string_array_and_checked() {
    use arrow_array::{BinaryArray, LargeStringArray, StringArray, StringViewArray};
    let arrays: Vec<Result<ArrayRef, ArrowError>> = vec![
        Ok(Arc::new(StringArray::from(vec![
            Some("a"),
            None,
            Some("éé"),
        ]))),
        Ok(Arc::new(StringViewArray::from(vec![
            "一二三 and a long enough view",
        ]))),
        Ok(Arc::new(BinaryArray::from(vec![&b"bytes"[..]]))),
    ];
    let arrays = texts::string_arrays("texts", arrays).expect("strings");
    let (read, large) = texts::texts("texts", &arrays).expect("UTF-8");
    assert!(!large);
    assert_eq!(
        read,
        [
            Some("a"),
            None,
            Some("éé"),
            Some("一二三 and a long enough view"),
            Some("bytes")
        ]
    );
    let large: ArrayRef = Arc::new(LargeStringArray::from(vec!["x"]));
    assert!(texts::texts("texts", &[large]).expect("UTF-8").1);
    // Not strings, not UTF-8, a reader's error: each named by the argument.
    let ints: ArrayRef = Arc::new(Int64Array::from(vec![1]));
    let e = texts::string_arrays("doc_ids", [Ok(ints)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "doc_ids must be Arrow strings (string, large_string or string_view), got Int64"
    );
    let bad: ArrayRef = Arc::new(BinaryArray::from(vec![&b"ok"[..], &[0xff, 0xfe][..]]));
    let e = texts::texts("texts", &[bad]).unwrap_err();
    assert!(
        e.to_string().starts_with("texts[1] is not valid UTF-8"),
        "{e}"
    );
    let failed = ArrowError::ComputeError("gone".into());
    let e = texts::string_arrays("texts", [Err(failed)]).unwrap_err();
    assert!(matches!(e, Error::Read { arg: "texts", .. }));
}
