//! Token counts of the built-in tiktoken encodings, without their regexes.
//!
//! `CoreBPE::encode_ordinary` runs the encoding's pre-tokenizer regex with `fancy-regex` and then byte-pair merges
//! each piece into token ids. A count needs neither the backtracking engine nor the ids: [`pieces`] cuts the text
//! into the same pieces by hand, and [`Encoding::count`] looks each piece up in the ranks (most pieces are one
//! token) or merges it, counting parts only. The ranks are read back from tiktoken-rs's own encoder, once.
//!
//! Exactness is tested, not assumed: pieces against the regexes under `fancy-regex`, counts against
//! `encode_ordinary`, on the corpus, on generated texts of tricky characters, and around every code point.

mod cuts;
mod long;
mod pieces;
pub mod registry;
pub(crate) mod specials;
mod unicode;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHashSet};
use tiktoken_rs::{CoreBPE, Rank};

pub(crate) use long::Merged;
use pieces::Pattern;

/// Pieces up to this many bytes are merged in arrays on the stack ([`Encoding::merge_small`]), longer ones in sweeps
/// and a heap ([`Encoding::merge_large`]); so are ASCII pieces longer than [`SMALL_ASCII`], mostly runs of spaces or
/// dashes, which sweeps join many pairs at a time. A clause of Chinese or Japanese without punctuation is one piece
/// of 30 to 120 bytes, whose ranks differ everywhere: on the stack, 2 MB of zh.txt's distinct pieces merge in 31 ms
/// against 46 when only pieces of up to 32 bytes did.
const SMALL: usize = 255;
const SMALL_ASCII: usize = 32;
/// The arrays of [`Encoding::merge_small`] for pieces of more than [`SMALL_ASCII`] bytes and up to this many.
const MEDIUM: usize = 128;
/// Ranks fit in this many bits (o200k_base has 200,019), and the start of a join in the rest of a `u64` (or, in
/// [`Encoding::merge_small`], in the 8 bits below them in a positive `i32`).
const RANK_BITS: u32 = 23;
const START_BITS: u32 = 64 - RANK_BITS;

/// A tiktoken encoding that counts without its regex: the ranks of its ordinary tokens and its pre-tokenizer.
pub(crate) struct Encoding {
    pattern: Pattern,
    /// Tokens of 2 bytes, by their bytes as an index: the first lookup of every merge.
    pairs: Box<[Rank]>,
    /// Tokens of 3 bytes shaped as a character of 3 bytes in UTF-8 (most of Chinese and Japanese), by [`tri`].
    tris: Box<[Rank]>,
    /// Tokens of 1 and 3 to 7 bytes, by [`pack`]: hashed and compared as one integer.
    short: FxHashMap<u64, Rank>,
    /// Tokens of 8 bytes or more.
    long: FxHashMap<Box<[u8]>, Rank>,
    /// The rank of each byte.
    bytes: [Rank; 256],
    /// The length in bytes of the longest token.
    longest: usize,
    /// The tokens that can span a char boundary, built the first time a piece is cut ([`Encoding::count_parts`]).
    spanning: OnceLock<cuts::Spanning>,
}

/// The index in [`Encoding::tris`] of 3 bytes shaped as a character of 3 bytes in UTF-8 (a lead byte `1110xxxx`, two
/// continuation bytes `10xxxxxx`); `None` for other bytes.
#[inline]
fn tri(bytes: &[u8]) -> Option<usize> {
    match *bytes {
        [a, b, c] if a & 0xF0 == 0xE0 && b & 0xC0 == 0x80 && c & 0xC0 == 0x80 => {
            Some(usize::from(a & 0x0F) << 12 | usize::from(b & 0x3F) << 6 | usize::from(c & 0x3F))
        }
        _ => None,
    }
}

/// Bytes (at most 7) as one integer: the bytes, then the length in the top byte.
#[inline]
fn pack(bytes: &[u8]) -> u64 {
    let mut word = (bytes.len() as u64) << 56;
    for (i, &b) in bytes.iter().enumerate() {
        word |= u64::from(b) << (8 * i);
    }
    word
}

