//! The model: what a parser found in one text, as byte offsets. A parser fills a [`Structure`] (its cuts, blocks,
//! verbatim ranges and headings) and ends with [`Structure::finish`]; everything else reads it.

use std::ops::Range;

use super::describe::ChunkType;
use crate::boundary::{Boundary, Level};

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
    /// A heading line (ATX or setext), or a provision's heading.
    Heading,
    /// `header`: the header line and the delimiter row; `rows`: the start of each data row. A CSV or TSV table
    /// has its header rendered as Markdown (for the context), and its rows' ends and cells for rendering.
    Table {
        /// The header line and the delimiter row.
        header: Range<usize>,
        /// Where each data row starts.
        rows: Vec<usize>,
        /// A CSV or TSV table rendered as Markdown.
        rendered: Option<Box<Rendered>>,
        /// The paragraph that leads into the table (a caption such as "Table 3: ..." / "表 3：…", or a line
        /// ending with a colon), part of the block's range, when there is one.
        caption: Option<Range<usize>>,
    },
    /// `opener`: the opening fence line (none for an indented block); `body`: where the code lines start.
    Code {
        /// The opening fence line (none for an indented block).
        opener: Option<Range<usize>>,
        /// Where the code lines start.
        body: usize,
        /// The fence's info string's first word.
        language: Option<String>,
    },
    /// A list, with the paragraph that leads into it (part of the block's range) when there is one.
    List {
        /// The paragraph that leads into the list.
        lead_in: Option<Range<usize>>,
    },
    /// A block quote.
    Quote,
    /// A numbered provision of a legal text.
    Clause,
}

impl BlockKind {
    /// The type of a chunk made of this kind of block.
    pub fn chunk_type(&self) -> ChunkType {
        match self {
            BlockKind::Text => ChunkType::Text,
            BlockKind::Heading => ChunkType::Heading,
            BlockKind::Table { .. } => ChunkType::Table,
            BlockKind::Code { .. } => ChunkType::Code,
            BlockKind::List { .. } => ChunkType::List,
            BlockKind::Quote => ChunkType::Quote,
            BlockKind::Clause => ChunkType::Clause,
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
    /// What the block is.
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
    pub(super) no_cut: Vec<(usize, usize)>,
    /// Starts `(start, budget)` where a chunk's context gets less than its usual half of the capacity: a list
    /// whose lead-in cannot go with it stays whole, its lead-in in its context shortened to what the list leaves.
    /// Sorted. Filled by [`Structure::seal`].
    pub(super) tight: Vec<(usize, usize)>,
    /// The parent of each heading (the nearest earlier one of a smaller depth). Filled by [`Structure::finish`].
    pub(super) parents: Vec<Option<usize>>,
    /// For each heading, the next one of a smaller depth, and the next one of the same or a smaller depth
    /// (`headings.len()` when there is none): where its section, and the run of its sibling sections, end.
    pub(super) next_shallower: Vec<usize>,
    pub(super) next_not_deeper: Vec<usize>,
    /// For each heading, the last heading of the run that follows it with nothing but whitespace in between.
    pub(super) chain: Vec<usize>,
    /// Positions where the only cut is the structure's own (a weak one between a heading and its content; the
    /// one between a table's caption and its header): other emitters' cuts there are dropped. Filled by
    /// [`Structure::seal`].
    pub(super) weak: Vec<usize>,
    /// The indices of the top-level blocks (sorted, disjoint). Filled by [`Structure::seal`].
    pub(super) top: Vec<usize>,
    /// Whether sibling sections may share a chunk.
    pub merge_sections: bool,
    /// Whether a chunk's context counts toward its size.
    pub size_includes_context: bool,
    /// For a text that is one table: at most this many data rows per chunk, overlap rows included (0: no limit).
    pub(super) rows_per_chunk: usize,
    /// A caller's cuts (see [`Structure::from_cuts`]), sorted: no chunk runs past the next one.
    pub(super) cuts: Vec<usize>,
    /// Source code: its symbols, syntax nodes and error regions (see [`super::code`]), which describe its chunks.
    pub code: Option<Box<super::code::Code>>,
    /// The code blocks of a Markdown document whose language is known, parsed as code, in document order.
    pub fences: Vec<super::code::Fenced>,
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
                BlockKind::Table {
                    header,
                    rows,
                    caption,
                    ..
                } => {
                    range(header);
                    rows.iter_mut().for_each(fwd);
                    caption.iter_mut().for_each(&mut range);
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

    /// The heading ancestry of the line holding `pos`, as indices into `headings` (a heading on that line
    /// included).
    pub fn path_at(&self, pos: usize) -> Vec<usize> {
        let upto = self.headings.partition_point(|h| h.start <= pos);
        let mut path: Vec<usize> =
            std::iter::successors(upto.checked_sub(1), |&h| self.parents[h]).collect();
        path.reverse();
        path
    }

    /// The code block or table with the verbatim range `v`.
    pub(super) fn block_of(&self, v: &Range<usize>) -> Option<&Block> {
        let first = self.blocks.partition_point(|b| b.range.start < v.start);
        // A table with a caption starts at the caption: the block right before the others starting with it.
        let captioned = first.checked_sub(1).map(|k| &self.blocks[k]).filter(|b| {
            b.range.end == v.end
                && matches!(&b.kind, BlockKind::Table { caption: Some(_), header, .. } if header.start == v.start)
        });
        captioned.or_else(|| {
            self.blocks[first..]
                .iter()
                .take_while(|b| b.range.start == v.start)
                .find(|b| {
                    b.range == *v
                        && matches!(b.kind, BlockKind::Code { .. } | BlockKind::Table { .. })
                })
        })
    }
}

impl Structure {
    /// The code block parsed as code whose range holds `start..end`, and its index in `fences`.
    pub(super) fn fence_at(
        &self,
        start: usize,
        end: usize,
    ) -> Option<(usize, &super::code::Fenced)> {
        let k = self
            .fences
            .partition_point(|f| f.block.start <= start)
            .checked_sub(1)?;
        let f = &self.fences[k];
        (end <= f.block.end).then_some((k, f))
    }
}

/// Applies the headings `range` to a heading stack: each heading closes those at its depth or deeper.
pub(super) fn push_path(headings: &[Heading], range: Range<usize>, stack: &mut Vec<usize>) {
    for i in range {
        let depth = headings[i].depth;
        while stack.last().is_some_and(|&t| headings[t].depth >= depth) {
            stack.pop();
        }
        stack.push(i);
    }
}
