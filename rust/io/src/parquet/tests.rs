use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use chunkwise_core::{Splitter, Strategy};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::rows::RowBuilder;
use super::*;
use crate::columns::{columns, fields, Field, Metadata};
use crate::tests::{chunked, chunks, shape, splitter, MARKDOWN, PLAIN};
use crate::{Changes, Document};

/// Every field but `change` (which needs a previous run), `metadata` standing for every column it can.
fn every_column(tokens: bool) -> Layout {
    let fields: Vec<Field> = fields().filter(|&f| f != key::CHANGE).collect();
    let metadata = Metadata {
        structural: true,
        code: true,
        strategies: true,
    };
    Layout::new(columns(&fields, metadata), tokens)
}

/// The Parquet file of the documents (each a splitter and a text), read back: its batches and its row groups.
fn parquet_of(layout: &Layout, documents: &[(&Splitter, &str)]) -> (Vec<RecordBatch>, usize) {
    let blocks = Blocks::default();
    let mut encoding =
        Encoding::new(blocks.clone(), layout, Compression::SNAPPY, || {}).expect("an encoder");
    let changes = Changes::new(None::<[&str; 0]>);
    for (splitter, text) in documents {
        let described = splitter.is_structural();
        let mut rows = RowBuilder::new(layout, shape(splitter), &changes, described);
        let chunks = chunks(splitter, text);
        let view = chunked(&chunks);
        for (i, c) in chunks.chunks.iter().enumerate() {
            rows.push(
                &text[c.start..c.end],
                Document::new("src", None),
                i,
                c,
                view.info(i),
            );
            if rows.is_full() {
                encoding
                    .write(&rows.finish().expect("rows"))
                    .expect("encoded");
            }
        }
        if rows.rows() > 0 {
            encoding
                .write(&rows.finish().expect("rows"))
                .expect("encoded");
        }
    }
    encoding.close().expect("closed");
    let bytes: Vec<u8> = blocks.take().concat();
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes)).expect("a Parquet file");
    let groups = reader.metadata().num_row_groups();
    assert_eq!(reader.schema().fields(), layout.schema().fields());
    let batches = reader
        .build()
        .expect("a reader")
        .collect::<Result<Vec<_>, _>>()
        .expect("rows");
    (batches, groups)
}

fn strings(batches: &[RecordBatch], column: &str) -> Vec<Option<String>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b
                .column_by_name(column)
                .expect("the column")
                .as_string::<i32>()
                .clone();
            (0..a.len()).map(move |i| (!a.is_null(i)).then(|| a.value(i).to_owned()))
        })
        .collect()
}

fn ints(batches: &[RecordBatch], column: &str) -> Vec<Option<i64>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b
                .column_by_name(column)
                .expect("the column")
                .as_primitive::<Int64Type>()
                .clone();
            (0..a.len()).map(move |i| (!a.is_null(i)).then(|| a.value(i)))
        })
        .collect()
}

#[test]
fn the_schema_and_column_order_are_pinned() {
    let every = Metadata {
        structural: true,
        code: true,
        strategies: true,
    };
    let layout = Layout::new(columns(&fields().collect::<Vec<_>>(), every), false);
    let names: Vec<&str> = layout
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        [
            "text",
            "start",
            "end",
            "source",
            "index",
            "id",
            "prev_id",
            "next_id",
            "level",
            "size",
            "token_count",
            "context",
            "embedding_text",
            "strategy",
            "strategy_reason",
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
            "page_start",
            "page_end",
            "change",
        ]
    );
    let nullable: Vec<&str> = layout
        .schema()
        .fields()
        .iter()
        .filter(|f| f.is_nullable())
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        nullable,
        [
            "prev_id",
            "next_id",
            "token_count",
            "strategy",
            "strategy_reason",
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
            "page_start",
            "page_end",
            "change",
        ]
    );
    let schema = layout.schema();
    let type_of = |name: &str| {
        schema
            .field_with_name(name)
            .expect("a column")
            .data_type()
            .clone()
    };
    assert_eq!(type_of("text"), DataType::Utf8);
    assert_eq!(type_of("start"), DataType::Int64);
    assert_eq!(
        type_of("title_path"),
        DataType::new_list(DataType::Utf8, true)
    );
    assert_eq!(
        type_of("headings"),
        DataType::new_list(DataType::Int64, true)
    );
    assert_eq!(type_of("context_shortened"), DataType::Boolean);
    // Sizes in tokens: `token_count` holds no null.
    assert!(!every_column(true)
        .schema()
        .field_with_name("token_count")
        .unwrap()
        .is_nullable());
    // Without the description: only the pages stand for `metadata`.
    let plain = columns(&[key::TEXT, key::METADATA], Metadata::default());
    assert_eq!(plain, [key::TEXT, key::PAGE_START, key::PAGE_END]);
}

