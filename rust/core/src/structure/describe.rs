//! The description of a chunk: what the structure tells about it besides its text. Its title path (the headings
//! above its first line), its context (that path rendered, with the table header, fence line or list lead-in of a
//! block it starts inside), its type, the table rows it holds, its code block's language, and for a CSV or TSV
//! table the rows rendered as Markdown for embedding. The bindings only turn a [`Description`] into Python objects.

use std::ops::Range;

use super::model::push_path;
use super::{Block, BlockKind, Heading, Rendered, Structure};
use crate::size::Sizer;

/// What a chunk is made of, as its `chunk_type` says: the one kind of the blocks it holds (headings aside),
/// "heading" when it holds only headings, else "text".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkType {
    /// Paragraphs, HTML, front matter, or blocks of more than one kind.
    Text,
    /// Nothing but headings.
    Heading,
    /// Rows of one table.
    Table,
    /// Lines of one code block.
    Code,
    /// A list, with the paragraph that leads into it.
    List,
    /// A block quote.
    Quote,
    /// Numbered provisions.
    Clause,
}

impl ChunkType {
    /// Every type, in the order of [`ChunkType::index`].
    pub const ALL: [ChunkType; 7] = [
        ChunkType::Text,
        ChunkType::Heading,
        ChunkType::Table,
        ChunkType::Code,
        ChunkType::List,
        ChunkType::Quote,
        ChunkType::Clause,
    ];

    /// The name a chunk reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkType::Text => "text",
            ChunkType::Heading => "heading",
            ChunkType::Table => "table",
            ChunkType::Code => "code",
            ChunkType::List => "list",
            ChunkType::Quote => "quote",
            ChunkType::Clause => "clause",
        }
    }

    /// The position of the type in [`ChunkType::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// What the structure tells about the chunks of one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    /// The document's headings in order: each chunk's [`SpanInfo::path`] indexes into them.
    pub headings: Vec<Heading>,
    /// One for each span, in the same order.
    pub chunks: Vec<SpanInfo>,
}

impl Description {
    /// The titles of a chunk's heading path, outermost first.
    pub fn title_path<'a>(&'a self, info: &'a SpanInfo) -> impl Iterator<Item = &'a str> + 'a {
        info.path.iter().map(|&h| self.headings[h].title.as_str())
    }

    /// The labels of a chunk's symbol path, outermost first: its own path for a chunk of source code, the symbols
    /// of its code block for a chunk of a Markdown code block parsed as code, none for another chunk.
    pub fn symbol_path<'a>(&'a self, info: &'a SpanInfo) -> impl Iterator<Item = &'a str> + 'a {
        let path = match &info.code {
            Some(code) => code.symbols.as_deref().unwrap_or(&info.path),
            None => &[],
        };
        path.iter().map(|&h| self.headings[h].title.as_str())
    }
}

/// The data rows of a table a chunk holds (0-based, the header not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableRows {
    /// Its first data row.
    pub first: usize,
    /// The row past its last.
    pub past: usize,
    /// The table's data rows.
    pub total: usize,
}

/// What a chunk learns from the structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanInfo {
    /// Indices into [`Description::headings`], outermost first: the ancestry of the chunk's first line.
    pub path: Vec<usize>,
    /// Text that belongs before the chunk when it is embedded: the heading path, and the table header, fence line
    /// or list lead-in of a block the chunk starts inside.
    pub context: String,
    /// The context ends with a table header or a fence line: it joins the text with one line break, not two.
    pub inline_join: bool,
    /// The context was too long for its budget (half the size, when it counts toward the size) and was shortened
    /// from its outer end: outer headings left out, then a table header's last columns or the end of a fence line
    /// or lead-in.
    pub context_shortened: bool,
    /// What the chunk is made of.
    pub kind: ChunkType,
    /// For a chunk of one table: the data rows it holds and the table's row count.
    pub rows: Option<TableRows>,
    /// For a chunk of one code block: the block's language (`Some(None)`: a block without one).
    pub language: Option<Option<String>>,
    /// The text to embed when it is not context + join + text: a CSV or TSV chunk rendered as a Markdown table.
    pub embedding: Option<String>,
    /// For a chunk of source code: its lines, node types, and why it was cut at lines, if it was.
    pub code: Option<super::CodeSpan>,
}

