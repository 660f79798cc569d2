//! The description of a chunk of code: the symbols around its start (its symbol path) and the signatures it needs
//! to be read alone (its context).

use super::{Code, CodeSpan, SYNTAX_ERROR, UNKNOWN_LANGUAGE};
use crate::size::Sizer;
use crate::structure::describe::{join, shorten_text, ChunkType, Context, Description, SpanInfo};
use crate::structure::Heading;

impl Code {
    /// The symbols around `pos`, outermost first. The innermost is the last one starting at or before `pos`, or the
    /// nearest of its ancestors that reaches past `pos`.
    pub(in crate::structure) fn path_at(&self, pos: usize) -> Vec<usize> {
        let upto = self.symbols.partition_point(|y| y.range.start <= pos);
        let mut inner = upto.checked_sub(1);
        while let Some(i) = inner.filter(|&i| self.symbols[i].range.end <= pos) {
            inner = self.parents[i];
        }
        let mut path: Vec<usize> = std::iter::successors(inner, |&i| self.parents[i]).collect();
        path.reverse();
        path
    }

    /// The symbols of `path` that a chunk starting at `start` starts inside (not those it starts with), outermost
    /// first.
    pub(in crate::structure) fn inside(&self, start: usize, path: &[usize]) -> Vec<usize> {
        path.iter()
            .copied()
            .filter(|&i| self.symbols[i].start < start)
            .collect()
    }

    /// The signatures of `symbols`, in order.
    pub(in crate::structure) fn signatures<'t>(
        &self,
        text: &'t str,
        symbols: &[usize],
    ) -> Vec<&'t str> {
        symbols
            .iter()
            .map(|&i| text.get(self.symbols[i].header.clone()).unwrap_or_default())
            .collect()
    }

    /// The context of a chunk starting at `start` inside the symbols `path`: the signatures of those it starts
    /// inside (not those it starts with), outermost first, one a line. With a `budget`, outer signatures are left
    /// out, then the innermost is shortened, until it fits.
    pub(in crate::structure) fn context(
        &self,
        text: &str,
        start: usize,
        path: &[usize],
        budget: Option<(&dyn Sizer, usize)>,
    ) -> Context {
        let shown = self.signatures(text, &self.inside(start, path));
        let render = |skip: usize| shown[skip..].join("\n");
        let full = render(0);
        let Some((sizer, limit)) = budget else {
            return Context::whole(full, !shown.is_empty());
        };
        let fits = |s: &str| s.is_empty() || sizer.size(s) + sizer.size(join(true)) <= limit;
        if fits(&full) {
            return Context::whole(full, !shown.is_empty());
        }
        for skip in 1..shown.len() {
            let out = render(skip);
            if fits(&out) {
                return Context::shortened(out, true);
            }
        }
        match shown.last().and_then(|s| shorten_text(s, fits)) {
            Some(t) => Context::shortened(t, true),
            None => Context::shortened(String::new(), false),
        }
    }

    /// What each span learns: symbol path (as the description's headings), context, lines, node types.
    pub(in crate::structure) fn describe(
        &self,
        text: &str,
        spans: &[crate::Span],
        budget: Option<(&dyn Sizer, usize)>,
    ) -> Description {
        let headings = self.symbol_headings().collect();
        let line = line_numbers(text);
        let language = Some(self.language.map(|l| l.name.to_owned()));
        let chunks = spans
            .iter()
            .map(|span| {
                let path = self.path_at(span.start);
                let Context {
                    text: context,
                    inline,
                    shortened,
                } = self.context(text, span.start, &path, budget);
                SpanInfo {
                    path,
                    context,
                    inline_join: inline,
                    context_shortened: shortened,
                    kind: ChunkType::Code,
                    rows: None,
                    language: language.clone(),
                    embedding: None,
                    code: Some(self.span(span.start, span.end, &line)),
                }
            })
            .collect();
        Description { headings, chunks }
    }

    /// The symbols as the headings of a description (their labels the titles, their depths the depths).
    pub(in crate::structure) fn symbol_headings(&self) -> impl Iterator<Item = Heading> + '_ {
        self.symbols.iter().map(|y| Heading {
            start: y.range.start,
            content: y.start,
            end: y.header.end,
            depth: u8::try_from(y.depth).unwrap_or(u8::MAX),
            title: y.label.clone(),
        })
    }

    /// What a chunk from `start` to `end` learns besides its symbol path and context: its lines (`line`: the line
    /// of a position), its node types, and why it was cut at lines, if it was.
    pub(in crate::structure) fn span(
        &self,
        start: usize,
        end: usize,
        line: &impl Fn(usize) -> usize,
    ) -> CodeSpan {
        let overlaps_error = {
            let i = self.errors.partition_point(|r| r.end <= start);
            self.errors.get(i).is_some_and(|r| r.start < end)
        };
        let note = match self.language {
            None => Some(self.fallback.unwrap_or(UNKNOWN_LANGUAGE)),
            Some(_) if overlaps_error => Some(SYNTAX_ERROR),
            Some(_) => None,
        };
        CodeSpan {
            lines: (line(start), line(end.max(start + 1) - 1)),
            node_types: self.node_types(start, end),
            note,
            symbols: None,
        }
    }

    /// The kinds of the outermost pieces that start in `start..end`, in order, once each; else the kind of the
    /// innermost piece around `start` among the nearest ones before it.
    fn node_types(&self, start: usize, end: usize) -> Vec<String> {
        let first = self.pieces.partition_point(|p| p.start < start);
        let inside = &self.pieces[first..self.pieces.partition_point(|p| p.start < end)];
        let mut out: Vec<String> = Vec::new();
        if let Some(top) = inside.iter().map(|p| p.depth).min() {
            for p in inside.iter().filter(|p| p.depth == top) {
                if let Some(kind) = self.kinds.get(usize::from(p.kind)) {
                    if !out.contains(kind) {
                        out.push(kind.clone());
                    }
                }
            }
            return out;
        }
        // None starts here: the innermost around the start, looked for among the nearest pieces before it (a
        // piece far back holding the start is an outer one).
        let around = self.pieces[..first]
            .iter()
            .rev()
            .take(256)
            .filter(|p| p.end > start)
            .max_by_key(|p| p.depth);
        out.extend(
            around
                .and_then(|p| self.kinds.get(usize::from(p.kind)))
                .cloned(),
        );
        out
    }
}

/// The line (1-based, lines end at "\n") of a position of `text`.
pub(in crate::structure) fn line_numbers(text: &str) -> impl Fn(usize) -> usize {
    let newlines: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
    move |pos: usize| newlines.partition_point(|&n| n < pos) + 1
}
