//! What the outputs' tests share: a splitter, a document's chunks, and what they hold.

use chunkwise_core::{ChunkOptions, Chunks, Description, Span, Splitter, SplitterConfig, Strategy};

use crate::arrow::Spanned;
use crate::{Chunked, Shape};

/// A splitter of `strategy` at `size` chars.
pub(crate) fn splitter(strategy: Strategy, size: usize) -> Splitter {
    Splitter::new(SplitterConfig::new(strategy, size)).expect("a valid config")
}

/// The chunks of `text`, namespaced by `doc_id`.
pub(crate) fn chunks(splitter: &Splitter, text: &str) -> Chunks {
    let options = ChunkOptions {
        doc_id: Some("doc"),
        paged: false,
    };
    let chunks = splitter.chunks(text, options).expect("chunks");
    // The invariants every output relies on, before anything is written.
    for c in &chunks.chunks {
        assert!(c.start <= c.end && c.end <= text.len());
        assert_eq!(text[..c.start].chars().count(), c.char_start);
        assert_eq!(text[..c.end].chars().count(), c.char_end);
    }
    chunks
}

pub(crate) fn chunked(chunks: &Chunks) -> Chunked<'_> {
    Chunked {
        chunks: &chunks.chunks,
        structure: chunks.description.as_ref(),
    }
}

/// The spans of `text` with their description, as `chunk_arrow` takes them: their chunks are those of [`chunks`].
pub(crate) fn spans(splitter: &Splitter, text: &str) -> (Vec<Span>, Option<Description>) {
    splitter.spans_until(text, None).expect("spans")
}

/// The view of [`spans`] that the Arrow columns are built from.
pub(crate) fn spanned((spans, structure): &(Vec<Span>, Option<Description>)) -> Spanned<'_> {
    Spanned {
        spans,
        structure: structure.as_ref(),
        options: ChunkOptions {
            doc_id: Some("doc"),
            paged: false,
        },
    }
}

pub(crate) fn shape(splitter: &Splitter) -> Shape<'_> {
    Shape {
        tokens: false,
        splitter,
    }
}

/// Text with a heading, a table and a code block, in several scripts (for the structural chunkers).
pub(crate) const MARKDOWN: &str = "# Überblick\n\nEin Absatz über nichts, mit \"Anführungszeichen\".\n\n\
## 表\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n## Code\n\n```python\ndef f(x):\n    return x\n```\n\n\
Ein letzter Absatz: 😀 und \u{2028} und Tabs\tda.\n";

/// Plain text of several paragraphs, mixed scripts.
pub(crate) const PLAIN: &str = "Erster Absatz, éé und ß.\n\n第二段：中文，日本語も。\n\n\
Third paragraph with an emoji 😀 and a line\r\nbreak.\n\n\u{1}control and \"quotes\" \\ backslash.";

#[test]
fn hash_ids_are_sixteen_lowercase_hex_digits() {
    assert_eq!(&crate::hash_id(0), b"0000000000000000");
    assert_eq!(&crate::hash_id(u64::MAX), b"ffffffffffffffff");
    assert_eq!(&crate::hash_id(0x0123_4567_89ab_cdef), b"0123456789abcdef");
}

#[test]
fn changes_count_added_and_kept_against_the_previous_ids() {
    let kept = std::str::from_utf8(&crate::hash_id(7)).unwrap().to_owned();
    let changes = crate::Changes::new(Some([kept.as_str(), "not an id", "ABCDEF0123456789"]));
    assert!(changes.compared());
    assert_eq!(changes.change(7), "kept");
    assert_eq!(changes.change(8), "added");
    changes.record(&[7, 8, 9]);
    assert_eq!((changes.added(), changes.kept()), (2, 1));
    assert!(changes.written(&kept));
    assert!(!changes.written("not an id"));
    // Without a previous run nothing is counted (and no id kept).
    let none = crate::Changes::new(None::<[&str; 0]>);
    none.record(&[7]);
    assert!(!none.compared());
    assert_eq!((none.added(), none.kept()), (0, 0));
    assert!(!none.written(&kept));
}

#[test]
fn parse_id_takes_only_lowercase_hex_of_sixteen_digits() {
    assert_eq!(crate::changes::parse_id("00000000000000ff"), Some(255));
    assert_eq!(crate::changes::parse_id("00000000000000FF"), None);
    assert_eq!(crate::changes::parse_id("ff"), None);
    assert_eq!(crate::changes::parse_id("+0000000000000ff"), None);
}

#[test]
fn fields_parse_by_name_once_and_change_needs_a_previous_run() {
    use crate::columns::{fields, parse_fields};
    use chunkwise_core::record::key;
    assert_eq!(
        parse_fields(&["text", "id"], false),
        Ok(vec![key::TEXT, key::ID])
    );
    let unknown = parse_fields(&["text", "txet"], false).unwrap_err();
    assert!(
        unknown.starts_with("fields[1]: unknown field \"txet\""),
        "{unknown}"
    );
    assert_eq!(
        parse_fields(&["id", "id"], false).unwrap_err(),
        "fields names \"id\" twice"
    );
    assert!(parse_fields(&["change"], false).is_err());
    assert_eq!(parse_fields(&["change"], true), Ok(vec![key::CHANGE]));
    // The fields are the record's columns of the lines that are not metadata keys, in its order.
    let names: Vec<_> = fields().map(|f| f.name()).collect();
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
            "metadata",
            "change"
        ]
    );
    for name in names {
        assert_eq!(parse_fields(&[name], true).map(|f| f[0].name()), Ok(name));
    }
    assert!(parse_fields(&["title_path"], false).is_err());
}

#[test]
fn spooled_records_read_back_as_written() {
    let splitter = splitter(Strategy::Recursive, 20);
    let chunks = chunks(&splitter, PLAIN);
    let mut out = Vec::new();
    crate::spool::spool(&mut out, &chunks.chunks, 3, |c| &PLAIN[c.start..c.end]);
    let mut at = 0;
    let mut k = 0;
    while let Some((record, next)) = crate::spool::Record::read(&out[at..]) {
        let c = &chunks.chunks[k];
        assert_eq!(record.index, 3 + k);
        assert_eq!(record.text, &PLAIN.as_bytes()[c.start..c.end]);
        let back = &record.chunk;
        assert_eq!(
            (back.char_start, back.char_end, back.size, back.level),
            (c.char_start, c.char_end, c.size, c.level)
        );
        assert_eq!(
            (back.id, back.prev_id, back.next_id, back.pages),
            (c.id, c.prev_id, c.next_id, c.pages)
        );
        at += next;
        k += 1;
    }
    assert_eq!((k, at), (chunks.chunks.len(), out.len()));
    // A record cut short is not read (the rest of it is still to come).
    let first_len = crate::spool::Record::read(&out).unwrap().1;
    assert!(crate::spool::Record::read(&out[..first_len - 1]).is_none());
    assert!(crate::spool::Record::read(&[]).is_none());
}
