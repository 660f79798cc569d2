//! Runs of one byte: a piece of the pre-tokenizer that is one ASCII byte repeated, after at most one other byte (a
//! rule of dashes or of "=" after a space, a row of "*", indentation), counted from its length in constant time.
//!
//! Such runs come in every length (the borders of text tables, a window's end inside a rule), so the memo of pieces
//! rarely knows one, and each was a merge of hundreds of bytes. With `T` the longest run of the byte `c` that is a
//! token (`K` bytes) and fact 2 of the [`long`](super::long) module (if the encoding of `A + M` ends with the token
//! `M` and that of `M + C` starts with it, the encoding of `A + M + C` is the first followed by the second less `M`):
//!
//! - if `c^2K` encodes as `T T`, and the encoding of `p + c^m` (`p` the byte before the run, or nothing) ends with
//!   `T`, then by induction on `q` the encoding of `p + c^(m + qK)` is that of `p + c^m` followed by `q` tokens `T`;
//! - if moreover the encoding of `c^(K + j)` starts with `T`, for each `j < K`, then that of `p + c^(m + qK + j)` is
//!   the one above followed by the encoding of `c^(K + j)` less its first token.
//!
//! So `count(p + c^n) = count(p + c^m) + q + count(c^(K + j)) - 1` for `n = m + qK + j >= m`. Each condition is
//! checked by merges when a (`p`, `c`) is first met; when one fails the run is merged as any other piece.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;
use tiktoken_rs::Rank;

use super::Encoding;

/// Runs shorter than this are merged as other pieces (on the stack, a few microseconds at most).
pub(super) const MIN_RUN: usize = 64;

/// The (`p`, `c`) pairs met so far, each with its period or `None` when a condition failed.
#[derive(Default)]
pub(super) struct Runs {
    periods: Mutex<FxHashMap<u32, Option<Arc<Period>>>>,
}

/// How the encoding of `p + c^n` grows with `n` (see the module docs).
#[derive(Debug, PartialEq, Eq)]
struct Period {
    /// `K`: the length of the longest run of `c` that is a token.
    k: usize,
    /// `r`: the tails are runs of `rK + j` bytes.
    r: usize,
    /// `m`: the shortest run after `p` whose encoding ends with that token.
    m: usize,
    /// The count of `p + c^m`.
    base: usize,
    /// The count of `c^(rK + j)`, for `j` in `0..K`.
    tails: Vec<usize>,
}

impl Runs {
    /// The count of `piece` when it is a run of one ASCII byte of at least [`MIN_RUN`] bytes after at most one other
    /// byte, and its period is known; `None` otherwise (the caller merges it).
    pub(super) fn count(&self, enc: &Encoding, piece: &[u8]) -> Option<usize> {
        let (&c, _) = piece.split_last()?;
        if piece.len() < MIN_RUN || !c.is_ascii() {
            return None;
        }
        let lead = usize::from(piece[0] != c);
        if !piece[lead..].iter().all(|&b| b == c) {
            return None;
        }
        let prefix = &piece[..lead];
        let key = prefix.first().map_or(256, |&b| u32::from(b)) << 8 | u32::from(c);
        let period = {
            let mut periods = self
                .periods
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            periods
                .entry(key)
                .or_insert_with(|| period(enc, prefix, c).map(Arc::new))
                .clone()?
        };
        let n = piece.len() - lead;
        let Period { k, r, m, base, .. } = *period;
        if n < m + (r - 1) * k {
            return None;
        }
        // `p + c^n` = `p + c^(m + qK)`, whose encoding ends with `T`, then `c^(rK + j)` less its first `T`.
        let (q, j) = ((n - m) / k - (r - 1), (n - m) % k);
        Some(base + q + period.tails[j] - 1)
    }
}

/// The period of runs of `c` after `prefix` (see the module docs), from the longest run of `c` that is a token and
/// meets the conditions, or `None` when none does.
fn period(enc: &Encoding, prefix: &[u8], c: u8) -> Option<Period> {
    let longest = enc.longest.min(1024);
    let run = vec![c; (MAX_R + 1) * longest];
    (2..=longest)
        .rev()
        .filter(|&k| enc.rank(&run[..k]) != Rank::MAX)
        .find_map(|k| period_of(enc, prefix, &run, k))
}

