//! Character classes shared by the emitters.

/// Closing quotes and brackets: they stay on the left of a cut ("。」|", ")|").
#[inline]
pub fn is_closing(c: char) -> bool {
    matches!(
        c,
        '」' | '』'
            | '）'
            | '】'
            | '〕'
            | '〉'
            | '》'
            | '〗'
            | '〙'
            | '〛'
            | '”'
            | '’'
            | '"'
            | '\''
            | ')'
            | ']'
            | '}'
            | '＞'
            | '｝'
            | '］'
            | '＂'
            | '＇'
            | '»'
            | '›'
            | '｣'
    )
}

/// Opening quotes and brackets: a cut never falls right after one at word level.
#[inline]
pub fn is_opening(c: char) -> bool {
    matches!(
        c,
        '「' | '『'
            | '（'
            | '【'
            | '〔'
            | '〈'
            | '《'
            | '〖'
            | '〘'
            | '〚'
            | '“'
            | '‘'
            | '('
            | '['
            | '{'
            | '｛'
            | '［'
            | '«'
            | '‹'
            | '｢'
    )
}

/// Punctuation that ends a clause or a sentence; a chunk never starts with one of these at word level.
#[inline]
pub fn is_pause(c: char) -> bool {
    is_clause_punct(c) || is_terminator(c) || matches!(c, ',' | ';' | ':')
}

/// CJK clause punctuation: always a clause boundary, no space needed.
#[inline]
pub(crate) fn is_clause_punct(c: char) -> bool {
    matches!(
        c,
        '，' | '、' | '；' | '：' | '､' | '︐' | '︑' | '﹐' | '﹑' | '﹔' | '﹕'
    )
}

/// Sentence terminators (ASCII, CJK, Arabic, Devanagari, ...): the characters the sentence emitter cuts after, read
/// from its table so that there is one list.
#[inline]
pub(crate) fn is_terminator(c: char) -> bool {
    match c as u32 {
        0..=0x7F => return matches!(c, '.' | '!' | '?'),
        // Kana, Han and Hangul, asked about once a character on CJK text, hold none (。 is U+3002, ！ U+FF01, the
        // next one after 。 is Lisu's U+A4FF).
        0x3040..=0xA4FE | 0xAC00..=0xD7FF => return false,
        _ => {}
    }
    let mut buf = [0u8; 4];
    let s = c.encode_utf8(&mut buf);
    super::sentence::terminator_at(s.as_bytes(), 0).is_some_and(|(_, len)| len == s.len())
}

/// Han ideographs, kana, Hangul and CJK punctuation: scripts written without spaces between words.
#[inline]
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F | 0x3040..=0x30FF | 0x3100..=0x312F | 0x31F0..=0x31FF | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF | 0x20000..=0x3FFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminators_are_the_sentence_emitters() {
        // Once two lists: the word and line rules missed the Arabic, Urdu and Devanagari stops.
        for c in [
            '.', '!', '?', '。', '！', '？', '｡', '．', '…', '‼', '⁇', '⁈', '⁉', '⋯', '؟', '۔',
            '।', '॥', '։', '።', '፧', '፨', '។', '៕', '၊', '။', '‽', '︒', '﹒', '𑁇',
        ] {
            assert!(is_terminator(c), "{c:?}");
            assert!(is_pause(c), "{c:?}");
        }
        for c in [
            'a', ',', '，', '」', ' ', '\u{E3}', '\u{3001}', '\u{FF0C}', '\u{2026}',
        ] {
            assert_eq!(is_terminator(c), c == '…', "{c:?}");
        }
        // The fast paths agree with the table on every character.
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let s = c.encode_utf8(&mut buf);
            let listed = super::super::sentence::terminator_at(s.as_bytes(), 0)
                .is_some_and(|(_, len)| len == s.len());
            assert_eq!(is_terminator(c), listed, "{c:?}");
        }
    }
}
