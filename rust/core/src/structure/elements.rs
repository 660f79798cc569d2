//! A parsed document's elements (headings with levels, paragraphs, list items, tables with captions, code), as a
//! layout parser gives them, written as one Markdown text that the [`markdown`](super::markdown) parser then reads:
//! headings become ATX headings (title paths), a table its header, delimiter row and rows (its caption as the
//! paragraph that leads into it), code a fence. Each element's range in the text is kept, so that chunks can name
//! the elements (and pages) they hold.
//!
//! The text of an element is written so that it reads as what it is and nothing else: a paragraph's lines that
//! Markdown would read as structure (`# `, `- `, `1. `, a fence, `|`, a rule, an HTML tag) are escaped with a
//! backslash, a cell's whitespace is collapsed and its pipes escaped. A table too wide for the size is written as
//! several tables of column groups, each with the key (first) column and under the caption, so that every piece of
//! it has its key and its header.

use std::ops::Range;

/// What an element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementKind {
    /// A heading (title, section header), of a level.
    Heading,
    /// Running text (and anything written as text: page headers and footers, footnotes, formulas...).
    Paragraph,
    /// An item of a list, of a nesting level.
    ListItem,
    /// A table: rows of cells (the first the header), or a text.
    Table,
    /// The caption of the table right after it (else a paragraph).
    Caption,
    /// A code block, of a language.
    Code,
}

impl ElementKind {
    /// The kind by its name (as `ElementsChunker` normalizes parsers' names).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "heading" => Self::Heading,
            "paragraph" => Self::Paragraph,
            "list_item" => Self::ListItem,
            "table" => Self::Table,
            "caption" => Self::Caption,
            "code" => Self::Code,
            _ => return None,
        })
    }
}

/// One element of a parsed document.
#[derive(Debug, Clone)]
pub struct Element<'a> {
    /// What it is.
    pub kind: ElementKind,
    /// Its text (a table's when it has no rows: a Markdown table, or any text).
    pub text: &'a str,
    /// A heading's level (1-6; outside that range, clamped), a list item's nesting (1 = top).
    pub level: usize,
    /// A table's rows of cells, the first the header.
    pub rows: Option<Vec<Vec<&'a str>>>,
    /// A table's caption.
    pub caption: Option<&'a str>,
    /// A code block's language ("" when not known).
    pub language: &'a str,
}

/// The Markdown text of a document's elements, and where each element is in it (byte offsets).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RenderedElements {
    /// The Markdown text of all the elements, ending with a line break (empty when none has text).
    pub text: String,
    /// Per element, its range in `text` (None: it has no text, or it is a caption written with its table).
    pub spans: Vec<Option<Range<usize>>>,
    /// Per table element written in more than one part (column groups): its index, and each part's range (the
    /// table, under its caption) with the columns it shows, the key column first.
    pub table_parts: Vec<(usize, Vec<TablePart>)>,
}

/// A part of a table written in column groups: the range of its table and the columns it shows.
pub type TablePart = (Range<usize>, Vec<usize>);

/// A range in `str` offsets (code points), as Python indexes a text.
pub type CharRange = (usize, usize);

/// A [`TablePart`] in `str` offsets.
pub type CharTablePart = (CharRange, Vec<usize>);

/// The ranges of [`RenderedElements`] in `str` offsets of its text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CharRanges {
    /// Per element, its range (see [`RenderedElements::spans`]).
    pub spans: Vec<Option<CharRange>>,
    /// Per table written in parts, its index and each part's range with its columns (see
    /// [`RenderedElements::table_parts`]).
    pub table_parts: Vec<(usize, Vec<CharTablePart>)>,
}

impl RenderedElements {
    /// Every range in `str` offsets (code points) of [`RenderedElements::text`]: each offset counted once, in one
    /// pass along the text.
    pub fn char_ranges(&self) -> CharRanges {
        let parts = self
            .table_parts
            .iter()
            .flat_map(|(_, p)| p.iter().map(|(r, _)| r));
        let mut bytes: Vec<usize> = (self.spans.iter().flatten().chain(parts))
            .flat_map(|r| [r.start, r.end])
            .collect();
        bytes.sort_unstable();
        bytes.dedup();
        let mut cursor = crate::offsets::CharCursor::new(&self.text, self.text.is_ascii());
        let chars: Vec<usize> = bytes.iter().map(|&b| cursor.to_char(b)).collect();
        let to_char = |b: usize| bytes.binary_search(&b).map_or(0, |k| chars[k]);
        let range = |r: &Range<usize>| (to_char(r.start), to_char(r.end));
        CharRanges {
            spans: self.spans.iter().map(|s| s.as_ref().map(range)).collect(),
            table_parts: (self.table_parts.iter())
                .map(|(i, parts)| {
                    (
                        *i,
                        parts.iter().map(|(r, c)| (range(r), c.clone())).collect(),
                    )
                })
                .collect(),
        }
    }
}

