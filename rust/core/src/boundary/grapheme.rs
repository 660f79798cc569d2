//! Extended grapheme clusters (UAX #29): the floor of every strategy; no cut ever falls inside one.

use super::{Boundary, Level};
use unicode_segmentation::GraphemeCursor;

pub(super) fn emit(text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
    let slice = &text[from..to];
    if slice.is_ascii() {
        // Every ASCII position is a cluster boundary except between CR and LF.
        let bytes = slice.as_bytes();
        for i in 1..=bytes.len() {
            if !(bytes[i - 1] == b'\r' && bytes.get(i) == Some(&b'\n')) {
                out.push(Boundary {
                    pos: from + i,
                    level,
                });
            }
        }
        return;
    }
    // Between two "simple" characters every char boundary is a cluster boundary; UAX #29 decides the rest.
    let mut pos = from;
    while pos < to {
        let c = text[pos..].chars().next().map_or('\0', |c| c);
        let next = pos + c.len_utf8();
        let end = match text[next.min(text.len())..].chars().next() {
            Some(n) if next < to && is_simple(c) && is_simple(n) => next,
            _ => next_grapheme_boundary(text, pos).min(to),
        };
        out.push(Boundary { pos: end, level });
        pos = end;
    }
}

/// Characters that never join a neighbour that is also simple: ASCII but CR, Latin-1 and Latin Extended letters,
/// CJK punctuation (not the ideographic tone marks), kana (not the combining sound marks), Han ideographs, Hangul
/// syllables, fullwidth forms.
#[inline]
fn is_simple(c: char) -> bool {
    let u = c as u32;
    (u < 0x300 && u != 0x0D)
        || (0x3000..=0x3029).contains(&u)
        || (0x3030..=0x3098).contains(&u)
        || (0x309B..=0x9FFF).contains(&u)
        || (0xAC00..=0xD7A3).contains(&u)
        || (0xFF00..=0xFF9D).contains(&u)
}

/// The first cluster boundary after byte `pos` (a char boundary), or the text length.
pub fn next_grapheme_boundary(text: &str, pos: usize) -> usize {
    let mut cursor = GraphemeCursor::new(pos, text.len(), true);
    cursor
        .next_boundary(text, 0)
        .ok()
        .flatten()
        .unwrap_or(text.len())
}

/// The last cluster boundary before byte `pos` (a char boundary), or 0.
pub fn prev_grapheme_boundary(text: &str, pos: usize) -> usize {
    let mut cursor = GraphemeCursor::new(pos, text.len(), true);
    cursor.prev_boundary(text, 0).ok().flatten().unwrap_or(0)
}

/// Whether a cut at byte `pos` falls between two grapheme clusters of `text`.
pub fn is_grapheme_boundary(text: &str, pos: usize) -> bool {
    if pos == 0 || pos >= text.len() {
        return pos <= text.len();
    }
    if !text.is_char_boundary(pos) {
        return false;
    }
    let bytes = text.as_bytes();
    let (before, after) = (bytes[pos - 1], bytes[pos]);
    // Every line and paragraph boundary is asked: nothing glues to what follows a line feed (GB4).
    if before == b'\n' {
        return true;
    }
    if before < 0x80 && after < 0x80 {
        return !(before == b'\r' && after == b'\n');
    }
    // Fast path: a CJK or ASCII character after the cut, and before it a character that cannot glue to what follows
    // (only Prepend marks, from U+0600 on outside CJK, and Hangul jamo do).
    let next = text[pos..].chars().next().map_or(0, |c| c as u32);
    let prev = text[..pos].chars().next_back().map_or(0, |c| c as u32);
    // (U+302A..U+302F, the ideographic tone marks, extend the character before them.)
    let simple_next = next < 0x80
        || (0x3000..=0x3029).contains(&next)
        || (0x3030..=0x3098).contains(&next)
        || (0x309B..=0x9FFF).contains(&next)
        || (0xFF00..=0xFF9D).contains(&next);
    let simple_prev = prev < 0x0600 && prev != 0x0D
        || (0x3000..=0x9FFF).contains(&prev)
        || (0xFF00..=0xFFEF).contains(&prev);
    if simple_next && simple_prev {
        return true;
    }
    let mut cursor = GraphemeCursor::new(pos, text.len(), true);
    cursor.is_boundary(text, 0).unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_are_never_split() {
        let family = "👨\u{200d}👩\u{200d}👧";
        let text = format!("a{family}e\u{301}한국");
        let mut out = Vec::new();
        emit(&text, 0, text.len(), Level::GRAPHEME, &mut out);
        let pos: Vec<usize> = out.iter().map(|b| b.pos).collect();
        assert_eq!(
            pos,
            vec![
                1,
                1 + family.len(),
                4 + family.len(),
                7 + family.len(),
                text.len()
            ]
        );
        assert!(!is_grapheme_boundary(&text, 5));
        assert!(!is_grapheme_boundary("e\u{301}", 1));
        assert!(!is_grapheme_boundary("\r\n", 1));
        assert!(is_grapheme_boundary("ab", 1));
        assert!(is_grapheme_boundary("中文", 3));
        assert!(!is_grapheme_boundary("か\u{3099}", 3));
        assert!(is_grapheme_boundary("é中", 2));
        assert!(!is_grapheme_boundary("\u{0600}a", 2));
    }

    #[test]
    fn emitter_agrees_with_uax29() {
        use unicode_segmentation::UnicodeSegmentation;
        let text = mixed_text();
        for (from, to) in [
            (0, text.len()),
            (5, text.len() / 2),
            (text.len() / 3, text.len()),
        ] {
            let (from, to) = (ceil(&text, from), ceil(&text, to));
            let mut out = Vec::new();
            emit(&text, from, to, Level::GRAPHEME, &mut out);
            let got: Vec<usize> = out.iter().map(|b| b.pos).filter(|&p| p < to).collect();
            let expected: Vec<usize> = text[from..to]
                .grapheme_indices(true)
                .map(|(i, g)| from + i + g.len())
                .filter(|&p| p < to && is_grapheme_boundary(&text, p))
                .collect();
            assert_eq!(got, expected);
        }
    }

    fn ceil(text: &str, mut i: usize) -> usize {
        while !text.is_char_boundary(i) {
            i += 1;
        }
        i
    }

    fn mixed_text() -> String {
        let pieces = [
            "a",
            "中",
            "か",
            "\u{3099}",
            "\r",
            "\n",
            "\u{0600}",
            "\u{200d}",
            "👩",
            "e\u{301}",
            "한",
            "\u{1100}",
            "\u{1161}",
            "ｶ",
            "\u{ff9e}",
            "。",
            " ",
            "🇯",
            "🇵",
            "\u{0915}\u{094d}",
        ];
        let mut text = String::new();
        let mut seed = 7u64;
        for _ in 0..4000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
        }
        text
    }

    #[test]
    fn fast_path_agrees_with_uax29() {
        let text = mixed_text();
        for pos in (0..=text.len()).filter(|&p| text.is_char_boundary(p)) {
            let mut cursor = GraphemeCursor::new(pos, text.len(), true);
            let expected = cursor.is_boundary(&text, 0).unwrap();
            assert_eq!(
                is_grapheme_boundary(&text, pos),
                expected,
                "at {pos}: {:?}",
                &text[pos.saturating_sub(8)..]
            );
        }
    }
}
