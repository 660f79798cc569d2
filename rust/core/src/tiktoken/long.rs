//! Long pieces: their token ends kept, so that a prefix, a suffix or a longer version of a piece is encoded from them
//! instead of being merged again byte by byte.
//!
//! A run without spaces (one long word, a character repeated) is one piece of the pre-tokenizer however long it is.
//! A chunker measures many prefixes of it, and the next window measures it again from where the last chunk ended: a
//! merge each time, of a piece as long as the window. Two facts of tiktoken's merge (the adjacent parts whose join
//! has the lowest rank are joined first, the leftmost of equals) let the token ends of one merge answer for the
//! others, exactly:
//!
//! 1. Where the merge of a text ends a token, it merges the text on each side as it would merge that side alone:
//!    the tokens up to the end are the encoding of the text up to it, and the tokens after it that of the rest. (A
//!    join inside one side is chosen before a join inside the other side or across the end only by its rank and
//!    position, which are the same in the side alone; a join across the end is never chosen.) So any run of whole
//!    tokens of an encoding is the encoding of its bytes.
//! 2. If the encoding of `A + M` ends with the token `M` and that of `M + C` starts with it, the encoding of
//!    `A + M + C` is the first followed by the second less `M`. (Until a join across one of the two ends of `M`,
//!    `A`, `M` and `C` are each merged as alone; the first such join would have the lowest rank, the leftmost of
//!    equals, among the joins of `A + M` or of `M + C` at a state that merge of two goes through, and it never joins
//!    across there.)
//!
//! The BPE crate (github.com/github/rust-gems, crates/bpe) states both for its own definition of BPE; they are
//! proved here for tiktoken's, and checked against fresh merges and `encode_ordinary` in the tests below.
//!
//! So an encoding of `text[s..z]` gives, for `x` and `y` inside it: by 1, the encoding of `text[x..y]` when both
//! end tokens of it; by 2, the encoding of `text[x..y]` for any `y` (even past `z`) from a short merge of
//! `text[b..y]`, `b` a few tokens before `min(y, z)`, when that merge starts with the token of the old encoding
//! that starts at `b`; and, mirrored, for an `x` inside a token from a short merge ending a few tokens after it.
//! When a check fails (the merge of a text far past the cut changed more than a few tokens before it), the piece
//! is merged whole.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tiktoken_rs::Rank;

use super::{pieces, Encoding, START_BITS};

/// How many tokens before a cut a short merge starts (and, when its check fails, the second try).
const REMERGED: [usize; 2] = [4, 32];

/// Spans of one text counted with their token ends kept (see the module docs), to count others from.
#[derive(Debug, Default)]
pub(crate) struct Merged {
    /// By start; they do not overlap.
    spans: Vec<Span>,
}

/// A span counted piece by piece: the pre-tokenizer's pieces, and the ends of their tokens.
#[derive(Debug)]
struct Span {
    start: usize,
    end: usize,
    /// Each piece as (start, end, index in `ends` of its first token end).
    pieces: Vec<(usize, usize, usize)>,
    /// The end of every token, ascending, in absolute byte offsets: the last is `end`.
    ends: Vec<usize>,
}

impl Merged {
    /// Whether a span of the text starting at `at` would be counted from what is kept: `at` lies in a kept piece.
    pub(crate) fn knows(&self, at: usize) -> bool {
        self.piece_at(at).is_some()
    }

    /// The token ends of the kept span that starts at `start`, ascending (the last is its end).
    pub(crate) fn span_ends(&self, start: usize) -> Option<&[usize]> {
        let i = self.spans.binary_search_by_key(&start, |s| s.start).ok()?;
        Some(&self.spans[i].ends)
    }

    /// Moves the span that starts at `start` and ends at `end`, if kept, to `to`.
    pub(crate) fn move_span(&mut self, start: usize, end: usize, to: &mut Merged) {
        if let Ok(i) = self.spans.binary_search_by_key(&start, |s| s.start) {
            if self.spans[i].end == end {
                to.insert(self.spans.remove(i));
            }
        }
    }

