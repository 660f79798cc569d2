//! Word boundaries (UAX #29), with Thai, Lao, Khmer and Myanmar words from a dictionary (`dictionary`). Each CJK
//! ideograph is its own word. Whitespace and trailing punctuation stay with the word before them, and an opening
//! bracket with the word after it, so a piece never starts with "，" or ")".

use super::chars::{is_closing, is_opening, is_pause};
use super::{Boundary, Level};
use unicode_segmentation::UnicodeSegmentation;

pub(super) fn emit(text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
    let slice = &text[from..to];
    if slice.is_ascii() {
        place_ascii(slice.as_bytes(), from, level, out);
    } else if super::dictionary::has_dictionary_script(slice.as_bytes()) {
        place(
            from,
            level,
            super::dictionary::words(text, from, to).into_iter(),
            out,
        );
    } else {
        place(from, level, slice.split_word_bound_indices(), out);
    }
}

/// Emits a boundary before each word that does not attach to its neighbour. `words`: (offset in `slice`, word).
fn place<'a>(
    from: usize,
    level: Level,
    words: impl Iterator<Item = (usize, &'a str)>,
    out: &mut Vec<Boundary>,
) {
    let mut prev_opening = false;
    for (i, word) in words {
        let c = word.chars().next().unwrap_or(' ');
        // A long run of padding does not stay with the word before it: a look-ahead window must see a cut there.
        let padding = c.is_whitespace() && word.len() > super::sentence::MAX_TRAILING_SPACES;
        let attach_left = (c.is_whitespace() && !padding) || is_closing(c) || is_pause(c);
        if i > 0 && !attach_left && !prev_opening {
            out.push(Boundary {
                pos: from + i,
                level,
            });
        }
        prev_opening = word.chars().next_back().is_some_and(is_opening);
    }
}

/// `place` over the words of an ASCII text, with the breaks and the character tests done on bytes:
/// unicode-segmentation's per-character table lookups cost ten times more on long runs of punctuation, such as
/// the rules of a text table.
fn place_ascii(bytes: &[u8], from: usize, level: Level, out: &mut Vec<Boundary>) {
    let mut prev_opening = false;
    let mut start = 0;
    while start < bytes.len() {
        let end = (start + 1..bytes.len())
            .find(|&i| is_break(bytes, i))
            .unwrap_or(bytes.len());
        let c = bytes[start];
        let space = c.is_ascii_whitespace() || c == 0x0B; // char::is_whitespace on ASCII
        let padding = space && end - start > super::sentence::MAX_TRAILING_SPACES;
        let attach_left = (space && !padding)
            || matches!(c, b'"' | b'\'' | b')' | b']' | b'}') // is_closing
            || matches!(c, b'.' | b'!' | b'?' | b',' | b';' | b':'); // is_pause
        if start > 0 && !attach_left && !prev_opening {
            out.push(Boundary {
                pos: from + start,
                level,
            });
        }
        prev_opening = matches!(bytes[end - 1], b'(' | b'[' | b'{'); // is_opening
        start = end;
    }
}

/// UAX #29 word break classes of the ASCII characters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Numeric,
    /// "_" (ExtendNumLet).
    Connector,
    /// ":" (MidLetter).
    MidLetter,
    /// "." and "'" (MidNumLet, Single_Quote).
    MidNumLetQ,
    /// "," and ";" (MidNum).
    MidNum,
    /// " " (WSegSpace).
    Space,
    Cr,
    Lf,
    /// Vertical tab and form feed (Newline).
    Newline,
    Other,
}

const fn class_of(b: u8) -> Class {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
        b'0'..=b'9' => Class::Numeric,
        b'_' => Class::Connector,
        b':' => Class::MidLetter,
        b'.' | b'\'' => Class::MidNumLetQ,
        b',' | b';' => Class::MidNum,
        b' ' => Class::Space,
        b'\r' => Class::Cr,
        b'\n' => Class::Lf,
        0x0B | 0x0C => Class::Newline,
        _ => Class::Other,
    }
}

