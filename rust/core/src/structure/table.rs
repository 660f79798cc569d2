//! Tables in Markdown (GFM), CSV (RFC 4180) and TSV: where the header and each row are, as byte ranges into the
//! text, so a table can be cut between rows with its header repeated; Markdown rows rendered from cells; and the
//! [`Structure`] of a text that is one table (cuts between rows, the header as every piece's context).
//!
//! - Markdown: blank lines may surround the table. The first non-blank line is the header, the next line must be a
//!   GFM delimiter row (`|:--|:-:|--:|`, one cell per header cell). Rows follow until a blank line, a line without
//!   `|`, or the end; anything but whitespace after that is an error, since the text holds one table.
//! - Cells are split on `|` that is neither escaped (`\|`) nor inside a code span (`` `a|b` ``). GFM itself splits
//!   inside code spans too; this module does not, and [`render_markdown_row`] follows the same rule, so rendering
//!   the cells of a parsed row and parsing them again gives the same cells.
//! - CSV: quoted fields with `""` escapes and line breaks inside, records ended by LF or CRLF. TSV: fields split on
//!   tabs, verbatim, no quoting. Blank lines between records are skipped; the first record is the header.
//! - A leading byte order mark is skipped (spreadsheets write one). Every scan is linear in the text.

use std::ops::Range;

use memchr::{memchr, memchr2, memchr3};
use rustc_hash::FxHashMap;

use super::{Block, BlockKind, Rendered, Structure};
use crate::boundary::is_blank_byte;
use crate::error::ChunkError;

/// A table found in a text: byte ranges into that text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The header row(s): for Markdown the header line AND the delimiter row (`| a | b |\n|---|:-:|`), for CSV/TSV
    /// the first record. Range ends at the end of the last header line (before its line break).
    pub header: Range<usize>,
    /// Each data row: from its first byte to the end of its last line (before the line break). A CSV record with a
    /// quoted field spanning several lines is one row.
    pub rows: Vec<Range<usize>>,
    /// Byte ranges of the cells of the header row (for CSV: the raw field, quotes included), used to render it.
    pub header_cells: Vec<Range<usize>>,
}

/// The formats [`parse_table`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// A GFM pipe table.
    Markdown,
    /// Comma-separated values, RFC 4180 quoting.
    Csv,
    /// Tab-separated values, no quoting.
    Tsv,
}

/// Parses `text` as one table of the given format. Errors name what is wrong: an empty text, a Markdown table without
/// a delimiter row or with text after it, an unterminated quote in CSV (with the line number).
pub fn parse_table(text: &str, format: TableFormat) -> Result<Table, ChunkError> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    if text.as_bytes()[start..]
        .iter()
        .all(|&b| b == b'\n' || is_blank_byte(b))
    {
        return Err(ChunkError::invalid(
            "text",
            "text holds no table: it is empty or only whitespace",
        ));
    }
    match format {
        TableFormat::Markdown => parse_markdown(text, start),
        TableFormat::Csv => parse_delimited(text, start, Dialect::CSV),
        TableFormat::Tsv => parse_delimited(text, start, Dialect::TSV),
    }
}

/// The cells of one CSV/TSV record (`text[row]`), unquoted (`"a ""b"""` -> `a "b"`), for rendering. An empty record
/// is one empty cell; a quote left open takes the rest of the record. Markdown rows go to [`markdown_cells`].
pub fn delimited_cells(record: &str, format: TableFormat) -> Vec<String> {
    let dialect = match format {
        TableFormat::Csv => Dialect::CSV,
        TableFormat::Tsv => Dialect::TSV,
        TableFormat::Markdown => return markdown_cells(record),
    };
    let bytes = record.as_bytes();
    let mut cells = Vec::new();
    let mut pos = 0;
    loop {
        let (end, stop) =
            scan_field(bytes, pos, dialect, false).unwrap_or((bytes.len(), Stop::End));
        let raw = &record[pos..end];
        cells.push(if dialect.quoting {
            unquote(raw)
        } else {
            raw.to_owned()
        });
        match stop {
            Stop::Delimiter => pos = end + 1,
            Stop::Newline | Stop::End => return cells,
        }
    }
}

/// The cells of one Markdown table row: split on unescaped `|` that are not inside inline code spans (`` `a|b` ``),
/// leading/trailing pipe optional, cells trimmed, `\|` kept as `\|`. A blank row has no cells.
pub fn markdown_cells(row: &str) -> Vec<String> {
    cell_ranges(row)
        .into_iter()
        .map(|r| row[r].to_owned())
        .collect()
}