impl fmt::Debug for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encoding")
            .field("pattern", &self.pattern)
            .field("short", &self.short.len())
            .field("long", &self.long.len())
            .finish()
    }
}

impl Encoding {
    /// The counter of the built-in encoding of that name (see [`registry::ENCODINGS`]), built on first use and
    /// shared by the encodings with the same ordinary tokens; `None` for a name that is not built in.
    pub(crate) fn named(name: &str) -> Option<&'static Self> {
        const N: usize = registry::ENCODINGS.len();
        static CELLS: [OnceLock<Encoding>; N] = [const { OnceLock::new() }; N];
        let encoding = registry::ENCODINGS.iter().find(|e| e.name == name)?;
        let i = registry::ENCODINGS
            .iter()
            .position(|e| e.name == encoding.ordinary)?;
        let base = &registry::ENCODINGS[i];
        Some(CELLS[i].get_or_init(|| Self::new(base.ranks(), base.pattern())))
    }

    /// The ordinary tokens of `bpe` (every rank that decodes, but the special tokens), cut with `pattern`.
    fn new(bpe: &CoreBPE, pattern: Pattern) -> Self {
        let specials: FxHashSet<Rank> = bpe
            .special_tokens()
            .into_iter()
            .flat_map(|s| bpe.encode_with_special_tokens(s))
            .collect();
        let last_special = specials.iter().copied().max().unwrap_or(0);
        let mut pairs = vec![Rank::MAX; 1 << 16].into_boxed_slice();
        let mut tris = vec![Rank::MAX; 1 << 16].into_boxed_slice();
        let size = last_special as usize;
        let mut short = FxHashMap::with_capacity_and_hasher(size / 2, Default::default());
        let mut long = FxHashMap::with_capacity_and_hasher(size / 2, Default::default());
        // Ranks are dense with a few gaps; past the special tokens, a long run of gaps is the end.
        let mut gap = 0;
        for rank in 0..Rank::MAX {
            if specials.contains(&rank) {
                continue;
            }
            match bpe.decode_bytes(&[rank]) {
                Ok(bytes) => {
                    gap = 0;
                    assert!(rank < 1 << RANK_BITS, "a rank of {RANK_BITS} bits");
                    match bytes[..] {
                        [a, b] => pairs[usize::from(u16::from_le_bytes([a, b]))] = rank,
                        _ if tri(&bytes).is_some() => {
                            tris[tri(&bytes).unwrap_or_default()] = rank;
                        }
                        _ if bytes.len() < 8 => {
                            short.insert(pack(&bytes), rank);
                        }
                        _ => {
                            long.insert(bytes.into_boxed_slice(), rank);
                        }
                    }
                }
                Err(_) => {
                    gap += 1;
                    if rank > last_special && gap > 4096 {
                        break;
                    }
                }
            }
        }
        let bytes = std::array::from_fn(|b| {
            short
                .get(&pack(&[b as u8]))
                .copied()
                .expect("every byte is a token")
        });
        let longest = long.keys().map(|k| k.len()).max().unwrap_or(7);
        Self {
            pattern,
            pairs,
            tris,
            short,
            long,
            bytes,
            longest,
            spanning: OnceLock::new(),
        }
    }

    /// The number of tokens `bpe.encode_ordinary(text)` gives.
    pub(crate) fn count(&self, text: &str) -> usize {
        let mut total = 0;
        pieces::for_each_piece(self.pattern, text, |piece| {
            total += self.piece_count(piece.as_bytes());
        });
        total
    }

    /// The number of tokens of one piece of the pre-tokenizer.
    fn piece_count(&self, piece: &[u8]) -> usize {
        if piece.len() == 1 || self.rank(piece) != Rank::MAX {
            1
        } else if Self::merges_small(piece) {
            self.merge_small(piece)
        } else {
            self.merge_large(piece)
        }
    }

    /// Whether [`Self::merge_small`] merges `piece` (see [`SMALL`]).
    fn merges_small(piece: &[u8]) -> bool {
        piece.len() <= SMALL_ASCII || (piece.len() <= SMALL && !piece.is_ascii())
    }

    #[inline]
    fn rank(&self, bytes: &[u8]) -> Rank {
        if let [a, b] = bytes[..] {
            return self.pairs[usize::from(u16::from_le_bytes([a, b]))];
        }
        if let Some(i) = tri(bytes) {
            return self.tris[i];
        }
        let rank = if bytes.len() < 8 {
            self.short.get(&pack(bytes))
        } else {
            self.long.get(bytes)
        };
        rank.copied().unwrap_or(Rank::MAX)
    }

    /// Byte-pair merges, counting parts: the adjacent pair whose join has the lowest rank is joined first (the
    /// leftmost of equals), until no join is a token. Parts are a linked list over their start bytes, in arrays
    /// on the stack; the lowest rank is found by scanning them.
    fn merge_small(&self, piece: &[u8]) -> usize {
        // Arrays of the piece's size, rounded up: most pieces are a word, and the arrays are filled at every call.
        if piece.len() <= SMALL_ASCII {
            self.merge_in::<SMALL_ASCII>(piece)
        } else if piece.len() <= MEDIUM {
            self.merge_in::<MEDIUM>(piece)
        } else {
            self.merge_in::<{ SMALL + 1 }>(piece)
        }
    }

    /// [`Self::merge_small`] in arrays of `N` entries.
    fn merge_in<const N: usize>(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        debug_assert!((2..=N.min(SMALL)).contains(&n) && N.is_multiple_of(8));
        // `next[i]`: the start of the part after the one at i; `prev[i]`: the one before. `key[i]`: the rank of the
        // part at i joined with the next and i itself, as `rank << 8 | i`, so that the least key is the leftmost of
        // the lowest rank; NONE if no join is a token, or if i no longer starts a part.
        const NONE: i32 = i32::MAX;
        let key = |rank: Rank, i: usize| {
            if rank == Rank::MAX {
                NONE
            } else {
                (rank << 8 | i as Rank) as i32
            }
        };
        let mut next = [0u8; N];
        let mut prev = [0u8; N];
        let mut keys = [NONE; N];
        for i in 0..n {
            next[i] = (i + 1) as u8;
            prev[i] = i.saturating_sub(1) as u8;
        }
        for i in 0..n - 1 {
            keys[i] = key(
                self.pairs[usize::from(u16::from_le_bytes([piece[i], piece[i + 1]]))],
                i,
            );
        }
        // The keys scanned: whole vectors of 8 (the keys past n - 1 are NONE).
        let scan = (n - 1).div_ceil(8) * 8;
        let mut parts = n;
        loop {
            let least = keys[..scan].iter().fold(NONE, |m, &k| m.min(k));
            if least == NONE {
                return parts;
            }
            let i = (least & 0xFF) as usize;
            let gone = usize::from(next[i]);
            let after = usize::from(next[gone]);
            parts -= 1;
            keys[gone] = NONE;
            if after < n {
                next[i] = after as u8;
                prev[after] = i as u8;
                keys[i] = key(self.rank(&piece[i..usize::from(next[after])]), i);
            } else {
                next[i] = n as u8;
                keys[i] = NONE;
            }
            if i > 0 {
                let before = usize::from(prev[i]);
                keys[before] = key(self.rank(&piece[before..after]), before);
            }
        }
    }

    /// The same merges as [`Self::merge_small`] for long pieces. Long pieces are mostly runs of one character
    /// (spaces, rules of dashes): their parts join level by level, every join of the lowest rank at once, and as the
    /// same few pairs of tokens over and over. So the joins go in sweeps first: find the lowest rank (a vector scan),
    /// join its pairs from left to right, and scan again; a join whose new neighbour pairs rank lower ends the sweep
    /// early, as a heap would take that pair next. Past a budget of scanning (a long word, where ranks differ
    /// everywhere and a sweep joins few pairs, runs out of it), a min-heap by (rank, start) does the rest. The rank
    /// of a join is looked up by its two tokens in a small table first. 2 MB of en.txt has 615 distinct pieces of
    /// more than 32 bytes: about 3.7 us each, against 20 us with the heap alone.
    fn merge_large(&self, piece: &[u8]) -> usize {
        // Elements of `pair` the sweeps may scan: a sweep scans about 16 a cycle, a join through the heap costs
        // about a hundred cycles.
        self.merge_large_within(piece, SWEEP_BUDGET_PER_BYTE * piece.len() + SWEEP_BUDGET)
    }

    /// [`Self::merge_large`] with sweeps that scan at most `budget` ranks in all.
    fn merge_large_within(&self, piece: &[u8], mut budget: usize) -> usize {
        let n = piece.len();
        debug_assert!(n < 1 << START_BITS, "pieces are shorter than 1 TiB");
        let mut parts = Parts::new(self, piece);
        loop {
            let Some(&rank) = parts.pair.iter().min() else {
                return parts.count;
            };
            if rank == Rank::MAX {
                return parts.count;
            }
            let mut at = parts.pair.iter().position(|&r| r == rank).unwrap_or(n);
            while at < n {
                if parts.pair[at] != rank {
                    at = parts.next[at];
                    continue;
                }
                // The new pairs are longer than a token of this rank, so of another rank; a lower one goes first.
                let before = parts.join(self, piece, at);
                let left = before.map_or(Rank::MAX, |b| parts.pair[b]);
                if parts.pair[at] < rank || left < rank {
                    break;
                }
                at = parts.next[at];
            }
            match budget.checked_sub(n) {
                Some(rest) => budget = rest,
                None => break,
            }
        }
        // Candidates as `rank << START_BITS | start`: the lowest rank first, then the leftmost.
        let candidate =
            |rank: Rank, start: usize| Reverse((u64::from(rank) << START_BITS) | start as u64);
        let mut heap: BinaryHeap<_> = (parts.pair.iter().enumerate())
            .filter(|&(_, &rank)| rank != Rank::MAX)
            .map(|(i, &rank)| candidate(rank, i))
            .collect();
        while let Some(Reverse(top)) = heap.pop() {
            let (rank, i) = (
                (top >> START_BITS) as Rank,
                (top & ((1 << START_BITS) - 1)) as usize,
            );
            // A pair's end only moves right, so a rank never comes back to a start: equal means current.
            if parts.pair[i] != rank {
                continue;
            }
            let before = parts.join(self, piece, i);
            if parts.pair[i] != Rank::MAX {
                heap.push(candidate(parts.pair[i], i));
            }
            if let Some(before) = before {
                if parts.pair[before] != Rank::MAX {
                    heap.push(candidate(parts.pair[before], before));
                }
            }
        }
        parts.count
    }
}

