//! Markdown structure (CommonMark + GFM tables, front matter), parsed once per document with pulldown-cmark and
//! reported as a [`Structure`]: cuts before headings (by level), after thematic breaks, between top-level blocks,
//! list items, table rows and code lines; code and tables as verbatim ranges; tables, code, lists with their
//! lead-in, HTML and front matter as blocks that stay whole when they fit.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::code::{Pending, Syntax};
use super::{Block, BlockKind, Heading, Structure};
use crate::boundary::{starts_with_pause, Boundary, Level};

/// Words that start a top-level definition in common languages: a cut before them is a good cut in code.
const DEFINITIONS: &[&str] = &[
    "def ",
    "async def ",
    "class ",
    "fn ",
    "pub fn ",
    "pub(crate) fn ",
    "async fn ",
    "pub async fn ",
    "impl ",
    "impl<",
    "struct ",
    "pub struct ",
    "enum ",
    "pub enum ",
    "trait ",
    "pub trait ",
    "mod ",
    "pub mod ",
    "function ",
    "async function ",
    "export ",
    "func ",
    "type ",
    "interface ",
    "public ",
    "private ",
    "protected ",
    "static ",
    "@",
];

/// One open block while the events are walked.
#[derive(Debug)]
struct Open {
    /// Index into `Structure::blocks` of the block, if it is recorded there.
    block: Option<usize>,
    /// Where the block starts: a child on the container's first line (after a list marker or `>`) gets no cut.
    start: usize,
    /// The block is a list item or a list.
    list: bool,
}

/// The kinds of top-level block that matter to the cuts between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    Paragraph,
    ThematicBreak,
    Other,
}

/// What the walk needs besides the structure.
#[derive(Debug, Default)]
struct Walk {
    open: Vec<Open>,
    /// The end of the last content read (text, code, a rule, a block other than a list): where a list really ends.
    content_end: usize,
    /// The top-level blocks in order: index into `blocks`, and what it is.
    top: Vec<(usize, Top)>,
    /// The heading being read (its title so far), if any.
    heading: Option<Heading>,
    /// The code block of a known language being read, if any: its code goes to the code parser.
    fence: Option<Pending>,
}

/// The extensions of Markdown this parser reads (GFM tables, strikethrough, task lists), and front matter.
fn options(front_matter: bool) -> Options {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    if front_matter {
        options
            | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
            | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS
    } else {
        options
    }
}

/// The events of `text` with their byte ranges. A metadata block (`---` or `+++` lines around YAML or TOML) is read
/// only as front matter, at the start of the text: pulldown-cmark reads one anywhere a blank line comes before it,
/// and a changelog's `---` rule above a heading, with another `---` further down, hid every heading between them.
pub(crate) fn events(text: &str) -> impl Iterator<Item = (Event<'_>, Range<usize>)> {
    // Only a text that starts with a fence line can have front matter (and only then is it parsed twice).
    let fenced = text.starts_with("---") || text.starts_with("+++");
    let mut front = Parser::new_ext(if fenced { text } else { "" }, options(true))
        .into_offset_iter()
        .peekable();
    let front_end = match front.peek() {
        Some((Event::Start(Tag::MetadataBlock(_)), r)) if r.start == 0 => {
            let end = front
                .find(|(e, _)| matches!(e, Event::End(TagEnd::MetadataBlock(_))))
                .map_or(text.len(), |(_, r)| r.end);
            // Up to a char boundary past the block (its range ends at its closing line).
            (end..=text.len())
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(text.len())
        }
        _ => 0,
    };
    let head = Parser::new_ext(&text[..front_end], options(true)).into_offset_iter();
    let rest = Parser::new_ext(&text[front_end..], options(false))
        .into_offset_iter()
        .map(move |(e, r)| (e, r.start + front_end..r.end + front_end));
    head.chain(rest)
}