#[test]
fn rows_cross_row_group_boundaries_and_read_back_whole() {
    let text = PLAIN.repeat(900);
    let splitter = splitter(Strategy::Recursive, 16);
    let layout = every_column(false);
    let (batches, groups) = parquet_of(&layout, &[(&splitter, &text)]);
    let chunks = chunks(&splitter, &text);
    assert!(
        chunks.chunks.len() > 8192,
        "more rows than a row group holds"
    );
    assert!(groups >= 2, "{groups} row groups");
    let texts = strings(&batches, "text");
    assert_eq!(texts.len(), chunks.chunks.len());
    for (k, c) in chunks.chunks.iter().enumerate() {
        // Non-ASCII text (accents, CJK, an emoji, CRLF) and its char offsets.
        assert_eq!(texts[k].as_deref(), Some(&text[c.start..c.end]));
    }
    assert_eq!(strings(&batches, "embedding_text"), texts);
    let starts = ints(&batches, "start");
    assert!(starts
        .iter()
        .zip(&chunks.chunks)
        .all(|(s, c)| *s == Some(c.char_start as i64)));
    let index = ints(&batches, "index");
    assert!(index.iter().enumerate().all(|(k, i)| *i == Some(k as i64)));
    // Nulls: the first chunk has no previous id, the last no next one; sizes in chars have no token count; a
    // chunker without a description leaves its columns null.
    let (prev, next, ids) = (
        strings(&batches, "prev_id"),
        strings(&batches, "next_id"),
        strings(&batches, "id"),
    );
    assert_eq!(prev[0], None);
    assert_eq!(next[next.len() - 1], None);
    assert_eq!(prev[1], ids[0]);
    assert_eq!(next[0], ids[1]);
    assert!(ints(&batches, "token_count").iter().all(Option::is_none));
    for name in [
        "title_path",
        "chunk_type",
        "row_start",
        "symbol_path",
        "strategy",
    ] {
        assert!(
            batches
                .iter()
                .all(|b| b.column_by_name(name).unwrap().null_count() == b.num_rows()),
            "{name}"
        );
    }
}

#[test]
fn an_empty_document_has_no_row_and_the_file_its_schema() {
    let layout = every_column(false);
    for strategy in [Strategy::Recursive, Strategy::Markdown] {
        let splitter = splitter(strategy, 100);
        let (batches, groups) = parquet_of(&layout, &[(&splitter, "")]);
        assert_eq!(groups, 0);
        assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 0);
    }
}

#[test]
fn described_rows_and_plain_rows_share_a_file() {
    let layout = every_column(false);
    let markdown = splitter(Strategy::Markdown, 60);
    let recursive = splitter(Strategy::Recursive, 30);
    let (batches, _) = parquet_of(
        &layout,
        &[
            (&recursive, PLAIN),
            (&markdown, MARKDOWN),
            (&recursive, PLAIN),
        ],
    );
    let plain = chunks(&recursive, PLAIN).chunks.len();
    let described = chunks(&markdown, MARKDOWN);
    let n = described.chunks.len();
    let types = strings(&batches, "chunk_type");
    assert!(types[..plain].iter().all(Option::is_none));
    assert!(types[plain..plain + n].iter().all(Option::is_some));
    assert!(types[plain + n..].iter().all(Option::is_none));
    let (texts, contexts, embeddings) = (
        strings(&batches, "text"),
        strings(&batches, "context"),
        strings(&batches, "embedding_text"),
    );
    for (k, info) in described
        .description
        .as_ref()
        .unwrap()
        .chunks
        .iter()
        .enumerate()
    {
        let row = plain + k;
        assert_eq!(contexts[row].as_deref(), Some(info.context.as_str()));
        let text = texts[row].as_deref().unwrap();
        let expected = match &info.embedding {
            Some(e) => e.clone(),
            None if info.context.is_empty() => text.to_owned(),
            None => format!("{}{}{text}", info.context, crate::context_sep(info)),
        };
        assert_eq!(embeddings[row].as_deref(), Some(expected.as_str()));
        // Table rows only on a table's chunks; code keys only on a code block's.
        assert_eq!(types[row].as_deref(), Some(info.kind.as_str()));
        assert_eq!(
            ints(&batches, "row_start")[row].is_some(),
            info.rows.is_some()
        );
        assert_eq!(
            ints(&batches, "start_line")[row].is_some(),
            info.code.is_some()
        );
    }
    assert_eq!(embeddings[plain + n..], texts[plain + n..]);
}

#[test]
fn every_codec_writes_a_file_that_reads_back() {
    let splitter = splitter(Strategy::Recursive, 40);
    for name in CODECS {
        let codec = codec(name).expect("a codec");
        let layout = Layout::new(vec![key::TEXT, key::ID], false);
        let blocks = Blocks::default();
        let mut encoding =
            Encoding::new(blocks.clone(), &layout, codec, || {}).expect("an encoder");
        let changes = Changes::new(None::<[&str; 0]>);
        let mut rows = RowBuilder::new(&layout, shape(&splitter), &changes, false);
        let chunks = chunks(&splitter, PLAIN);
        for (i, c) in chunks.chunks.iter().enumerate() {
            rows.push(&PLAIN[c.start..c.end], Document::new("s", None), i, c, None);
        }
        encoding
            .write(&rows.finish().expect("rows"))
            .expect("encoded");
        encoding.close().expect("closed");
        let bytes = Bytes::from(blocks.take().concat());
        let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
            .expect("a file")
            .build()
            .expect("a reader");
        let n: usize = reader.map(|b| b.expect("a batch").num_rows()).sum();
        assert_eq!(n, chunks.chunks.len(), "{name}");
    }
    assert!(codec("zip").is_none());
}