/// How much [`Encoding::merge_large`] may scan before it turns to its heap: this many sweeps, plus sweeps of
/// [`SWEEP_BUDGET`] ranks in all (a long word turns to the heap after 64 sweeps once it is much longer than 16 KiB;
/// a run of one character needs a sweep or two each time its parts halve).
const SWEEP_BUDGET_PER_BYTE: usize = 64;
const SWEEP_BUDGET: usize = 1 << 20;

/// The parts of a long piece as [`Encoding::merge_large`] joins them: a linked list over their start bytes.
struct Parts {
    /// `next[i]`: the start of the part after the one at i (the piece's length for the last).
    next: Vec<usize>,
    /// `prev[i]`: the start of the part before the one at i.
    prev: Vec<usize>,
    /// `token[i]`: the rank of the part at i.
    token: Vec<Rank>,
    /// `pair[i]`: the rank of the part at i joined with the next; MAX if none, or if i no longer starts a part.
    pair: Vec<Rank>,
    joins: Joins,
    count: usize,
}

impl Parts {
    fn new(enc: &Encoding, piece: &[u8]) -> Self {
        let n = piece.len();
        let mut pair: Vec<Rank> = piece
            .windows(2)
            .map(|w| enc.pairs[usize::from(u16::from_le_bytes([w[0], w[1]]))])
            .collect();
        pair.push(Rank::MAX);
        Self {
            next: (1..=n).collect(),
            prev: (0..n).map(|i| i.wrapping_sub(1)).collect(),
            token: piece.iter().map(|&b| enc.bytes[usize::from(b)]).collect(),
            pair,
            joins: Joins::new(),
            count: n,
        }
    }