/// One Markdown table row: `| a | b |`, with `|` in cells escaped as `\|` and line breaks inside a cell as `<br>`.
/// A `|` already escaped or inside a code span is left as it is: exactly the pipes [`markdown_cells`] would split
/// on get a backslash.
pub fn render_markdown_row<S: AsRef<str>>(cells: &[S]) -> String {
    let mut out = String::from("|");
    let mut pipes = Vec::new();
    for cell in cells {
        let cell = cell.as_ref();
        let bytes = cell.as_bytes();
        pipes.clear();
        separator_pipes(bytes, &mut pipes);
        let mut escape = pipes.iter().copied().peekable();
        out.push(' ');
        let (mut copied, mut i) = (0, 0);
        while let Some(k) = memchr3(b'|', b'\r', b'\n', &bytes[i..]) {
            let p = i + k;
            out.push_str(&cell[copied..p]);
            i = p + 1;
            match bytes[p] {
                b'|' => {
                    while escape.next_if(|&q| q < p).is_some() {}
                    if escape.next_if_eq(&p).is_some() {
                        out.push('\\');
                    }
                    out.push('|');
                }
                b'\r' if bytes.get(i) == Some(&b'\n') => {
                    out.push_str("<br>");
                    i += 1;
                }
                _ => out.push_str("<br>"),
            }
            copied = i;
        }
        out.push_str(&cell[copied..]);
        out.push_str(" |");
    }
    out
}

/// The delimiter row for `n` columns: `| --- | --- |`.
pub fn render_markdown_delimiter(n: usize) -> String {
    let mut out = String::with_capacity(1 + 6 * n);
    out.push('|');
    for _ in 0..n {
        out.push_str(" --- |");
    }
    out
}

/// The line starting at `start`: the end of its content (before "\n" or "\r\n") and the start of the next line.
fn line_at(bytes: &[u8], start: usize) -> (usize, usize) {
    let (nl, next) = match memchr(b'\n', &bytes[start..]) {
        Some(k) => (start + k, start + k + 1),
        None => (bytes.len(), bytes.len()),
    };
    (strip_cr(bytes, start, nl), next)
}

/// `end`, moved before a carriage return that ends `bytes[start..end]`.
fn strip_cr(bytes: &[u8], start: usize, end: usize) -> usize {
    if end > start && bytes[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_blank_byte(b))
}

/// The start of a line for an error message: at most 40 chars.
fn preview(line: &str) -> String {
    match line.char_indices().nth(40) {
        Some((cut, _)) => format!("{:?}...", &line[..cut]),
        None => format!("{line:?}"),
    }
}

fn parse_markdown(text: &str, start: usize) -> Result<Table, ChunkError> {
    let bytes = text.as_bytes();
    let mut line = 1;
    let mut pos = start;
    // parse_table has ruled out a blank text, so a non-blank line comes.
    let (header_end, mut next) = loop {
        let (end, next) = line_at(bytes, pos);
        if !is_blank(&bytes[pos..end]) {
            break (end, next);
        }
        pos = next;
        line += 1;
    };
    let header_start = pos;
    let header_line = &text[header_start..header_end];
    if memchr(b'|', header_line.as_bytes()).is_none() {
        return Err(ChunkError::invalid(
            "text",
            format!(
                "text is not a Markdown table: line {line}, its first non-blank line, has no '|': {}",
                preview(header_line)
            ),
        ));
    }
    let header_cells: Vec<Range<usize>> = cell_ranges(header_line)
        .into_iter()
        .map(|r| header_start + r.start..header_start + r.end)
        .collect();
    let no_delimiter = |found: String| {
        ChunkError::invalid(
            "text",
            format!(
                "the Markdown table has no delimiter row: line {} must follow the header with one cell of '-' \
                 (optionally ':' at either end) per header cell, {} here, like {:?}; {found}",
                line + 1,
                header_cells.len(),
                render_markdown_delimiter(header_cells.len()),
            ),
        )
    };
    if next >= bytes.len() {
        return Err(no_delimiter("the text ends after the header".into()));
    }
    let (delimiter_end, after) = line_at(bytes, next);
    let delimiter = &text[next..delimiter_end];
    let cells = cell_ranges(delimiter);
    let valid = memchr(b'|', delimiter.as_bytes()).is_some()
        && cells
            .iter()
            .all(|r| is_delimiter_cell(&delimiter[r.clone()]));
    if !valid {
        return Err(no_delimiter(format!("got {}", preview(delimiter))));
    }
    if cells.len() != header_cells.len() {
        let n = cells.len();
        let noun = if n == 1 { "cell" } else { "cells" };
        return Err(no_delimiter(format!(
            "got {n} {noun}: {}",
            preview(delimiter)
        )));
    }
    let header = header_start..delimiter_end;
    next = after;
    line += 2;

    let mut rows = Vec::new();
    while next < bytes.len() {
        let (end, after) = line_at(bytes, next);
        let row = &bytes[next..end];
        if is_blank(row) || memchr(b'|', row).is_none() {
            break;
        }
        rows.push(next..end);
        next = after;
        line += 1;
    }
    while next < bytes.len() {
        let (end, after) = line_at(bytes, next);
        if !is_blank(&bytes[next..end]) {
            return Err(ChunkError::invalid(
                "text",
                format!(
                    "line {line} follows the Markdown table but is not part of it (a row needs a '|' and a blank \
                     line ends the table); text must hold one table: {}",
                    preview(&text[next..end])
                ),
            ));
        }
        next = after;
        line += 1;
    }
    Ok(Table {
        header,
        rows,
        header_cells,
    })
}

