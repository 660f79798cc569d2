//! Token counts of the built-in tiktoken encodings, without their regexes.
//!
//! `CoreBPE::encode_ordinary` runs the encoding's pre-tokenizer regex with `fancy-regex` and then byte-pair merges
//! each piece into token ids. A count needs neither the backtracking engine nor the ids: [`pieces`] cuts the text
//! into the same pieces by hand, and [`Encoding::count`] looks each piece up in the ranks (most pieces are one
//! token) or merges it, counting parts only. The ranks are read back from tiktoken-rs's own encoder, once.
//!
//! Exactness is tested, not assumed: pieces against the regexes under `fancy-regex`, counts against
//! `encode_ordinary`, on the corpus, on generated texts of tricky characters, and around every code point.

mod long;
mod pieces;
pub mod registry;
pub(crate) mod specials;
mod unicode;

use std::fmt;
use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHashSet};
use tiktoken_rs::{CoreBPE, Rank};

pub(crate) use long::Merged;
use pieces::Pattern;

/// Pieces up to this many bytes are merged in arrays on the stack, longer ones with a heap of candidate merges.
const SMALL: usize = 32;
/// Ranks fit in this many bits (o200k_base has 200,019), and the start of a join in the rest of a `u64`.
const RANK_BITS: u32 = 24;
const START_BITS: u32 = 64 - RANK_BITS;

/// A tiktoken encoding that counts without its regex: the ranks of its ordinary tokens and its pre-tokenizer.
pub(crate) struct Encoding {
    pattern: Pattern,
    /// Tokens of 2 bytes, by their bytes as an index: the first lookup of every merge.
    pairs: Box<[Rank]>,
    /// Tokens of 1 and 3 to 7 bytes, by [`pack`]: hashed and compared as one integer.
    short: FxHashMap<u64, Rank>,
    /// Tokens of 8 bytes or more.
    long: FxHashMap<Box<[u8]>, Rank>,
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
        Self {
            pattern,
            pairs,
            short,
            long,
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
        } else if piece.len() <= SMALL {
            self.merge_small(piece)
        } else {
            self.merge_large(piece)
        }
    }

    #[inline]
    fn rank(&self, bytes: &[u8]) -> Rank {
        if let [a, b] = bytes[..] {
            return self.pairs[usize::from(u16::from_le_bytes([a, b]))];
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
        let n = piece.len();
        debug_assert!((2..=SMALL).contains(&n));
        // `next[i]`: the start of the part after the one at i; `prev[i]`: the one before. `pair[i]`: the rank of
        // the part at i joined with the next; MAX if none, or if i no longer starts a part.
        let mut next = [0u8; SMALL];
        let mut prev = [0u8; SMALL];
        let mut pair = [Rank::MAX; SMALL];
        for i in 0..n {
            next[i] = (i + 1) as u8;
            prev[i] = i.saturating_sub(1) as u8;
        }
        for i in 0..n - 1 {
            pair[i] = self.rank(&piece[i..i + 2]);
        }
        let mut parts = n;
        loop {
            let (mut best, mut i) = (Rank::MAX, 0);
            for (at, &rank) in pair[..n - 1].iter().enumerate() {
                if rank < best {
                    (best, i) = (rank, at);
                }
            }
            if best == Rank::MAX {
                return parts;
            }
            let gone = usize::from(next[i]);
            let after = usize::from(next[gone]);
            parts -= 1;
            pair[gone] = Rank::MAX;
            if after < n {
                next[i] = after as u8;
                prev[after] = i as u8;
                pair[i] = self.rank(&piece[i..usize::from(next[after])]);
            } else {
                next[i] = n as u8;
                pair[i] = Rank::MAX;
            }
            if i > 0 {
                let before = usize::from(prev[i]);
                pair[before] = self.rank(&piece[before..after]);
            }
        }
    }

    /// The same merges as [`Self::merge_small`] for long pieces (see [`Self::merge_heap`]).
    fn merge_large(&self, piece: &[u8]) -> usize {
        self.merge_heap(piece, None)
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
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..n)
            .map(|_| {
                let parts = 1 + (next() % max_parts as u64) as usize;
                let mut text = String::new();
                for _ in 0..parts {
                    text.push_str(ALPHABET[(next() % ALPHABET.len() as u64) as usize]);
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
            let long = enc.long.iter().map(|(b, &rank)| (b.to_vec(), rank));
            let mut count = 0;
            for (bytes, rank) in short.chain(pairs).chain(long) {
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