    /// Joins the part at `i` with the next, and ranks the pairs that changed: the new part's with the next and the
    /// part before's (returned) with the new one.
    #[inline]
    fn join(&mut self, enc: &Encoding, piece: &[u8], i: usize) -> Option<usize> {
        let n = piece.len();
        let gone = self.next[i];
        let after = self.next[gone];
        self.next[i] = after;
        self.token[i] = self.pair[i];
        self.pair[gone] = Rank::MAX;
        self.count -= 1;
        self.pair[i] = if after < n {
            self.prev[after] = i;
            self.rank(enc, piece, i, after, self.next[after])
        } else {
            Rank::MAX
        };
        (i > 0).then(|| {
            let before = self.prev[i];
            self.pair[before] = self.rank(enc, piece, before, i, after);
            before
        })
    }

    /// The rank of the join of the parts at `a` and `b`, whose next part starts at `end`.
    #[inline]
    fn rank(&mut self, enc: &Encoding, piece: &[u8], a: usize, b: usize, end: usize) -> Rank {
        if end - a > enc.longest {
            return Rank::MAX;
        }
        self.joins
            .get(self.token[a], self.token[b], || enc.rank(&piece[a..end]))
    }
}

/// The ranks of joins of two tokens met in one long piece, by the pair of tokens: a direct-mapped table of
/// `JOINS` slots, a later pair taking the slot of an earlier one.
struct Joins {
    slots: [(u64, Rank); JOINS],
}

