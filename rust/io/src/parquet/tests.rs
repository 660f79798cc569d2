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

#[test]
fn the_encoder_thread_writes_the_pieces_in_order_and_closes_once() {
    let text = PLAIN.repeat(300);
    let splitter = splitter(Strategy::Recursive, 16);
    let layout = Layout::new(vec![key::TEXT, key::INDEX], false);
    let blocks = Blocks::default();
    let encoder =
        Encoder::start(blocks.clone(), layout, Compression::SNAPPY, || {}).expect("an encoder");
    let changes = Changes::new(None::<[&str; 0]>);
    let chunks = chunks(&splitter, &text);
    let mut piece = encoder.piece(shape(&splitter), &changes, false);
    let mut sent = 0;
    for (i, c) in chunks.chunks.iter().enumerate() {
        piece.push(&text[c.start..c.end], Document::new("s", None), i, c, None);
        if piece.is_full() {
            encoder.send(&mut piece).expect("sent");
            assert_eq!(piece.rows(), 0, "a piece sent is emptied");
            sent += 1;
        }
    }
    encoder.send(&mut piece).expect("sent");
    // An empty piece is not handed over.
    encoder.send(&mut piece).expect("nothing to send");
    assert!(sent >= 2, "{sent} pieces");
    encoder.close().expect("closed");
    encoder.close().expect("closing again does nothing");
    let mut more = encoder.piece(shape(&splitter), &changes, false);
    more.push("x", Document::new("s", None), 0, &chunks.chunks[0], None);
    assert!(matches!(encoder.send(&mut more), Err(Error::Closed)));
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(blocks.take().concat()))
        .expect("a file")
        .build()
        .expect("a reader");
    let batches: Vec<RecordBatch> = reader.map(|b| b.expect("a batch")).collect();
    let index = ints(&batches, "index");
    assert_eq!(index.len(), chunks.chunks.len());
    assert!(index.iter().enumerate().all(|(k, i)| *i == Some(k as i64)));
    let texts = strings(&batches, "text");
    assert!(chunks
        .chunks
        .iter()
        .zip(&texts)
        .all(|(c, t)| t.as_deref() == Some(&text[c.start..c.end])));
}

/// A file whose writes fail after `left` bytes.
struct Failing {
    left: usize,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.left {
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "the disk is full",
            ));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_file_that_fails_is_the_encoders_error_as_itself() {
    let splitter = splitter(Strategy::Recursive, 16);
    let layout = Layout::new(vec![key::TEXT], false);
    let encoder = Encoder::start(
        Failing { left: 64 },
        layout,
        Compression::UNCOMPRESSED,
        || {},
    )
    .expect("an encoder (the file's magic fits)");
    let changes = Changes::new(None::<[&str; 0]>);
    let text = PLAIN.repeat(2000);
    let chunks = chunks(&splitter, &text);
    let mut piece = encoder.piece(shape(&splitter), &changes, false);
    let mut failed = None;
    for (i, c) in chunks.chunks.iter().enumerate() {
        piece.push(&text[c.start..c.end], Document::new("s", None), i, c, None);
        if piece.is_full() {
            if let Err(e) = encoder.send(&mut piece) {
                failed = Some(e);
                break;
            }
        }
    }
    let e = match failed {
        Some(e) => e,
        None => encoder.close().expect_err("the file is full"),
    };
    match e {
        Error::Io(io) => assert_eq!(io.kind(), std::io::ErrorKind::StorageFull),
        e => panic!("not the file's error: {e:?}"),
    }
}

#[test]
fn errors_say_what_failed() {
    let io = parquet::errors::ParquetError::External(Box::new(std::io::Error::other("full")));
    assert!(matches!(Error::from(io), Error::Io(_)));
    let other = Error::from(parquet::errors::ParquetError::General("bad".into()));
    assert_eq!(
        other.to_string(),
        "writing the Parquet rows: Parquet error: bad"
    );
    assert_eq!(Error::Closed.to_string(), "the Parquet rows are closed");
    assert_eq!(
        Error::Spool.to_string(),
        "the spooled rows of a streamed document are cut short or damaged"
    );
}

#[test]
fn a_spool_reads_back_across_blocks_of_any_size() {
    let splitter = splitter(Strategy::Recursive, 24);
    let chunks = chunks(&splitter, PLAIN);
    let mut spooled = Vec::new();
    crate::spool::spool(&mut spooled, &chunks.chunks, 5, |c| &PLAIN[c.start..c.end]);
    for size in [1, 7, 100, spooled.len()] {
        let mut spool = Unspool::default();
        let mut read = Vec::new();
        for block in spooled.chunks(size).chain([&[][..]]) {
            spool.feed(block);
            while let Some(record) = spool.next() {
                let (text, record) = record.expect("a record");
                read.push((record.index, text.to_owned(), record.chunk.id));
            }
        }
        spool.finish().expect("whole");
        let expected: Vec<_> = chunks
            .chunks
            .iter()
            .enumerate()
            .map(|(k, c)| (5 + k, PLAIN[c.start..c.end].to_owned(), c.id))
            .collect();
        assert_eq!(read, expected, "blocks of {size}");
    }
    // Cut short: the last record is missing a byte.
    let mut spool = Unspool::default();
    spool.feed(&spooled[..spooled.len() - 1]);
    while spool.next().is_some() {}
    assert!(matches!(spool.finish(), Err(Error::Spool)));
    // A text that is not UTF-8.
    let mut bad = Vec::new();
    let c = &chunks.chunks[0];
    crate::spool::spool(&mut bad, std::slice::from_ref(c), 0, |_| "é");
    let at = bad.len() - 1;
    bad[at] = 0xff;
    let mut spool = Unspool::default();
    spool.feed(&bad);
    assert!(matches!(spool.next(), Some(Err(Error::Spool))));
}
