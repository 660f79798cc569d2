//! The look-ahead window of greedy mode: its boundaries, emitted level by level, and the size of the chunk that
//! would end at each of them.

use super::{Assembler, Mark};
use crate::boundary::{is_grapheme_boundary, Boundary, Level};
use crate::levels::Source;
use crate::offsets::ceil_char_boundary;

/// Units scanned past the capacity: trailing whitespace that trimming removes, and context for look-ahead rules.
const LOOKAHEAD: usize = 32;

/// How many chunks' worth of text a greedy window holds: its strongest boundaries serve several chunks.
const WINDOW_CHUNKS: f64 = 2.0;

/// The longest run of whitespace (in bytes) a window is stretched over to find the boundary after it.
const MAX_PADDING: usize = 64 * 1024;

/// Windows are sized by the bytes per unit of the ones before, rounded to this fraction of an octave (see
/// [`window_rate`]).
const RATE_STEPS_PER_OCTAVE: f64 = 4.0;

/// The bucket of `bytes_per_unit` that sizes a window: two runs of the engine standing at the same place with rates
/// in the same bucket open the same window, so that from there they cut the same chunks. (A window's end moves the
/// estimates inside a piece it cuts, and so, for a piece longer than a chunk, the chunk's end: runs of a long text
/// joined where they met gave other chunks than one run.)
pub(crate) fn rate_bucket(bytes_per_unit: f64) -> i32 {
    if bytes_per_unit > 0.0 && bytes_per_unit.is_finite() {
        (bytes_per_unit.log2() * RATE_STEPS_PER_OCTAVE).round() as i32
    } else {
        0
    }
}

/// The bytes per unit a window is sized with: those of its bucket (see [`rate_bucket`]).
fn window_rate(bytes_per_unit: f64) -> f64 {
    (f64::from(rate_bucket(bytes_per_unit)) / RATE_STEPS_PER_OCTAVE).exp2()
}

/// The boundaries of one look-ahead window, computed level by level.
#[derive(Debug, Default)]
pub(super) struct Window {
    /// Where the chunk being assembled starts.
    pub(super) start: usize,
    scan_end: usize,
    /// How many of the assembler's levels have been emitted.
    computed: usize,
    bounds: Vec<Boundary>,
    /// Scratch buffer for measuring the marks again.
    tail: Vec<Mark>,
    /// Scratch buffers for one emitter's output and for merging it in.
    pub(super) fresh: Vec<Boundary>,
    merged: Vec<Boundary>,
    /// The candidate ends after `start`, in order.
    pub(super) marks: Vec<Mark>,
    /// Size of the whole window `text[start..scan_end]`.
    units: usize,
    /// Bytes per unit seen in earlier windows, to size the next one.
    bytes_per_unit: f64,
    /// The window is ASCII and the unit counts ASCII bytes: sizes are byte lengths.
    ascii: bool,
    /// Scratch buffers of `measure_estimated`.
    fresh_ends: Vec<usize>,
    sizes: Vec<(usize, bool)>,
    pub(super) sizer_cache: crate::size::SizerCache,
}

impl Window {
    /// An empty window, sized at first for text of `bytes_per_unit` bytes a unit.
    pub(super) fn new(bytes_per_unit: f64) -> Self {
        Window {
            bytes_per_unit,
            ..Window::default()
        }
    }

    /// Bytes per unit seen in the windows so far: the next window is sized from it.
    pub(super) fn bytes_per_unit(&self) -> f64 {
        self.bytes_per_unit
    }

    /// Where the window's scan ends: nothing past it was read (but the context emitters look at).
    pub(super) fn scan_end(&self) -> usize {
        self.scan_end
    }
}

