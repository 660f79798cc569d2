//! Source code by its syntax tree (tree-sitter, the grammars compiled in), reported as a [`Structure`]: a cut
//! before each node of a body (the definitions and statements of a module, the methods of a class, the statements
//! of a function) ranked by how deep the body sits, and every definition and multi-line statement a block that
//! stays whole when it fits. The engine's greedy choice then takes as many whole nodes of the strongest level as
//! fit, and goes a level down only inside a node too large for a chunk: split, then merge.
//!
//! - Comments, attributes and decorators right above a node (no blank line between) go with it; a comment on the
//!   line a node ends on goes with that node.
//! - Only the five shallowest levels of bodies cut; deeper code, and the error regions of a file that does not
//!   parse, fall back to the engine's blank lines and lines. A text of no known language has only those.
//! - Definitions (`def`, `class`, `fn`, `impl`, ...) are also [`Symbol`]s: a chunk's symbol path is the symbols
//!   around its start, and its context the signatures of those it starts inside.

mod fence;
mod guard;
mod kinds;
mod languages;
mod nodes;
mod paths;

use std::cell::RefCell;
use std::ops::Range;

use rayon::prelude::*;
use tree_sitter::{Node, Parser};

use kinds::Kinds;
use nodes::{body_children, body_of, collapse, keyword, name_of, Def, NEEDS_BODY};

pub use fence::{Fenced, Pending};
pub use guard::GUARD_BYTES;
pub use languages::{Syntax, LANGUAGES};
pub(in crate::structure) use paths::line_numbers;

use super::Structure;
use crate::boundary::Level;

/// How many levels of bodies cut: depth 1 (a module's nodes) to 5, each at [`Level::code`] of its depth.
pub const CUT_DEPTHS: u8 = Level::CODE_DEPTHS;

/// How many definitions may hold a definition that still stays whole when it fits, below [`CUT_DEPTHS`] (where no
/// cut comes before it): a method of an anonymous class inside a method of a nested class is held by three. Each
/// level's blocks are measured whole, so a bound keeps a thousand-deep nesting linear.
const WHOLE_DEFINITIONS: u8 = 24;

/// A definition: a node of the symbol path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The definition with what goes with it (comments, decorators, attributes above it).
    pub range: Range<usize>,
    /// Where the definition itself starts (after what goes with it).
    pub start: usize,
    /// Its signature: from the start of its line (indentation kept) to its body, without trailing whitespace.
    pub header: Range<usize>,
    /// How many definitions hold it, plus one.
    pub depth: usize,
    /// Its kind's word and its name: "class Parser", "def feed", "impl Display for Point".
    pub label: String,
}

/// A node that a cut comes before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    start: usize,
    end: usize,
    depth: u8,
    /// Index into [`Code::kinds`].
    kind: u16,
}

/// What the syntax tree of a text says, besides the cuts and blocks of its [`Structure`].
#[derive(Debug, Clone, Default)]
pub struct Code {
    /// The language the text was parsed as (`None`: not known; lines only).
    pub language: Option<&'static Syntax>,
    /// The definitions, sorted by start (an outer one before the ones it holds).
    pub symbols: Vec<Symbol>,
    /// The nodes cuts come before, sorted by start, outer first.
    pieces: Vec<Piece>,
    /// The node kinds of the pieces.
    kinds: Vec<String>,
    /// The error regions of a text that does not parse, sorted.
    pub errors: Vec<Range<usize>>,
    /// The symbol that holds each symbol, if any.
    parents: Vec<Option<usize>>,
    /// Why a text of a known language was not parsed (see [`NOT_CODE`]), when it was not.
    fallback: Option<&'static str>,
}

