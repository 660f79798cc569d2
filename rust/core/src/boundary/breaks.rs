//! Line terminators. Every Unicode mandatory line break ends a line: LF, CR, CRLF, VT, NEL (U+0085), LS (U+2028)
//! and PS (U+2029, which also ends a paragraph); FF ends a paragraph (it is a page break, see the paragraph
//! emitter).
//!
//! The line-based readers (the paragraph, line, wrap, sentence and clause emitters, and the structure parsers) are
//! written for LF and CRLF. Rather than teach each of them six more terminators, a text that holds any other one is
//! read through a *line view*: a copy of the same byte length in which every such terminator is spelled with LF or
//! CRLF, ending where the terminator ends (LS, three bytes, needs one space before its CRLF), and a leading byte
//! order mark is spaces. Every char boundary of the text is one of the view, so positions read off the view are positions of the
//! text; the few that fall inside a multi-byte terminator (after its padding) are not char boundaries of the text,
//! and the engine drops them like any cut inside a grapheme cluster. Sizes, words and graphemes are always read off
//! the text itself.
//!
//! Most texts hold none of these: the check is a few SIMD scans and the view is then the text itself.

use std::borrow::Cow;

/// The UTF-8 byte order mark.
const BOM: &str = "\u{feff}";

/// The multi-byte terminators and how the view spells each one (same length, ending in LF).
const WIDE: [(&str, &str); 3] = [
    ("\u{85}", "\r\n"),
    ("\u{2028}", " \r\n"),
    // A paragraph separator: a blank line.
    ("\u{2029}", "\n\r\n"),
];

/// Whether the line-based readers need a [`line_view`] of `text`: it holds a lone CR, a VT, NEL, LS or PS, or
/// starts with a byte order mark.
pub fn needs_view(text: &str) -> bool {
    text.starts_with(BOM) || terminator_in(text, 0, text.len())
}

/// Whether a terminator that needs a view (a VT, a lone CR, NEL, LS or PS) starts in `text[from..to]`: the bytes
/// after `to` are read to tell a CR followed by LF and the rest of a wide terminator. Checking a text block by
/// block, while each is in the cache, finds what one check of the whole finds.
pub fn terminator_in(text: &str, from: usize, to: usize) -> bool {
    let bytes = text.as_bytes();
    crate::simd::positions(&bytes[from..to], TERMINATOR_LEADS)
        .any(|p| terminator_at(bytes, from + p))
}

/// The first bytes of the terminators that need a view: a vertical tab, a CR (when no LF follows it), and the lead
/// bytes of the wide terminators (NEL is C2 85, LS and PS E2 80 A8/A9), which are rare in any script, where their
/// continuation bytes are common in CJK. Found in one pass for all.
pub(crate) const TERMINATOR_LEADS: [u8; 4] = [b'\x0b', b'\r', 0xC2, 0xE2];

/// Whether the byte at `p` of `bytes` (one of [`TERMINATOR_LEADS`]) starts a terminator that needs a view.
#[inline]
pub(crate) fn terminator_at(bytes: &[u8], p: usize) -> bool {
    let at = |p: usize| bytes.get(p).copied();
    match bytes[p] {
        b'\x0b' => true,
        b'\r' => at(p + 1) != Some(b'\n'),
        0xC2 => at(p + 1) == Some(0x85),
        0xE2 => at(p + 1) == Some(0x80) && matches!(at(p + 2), Some(0xA8 | 0xA9)),
        _ => false,
    }
}

/// `text` as the line-based readers see it: the text itself when it needs no view (the usual case), else a copy of
/// the same length with every line terminator but LF, CRLF and FF spelled with LF, and a leading byte order mark
/// made of spaces.
pub fn line_view(text: &str) -> Cow<'_, str> {
    if !needs_view(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    if let Some(after) = rest.strip_prefix(BOM) {
        out.push_str("   ");
        rest = after;
    }
    let mut chars = rest.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        match c {
            '\r' if chars.peek().is_some_and(|&(_, n)| n == '\n') => out.push('\r'),
            '\r' | '\x0b' => out.push('\n'),
            '\u{85}' | '\u{2028}' | '\u{2029}' => {
                let spelled = WIDE
                    .iter()
                    .find(|(t, _)| t.starts_with(c))
                    .map_or("\n", |(_, s)| s);
                out.push_str(spelled);
            }
            _ => out.push(c),
        }
    }
    debug_assert_eq!(out.len(), text.len());
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_its_own_view() {
        for text in [
            "",
            "a\nb",
            "a\r\nb\r\n",
            "page\x0cnext",
            "“quoted” — é 中文。",
            "© … \u{2027} \u{84}\r\n",
        ] {
            assert!(!needs_view(text), "{text:?}");
            assert!(matches!(line_view(text), Cow::Borrowed(_)));
        }
    }

    #[test]
    fn every_terminator_becomes_lf_at_the_same_end() {
        let cases = [
            ("a\rb", "a\nb"),
            ("a\r\rb", "a\n\nb"),
            ("a\r\r\nb", "a\n\r\nb"),
            ("a\x0bb", "a\nb"),
            ("a\u{85}b", "a\r\nb"),
            ("a\u{2028}b", "a \r\nb"),
            ("a\u{2029}b", "a\n\r\nb"),
            ("\u{feff}# T", "   # T"),
            ("x\u{feff}y\r", "x\u{feff}y\n"),
            ("end\r", "end\n"),
        ];
        for (text, view) in cases {
            assert!(needs_view(text), "{text:?}");
            let got = line_view(text);
            assert_eq!(got, view, "{text:?}");
            assert_eq!(got.len(), text.len());
            // Every char boundary of the text is one of the view.
            for (i, _) in text.char_indices() {
                assert!(got.is_char_boundary(i));
            }
        }
    }
}