impl Assembler<'_> {
    /// Resets the window to start at `start`, reaching past every end that could fit, and emits the strongest
    /// level. The window's byte length is estimated from the text seen so far; when it turns out to hold too few
    /// units, it doubles and the level is emitted again.
    pub(super) fn open(&self, text: &str, start: usize, win: &mut Window) {
        let want = self.capacity.saturating_add(LOOKAHEAD);
        // A window holds several chunks (see `reuse`).
        let mut len = (want as f64 * window_rate(win.bytes_per_unit) * WINDOW_CHUNKS) as usize + 16;
        let mut padded = false;
        loop {
            let mut end = ceil_char_boundary(text, start.saturating_add(len).min(text.len()));
            if self.trim && ends_in_whitespace(text, end) {
                // The window ends in a run of whitespace (padding, blank lines): trimmed away, it costs nothing, so
                // look past it to the boundary that ends it, unless the run is huge (then the cut falls before it).
                let limit = ceil_char_boundary(text, text.len().min(end + MAX_PADDING));
                match text[end..limit].find(|c: char| !c.is_whitespace()) {
                    Some(run) => end = ceil_char_boundary(text, (end + run + 16).min(text.len())),
                    None if limit == text.len() => end = text.len(),
                    None => {}
                }
                padded = end > start + len;
            }
            win.start = start;
            win.scan_end = end;
            win.ascii = self.sizer.ascii_is_bytes() && text.as_bytes()[start..end].is_ascii();
            win.computed = 0;
            win.bounds.clear();
            win.marks.clear();
            self.ensure(text, win, 0);
            if win.units >= want || end == text.len() {
                break;
            }
            len *= 2;
        }
        if win.units > 0 && !padded {
            win.bytes_per_unit = (win.scan_end - start) as f64 / win.units as f64;
        }
    }

    /// Moves the window's start forward to `start` when the rest of the window still reaches past every end that
    /// could fit: its strongest boundaries stay valid and only their sizes shift. Weaker levels were only emitted
    /// near the old start, so they are dropped, to be emitted again near the new one. False: open a new window.
    pub(super) fn reuse(&self, text: &str, start: usize, win: &mut Window) -> bool {
        if win.computed == 0 || start < win.start || start >= win.scan_end {
            return false;
        }
        if !self.sizer.is_exact_sum() {
            return false; // estimated sizes are not shifted: the window is measured again from the new start
        }
        let kept = win.marks.partition_point(|m| m.pos <= start);
        let (from, from_size) = match kept.checked_sub(1) {
            Some(i) => (win.marks[i].pos, win.marks[i].size),
            None => (win.start, 0),
        };
        let gap = &text[from..start];
        let base = from_size
            + if win.ascii {
                gap.len()
            } else {
                self.sizer.size(gap)
            };
        if win.units - base < self.capacity.saturating_add(LOOKAHEAD) && win.scan_end < text.len() {
            return false;
        }
        win.marks.drain(..kept);
        let dropped = win.bounds.partition_point(|b| b.pos <= start);
        win.bounds.drain(..dropped);
        let keep = self.eager.max(1);
        if win.computed > keep {
            let weakest = self.levels[keep - 1];
            win.bounds.retain(|b| b.level >= weakest);
            win.marks.retain(|m| m.level >= weakest);
            win.computed = keep;
        }
        for m in &mut win.marks {
            m.size -= base;
            if m.trimmed_end <= start {
                (m.trimmed_end, m.trimmed_size) = (start, 0);
            } else {
                m.trimmed_size -= base;
            }
        }
        win.units -= base;
        win.start = start;
        true
    }

    /// Emits the boundaries of levels `0..=li` in the window, if not done yet, and recomputes the marks.
    pub(super) fn ensure(&self, text: &str, win: &mut Window, li: usize) {
        if win.computed > li {
            return;
        }
        // Levels reported by the structure alone cost nothing to emit: they come all at once, measured once.
        let li = if win.computed == 0 {
            li.max(self.eager.max(1) - 1)
        } else {
            li
        };
        let lowest = self.levels[li];
        let above = win.computed.checked_sub(1).map(|i| self.levels[i]);
        let (start, mut scan_end) = (win.start, win.scan_end);
        if win.computed > 0 {
            // Below the strongest level, emit only as far as a chunk could reach: past the first boundary whose
            // size is beyond it, there is nothing a weaker cut could do.
            let reach = self.capacity.saturating_add(LOOKAHEAD);
            let past = win.marks.partition_point(|m| m.size < reach);
            scan_end = match win.marks.get(past) {
                Some(m) => m.pos,
                None => self.reach_by_probes(text, win, reach),
            };
            if self.sizer.adds_per_char() && self.sizer.ascii_is_bytes() {
                // In a long paragraph that boundary can be chunks away. No chunk ends past the first content after
                // `capacity` units (it would hold that content), so the scan stops at the first line break after
                // it: no emitter reads context across a line break it has not reached.
                let over = self.sizer.advance(text, start, self.capacity).min(scan_end);
                let rest = &text[over..scan_end];
                let content = over + leading_whitespace(rest);
                if let Some(nl) = memchr::memchr(b'\n', &text.as_bytes()[content..scan_end]) {
                    scan_end = content + nl + 1;
                }
            }
        }
        let keep = |pos: usize| pos > start && (pos < scan_end || scan_end == text.len());
        for (source, level, _) in self.emitters {
            if *level < lowest || above.is_some_and(|a| *level >= a) {
                continue;
            }
            // Each source's output is sorted: merge it into the sorted bounds rather than sort them again.
            // A boundary at the edge of a window that stops short of the text end is an artefact of the window.
            self.emit_source(
                text,
                source,
                *level,
                (start, scan_end),
                &mut win.fresh,
                keep,
            );
            if win.bounds.is_empty() {
                // The first source of the window: its sorted output is the bounds, one per position.
                std::mem::swap(&mut win.bounds, &mut win.fresh);
                win.bounds.dedup_by(|next, kept| {
                    let same = next.pos == kept.pos;
                    if same {
                        kept.level = kept.level.max(next.level);
                    }
                    same
                });
            } else {
                merge_max(&win.bounds, &win.fresh, &mut win.merged);
                std::mem::swap(&mut win.bounds, &mut win.merged);
            }
        }
        if win.computed == 0 && scan_end == text.len() && start < scan_end {
            win.bounds.retain(|b| b.pos != scan_end);
            win.bounds.push(Boundary {
                pos: scan_end,
                level: Level::END,
            });
        }
        win.computed = li + 1;
        self.measure(text, win, scan_end);
    }

    /// Where a weaker level's scan may stop when the stronger levels left no boundary past `reach` units (a run with
    /// no space, a long word): the first of 32 evenly spaced positions between the last boundary and the window's
    /// end whose size is `reach` or more, or the window's end. Sizes that add up do not get here ([`Sizer::advance`]
    /// bounds their scan); in tokens, the window's pieces are counted already, and the probes cost one pass over
    /// them. Without this, the grapheme boundaries of a run were emitted and measured over the whole window, twice
    /// what a chunk can reach.
    fn reach_by_probes(&self, text: &str, win: &mut Window, reach: usize) -> usize {
        const PROBES: usize = 32;
        let (start, end) = (win.start, win.scan_end);
        if self.sizer.is_exact_sum() || end == text.len() {
            return end;
        }
        let from = win.marks.last().map_or(start, |m| m.pos);
        let mut probes = std::mem::take(&mut win.fresh_ends);
        probes.clear();
        probes.extend(
            (1..PROBES).map(|i| ceil_char_boundary(text, from + (end - from) * i / PROBES)),
        );
        probes.push(end);
        probes.dedup();
        let mut sizes = std::mem::take(&mut win.sizes);
        self.sizer
            .prefix_sizes(text, start, &probes, &mut sizes, &mut win.sizer_cache);
        // Sizes in tokens grow with the position, so no boundary past the probe is within reach either.
        let at = sizes
            .iter()
            .zip(&probes)
            .find(|(s, _)| s.0 >= reach)
            .map_or(end, |(_, &p)| p);
        win.fresh_ends = probes;
        win.sizes = sizes;
        at
    }

    /// The cuts `source` reports at `level` in `text[from..to]` that a chunk may end on, in order, into `out`
    /// (cleared first): those the structure lets stand, at grapheme boundaries, and at positions `keep` takes.
    pub(super) fn emit_source(
        &self,
        text: &str,
        source: &Source,
        level: Level,
        (from, to): (usize, usize),
        out: &mut Vec<Boundary>,
        keep: impl Fn(usize) -> bool,
    ) {
        out.clear();
        match (source, self.structure) {
            (Source::Emitter(emitter), _) => {
                emitter.emit(self.source(text, emitter), from, to, level, out)
            }
            (Source::Structure, Some(s)) => s.emit(from, to, level, out),
            (Source::Structure, None) => {}
        }
        if let Some(s) = self.structure {
            // Graphemes are the floor: a chunk that nothing else fits in may still end between two of them.
            s.filter(out, source);
        }
        let safe = source.grapheme_safe();
        out.retain(|b| keep(b.pos) && (safe || is_grapheme_boundary(text, b.pos)));
    }

    /// Computes the size of the chunk ending at each boundary of the window, in one pass.
    /// Marks past `upto` are kept as they are: only boundaries up to it were added.
    fn measure(&self, text: &str, win: &mut Window, upto: usize) {
        if !self.sizer.is_exact_sum() {
            self.measure_estimated(text, win);
            return;
        }
        let whole = upto >= win.scan_end;
        let ascii = win.ascii;
        let per_char = ascii || (self.sizer.adds_per_char() && self.sizer.ascii_is_bytes());
        let size_of = |s: &str| if ascii { s.len() } else { self.sizer.size(s) };
        let Window {
            bounds,
            marks: old,
            tail: marks,
            ..
        } = win;
        // The marks up to `upto` are rebuilt in the order of the bounds. When sizes add up per char, a mark already
        // measured keeps its sizes (they do not depend on the boundaries before it): only the pieces that end at
        // new boundaries are counted.
        let past = old.partition_point(|m| m.pos <= upto);
        let mut known = old[..past].iter().filter(|_| per_char).peekable();
        marks.clear();
        let (mut prev, mut size) = (win.start, 0);
        let (mut trimmed_end, mut trimmed_size) = (win.start, 0);
        for b in bounds.iter().take_while(|b| whole || b.pos <= upto) {
            while known.next_if(|m| m.pos < b.pos).is_some() {}
            if let Some(m) = known.next_if(|m| m.pos == b.pos) {
                (size, trimmed_end, trimmed_size) = (m.size, m.trimmed_end, m.trimmed_size);
                marks.push(Mark {
                    level: b.level,
                    ..*m
                });
                prev = b.pos;
                continue;
            }
            let seg = &text[prev..b.pos];
            if per_char {
                let (units, content, blank) = self.piece(seg, ascii);
                if content > 0 {
                    trimmed_size = size + units - blank;
                    trimmed_end = prev + content;
                }
                size += units;
            } else {
                let content = seg.trim_end();
                if content.is_empty() {
                    size += size_of(seg);
                } else {
                    trimmed_size = size + size_of(content);
                    trimmed_end = prev + content.len();
                    size = trimmed_size + size_of(&seg[content.len()..]);
                }
            }
            marks.push(Mark {
                pos: b.pos,
                level: b.level,
                size,
                trimmed_end,
                trimmed_size,
                exact: true,
            });
            prev = b.pos;
        }
        if whole {
            win.units = size + size_of(&text[prev..win.scan_end]);
        } else {
            marks.extend_from_slice(&old[past..]);
        }
        std::mem::swap(&mut win.marks, &mut win.tail);
    }

    /// For units that add up per char: the size of `seg`, the length of its content (trailing whitespace left out)
    /// and the size of that whitespace. One count of the piece, less its trailing whitespace. `ascii`: the piece is
    /// known to be ASCII.
    #[inline]
    pub(super) fn piece(&self, seg: &str, ascii: bool) -> (usize, usize, usize) {
        let units = if ascii {
            seg.len()
        } else {
            self.sizer.size(seg)
        };
        let content = content_len(seg);
        let tail = &seg[content..];
        let blank = if tail.is_ascii() {
            tail.len()
        } else {
            self.sizer.size(tail)
        };
        (units, content, blank)
    }

    /// `measure` for units that do not add up (tokens): every mark's sizes come from one call of
    /// [`Sizer::prefix_sizes`] over the window, which counts the window's pieces once.
    fn measure_estimated(&self, text: &str, win: &mut Window) {
        let start = win.start;
        let mut ends = std::mem::take(&mut win.fresh_ends);
        ends.clear();
        let mut prev = start;
        let mut content_ends = Vec::with_capacity(win.bounds.len());
        let mut trimmed_end = start;
        for b in &win.bounds {
            let content = text[prev..b.pos].trim_end();
            if !content.is_empty() {
                trimmed_end = prev + content.len();
            }
            content_ends.push(trimmed_end);
            ends.push(trimmed_end);
            ends.push(b.pos);
            prev = b.pos;
        }
        ends.push(win.scan_end);
        let mut sizes = std::mem::take(&mut win.sizes);
        self.sizer
            .prefix_sizes(text, start, &ends, &mut sizes, &mut win.sizer_cache);
        win.marks.clear();
        for (i, b) in win.bounds.iter().enumerate() {
            let ((trimmed_size, trimmed_exact), (size, exact)) = (sizes[2 * i], sizes[2 * i + 1]);
            win.marks.push(Mark {
                pos: b.pos,
                level: b.level,
                size,
                trimmed_end: content_ends[i],
                trimmed_size,
                exact: if self.trim { trimmed_exact } else { exact },
            });
        }
        win.units = sizes.last().map_or(0, |s| s.0);
        win.fresh_ends = ends;
        win.sizes = sizes;
    }
}