/// What a chunk of code learns besides its symbol path and context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSpan {
    /// The lines of its first and last characters, 1-based (lines end at "\n").
    pub lines: (usize, usize),
    /// The kinds of the outermost syntax nodes that start in the chunk, in order, once each (or of the innermost
    /// node it lies inside, when none starts in it).
    pub node_types: Vec<String>,
    /// Why the chunk was cut at lines rather than by syntax, when it was.
    pub note: Option<&'static str>,
    /// For a chunk of a Markdown code block: its symbol path, as indices into the description's headings (its
    /// `path` is its title path then). `None` for a chunk of source code, whose `path` is its symbol path.
    pub symbols: Option<Vec<usize>>,
}

/// The note of a text of no known language.
pub const UNKNOWN_LANGUAGE: &str = "language not recognised: cut at blank lines and lines";
/// The note of a long text that most of its samples show is not code of its language (see `guard`).
pub const NOT_CODE: &str =
    "not code: most of the text does not parse as its language; cut at blank lines and lines";
/// The note of a chunk that overlaps an error region.
pub const SYNTAX_ERROR: &str = "syntax error in this chunk: cut at lines around it";

/// A text longer than twice this (in bytes) is parsed in segments of at least this many bytes, each cut before a
/// top-level definition (see [`segment_starts`]): segments are parsed on rayon's threads, a few at a time, and each
/// tree is walked and dropped in order, so the memory held is a few segments' trees (tree-sitter's is 30 to 40 times
/// its text) rather than the whole file's (2 MB of Python held an 80 MB tree), and a long file's parse uses every
/// core. The structure is the same as the whole file's (tested).
pub const SEGMENT_BYTES: usize = 256 * 1024;

/// Parses `text` as `syntax` (`None`: no known language) and returns its structure.
pub fn parse(text: &str, syntax: Option<&'static Syntax>) -> Structure {
    parse_in_segments(text, syntax, SEGMENT_BYTES).0
}

/// [`parse`], a text over twice `segment` bytes in segments of at least `segment` bytes; and how many segments
/// were parsed.
fn parse_in_segments(
    text: &str,
    syntax: Option<&'static Syntax>,
    segment: usize,
) -> (Structure, usize) {
    let mut segments = 0;
    let mut s = Structure::default();
    let mut code = Code {
        language: syntax,
        ..Code::default()
    };
    let parsed = syntax.and_then(|syn| {
        if with_parser(syn, |parser| Some(guard::not_code(parser, text)))? {
            code.fallback = Some(NOT_CODE);
            return None;
        }
        let lines = Lines::new(text);
        let ranges = segment_ranges(text, syn, segment);
        // Each parse on the thread's own parser (no parser is held while another thread may run a parse here).
        let parse = |range: Range<usize>| {
            with_parser(syn, |parser| parse_range(parser, text, &lines, range))
        };
        let mut walk = Walk {
            text,
            kinds: Kinds::get(syn),
            kind_ids: Vec::new(),
            lines: &lines,
            s: &mut s,
            code: &mut code,
            segmented: None,
        };
        // As many segments at once as rayon has threads, parsed in parallel and walked in order: at most that many
        // trees are held. A segment other than the last whose text has an error may have been cut inside a string,
        // a comment or brackets: the text from its start is parsed whole instead (once: a file with an error near
        // its start is not parsed again and again).
        let window = rayon::current_num_threads().max(1);
        for first in (0..ranges.len()).step_by(window) {
            let batch = &ranges[first..(first + window).min(ranges.len())];
            let trees: Vec<Option<tree_sitter::Tree>> = if batch.len() == 1 {
                vec![parse(batch[0].clone())]
            } else {
                batch.par_iter().map(|r| parse(r.clone())).collect()
            };
            for (i, tree) in (first..).zip(trees) {
                let mut tree = tree?;
                let rest = i + 1 < ranges.len() && tree.root_node().has_error();
                if rest {
                    drop(tree);
                    tree = parse(ranges[i].start..text.len())?;
                }
                if i == 0 && !rest && ranges.len() > 1 {
                    walk.segmented = Some(tree.root_node().start_position().row);
                }
                walk.run(tree.root_node());
                segments += 1;
                if rest {
                    return Some(());
                }
            }
        }
        Some(())
    });
    if parsed.is_none() {
        // No grammar (an ABI mismatch, which the tests rule out), no code (the guard) or a stopped parse: lines
        // only, and nothing a segment's walk recorded.
        let fallback = code.fallback;
        s = Structure::default();
        code = Code {
            fallback,
            ..Code::default()
        };
    }
    code.symbols
        .sort_by_key(|y| (y.range.start, std::cmp::Reverse(y.range.end)));
    code.parents = nest(&mut code.symbols);
    code.pieces
        .sort_by_key(|p| (p.start, p.depth, std::cmp::Reverse(p.end)));
    code.errors.sort_by_key(|r| (r.start, r.end));
    s.blocks
        .sort_by_key(|b| (b.range.start, std::cmp::Reverse(b.range.end)));
    s.code = Some(Box::new(code));
    s.finish(text);
    (s, segments)
}

