//! tiktoken's pre-tokenizers, written out by hand: each yields exactly the pieces its regex does under
//! `fancy-regex` (leftmost-first alternation, backtracking, possessive quantifiers, `(?!\S)`, `$` at the end of
//! the text), in one forward pass with no backtracking and no allocation.
//!
//! r50k_base and p50k_base (GPT-2):
//! `'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s`
//!
//! cl100k_base:
//! `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`
//!
//! o200k_base (`U` = `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `W` = `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`,
//! `C` = `(?i:'s|'t|'re|'ve|'m|'ll|'d)`):
//! `[^\r\n\p{L}\p{N}]?U*W+C?|[^\r\n\p{L}\p{N}]?U+W*C?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

use super::unicode::{Classes, LETTER, LOWER, NUMBER, OTHER, SPACE, UPPER};

/// A pre-tokenizer regex of the tiktoken encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// r50k_base, p50k_base and gpt2.
    R50k,
    /// cl100k_base.
    Cl100k,
    /// o200k_base.
    O200k,
}

impl Pattern {
    /// Whether the pre-tokenizer keeps whole, as one piece, every text made only of characters of the class flags
    /// `class`: letters for r50k and cl100k (`\p{L}++` takes a run of them, and a letter starts no contraction);
    /// for o200k, the characters of both `U` and `W` (letters without case, marks), a run of which `U*W+` takes
    /// whole, with a first mark taken by the optional prefix or not.
    pub(crate) fn keeps_whole(self, class: u8) -> bool {
        match self {
            Pattern::R50k | Pattern::Cl100k => class & LETTER != 0,
            Pattern::O200k => class & (UPPER | LOWER) == UPPER | LOWER,
        }
    }
}

/// Calls `f` on each piece of `text`, in order; the pieces tile the text.
pub(crate) fn for_each_piece<'t>(pattern: Pattern, text: &'t str, mut f: impl FnMut(&'t str)) {
    let s = Scan {
        b: text.as_bytes(),
        classes: Classes::get(),
    };
    let mut p = 0;
    while p < text.len() {
        let end = match pattern {
            Pattern::R50k => s.r50k(p),
            Pattern::Cl100k => s.cl100k(p),
            Pattern::O200k => s.o200k(p),
        };
        debug_assert!(end > p && text.is_char_boundary(end));
        f(&text[p..end]);
        p = end;
    }
}

const CR: u32 = '\r' as u32;
const LF: u32 = '\n' as u32;
const SP: u32 = ' ' as u32;
const APOSTROPHE: u32 = '\'' as u32;
/// LATIN SMALL LETTER LONG S: `(?i:s)` matches it too.
const LONG_S: u32 = 0x17F;

/// A text being cut, as UTF-8 bytes, with the class table.
struct Scan<'a> {
    b: &'a [u8],
    classes: &'static Classes,
}