/// Merges two sorted boundary lists into `out`, one boundary per position, at the higher level of the two.
fn merge_max(a: &[Boundary], b: &[Boundary], out: &mut Vec<Boundary>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.pos == y.pos => {
                i += 1;
                j += 1;
                Boundary {
                    pos: x.pos,
                    level: x.level.max(y.level),
                }
            }
            (Some(x), Some(y)) if x.pos < y.pos => {
                i += 1;
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => unreachable!("loop condition"),
        };
        match out.last_mut() {
            Some(last) if last.pos == next.pos => last.level = last.level.max(next.level),
            _ => out.push(next),
        }
    }
}

/// The length of `seg` less its trailing whitespace: ASCII first, Unicode spaces (U+3000, NBSP) only when a non-ASCII
/// byte ends what is left.
#[inline]
pub(super) fn content_len(seg: &str) -> usize {
    let content = trim_ascii_end(seg).len();
    let bytes = seg.as_bytes();
    if content > 0 && bytes[content - 1] >= 0x80 && ends_in_wide_space(&bytes[..content]) {
        return seg[..content].trim_end().len();
    }
    content
}

/// The length of the whitespace that starts `s`. Most text starts with content: a byte that no whitespace char
/// starts with answers at once (Unicode spaces start with C2, E1, E2 or E3).
#[inline]
pub(super) fn leading_whitespace(s: &str) -> usize {
    match s.as_bytes().first() {
        Some(&b) if (b > b' ' && b < 0x80) || (b >= 0x80 && !matches!(b, 0xC2 | 0xE1..=0xE3)) => 0,
        _ => s.len() - s.trim_start().len(),
    }
}