const fn class_table() -> [Class; 128] {
    let mut t = [Class::Other; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = class_of(b as u8);
        b += 1;
    }
    t
}
static CLASSES: [Class; 128] = class_table();

#[inline]
fn class(b: u8) -> Class {
    CLASSES[(b & 0x7F) as usize] // the caller's text is ASCII
}

/// Whether UAX #29 puts a word boundary before `bytes[i]` (0 < i < len), for ASCII text. The rules that only
/// concern non-ASCII classes (Extend, Format, ZWJ, Hebrew, Katakana, regional indicators) cannot apply.
#[inline]
fn is_break(bytes: &[u8], i: usize) -> bool {
    use Class::*;
    let (a, b) = (class(bytes[i - 1]), class(bytes[i]));
    let before = || (i >= 2).then(|| class(bytes[i - 2]));
    let after = || bytes.get(i + 1).map(|&c| class(c));
    match (a, b) {
        (Cr, Lf) => false,                                                    // WB3
        (Cr | Lf | Newline, _) | (_, Cr | Lf | Newline) => true,              // WB3a, WB3b
        (Space, Space) => false,                                              // WB3d
        (Letter, Letter) => false,                                            // WB5
        (Letter, MidLetter | MidNumLetQ) => after() != Some(Letter),          // WB6
        (MidLetter | MidNumLetQ, Letter) => before() != Some(Letter),         // WB7
        (Numeric, Numeric) | (Letter, Numeric) | (Numeric, Letter) => false,  // WB8, WB9, WB10
        (MidNum | MidNumLetQ, Numeric) if before() == Some(Numeric) => false, // WB11
        (Numeric, MidNum | MidNumLetQ) => after() != Some(Numeric),           // WB12
        (Letter | Numeric | Connector, Connector) => false,                   // WB13a
        (Connector, Letter | Numeric) => false,                               // WB13b
        _ => true,                                                            // WB999
    }
}

/// The words of an ASCII text, as `split_word_bound_indices` gives them: what `place_ascii` walks through, kept
/// to test `is_break` against unicode-segmentation.
#[cfg(test)]
fn ascii_words(bytes: &[u8]) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = (start + 1..bytes.len())
            .find(|&i| is_break(bytes, i))
            .unwrap_or(bytes.len());
        let word = std::str::from_utf8(&bytes[start..end]).ok()?;
        let item = (start, word);
        start = end;
        Some(item)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        emit(text, 0, text.len(), Level::WORD, &mut out);
        out.iter().map(|b| b.pos).collect()
    }

    #[test]
    fn words() {
        assert_eq!(positions("Hello, world"), vec![7]);
        assert_eq!(positions("a (b) c"), vec![2, 6]);
        assert_eq!(positions("你好，世界"), vec![3, 9, 12]);
        let padded = format!("ab{}cd", " ".repeat(40));
        assert_eq!(positions(&padded), vec![2, 42]);
    }

    /// The ASCII fast path gives the words of unicode-segmentation on every string over an alphabet of each
    /// class, with the look-ahead and look-behind rules (WB6, WB7, WB11, WB12) exercised densely.
    #[test]
    fn ascii_words_agree_with_uax29() {
        let alphabet = b"aZ09_:.',; \r\n\x0b\x0c-\t!\"()[]{}?";
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..50_000 {
            let len = if next() % 8 == 0 {
                40
            } else {
                (next() % 12) as usize
            };
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let text = std::str::from_utf8(&bytes).unwrap();
            let fast: Vec<(usize, &str)> = ascii_words(&bytes).collect();
            let uax: Vec<(usize, &str)> = text.split_word_bound_indices().collect();
            assert_eq!(fast, uax, "{text:?}");
            let (mut fast, mut general) = (Vec::new(), Vec::new());
            place_ascii(&bytes, 3, Level::WORD, &mut fast);
            place(3, Level::WORD, uax.into_iter(), &mut general);
            assert_eq!(fast, general, "{text:?}");
        }
    }
}