/// A GFM delimiter cell: `-` with an optional `:` at either end, at least one `-`.
fn is_delimiter_cell(cell: &str) -> bool {
    let cell = cell.strip_prefix(':').unwrap_or(cell);
    let cell = cell.strip_suffix(':').unwrap_or(cell);
    !cell.is_empty() && cell.bytes().all(|b| b == b'-')
}

/// The trimmed cells of a Markdown row, as ranges into `row`.
fn cell_ranges(row: &str) -> Vec<Range<usize>> {
    let bytes = row.as_bytes();
    let Some(start) = bytes.iter().position(|&b| !is_blank_byte(b)) else {
        return Vec::new();
    };
    let end = bytes
        .iter()
        .rposition(|&b| !is_blank_byte(b))
        .map_or(0, |p| p + 1);
    let mut pipes = Vec::new();
    separator_pipes(&bytes[..end], &mut pipes);
    let mut inner = &pipes[..];
    let (mut from, mut to) = (start, end);
    if let Some((&first, rest)) = inner.split_first() {
        if first == start {
            from = start + 1;
            inner = rest;
        }
    }
    if let Some((&last, rest)) = inner.split_last() {
        if last + 1 == end {
            to = last;
            inner = rest;
        }
    }
    let mut cells = Vec::with_capacity(inner.len() + 1);
    for &pipe in inner {
        cells.push(trim(bytes, from, pipe));
        from = pipe + 1;
    }
    cells.push(trim(bytes, from, to));
    cells
}

fn trim(bytes: &[u8], mut start: usize, mut end: usize) -> Range<usize> {
    while start < end && is_blank_byte(bytes[start]) {
        start += 1;
    }
    while end > start && is_blank_byte(bytes[end - 1]) {
        end -= 1;
    }
    start..end
}

/// Pushes the positions of the `|` in `row` that separate cells: not escaped by a backslash, not inside a code span.
/// A code span opens with a run of n backticks and closes at the next run of exactly n; an opener without a closer is
/// literal. Linear: the runs of each length are visited once, by a cursor that only moves forward.
fn separator_pipes(row: &[u8], out: &mut Vec<usize>) {
    // Backtick runs by length: their starts in order, and how many of them lie behind the scan.
    let mut runs: FxHashMap<usize, (Vec<usize>, usize)> = FxHashMap::default();
    if memchr(b'`', row).is_some() {
        let mut i = 0;
        while let Some(k) = memchr(b'`', &row[i..]) {
            let start = i + k;
            let end = run_end(row, start);
            runs.entry(end - start).or_default().0.push(start);
            i = end;
        }
    }
    let mut i = 0;
    while let Some(k) = memchr3(b'|', b'\\', b'`', &row[i..]) {
        i += k;
        match row[i] {
            b'|' => {
                out.push(i);
                i += 1;
            }
            b'\\' => {
                i += if row.get(i + 1).is_some_and(u8::is_ascii_punctuation) {
                    2
                } else {
                    1
                }
            }
            _ => {
                let end = run_end(row, i);
                let len = end - i;
                i = end;
                if let Some((starts, seen)) = runs.get_mut(&len) {
                    while starts.get(*seen).is_some_and(|&s| s < end) {
                        *seen += 1;
                    }
                    if let Some(&close) = starts.get(*seen) {
                        *seen += 1;
                        i = close + len;
                    }
                }
            }
        }
    }
}