/// `s` without trailing ASCII whitespace, as `str::trim_end` would strip it (vertical tab included).
#[inline]
fn trim_ascii_end(s: &str) -> &str {
    let kept = s
        .bytes()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .map_or(0, |i| i + 1);
    &s[..kept]
}

/// Whether `bytes` may end in a non-ASCII whitespace char (NEL, NBSP, U+1680, U+2000 to U+200A, LS, PS, U+202F,
/// U+205F, U+3000): only then is `str::trim_end` needed after the ASCII trim. Most non-ASCII text ends in a letter
/// or punctuation whose last bytes rule it out.
#[inline]
fn ends_in_wide_space(bytes: &[u8]) -> bool {
    matches!(
        bytes,
        [.., 0xC2, 0x85 | 0xA0]
            | [.., 0xE1, 0x9A, 0x80]
            | [.., 0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF]
            | [.., 0xE2, 0x81, 0x9F]
            | [.., 0xE3, 0x80, 0x80]
    )
}

/// Whether a window ending at `end` (short of the text end) stops inside a run of whitespace.
fn ends_in_whitespace(text: &str, end: usize) -> bool {
    end < text.len()
        && text[end..].chars().next().is_some_and(char::is_whitespace)
        && text[..end]
            .chars()
            .next_back()
            .is_some_and(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_spaces_are_every_non_ascii_whitespace() {
        for c in ('\u{80}'..=char::MAX).filter(|c| !c.is_ascii()) {
            let mut buf = [0u8; 4];
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(ends_in_wide_space(bytes), c.is_whitespace(), "{c:?}");
            assert_eq!(
                ends_in_wide_space(format!("中{c}").as_bytes()),
                c.is_whitespace(),
                "{c:?}"
            );
        }
    }
}
