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
        let shown: Vec<&str> = path
            .iter()
            .map(|&i| &self.symbols[i])
            .filter(|y| y.start < start)
            .map(|y| text.get(y.header.clone()).unwrap_or_default())
            .collect();
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
        let headings = self
            .symbols
            .iter()
            .map(|y| Heading {
                start: y.range.start,
                content: y.start,
                end: y.header.end,
                depth: u8::try_from(y.depth).unwrap_or(u8::MAX),
                title: y.label.clone(),
            })
            .collect();
        let newlines: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
        let line = |pos: usize| newlines.partition_point(|&n| n < pos) + 1;
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
                let overlaps_error = {
                    let i = self.errors.partition_point(|r| r.end <= span.start);
                    self.errors.get(i).is_some_and(|r| r.start < span.end)
                };
                let note = match self.language {
                    None => Some(UNKNOWN_LANGUAGE),
                    Some(_) if overlaps_error => Some(SYNTAX_ERROR),
                    Some(_) => None,
                };
                SpanInfo {
                    path,
                    context,
                    inline_join: inline,
                    context_shortened: shortened,
                    kind: ChunkType::Code,
                    rows: None,
                    language: language.clone(),
                    embedding: None,
                    code: Some(CodeSpan {
                        lines: (line(span.start), line(span.end.max(span.start + 1) - 1)),
                        node_types: self.node_types(span.start, span.end),
                        note,
                    }),
                }
            })
            .collect();
        Description { headings, chunks }
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