/// Slots of [`Joins`]: a run of one character meets a handful of pairs, a long word at most one per byte.
const JOINS: usize = 256;

impl Joins {
    fn new() -> Self {
        // No pair of tokens is (MAX, MAX): ranks are below 2^24.
        Self {
            slots: [(u64::MAX, Rank::MAX); JOINS],
        }
    }

    #[inline]
    fn get(&mut self, a: Rank, b: Rank, rank: impl FnOnce() -> Rank) -> Rank {
        let key = (u64::from(a) << 32) | u64::from(b);
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % JOINS;
        if self.slots[slot].0 == key {
            return self.slots[slot].1;
        }
        let r = rank();
        self.slots[slot] = (key, r);
        r
    }
}

#[cfg(test)]
pub(crate) mod testdata {
    //! Texts for the exactness tests: the repository's corpus (tests/data) and generated texts of tricky characters.

    /// The first `limit` bytes (cut at a char boundary) of each corpus file; a missing one is a failure.
    pub(crate) fn corpus(limit: usize) -> Vec<(&'static str, String)> {
        common::corpus(limit)
    }

    /// The integration tests' corpus reader (a path attribute in an inline module resolves from a folder that
    /// does not exist, so the file is named from the crate root).
    mod common {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/common/corpus.rs"
        ));
    }

    /// Characters and strings that the pre-tokenizers treat differently: white space of every kind, digits of
    /// other scripts and fractions, letters of each case and script, combining marks, emoji, apostrophes and
    /// contractions in both cases (with the long s that `(?i:s)` matches), punctuation and slashes.
    const ALPHABET: &[&str] = &[
        " ",
        " ",
        " ",
        "  ",
        "\t",
        "\r",
        "\n",
        "\r\n",
        "\n\n",
        "\u{a0}",
        "\u{3000}",
        "\u{2028}",
        "\u{85}",
        "\u{b}",
        "\u{c}",
        "0",
        "7",
        "12345",
        "٣",
        "¼",
        "Ⅻ",
        "²",
        "a",
        "b",
        "s",
        "t",
        "e",
        "l",
        "v",
        "r",
        "d",
        "m",
        "S",
        "T",
        "L",
        "D",
        "M",
        "x",
        "Q",
        "é",
        "É",
        "ǅ",
        "ʰ",
        "ß",
        "ſ",
        "K",
        "\u{301}",
        "\u{308}",
        "\u{903}",
        "中",
        "文",
        "日本",
        "カ",
        "ひ",
        "한",
        "ا",
        "म",
        "🙂",
        "👨\u{200d}👩",
        "🇫🇷",
        "'",
        "'",
        "’",
        "'s",
        "'S",
        "'ll",
        "'LL",
        "'Ll",
        "'ve",
        "'RE",
        "'t",
        "'d",
        "'m",
        "'ſ",
        "'x",
        ".",
        ",",
        "!",
        "?",
        "...",
        "--",
        "/",
        "//",
        "(",
        ")",
        "[",
        "\"",
        "#",
        "-",
        "_",
        "=",
        "<|",
        "|>",
        "，",
        "。",
        "「",
        "€",
        "©",
        "\u{200b}",
        "\u{feff}",
        "\u{0}",
        "\u{7f}",
        "\u{10ffff}",
    ];

    /// `n` texts of up to `max_parts` alphabet strings each, the same on every run.
    pub(crate) fn generated(n: usize, max_parts: usize, seed: u64) -> Vec<String> {
        generated_from(ALPHABET, n, max_parts, seed)
    }

    /// `n` texts of up to `max_parts` strings of `parts` each, the same on every run for one `seed`.
    pub(crate) fn generated_from(
        parts: &[&str],
        n: usize,
        max_parts: usize,
        seed: u64,
    ) -> Vec<String> {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..n)
            .map(|_| {
                let count = 1 + (next() % max_parts as u64) as usize;
                let mut text = String::new();
                for _ in 0..count {
                    text.push_str(parts[(next() % parts.len() as u64) as usize]);
                }
                text
            })
            .collect()
    }

    /// Texts around one character `c`: after an apostrophe, between letters, digits, spaces and line breaks, at
    /// the end of the text, in runs.
    pub(crate) fn around(c: char) -> String {
        format!(
            "'{c} x'{c}ll a{c}b {c}{c}A\u{301}{c} 1{c}2 \n{c}\r\n {c}  {c}{c}. ?{c}/ {c}'S{c}\t{c}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENCODINGS: [&str; 4] = ["cl100k_base", "o200k_base", "r50k_base", "p50k_base"];

    fn bpe(name: &str) -> &'static CoreBPE {
        registry::BuiltIn::named("encoding", name).unwrap().ranks()
    }

    fn assert_counts(name: &str, text: &str) {
        let enc = Encoding::named(name).unwrap();
        assert_eq!(
            enc.count(text),
            bpe(name).encode_ordinary(text).len(),
            "{name}: {text:?}"
        );
    }

    #[test]
    fn the_ranks_are_the_ordinary_tokens() {
        for name in ENCODINGS {
            let enc = Encoding::named(name).unwrap();
            let bpe = bpe(name);
            // Every byte is a token, no special token is, and every token counts as one.
            for b in 0..=255u8 {
                assert_ne!(enc.rank(&[b]), Rank::MAX, "{name}: byte {b}");
            }
            let short = enc.short.iter().map(|(&word, &rank)| {
                let len = (word >> 56) as usize;
                (word.to_le_bytes()[..len].to_vec(), rank)
            });
            let pairs = (0..=u16::MAX)
                .filter(|&i| enc.pairs[usize::from(i)] != Rank::MAX)
                .map(|i| (i.to_le_bytes().to_vec(), enc.pairs[usize::from(i)]));
            let tris = (0..1usize << 16)
                .filter(|&i| enc.tris[i] != Rank::MAX)
                .map(|i| {
                    let bytes = vec![
                        0xE0 | (i >> 12) as u8,
                        0x80 | (i >> 6 & 0x3F) as u8,
                        0x80 | (i & 0x3F) as u8,
                    ];
                    assert_eq!(tri(&bytes), Some(i));
                    (bytes, enc.tris[i])
                });
            let long = enc.long.iter().map(|(b, &rank)| (b.to_vec(), rank));
            let mut count = 0;
            for (bytes, rank) in short.chain(pairs).chain(tris).chain(long) {
                count += 1;
                assert_eq!(bpe.decode_bytes(&[rank]).unwrap(), bytes);
                assert_eq!(enc.rank(&bytes), rank);
                assert!(!bpe
                    .special_tokens()
                    .contains(String::from_utf8_lossy(&bytes).as_ref()));
            }
            let expected = match name {
                "cl100k_base" => 100_256,
                "o200k_base" => 199_998,
                "r50k_base" => 50_256,
                "p50k_base" => 50_280,
                _ => unreachable!(),
            };
            assert_eq!(count, expected, "{name}");
        }
        assert!(Encoding::named("o200k_harmony").is_none());
    }

    #[test]
    fn small_cases() {
        for name in ENCODINGS {
            for text in [
                "", "a", " ", "hello world", "It's  WE'LL they'Re", "  \n\n  x  ", "中文，测试。", "🙂🙂🙂",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            ] {
                assert_counts(name, text);
            }
        }
    }

    /// Both merges, on the lengths around the switch between them and far past it.
    #[test]
    fn long_pieces_merge_alike() {
        let enc = Encoding::named("cl100k_base").unwrap();
        for text in testdata::generated(300, 60, 7) {
            let letters: String = text.chars().filter(|c| c.is_alphabetic()).collect();
            for len in [SMALL - 1, SMALL, SMALL + 1, 3 * SMALL] {
                let piece = &letters.as_bytes()[..len.min(letters.len())];
                if piece.len() >= 2 {
                    let small = if piece.len() <= SMALL {
                        enc.merge_small(piece)
                    } else {
                        usize::MAX
                    };
                    let large = enc.merge_large(piece);
                    assert!(small == usize::MAX || small == large, "{piece:?}");
                }
            }
            assert_counts("cl100k_base", &letters);
        }
    }

    /// Long pieces of few distinct bytes, in runs (what the sweeps of `merge_large` are for), and of text, merged
    /// by sweeps, by the heap, and by sweeps that turn to the heap part way, against tiktoken's own merges.
    #[test]
    fn long_pieces_merge_as_tiktoken_merges_them() {
        for name in ["cl100k_base", "o200k_base"] {
            let enc = Encoding::named(name).unwrap();
            // tiktoken's merges as written (`byte_pair_merge`): join the lowest-ranked adjacent pair, the leftmost
            // of equals, until none is a token; or, past 600 bytes, the heap alone.
            let reference = |piece: &[u8]| {
                if piece.len() > 600 {
                    return enc.merge_large_within(piece, 0);
                }
                let mut bounds: Vec<usize> = (0..=piece.len()).collect();
                loop {
                    let best = (0..bounds.len() - 2)
                        .map(|i| (enc.rank(&piece[bounds[i]..bounds[i + 2]]), i))
                        .min();
                    match best {
                        Some((rank, i)) if rank != Rank::MAX => {
                            bounds.remove(i + 1);
                        }
                        _ => return bounds.len() - 1,
                    }
                }
            };
            let mut pieces: Vec<Vec<u8>> = Vec::new();
            for b in *b" -=_*#.\n\ta0~+|/" {
                for len in (2..300).chain([511, 512, 513, 1000, 4096]) {
                    pieces.push(vec![b; len]);
                }
            }
            let mut state = 0x2545_F491_4F6C_DD1Du64;
            let mut next = move |m: u64| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % m) as usize
            };
            let alphabets: [&[u8]; 6] = [
                b" -",
                b"+-|",
                b" \n",
                b"=-_ ",
                b"ab",
                b"\xe4\xb8\xad\xe6\x96\x87 ",
            ];
            for _ in 0..400 {
                let alphabet = alphabets[next(alphabets.len() as u64)];
                let mut piece = Vec::new();
                let len = 33 + next(700);
                while piece.len() < len {
                    let b = alphabet[next(alphabet.len() as u64)];
                    piece.extend(std::iter::repeat_n(b, 1 + next(40)));
                }
                pieces.push(piece);
            }
            for (_, text) in testdata::corpus(100_000) {
                for start in (0..text.len().saturating_sub(300)).step_by(997) {
                    pieces.push(text.as_bytes()[start..start + 33 + next(260)].to_vec());
                }
            }
            for piece in &pieces {
                let expected = reference(piece);
                if piece.len() <= SMALL {
                    assert_eq!(
                        enc.merge_small(piece),
                        expected,
                        "{name}: {:?}",
                        String::from_utf8_lossy(piece)
                    );
                }
                for budget in [0, 3 * piece.len() + 7, usize::MAX / 2] {
                    assert_eq!(
                        enc.merge_large_within(piece, budget),
                        expected,
                        "{name}, budget {budget}: {:?}",
                        String::from_utf8_lossy(piece)
                    );
                }
            }
        }
    }

    #[test]
    fn counts_equal_encode_ordinary_on_generated_texts() {
        for name in ENCODINGS {
            for text in testdata::generated(3000, 40, 0x9E37_79B9_7F4A_7C15) {
                assert_counts(name, &text);
            }
        }
    }

    /// Every code point below U+3400 and a spread of the rest, in the contexts of `testdata::around`.
    #[test]
    fn counts_equal_encode_ordinary_around_characters() {
        let chars = (0..0x3400).chain((0x3400..=0x10_FFFF).step_by(97));
        for c in chars.filter_map(char::from_u32) {
            let text = testdata::around(c);
            for name in ENCODINGS {
                assert_counts(name, &text);
            }
        }
    }

    /// The corpus, whole and line by line (lines and the whole text cut differently at their ends).
    #[test]
    fn counts_equal_encode_ordinary_on_the_corpus() {
        for (file, text) in testdata::corpus(200_000) {
            for name in ENCODINGS {
                assert_counts(name, &text);
                for line in text.split_inclusive('\n').step_by(7) {
                    assert_counts(name, line);
                }
                eprintln!("{name} {file}: equal");
            }
        }
    }

    #[test]
    #[ignore = "minutes: the whole corpus; run with --ignored"]
    fn counts_equal_encode_ordinary_on_the_whole_corpus() {
        for (file, text) in testdata::corpus(usize::MAX) {
            for name in ENCODINGS {
                assert_counts(name, &text);
                for line in text.split_inclusive('\n') {
                    assert_counts(name, line);
                }
                eprintln!("{name} {file}: equal");
            }
        }
    }

    #[test]
    #[ignore = "minutes: every code point; run with --ignored"]
    fn counts_equal_encode_ordinary_around_every_character() {
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let text = testdata::around(c);
            for name in ENCODINGS {
                assert_counts(name, &text);
            }
        }
    }
}

