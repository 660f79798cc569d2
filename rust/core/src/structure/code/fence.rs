//! A Markdown code block whose fence names a known language, handed to the code parser: its code (the block's
//! lines less their container prefixes, a list item's indentation or a quote's `>`, as the Markdown parser reads
//! them) is parsed once, and its cuts, the definitions that stay whole and its symbols come back in document
//! offsets. The code's cuts fall strictly inside the code: never right after the opening fence line, nor before
//! the closing one (the Markdown rule for fence lines).

use std::borrow::Cow;
use std::ops::Range;

use super::{Code, Syntax};
use crate::boundary::Boundary;
use crate::structure::{Block, BlockKind, Structure};

/// A code block of a known language, parsed as code.
#[derive(Debug, Clone)]
pub struct Fenced {
    /// The block, fence lines included (its verbatim range).
    pub block: Range<usize>,
    /// Where its first code line starts.
    pub body: usize,
    /// What its syntax tree says, in document offsets.
    pub code: Code,
}

/// A code block of a known language while its lines arrive.
#[derive(Debug)]
pub struct Pending {
    syntax: &'static Syntax,
    block: Range<usize>,
    /// Each piece of the code (a line, less its container prefix): where it starts in the code, and its range in
    /// the document.
    pieces: Vec<(usize, Range<usize>)>,
    len: usize,
    /// A piece is not a slice of the document (a tab expanded to spaces): the block is cut at its lines only.
    broken: bool,
}

impl Pending {
    /// A code block of `syntax` whose range (fence lines included) is `block`.
    pub fn new(syntax: &'static Syntax, block: Range<usize>) -> Self {
        Self {
            syntax,
            block,
            pieces: Vec::new(),
            len: 0,
            broken: false,
        }
    }

    /// A piece of the code, `piece`, read from `range` of `text`.
    pub fn push(&mut self, text: &str, piece: &str, range: Range<usize>) {
        if text.get(range.clone()) != Some(piece) {
            self.broken = true;
        } else if !piece.is_empty() {
            self.pieces.push((self.len, range));
            self.len += piece.len();
        }
    }

    /// Parses the code: its cuts and the blocks that stay whole go to `s` (nested in the code block), and the
    /// code block to `s.fences`.
    pub fn finish(self, text: &str, s: &mut Structure) {
        let (Some(first), Some(last)) = (self.pieces.first(), self.pieces.last()) else {
            return;
        };
        if self.broken {
            return;
        }
        let contiguous = self.pieces.windows(2).all(|w| w[0].1.end == w[1].1.start);
        let code: Cow<'_, str> = if contiguous {
            Cow::Borrowed(&text[first.1.start..last.1.end])
        } else {
            Cow::Owned(self.pieces.iter().map(|(_, r)| &text[r.clone()]).collect())
        };
        let mut parsed = super::parse(&code, Some(self.syntax));
        // Not parsed after all (long, and not code of its language: see `guard`): cut at its lines as before.
        let Some(mut code) = parsed.code.take().filter(|c| c.language.is_some()) else {
            return;
        };
        let map = Map {
            pieces: &self.pieces,
        };
        s.bounds.extend(parsed.bounds.iter().map(|b| Boundary {
            pos: map.cut(b.pos),
            level: b.level,
        }));
        s.blocks.extend(parsed.blocks.into_iter().map(|b| {
            let range = map.range(&b.range);
            Block {
                kind: BlockKind::Code {
                    opener: None,
                    body: range.start,
                    language: Some(self.syntax.name.to_owned()),
                },
                range,
                keep_whole: b.keep_whole,
                nested: true,
            }
        }));
        code.map(&map);
        s.fences.push(Fenced {
            block: self.block,
            body: first.1.start,
            code: *code,
        });
    }
}

/// Positions of the code to positions of the document.
struct Map<'a> {
    pieces: &'a [(usize, Range<usize>)],
}

impl Map<'_> {
    /// Where a cut, or the end of a range, at `p` falls in the document: at the start of a line of code, the start
    /// of the document's line (its container prefix included), where the Markdown cuts between code lines fall.
    fn cut(&self, p: usize) -> usize {
        let k = self
            .pieces
            .partition_point(|(c, _)| *c < p)
            .saturating_sub(1);
        let (c, r) = &self.pieces[k];
        (r.start + p.saturating_sub(*c)).min(r.end)
    }

    /// Where the character at `p` is in the document (past a line's container prefix): the start of a node.
    fn at(&self, p: usize) -> usize {
        let k = self
            .pieces
            .partition_point(|(c, _)| *c <= p)
            .saturating_sub(1);
        let (c, r) = &self.pieces[k];
        (r.start + p.saturating_sub(*c)).min(r.end)
    }

    /// A node's range: from its first character to its end.
    fn range(&self, r: &Range<usize>) -> Range<usize> {
        let start = self.at(r.start);
        start..self.cut(r.end).max(start)
    }
}

impl Code {
    /// Moves every position from the code to the document.
    fn map(&mut self, m: &Map<'_>) {
        for y in &mut self.symbols {
            y.range = m.range(&y.range);
            y.start = m.at(y.start);
            // A signature starts with its line's indentation, not with a list item's or a quote's prefix.
            y.header = m.range(&y.header);
        }
        for p in &mut self.pieces {
            (p.start, p.end) = (m.at(p.start), m.cut(p.end).max(m.at(p.start)));
        }
        for e in &mut self.errors {
            *e = m.range(e);
        }
    }
}