/// A chunk's context as [`Structure::context`] makes it.
#[derive(Debug)]
pub(super) struct Context {
    pub(super) text: String,
    /// It ends with a table header or a fence line (joined to the text with one line break).
    pub(super) inline: bool,
    pub(super) shortened: bool,
}

impl Context {
    pub(super) fn whole(text: String, inline: bool) -> Self {
        Self {
            text,
            inline,
            shortened: false,
        }
    }

    pub(super) fn shortened(text: String, inline: bool) -> Self {
        Self {
            text,
            inline,
            shortened: true,
        }
    }
}

/// What of `block` the context of a chunk starting at `start` inside it quotes, if anything.
fn quoted_at(block: &Block, start: usize) -> Option<Quoted<'_>> {
    match &block.kind {
        BlockKind::Table {
            rendered: Some(r), ..
        } => Some(Quoted::Rendered(r.header.as_str())),
        BlockKind::Table {
            header,
            rows,
            caption,
            ..
        } if rows.first().is_some_and(|&r| start >= r) => Some(Quoted::Header {
            header: header.clone(),
            caption: caption.clone(),
        }),
        // A piece that starts at the header: the caption above it.
        BlockKind::Table {
            caption: Some(c), ..
        } if start >= c.end => Some(Quoted::Caption(c.clone())),
        BlockKind::Code {
            opener: Some(opener),
            body,
            ..
        } if start > *body => Some(Quoted::Fence {
            opener: opener.clone(),
            block: block.range.clone(),
        }),
        BlockKind::List {
            lead_in: Some(lead_in),
        } if start >= lead_in.end => Some(Quoted::LeadIn(lead_in.clone())),
        _ => None,
    }
}