#[cfg(test)]
mod timing {
    use super::*;

    /// `CHUNKWISE_PIECES_FILE=PATH cargo test --release -p chunkwise-core piece_timing -- --ignored --nocapture`:
    /// ns per distinct piece of the file, short and long ones apart.
    #[test]
    #[ignore = "a measurement, not a test"]
    fn piece_timing() {
        let path = std::env::var("CHUNKWISE_PIECES_FILE").expect("CHUNKWISE_PIECES_FILE");
        let text = std::fs::read_to_string(path).unwrap();
        let name = std::env::var("CHUNKWISE_ENCODING").unwrap_or("cl100k_base".into());
        let enc = Encoding::named(&name).unwrap();
        let mut small = Vec::new();
        let mut large = Vec::new();
        pieces::for_each_piece(enc.pattern, &text, |p| {
            if !Encoding::merges_small(p.as_bytes()) {
                large.push(p)
            } else {
                small.push(p)
            }
        });
        for (label, mut set) in [("small", small), ("large", large)] {
            set.sort_unstable();
            set.dedup();
            let bytes: usize = set.iter().map(|p| p.len()).sum();
            let mut best = f64::MAX;
            let mut n = 0;
            for _ in 0..5 {
                let t0 = std::time::Instant::now();
                n = set
                    .iter()
                    .map(|p| enc.piece_count(p.as_bytes()))
                    .sum::<usize>();
                best = best.min(t0.elapsed().as_nanos() as f64);
            }
            println!(
                "{label}: {} pieces, {bytes} bytes, {n} tokens: {:.0} ns a piece, {:.1} ns a byte",
                set.len(),
                best / set.len() as f64,
                best / bytes as f64
            );
        }
    }
}