/// Writes `elements` as one Markdown text. `size` and `measure` (the size of a text in the chunker's unit) decide
/// the column groups of a wide table: all columns when the header, the delimiter row and the widest row fit in half
/// of `size`, else the key column and as many next columns as fit, part after part.
pub fn render(
    elements: &[Element<'_>],
    size: usize,
    measure: &dyn Fn(&str) -> usize,
) -> RenderedElements {
    let mut out = Writer::default();
    let mut spans = Vec::with_capacity(elements.len());
    let mut table_parts = Vec::new();
    let mut prev = None; // the kind of the last element written
    let mut caption: Option<String> = None; // the caption element right before a table
    for (i, e) in elements.iter().enumerate() {
        let next_is_table = elements
            .get(i + 1)
            .is_some_and(|n| n.kind == ElementKind::Table);
        if e.kind == ElementKind::Caption && next_is_table {
            caption = Some(paragraph(e.text));
            spans.push(None);
            continue;
        }
        let span = match e.kind {
            ElementKind::Heading => {
                let title = collapse(e.text);
                (!title.is_empty()).then(|| {
                    let marks = "#".repeat(e.level.clamp(1, 6));
                    out.block("\n\n", &[&marks, " ", &title])
                })
            }
            ElementKind::Paragraph | ElementKind::Caption => {
                let body = paragraph(e.text);
                (!body.is_empty()).then(|| out.block("\n\n", &[&body]))
            }
            ElementKind::ListItem => {
                let body = collapse(e.text);
                (!body.is_empty()).then(|| {
                    let indent = "  ".repeat(e.level.saturating_sub(1));
                    // Items in a row make one list.
                    let sep = if prev == Some(ElementKind::ListItem) {
                        "\n"
                    } else {
                        "\n\n"
                    };
                    out.block(sep, &[&indent, "- ", &body])
                })
            }
            ElementKind::Code => {
                let body = e.text.trim_matches('\n');
                (!body.is_empty()).then(|| {
                    let fence = if body.contains("```") { "````" } else { "```" };
                    out.block("\n\n", &[fence, e.language, "\n", body, "\n", fence])
                })
            }
            ElementKind::Table => {
                let caption = e
                    .caption
                    .map(paragraph)
                    .or(caption.take())
                    .unwrap_or_default();
                match e.rows.as_deref().filter(|r| !r.is_empty()) {
                    Some(rows) => {
                        let cells: Vec<Vec<String>> = rows
                            .iter()
                            .map(|r| r.iter().map(|c| cell(c)).collect())
                            .collect();
                        let groups = column_groups(&cells, size, measure);
                        let mut parts = Vec::with_capacity(groups.len());
                        let mut first = None;
                        for cols in groups {
                            let from =
                                (!caption.is_empty()).then(|| out.block("\n\n", &[&caption]).start);
                            let table = out.block("\n\n", &[&table_lines(&cells, &cols)]);
                            first = first.or(from).or(Some(table.start));
                            parts.push((table, cols));
                        }
                        let span = first.zip(parts.last().map(|p| p.0.end)).map(|(a, b)| a..b);
                        if parts.len() > 1 {
                            table_parts.push((i, parts));
                        }
                        span
                    }
                    None => {
                        let body = e.text.trim_matches('\n');
                        (!body.trim().is_empty()).then(|| {
                            let from =
                                (!caption.is_empty()).then(|| out.block("\n\n", &[&caption]).start);
                            let table = out.block("\n\n", &[body]);
                            from.unwrap_or(table.start)..table.end
                        })
                    }
                }
            }
        };
        caption = None;
        if span.is_some() {
            prev = Some(e.kind);
        }
        spans.push(span);
    }
    let mut text = out.text;
    if !text.is_empty() {
        text.push('\n');
    }
    RenderedElements {
        text,
        spans,
        table_parts,
    }
}

/// The text being written.
#[derive(Default)]
struct Writer {
    text: String,
}

impl Writer {
    /// Appends a block made of `parts`, after `sep` unless it is the first; returns its range.
    fn block(&mut self, sep: &str, parts: &[&str]) -> Range<usize> {
        if !self.text.is_empty() {
            self.text.push_str(sep);
        }
        let start = self.text.len();
        for p in parts {
            self.text.push_str(p);
        }
        start..self.text.len()
    }
}

/// Text on one line: runs of whitespace (line breaks too) as one space, none at the ends.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A table cell as one line of a Markdown table: whitespace collapsed, pipes escaped.
fn cell(text: &str) -> String {
    collapse(text).replace('|', "\\|")
}

/// Text as a paragraph: its lines trimmed, blank ones dropped, and a line Markdown would read as structure (a
/// heading, a quote, a list item, a fence, a table row, a rule or setext underline, an HTML tag) escaped.
fn paragraph(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.trim_matches('\n').split('\n') {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        if starts_block(line) {
            out.push('\\');
        }
        out.push_str(line);
    }
    out
}

/// Whether a trimmed line would start a Markdown block other than a paragraph line.
fn starts_block(line: &str) -> bool {
    let b = line.as_bytes();
    let spaced = |at: usize| b.get(at).is_none_or(|c| c.is_ascii_whitespace());
    let rule = |marks: &[u8]| {
        let run = b.iter().take_while(|c| marks.contains(c)).count();
        run >= 3 && line[run..].trim().is_empty()
    };
    match b.first() {
        Some(b'#' | b'>' | b'|') => true,
        Some(b'-' | b'*' | b'+') if spaced(1) => true,
        Some(b'`') => line.starts_with("```"),
        Some(b'~') => line.starts_with("~~~"),
        Some(b'<') => b
            .get(1)
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'/' | b'!' | b'?')),
        Some(c) if c.is_ascii_digit() => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            digits <= 9 && matches!(b.get(digits), Some(b'.' | b')')) && spaced(digits + 1)
        }
        _ => rule(b"=") || rule(b"-*_"),
    }
}