    fn insert(&mut self, span: Span) {
        match self.spans.binary_search_by_key(&span.start, |s| s.start) {
            Ok(i) => self.spans[i] = span,
            Err(i) => self.spans.insert(i, span),
        }
    }

    /// The kept piece that holds byte `x`: its start, end and token ends.
    fn piece_at(&self, x: usize) -> Option<(usize, usize, &[usize])> {
        let span = &self.spans[self
            .spans
            .partition_point(|s| s.start <= x)
            .checked_sub(1)?];
        if x >= span.end {
            return None;
        }
        let j = span.pieces.partition_point(|p| p.0 <= x).checked_sub(1)?;
        let (s, z, first) = span.pieces[j];
        let last = span.pieces.get(j + 1).map_or(span.ends.len(), |p| p.2);
        Some((s, z, &span.ends[first..last]))
    }
}

impl Encoding {
    /// The number of tokens of `text[a..b]` (what [`Encoding::count`] gives), each of its pieces encoded from what
    /// `known` holds of it when it can be; with `keep`, the span is kept there with its token ends.
    pub(crate) fn count_span(
        &self,
        text: &str,
        (a, b): (usize, usize),
        known: &Merged,
        keep: Option<&mut Merged>,
    ) -> usize {
        let mut span = Span {
            start: a,
            end: b,
            pieces: Vec::new(),
            ends: Vec::new(),
        };
        let base = text.as_ptr() as usize;
        pieces::for_each_piece(self.pattern, &text[a..b], |piece| {
            let x = piece.as_ptr() as usize - base;
            let y = x + piece.len();
            span.pieces.push((x, y, span.ends.len()));
            self.encode_piece(text.as_bytes(), (x, y), known, &mut span.ends);
        });
        let n = span.ends.len();
        if let Some(keep) = keep {
            keep.insert(span);
        }
        n
    }

    /// Pushes the token ends of the piece `bytes[x..y]` onto `out`.
    fn encode_piece(
        &self,
        bytes: &[u8],
        (x, y): (usize, usize),
        known: &Merged,
        out: &mut Vec<usize>,
    ) {
        let piece = &bytes[x..y];
        // A piece that is a token is one, as in `piece_count` (and in tiktoken), whatever merging it would give.
        if piece.len() == 1 || self.rank(piece) != Rank::MAX {
            out.push(y);
            return;
        }
        if let Some(old) = known.piece_at(x) {
            if self.splice(bytes, (x, y), old, &REMERGED, out) {
                return;
            }
        }
        self.merge_heap(piece, Some((out, x)));
    }