/// The tails are runs of `rK + j` bytes for the least `r` up to this whose encodings all start with `T` (a longer run
/// than `T` can be a token: cl100k_base has 96 dashes, but 192 encode as three tokens of 64).
const MAX_R: usize = 3;

/// [`period`] with `T` the run of `k` bytes.
fn period_of(enc: &Encoding, prefix: &[u8], run: &[u8], k: usize) -> Option<Period> {
    let mut ends = Vec::new();
    let merge = |text: &[u8], ends: &mut Vec<usize>| {
        ends.clear();
        enc.merge_heap(text, Some((ends, 0)))
    };
    // `T T`.
    merge(&run[..2 * k], &mut ends);
    if ends != [k, 2 * k] {
        return None;
    }
    // Each `c^(rK + j)` starts with `T`.
    let (r, tails) = (1..=MAX_R).find_map(|r| {
        let mut tails = Vec::with_capacity(k);
        for j in 0..k {
            let n = merge(&run[..r * k + j], &mut ends);
            if ends.first() != Some(&k) {
                return None;
            }
            tails.push(n);
        }
        Some((r, tails))
    })?;
    // The shortest `p + c^m`, `m >= K`, whose encoding ends with `T` (its last token starts `K` bytes before its end).
    let mut text = prefix.to_vec();
    for m in k..=4 * k {
        text.truncate(prefix.len());
        text.extend_from_slice(&run[..m]);
        let base = merge(&text, &mut ends);
        let last_start = ends.len().checked_sub(2).map_or(0, |i| ends[i]);
        if last_start == text.len() - k {
            return Some(Period {
                k,
                r,
                m,
                base,
                tails,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs' counts equal fresh merges of the whole run and `encode_ordinary`, for every length up to a few
    /// periods past `m`, for each byte that repeats in real text and each byte before it.
    #[test]
    fn runs_count_as_their_merges() {
        for name in ["cl100k_base", "o200k_base"] {
            let enc = Encoding::named(name).expect("a built-in encoding");
            let bpe = super::super::registry::BuiltIn::named("encoding", name)
                .expect("a built-in encoding")
                .ranks();
            let (mut counted, mut checked) = (0, 0);
            for c in *b"-=*_#~. !0a\t/+<>|" {
                for prefix in [&b""[..], b" ", b"\n", b"(", b"a"] {
                    let runs = Runs::default();
                    for n in MIN_RUN..MIN_RUN + 400 {
                        let mut piece = prefix.to_vec();
                        piece.extend(std::iter::repeat_n(c, n));
                        let Some(count) = runs.count(enc, &piece) else {
                            continue;
                        };
                        counted += 1;
                        assert_eq!(
                            count,
                            enc.merge_heap(&piece, None),
                            "{name}: {prefix:?} then {n} x {:?}",
                            char::from(c)
                        );
                        // A piece of the pre-tokenizer counts as `encode_ordinary` (digits, for one, are not
                        // a single piece, and are left out).
                        let text = std::str::from_utf8(&piece).expect("ASCII");
                        let mut pieces = 0;
                        super::super::pieces::for_each_piece(enc.pattern, text, |_| pieces += 1);
                        if pieces == 1 && n % 7 == 0 {
                            assert_eq!(count, bpe.encode_ordinary(text).len(), "{name}: {text:?}");
                            checked += 1;
                        }
                    }
                }
            }
            // The periods exist for most of them: the test checks counts, not merges that fell back.
            assert!(
                counted > 17 * 5 * 300,
                "{name}: only {counted} runs counted by their period"
            );
            assert!(
                checked > 1000,
                "{name}: only {checked} runs checked against tiktoken"
            );
        }
    }

    #[test]
    fn other_pieces_are_left_to_the_merges() {
        let enc = Encoding::named("cl100k_base").expect("a built-in encoding");
        let runs = Runs::default();
        let short = vec![b'-'; MIN_RUN - 1];
        assert_eq!(runs.count(enc, &short), None);
        let mut two = vec![b'-'; 100];
        two[50] = b'=';
        assert_eq!(runs.count(enc, &two), None);
        let mut two_before = vec![b'-'; 100];
        two_before[..2].copy_from_slice(b"  ");
        assert_eq!(runs.count(enc, &two_before), None);
        let han = "中".repeat(40);
        assert_eq!(runs.count(enc, han.as_bytes()), None);
    }
}