/// The end of the run of backticks starting at `start`.
fn run_end(row: &[u8], start: usize) -> usize {
    row[start..]
        .iter()
        .position(|&b| b != b'`')
        .map_or(row.len(), |k| start + k)
}

#[derive(Debug, Clone, Copy)]
struct Dialect {
    delimiter: u8,
    quoting: bool,
}

impl Dialect {
    const CSV: Dialect = Dialect {
        delimiter: b',',
        quoting: true,
    };
    const TSV: Dialect = Dialect {
        delimiter: b'\t',
        quoting: false,
    };
}

/// What ends a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Delimiter,
    Newline,
    End,
}

/// Scans the field starting at `start`: the position of what stops it (the delimiter, the "\n" when `lines` says
/// line breaks end records, or the end). A quote opening the field runs to its closing quote (`""` is a quote
/// inside); whatever follows the closing quote up to the stop belongs to the field too, as Python's csv reads it.
/// None if the quote never closes.
fn scan_field(bytes: &[u8], start: usize, dialect: Dialect, lines: bool) -> Option<(usize, Stop)> {
    let mut pos = start;
    if dialect.quoting && bytes.get(pos) == Some(&b'"') {
        pos += 1;
        loop {
            let k = memchr(b'"', &bytes[pos..])?;
            pos += k + 1;
            if bytes.get(pos) != Some(&b'"') {
                break;
            }
            pos += 1;
        }
    }
    let rest = &bytes[pos..];
    let hit = if lines {
        memchr2(dialect.delimiter, b'\n', rest)
    } else {
        memchr(dialect.delimiter, rest)
    };
    Some(match hit {
        Some(k) if rest[k] == dialect.delimiter => (pos + k, Stop::Delimiter),
        Some(k) => (pos + k, Stop::Newline),
        None => (bytes.len(), Stop::End),
    })
}

/// A raw CSV field without its quotes and with `""` as `"`; an unquoted field as it is.
fn unquote(raw: &str) -> String {
    let Some(mut rest) = raw.strip_prefix('"') else {
        return raw.to_owned();
    };
    let mut out = String::with_capacity(raw.len());
    while let Some(k) = memchr(b'"', rest.as_bytes()) {
        out.push_str(&rest[..k]);
        if rest.as_bytes().get(k + 1) == Some(&b'"') {
            out.push('"');
            rest = &rest[k + 2..];
        } else {
            // The closing quote: what follows it is kept verbatim.
            out.push_str(&rest[k + 1..]);
            return out;
        }
    }
    out.push_str(rest);
    out
}

fn parse_delimited(text: &str, start: usize, dialect: Dialect) -> Result<Table, ChunkError> {
    let bytes = text.as_bytes();
    let mut header = None;
    let mut header_cells = Vec::new();
    let mut rows = Vec::new();
    let mut pos = start;
    while let Some(record_start) = next_record(bytes, pos, dialect) {
        let cells = header.is_none().then_some(&mut header_cells);
        let (end, next) = scan_record(bytes, record_start, dialect, cells).map_err(|quote| {
            let line = 1 + memchr::memchr_iter(b'\n', &bytes[..quote]).count();
            ChunkError::invalid(
                "text",
                format!("text has an unterminated quote: the CSV field opened on line {line} never closes"),
            )
        })?;
        if header.is_none() {
            header = Some(record_start..end);
        } else {
            rows.push(record_start..end);
        }
        pos = next;
    }
    // parse_table has ruled out a blank text, so a record was found.
    let header = header.unwrap_or(start..start);
    Ok(Table {
        header,
        rows,
        header_cells,
    })
}

/// The start of the next record from `pos`, past blank lines (read no further than their first character of
/// content), or None at the end of the text.
fn next_record(bytes: &[u8], mut pos: usize, dialect: Dialect) -> Option<usize> {
    while pos < bytes.len() {
        let mut p = pos;
        while p < bytes.len() && is_blank_byte(bytes[p]) && bytes[p] != dialect.delimiter {
            p += 1;
        }
        if p == bytes.len() {
            return None;
        }
        if bytes[p] != b'\n' {
            return Some(pos);
        }
        pos = p + 1;
    }
    None
}