/// The tree of `text[range]` alone, its nodes at their places in `text` (`None`: the parse was stopped).
fn parse_range(
    parser: &mut Parser,
    text: &str,
    lines: &Lines,
    range: Range<usize>,
) -> Option<tree_sitter::Tree> {
    let whole = range.start == 0 && range.end == text.len();
    if !whole {
        let point = |pos: usize| {
            let row = lines.starts.partition_point(|&a| a <= pos) - 1;
            tree_sitter::Point::new(row, pos - lines.starts[row])
        };
        let included = tree_sitter::Range {
            start_byte: range.start,
            end_byte: range.end,
            start_point: point(range.start),
            end_point: point(range.end),
        };
        parser.set_included_ranges(&[included]).ok()?;
    }
    let tree = parser.parse(text, None);
    if !whole {
        // (Resetting to the whole text cannot fail.)
        let _ = parser.set_included_ranges(&[]);
    }
    if tree.is_none() {
        // (Only a parse that was stopped returns none, and none is; a parser keeps a stopped parse to resume.)
        parser.reset();
    }
    tree
}

/// The segments `text` is parsed in: from each cut to the next, each cut at a [`segment_starts`] place at least
/// `segment` bytes past the one before and before the text's last `segment` bytes. One range for a text of at most
/// twice `segment` bytes.
fn segment_ranges(text: &str, syntax: &Syntax, segment: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    if text.len() > segment.saturating_mul(2) {
        for to in segment_starts(text, syntax) {
            if to >= from + segment && to + segment <= text.len() {
                out.push(from..to);
                from = to;
            }
        }
    }
    out.push(from..text.len());
    out
}

/// What a line must start with, at its first byte, to start a segment of a text of `syntax` (after a blank line):
/// words that only a new top-level definition starts with. Languages not listed are parsed whole.
fn segment_openers(syntax: &Syntax) -> &'static [&'static [u8]] {
    match syntax.name {
        "python" => &[b"def ", b"class ", b"async def ", b"@"],
        "rust" => &[
            b"fn ", b"pub ", b"impl ", b"impl<", b"struct ", b"enum ", b"trait ", b"mod ", b"#[",
        ],
        "go" => &[b"func ", b"type "],
        "javascript" | "typescript" | "tsx" => {
            &[b"function ", b"export ", b"class ", b"async function "]
        }
        _ => &[],
    }
}

/// The line starts of `text` where a segment may start: a line that follows a blank line (only spaces and tabs, or
/// nothing) and starts with one of the language's [`segment_openers`]. No comment right above it can be parted from
/// it (comments go with the node below them only when no blank line is between), and a cut inside a string, a
/// comment or brackets leaves the segment before it with an error, which [`parse_in_segments`] does not take.
fn segment_starts(text: &str, syntax: &Syntax) -> Vec<usize> {
    let openers = segment_openers(syntax);
    if openers.is_empty() {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 0;
    let mut blank = false;
    for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        let row = &bytes[line..end];
        if blank && openers.iter().any(|o| row.starts_with(o)) {
            out.push(line);
        }
        blank = row.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r'));
        line = end + 1;
    }
    out
}