/// Parses `text` and returns its structure.
pub fn parse(text: &str) -> Structure {
    let mut s = Structure::default();
    let mut w = Walk::default();
    for (event, range) in events(text) {
        if !matches!(
            event,
            Event::Start(_) | Event::End(TagEnd::List(_) | TagEnd::Item)
        ) {
            w.content_end = w.content_end.max(range.end);
        }
        match event {
            Event::Start(tag) => start(text, &mut s, &mut w, &tag, range),
            Event::End(tag) => end(text, &mut s, &mut w, tag, range),
            Event::Rule if w.open.is_empty() => {
                let range = trimmed(text, range);
                s.blocks.push(Block {
                    range,
                    kind: BlockKind::Text,
                    keep_whole: false,
                    nested: false,
                });
                w.top.push((s.blocks.len() - 1, Top::ThematicBreak));
            }
            Event::Rule => nested_child(text, &mut s, &w, range.start, Level::NESTED),
            Event::Text(t) if w.fence.is_some() => {
                if let Some(f) = w.fence.as_mut() {
                    f.push(text, &t, range);
                }
            }
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                if let Some(h) = w.heading.as_mut() {
                    h.title.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(h) = w.heading.as_mut() {
                    h.title.push(' ');
                }
            }
            _ => {}
        }
    }
    top_level_cuts(text, &mut s, &w);
    quoted_cuts_at_line_starts(text, &mut s);
    s.finish(text);
    s
}

/// A block inside a block quote starts after the quote's markers ("> ```"), which belong to its line, as do the
/// quote's blank lines (">") above it: a cut before the block falls at the start of those lines, not between the
/// markers and the block (the chunk before would end with a lone ">").
fn quoted_cuts_at_line_starts(text: &str, s: &mut Structure) {
    let bytes = text.as_bytes();
    let markers = |line: &[u8]| {
        line.iter()
            .all(|c| matches!(c, b'>' | b' ' | b'\t' | b'\r'))
    };
    let line_start = |pos: usize| memchr::memrchr(b'\n', &bytes[..pos]).map_or(0, |i| i + 1);
    for b in &mut s.bounds {
        let line = line_start(b.pos);
        let prefix = &bytes[line..b.pos];
        if !(prefix.contains(&b'>') && markers(prefix)) {
            continue;
        }
        let mut at = line;
        // The quote's blank lines before it go with it.
        while at > 0 {
            let above = line_start(at - 1);
            let row = &bytes[above..at - 1];
            if !(row.contains(&b'>') && markers(row)) {
                break;
            }
            at = above;
        }
        b.pos = at;
    }
}

/// `range` without trailing whitespace.
fn trimmed(text: &str, range: Range<usize>) -> Range<usize> {
    range.start..range.start + text[range].trim_end().len()
}

/// The end of the line holding `pos`, without its line break.
fn line_end(text: &str, pos: usize) -> usize {
    memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |i| {
        let end = pos + i;
        if end > pos && text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        }
    })
}

/// The start of the line after the one holding `pos` (or the text length).
fn next_line(text: &str, pos: usize) -> usize {
    memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |i| pos + i + 1)
}

/// A cut before a block nested in a container, unless it is on the container's first line.
fn nested_child(text: &str, s: &mut Structure, w: &Walk, pos: usize, level: Level) {
    if let Some(parent) = w.open.last() {
        if memchr::memchr(b'\n', &text.as_bytes()[parent.start.min(pos)..pos]).is_some() {
            s.bounds.push(Boundary { pos, level });
        }
    }
}

