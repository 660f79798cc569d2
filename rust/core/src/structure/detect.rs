//! What kind of document a text is, for a caller that picks a strategy per document: Markdown, source code (with
//! its language), a CSV or TSV table, legal provisions, or prose; and why, in words a user can read.
//!
//! By the file name first, when there is one: a Markdown suffix, a table suffix, or a source file of a language
//! [`Syntax`] knows. Then by the content, the first decisive test in this order:
//! - code: a shebang on the first line, or most lines (outside fenced blocks, taken from all over the sample so
//!   a long licence at the head of a source file is not its shape) shaped like code;
//! - a table: the first lines parse as CSV or TSV records of one width (see `table_format`);
//! - Markdown, by [`pulldown_cmark`]: ATX headings, fenced blocks, GFM tables, inline links, list items;
//! - provisions: numbered articles (第X条, Article N, Section N, §), as the provisions parser reads their markers,
//!   on at least one line in a hundred;
//! - else prose.
//!
//! Detection reads a bounded sample, so it costs the same on a 100 MB text as on a 256 KB one: the whole text up
//! to [`WINDOWS`] × [`WINDOW`] bytes, else that many windows spread evenly over it, each cut to whole lines (or to
//! a char boundary inside a line longer than a window). A window that starts inside a fenced block reads its
//! closing fence as an opening one: a small error on a text that large, where every other window still counts.

use std::ops::Range;
use std::sync::OnceLock;

use memchr::{memchr, memchr2_iter, memrchr, memrchr2};
use pulldown_cmark::{CodeBlockKind, Event, LinkType, Tag};
use regex::Regex;

use super::code::Syntax;
use super::markdown;
use super::provisions;
use super::table::{record_widths, TableFormat};
use crate::offsets::{ceil_char_boundary, floor_char_boundary};

/// The kinds of document, each of which a strategy of its own fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Markdown: sections under headings.
    Markdown,
    /// Source code.
    Code,
    /// A CSV or TSV table.
    Table,
    /// Legal text in numbered provisions.
    Clause,
    /// Running text.
    Prose,
}

impl Kind {
    /// The name callers see (the name of the strategy the kind gets).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Markdown => "markdown",
            Kind::Code => "code",
            Kind::Table => "table",
            Kind::Clause => "clause",
            Kind::Prose => "prose",
        }
    }
}

/// What [`detect`] found: the kind, the language of code or the format of a table, and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The kind of document.
    pub kind: Kind,
    /// For code, its language when one is recognised (by the file name, a shebang or its keywords).
    pub language: Option<&'static str>,
    /// For a table, its format ([`TableFormat::Csv`] or [`TableFormat::Tsv`]).
    pub format: Option<TableFormat>,
    /// Why, in words: "file name .md", "content: 3 numbered provisions in 3 lines".
    pub reason: String,
}

impl Detection {
    fn new(kind: Kind, reason: String) -> Detection {
        Detection {
            kind,
            language: None,
            format: None,
            reason,
        }
    }
}

/// File name suffixes (lower case, without the dot) of Markdown documents.
pub const MARKDOWN_SUFFIXES: &[&str] = &["md", "markdown", "mdx", "mkd"];
/// File name suffixes (lower case, without the dot) of tables, with their format.
pub const TABLE_SUFFIXES: &[(&str, TableFormat)] = &[
    ("csv", TableFormat::Csv),
    ("tsv", TableFormat::Tsv),
    ("tab", TableFormat::Tsv),
];

/// The size of one window of the sample, in bytes.
pub const WINDOW: usize = 32 * 1024;
/// The number of windows of the sample; a text up to `WINDOWS * WINDOW` bytes is read whole.
pub const WINDOWS: usize = 8;
/// The lines a test of the text's head (a shebang, a table) or of its shape (code) reads.
const SAMPLE_LINES: usize = 400;
/// The records a table test parses.
const TABLE_RECORDS: usize = 100;

/// The kind of the document `text`, named `name` (a file name or path) when known: by the name when it says, else
/// by the content.
pub fn detect(text: &str, name: Option<&str>) -> Detection {
    name.and_then(|n| by_name(n, text))
        .unwrap_or_else(|| by_content(text))
}