/// The lines of a table showing columns `cols`: the header (the first row), the delimiter row, the other rows; a
/// short row padded with empty cells.
fn table_lines(rows: &[Vec<String>], cols: &[usize]) -> String {
    let line = |r: &Vec<String>| {
        let mut s = String::from("|");
        for &c in cols {
            s.push(' ');
            s.push_str(r.get(c).map_or("", String::as_str));
            s.push_str(" |");
        }
        s
    };
    let mut out = line(&rows[0]);
    out.push_str("\n|");
    for _ in cols {
        out.push_str("---|");
    }
    for r in &rows[1..] {
        out.push('\n');
        out.push_str(&line(r));
    }
    out
}

/// The columns of each part of a table (see [`render`]).
fn column_groups(
    rows: &[Vec<String>],
    size: usize,
    measure: &dyn Fn(&str) -> usize,
) -> Vec<Vec<usize>> {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let need = |cols: &[usize]| {
        let lines = table_lines(rows, cols);
        let mut it = lines.split('\n');
        let head = it.next().map_or(0, measure) + it.next().map_or(0, measure);
        head + it.map(measure).max().unwrap_or(0)
    };
    let budget = (size / 2).max(1);
    let every: Vec<usize> = (0..width).collect();
    if width <= 2 || need(&every) <= budget {
        return vec![every];
    }
    let mut groups = Vec::new();
    let mut cols = vec![0];
    for c in 1..width {
        if cols.len() > 1 && {
            cols.push(c);
            let over = need(&cols) > budget;
            cols.pop();
            over
        } {
            groups.push(std::mem::replace(&mut cols, vec![0]));
        }
        cols.push(c);
    }
    groups.push(cols);
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(kind: ElementKind, text: &str) -> Element<'_> {
        Element {
            kind,
            text,
            level: 1,
            rows: None,
            caption: None,
            language: "",
        }
    }

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    #[test]
    fn elements_become_markdown_with_their_ranges() {
        let mut h2 = el(ElementKind::Heading, "Results\n of 2024");
        h2.level = 2;
        let elements = [
            el(ElementKind::Heading, "Report"),
            el(
                ElementKind::Paragraph,
                "# not a heading\n- nor an item\n\nplain",
            ),
            h2,
            el(ElementKind::ListItem, "one"),
            el(ElementKind::ListItem, "two"),
            el(ElementKind::Code, "\nprint(1)\n"),
            el(ElementKind::Paragraph, "  \n "),
        ];
        let r = render(&elements, 512, &chars);
        assert_eq!(
            r.text,
            "# Report\n\n\\# not a heading\n\\- nor an item\nplain\n\n## Results of 2024\n\n- one\n- two\n\n```\nprint(1)\n```\n"
        );
        let texts: Vec<Option<&str>> = r
            .spans
            .iter()
            .map(|s| s.clone().map(|s| &r.text[s]))
            .collect();
        assert_eq!(
            texts,
            [
                Some("# Report"),
                Some("\\# not a heading\n\\- nor an item\nplain"),
                Some("## Results of 2024"),
                Some("- one"),
                Some("- two"),
                Some("```\nprint(1)\n```"),
                None
            ]
        );
    }

    #[test]
    fn paragraph_lines_that_would_be_structure_are_escaped() {
        for line in [
            "# h",
            "> q",
            "| a |",
            "- x",
            "* x",
            "+ x",
            "-",
            "1. x",
            "12) x",
            "```py",
            "~~~",
            "===",
            "---",
            "***",
            "___",
            "<div>",
            "</p>",
            "<!-- c -->",
        ] {
            assert!(starts_block(line), "{line}");
        }
        for line in [
            "-x",
            "1.5 litres",
            "1234567890. x",
            "2024年",
            "<3 you",
            "a | b",
            "--",
            "==",
            "**bold**",
            "表 3：收入",
        ] {
            assert!(!starts_block(line), "{line}");
        }
    }

    #[test]
    fn a_table_takes_the_caption_before_it_and_escapes_its_cells() {
        let mut table = el(ElementKind::Table, "");
        table.rows = Some(vec![vec!["k", "a|b"], vec!["1", "two\nlines"], vec!["3"]]);
        let elements = [
            el(ElementKind::Caption, "表 3：值"),
            table,
            el(ElementKind::Caption, "Alone"),
        ];
        let r = render(&elements, 512, &chars);
        assert_eq!(
            r.text,
            "表 3：值\n\n| k | a\\|b |\n|---|---|\n| 1 | two lines |\n| 3 |  |\n\nAlone\n"
        );
        assert_eq!(r.spans[0], None);
        assert_eq!(r.spans[1], Some(0..r.text.find("\n\nAlone").unwrap()));
        assert!(r.table_parts.is_empty());
    }

    #[test]
    fn a_wide_table_is_written_in_column_groups_with_the_key_column() {
        let header: Vec<String> = (0..40).map(|c| format!("column {c}")).collect();
        let row: Vec<String> = (0..40).map(|c| format!("value {c}")).collect();
        let mut table = el(ElementKind::Table, "");
        table.rows = Some(vec![
            header.iter().map(String::as_str).collect(),
            row.iter().map(String::as_str).collect(),
        ]);
        table.caption = Some("Wide");
        let r = render(&[table], 200, &chars);
        let (i, parts) = &r.table_parts[0];
        assert_eq!(*i, 0);
        assert!(parts.len() > 5);
        let mut seen = vec![];
        for (range, cols) in parts {
            assert_eq!(cols[0], 0);
            let part = &r.text[range.clone()];
            assert!(part.starts_with("| column 0 |"), "{part}");
            assert!(r.text[..range.start].ends_with("Wide\n\n"));
            // The header, the delimiter row and the widest row fit in half the size.
            let lines: Vec<&str> = part.lines().collect();
            let widest = lines[2..].iter().map(|l| chars(l)).max().unwrap_or(0);
            assert!(chars(lines[0]) + chars(lines[1]) + widest <= 100, "{part}");
            seen.extend(cols[1..].iter().copied());
        }
        assert_eq!(seen, (1..40).collect::<Vec<_>>());
        assert_eq!(r.spans[0], Some(0..r.text.len() - 1));
    }

    #[test]
    fn the_ranges_in_str_offsets_slice_the_same_text() {
        let header = ["clé", "説明", "valeur 🙂"].repeat(6);
        let row: Vec<String> = (0..18).map(|c| format!("日本語 {c}")).collect();
        let mut table = el(ElementKind::Table, "");
        table.rows = Some(vec![
            header.to_vec(),
            row.iter().map(String::as_str).collect(),
        ]);
        table.caption = Some("Tableau é");
        let elements = [
            el(ElementKind::Heading, "Résumé"),
            el(ElementKind::Paragraph, "本文です。 Ünïcödé text."),
            table,
        ];
        let r = render(&elements, 120, &chars);
        let c = r.char_ranges();
        assert!(
            c.table_parts[0].1.len() > 1,
            "the table is written in parts"
        );
        let slice = |(a, b): CharRange| r.text.chars().skip(a).take(b - a).collect::<String>();
        let mut seen = 0;
        for (bytes, chars) in r.spans.iter().zip(&c.spans) {
            assert_eq!(bytes.is_some(), chars.is_some());
            if let (Some(bytes), Some(chars)) = (bytes, chars) {
                assert_eq!(r.text[bytes.clone()], slice(*chars));
                seen += 1;
            }
        }
        assert_eq!(seen, 3);
        let (bytes, chars) = (&r.table_parts[0], &c.table_parts[0]);
        assert_eq!(bytes.0, chars.0);
        for ((range, cols), (char_range, char_cols)) in bytes.1.iter().zip(&chars.1) {
            assert_eq!(r.text[range.clone()], slice(*char_range));
            assert_eq!(cols, char_cols);
        }
        assert_eq!(
            RenderedElements::default().char_ranges(),
            CharRanges::default()
        );
    }
}
