//! Where a Metaspace tokenizer with a SentencePiece normalizer (XLM-R's, T5's) may be cut: before a space that the
//! normalizer leaves a single space between two characters it keeps non-blank.
//!
//! Such a normalizer is SentencePiece's own, precompiled (a table of strings to their replacements, applied to each
//! grapheme cluster), then a collapse of space runs and a strip of trailing whitespace. It is not char-local: it maps
//! U+00A0, U+3000, U+2000..U+200B and others to a space, U+00A8 and U+00B4 to a space and a combining mark, deletes
//! control characters, and the collapse joins a space with the spaces next to it. A space whose neighbours it keeps
//! non-blank stays one space on its own, in the text and in the two pieces alike; Metaspace then starts a pre-token
//! there, and prepends nothing to the piece after it (which starts with "▁"). Which neighbours are safe is found
//! once per tokenizer, by running its precompiled table on every code point of the first three planes.

use serde_json::Value;
use tokenizers::NormalizerWrapper;
use unicode_segmentation::GraphemeCursor;

/// A character that may not end the piece before a cut: blank, or normalized to nothing or to a string ending in
/// whitespace (which would join the space after it).
const NOT_BEFORE: u8 = 1;
/// A character that may not start the text after the space of a cut: blank, or normalized to nothing or to a
/// string starting with whitespace.
const NOT_AFTER: u8 = 2;

/// The characters past the planes that are looked at (the BMP, emoji and the rest of the SMP, CJK extensions B to
/// F): refused on either side of a cut, as not looked at. Running the table on every code point would take 5x as
/// long (about 15 ms), for CJK extensions G and H, tags and private use.
const LAST_LOOKED_AT: char = '\u{2FFFF}';

/// The characters next to which a space may not be cut, found from the tokenizer's normalizer.
#[derive(Debug)]
pub(super) struct SpaceSides {
    ascii: [u8; 128],
    /// The other characters up to [`LAST_LOOKED_AT`] with flags, sorted.
    other: Vec<(char, u8)>,
}

/// Whether `normalizer` (a tokenizer.json's) is one whose effect on a space is known: an optional precompiled table
/// first, then any of a collapse of space runs (`" {2,}"`, into anything) and a strip of trailing whitespace. The
/// last two see a space between two non-blank characters as a space on its own, and keep it.
pub(super) fn known_normalizer(normalizer: &Value) -> bool {
    let steps: Vec<&Value> = match normalizer["type"].as_str() {
        Some("Sequence") => match normalizer["normalizers"].as_array() {
            Some(steps) => steps.iter().collect(),
            None => return false,
        },
        Some(_) => vec![normalizer],
        None => return false,
    };
    steps
        .iter()
        .enumerate()
        .all(|(k, step)| match step["type"].as_str() {
            // First: it sees the text as it is, grapheme clusters and all (see `SpaceSides::may_cut`).
            Some("Precompiled") => k == 0,
            Some("Replace") => step["pattern"]["Regex"] == " {2,}",
            Some("Strip") => step["strip_left"] == false,
            _ => false,
        })
}

impl SpaceSides {
    /// The sides of a space for the tokenizer's own normalizer, one that [`known_normalizer`] accepts: its
    /// precompiled table, if any, is run on every code point up to [`LAST_LOOKED_AT`]. None if the table does not
    /// keep a space a space.
    pub(super) fn of_normalizer(normalizer: Option<&NormalizerWrapper>) -> Option<Self> {
        let table = match normalizer {
            Some(NormalizerWrapper::Precompiled(table)) => Some(table),
            Some(NormalizerWrapper::Sequence(steps)) => match steps.as_ref().first() {
                Some(NormalizerWrapper::Precompiled(table)) => Some(table),
                _ => None,
            },
            _ => None,
        };
        // One character is one grapheme cluster, which the table replaces whole if it holds it.
        let normalize = |s: &str| table.and_then(|t| t.transform(s));
        if normalize(" ").is_some_and(|out| out != " ") {
            return None;
        }
        let mut sides = Self {
            ascii: [0; 128],
            other: Vec::new(),
        };
        let mut buf = [0u8; 4];
        for c in (0..=LAST_LOOKED_AT as u32).filter_map(char::from_u32) {
            let (first, last) = match normalize(c.encode_utf8(&mut buf)) {
                Some(out) => (out.chars().next(), out.chars().next_back()),
                None => (Some(c), Some(c)),
            };
            let blank =
                |edge: Option<char>| c.is_whitespace() || edge.is_none_or(char::is_whitespace);
            let mut flags = 0;
            if blank(last) {
                flags |= NOT_BEFORE;
            }
            if blank(first) {
                flags |= NOT_AFTER;
            }
            if c.is_ascii() {
                sides.ascii[c as usize] = flags;
            } else if flags != 0 {
                sides.other.push((c, flags));
            }
        }
        Some(sides)
    }

