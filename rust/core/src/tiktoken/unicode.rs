//! The character classes of tiktoken's pre-tokenizer regexes, as one byte of flags per code point.
//!
//! The classes come from `regex-syntax`, the crate whose Unicode tables `fancy-regex` (and so tiktoken) matches
//! with: a class here holds exactly the characters the regex class does. They are looked up in a two-level table
//! (a block index, then blocks of 256 code points, shared when equal), with ASCII read from a flat array.

use std::sync::OnceLock;

use regex_syntax::hir::{Class, HirKind};
use rustc_hash::FxHashMap;

/// `\p{L}`: letters.
pub(crate) const LETTER: u8 = 1;
/// `\p{N}`: numbers.
pub(crate) const NUMBER: u8 = 2;
/// `\s`: white space.
pub(crate) const SPACE: u8 = 4;
/// `[^\s\p{L}\p{N}]`: everything else (marks and punctuation among them). Every character has exactly one of
/// LETTER, NUMBER, SPACE and OTHER, so a class of 0 means "no character" (the end of the text).
pub(crate) const OTHER: u8 = 8;
/// o200k's `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: letters that may start a word.
pub(crate) const UPPER: u8 = 16;
/// o200k's `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: letters that may go on with one.
pub(crate) const LOWER: u8 = 32;

const BLOCK_BITS: u32 = 8;
const BLOCK: usize = 1 << BLOCK_BITS;
const CODE_POINTS: usize = 0x11_0000;

/// Classes by code point.
pub(crate) struct Classes {
    ascii: [u8; 128],
    /// Block number of each run of `BLOCK` code points.
    index: Vec<u16>,
    /// The distinct blocks, one after the other.
    blocks: Vec<u8>,
}

impl Classes {
    /// The table, built on first use (about a millisecond).
    pub(crate) fn get() -> &'static Self {
        static TABLE: OnceLock<Classes> = OnceLock::new();
        TABLE.get_or_init(Self::build)
    }

    fn build() -> Self {
        let mut flat = vec![0u8; CODE_POINTS];
        let mut mark = |pattern: &str, flag: u8| {
            for (start, end) in unicode_ranges(pattern) {
                for flags in &mut flat[start as usize..=end as usize] {
                    *flags |= flag;
                }
            }
        };
        mark(r"\p{L}", LETTER);
        mark(r"\p{N}", NUMBER);
        mark(r"\s", SPACE);
        mark(r"[^\s\p{L}\p{N}]", OTHER);
        mark(r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UPPER);
        mark(r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LOWER);
        // Surrogates are in no class of a pattern but no `char` is one: they are left out of OTHER too.
        let mut ascii = [0u8; 128];
        ascii.copy_from_slice(&flat[..128]);
        let mut seen: FxHashMap<&[u8], u16> = FxHashMap::default();
        let mut index = Vec::with_capacity(CODE_POINTS / BLOCK);
        let mut blocks = Vec::new();
        for block in flat.chunks(BLOCK) {
            let next = u16::try_from(seen.len()).expect("fewer than 65536 distinct blocks");
            let number = *seen.entry(block).or_insert_with(|| {
                blocks.extend_from_slice(block);
                next
            });
            index.push(number);
        }
        Self {
            ascii,
            index,
            blocks,
        }
    }

    /// The flags of an ASCII byte.
    #[inline]
    pub(crate) fn ascii(&self, b: u8) -> u8 {
        self.ascii[usize::from(b & 0x7F)]
    }

    /// The flags of a code point (below 0x110000).
    #[inline]
    pub(crate) fn of(&self, cp: u32) -> u8 {
        let block = usize::from(self.index[(cp >> BLOCK_BITS) as usize]);
        self.blocks[(block << BLOCK_BITS) | (cp as usize & (BLOCK - 1))]
    }
}

/// The code point ranges of a regex character class, from the regex crate's own Unicode tables.
fn unicode_ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::parse(pattern).expect("a valid class");
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        _ => unreachable!("{pattern} is a Unicode class"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code point gets the flags of the regexes `fancy-regex` would run (matched here by the regex crate).
    #[test]
    fn every_code_point_has_the_flags_of_the_regex_classes() {
        let classes = Classes::get();
        let regexes = [
            (LETTER, r"^\p{L}$"),
            (NUMBER, r"^\p{N}$"),
            (SPACE, r"^\s$"),
            (OTHER, r"^[^\s\p{L}\p{N}]$"),
            (UPPER, r"^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$"),
            (LOWER, r"^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$"),
        ]
        .map(|(flag, p)| (flag, regex::Regex::new(p).unwrap()));
        let mut buf = [0u8; 4];
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let s = c.encode_utf8(&mut buf);
            let mut want = 0;
            for (flag, re) in &regexes {
                if re.is_match(s) {
                    want |= flag;
                }
            }
            assert_eq!(classes.of(c as u32), want, "U+{:04X}", c as u32);
            if c.is_ascii() {
                assert_eq!(classes.ascii(c as u8), want);
            }
            assert_eq!(
                [LETTER, NUMBER, SPACE, OTHER]
                    .iter()
                    .filter(|&&f| want & f != 0)
                    .count(),
                1,
                "U+{:04X} has one main class",
                c as u32
            );
        }
    }

    #[test]
    fn a_few_known_characters() {
        let c = Classes::get();
        let of = |ch: char| c.of(ch as u32);
        assert_eq!(of('a'), LETTER | LOWER);
        assert_eq!(of('A'), LETTER | UPPER);
        assert_eq!(of('中'), LETTER | UPPER | LOWER);
        assert_eq!(of('\u{301}'), OTHER | UPPER | LOWER);
        assert_eq!(of('٣'), NUMBER);
        assert_eq!(of('¼'), NUMBER);
        assert_eq!(of('\u{3000}'), SPACE);
        assert_eq!(of('\u{a0}'), SPACE);
        assert_eq!(of('’'), OTHER);
        assert_eq!(of('🙂'), OTHER);
    }
}