/// The kind a file name says, when it says one. `text` (its first 64 KB) tells C++ headers from C ones.
pub fn by_name(path: &str, text: &str) -> Option<Detection> {
    // The last part of a path, with '/' or '\' separators; a leading dot starts no suffix (".bashrc").
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let suffix = file
        .trim_start_matches('.')
        .rsplit_once('.')
        .map(|(_, s)| s.to_ascii_lowercase());
    if let Some(s) = suffix.as_deref() {
        if MARKDOWN_SUFFIXES.contains(&s) {
            return Some(Detection::new(Kind::Markdown, format!("file name .{s}")));
        }
        if let Some(&(_, format)) = TABLE_SUFFIXES.iter().find(|(t, _)| *t == s) {
            let mut d = Detection::new(Kind::Table, format!("file name .{s}"));
            d.format = Some(format);
            return Some(d);
        }
    }
    let head = &text[..floor_char_boundary(text, text.len().min(1 << 16))];
    let syntax = Syntax::for_file(path, Some(head))?;
    let said = suffix.map_or_else(|| file.to_owned(), |s| format!(".{s}"));
    let mut d = Detection::new(Kind::Code, format!("file name {said}: {}", syntax.name));
    d.language = Some(syntax.name);
    Some(d)
}

/// The kind the content says (see the module docs).
pub fn by_content(text: &str) -> Detection {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let windows = sample(text);
    let all: Vec<&str> = windows.iter().flat_map(|w| lines(w)).collect();
    let head: Vec<&str> = all
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE_LINES)
        .collect();
    let Some(&first) = head.first() else {
        return Detection::new(Kind::Prose, "content: no lines".to_owned());
    };
    if is_shebang(first) {
        // The text from that line on, so that the language's own shebang test reads it.
        let from = first.as_ptr() as usize - text.as_ptr() as usize;
        let mut d = Detection::new(
            Kind::Code,
            format!("content: shebang {}", preview(first.trim(), 40)),
        );
        d.language = Syntax::detect(&text[from..]).map(|s| s.name);
        return d;
    }
    if let Some(format) = table_format(windows[0], &head) {
        let mut d = Detection::new(
            Kind::Table,
            format!(
                "content: {} lines of the same number of {} fields",
                head.len(),
                format.name()
            ),
        );
        d.format = Some(format);
        return d;
    }
    let mut md = Markdown::default();
    for w in &windows {
        md.read(w);
    }
    // Lines from all over the sample, not only its head.
    let step = (md.outside.len() / SAMPLE_LINES).max(1);
    let shape: Vec<&str> = md
        .outside
        .iter()
        .step_by(step)
        .take(SAMPLE_LINES)
        .copied()
        .collect();
    let code_like = shape.iter().filter(|l| looks_like_code(l)).count();
    if !shape.is_empty() && md.fenced == 0 && code_like * 10 >= shape.len() * 6 {
        let mut d = Detection::new(
            Kind::Code,
            format!(
                "content: {code_like} of {} lines shaped like code",
                shape.len()
            ),
        );
        d.language = Syntax::detect(text).map(|s| s.name);
        return d;
    }
    if md.is_markdown() {
        return Detection::new(
            Kind::Markdown,
            format!("content: Markdown ({})", md.signals()),
        );
    }
    let nonblank = all.iter().filter(|l| !l.trim().is_empty()).count();
    let provisions = all
        .iter()
        .filter(|l| provisions::starts_with_article(l))
        .count();
    if provisions >= 3 && provisions * 100 >= nonblank {
        return Detection::new(
            Kind::Clause,
            format!("content: {provisions} numbered provisions in {nonblank} lines"),
        );
    }
    Detection::new(Kind::Prose, "content: prose".to_owned())
}

/// The windows detection reads: the whole text when it is small, else [`WINDOWS`] windows spread over it.
fn sample(text: &str) -> Vec<&str> {
    if text.len() <= WINDOW * WINDOWS {
        return vec![text];
    }
    let step = (text.len() - WINDOW) / (WINDOWS - 1);
    (0..WINDOWS).map(|k| window(text, k * step)).collect()
}