/// The largest `k` in `1..=n` for which `fits(k)` holds (sizes grow with `k`), if any.
fn largest_fit(n: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    if n == 0 || !fits(1) {
        return None;
    }
    let (mut lo, mut hi) = (1, n); // fits(lo) holds
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

/// The longest start of `s` (whole chars) followed by an ellipsis that fits.
pub(super) fn shorten_text(s: &str, fits: impl Fn(&str) -> bool) -> Option<String> {
    let ends: Vec<usize> = s.char_indices().map(|(i, c)| i + c.len_utf8()).collect();
    let make = |k: usize| format!("{}…", s[..ends[k - 1]].trim_end());
    largest_fit(ends.len().saturating_sub(1), |k| fits(&make(k))).map(make)
}

/// A table header (its header line and delimiter row) with only its first columns, as many as fit.
fn shorten_table_header(header: &str, fits: impl Fn(&str) -> bool) -> Option<String> {
    // The unescaped pipes of each line: a row keeps its cells up to the k-th pipe after a leading one.
    let lines: Vec<(&str, Vec<usize>)> = header
        .lines()
        .map(|l| {
            let bytes = l.as_bytes();
            let pipes = (0..bytes.len())
                .filter(|&i| bytes[i] == b'|' && (i == 0 || bytes[i - 1] != b'\\'))
                .collect();
            (l, pipes)
        })
        .collect();
    let columns = lines
        .iter()
        .map(|(l, p)| {
            p.len()
                .saturating_sub(usize::from(l.trim_start().starts_with('|')))
        })
        .min()
        .unwrap_or(0);
    let make = |k: usize| {
        lines
            .iter()
            .map(|(l, p)| {
                let lead = usize::from(l.trim_start().starts_with('|'));
                p.get(k - 1 + lead).map_or(*l, |&end| &l[..=end])
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    largest_fit(columns.saturating_sub(1), |k| fits(&make(k))).map(make)
}

/// The separator between a context and its text.
pub fn join(inline: bool) -> &'static str {
    if inline {
        "\n"
    } else {
        "\n\n"
    }
}

/// The part of a block a context quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Quoted<'s> {
    /// A CSV or TSV table's header, rendered as Markdown.
    Rendered(&'s str),
    /// A table's header lines (after its caption, if it has one): the chunk starts at a data row.
    Header {
        header: Range<usize>,
        caption: Option<Range<usize>>,
    },
    /// A table's caption: the chunk starts at the header.
    Caption(Range<usize>),
    /// A code block's fence line (with the signatures of the definitions the chunk starts inside), and the block.
    Fence {
        opener: Range<usize>,
        block: Range<usize>,
    },
    /// A list's lead-in.
    LeadIn(Range<usize>),
}

/// What the context of a chunk at a start is made of: starts with equal parts have equal contexts, so a run of
/// them is measured once (see [`Structure::capacity_at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContextParts<'s> {
    /// The deepest heading of the path and how many of its headings the context shows.
    deepest: Option<usize>,
    shown: usize,
    /// What of a block the context quotes.
    quoted: Option<Quoted<'s>>,
    /// In a fence of a known language: the definitions the chunk starts inside.
    symbols: Vec<usize>,
}

impl Structure {
    /// What the context of a chunk starting at `start` with heading ancestry `path` is made of (a heading that
    /// starts the chunk is in its text, so the context shows its ancestors only; the innermost block around the
    /// start that has a part to quote there).
    pub(super) fn context_parts(&self, start: usize, path: &[usize]) -> ContextParts<'_> {
        let shown = match path.last() {
            Some(&h) if self.headings[h].content >= start => path.len() - 1,
            _ => path.len(),
        };
        // A CSV or TSV table: every chunk carries the header as Markdown, the first one too.
        let mut quoted = self
            .blocks
            .first()
            .filter(|b| {
                matches!(
                    b.kind,
                    BlockKind::Table {
                        rendered: Some(_),
                        ..
                    }
                )
            })
            .and_then(|b| quoted_at(b, start));
        for b in self.blocks_around(start) {
            if let Some(q) = quoted_at(b, start) {
                quoted = Some(q);
            }
        }
        // Code of a known language: the definitions the chunk starts inside, whose signatures follow the fence line.
        let symbols = match &quoted {
            Some(Quoted::Fence { block, .. }) => self
                .fence_at(block.start, block.end)
                .map(|(_, f)| f.code.inside(start, &f.code.path_at(start)))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        ContextParts {
            deepest: path.last().copied(),
            shown,
            quoted,
            symbols,
        }
    }

    /// The context of a chunk starting at `start` with heading ancestry `path`. With a `budget` (sizer, units),
    /// outer headings are left out, then the block part, until the context takes at most the budget.
    pub(super) fn context(
        &self,
        text: &str,
        start: usize,
        path: &[usize],
        budget: Option<(&dyn Sizer, usize)>,
    ) -> Context {
        if let Some(code) = &self.code {
            // Code has symbols, not headings: the path is the symbols around the start.
            return code.context(text, start, &code.path_at(start), budget);
        }
        self.context_of(text, path, &self.context_parts(start, path), budget)
    }

    /// The title path of the context of a chunk starting at `start` with heading ancestry `path`, in full: the
    /// context without its block part.
    pub(super) fn path_context(&self, text: &str, start: usize, path: &[usize]) -> String {
        let mut parts = self.context_parts(start, path);
        parts.quoted = None;
        parts.symbols.clear();
        self.context_of(text, path, &parts, None).text
    }

    /// The context made of `parts` (of the heading ancestry `path`; see [`Structure::context`]).
    pub(super) fn context_of(
        &self,
        text: &str,
        path: &[usize],
        parts: &ContextParts<'_>,
        budget: Option<(&dyn Sizer, usize)>,
    ) -> Context {
        let shown = &path[..parts.shown];
        let (block, inline, is_table) = match &parts.quoted {
            Some(Quoted::Rendered(header)) => ((*header).to_owned(), true, true),
            Some(Quoted::Header { header, caption }) => {
                let header = &text[header.clone()];
                let block = match caption {
                    Some(c) => format!("{}\n\n{header}", &text[c.clone()]),
                    None => header.to_owned(),
                };
                (block, true, true)
            }
            Some(Quoted::Caption(c)) => (text[c.clone()].to_owned(), false, false),
            Some(Quoted::Fence { opener, block: b }) => {
                let mut block = text[opener.clone()].trim_start().to_owned();
                // One signature a line under the fence line, so that the context is still the start of a code
                // block.
                if let Some((_, f)) = self.fence_at(b.start, b.end) {
                    for signature in f.code.signatures(text, &parts.symbols) {
                        block.push('\n');
                        block.push_str(signature);
                    }
                }
                (block, true, false)
            }
            Some(Quoted::LeadIn(lead_in)) => (text[lead_in.clone()].to_owned(), false, false),
            None => (String::new(), false, false),
        };
        let render = |skip: usize, with_block: bool| {
            let mut out = shown[skip..]
                .iter()
                .map(|&h| self.headings[h].title.as_str())
                .collect::<Vec<_>>()
                .join(" > ");
            if with_block && !block.is_empty() {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(&block);
            }
            out
        };
        let inline = inline && !block.is_empty();
        let full = render(0, true);
        let Some((sizer, limit)) = budget else {
            return Context::whole(full, inline);
        };
        let fits = |s: &str| s.is_empty() || sizer.size(s) + sizer.size(join(inline)) <= limit;
        if fits(&full) {
            return Context::whole(full, inline);
        }
        // Too long: shortened from its outer end. Outer headings go first; the nearest heading and the block (a
        // table header, a fence line, a lead-in) stay as long as they can.
        for skip in 1..=shown.len() {
            let out = render(skip, true);
            if !out.is_empty() && fits(&out) {
                return Context::shortened(out, inline);
            }
        }
        let nearest = shown.last().map(|&h| self.headings[h].title.as_str());
        if !block.is_empty() {
            // The block alone does not fit: its end goes (a table header keeps its first columns), with the
            // nearest heading before it when both fit.
            for head in [nearest, None] {
                let head = head.map_or(String::new(), |t| format!("{t}\n\n"));
                let fits_with = |b: &str| fits(&format!("{head}{b}"));
                let cut = if is_table {
                    shorten_table_header(&block, fits_with)
                } else {
                    shorten_text(&block, fits_with)
                };
                if let Some(b) = cut {
                    return Context::shortened(format!("{head}{b}"), inline);
                }
            }
        } else if let Some(title) = nearest {
            if let Some(t) = shorten_text(title, fits) {
                return Context::shortened(t, false);
            }
        }
        Context::shortened(String::new(), false)
    }

    /// The code block or table whose range holds `start..end`, if any.
    fn verbatim_block(&self, start: usize, end: usize) -> Option<&Block> {
        let i = self.verbatim.partition_point(|r| r.end < end);
        let v = self.verbatim.get(i)?;
        if v.start > start || v.end < end {
            return None;
        }
        self.block_of(v)
    }

    /// The blocks whose inside holds `pos` that a context reads, outermost first: the top-level block, then the
    /// table or code block (they never nest in one another).
    fn blocks_around(&self, pos: usize) -> impl Iterator<Item = &Block> {
        let inside = move |b: &&Block| b.range.start < pos && pos < b.range.end;
        let t = self
            .top
            .partition_point(|&i| self.blocks[i].range.start < pos);
        let top = t
            .checked_sub(1)
            .map(|t| &self.blocks[self.top[t]])
            .filter(inside);
        let v = self.verbatim.partition_point(|r| r.start < pos);
        let verbatim = v
            .checked_sub(1)
            .and_then(|v| self.block_of(&self.verbatim[v]))
            .filter(inside)
            .filter(|b| top.is_none_or(|t| !std::ptr::eq(*b, t)));
        top.into_iter().chain(verbatim)
    }

    /// What each span learns from the structure. `sizer` and `capacity`: the splitter's, for the context's budget
    /// when it counts toward a chunk's size (the same rule as the engine applied).
    pub fn describe(
        &self,
        text: &str,
        spans: &[crate::Span],
        sizer: &dyn Sizer,
        capacity: usize,
    ) -> Description {
        if let Some(code) = &self.code {
            let budget = self.size_includes_context.then_some((sizer, capacity / 2));
            return code.describe(text, spans, budget);
        }
        // The symbols of the code blocks parsed as code follow the headings: where each block's begin.
        let mut headings = self.headings.clone();
        let mut symbols_at = Vec::with_capacity(self.fences.len());
        for f in &self.fences {
            symbols_at.push(headings.len());
            headings.extend(f.code.symbol_headings());
        }
        let line = (!self.fences.is_empty()).then(|| super::code::line_numbers(text));
        let mut out = Vec::with_capacity(spans.len());
        let mut stack = Vec::new();
        let mut next_heading = 0;
        let mut prev_start = 0;
        // Top-level blocks in order, with a cursor: spans come in increasing order.
        let top: Vec<&Block> = self.top.iter().map(|&i| &self.blocks[i]).collect();
        let mut first_block = 0;
        for span in spans {
            let start = span.start;
            if start < prev_start {
                stack.clear();
                next_heading = 0;
                first_block = 0;
            }
            prev_start = start;
            let upto = self.headings.partition_point(|h| h.start <= start);
            push_path(&self.headings, next_heading..upto, &mut stack);
            next_heading = upto;
            let Context {
                text: context,
                inline: inline_join,
                shortened: context_shortened,
            } = self.context(
                text,
                start,
                &stack,
                self.size_includes_context
                    .then(|| (sizer, self.context_budget(start, capacity))),
            );
            while first_block < top.len() && top[first_block].range.end <= start {
                first_block += 1;
            }
            let inside = top[first_block..]
                .iter()
                .take_while(|b| b.range.start < span.end)
                .filter(|b| b.range.end > start);
            let Classified {
                kind,
                rows,
                mut language,
            } = match self.verbatim_block(start, span.end) {
                // Inside one code block or table (nested in a list, say): that block decides.
                Some(b) => classify(std::iter::once(&b), start, span.end),
                None => classify(inside, start, span.end),
            };
            // A chunk of a code block parsed as code: what a chunk of the code chunker learns, its symbol path
            // read at its first line of code.
            let fence = (kind == ChunkType::Code)
                .then(|| self.fence_at(start, span.end))
                .flatten();
            let code = fence.zip(line.as_ref()).map(|((k, f), line)| {
                language = Some(f.code.language.map(|l| l.name.to_owned()));
                let path = f.code.path_at(start.max(f.body));
                let mut code = f.code.span(start, span.end, line);
                code.symbols = Some(path.into_iter().map(|i| symbols_at[k] + i).collect());
                code
            });
            let embedding = rows.and_then(|TableRows { first, past, .. }| {
                let table = top.get(first_block)?;
                match &table.kind {
                    BlockKind::Table {
                        rows: starts,
                        rendered: Some(r),
                        ..
                    } => render_rows(span, starts, r, first, past),
                    _ => None,
                }
            });
            out.push(SpanInfo {
                path: stack.clone(),
                context,
                inline_join,
                context_shortened,
                kind,
                rows,
                language,
                embedding,
                code,
            });
        }
        Description {
            headings,
            chunks: out,
        }
    }
}

/// A chunk of rows `first..past` of a delimited table as a Markdown table, when its edges fall between rows (the
/// first chunk also holds the header record).
fn render_rows(
    span: &crate::Span,
    starts: &[usize],
    r: &Rendered,
    first: usize,
    past: usize,
) -> Option<String> {
    let aligned_start = starts.get(first).is_some_and(|&s| s == span.start) || first == 0;
    let aligned_end = past > first && r.rows[past - 1].0 <= span.end;
    if !aligned_start || !aligned_end {
        return None;
    }
    let mut out = r.header.clone();
    for (_, row) in &r.rows[first..past] {
        out.push('\n');
        out.push_str(row);
    }
    Some(out)
}

/// What [`classify`] learns of a chunk from the blocks it overlaps.
struct Classified {
    kind: ChunkType,
    /// The rows of the one table it holds rows of.
    rows: Option<TableRows>,
    /// The language of the one code block it is inside of (`Some(None)`: a block without one).
    language: Option<Option<String>>,
}

impl Classified {
    fn of(kind: ChunkType) -> Self {
        Self {
            kind,
            rows: None,
            language: None,
        }
    }
}

/// The type of a chunk from the top-level blocks it overlaps: the one kind of its blocks (headings aside), "heading"
/// when it holds only headings, else "text".
fn classify<'a>(
    blocks: impl Iterator<Item = &'a &'a Block>,
    start: usize,
    end: usize,
) -> Classified {
    let mut kind: Option<&BlockKind> = None;
    let mut count = 0;
    let mut mixed = false;
    let mut headings = false;
    for b in blocks {
        if matches!(b.kind, BlockKind::Heading) {
            headings = true;
            continue;
        }
        if let BlockKind::List {
            lead_in: Some(lead_in),
        }
        | BlockKind::Table {
            caption: Some(lead_in),
            ..
        } = &b.kind
        {
            if end <= lead_in.end {
                // Only the paragraph that leads into a list: text.
                count += 1;
                match kind {
                    None => kind = Some(&BlockKind::Text),
                    Some(k) if k.chunk_type() == ChunkType::Text => {}
                    Some(_) => mixed = true,
                }
                continue;
            }
        }
        count += 1;
        match kind {
            None => kind = Some(&b.kind),
            Some(k) if k.chunk_type() == b.kind.chunk_type() => {}
            Some(_) => mixed = true,
        }
    }
    match kind {
        None if headings => Classified::of(ChunkType::Heading),
        None => Classified::of(ChunkType::Text),
        Some(_) if mixed => Classified::of(ChunkType::Text),
        Some(BlockKind::Table { rows, .. }) if count == 1 => Classified {
            rows: Some(TableRows {
                first: rows.partition_point(|&r| r < start),
                past: rows.partition_point(|&r| r < end),
                total: rows.len(),
            }),
            ..Classified::of(ChunkType::Table)
        },
        Some(BlockKind::Code { language, .. }) if count == 1 => Classified {
            language: Some(language.clone()),
            ..Classified::of(ChunkType::Code)
        },
        Some(k) => Classified::of(k.chunk_type()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_context_is_shortened_from_its_outer_end() {
        let chars = |s: &str| s.chars().count();
        assert_eq!(largest_fit(10, |k| k <= 7), Some(7));
        assert_eq!(largest_fit(10, |_| false), None);
        assert_eq!(largest_fit(0, |_| true), None);
        // A table header keeps its first columns, both lines alike.
        let header = "| a | bb | ccc |\n|---|---|---|";
        let cut = shorten_table_header(header, |s| chars(s) <= 20).unwrap();
        assert_eq!(cut, "| a | bb |\n|---|---|");
        assert_eq!(
            shorten_table_header(header, |s| chars(s) <= 12).unwrap(),
            "| a |\n|---|"
        );
        assert_eq!(shorten_table_header(header, |s| chars(s) <= 5), None);
        // Other text keeps its start, whole chars, and ends with an ellipsis.
        assert_eq!(
            shorten_text("修复工作包括以下内容：", |s| chars(s) <= 5).unwrap(),
            "修复工作…"
        );
        assert_eq!(
            shorten_text("Install guide", |s| chars(s) <= 9).unwrap(),
            "Install…"
        );
        assert_eq!(shorten_text("x", |_| true), None);
    }
}