    /// The token ends of `bytes[x..y]` from `e`, the token ends of the merge of `bytes[s..z]` (`s <= x < z`),
    /// pushed onto `out` (see the module docs); false, with nothing pushed, when a check fails. Short merges start
    /// (or end) `backs` tokens away from a cut, in turn until one passes its check.
    fn splice(
        &self,
        bytes: &[u8],
        (x, y): (usize, usize),
        (s, z, e): (usize, usize, &[usize]),
        backs: &[usize],
        out: &mut Vec<usize>,
    ) -> bool {
        // The ends of `bytes[x..z]`: `head` (merged here when `x` lies inside a token), then `e[from..]`.
        let mut head = Vec::new();
        let from = if x == s {
            0
        } else {
            match e.binary_search(&x) {
                Ok(i) => i + 1,
                Err(j) => {
                    // `x` lies inside the token that ends at `e[j]`: merge `bytes[x..e[k]]`; when its last token is
                    // the old one ending at `e[k]`, the old tokens after it follow (fact 2).
                    let mut found = None;
                    for &back in backs {
                        let k = j + back;
                        if k >= e.len() {
                            break;
                        }
                        head.clear();
                        self.merge_heap(&bytes[x..e[k]], Some((&mut head, x)));
                        if head.len() >= 2 && head[head.len() - 2] == e[k - 1] {
                            found = Some(k + 1);
                            break;
                        }
                    }
                    let Some(from) = found else {
                        return false;
                    };
                    from
                }
            }
        };
        let left = Ends {
            head: &head,
            tail: &e[from..],
        };
        if y == z {
            left.push_to(left.len(), out);
            return true;
        }
        let lim = y.min(z);
        let c = left.count_below(lim);
        if y < z && c < left.len() && left.get(c) == y {
            left.push_to(c + 1, out); // fact 1
            return true;
        }
        // Merge from a few tokens before `lim` to `y`: when it starts with the old token that starts there, the
        // encoding of `bytes[x..y]` is the old tokens up to it, then the new ones (fact 2).
        let mut tail = Vec::new();
        for &back in backs {
            let Some(m) = c.checked_sub(back).filter(|&m| m > 0) else {
                break;
            };
            let at = left.get(m - 1);
            tail.clear();
            self.merge_heap(&bytes[at..y], Some((&mut tail, at)));
            if tail[0] == left.get(m) {
                left.push_to(m + 1, out);
                out.extend_from_slice(&tail[1..]);
                return true;
            }
        }
        false
    }

    /// Byte-pair merges of `piece` (two bytes or more; see [`Encoding::merge_small`]) with the parts in a linked
    /// list over their start bytes and candidate joins in a min-heap by (rank, start), stale ones skipped when
    /// popped: the number of tokens, and with `ends` = (out, base), the end of each token plus `base` pushed onto
    /// `out`.
    pub(super) fn merge_heap(&self, piece: &[u8], ends: Option<(&mut Vec<usize>, usize)>) -> usize {
        let n = piece.len();
        debug_assert!(n < 1 << START_BITS, "pieces are shorter than 1 TiB");
        if n < 2 {
            if let Some((out, base)) = ends {
                out.extend((n == 1).then_some(base + 1));
            }
            return n;
        }
        // `next[i]`: the start of the part after the one at i (n for the last); `prev[i]`: the one before.
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        // `pair[i]`: the rank of the part at i joined with the next; MAX if none, or if i no longer starts a part.
        let mut pair = vec![Rank::MAX; n];
        // Candidates as `rank << START_BITS | start`: the lowest rank first, then the leftmost.
        let candidate =
            |rank: Rank, start: usize| Reverse((u64::from(rank) << START_BITS) | start as u64);
        let mut first = Vec::with_capacity(2 * n);
        for i in 0..n - 1 {
            pair[i] = self.rank(&piece[i..i + 2]);
            if pair[i] != Rank::MAX {
                first.push(candidate(pair[i], i));
            }
        }
        let mut heap = BinaryHeap::from(first);
        let mut parts = n;
        while let Some(Reverse(top)) = heap.pop() {
            let (rank, i) = (
                (top >> START_BITS) as Rank,
                (top & ((1 << START_BITS) - 1)) as usize,
            );
            if pair[i] != rank {
                continue;
            }
            let gone = next[i];
            let after = next[gone];
            next[i] = after;
            if after < n {
                prev[after] = i;
            }
            pair[gone] = Rank::MAX;
            parts -= 1;
            // A pair's end only moves right, so a rank never comes back to a start: equal means current.
            pair[i] = if after < n {
                self.rank(&piece[i..next[after]])
            } else {
                Rank::MAX
            };
            if pair[i] != Rank::MAX {
                heap.push(candidate(pair[i], i));
            }
            if i > 0 {
                let before = prev[i];
                pair[before] = self.rank(&piece[before..after]);
                if pair[before] != Rank::MAX {
                    heap.push(candidate(pair[before], before));
                }
            }
        }
        if let Some((out, base)) = ends {
            let mut i = 0;
            while i < n {
                i = next[i];
                out.push(base + i);
            }
        }
        parts
    }
}