/// The window of `text` from `at`, [`WINDOW`] bytes at most, cut to whole lines when it holds a line break.
fn window(text: &str, at: usize) -> &str {
    let bytes = text.as_bytes();
    let start = ceil_char_boundary(text, at);
    let end = floor_char_boundary(text, (at + WINDOW).min(text.len()));
    let from = if start == 0 {
        0
    } else {
        memchr(b'\n', &bytes[start..end]).map_or(start, |k| start + k + 1)
    };
    let to = if end == text.len() {
        end
    } else {
        memrchr(b'\n', &bytes[from..end]).map_or(end, |k| from + k + 1)
    };
    &text[from..to]
}

/// The lines of `text`, without their line breaks ("\n", "\r\n" or a lone "\r", as CommonMark reads them).
fn lines(text: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    // A "\r" before "\n" is one break with it.
    let ends = memchr2_iter(b'\n', b'\r', bytes)
        .filter(move |&i| !(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n')))
        // The last line, unless the text ends with a line break.
        .chain((!text.is_empty() && !text.ends_with(['\n', '\r'])).then_some(text.len()));
    ends.map(move |end| {
        let line = &text[start..end];
        start = end + 1;
        line.strip_suffix('\r').unwrap_or(line)
    })
}

/// The first `n` chars of `s`.
fn preview(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// "#!" and an interpreter: a path or a command name ("#!/bin/sh", "#! /usr/bin/env perl", "#!python").
fn is_shebang(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("#!") else {
        return false;
    };
    let word = rest.split_whitespace().next().unwrap_or("");
    let command = word.rsplit('/').next().unwrap_or("");
    command.starts_with(|c: char| c.is_ascii_alphabetic())
        && command
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The format of a text whose head parses as CSV or TSV records of one width (at least two fields; at least three
/// records, or five when there are only two fields), TSV first; `head` is its first non-blank lines, of which the
/// first three must hold the delimiter. `window` is where the records are read (a quoted field may span lines).
fn table_format(window: &str, head: &[&str]) -> Option<TableFormat> {
    if head.len() < 3 {
        return None;
    }
    [(TableFormat::Tsv, '\t'), (TableFormat::Csv, ',')]
        .into_iter()
        .find(|&(format, delimiter)| {
            if !head[..3].iter().any(|l| l.contains(delimiter)) {
                return false;
            }
            let Some(widths) = record_widths(window, format, TABLE_RECORDS) else {
                return false;
            };
            let width = widths.first().copied().unwrap_or(0);
            widths.iter().all(|&w| w == width) && (width >= 3 || (width == 2 && widths.len() >= 5))
        })
        .map(|(format, _)| format)
}

/// What Markdown shows in a text, as pulldown-cmark reads it, and its lines outside fenced blocks.
#[derive(Debug, Default)]
struct Markdown<'a> {
    /// Non-blank lines outside fenced code blocks.
    outside: Vec<&'a str>,
    /// ATX headings ("## Title").
    headings: usize,
    /// Fenced code blocks.
    fenced: usize,
    /// GFM tables.
    tables: usize,
    /// Lines that hold an inline link or image (`[text](url)`).
    links: usize,
    /// List items.
    items: usize,
}

impl<'a> Markdown<'a> {
    /// Adds what `text` shows.
    fn read(&mut self, text: &'a str) {
        let mut fences: Vec<Range<usize>> = Vec::new();
        let mut last_link_line = None;
        for (event, range) in markdown::events(text) {
            let Event::Start(tag) = event else { continue };
            match tag {
                Tag::Heading { .. } if is_atx(line_of(text, range.start)) => self.headings += 1,
                Tag::CodeBlock(CodeBlockKind::Fenced(info))
                    if !(info.is_empty() && is_underline(text, range.start)) =>
                {
                    self.fenced += 1;
                    fences.push(range);
                }
                Tag::Table(_) => self.tables += 1,
                Tag::Item => self.items += 1,
                Tag::Link {
                    link_type: LinkType::Inline,
                    ..
                }
                | Tag::Image {
                    link_type: LinkType::Inline,
                    ..
                } => {
                    let line = line_start(text, range.start);
                    if last_link_line != Some(line) {
                        self.links += 1;
                        last_link_line = Some(line);
                    }
                }
                _ => {}
            }
        }
        // Fenced blocks come in order and do not nest, so one pass over both.
        let mut fence = fences.iter().peekable();
        for line in lines(text) {
            let at = line.as_ptr() as usize - text.as_ptr() as usize;
            while fence.next_if(|f| f.end <= at).is_some() {}
            // A fence indented in a list item starts after the start of its line.
            let inside = fence.peek().is_some_and(|f| f.start <= at + line.len());
            if !inside && !line.trim().is_empty() {
                self.outside.push(line);
            }
        }
    }

    /// Two headings, a table, a heading and a fenced block (or two blocks), or a heading with three links or
    /// list items.
    fn is_markdown(&self) -> bool {
        self.headings >= 2
            || self.tables > 0
            || self.headings + self.fenced >= 2
            || (self.headings >= 1 && self.links + self.items >= 3)
    }

    /// The signals found, in words: "2 headings, 1 tables".
    fn signals(&self) -> String {
        [
            (self.headings, "headings"),
            (self.fenced, "fenced blocks"),
            (self.tables, "tables"),
            (self.links, "links with URLs"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// The start of the line that holds `pos`.
fn line_start(text: &str, pos: usize) -> usize {
    memrchr2(b'\n', b'\r', &text.as_bytes()[..pos]).map_or(0, |k| k + 1)
}

/// The line that holds `pos`, from its start, without its line break.
fn line_of(text: &str, pos: usize) -> &str {
    let start = line_start(text, pos);
    let rest = &text[start..];
    lines(rest).next().unwrap_or("")
}

/// Whether the line at `pos` is a row of `~` right under a line of text: a title's underline in reStructuredText
/// and plain text, which CommonMark reads as a fence; a Markdown fence of tildes has a blank line or a block
/// before it.
fn is_underline(text: &str, pos: usize) -> bool {
    let start = line_start(text, pos);
    let tildes = line_of(text, pos).trim();
    if start == 0 || !tildes.bytes().all(|b| b == b'~') {
        return false;
    }
    // The end of the line above: before its break, "\r\n" being one.
    let above = start
        - if text[..start].ends_with("\r\n") {
            2
        } else {
            1
        };
    !line_of(text, above).trim().is_empty()
}

/// An ATX heading with a title: up to three spaces, one to six `#`, a space or tab, then text.
fn is_atx(line: &str) -> bool {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return false;
    }
    let title = rest.trim_start_matches('#');
    let hashes = rest.len() - title.len();
    (1..=6).contains(&hashes) && title.starts_with([' ', '\t']) && !title.trim().is_empty()
}

/// A line shaped like code: a statement or definition keyword at its start, a bracket, comma or `:` ending it, an
/// assignment, a call alone on its line, a quoted item of a list, or a comment.
fn looks_like_code(line: &str) -> bool {
    code_pattern().is_match(line)
}

/// The patterns of [`looks_like_code`], one regex.
fn code_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        let parts = [
            // A keyword or bracket that starts a statement or a definition.
            r#"^\s*(def |class |import |from \S+ import |return\b|if .*:$|elif |for .*:$|while .*:$|fn |let |const |var |function\b|public |private |protected |package |#include|using |namespace |func |struct |impl |enum |@\w+|try:|except\b|else:|[}\])]+;?$)"#,
            // What ends a line of code: an opening bracket, `;`, `,`, a block's `:`, an arrow, a docstring quote.
            r#"[;{}\[(,]\s*$|\)\s*:\s*$|=>\s*\{?\s*$|^\s*("""|''')|("""|''')\s*$"#,
            // An assignment (`name = value`, `x.y[k] += 1`, not `==`), a call alone, a quoted item of a list.
            r#"^\s*[A-Za-z_$][\w.$]*(\[[^\]]*\])?\s*[-+*/%|&^]?=([^=\s]|\s+\S)|^\s*[\w.$]+\(.*\)\s*;?$|^\s*["'].*["'],?\s*$"#,
            // A comment (one `#`: `##` is Markdown).
            r"^\s*(#([^#]|$)|//|/\*|\*/|\* )",
        ];
        let joined = parts.map(|p| format!("(?:{p})")).join("|");
        // A constant pattern, compiled by every test that detects code.
        Regex::new(&joined).unwrap_or_else(|e| unreachable!("code pattern: {e}"))
    })
}

#[cfg(test)]
mod tests;
