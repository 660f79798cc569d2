//! JSON lines of chunks (`chunkwise chunk`): a line holds the fields `Chunk.to_dict` and `chunk.metadata` give, in
//! the format `json.dumps(..., ensure_ascii=False)` writes (", " and ": " between items, the same escapes), so a
//! reader sees no difference. Written into a buffer a piece at a time, each piece handed to a sink.

use std::io::Write;

use chunkwise_core::record::{self, key, Value};
use chunkwise_core::{Chunk, Description, SpanInfo};

use crate::columns::Field;
use crate::{context_sep, hash_id, Changes, Chunked, Document, Shape};

/// About how many bytes of lines are written to the sink at a time.
pub const PIECE: usize = 1 << 16;

/// How a run writes its lines: the fields, in order.
#[derive(Debug, Clone)]
pub struct Lines {
    fields: Vec<Field>,
}

/// Writes `piece` to `sink`, whole, and empties it.
pub fn flush<W: Write + ?Sized>(piece: &mut Vec<u8>, sink: &mut W) -> std::io::Result<()> {
    if !piece.is_empty() {
        sink.write_all(piece)?;
        piece.clear();
    }
    Ok(())
}

impl Lines {
    pub fn new(fields: Vec<Field>) -> Self {
        Self { fields }
    }

    /// The fields, in order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// Writes the lines of a document's chunks (`chunks`, the first of which has index `first`; their texts by
    /// `text_of`) to `out`, writing it to `sink` (see [`flush`]) whenever it holds [`PIECE`] bytes or more (after a
    /// whole line); `changes`: the previous run's ids, for `change`, where the chunks are counted once all their
    /// lines are written (see [`Changes::record`]).
    #[allow(clippy::too_many_arguments)]
    pub fn write<'t, W: Write + ?Sized>(
        &self,
        out: &mut Vec<u8>,
        sink: &mut W,
        changes: &Changes,
        shape: &Shape<'_>,
        document: Document<'_>,
        chunks: Chunked<'_>,
        first: usize,
        text_of: impl Fn(&Chunk) -> &'t str,
    ) -> std::io::Result<()> {
        let mut source_json = Vec::with_capacity(document.source.len() + 2);
        string(&mut source_json, document.source);
        // The metadata's keys that are the same for every chunk of the document: the source, and the strategy.
        let mut head_json = b"{\"source\": ".to_vec();
        head_json.extend_from_slice(&source_json);
        record::chunk_metadata(document.strategy, None, None, |key, value| {
            entry(&mut head_json, key, value, None);
        });
        let mut ids = Vec::new();
        for (i, c) in chunks.chunks.iter().enumerate() {
            let text = text_of(c);
            let info = chunks.info(i);
            // Where this line holds the text, escaped: an embedding text equal to it is copied from there.
            let mut escaped: Option<std::ops::Range<usize>> = None;
            out.push(b'{');
            for (k, field) in self.fields.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(b", ");
                }
                out.push(b'"');
                out.extend_from_slice(field.name().as_bytes());
                out.extend_from_slice(b"\": ");
                match *field {
                    key::TEXT => {
                        let from = out.len();
                        string(out, text);
                        escaped = Some(from..out.len());
                    }
                    key::START => int(out, c.char_start),
                    key::END => int(out, c.char_end),
                    key::SOURCE => out.extend_from_slice(&source_json),
                    key::INDEX => int(out, first + i),
                    key::ID => id(out, Some(c.id)),
                    key::PREV_ID => id(out, c.prev_id),
                    key::NEXT_ID => id(out, c.next_id),
                    key::LEVEL => string(out, shape.level_name(c.level)),
                    key::SIZE => int(out, c.size),
                    key::TOKEN_COUNT if shape.tokens => int(out, c.size),
                    key::TOKEN_COUNT => out.extend_from_slice(b"null"),
                    key::CONTEXT => string(out, info.map_or("", |(_, s)| &s.context)),
                    key::EMBEDDING_TEXT => match info.map(|(_, s)| s) {
                        Some(s) if s.embedding.is_some() => {
                            string(out, s.embedding.as_deref().unwrap_or_default());
                        }
                        Some(s) if !s.context.is_empty() => {
                            string(out, &format!("{}{}{text}", s.context, context_sep(s)));
                        }
                        _ => match &escaped {
                            Some(range) => out.extend_from_within(range.clone()),
                            None => string(out, text),
                        },
                    },
                    key::METADATA => metadata(out, &head_json, info, c.pages),
                    key::CHANGE => {
                        let kept = changes.kept_id(c.id);
                        out.extend_from_slice(if kept { b"\"kept\"" } else { b"\"added\"" });
                    }
                    // Not a field of a line (`parse_fields` takes none other).
                    _ => out.extend_from_slice(b"null"),
                }
            }
            out.extend_from_slice(b"}\n");
            if changes.compared() {
                ids.push(c.id);
            }
            if out.len() >= PIECE {
                flush(out, sink)?;
            }
        }
        changes.record(&ids);
        Ok(())
    }

    /// The lines of a document's chunks (as [`Lines::write`] takes them), all in one buffer (a stream's, see
    /// `ChunkStream.push_lines`).
    pub fn write_all<'t>(
        &self,
        changes: &Changes,
        shape: &Shape<'_>,
        document: Document<'_>,
        chunks: Chunked<'_>,
        first: usize,
        text_of: impl Fn(&Chunk) -> &'t str,
    ) -> Vec<u8> {
        let (mut out, mut piece) = (Vec::new(), Vec::new());
        // Writing to memory cannot fail.
        let _ = self.write(
            &mut piece, &mut out, changes, shape, document, chunks, first, text_of,
        );
        out.extend_from_slice(&piece);
        out
    }
}