fn start(text: &str, s: &mut Structure, w: &mut Walk, tag: &Tag<'_>, range: Range<usize>) {
    let is_block = matches!(
        tag,
        Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::BlockQuote(_)
            | Tag::CodeBlock(_)
            | Tag::HtmlBlock
            | Tag::List(_)
            | Tag::Item
            | Tag::FootnoteDefinition(_)
            | Tag::Table(_)
            | Tag::MetadataBlock(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
    );
    if !is_block {
        match tag {
            Tag::TableRow => {
                if let Some(Some(i)) = w.open.last().map(|o| o.block) {
                    if let BlockKind::Table { rows, .. } = &mut s.blocks[i].kind {
                        rows.push(range.start);
                    }
                }
            }
            Tag::Image { .. } | Tag::Link { .. } => {}
            _ => {}
        }
        return;
    }
    let top = w.open.is_empty();
    let list = matches!(tag, Tag::List(_) | Tag::Item);
    match &tag {
        Tag::Item => {
            // Items of a top-level list rank above blocks nested anywhere.
            let level = if w.open.len() == 1 && w.open[0].list {
                Level::ITEM
            } else {
                Level::NESTED
            };
            nested_child(text, s, w, range.start, level);
        }
        _ if !top => nested_child(text, s, w, range.start, Level::NESTED),
        _ => {}
    }
    let block_range = trimmed(text, range.clone());
    let recorded = match &tag {
        Tag::Heading { level, .. } if top => {
            // (A lone CR ends a line too: the splitter hands over a line view without one, but a caller of
            // `parse` may not.)
            let line_start = text[..range.start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
            w.heading = Some(Heading {
                start: line_start,
                content: range.start,
                end: block_range.end,
                depth: *level as u8,
                title: String::new(),
            });
            Some((BlockKind::Heading, false))
        }
        Tag::Table(_) => {
            // The header is the header line and the delimiter row under it.
            let header_end = line_end(text, next_line(text, range.start));
            Some((
                BlockKind::Table {
                    header: range.start..header_end.min(block_range.end),
                    rows: Vec::new(),
                    rendered: None,
                    caption: None,
                },
                true,
            ))
        }
        Tag::CodeBlock(kind) => {
            let (opener, body, language) = match kind {
                CodeBlockKind::Fenced(info) => (
                    Some(range.start..line_end(text, range.start)),
                    next_line(text, range.start),
                    info.split_whitespace()
                        .next()
                        .map(|l| {
                            l.trim_matches(|c| c == '{' || c == '}' || c == '.')
                                .to_owned()
                        })
                        .filter(|l| !l.is_empty()),
                ),
                CodeBlockKind::Indented => (None, range.start, None),
            };
            // A fence naming a known language: its code is cut by its syntax, not by the words a line starts with.
            let syntax = language.as_deref().and_then(|l| Syntax::named(l).ok());
            w.fence = syntax.map(|syn| Pending::new(syn, block_range.clone()));
            code_cuts(
                text,
                s,
                &block_range,
                body,
                opener.is_some(),
                syntax.is_none(),
            );
            Some((
                BlockKind::Code {
                    opener,
                    body,
                    language,
                },
                true,
            ))
        }
        Tag::HtmlBlock | Tag::MetadataBlock(_) => Some((BlockKind::Text, true)),
        Tag::List(_) if top => Some((BlockKind::List { lead_in: None }, true)),
        Tag::BlockQuote(_) if top => Some((BlockKind::Quote, false)),
        Tag::Paragraph | Tag::FootnoteDefinition(_) | Tag::DefinitionList if top => {
            Some((BlockKind::Text, false))
        }
        _ => None,
    };
    let block = recorded.map(|(kind, keep_whole)| {
        if matches!(kind, BlockKind::Code { .. } | BlockKind::Table { .. })
            || matches!(tag, Tag::HtmlBlock | Tag::MetadataBlock(_))
        {
            s.verbatim.push(block_range.clone());
        }
        s.blocks.push(Block {
            range: block_range,
            kind,
            keep_whole,
            nested: !top,
        });
        let i = s.blocks.len() - 1;
        if top {
            let kind = if matches!(tag, Tag::Paragraph) {
                Top::Paragraph
            } else {
                Top::Other
            };
            w.top.push((i, kind));
        }
        i
    });
    w.open.push(Open {
        block,
        start: range.start,
        list,
    });
}

fn end(text: &str, s: &mut Structure, w: &mut Walk, tag: TagEnd, _range: Range<usize>) {
    let is_block = matches!(
        tag,
        TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::BlockQuote(_)
            | TagEnd::CodeBlock
            | TagEnd::HtmlBlock
            | TagEnd::List(_)
            | TagEnd::Item
            | TagEnd::FootnoteDefinition
            | TagEnd::Table
            | TagEnd::MetadataBlock(_)
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
    );
    if !is_block {
        return;
    }
    let open = w.open.pop();
    if let (TagEnd::List(_) | TagEnd::Item, Some(Some(i))) = (tag, open.as_ref().map(|o| o.block)) {
        // pulldown-cmark's range of a list runs over the link reference definitions after it (a README's list of
        // links, then their targets): the list ends with its last content, so that a list that fits stays whole.
        let b = &mut s.blocks[i];
        if w.content_end > b.range.start && w.content_end < b.range.end {
            b.range.end = trimmed(text, b.range.start..w.content_end).end;
        }
    }
    if matches!(tag, TagEnd::CodeBlock) {
        if let Some(fence) = w.fence.take() {
            fence.finish(text, s);
        }
    }
    if let TagEnd::Table = tag {
        if let Some(Some(i)) = open.map(|o| o.block) {
            if let BlockKind::Table { rows, .. } = &s.blocks[i].kind {
                let rows = rows.clone();
                let delimiter = next_line(text, s.blocks[i].range.start);
                s.push_table_cuts(Some(delimiter), &rows);
            }
        }
    }
    if let (TagEnd::Heading(_), Some(mut h)) = (tag, w.heading.take()) {
        h.title = h.title.split_whitespace().collect::<Vec<_>>().join(" ");
        s.headings.push(h);
    }
}

/// Cuts between the lines of a code block: at lines after a blank line (paragraph), with `definitions` before a
/// top-level definition or after a closing brace at column 0 (definition), else at any line. Never right after the
/// opening fence or before the closing one.
fn code_cuts(
    text: &str,
    s: &mut Structure,
    block: &Range<usize>,
    body: usize,
    fenced: bool,
    definitions: bool,
) {
    let bytes = text.as_bytes();
    let end = block.end;
    if body >= end {
        return; // an empty block: nothing but its fence line
    }
    // The closing fence: the last line of a fenced block, when it is one.
    let last_line = text[..end].rfind('\n').map_or(0, |i| i + 1).max(body);
    let closing = fenced && {
        // (Past a quote's `>` markers too.)
        let l = text[last_line..end].trim_start_matches([' ', '\t', '>']);
        l.starts_with("```") || l.starts_with("~~~")
    };
    let stop = if closing { last_line } else { end };
    let mut line = next_line(text, body);
    let mut prev = body;
    while line < stop {
        let content = &text[line..line_end(text, line)];
        let prev_line = &text[prev..line_end(text, prev)];
        if !content.trim().is_empty() {
            let level = if definitions
                && (DEFINITIONS.iter().any(|d| content.starts_with(d))
                    || matches!(prev_line.trim_end(), "}" | "};" | "end"))
            {
                Level::DEFINITION
            } else if prev_line.trim().is_empty() {
                Level::PARAGRAPH
            } else {
                Level::LINE
            };
            s.bounds.push(Boundary { pos: line, level });
        }
        prev = line;
        line = next_line(text, line);
        if line <= prev || bytes.is_empty() {
            break;
        }
    }
}

/// Cuts between top-level blocks: before a heading at its level, after a thematic break, between blocks; a
/// paragraph that leads into a list or a table becomes part of its block.
fn top_level_cuts(text: &str, s: &mut Structure, w: &Walk) {
    let mut prev: Option<(usize, Top)> = None;
    let mut absorbed = Vec::new();
    let mut headings = s.headings.iter().map(|h| (h.start, h.depth));
    for &(i, top) in &w.top {
        let mut pos = s.blocks[i].range.start;
        // Headings come in the same order as their blocks; the cut falls at the start of the heading's line.
        let heading = if s.blocks[i].kind == BlockKind::Heading {
            headings.next()
        } else {
            None
        };
        if let Some((start, _)) = heading {
            pos = start;
        }
        if let Some((p, prev_top)) = prev {
            if top == Top::Paragraph && starts_with_pause(&text[pos..]) {
                // ". The service ..." after a code block: the paragraph goes on from the block before it.
                prev = Some((i, top));
                continue;
            }
            let level = match &s.blocks[i].kind {
                BlockKind::Heading => Level::heading(heading.map_or(6, |h| h.1)),
                _ if prev_top == Top::ThematicBreak => Level::THEMATIC,
                BlockKind::List { .. }
                    if prev_top == Top::Paragraph && leads_in(text, &s.blocks[p], pos) =>
                {
                    let lead = s.blocks[p].range.clone();
                    // The list alone stays whole too when it fits, even if its lead-in does not fit with it.
                    let list = s.blocks[i].range.clone();
                    s.blocks.push(Block {
                        range: list,
                        kind: BlockKind::List { lead_in: None },
                        keep_whole: true,
                        nested: true,
                    });
                    s.blocks[i].kind = BlockKind::List {
                        lead_in: Some(lead.clone()),
                    };
                    s.blocks[i].range.start = lead.start;
                    absorbed.push(p); // the paragraph is part of the list's block from now on
                    Level::ITEM
                }
                BlockKind::Table { .. }
                    if prev_top == Top::Paragraph && leads_in(text, &s.blocks[p], pos) =>
                {
                    // A caption ("Table 3: ...", "表 3：…") or a line leading into the table: kept with it when
                    // they fit together, and in the context of every piece of the table after the first.
                    let lead = s.blocks[p].range.clone();
                    // The table alone stays whole too when it fits, even if its caption does not fit with it.
                    let alone = Block {
                        range: s.blocks[i].range.clone(),
                        kind: s.blocks[i].kind.clone(),
                        keep_whole: true,
                        nested: true,
                    };
                    s.blocks.push(alone);
                    if let BlockKind::Table { caption, .. } = &mut s.blocks[i].kind {
                        *caption = Some(lead.clone());
                    }
                    s.blocks[i].range.start = lead.start;
                    absorbed.push(p);
                    // Cut as the table's rows are: a table that does not fit whole takes its caption into its
                    // first piece (caption, header, first rows), as a list takes its lead-in into its first items;
                    // a caption alone would be a chunk that says nothing on its own.
                    Level::LINE
                }
                _ => Level::BLOCK,
            };
            s.bounds.push(Boundary { pos, level });
        }
        prev = Some((i, top));
    }
    let mut i = 0;
    s.blocks.retain(|_| {
        i += 1;
        absorbed.binary_search(&(i - 1)).is_err()
    });
    // Blocks must stay sorted by start: a list that took its lead-in starts where the paragraph did.
    s.blocks
        .sort_by_key(|b| (b.range.start, std::cmp::Reverse(b.range.end)));
}

/// A paragraph at most this long (in chars) right before a list leads into it, whatever it ends with.
const SHORT_LEAD_IN: usize = 80;

/// Phrases that end a sentence leading into what follows (lower case; the paragraph may end with punctuation).
const LEAD_IN_PHRASES: &[&str] = &[
    "as follows",
    "following",
    "below",
    "include",
    "includes",
    "such as",
    "e.g.",
    "以下",
    "如下",
    "下列",
    "下記",
    "次のとおり",
    "次の通り",
    "以下のとおり",
    "다음과 같다",
    "다음과 같습니다",
];

/// Whether paragraph `p` introduces the list (or table) starting at `list`: no blank line separates them; or it ends with a
/// colon, an enumeration comma (、，), or a phrase such as "as follows" / "以下" / "如下"; or it is a short
/// paragraph (a line or so) right before the list.
fn leads_in(text: &str, p: &Block, list: usize) -> bool {
    if p.kind != BlockKind::Text || p.nested {
        return false;
    }
    let body = &text[p.range.clone()];
    let gap = &text[p.range.end..list];
    if gap.matches('\n').count() <= 1 || body.ends_with([':', '：', '、', '，', ',']) {
        return true;
    }
    let last = body.trim_end_matches(['.', '。', '．', ':', '：', ' ']);
    let tail: String = last
        .chars()
        .rev()
        .take(24)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .flat_map(char::to_lowercase)
        .collect();
    LEAD_IN_PHRASES.iter().any(|w| tail.ends_with(w))
        || (body.chars().count() <= SHORT_LEAD_IN && !body.contains('\n') && !body.starts_with('#'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(text: &str) -> Vec<(usize, u8)> {
        parse(text)
            .bounds
            .iter()
            .map(|b| (b.pos, b.level.0))
            .collect()
    }

    #[test]
    fn headings_by_level_and_titles() {
        let text = "# A\n\npara\n\n## B *x*\n\ntext\n\nSetext\n------\n\nmore\n";
        let s = parse(text);
        let titles: Vec<_> = s
            .headings
            .iter()
            .map(|h| (h.depth, h.title.as_str()))
            .collect();
        assert_eq!(titles, vec![(1, "A"), (2, "B x"), (2, "Setext")]);
        let b = text.find("## B").unwrap();
        assert!(s.bounds.contains(&Boundary {
            pos: b,
            level: Level::heading(2)
        }));
        assert_eq!(s.path_at(text.find("more").unwrap()), vec![0, 2]);
    }

    #[test]
    fn fence_lines_are_not_headings() {
        let text = "```sh\n# not a heading\necho\n```\n\n~~~~\n```\n# no\n```\n~~~~\n";
        let s = parse(text);
        assert!(s.headings.is_empty());
        assert_eq!(s.verbatim.len(), 2);
        match &s.blocks[0].kind {
            BlockKind::Code { language, .. } => assert_eq!(language.as_deref(), Some("sh")),
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn table_rows_and_header() {
        let text = "| a | b |\n|:--|--:|\n| `x|y` | 1 |\n| 2 | \\| |\n| 3 | 4 |\n";
        let s = parse(text);
        match &s.blocks[0].kind {
            BlockKind::Table { header, rows, .. } => {
                assert_eq!(&text[header.clone()], "| a | b |\n|:--|--:|");
                assert_eq!(rows.len(), 3);
            }
            k => panic!("{k:?}"),
        }
        // Cuts between data rows; weak ones around the delimiter row, for a header that does not fit with a row.
        let got: Vec<u8> = levels(text).iter().map(|&(_, l)| l).collect();
        assert_eq!(
            got,
            vec![Level::WRAP.0, Level::WRAP.0, Level::LINE.0, Level::LINE.0]
        );
    }

    #[test]
    fn list_takes_its_lead_in() {
        let text = "Intro:\n\n- one\n- two\n  - nested\n\nAfter.\n";
        let s = parse(text);
        let list = s.blocks.iter().find(|b| !b.nested).unwrap();
        assert_eq!(list.range.start, 0);
        assert!(matches!(list.kind, BlockKind::List { lead_in: Some(_) }));
        let l = levels(text);
        assert!(l.contains(&(text.find("- one").unwrap(), Level::ITEM.0)));
        assert!(l.contains(&(text.find("- two").unwrap(), Level::ITEM.0)));
        assert!(l.contains(&(text.find("- nested").unwrap(), Level::NESTED.0)));
        assert!(l.contains(&(text.find("After").unwrap(), Level::BLOCK.0)));
    }

    #[test]
    fn code_cuts_prefer_definitions_and_blank_lines() {
        // A language the code parser does not know: the words a line starts with.
        let text = "```pseudo\nimport os\n\nx = 1\ndef f():\n    return 1\n```\n";
        let l = levels(text);
        assert!(l.contains(&(text.find("x = 1").unwrap(), Level::PARAGRAPH.0)));
        assert!(l.contains(&(text.find("def f").unwrap(), Level::DEFINITION.0)));
        assert!(l.contains(&(text.find("    return").unwrap(), Level::LINE.0)));
        assert!(!l.iter().any(|&(p, _)| p == text.find("import").unwrap()));
        assert!(!l.iter().any(|&(p, _)| p == text.rfind("```").unwrap()));
        assert!(parse(text).fences.is_empty());
    }

    /// A fence of a known language, as it stands in `doc` at `fence`: the code cut by its syntax (the module's
    /// nodes, a class's methods below them, blank lines and lines last), definitions whole, symbols and their
    /// signatures in document offsets; nothing cut right after the opening fence line or before the closing one.
    fn check_fence(doc: &str, fence: usize, prefix: &str) {
        let s = parse(doc);
        assert_eq!(s.fences.len(), 1, "{doc}");
        let f = &s.fences[0];
        assert_eq!(f.block.start, fence);
        assert_eq!(f.code.language.map(|l| l.name), Some("python"));
        let at = |needle: &str| doc.find(needle).unwrap();
        let line_of = |needle: &str| doc[..at(needle)].rfind('\n').unwrap() + 1;
        let l = levels(doc);
        assert!(l.contains(&(line_of("class Parser"), Level::code(1).0)));
        assert!(l.contains(&(line_of("def main"), Level::code(1).0)));
        assert!(l.contains(&(line_of("def close"), Level::code(2).0)));
        assert!(l.contains(&(line_of("return x"), Level::code(3).0)));
        let closing = doc.rfind("```").unwrap();
        let closing_line = doc[..closing].rfind('\n').unwrap() + 1;
        let body = doc[fence..].find('\n').unwrap() + fence + 1;
        assert_eq!(f.body, at("import os"));
        assert!(l
            .iter()
            .filter(|&&(p, _)| p > fence && p < closing)
            .all(|&(p, _)| p > body && p < closing_line));
        // The methods stay whole when they fit: blocks from their first character to their end.
        let feed = s
            .blocks
            .iter()
            .find(|b| b.nested && b.range.start == at("def feed"))
            .expect("a block for feed");
        assert!(doc[feed.range.clone()].ends_with("return x"));
        let labels: Vec<&str> = f.code.symbols.iter().map(|y| y.label.as_str()).collect();
        assert_eq!(
            labels,
            ["class Parser", "def feed", "def close", "def main"]
        );
        let feed = &f.code.symbols[1];
        // Its signature from its line's indentation, without the container prefix.
        assert_eq!(&doc[feed.header.clone()], "    def feed(self, data):");
        assert_eq!(f.code.path_at(at("y = 2")), [0, 1]);
        // A chunk starting in feed reads the signatures around it under the fence line.
        let start = line_of("y = 2");
        let context = s.context(doc, start, &s.path_at(start), None).text;
        let fence_line = doc[fence..].lines().next().unwrap();
        let inner = format!("{fence_line}\nclass Parser:\n    def feed(self, data):");
        assert!(context.ends_with(&inner), "{context:?}");
        assert!(prefix.is_empty() || doc[line_of("y = 2")..].starts_with(prefix));
    }

    const FENCED: &str = "import os\n\nclass Parser:\n    def feed(self, data):\n        x = 1\n        y = 2\n        \
                          return x\n\n    def close(self):\n        pass\n\ndef main():\n    \"数据\"\n\nmain()\n";

    #[test]
    fn a_fence_of_a_known_language_is_cut_by_its_syntax() {
        let doc = format!("# Guide\n\nSome words.\n\n```py\n{FENCED}```\n\nMore words, 中文。\n");
        check_fence(&doc, doc.find("```py").unwrap(), "");
        // In a list item and in a quote: the code less its container prefixes is what is parsed; cuts fall at
        // the starts of the document's lines, prefixes and all.
        let indented: String = FENCED.lines().map(|l| format!("   {l}\n")).collect();
        let doc = format!("1. Step:\n\n   ```python\n{indented}   ```\n");
        check_fence(&doc, doc.find("```python").unwrap(), "   ");
        let quoted: String = FENCED.lines().map(|l| format!("> {l}\n")).collect();
        let doc = format!("> ```python\n{quoted}> ```\n");
        check_fence(&doc, doc.find("```python").unwrap(), "> ");
        // A tab the Markdown parser expands is no slice of the document: lines only, as for an unknown language.
        let doc = "  ```py\n  def f():\n\tx = 1\n  ```\n";
        assert!(parse(doc).fences.is_empty());
    }

    #[test]
    fn heading_chains() {
        let text = "# A\n## B\n\n### C\n\ntext\n\n## D\n";
        let s = parse(text);
        let at = |h: &str| text.find(h).unwrap();
        assert!(s.headings_only(0, at("## B")));
        assert!(s.headings_only(0, at("### C")));
        assert!(s.headings_only(at("## B"), at("### C")));
        assert!(!s.headings_only(0, at("## D")), "text comes between");
        assert!(
            !s.headings_only(at("text"), at("## D")),
            "does not start at a heading"
        );
    }

    #[test]
    fn fence_without_code() {
        for text in ["\n```py\n", "```", "~~~\n~~~", "```\n\n```\n"] {
            let s = parse(text);
            assert!(s.bounds.iter().all(|b| b.pos < text.len()), "{text:?}");
        }
    }

    #[test]
    fn front_matter_is_not_a_heading() {
        let text = "---\ntitle: x\n---\n\n# Real\n\nbody\n";
        let s = parse(text);
        assert_eq!(s.headings.len(), 1);
        assert_eq!(s.headings[0].title, "Real");
        assert_eq!(s.verbatim[0].start, 0);
    }

    #[test]
    fn a_list_ends_before_the_link_definitions_after_it() {
        let text = "Formats, including:\n- [`JSON`], and *more*.\n- [`Rust`] literals.\n\n[`JSON`]: https://x.y/json\n\
                    [`Rust`]: https://x.y/rust\n";
        let s = parse(text);
        let list = s
            .blocks
            .iter()
            .find(|b| b.keep_whole && text[b.range.clone()].contains("- [`JSON`]"))
            .expect("the list");
        assert!(
            text[list.range.clone()].ends_with("literals."),
            "{:?}",
            &text[list.range.clone()]
        );
    }

    #[test]
    fn a_rule_pair_inside_the_text_is_no_metadata_block() {
        // A changelog: `---` above each release's heading. pulldown-cmark read the text between two such rules as a
        // YAML block, and its headings were lost.
        let text = "# Changelog\n\nNotes.\n\n---\n## 2.0.1\n\n### Other\n\n- Remove x\n\n---\n## 2.0.0\n\nFirst.\n";
        let s = parse(text);
        let titles: Vec<_> = s.headings.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(titles, ["Changelog", "2.0.1", "Other", "2.0.0"]);
        // Front matter still is one, and the rest of its text is read as Markdown.
        let text = "---\ntitle: x\n---\n\n# Real\n\n---\n## Two\n\nbody\n\n---\n";
        let s = parse(text);
        let titles: Vec<_> = s.headings.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(titles, ["Real", "Two"]);
        assert_eq!(s.verbatim[0].start, 0);
        assert!(s.headings.iter().all(|h| text[h.start..].starts_with('#')));
    }

    #[test]
    fn headings_split_by_a_lone_cr() {
        // Two headings on lines ended by a lone CR: each starts on its own line (this once sliced backwards).
        for text in ["#\r#", "# a\r## b\rtext\r", "#\r\r#\r"] {
            let s = parse(text);
            assert_eq!(s.headings.len(), 2, "{text:?}");
            assert!(s.headings[0].end <= s.headings[1].start, "{text:?}");
        }
    }

    #[test]
    fn empty_and_cjk() {
        assert!(parse("").bounds.is_empty());
        let s = parse("# 第三章 环境保护\n\n## 3.2 水生态修复\n\n正文。");
        let titles: Vec<_> = s.headings.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(titles, vec!["第三章 环境保护", "3.2 水生态修复"]);
    }
}
