//! The structure of one document, as a structural parser (Markdown, numbered provisions) reports it, and what it
//! tells about each chunk: its title path, its context, its type, the table rows it holds.
//!
//! A parser fills a [`Structure`] with byte offsets; the engine then reads four things from it:
//! - `bounds`: cuts at structural levels (sections, blocks, items, rows, code lines), emitted as levels like any
//!   other boundary;
//! - `verbatim`: ranges (code, tables) where prose emitters (sentences, clauses, blank lines) are silenced;
//! - the no-cut ranges of [`Structure::seal`]: blocks that stay whole because they fit, and the join between a
//!   heading and the content under it;
//! - headings: barriers that a merge of sibling pieces never crosses.

use std::ops::Range;

use crate::boundary::{Boundary, Level};
use crate::size::Sizer;

/// A heading, or a numbered provision: a node of the title path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// Start of the heading's first line.
    pub start: usize,
    /// First byte of the heading's content (after indentation): a chunk starting here starts with the heading.
    pub content: usize,
    /// End of the heading's text (no trailing line break).
    pub end: usize,
    /// 1 (outermost) to 6.
    pub depth: u8,
    /// The heading's text, markup stripped.
    pub title: String,
}

/// What a block is, with what its pieces need to be read alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockKind {
    /// Paragraphs, HTML blocks, front matter, thematic breaks.
    Text,
    Heading,
    /// `header`: the header line and the delimiter row; `rows`: the start of each data row. A CSV or TSV table
    /// has its header rendered as Markdown (for the context), and its rows' ends and cells for rendering.
    Table {
        header: Range<usize>,
        rows: Vec<usize>,
        rendered: Option<Box<Rendered>>,
    },
    /// `opener`: the opening fence line (none for an indented block); `body`: where the code lines start.
    Code {
        opener: Option<Range<usize>>,
        body: usize,
        language: Option<String>,
    },
    /// A list, with the paragraph that leads into it (part of the block's range) when there is one.
    List {
        lead_in: Option<Range<usize>>,
    },
    Quote,
    /// A numbered provision of a legal text.
    Clause,
}

impl BlockKind {
    /// The `chunk_type` of a chunk made of this kind of block.
    pub fn name(&self) -> &'static str {
        match self {
            BlockKind::Text => "text",
            BlockKind::Heading => "heading",
            BlockKind::Table { .. } => "table",
            BlockKind::Code { .. } => "code",
            BlockKind::List { .. } => "list",
            BlockKind::Quote => "quote",
            BlockKind::Clause => "clause",
        }
    }
}

/// A delimited (CSV, TSV) table rendered as Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The header row and the delimiter row, as Markdown.
    pub header: String,
    /// Each data row: its end, and its cells rendered as a Markdown row.
    pub rows: Vec<(usize, String)>,
}

/// A block of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// From the block's first byte to the end of its content (no trailing whitespace).
    pub range: Range<usize>,
    pub kind: BlockKind,
    /// Never cut inside when the block fits in a chunk.
    pub keep_whole: bool,
    /// Inside a container (a list item, a quote): not one of the document's top-level blocks.
    pub nested: bool,
}

/// What a structural parser found in one text.
#[derive(Debug, Clone, Default)]
pub struct Structure {
    /// Structural cuts, sorted by position, one per position.
    pub bounds: Vec<Boundary>,
    /// Sorted, disjoint ranges where prose emitters report nothing (code, tables, HTML, front matter).
    pub verbatim: Vec<Range<usize>>,
    /// Blocks sorted by start (a nested block comes after the block that holds it).
    pub blocks: Vec<Block>,
    /// Headings in document order.
    pub headings: Vec<Heading>,
    /// Positions `(a, b)`: no cut may fall at `p` with `a < p < b`. Filled by [`Structure::seal`].
    no_cut: Vec<(usize, usize)>,
    /// The parent of each heading (the nearest earlier one of a smaller depth). Filled by [`Structure::finish`].
    parents: Vec<Option<usize>>,
    /// For each heading, the next one of a smaller depth, and the next one of the same or a smaller depth
    /// (`headings.len()` when there is none): where its section, and the run of its sibling sections, end.
    next_shallower: Vec<usize>,
    next_not_deeper: Vec<usize>,
    /// For each heading, the last heading of the run that follows it with nothing but whitespace in between.
    chain: Vec<usize>,
    /// Positions where the only cut is the structure's own weak one (between a heading and its content): other
    /// emitters' cuts there are dropped. Filled by [`Structure::seal`].
    weak: Vec<usize>,
    /// The indices of the top-level blocks (sorted, disjoint). Filled by [`Structure::seal`].
    top: Vec<usize>,
    /// Whether sibling sections may share a chunk.
    pub merge_sections: bool,
    /// Whether a chunk's context counts toward its size.
    pub size_includes_context: bool,
    /// For a text that is one table: at most this many data rows per chunk, overlap rows included (0: no limit).
    rows_per_chunk: usize,
}

