//! Lines compared normalized, for telling boilerplate (a site's navigation lines, a PDF's running heads) from
//! content: each line of a text that carries something, as a stable 64-bit key.
//!
//! A line is read case folded (Unicode lower case), every run of digits as one `0` (`Page 3 of 12` and `Page 41 of
//! 12` are one line), every run of whitespace as one space, leading and trailing whitespace dropped. A line without a
//! letter or digit (blank, `---`, `* * *`) carries nothing and has no key. The key is the XXH3 hash of the
//! normalized line's UTF-8, with a seed of its own: the same from run to run and machine to machine, so a document's
//! boilerplate can be part of its fingerprint.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The seed of line keys (apart from the seeds of chunk ids).
const SEED: u64 = 0x6c69_6e65_6b65_7973;

/// The length of the line break at `bytes[i]` (as Python's `str.splitlines` reads line breaks: `\n`, `\r`, `\x0b`,
/// `\x0c`, `\x1c` to `\x1e`, U+0085, U+2028, U+2029), or 0.
#[inline]
fn line_break(bytes: &[u8], i: usize) -> usize {
    match bytes[i] {
        b'\n' | b'\r' | 0x0B | 0x0C | 0x1C..=0x1E => 1,
        0xC2 if bytes.get(i + 1) == Some(&0x85) => 2,
        0xE2 if bytes.get(i + 1) == Some(&0x80)
            && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
        {
            3
        }
        _ => 0,
    }
}

/// What a byte is to the normalization of a line of ASCII.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Upper,
    Digit,
    Space,
    Other,
    Break,
    /// A byte of a character beyond ASCII: the line is read by [`normalize_chars`].
    High,
}

const fn class_of(b: u8) -> Class {
    match b {
        b'a'..=b'z' => Class::Letter,
        b'A'..=b'Z' => Class::Upper,
        b'0'..=b'9' => Class::Digit,
        b'\t' | b' ' => Class::Space,
        b'\n' | b'\r' | 0x0B | 0x0C | 0x1C..=0x1E => Class::Break,
        0x80..=0xFF => Class::High,
        _ => Class::Other,
    }
}

const CLASSES: [Class; 256] = {
    let mut table = [Class::Other; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = class_of(b as u8);
        b += 1;
    }
    table
};

/// Normalizes the line of ASCII that starts at `bytes[start]` into `out` (cleared first): `Some((end, carries))`,
/// `end` the position of its line break (or the text's end), or `None` at its first byte beyond ASCII (the line is
/// then read by [`normalize_chars`]). The same result as [`normalize_chars`] on an ASCII line, a byte at a time.
fn ascii_line(bytes: &[u8], start: usize, out: &mut Vec<u8>) -> Option<(usize, bool)> {
    out.clear();
    let mut carries = false;
    let mut space = false;
    let mut digits = false;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        let class = CLASSES[b as usize];
        match class {
            Class::Break => return Some((i, carries)),
            Class::High => return None,
            Class::Space => {
                space = !out.is_empty();
                digits = false;
            }
            _ => {
                if space {
                    out.push(b' ');
                    space = false;
                }
                match class {
                    Class::Digit => {
                        carries = true;
                        if !digits {
                            out.push(b'0');
                            digits = true;
                        }
                    }
                    Class::Letter => {
                        // A run of lower-case letters (most of a line) is copied at once.
                        carries = true;
                        digits = false;
                        let run = i;
                        while i + 1 < bytes.len() && CLASSES[bytes[i + 1] as usize] == Class::Letter
                        {
                            i += 1;
                        }
                        out.extend_from_slice(&bytes[run..=i]);
                    }
                    Class::Upper => {
                        carries = true;
                        digits = false;
                        out.push(b | 0x20);
                    }
                    _ => {
                        digits = false;
                        out.push(b);
                    }
                }
            }
        }
        i += 1;
    }
    Some((i, carries))
}

/// Hiragana, katakana, CJK unified ideographs and Hangul syllables: letters without case, neither digits nor
/// spaces (a test checks each against the Unicode tables), so most of a Chinese, Japanese or Korean line is read
/// without them.
#[inline]
fn is_cjk_letter(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}' | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}')
}