    fn flags(&self, c: char) -> u8 {
        if c.is_ascii() {
            return self.ascii[c as usize];
        }
        if c > LAST_LOOKED_AT {
            return NOT_BEFORE | NOT_AFTER;
        }
        self.other
            .binary_search_by_key(&c, |&(k, _)| k)
            .map_or(0, |k| self.other[k].1)
    }

    /// Whether `text[from..to]` may be cut before the space at `i` (`from < i`, `i + 1 < to`).
    ///
    /// With x the character before the space and y the one after it: x is normalized to a non-empty string that
    /// ends in a non-blank, y to one that starts with a non-blank, and x, the space and y are grapheme clusters on
    /// their own (the table replaces whole clusters: a space before a combining mark is one cluster, and a cluster
    /// of U+00A0 and a mark becomes a space). Those clusters are then the same in the text and in the two pieces,
    /// and normalized alike; the space stays a single space, which the collapse of space runs leaves alone.
    ///
    /// That x starts a cluster is decided from x and the character w before it alone: x does not join w, and w
    /// joins nothing before it (the rules that look further back, for emoji sequences and Indic conjuncts, need w to
    /// be a ZWJ or a mark; pairs of regional indicators are refused as a pair). So a cut seen in a longer text is a
    /// cut in any shorter one around it, as the window's reuse of pieces needs. Likewise, y ends its cluster when the
    /// character z after it does not join y: after a space, y's cluster depends on y and z alone.
    pub(super) fn may_cut(&self, text: &str, from: usize, to: usize, i: usize) -> bool {
        let bytes = text.as_bytes();
        let (x, y) = (bytes[i - 1], bytes[i + 1]);
        if x < 0x80 && y < 0x80 {
            if self.ascii[x as usize] & NOT_BEFORE != 0 || self.ascii[y as usize] & NOT_AFTER != 0 {
                return false;
            }
            // ASCII characters are clusters on their own but for CR LF, and x and y are not blank.
            let w_ascii = i - 1 == from || bytes[i - 2] < 0x80;
            let z_ascii = i + 2 == to || bytes[i + 2] < 0x80;
            if w_ascii && z_ascii {
                return true;
            }
        }
        let (Some(x), Some(y)) = (
            text[from..i].chars().next_back(),
            text[i + 1..to].chars().next(),
        ) else {
            return false;
        };
        if self.flags(x) & NOT_BEFORE != 0 || self.flags(y) & NOT_AFTER != 0 {
            return false;
        }
        if !apart(x, ' ') || !apart(' ', y) {
            return false;
        }
        let x_at = i - x.len_utf8();
        if let Some(w) = text[from..x_at].chars().next_back() {
            if !apart(w, x) || !apart('a', w) {
                return false;
            }
        }
        let y_end = i + 1 + y.len_utf8();
        if let Some(z) = text[y_end..to].chars().next() {
            if !apart(y, z) {
                return false;
            }
        }
        true
    }
}