thread_local! {
    /// A parser per language used on this thread, kept across calls: a new one allocates its stacks and lexer
    /// buffers, which on a file of a few KB costs a tenth of the parse.
    static PARSERS: RefCell<Vec<(&'static Syntax, Parser)>> = const { RefCell::new(Vec::new()) };
}

/// `f` of this thread's parser of `syntax` (`None`: the grammar cannot be loaded).
fn with_parser<R>(syntax: &'static Syntax, f: impl FnOnce(&mut Parser) -> Option<R>) -> Option<R> {
    PARSERS.with_borrow_mut(|parsers| {
        let i = match parsers.iter().position(|(s, _)| std::ptr::eq(*s, syntax)) {
            Some(i) => i,
            None => {
                let mut parser = Parser::new();
                parser.set_language(&syntax.language()).ok()?;
                parsers.push((syntax, parser));
                parsers.len() - 1
            }
        };
        f(&mut parsers[i].1)
    })
}

/// A node of one line this long (in bytes) is looked into below the cut depths, for the definitions it holds (a
/// minified file's); a shorter one holds none worth a symbol, and is not.
const LONG_NODE: usize = 200;

/// How many definitions deep a symbol may sit: one inside more is none (a chunk's symbol path and context, one
/// entry per definition around it, stay bounded on a thousand-deep nesting; real code nests a handful).
pub const MAX_SYMBOL_DEPTH: usize = 32;

/// Sets the depth of each symbol (sorted by start, an outer one first), drops those deeper than
/// [`MAX_SYMBOL_DEPTH`], and returns the parent of each one kept.
fn nest(symbols: &mut Vec<Symbol>) -> Vec<Option<usize>> {
    let mut open: Vec<usize> = Vec::new();
    let mut parents = Vec::with_capacity(symbols.len());
    let mut kept = 0;
    for i in 0..symbols.len() {
        let start = symbols[i].range.start;
        while open.last().is_some_and(|&o| symbols[o].range.end <= start) {
            open.pop();
        }
        if open.len() >= MAX_SYMBOL_DEPTH {
            continue;
        }
        // Everything between `kept` and `i` was dropped: the kept ones stay in order.
        symbols.swap(kept, i);
        symbols[kept].depth = open.len() + 1;
        parents.push(open.last().copied());
        open.push(kept);
        kept += 1;
    }
    symbols.truncate(kept);
    parents
}

/// Where each line starts, and where its content starts (past its indentation): positions from a node's row in
/// constant time, even on a minified file's one long line.
struct Lines {
    starts: Vec<usize>,
    content: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1))
            .collect();
        let content = starts
            .iter()
            .map(|&a| {
                a + bytes[a..]
                    .iter()
                    .take_while(|&&b| b == b' ' || b == b'\t')
                    .count()
            })
            .collect();
        Self { starts, content }
    }

    /// Where a node starting at `pos` on `row` is cut: the start of its line when only indentation comes before
    /// it (the indentation goes with it), else `pos` itself. And whether it starts its line.
    fn cut(&self, row: usize, pos: usize) -> (usize, bool) {
        match (self.starts.get(row), self.content.get(row)) {
            (Some(&start), Some(&content)) if content >= pos => (start, true),
            _ => (pos, false),
        }
    }

    /// The end of line `row` (before its line break), or `len`.
    fn end(&self, row: usize, len: usize) -> usize {
        self.starts.get(row + 1).map_or(len, |&next| next - 1)
    }
}

/// The longest signature a context repeats, in bytes (a minified file's definitions have no line breaks).
const MAX_HEADER: usize = 400;

