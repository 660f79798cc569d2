//! Extended grapheme clusters (UAX #29): the floor of every strategy; no cut ever falls inside one.

use super::{Boundary, Level};
use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

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
    for (i, g) in slice.grapheme_indices(true) {
        out.push(Boundary {
            pos: from + i + g.len(),
            level,
        });
    }
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
    if before < 0x80 && after < 0x80 {
        return !(before == b'\r' && after == b'\n');
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
    }
}