/// Whether the text `ab` has a grapheme cluster boundary between `a` and `b`.
fn apart(a: char, b: char) -> bool {
    let mut buf = [0u8; 8];
    let n = a.encode_utf8(&mut buf).len();
    let m = b.encode_utf8(&mut buf[n..]).len();
    let s = std::str::from_utf8(&buf[..n + m]).unwrap_or("");
    GraphemeCursor::new(n, s.len(), true)
        .is_boundary(s, 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::pieces::normalized_space_pieces;

    /// The sides of a normalizer without a precompiled table: only blanks are refused by character, the grapheme
    /// clusters are checked as with one.
    fn sides() -> SpaceSides {
        SpaceSides::of_normalizer(None).unwrap()
    }

    fn cuts(sides: &SpaceSides, text: &str, from: usize, to: usize) -> Vec<usize> {
        let mut out = Vec::new();
        normalized_space_pieces(text, from, to, sides, &mut |a, _| out.push(a));
        out.retain(|&a| a > from);
        out
    }

    #[test]
    fn the_known_normalizers_are_a_table_then_space_collapses_and_right_strips() {
        let table = r#"{"type":"Precompiled","precompiled_charsmap":""}"#;
        let collapse = r#"{"type":"Replace","pattern":{"Regex":" {2,}"},"content":"▁"}"#;
        let strip = r#"{"type":"Strip","strip_left":false,"strip_right":true}"#;
        let seq = |steps: &[&str]| {
            format!(
                r#"{{"type":"Sequence","normalizers":[{}]}}"#,
                steps.join(",")
            )
        };
        for (json, known) in [
            (table.to_owned(), true),
            (collapse.to_owned(), true),
            (seq(&[table, collapse]), true),
            (seq(&[table, strip, collapse]), true),
            (seq(&[collapse, strip]), true),
            (seq(&[]), true),
            (seq(&[collapse, table]), false),
            (seq(&[table, r#"{"type":"NFKC"}"#]), false),
            (seq(&[table, r#"{"type":"Lowercase"}"#]), false),
            (
                seq(&[r#"{"type":"Strip","strip_left":true,"strip_right":true}"#]),
                false,
            ),
            (
                seq(&[r#"{"type":"Replace","pattern":{"String":"``"},"content":"\""}"#]),
                false,
            ),
            (
                seq(&[r#"{"type":"Replace","pattern":{"Regex":" +"},"content":" "}"#]),
                false,
            ),
            (seq(&[&seq(&[collapse])]), false),
            (r#"{"type":"BertNormalizer"}"#.to_owned(), false),
            ("null".to_owned(), false),
        ] {
            let value: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(known_normalizer(&value), known, "{json}");
        }
    }

    #[test]
    fn a_space_is_cut_only_between_clusters_of_their_own() {
        let sides = sides();
        for (text, cut) in [
            ("ab cd", true),
            ("a b", true),
            ("\u{4e2d} \u{6587}", true),
            ("ab\u{a0} cd", false),          // blank before the space
            ("ab \u{3000}cd", false),        // blank after it
            ("ab \u{301}cd", false),         // a space under a combining mark is one cluster
            ("ab \u{200d}cd", false),        // and so is one before a ZWJ
            ("ab\u{600} cd", false),         // an Arabic number sign joins what follows it
            ("a\u{a0}\u{301} b", false),     // the mark is in U+00A0's cluster
            ("ab\u{94d}\u{915} b", false),   // after a virama: may be a conjunct
            ("\u{1f1eb}\u{1f1f7} a", false), // a pair of regional indicators
            ("ab c\u{301}", false),          // the cluster after the space goes on past c
            ("ab c\u{301}d", false),
            ("e\u{301}x b", false), // a mark before x: refused, as a ZWJ or a virama there could join x
            ("\u{e9}x b", true),
            ("\u{1f642} \u{1f642}", true),
            ("\u{2a6d6} \u{2a6d6}", true),
            ("ab \u{31350}", false), // past the planes looked at
            ("\u{f0000} ab", false),
        ] {
            let i = text.find(' ').unwrap();
            let found = cuts(&sides, text, 0, text.len());
            assert_eq!(found == [i], cut, "{text:?}: {found:?}");
        }
    }

    #[test]
    fn a_cut_in_a_text_is_a_cut_in_every_slice_around_it() {
        // The window's reuse of pieces needs it: a cut depends on the characters near it, and fewer of them never
        // refuse a cut that more allowed.
        let sides = sides();
        let text = "ab cd\u{a0} e\u{301} f \u{301}g h\u{600} i\u{1f1eb}\u{1f1f7} j\u{94d}\u{915} k \u{1f642} l m \u{e9}n o\u{301}p q";
        let all = cuts(&sides, text, 0, text.len());
        assert!(all.len() >= 5, "{all:?}");
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &from in &bounds {
            for &to in bounds.iter().filter(|&&to| to > from) {
                let found = cuts(&sides, text, from, to);
                for &c in all.iter().filter(|&&c| from < c && c + 1 < to) {
                    assert!(
                        found.contains(&c),
                        "{from}..{to} lost the cut at {c}: {found:?}"
                    );
                }
            }
        }
    }
}
