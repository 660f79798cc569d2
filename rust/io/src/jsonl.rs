//! JSON lines of chunks (`chunkwise chunk`): a line holds the fields `Chunk.to_dict` and `chunk.metadata` give, in
//! the format `json.dumps(..., ensure_ascii=False)` writes (", " and ": " between items, the same escapes), so a
//! reader sees no difference. Written into a buffer a piece at a time, each piece handed to a sink.

use std::io::Write;

use chunkwise_core::structure::CodeSpan;
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
    /// whole line); `changes`: the previous run's ids, for `change`. Returns the chunks' ids when a previous run is
    /// compared with (else none: nothing reads them).
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
    ) -> std::io::Result<Vec<u64>> {
        let mut source_json = Vec::with_capacity(document.source.len() + 2);
        string(&mut source_json, document.source);
        // The metadata's keys that are the same for every chunk of the document: the source, and the strategy.
        let mut head_json = b"{\"source\": ".to_vec();
        head_json.extend_from_slice(&source_json);
        if let Some((strategy, reason)) = document.strategy {
            head_json.extend_from_slice(b", \"strategy\": ");
            string(&mut head_json, strategy);
            head_json.extend_from_slice(b", \"strategy_reason\": ");
            string(&mut head_json, reason);
        }
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
                match field {
                    Field::Text => {
                        let from = out.len();
                        string(out, text);
                        escaped = Some(from..out.len());
                    }
                    Field::Start => int(out, c.char_start),
                    Field::End => int(out, c.char_end),
                    Field::Source => out.extend_from_slice(&source_json),
                    Field::Index => int(out, first + i),
                    Field::Id => id(out, Some(c.id)),
                    Field::PrevId => id(out, c.prev_id),
                    Field::NextId => id(out, c.next_id),
                    Field::Level => string(out, shape.level_name(c.level)),
                    Field::Size => int(out, c.size),
                    Field::TokenCount if shape.tokens => int(out, c.size),
                    Field::TokenCount => out.extend_from_slice(b"null"),
                    Field::Context => string(out, info.map_or("", |(_, s)| &s.context)),
                    Field::EmbeddingText => match info.map(|(_, s)| s) {
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
                    Field::Metadata => metadata(out, &head_json, info, c.pages),
                    Field::Change => {
                        let kept = changes.kept_id(c.id);
                        out.extend_from_slice(if kept { b"\"kept\"" } else { b"\"added\"" });
                    }
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
        Ok(ids)
    }
}

/// A chunk's metadata as `chunk.metadata` holds it in the command line: `head`, the opening brace and the keys the
/// document gives every chunk (the source, then the strategy that chose its chunker), then the keys of a structural
/// chunker's description (in the order `build::describe` sets them), then the pages of a paged text.
fn metadata(
    out: &mut Vec<u8>,
    head: &[u8],
    info: Option<(&Description, &SpanInfo)>,
    pages: Option<(usize, usize)>,
) {
    out.extend_from_slice(head);
    if let Some((d, s)) = info.filter(|(_, s)| s.code.as_ref().is_some_and(|c| c.symbols.is_none()))
    {
        code_metadata(out, d, s);
    } else if let Some((d, s)) = info {
        out.extend_from_slice(b", \"title_path\": ");
        strings(out, d.title_path(s));
        out.extend_from_slice(b", \"headings\": [");
        for (k, &h) in s.path.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(b", ");
            }
            int(out, usize::from(d.headings[h].depth));
        }
        out.extend_from_slice(b"], \"chunk_type\": ");
        string(out, s.kind.as_str());
        if let Some((first, past, total)) = s.rows {
            for (key, value) in [
                ("row_start", first),
                ("row_end", past),
                ("total_rows", total),
            ] {
                let _ = write!(out, ", \"{key}\": ");
                int(out, value);
            }
        }
        if let Some(language) = &s.language {
            out.extend_from_slice(b", \"language\": ");
            match language {
                Some(l) => string(out, l),
                None => out.extend_from_slice(b"null"),
            }
        }
        if let Some(code) = &s.code {
            // A Markdown code block parsed as code: the code chunker's keys too.
            code_keys(out, d, s, code);
            if let Some(note) = code.note {
                out.extend_from_slice(b", \"note\": ");
                string(out, note);
            }
        }
        if s.context_shortened {
            out.extend_from_slice(b", \"context_shortened\": true");
        }
    }
    if let Some((first, last)) = pages {
        out.extend_from_slice(b", \"page_start\": ");
        int(out, first);
        out.extend_from_slice(b", \"page_end\": ");
        int(out, last);
    }
    out.push(b'}');
}

/// A code chunk's keys, in the order `build::describe` sets them: language, symbol path, lines, node types, chunk
/// type, then the note and `context_shortened` when set.
fn code_metadata(out: &mut Vec<u8>, d: &Description, s: &SpanInfo) {
    let Some(code) = &s.code else { return };
    out.extend_from_slice(b", \"language\": ");
    match s.language.as_ref().and_then(|l| l.as_deref()) {
        Some(l) => string(out, l),
        None => out.extend_from_slice(b"null"),
    }
    code_keys(out, d, s, code);
    out.extend_from_slice(b", \"chunk_type\": ");
    string(out, s.kind.as_str());
    if let Some(note) = code.note {
        out.extend_from_slice(b", \"note\": ");
        string(out, note);
    }
    if s.context_shortened {
        out.extend_from_slice(b", \"context_shortened\": true");
    }
}

/// A chunk of code's symbol path, lines and node types.
fn code_keys(out: &mut Vec<u8>, d: &Description, s: &SpanInfo, code: &CodeSpan) {
    out.extend_from_slice(b", \"symbol_path\": ");
    strings(out, d.symbol_path(s));
    out.extend_from_slice(b", \"start_line\": ");
    int(out, code.lines.0);
    out.extend_from_slice(b", \"end_line\": ");
    int(out, code.lines.1);
    out.extend_from_slice(b", \"node_types\": ");
    strings(out, code.node_types.iter().map(String::as_str));
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