/// Writes the normalized form of one line to `out` (cleared first); whether it carries a letter or digit.
fn normalize_chars(line: &str, out: &mut Vec<u8>) -> bool {
    out.clear();
    let mut carries = false;
    let mut space = false;
    let mut digits = false;
    let mut buf = [0u8; 4];
    for c in line.chars() {
        if is_cjk_letter(c) {
            // Kana, CJK ideographs and Hangul syllables (most of a Chinese, Japanese or Korean line): letters, no
            // case, not digits, not spaces; read without the Unicode tables.
            if space {
                out.push(b' ');
                space = false;
            }
            carries = true;
            digits = false;
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        if c.is_whitespace() {
            space = !out.is_empty();
            digits = false;
            continue;
        }
        if space {
            out.push(b' ');
            space = false;
        }
        if c.is_numeric() {
            carries = true;
            if !digits {
                out.push(b'0');
                digits = true;
            }
            continue;
        }
        digits = false;
        if c.is_ascii() {
            carries |= c.is_ascii_alphabetic();
            out.push(c.to_ascii_lowercase() as u8);
        } else {
            carries |= c.is_alphabetic();
            for lower in c.to_lowercase() {
                out.extend_from_slice(lower.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    carries
}

/// The key of each line of `text` that carries a letter or digit, in order (a line repeated gives its key again).
pub fn line_keys(text: &str) -> Vec<u64> {
    let bytes = text.as_bytes();
    let mut keys = Vec::new();
    let mut normal = Vec::with_capacity(256);
    let mut start = 0;
    while start <= bytes.len() {
        let (end, carries) = match ascii_line(bytes, start, &mut normal) {
            Some(line) => line,
            None => {
                let mut end = start;
                while end < bytes.len() && line_break(bytes, end) == 0 {
                    end += 1;
                }
                // A break is whole characters: `start..end` lies on character boundaries.
                (end, normalize_chars(&text[start..end], &mut normal))
            }
        };
        if carries {
            keys.push(xxh3_64_with_seed(&normal, SEED));
        }
        start = end
            + if end < bytes.len() {
                line_break(bytes, end)
            } else {
                1
            };
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_case_and_spaces_are_normalized() {
        assert_eq!(line_keys("Page 3 of 12"), line_keys("  page 417   OF\t9 "));
        assert_ne!(line_keys("Page 3 of 12"), line_keys("Page of"));
        assert_eq!(line_keys("ÉCOLE 1"), line_keys("école 2"));
        assert_eq!(line_keys("第3页"), line_keys("第12页"));
    }

    #[test]
    fn lines_without_a_letter_or_digit_have_no_key() {
        assert!(line_keys("").is_empty());
        assert!(line_keys("---\n\n* * *\r\n   ").is_empty());
        assert_eq!(line_keys("a\r\nb\u{2028}a").len(), 3);
        assert_eq!(
            line_keys("a\u{85}b\u{2029}c\u{1E}d\x0be"),
            line_keys("a\nb\nc\nd\ne")
        );
        assert_eq!(line_keys("\u{2027}x\u{84}").len(), 1); // neighbours of the breaks are not breaks
        assert_eq!(
            line_keys("a\r\nb\u{2028}a")[0],
            line_keys("a\r\nb\u{2028}a")[2]
        );
    }

    #[test]
    fn ascii_lines_read_as_the_same_lines_among_other_characters() {
        // A line of ASCII takes the byte path, the same line beside one other character the char path.
        for line in [
            "  Page 3\tof  12 ",
            "Copyright 2026, ACME Inc.",
            "--- 0042 ---",
            "a_b",
            "\x01\x7f",
        ] {
            let mut ascii = Vec::new();
            let mut chars = Vec::new();
            let carries = normalize_chars(line, &mut chars);
            assert_eq!(
                ascii_line(line.as_bytes(), 0, &mut ascii),
                Some((line.len(), carries))
            );
            assert_eq!(ascii, chars, "{line:?}");
        }
    }

    /// The keys read the plain way: split at each break character, each line normalized a character at a time.
    fn reference(text: &str) -> Vec<u64> {
        let breaks = |c: char| {
            matches!(
                c,
                '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{1C}'
                    ..='\u{1E}' | '\u{85}' | '\u{2028}' | '\u{2029}'
            )
        };
        let mut out = Vec::new();
        let mut keys = Vec::new();
        for line in text.split(breaks) {
            if normalize_chars(line, &mut out) {
                keys.push(xxh3_64_with_seed(&out, SEED));
            }
        }
        keys
    }

    #[test]
    fn the_byte_path_gives_the_keys_of_the_plain_reading() {
        let alphabet: Vec<char> = "aZ09 \t\n\r\x0b\x0c\x1c\x1f_-.éÉ٣\u{85}\u{2028}\u{2029}\u{a0}日"
            .chars()
            .collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for case in 0..20_000 {
            let len = case % 24;
            let text: String = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            assert_eq!(line_keys(&text), reference(&text), "{text:?}");
        }
    }

    #[test]
    fn the_cjk_shortcut_reads_as_the_unicode_tables_do() {
        let cjk: Vec<char> = ('\0'..=char::MAX).filter(|&c| is_cjk_letter(c)).collect();
        assert!(cjk.len() > 30_000);
        for c in cjk {
            assert!(
                c.is_alphabetic() && !c.is_numeric() && !c.is_whitespace(),
                "{c:?}"
            );
            assert!(c.to_lowercase().eq([c]), "{c:?}");
        }
    }

    #[test]
    fn keys_are_stable() {
        // The same on every machine and run: a document's fingerprint holds them.
        assert_eq!(
            line_keys("hello world"),
            vec![xxh3_64_with_seed(b"hello world", SEED)]
        );
    }
}