/// A chunk's metadata as `chunk.metadata` holds it in the command line: `head`, the opening brace and the keys the
/// document gives every chunk (the source, then the strategy that chose its chunker), then the keys of its
/// description and its pages (`record::chunk_metadata`).
fn metadata(
    out: &mut Vec<u8>,
    head: &[u8],
    info: Option<(&Description, &SpanInfo)>,
    pages: Option<(usize, usize)>,
) {
    out.extend_from_slice(head);
    let (d, s) = info.unzip();
    record::chunk_metadata(None, s, pages, |key, value| entry(out, key, value, d));
    out.push(b'}');
}

/// `, "key": value` (headings as their titles or depths in `d`).
fn entry(out: &mut Vec<u8>, key: record::Key, value: Value<'_>, d: Option<&Description>) {
    out.extend_from_slice(b", \"");
    out.extend_from_slice(key.name().as_bytes());
    out.extend_from_slice(b"\": ");
    let title = |h: &usize| d.map_or("", |d| d.headings[*h].title.as_str());
    match value {
        Value::Titles(path) => strings(out, path.iter().map(title)),
        Value::Depths(path) => {
            out.push(b'[');
            for (k, &h) in path.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(b", ");
                }
                int(out, d.map_or(0, |d| usize::from(d.headings[h].depth)));
            }
            out.push(b']');
        }
        Value::Type(t) => string(out, t.as_str()),
        Value::Str(s) | Value::OptStr(Some(s)) => string(out, s),
        Value::OptStr(None) => out.extend_from_slice(b"null"),
        Value::Int(n) => int(out, n),
        Value::Strs(items) => strings(out, items.iter().map(String::as_str)),
        Value::True => out.extend_from_slice(b"true"),
    }
}

/// A JSON list of strings.
fn strings<'a>(out: &mut Vec<u8>, items: impl Iterator<Item = &'a str>) {
    out.push(b'[');
    for (k, item) in items.enumerate() {
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        string(out, item);
    }
    out.push(b']');
}

/// A JSON string, escaped as `json.dumps(..., ensure_ascii=False)` escapes it: `\"`, `\\`, `\b \f \n \r \t`, the
/// other control characters as `\u00XX` (lowercase hex), nothing else. By hand, 8 bytes at a time: serde_json's
/// escaper, a byte at a time, was most of the cost of the lines (a chunk's text is written once or twice).
pub fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut from = 0; // the start of the run not yet copied
    let mut i = 0;
    while i < bytes.len() {
        if i + 8 <= bytes.len() {
            let word = u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
            if !needs_escape(word) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        if b < 0x20 || b == b'"' || b == b'\\' {
            out.extend_from_slice(&bytes[from..i]);
            escape(out, b);
            from = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

/// Whether one of the 8 bytes of `word` is below 0x20, a quote or a backslash (the classic SWAR tests for a zero
/// byte and a byte below n; bytes of 0x80 and above never match).
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    (below_space | zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\'))))
        != 0
}

fn escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ]),
    }
}

fn int(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

fn id(out: &mut Vec<u8>, hash: Option<u64>) {
    match hash {
        Some(h) => {
            out.push(b'"');
            out.extend_from_slice(&hash_id(h));
            out.push(b'"');
        }
        None => out.extend_from_slice(b"null"),
    }
}

#[cfg(test)]
mod tests;