/// Token ends in two slices, read as one.
struct Ends<'a> {
    head: &'a [usize],
    tail: &'a [usize],
}

impl Ends<'_> {
    fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    fn get(&self, i: usize) -> usize {
        match i.checked_sub(self.head.len()) {
            None => self.head[i],
            Some(j) => self.tail[j],
        }
    }

    /// How many ends lie before `p`.
    fn count_below(&self, p: usize) -> usize {
        match self.head.partition_point(|&e| e < p) {
            n if n < self.head.len() => n,
            n => n + self.tail.partition_point(|&e| e < p),
        }
    }

    /// Pushes the first `n` ends onto `out`.
    fn push_to(&self, n: usize, out: &mut Vec<usize>) {
        let h = n.min(self.head.len());
        out.extend_from_slice(&self.head[..h]);
        out.extend_from_slice(&self.tail[..n - h]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 4] = ["cl100k_base", "o200k_base", "r50k_base", "p50k_base"];

    /// The token ends of one fresh merge of each piece of `text[a..b]`.
    fn fresh(enc: &Encoding, text: &str, a: usize, b: usize) -> Vec<usize> {
        let mut kept = Merged::default();
        enc.count_span(text, (a, b), &Merged::default(), Some(&mut kept));
        kept.spans.pop().map(|s| s.ends).unwrap_or_default()
    }

    /// Runs without spaces that the merge changes in different ways: letters, one letter, digits, CJK (tokens end
    /// inside characters), punctuation, and a mix.
    fn runs() -> Vec<String> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let random: String = (0..3000)
            .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz"[(next() % 26) as usize]))
            .collect();
        let mixed: String = (0..1500)
            .map(|_| ["ab", "a", "b", "ba", "abc", "x"][(next() % 6) as usize])
            .collect();
        vec![
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(60),
            "a".repeat(3000),
            random,
            mixed,
            "1234567890".repeat(200),
            "中文的句子還有日本語のテキスト한국어".repeat(60),
            "!\"#$%&'()*+,-./:;<=>?@[]^_{|}~".repeat(80),
            "Hello, wörld! It's 12345 'n' ok... 中文。".repeat(40),
            "xyzzy".repeat(600),
            format!("{} {}", "xyzzy".repeat(300), "-".repeat(1000)),
        ]
    }

    /// Every way a span is counted from a kept one (prefixes, suffixes, spans past its end, starts inside tokens)
    /// gives the ends of a fresh merge, and the count of `encode_ordinary`.
    #[test]
    fn spans_counted_from_kept_ones_are_fresh_merges() {
        let mut spliced = 0;
        for name in NAMES {
            let enc = Encoding::named(name).unwrap();
            let bpe = super::super::registry::BuiltIn::named("encoding", name)
                .unwrap()
                .ranks();
            for text in runs() {
                let bounds: Vec<usize> = (0..=text.len())
                    .filter(|&i| text.is_char_boundary(i))
                    .collect();
                let at = |f: f64| bounds[((bounds.len() - 1) as f64 * f) as usize];
                let mut known = Merged::default();
                enc.count_span(&text, (0, at(0.5)), &Merged::default(), Some(&mut known));
                let ends = known.spans[0].ends.clone();
                // Starts at the kept span's start, at its token ends and inside its tokens; ends before, at and past
                // its end.
                let mut starts = vec![0, at(0.1), at(0.13), at(0.27), at(0.49)];
                starts.extend(
                    ends.iter()
                        .copied()
                        .filter(|e| text.is_char_boundary(*e))
                        .step_by(17),
                );
                let stops = [at(0.2), at(0.3), at(0.5), at(0.51), at(0.75), at(1.0)];
                for &a in &starts {
                    for &b in stops.iter().filter(|&&b| b > a) {
                        let mut out = Merged::default();
                        let n = enc.count_span(&text, (a, b), &known, Some(&mut out));
                        let got = &out.spans[0].ends;
                        assert_eq!(
                            got,
                            &fresh(enc, &text, a, b),
                            "{name} {a}..{b} of {:?}",
                            &text[..20]
                        );
                        assert_eq!(n, bpe.encode_ordinary(&text[a..b]).len(), "{name} {a}..{b}");
                        spliced += usize::from(known.knows(a));
                    }
                }
            }
        }
        assert!(spliced > 1000, "{spliced}");
    }

    /// Splicing is used (and checked) where it pays: a merge of a few tokens rather than of the whole span.
    #[test]
    fn a_longer_span_merges_only_what_is_new() {
        let enc = Encoding::named("cl100k_base").unwrap();
        let text = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(400);
        let mut known = Merged::default();
        enc.count_span(&text, (0, 10_000), &Merged::default(), Some(&mut known));
        let (s, z, e) = known.piece_at(5000).unwrap();
        assert_eq!((s, z), (0, 10_000));
        let mut out = Vec::new();
        // From a token end inside the kept span to past its end, and from inside a token.
        let x = e[e.len() / 2];
        assert!(enc.splice(text.as_bytes(), (x, 15_000), (s, z, e), &REMERGED, &mut out));
        out.clear();
        assert!(enc.splice(
            text.as_bytes(),
            (x + 1, 15_000),
            (s, z, e),
            &REMERGED,
            &mut out
        ));
        assert_eq!(out, fresh(enc, &text, x + 1, 15_000));
    }

    /// Short merges from one token away from a cut: the merge past the cut often changes that token, the check
    /// says so, and a spliced encoding is a fresh merge's whenever it passes.
    #[test]
    fn splices_that_fail_their_check_are_not_taken() {
        let enc = Encoding::named("cl100k_base").unwrap();
        let (mut taken, mut refused) = (0, 0);
        for text in runs() {
            let bytes = text.as_bytes();
            let mut known = Merged::default();
            let half = (0..=text.len() / 2)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap();
            enc.count_span(&text, (0, half), &Merged::default(), Some(&mut known));
            for span in &known.spans {
                for &(s, z, first) in &span.pieces {
                    let last = span.ends.partition_point(|&e| e <= z);
                    let e = &span.ends[first..last];
                    for (x, y) in [(s, z + 37), (s, z.saturating_sub(9)), (s + 1, z + 500)] {
                        if y <= x + 1 || y > bytes.len() {
                            continue;
                        }
                        let mut out = Vec::new();
                        if enc.splice(bytes, (x, y), (s, z, e), &[1], &mut out) {
                            let mut fresh = Vec::new();
                            enc.merge_heap(&bytes[x..y], Some((&mut fresh, x)));
                            assert_eq!(out, fresh, "{x}..{y}");
                            taken += 1;
                        } else {
                            refused += 1;
                        }
                    }
                }
            }
        }
        assert!(
            taken > 10 && refused > 0,
            "taken {taken}, refused {refused}"
        );
    }

    #[test]
    fn what_is_kept_answers_for_its_own_spans_only() {
        let enc = Encoding::named("cl100k_base").unwrap();
        let text = "a".repeat(1000);
        let mut known = Merged::default();
        enc.count_span(&text, (100, 600), &Merged::default(), Some(&mut known));
        assert!(known.knows(100) && known.knows(599) && !known.knows(99) && !known.knows(600));
        let ends = known.span_ends(100).unwrap();
        assert_eq!(ends[0], 108, "eight a's make one cl100k token");
        assert_eq!((ends.len(), ends.last()), (63, Some(&600)));
        assert_eq!(known.span_ends(101), None);
        let mut moved = Merged::default();
        known.move_span(100, 600, &mut moved);
        assert!(!known.knows(100) && moved.knows(100));
    }
}
