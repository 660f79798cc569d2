//! Tables in Markdown (GFM), CSV (RFC 4180) and TSV: where the header and each row are, as byte ranges into the
//! text, so a table can be cut between rows with its header repeated; and Markdown rows rendered from cells.
//! Parsing and rendering only: assembling chunks is `assemble`'s job.
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

use super::is_blank_byte;
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
    while pos < bytes.len() {
        // Skip a blank line without looking past its first character of content.
        let mut p = pos;
        while p < bytes.len() && is_blank_byte(bytes[p]) && bytes[p] != dialect.delimiter {
            p += 1;
        }
        if p == bytes.len() {
            break;
        }
        if bytes[p] == b'\n' {
            pos = p + 1;
            continue;
        }
        let record_start = pos;
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

#[cfg(test)]
mod tests {
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
        let text =
            "| cmd | note |\n| --- | --- |\n| `a|b` | x |\n| ``c`|`d`` | y |\n| `open | z |\n";
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
}