/// The walk of one syntax tree.
struct Walk<'a> {
    text: &'a str,
    kinds: &'static Kinds,
    /// The grammar's id of each of [`Code::kinds`] (a node's kind name costs a UTF-8 check; its id, nothing).
    kind_ids: Vec<u16>,
    lines: &'a Lines,
    s: &'a mut Structure,
    code: &'a mut Code,
    /// When the text is parsed in segments: the row the whole text's root starts on (the first segment's). A
    /// segment's root then stands for the whole text's: its first row is that one, and its nodes have siblings in
    /// the other segments.
    segmented: Option<usize>,
}

impl Walk<'_> {
    /// Walks the tree without recursion (a file may nest a thousand deep): each holder's pieces, then theirs.
    fn run(&mut self, root: Node<'_>) {
        if root.is_error() {
            self.code.errors.push(root.start_byte()..root.end_byte());
            return;
        }
        // Each holder, with the node whose first line is its own (a definition's, for its body), its depth, and
        // how many definitions hold it.
        let mut holders = vec![(root, root, 1u8, 0u8)];
        let (mut children, mut stack, mut cursor) = (Vec::new(), Vec::new(), root.walk());
        let mut pieces = Vec::new();
        while let Some((holder, owner, depth, defs)) = holders.pop() {
            children.clear();
            if holder.id() != owner.id() {
                // Comments between a definition's signature and its body (Python's, Ruby's) are the definition's
                // children, not the body's: they go with the body's first node all the same.
                let mut prev = holder.prev_sibling();
                while let Some(p) = prev.filter(|p| {
                    self.kinds.is(*p, kinds::COMMENT)
                        && p.start_position().row > owner.start_position().row
                }) {
                    children.push(p);
                    prev = p.prev_sibling();
                }
                children.reverse();
            }
            body_children(holder, self.kinds, &mut cursor, &mut stack, &mut children);
            // A segment's root stands for the whole text's (see `segmented`): a text of many lines, whose nodes
            // are never alone.
            let segment_root = self.segmented.filter(|_| holder.id() == root.id());
            // No cut on the owner's first line (it would part the owner's start from the comments that go with
            // it, or a string's quotes from its content), and none inside a line of a holder of many lines.
            let first_row = segment_root.unwrap_or(owner.start_position().row);
            let last = owner.end_position();
            let one_line = segment_root.is_none()
                && (last.row == first_row || last.row == first_row + 1 && last.column == 0);
            self.group(&children, &mut pieces);
            // A node alone in its holder has no sibling to be cut from: its children take its level (a chain of
            // wrappers, as in a minified bundle's `(()=>{var e={...}})()`, would use up the levels that cut).
            let next = if pieces.len() == 1 && segment_root.is_none() {
                depth
            } else {
                depth.saturating_add(1)
            };
            for (range, first, node) in pieces.drain(..) {
                let (start, end) = (range.start, range.end);
                let def = self
                    .kinds
                    .is(node, kinds::MAY_DEFINE)
                    .then(|| self.definition(node))
                    .flatten();
                let end_row = node.end_position().row;
                if depth <= CUT_DEPTHS {
                    let row = first.start_position().row;
                    let (cut, starts_line) = self.lines.cut(row, start);
                    let cut = (row > first_row && (starts_line || one_line)
                        || one_line && cut > owner.start_byte())
                    .then_some(cut);
                    let many_lines = end_row > row;
                    self.piece(start..end, cut, depth, node, def.is_some() || many_lines);
                } else if def.is_some() && defs < WHOLE_DEFINITIONS {
                    self.block(start..end, depth);
                }
                if node.is_error() {
                    self.code.errors.push(start..end);
                    continue;
                }
                match def {
                    Some(def) => {
                        // A definition is cut at its body's nodes only.
                        if let Some(body) = def.body {
                            holders.push((body, node, next, defs.saturating_add(1)));
                        }
                        self.symbol(start..end, def);
                    }
                    // Below the cut depths only definitions matter (for symbol paths): they are in nodes of many
                    // lines, or of one long line (a minified file's).
                    None if node.named_child_count() > 0
                        && (depth < CUT_DEPTHS
                            || end_row > node.start_position().row
                            || end - start > LONG_NODE) =>
                    {
                        holders.push((node, node, next, defs));
                    }
                    None => {}
                }
            }
        }
    }

    /// The pieces of a holder's children: each node with the comments and attributes right above it (no blank line
    /// between), and the comments on the line it ends on. Puts each piece's range, its first node, and its node in
    /// `out` (emptied first).
    fn group<'t>(&self, children: &[Node<'t>], out: &mut Vec<(Range<usize>, Node<'t>, Node<'t>)>) {
        out.clear();
        // The comments and attributes waiting for the node they go with: their range, the last one's end row, and
        // the first one (the piece's node if nothing follows).
        let mut pending: Option<(Range<usize>, usize, Node<'t>)> = None;
        // The row the last piece ends on, while nothing waits.
        let mut last_row: Option<usize> = None;
        for &child in children {
            let (row, end_row) = (child.start_position().row, child.end_position().row);
            let comment = self.kinds.is(child, kinds::COMMENT);
            if comment && child.start_byte() == 0 && self.text.starts_with("#!") {
                // A shebang line documents no definition: a piece of its own.
                out.push((child.start_byte()..child.end_byte(), child, child));
                last_row = Some(end_row);
                continue;
            }
            if comment && pending.is_none() && last_row == Some(row) {
                // A comment after code on its line: part of that code's piece (no cut falls before it).
                if let Some((range, _, _)) = out.last_mut() {
                    range.end = child.end_byte();
                }
                last_row = Some(end_row);
                continue;
            }
            if let Some((range, pending_row, first)) = pending.take() {
                if row > pending_row + 1 {
                    // A blank line between: the waiting comments are a piece of their own.
                    out.push((range, first, first));
                } else {
                    pending = Some((range, pending_row, first));
                }
            }
            if comment || self.kinds.is(child, kinds::ATTACHED) {
                pending = Some(match pending.take() {
                    Some((range, _, first)) => (range.start..child.end_byte(), end_row, first),
                    None => (child.start_byte()..child.end_byte(), end_row, child),
                });
                continue;
            }
            let (start, first) = pending
                .take()
                .map_or((child.start_byte(), child), |(r, _, f)| (r.start, f));
            out.push((start..child.end_byte(), first, child));
            last_row = Some(end_row);
        }
        if let Some((range, _, first)) = pending {
            // Comments at the end of a body: a piece of their own.
            out.push((range, first, first));
        }
    }

    /// The definition a node is, or wraps (a decorated definition, an export), or assigns (JavaScript's
    /// `const f = () => {}`, `a.b.f = function () {}`).
    fn definition<'t>(&self, node: Node<'t>) -> Option<Def<'t>> {
        let def = |n: Node<'t>, word: &'static str| {
            let body = body_of(n);
            // `struct s x;` declares a variable of a type defined elsewhere.
            if body.is_none() && NEEDS_BODY.contains(&n.kind()) {
                return None;
            }
            Some(Def {
                node: n,
                body,
                word: if word.is_empty() {
                    keyword(n, self.text)
                } else {
                    word
                },
                name: None,
            })
        };
        if let Some(word) = self.kinds.definition(node) {
            return def(node, word);
        }
        if let Some(field) = self.kinds.wrapped(node) {
            let inner = if field.is_empty() {
                // The first named child that is a definition (a template's comes after its parameters).
                let mut cursor = node.walk();
                let found = node
                    .named_children(&mut cursor)
                    .find(|c| self.kinds.definition(*c).is_some());
                found.or_else(|| node.named_child(0))
            } else {
                node.child_by_field_name(field)
            }?;
            return match self.kinds.definition(inner) {
                Some(word) => def(inner, word),
                None => self.assigned(inner),
            };
        }
        self.assigned(node)
    }

    /// A function assigned to a name in JavaScript or TypeScript: a declaration of one variable, or an
    /// assignment statement, whose value is a function or an arrow function.
    fn assigned<'t>(&self, node: Node<'t>) -> Option<Def<'t>> {
        if !self.kinds.is(node, kinds::MAY_ASSIGN) {
            return None;
        }
        let field = |n: Node<'t>, id: Option<u16>| id.and_then(|id| n.child_by_field_id(id));
        let ids = self.kinds.field_ids;
        // (The value first: most are not functions, and then the name is not needed.)
        let (holder, name, value) = if self.kinds.is(node, kinds::DECLARES) {
            if node.named_child_count() != 1 {
                return None;
            }
            (node.named_child(0)?, ids.name, ids.value)
        } else {
            let a = node
                .named_child(0)
                .filter(|a| self.kinds.is(*a, kinds::ASSIGNMENT))?;
            (a, ids.left, ids.right)
        };
        let value = field(holder, value).filter(|v| self.kinds.is(*v, kinds::FUNCTION_VALUE))?;
        Some(Def {
            node,
            body: field(value, ids.body),
            word: "function",
            name: Some(field(holder, name)?),
        })
    }

    /// Records a piece: its cut (if it has one), its block when it stays whole, its kind.
    fn piece(
        &mut self,
        range: Range<usize>,
        cut: Option<usize>,
        depth: u8,
        node: Node<'_>,
        whole: bool,
    ) {
        if let Some(pos) = cut {
            self.s.bounds.push(crate::boundary::Boundary {
                pos,
                level: Level::code(depth),
            });
        }
        let (start, end) = (range.start, range.end);
        if whole {
            self.block(range, depth);
        }
        let id = node.kind_id();
        let kind = match self.kind_ids.iter().position(|&k| k == id) {
            Some(i) => i,
            None => {
                self.kind_ids.push(id);
                self.code.kinds.push(node.kind().to_owned());
                self.code.kinds.len() - 1
            }
        };
        self.code.pieces.push(Piece {
            start,
            end,
            depth,
            kind: u16::try_from(kind).unwrap_or(u16::MAX),
        });
    }

    /// Records a node that stays whole when it fits.
    fn block(&mut self, range: Range<usize>, depth: u8) {
        let body = range.start;
        self.s.blocks.push(super::Block {
            range,
            kind: super::BlockKind::Code {
                opener: None,
                body,
                language: self.code.language.map(|l| l.name.to_owned()),
            },
            keep_whole: true,
            nested: depth > 1,
        });
    }

    /// Records a definition as a symbol.
    fn symbol(&mut self, range: Range<usize>, def: Def<'_>) {
        let text = self.text;
        let start = def.node.start_byte();
        let row = def.node.start_position().row;
        let (from, _) = self.lines.cut(row, start);
        let mut to = match def.body {
            Some(body) => body.start_byte(),
            None => self.lines.end(row, text.len()).min(def.node.end_byte()),
        };
        // A comment on a line of its own before the body (Ruby's, Python's) is not part of the signature.
        let mut cursor = def.node.walk();
        let comment = def.node.children(&mut cursor).find(|c| {
            self.kinds.is(*c, kinds::COMMENT) && c.start_position().row > row && c.start_byte() < to
        });
        if let Some(c) = comment {
            to = c.start_byte();
        }
        let to = crate::offsets::floor_char_boundary(text, to.max(from).min(start + MAX_HEADER));
        // (`get`: tree-sitter's offsets are char boundaries of valid UTF-8, but a bad one must not panic.)
        let header = from..from + text.get(from..to).unwrap_or_default().trim_end().len();
        let name = match def.name {
            Some(n) => collapse(text.get(n.start_byte()..n.end_byte()).unwrap_or_default()),
            None => name_of(def.node, text),
        };
        // (Swift's `init` is named `init`.)
        let label = if name.is_empty() || name == def.word {
            def.word.to_owned()
        } else {
            format!("{} {name}", def.word)
        };
        self.code.symbols.push(Symbol {
            range,
            start,
            header,
            depth: 0,
            label,
        });
    }
}

#[cfg(test)]
mod tests;