/// The number of fields of each of the first `max` records of `text` in `format` (CSV or TSV; blank lines
/// skipped), or None when a quote opened in them never closes: how a detector tells whether a text's head is a
/// table, without parsing the rest.
pub(crate) fn record_widths(text: &str, format: TableFormat, max: usize) -> Option<Vec<usize>> {
    let dialect = match format {
        TableFormat::Csv => Dialect::CSV,
        TableFormat::Tsv => Dialect::TSV,
        TableFormat::Markdown => return None,
    };
    let bytes = text.as_bytes();
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut widths = Vec::new();
    let mut cells = Vec::new();
    let mut pos = start;
    while widths.len() < max {
        let Some(record) = next_record(bytes, pos, dialect) else {
            break;
        };
        cells.clear();
        let (_, next) = scan_record(bytes, record, dialect, Some(&mut cells)).ok()?;
        widths.push(cells.len());
        pos = next;
    }
    Some(widths)
}

/// Scans the record starting at `start`: its end (before the line break) and the start of what follows. Pushes the
/// raw field ranges into `cells` when given. Err holds the position of a quote that never closes.
fn scan_record(
    bytes: &[u8],
    start: usize,
    dialect: Dialect,
    mut cells: Option<&mut Vec<Range<usize>>>,
) -> Result<(usize, usize), usize> {
    let mut pos = start;
    loop {
        let (end, stop) = scan_field(bytes, pos, dialect, true).ok_or(pos)?;
        let (field_end, next) = match stop {
            Stop::Delimiter => (end, None),
            Stop::Newline => (strip_cr(bytes, pos, end), Some(end + 1)),
            Stop::End => (strip_cr(bytes, pos, end), Some(end)),
        };
        if let Some(cells) = cells.as_deref_mut() {
            cells.push(pos..field_end);
        }
        match next {
            Some(next) => return Ok((field_end, next)),
            None => pos = end + 1,
        }
    }
}

/// Parses `text` as one table and returns its structure (see [`Structure::from_table`]).
pub fn parse(
    text: &str,
    format: TableFormat,
    rows_per_chunk: usize,
) -> Result<Structure, ChunkError> {
    let table = parse_table(text, format)?;
    Ok(Structure::from_table(text, &table, format, rows_per_chunk))
}

impl Structure {
    /// The structure of a text that is one table: cuts between data rows; a delimited table is rendered as Markdown
    /// for the context and the embedding text. `rows_per_chunk` (0: none) bounds the data rows of each chunk,
    /// counted from the row it starts in (see [`Structure::limit_at`]), so that a chunk that starts with overlap
    /// rows holds no more rows than one without.
    pub fn from_table(
        text: &str,
        table: &Table,
        format: TableFormat,
        rows_per_chunk: usize,
    ) -> Self {
        let mut s = Structure::default();
        let end = table.rows.last().map_or(table.header.end, |r| r.end);
        let rows: Vec<usize> = table.rows.iter().map(|r| r.start).collect();
        let delimiter = (format == TableFormat::Markdown).then(|| {
            let h = &text[table.header.clone()];
            table.header.start + h.find('\n').map_or(h.len(), |i| i + 1)
        });
        s.push_table_cuts(delimiter, &rows);
        s.rows_per_chunk = rows_per_chunk;
        let rendered = (format != TableFormat::Markdown).then(|| {
            let header = delimited_cells(&text[table.header.clone()], format);
            let mut md = render_markdown_row(&header);
            md.push('\n');
            md.push_str(&render_markdown_delimiter(header.len()));
            Box::new(Rendered {
                header: md,
                rows: table
                    .rows
                    .iter()
                    .map(|r| {
                        let cells = delimited_cells(&text[r.clone()], format);
                        (r.end, render_markdown_row(&cells))
                    })
                    .collect(),
            })
        });
        s.verbatim.push(table.header.start..end);
        s.blocks.push(Block {
            range: table.header.start..end,
            kind: BlockKind::Table {
                header: table.header.clone(),
                rows,
                rendered,
                caption: None,
            },
            keep_whole: rows_per_chunk == 0,
            nested: false,
        });
        s.finish(text);
        s
    }
}

#[cfg(test)]
mod tests;