impl Scan<'_> {
    /// The code point at `p` (a char boundary), its class flags and its length in bytes; `(0, 0, 0)` at the end.
    #[inline]
    fn at(&self, p: usize) -> (u32, u8, usize) {
        let Some(&x) = self.b.get(p) else {
            return (0, 0, 0);
        };
        if x < 0x80 {
            return (u32::from(x), self.classes.ascii(x), 1);
        }
        let cont = |i: usize| u32::from(self.b[p + i] & 0x3F);
        let (cp, len) = if x < 0xE0 {
            ((u32::from(x & 0x1F) << 6) | cont(1), 2)
        } else if x < 0xF0 {
            ((u32::from(x & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
        } else {
            (
                (u32::from(x & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
                4,
            )
        };
        (cp, self.classes.of(cp), len)
    }

    /// The class flags at `p` (0 at the end).
    #[inline]
    fn class(&self, p: usize) -> u8 {
        self.at(p).1
    }

    /// The end of the run of characters with any of `flags` that starts at `p`.
    #[inline]
    fn run(&self, mut p: usize, flags: u8) -> usize {
        loop {
            let (_, class, len) = self.at(p);
            if class & flags == 0 {
                return p;
            }
            p += len;
        }
    }

    /// The end of the run of bytes in `set` that starts at `p` (ASCII only).
    #[inline]
    fn bytes_run(&self, mut p: usize, set: &[u8]) -> usize {
        while self.b.get(p).is_some_and(|b| set.contains(b)) {
            p += 1;
        }
        p
    }

    /// `\p{N}{1,3}` after the first number, which ends at `p`.
    fn numbers(&self, mut p: usize) -> usize {
        for _ in 0..2 {
            let (_, class, len) = self.at(p);
            if class & NUMBER == 0 {
                break;
            }
            p += len;
        }
        p
    }

    /// The run of white space at `p`: its end, the end of its last line break, and the start of its last char.
    fn spaces(&self, p: usize) -> (usize, Option<usize>, usize) {
        let (mut end, mut line_end, mut last) = (p, None, p);
        loop {
            let (cp, class, len) = self.at(end);
            if class & SPACE == 0 {
                return (end, line_end, last);
            }
            last = end;
            end += len;
            if cp == CR || cp == LF {
                line_end = Some(end);
            }
        }
    }

    /// Whether the text at `p` is the ASCII letter `lower` in either case (or a long s, for `s`).
    #[inline]
    fn letter(&self, p: usize, lower: u8, folded: bool) -> Option<usize> {
        let (cp, _, len) = self.at(p);
        let hit = cp == u32::from(lower)
            || (folded
                && (cp == u32::from(lower.to_ascii_uppercase())
                    || (lower == b's' && cp == LONG_S)));
        hit.then_some(p + len)
    }

    /// `'(?:[sdmt]|ll|ve|re)` (`folded`: `(?i:...)`) after an apostrophe that ends at `p`.
    fn contraction(&self, p: usize, folded: bool) -> Option<usize> {
        let one = |c| self.letter(p, c, folded);
        let two = |a, b| {
            self.letter(p, a, folded)
                .and_then(|q| self.letter(q, b, folded))
        };
        one(b's')
            .or_else(|| one(b'd'))
            .or_else(|| one(b'm'))
            .or_else(|| one(b't'))
            .or_else(|| two(b'l', b'l'))
            .or_else(|| two(b'v', b'e'))
            .or_else(|| two(b'r', b'e'))
    }

    fn r50k(&self, p: usize) -> usize {
        let (cp, class, len) = self.at(p);
        let q = p + len;
        if cp == APOSTROPHE {
            if let Some(end) = self.contraction(q, false) {
                return end;
            }
        }
        // ` ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++`: one class after an optional space.
        let (from, class) = if cp == SP && self.class(q) & (LETTER | NUMBER | OTHER) != 0 {
            (q, self.class(q))
        } else {
            (p, class)
        };
        for flag in [LETTER, NUMBER, OTHER] {
            if class & flag != 0 {
                return self.run(from, flag);
            }
        }
        // `\s++$|\s+(?!\S)|\s`
        let (end, _, last) = self.spaces(p);
        if end == self.b.len() {
            end
        } else if last > p {
            last
        } else {
            q
        }
    }

    fn cl100k(&self, p: usize) -> usize {
        let (cp, class, len) = self.at(p);
        let q = p + len;
        if class & LETTER != 0 {
            return self.run(q, LETTER);
        }
        if class & NUMBER != 0 {
            return self.numbers(q);
        }
        if cp == APOSTROPHE {
            if let Some(end) = self.contraction(q, true) {
                return end;
            }
        }
        // `[^\r\n\p{L}\p{N}]?+\p{L}++`: a letter run after one character that is none of those.
        if cp != CR && cp != LF && self.class(q) & LETTER != 0 {
            return self.run(q, LETTER);
        }
        // ` ?[^\s\p{L}\p{N}]++[\r\n]*+`
        if class & OTHER != 0 {
            return self.bytes_run(self.run(q, OTHER), b"\r\n");
        }
        if cp == SP && self.class(q) & OTHER != 0 {
            return self.bytes_run(self.run(q, OTHER), b"\r\n");
        }
        // `\s++$|\s*[\r\n]|\s+(?!\S)|\s`
        let (end, line_end, last) = self.spaces(p);
        if end == self.b.len() {
            end
        } else if let Some(line_end) = line_end {
            line_end
        } else if last > p {
            last
        } else {
            q
        }
    }

    fn o200k(&self, p: usize) -> usize {
        let (cp, class, len) = self.at(p);
        let q = p + len;
        // `[^\r\n\p{L}\p{N}]?` then a word, each alternative with the prefix taken first.
        let prefix = cp != CR && cp != LF && class & (LETTER | NUMBER) == 0;
        let word = |lower_first: bool| {
            let with_prefix = prefix.then(|| self.o200k_word(q, lower_first)).flatten();
            with_prefix.or_else(|| self.o200k_word(p, lower_first))
        };
        if let Some(end) = word(true).or_else(|| word(false)) {
            return end;
        }
        if class & NUMBER != 0 {
            return self.numbers(q);
        }
        // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
        if class & OTHER != 0 {
            return self.bytes_run(self.run(q, OTHER), b"\r\n/");
        }
        if cp == SP && self.class(q) & OTHER != 0 {
            return self.bytes_run(self.run(q, OTHER), b"\r\n/");
        }
        // `\s*[\r\n]+|\s+(?!\S)|\s+`
        let (end, line_end, last) = self.spaces(p);
        if let Some(line_end) = line_end {
            line_end
        } else if end == self.b.len() {
            end
        } else if last > p {
            last
        } else {
            end
        }
    }

    /// o200k's words from `p`: `U*W+C?` (`lower_first`) or `U+W*C?`.
    fn o200k_word(&self, p: usize, lower_first: bool) -> Option<usize> {
        // The run of U, and the end of the last W inside it (where `U*` gives back characters for `W+`).
        let (mut upper_end, mut last_lower) = (p, None);
        loop {
            let (_, class, len) = self.at(upper_end);
            if class & UPPER == 0 {
                break;
            }
            upper_end += len;
            if class & LOWER != 0 {
                last_lower = Some(upper_end);
            }
        }
        let end = if lower_first {
            if self.class(upper_end) & LOWER != 0 {
                self.run(upper_end, LOWER)
            } else {
                last_lower?
            }
        } else if upper_end > p {
            self.run(upper_end, LOWER)
        } else {
            return None;
        };
        Some(self.o200k_contraction(end))
    }

    /// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at `p`.
    fn o200k_contraction(&self, p: usize) -> usize {
        if self.b.get(p) != Some(&b'\'') {
            return p;
        }
        let q = p + 1;
        let one = |c| self.letter(q, c, true);
        let two = |a, b| {
            self.letter(q, a, true)
                .and_then(|r| self.letter(r, b, true))
        };
        one(b's')
            .or_else(|| one(b't'))
            .or_else(|| two(b'r', b'e'))
            .or_else(|| two(b'v', b'e'))
            .or_else(|| one(b'm'))
            .or_else(|| two(b'l', b'l'))
            .or_else(|| one(b'd'))
            .unwrap_or(p)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testdata;
    use super::*;

    const R50K: &str =
        r"'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s";
    const CL100K: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

    /// Each pattern with the regex it replaces, compiled once. tiktoken-rs holds the r50k and cl100k regexes
    /// privately: these are their text, and the count tests check against `encode_ordinary` itself.
    fn patterns() -> Vec<(Pattern, fancy_regex::Regex)> {
        [
            (Pattern::R50k, R50K),
            (Pattern::Cl100k, CL100K),
            (Pattern::O200k, tiktoken_rs::O200K_BASE_PAT_STR),
        ]
        .map(|(p, re)| (p, fancy_regex::Regex::new(re).unwrap()))
        .into()
    }

    fn assert_pieces(pattern: Pattern, regex: &fancy_regex::Regex, text: &str) {
        let want: Vec<&str> = regex.find_iter(text).map(|m| m.unwrap().as_str()).collect();
        let mut got = Vec::new();
        for_each_piece(pattern, text, |p| got.push(p));
        assert_eq!(got, want, "{pattern:?}: {text:?}");
    }

    #[test]
    fn edge_cases() {
        let cases = [
            "",
            "a",
            " ",
            "  ",
            "\n",
            "x  ",
            "x \n ",
            "x\n\n  y",
            "  \t\n  \r\n   z",
            "hello world",
            "it's WE'LL They'Re I'M 'ſ 'x",
            "don't HELLO'S HeLLo",
            " (hello) 'quoted' ’curly’",
            "12345 ٣٣٣٣ ¼½ Ⅻ",
            "caf\u{e9} cafe\u{301} \u{301}a a\u{301}b \u{301}!",
            "中文，测试。日本語、テスト！",
            "🙂🙂 👨\u{200d}👩 🇫🇷",
            "a/b //c\n/d ?/\n/",
            "\u{a0}x \u{3000}y \u{3000}\u{3000}z",
            "end   ",
            "end\n\n",
            "end \n \n ",
        ];
        for (pattern, regex) in patterns() {
            for text in cases {
                assert_pieces(pattern, &regex, text);
            }
        }
    }

    #[test]
    fn generated_texts() {
        let texts = testdata::generated(20_000, 40, 0x2545_F491_4F6C_DD1D);
        for (pattern, regex) in patterns() {
            for text in &texts {
                assert_pieces(pattern, &regex, text);
            }
        }
    }

    /// Every code point below U+3400 and a spread of the rest, in the contexts of `testdata::around`.
    #[test]
    fn around_characters() {
        let patterns = patterns();
        let chars = (0..0x3400).chain((0x3400..=0x10_FFFF).step_by(31));
        for c in chars.filter_map(char::from_u32) {
            let text = testdata::around(c);
            for (pattern, regex) in &patterns {
                assert_pieces(*pattern, regex, &text);
            }
        }
    }

    #[test]
    fn the_corpus() {
        let patterns = patterns();
        for (_, text) in testdata::corpus(200_000) {
            for (pattern, regex) in &patterns {
                assert_pieces(*pattern, regex, &text);
            }
        }
    }

    #[test]
    #[ignore = "minutes: the whole corpus; run with --ignored"]
    fn the_whole_corpus() {
        let patterns = patterns();
        for (_, text) in testdata::corpus(usize::MAX) {
            for (pattern, regex) in &patterns {
                assert_pieces(*pattern, regex, &text);
            }
        }
    }

    #[test]
    #[ignore = "minutes: every code point; run with --ignored"]
    fn around_every_character() {
        let patterns = patterns();
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let text = testdata::around(c);
            for (pattern, regex) in &patterns {
                assert_pieces(*pattern, regex, &text);
            }
        }
    }
}