/// What a chunk learns from the structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanInfo {
    /// Indices into [`Structure::headings`], outermost first: the ancestry of the chunk's first line.
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
    /// text | heading | table | code | list | quote | clause.
    pub kind: &'static str,
    /// For a chunk of one table: the data rows it holds (first, past last) and the table's row count.
    pub rows: Option<(usize, usize, usize)>,
    /// For a chunk of one code block: the block's language (`Some(None)`: a block without one).
    pub language: Option<Option<String>>,
    /// The text to embed when it is not context + join + text: a CSV or TSV chunk rendered as a Markdown table.
    pub embedding: Option<String>,
}

/// A chunk's context as [`Structure::context`] makes it.
#[derive(Debug)]
struct Context {
    text: String,
    /// It ends with a table header or a fence line (joined to the text with one line break).
    inline: bool,
    shortened: bool,
}

impl Context {
    fn whole(text: String, inline: bool) -> Self {
        Self {
            text,
            inline,
            shortened: false,
        }
    }

    fn shortened(text: String, inline: bool) -> Self {
        Self {
            text,
            inline,
            shortened: true,
        }
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
fn shorten_text(s: &str, fits: impl Fn(&str) -> bool) -> Option<String> {
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

impl Structure {
    /// Adds a cut, keeping the strongest level when one is already at `pos`. Cuts must come in order.
    pub fn push_bound(&mut self, pos: usize, level: Level) {
        match self.bounds.last_mut() {
            Some(last) if last.pos == pos => last.level = last.level.max(level),
            Some(last) if last.pos > pos => {
                let i = self.bounds.partition_point(|b| b.pos < pos);
                match self.bounds.get_mut(i) {
                    Some(b) if b.pos == pos => b.level = b.level.max(level),
                    _ => self.bounds.insert(i, Boundary { pos, level }),
                }
            }
            _ => self.bounds.push(Boundary { pos, level }),
        }
    }

    /// The structure of a legal text from its numbered provisions: each provision a section at its depth, the
    /// numbering hierarchy its title path.
    pub fn from_provisions(
        text: &str,
        provisions: Vec<crate::boundary::provisions::Provision>,
    ) -> Self {
        let mut s = Structure::default();
        let first = provisions.first().map_or(text.len(), |p| p.start);
        let preamble = text[..first].trim_end().len();
        if !text[..preamble].trim_start().is_empty() {
            s.blocks.push(Block {
                range: 0..preamble,
                kind: BlockKind::Text,
                keep_whole: false,
                nested: false,
            });
        }
        for (i, p) in provisions.iter().enumerate() {
            let next = provisions.get(i + 1).map_or(text.len(), |n| n.start);
            let end = p.start + text[p.start..next].trim_end().len();
            s.blocks.push(Block {
                range: p.start..end,
                kind: BlockKind::Clause,
                keep_whole: false,
                nested: false,
            });
            s.bounds.push(Boundary {
                pos: p.start,
                level: Level::heading(p.depth),
            });
            s.headings.push(Heading {
                start: p.start,
                content: p.marker,
                end: p.title_end,
                depth: p.depth,
                title: p.title.clone(),
            });
        }
        s.finish(text);
        s
    }

    /// The structure of a text that is one table: cuts between data rows; a delimited table is rendered as Markdown
    /// for the context and the embedding text. `rows_per_chunk` (0: none) bounds the data rows of each chunk,
    /// counted from the row it starts in (see [`Structure::limit_at`]), so that a chunk that starts with overlap
    /// rows holds no more rows than one without.
    pub fn from_table(
        text: &str,
        table: &crate::boundary::table::Table,
        format: crate::boundary::table::TableFormat,
        rows_per_chunk: usize,
    ) -> Self {
        use crate::boundary::table::{self as t, TableFormat};
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
            let header = t::delimited_cells(&text[table.header.clone()], format);
            let mut md = t::render_markdown_row(&header);
            md.push('\n');
            md.push_str(&t::render_markdown_delimiter(header.len()));
            Box::new(Rendered {
                header: md,
                rows: table
                    .rows
                    .iter()
                    .map(|r| {
                        let cells = t::delimited_cells(&text[r.clone()], format);
                        (r.end, t::render_markdown_row(&cells))
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
            },
            keep_whole: rows_per_chunk == 0,
            nested: false,
        });
        s.finish(text);
        s
    }

    /// The cuts of a table: between data rows, and weak ones above a Markdown delimiter row and under the header,
    /// taken only when the header and the first row do not fit together (never a cut between the header and the
    /// first row otherwise).
    pub(crate) fn push_table_cuts(&mut self, delimiter: Option<usize>, rows: &[usize]) {
        for pos in delimiter.into_iter().chain(rows.first().copied()) {
            self.bounds.push(Boundary {
                pos,
                level: Level::WRAP,
            });
        }
        for &pos in rows.iter().skip(1) {
            self.bounds.push(Boundary {
                pos,
                level: Level::LINE,
            });
        }
    }

    /// Moves every position that is not a char boundary of `text` to one: positions read off a line view (see
    /// [`crate::boundary::breaks`]) may fall inside a multi-byte terminator. Starts move forward (past the
    /// terminator), ends back (before it).
    pub fn snap_to_chars(&mut self, text: &str) {
        use crate::offsets::{ceil_char_boundary, floor_char_boundary};
        let fwd = |p: &mut usize| *p = ceil_char_boundary(text, *p);
        let back = |p: &mut usize| *p = floor_char_boundary(text, *p);
        for b in &mut self.bounds {
            fwd(&mut b.pos);
        }
        self.bounds.dedup_by(|b, a| {
            // Keep the strongest of the cuts that met at one position.
            let same = a.pos == b.pos;
            if same {
                a.level = a.level.max(b.level);
            }
            same
        });
        let mut range = |r: &mut Range<usize>| {
            fwd(&mut r.start);
            back(&mut r.end);
            r.end = r.end.max(r.start);
        };
        self.verbatim.iter_mut().for_each(&mut range);
        for b in &mut self.blocks {
            range(&mut b.range);
            match &mut b.kind {
                BlockKind::Table { header, rows, .. } => {
                    range(header);
                    rows.iter_mut().for_each(fwd);
                }
                BlockKind::Code { opener, body, .. } => {
                    opener.iter_mut().for_each(&mut range);
                    fwd(body);
                }
                BlockKind::List {
                    lead_in: Some(lead_in),
                } => range(lead_in),
                _ => {}
            }
        }
        for h in &mut self.headings {
            fwd(&mut h.start);
            fwd(&mut h.content);
            back(&mut h.end);
            h.content = h.content.max(h.start);
            h.end = h.end.max(h.content);
        }
    }

    /// Ends a parser's work: sorts the cuts (the strongest wins at a position; none at the text's edges) and links
    /// each heading to its parent.
    pub fn finish(&mut self, text: &str) {
        let text_len = text.len();
        self.bounds
            .sort_by_key(|b| (b.pos, std::cmp::Reverse(b.level)));
        self.bounds.dedup_by_key(|b| b.pos); // the first of each position is the strongest
        self.bounds.retain(|b| b.pos > 0 && b.pos < text_len);
        // No sentence or clause cuts inside a heading's own text (words and graphemes only, if it is that long).
        if !self.headings.is_empty() {
            self.verbatim
                .extend(self.headings.iter().map(|h| h.content..h.end));
            self.verbatim.sort_unstable_by_key(|r| (r.start, r.end));
        }
        let mut stack = Vec::new();
        self.parents = (0..self.headings.len())
            .map(|i| {
                push_path(&self.headings, i..i + 1, &mut stack);
                stack.len().checked_sub(2).map(|p| stack[p])
            })
            .collect();
        // The chains of headings with nothing but whitespace between them.
        self.chain = vec![0; self.headings.len()];
        for i in (0..self.headings.len()).rev() {
            let next = self.headings.get(i + 1);
            // (`get`: a parser's headings never overlap, but a bad position must not bring the process down.)
            self.chain[i] = match next {
                Some(n)
                    if text
                        .get(self.headings[i].end..n.start)
                        .is_some_and(|gap| gap.trim().is_empty()) =>
                {
                    self.chain[i + 1]
                }
                _ => i,
            };
        }
        // Scanning backwards with a stack of the headings seen, shallowest at the bottom.
        let n = self.headings.len();
        self.next_shallower = vec![n; n];
        self.next_not_deeper = vec![n; n];
        let mut later: Vec<usize> = Vec::new();
        for i in (0..n).rev() {
            let depth = self.headings[i].depth;
            while later
                .last()
                .is_some_and(|&j| self.headings[j].depth > depth)
            {
                later.pop();
            }
            self.next_not_deeper[i] = later.last().copied().unwrap_or(n);
            // Headings of the same depth further on are hidden behind this one for every earlier heading.
            while later
                .last()
                .is_some_and(|&j| self.headings[j].depth == depth)
            {
                later.pop();
            }
            self.next_shallower[i] = later.last().copied().unwrap_or(n);
            later.push(i);
        }
    }

    /// How far a chunk starting at `start` may reach: a chunk stays inside the section it starts in and its
    /// siblings (with `merge_sections`), or inside the section it starts with (without; a chunk that starts inside
    /// a section then ends at the next heading). A table chunk with `rows_per_chunk` stays inside its rows limit.
    pub(crate) fn limit_at(&self, text_len: usize, start: usize) -> usize {
        let n = self.headings.partition_point(|h| h.start <= start);
        let next = match n.checked_sub(1) {
            // Before the first heading: the preamble may run into the first section only when merging.
            None if self.merge_sections => self.headings.len(),
            None => 0,
            Some(h) => {
                let at_heading = start <= self.headings[h].content;
                match (self.merge_sections, at_heading) {
                    (true, _) => self.next_shallower[h],
                    (false, true) => self.next_not_deeper[h],
                    (false, false) => h + 1,
                }
            }
        };
        let section_end = self.headings.get(next).map_or(text_len, |h| h.start);
        section_end.min(self.rows_limit(start).unwrap_or(text_len))
    }

    /// With `rows_per_chunk`, where a chunk starting at `start` must end: before the `rows_per_chunk`-th row after
    /// the row holding `start` (a chunk that starts in the header starts with the first row). A limit that moves
    /// with the chunk, not a fixed cut every `rows_per_chunk` rows: a chunk that starts with overlap rows, or after
    /// a chunk that `size` cut short, still holds up to `rows_per_chunk` rows, never more.
    fn rows_limit(&self, start: usize) -> Option<usize> {
        if self.rows_per_chunk == 0 {
            return None;
        }
        let Some(Block {
            kind: BlockKind::Table { rows, .. },
            ..
        }) = self.blocks.first()
        else {
            return None;
        };
        let first = rows.partition_point(|&r| r <= start).saturating_sub(1);
        rows.get(first.saturating_add(self.rows_per_chunk)).copied()
    }

    /// The table whose inside (past its first byte, before its end) holds `pos`: its range and its row starts.
    fn table_around(&self, pos: usize) -> Option<(&Range<usize>, &[usize])> {
        let v = self
            .verbatim
            .partition_point(|r| r.start < pos)
            .checked_sub(1)?;
        match self.block_of(&self.verbatim[v]) {
            Some(Block {
                range,
                kind: BlockKind::Table { rows, .. },
                ..
            }) if pos < range.end => Some((range, rows)),
            _ => None,
        }
    }

    /// Whether an overlap may start at `pos` as far as tables go: outside a table anywhere, inside one only where a
    /// data row starts (never inside the header or a row).
    pub(crate) fn may_start_overlap(&self, pos: usize) -> bool {
        self.table_around(pos)
            .is_none_or(|(_, rows)| rows.binary_search(&pos).is_ok())
    }

    /// For a chunk from `start` cut at `cut` inside a table, the row starts its overlap may start at, earliest
    /// first; None when the cut is not inside a table. The overlap of a chunk that ends between rows is made of
    /// its last whole data rows: never the header (the next chunk's context repeats it), never every row of a
    /// chunk that starts with the header (nothing would be new but the header left out), and with
    /// `rows_per_chunk` at most `rows_per_chunk - 1` rows, so that the next chunk brings a row of its own. A chunk
    /// cut inside the header or inside a row (a row over `size`) gets no overlap.
    pub(crate) fn table_overlap(&self, start: usize, cut: usize) -> Option<&[usize]> {
        let (range, rows) = self.table_around(cut)?;
        let Ok(end) = rows.binary_search(&cut) else {
            return Some(&[]);
        };
        let mut first = rows.partition_point(|&r| r <= start);
        if start >= range.start {
            first = first.max(1);
        }
        if self.rows_per_chunk > 0 {
            first = first.max((end + 1).saturating_sub(self.rows_per_chunk));
        }
        Some(rows.get(first..end).unwrap_or_default())
    }

    /// Computes where no cut may fall for chunks of `capacity` units: inside a block that stays whole and fits,
    /// and between a heading and the content under it (a heading never ends a chunk when content follows it).
    pub fn seal(&mut self, text: &str, sizer: &dyn Sizer, capacity: usize) {
        self.top = (0..self.blocks.len())
            .filter(|&i| !self.blocks[i].nested)
            .collect();
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        // Where the content of each heading starts, and where the heading's own content starts (sorted).
        let mut under_heading: Vec<(usize, usize)> = Vec::new();
        for (i, h) in self.headings.iter().enumerate() {
            // The content under the heading: up to the next heading, or the end.
            let next = self.headings.get(i + 1).map_or(text.len(), |n| n.start);
            let Some(under) = text.get(h.end..next) else {
                continue;
            };
            let after = h.end + (under.len() - under.trim_start().len());
            if after >= next {
                continue;
            }
            // The cut between a heading and its content is a weak one, taken only when the heading and the first
            // piece of the content do not fit together: better than a cut inside the heading's words, worse than
            // any other. A table, code block or list under the heading then stays whole, and its pieces carry the
            // path.
            self.weak.push(after);
            let b = self.bounds.partition_point(|b| b.pos < after);
            match self.bounds.get_mut(b) {
                Some(x) if x.pos == after => x.level = Level::WRAP,
                _ => self.bounds.insert(
                    b,
                    Boundary {
                        pos: after,
                        level: Level::WRAP,
                    },
                ),
            }
            // No cut in the blank lines between them.
            ranges.push((h.end, after));
            under_heading.push((after, h.content));
        }
        for b in self.blocks.iter().filter(|b| b.keep_whole) {
            if b.range.end - b.range.start < 2 {
                continue;
            }
            // A block right under a heading stays whole only with its heading: a heading is never a chunk of its
            // own when content follows it, so when the two do not fit together the heading goes with the block's
            // first piece (a table's first rows, a code block's first lines).
            let from = match under_heading.binary_search_by_key(&b.range.start, |&(a, _)| a) {
                Ok(k) => under_heading[k].1,
                Err(_) => b.range.start,
            };
            let cost = sizer.size(&text[from..b.range.end]);
            if cost <= self.capacity_at(text, from, sizer, capacity) {
                ranges.push((b.range.start, b.range.end));
            }
        }
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                // Open intervals: (a, b) and (b, c) leave b free; an overlap joins them.
                Some(last) if a < last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.no_cut = merged;
    }

    /// Drops the cuts of `bounds` (from `emitter`) that fall strictly inside a verbatim range (for prose emitters),
    /// where no cut may fall (except between graphemes, the last resort), or where only the structure's weak cut
    /// may fall.
    pub(crate) fn filter(&self, bounds: &mut Vec<Boundary>, emitter: &crate::boundary::Emitter) {
        use crate::boundary::Emitter;
        if emitter.is_prose() && !self.verbatim.is_empty() {
            retain_outside(bounds, &self.verbatim, |r| (r.start, r.end));
        }
        if !self.weak.is_empty() && !matches!(emitter, Emitter::Structure | Emitter::Grapheme) {
            bounds.retain(|b| self.weak.binary_search(&b.pos).is_err());
        }
        if !matches!(emitter, Emitter::Grapheme) && !self.no_cut.is_empty() {
            retain_outside(bounds, &self.no_cut, |r| *r);
        }
    }

    /// The cuts at `level` in `(from, to]`.
    pub(crate) fn emit(&self, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
        let first = self.bounds.partition_point(|b| b.pos <= from);
        out.extend(
            self.bounds[first..]
                .iter()
                .take_while(|b| b.pos <= to)
                .filter(|b| b.level == level),
        );
    }

    /// Whether a merge of pieces at `level` stops after a cut at `at`: a heading boundary stronger than the pieces,
    /// or (without `merge_sections`) as strong.
    pub(crate) fn stops(&self, at: Level, level: Level) -> bool {
        at >= Level::SECTION
            && at != Level::END
            && (at > level || (at == level && !self.merge_sections))
    }

    /// Whether `text[start..pos]` holds nothing but headings (a chain of headings, each right under the one
    /// before): such a piece is no section of its own, and goes with what follows even without `merge_sections`.
    pub(crate) fn headings_only(&self, start: usize, pos: usize) -> bool {
        let i = self.headings.partition_point(|h| h.start <= start);
        let Some(first) = i.checked_sub(1) else {
            return false;
        };
        if start > self.headings[first].content {
            return false;
        }
        let j = self.headings.partition_point(|h| h.start < pos);
        j > first && j <= self.chain[first] && self.headings[j].start == pos
    }

    /// The heading ancestry of the line holding `pos`, as indices into `headings` (a heading on that line
    /// included).
    pub fn path_at(&self, pos: usize) -> Vec<usize> {
        let upto = self.headings.partition_point(|h| h.start <= pos);
        let mut path: Vec<usize> =
            std::iter::successors(upto.checked_sub(1), |&h| self.parents[h]).collect();
        path.reverse();
        path
    }

    /// The context of a chunk starting at `start` with heading ancestry `path`. With a `budget` (sizer, units),
    /// outer headings are left out, then the block part, until the context takes at most the budget.
    fn context(
        &self,
        text: &str,
        start: usize,
        path: &[usize],
        budget: Option<(&dyn Sizer, usize)>,
    ) -> Context {
        // A heading that starts the chunk is in its text: the context holds its ancestors only.
        let shown = match path.last() {
            Some(&h) if self.headings[h].content >= start => &path[..path.len() - 1],
            _ => path,
        };
        let mut block = String::new();
        let mut inline = false;
        let mut is_table = false;
        if let Some(Block {
            kind: BlockKind::Table {
                rendered: Some(r), ..
            },
            ..
        }) = self.blocks.first()
        {
            // A CSV or TSV table: every chunk carries the header as Markdown, the first one too.
            block = r.header.clone();
            inline = true;
            is_table = true;
        }
        for b in self.blocks_around(start) {
            match &b.kind {
                BlockKind::Table {
                    rendered: Some(r), ..
                } => {
                    block = r.header.clone();
                    (inline, is_table) = (true, true);
                }
                BlockKind::Table { header, rows, .. }
                    if rows.first().is_some_and(|&r| start >= r) =>
                {
                    block = text[header.clone()].to_owned();
                    (inline, is_table) = (true, true);
                }
                BlockKind::Code {
                    opener: Some(opener),
                    body,
                    ..
                } if start > *body => {
                    block = text[opener.clone()].trim_start().to_owned();
                    (inline, is_table) = (true, false);
                }
                BlockKind::List {
                    lead_in: Some(lead_in),
                } if start >= lead_in.end => {
                    block = text[lead_in.clone()].to_owned();
                    (inline, is_table) = (false, false);
                }
                _ => {}
            }
        }
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

    /// The code block or table with the verbatim range `v`.
    fn block_of(&self, v: &Range<usize>) -> Option<&Block> {
        let first = self.blocks.partition_point(|b| b.range.start < v.start);
        self.blocks[first..]
            .iter()
            .take_while(|b| b.range.start == v.start)
            .find(|b| {
                b.range == *v && matches!(b.kind, BlockKind::Code { .. } | BlockKind::Table { .. })
            })
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

    /// What each span learns from the structure. `context_budget`: the capacity, when the context counts toward
    /// a chunk's size (the same rule as the engine applied).
    pub fn describe(
        &self,
        text: &str,
        spans: &[crate::Span],
        sizer: &dyn Sizer,
        capacity: usize,
    ) -> Vec<SpanInfo> {
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
            let budget = self.size_includes_context.then_some((sizer, capacity / 2));
            let Context {
                text: context,
                inline: inline_join,
                shortened: context_shortened,
            } = self.context(text, start, &stack, budget);
            while first_block < top.len() && top[first_block].range.end <= start {
                first_block += 1;
            }
            let inside = top[first_block..]
                .iter()
                .take_while(|b| b.range.start < span.end)
                .filter(|b| b.range.end > start);
            let (kind, rows, language) = match self.verbatim_block(start, span.end) {
                // Inside one code block or table (nested in a list, say): that block decides.
                Some(b) => classify(std::iter::once(&b), start, span.end),
                None => classify(inside, start, span.end),
            };
            let embedding = rows.and_then(|(first, past, _)| {
                let table = top.get(first_block)?;
                match &table.kind {
                    BlockKind::Table {
                        rows: starts,
                        rendered: Some(r),
                        ..
                    } => render_rows(text, span, starts, r, first, past),
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
            });
        }
        out
    }

    /// The capacity left to a chunk starting at `start` when its context counts toward its size.
    pub(crate) fn capacity_at(
        &self,
        text: &str,
        start: usize,
        sizer: &dyn Sizer,
        capacity: usize,
    ) -> usize {
        if !self.size_includes_context {
            return capacity;
        }
        let path = self.path_at(start);
        let Context {
            text: context,
            inline,
            ..
        } = self.context(text, start, &path, Some((sizer, capacity / 2)));
        if context.is_empty() {
            capacity
        } else {
            capacity - (sizer.size(&context) + sizer.size(join(inline))).min(capacity - 1)
        }
    }
}

/// A chunk of rows `first..past` of a delimited table as a Markdown table, when its edges fall between rows (the
/// first chunk also holds the header record).
fn render_rows(
    text: &str,
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
    let _ = text;
    let mut out = r.header.clone();
    for (_, row) in &r.rows[first..past] {
        out.push('\n');
        out.push_str(row);
    }
    Some(out)
}

/// Applies the headings `range` to a heading stack: each heading closes those at its depth or deeper.
fn push_path(headings: &[Heading], range: Range<usize>, stack: &mut Vec<usize>) {
    for i in range {
        let depth = headings[i].depth;
        while stack.last().is_some_and(|&t| headings[t].depth >= depth) {
            stack.pop();
        }
        stack.push(i);
    }
}

type Kind = (
    &'static str,
    Option<(usize, usize, usize)>,
    Option<Option<String>>,
);

/// The type of a chunk from the top-level blocks it overlaps: the one kind of its blocks (headings aside), "heading"
/// when it holds only headings, else "text".
fn classify<'a>(blocks: impl Iterator<Item = &'a &'a Block>, start: usize, end: usize) -> Kind {
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
        } = &b.kind
        {
            if end <= lead_in.end {
                // Only the paragraph that leads into a list: text.
                count += 1;
                match kind {
                    None => kind = Some(&BlockKind::Text),
                    Some(k) if k.name() == "text" => {}
                    Some(_) => mixed = true,
                }
                continue;
            }
        }
        count += 1;
        match kind {
            None => kind = Some(&b.kind),
            Some(k) if k.name() == b.kind.name() => {}
            Some(_) => mixed = true,
        }
    }
    match kind {
        None if headings => ("heading", None, None),
        None => ("text", None, None),
        Some(_) if mixed => ("text", None, None),
        Some(BlockKind::Table { rows, .. }) if count == 1 => {
            let first = rows.partition_point(|&r| r < start);
            let past = rows.partition_point(|&r| r < end);
            ("table", Some((first, past, rows.len())), None)
        }
        Some(BlockKind::Code { language, .. }) if count == 1 => {
            ("code", None, Some(language.clone()))
        }
        Some(k) => (k.name(), None, None),
    }
}

/// Keeps the boundaries that are not strictly inside any of `ranges` (sorted, disjoint open intervals).
fn retain_outside<R>(
    bounds: &mut Vec<Boundary>,
    ranges: &[R],
    ends: impl Fn(&R) -> (usize, usize),
) {
    let Some(first) = bounds.first() else { return };
    let mut r = ranges.partition_point(|x| ends(x).1 <= first.pos);
    bounds.retain(|b| {
        while r < ranges.len() && ends(&ranges[r]).1 <= b.pos {
            r += 1;
        }
        !(r < ranges.len() && ends(&ranges[r]).0 < b.pos)
    });
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
    use crate::boundary::table::{parse_table, TableFormat};
    use crate::{Splitter, SplitterConfig, Strategy};

    const TABLE: &str = "|a|b|\n|-|-|\n|1|2|\n|3|4|\n|5|6|\n|7|8|";

    fn table(text: &str, rows_per_chunk: usize) -> Structure {
        let t = parse_table(text, TableFormat::Markdown).expect("a table");
        Structure::from_table(text, &t, TableFormat::Markdown, rows_per_chunk)
    }

    /// The chunks of `text` as (text, first row, past the last row).
    fn chunks(config: SplitterConfig, text: &str) -> Vec<(String, usize, usize)> {
        let splitter = Splitter::new(config).expect("valid config");
        let (spans, structure) = splitter.split_structured(text).expect("a table");
        let structure = structure.expect("structural");
        let info = splitter.describe(text, &spans, &structure);
        spans
            .iter()
            .zip(info)
            .map(|(s, i)| {
                let (first, past, _) = i.rows.expect("table rows");
                (text[s.start..s.end].to_owned(), first, past)
            })
            .collect()
    }

    fn config(format: &str, size: usize, overlap: usize, rows_per_chunk: usize) -> SplitterConfig {
        let mut c = SplitterConfig::new(Strategy::Table, size);
        c.overlap = overlap;
        c.rows_per_chunk = (rows_per_chunk > 0).then_some(rows_per_chunk);
        c.table_format = format.parse().unwrap();
        c
    }

    #[test]
    fn rows_limit_moves_with_the_chunk_start() {
        let s = table(TABLE, 2);
        let row =
            |i: usize| TABLE.match_indices('|').map(|(p, _)| p).collect::<Vec<_>>()[6 + 3 * i];
        // From the header: the first two rows; from a row, or inside one: that row and the next.
        assert_eq!(s.limit_at(TABLE.len(), 0), row(2));
        assert_eq!(s.limit_at(TABLE.len(), row(1)), row(3));
        assert_eq!(s.limit_at(TABLE.len(), row(1) + 2), row(3));
        assert_eq!(s.limit_at(TABLE.len(), row(2)), TABLE.len());
        assert_eq!(table(TABLE, 0).limit_at(TABLE.len(), 0), TABLE.len());
        // No fixed barriers: every cut between rows is a row cut.
        assert!(s.bounds.iter().all(|b| b.level <= Level::LINE));
    }

    #[test]
    fn table_overlap_is_whole_data_rows() {
        let rows: Vec<usize> = match &table(TABLE, 0).blocks[0].kind {
            BlockKind::Table { rows, .. } => rows.clone(),
            _ => unreachable!("a table"),
        };
        let s = table(TABLE, 0);
        // A chunk from the header: never all of its rows (the header alone would be left out), never the header.
        assert_eq!(s.table_overlap(0, rows[3]), Some(&rows[1..3]));
        assert_eq!(s.table_overlap(0, rows[0]), Some(&[][..]));
        // From a row: the rows after it.
        assert_eq!(s.table_overlap(rows[1], rows[3]), Some(&rows[2..3]));
        // Cut inside a row or inside the header: none. Outside the table: not the table's say.
        assert_eq!(s.table_overlap(rows[0], rows[2] + 1), Some(&[][..]));
        assert_eq!(s.table_overlap(0, 6), Some(&[][..]));
        assert_eq!(s.table_overlap(0, TABLE.len()), None);
        // With rows_per_chunk, at most rows_per_chunk - 1 rows.
        let three = table(TABLE, 3);
        assert_eq!(three.table_overlap(0, rows[3]), Some(&rows[1..3]));
        let two = table(TABLE, 2);
        assert_eq!(two.table_overlap(0, rows[2]), Some(&rows[1..2]));
        assert_eq!(two.table_overlap(rows[1], rows[3]), Some(&rows[2..3]));
        assert_eq!(table(TABLE, 1).table_overlap(0, rows[1]), Some(&[][..]));
        // Row starts may start an overlap; the header, the delimiter row and the inside of a row may not.
        assert!(rows.iter().all(|&r| s.may_start_overlap(r)));
        assert!(!s.may_start_overlap(6) && !s.may_start_overlap(rows[1] + 1));
        assert!(s.may_start_overlap(0) && s.may_start_overlap(TABLE.len()));
    }

    #[test]
    fn rows_per_chunk_overlaps_by_whole_rows() {
        let t = |s: &str, a, b| (s.to_owned(), a, b);
        assert_eq!(
            chunks(config("markdown", 1 << 40, 5, 2), TABLE),
            [
                t("|a|b|\n|-|-|\n|1|2|\n|3|4|", 0, 2),
                t("|3|4|\n|5|6|", 1, 3),
                t("|5|6|\n|7|8|", 2, 4)
            ]
        );
        // An overlap of 4 characters holds no row of 5.
        assert_eq!(
            chunks(config("markdown", 1 << 40, 4, 2), TABLE),
            [
                t("|a|b|\n|-|-|\n|1|2|\n|3|4|", 0, 2),
                t("|5|6|\n|7|8|", 2, 4)
            ]
        );
        let csv = "a,b\n1,2\n3,4\n5,6\n7,8\n";
        assert_eq!(
            chunks(config("csv", 1 << 40, 100, 3), csv),
            [t("a,b\n1,2\n3,4\n5,6", 0, 3), t("3,4\n5,6\n7,8", 1, 4)]
        );
    }

    #[test]
    fn size_overlap_never_takes_the_header_or_part_of_a_row() {
        let t = |s: &str, a, b| (s.to_owned(), a, b);
        assert_eq!(
            chunks(config("markdown", 14, 6, 0), TABLE),
            [
                t("|a|b|\n|-|-|", 0, 0),
                t("|1|2|\n|3|4|", 0, 2),
                t("|3|4|\n|5|6|", 1, 3),
                t("|5|6|\n|7|8|", 2, 4)
            ]
        );
        // Rows with words in them: an overlap smaller than a row is no overlap, not the row's last words.
        let spaced = "| k | v |\n|---|---|\n| one | two words |\n| three | four words |\n| five | six words |";
        let got = chunks(config("markdown", 40, 12, 0), spaced);
        assert!(got.windows(2).all(|w| w[0].2 == w[1].1), "{got:?}");
    }

    #[test]
    fn markdown_table_overlap_starts_at_a_row() {
        let mut doc =
            String::from("# T\n\nSome words before the table.\n\n| key | value |\n|---|---|\n");
        for i in 0..20 {
            doc.push_str(&format!("| key {i} | some value {i} |\n"));
        }
        let table_start = doc.find("| key |").expect("header");
        let mut config = SplitterConfig::new(Strategy::Markdown, 80);
        for overlap in [5, 15, 30, 60] {
            config.overlap = overlap;
            let splitter = Splitter::new(config.clone()).expect("valid config");
            let spans = splitter.split(&doc).unwrap();
            for w in spans.windows(2) {
                let (prev, next) = (w[0], w[1]);
                if next.start < prev.end && next.start > table_start {
                    assert!(
                        doc[..next.start].ends_with('\n')
                            && doc[next.start..].starts_with("| key "),
                        "overlap {overlap}: {:?}",
                        &doc[next.start..next.end]
                    );
                }
            }
        }
    }
}
