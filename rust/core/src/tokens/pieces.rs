//! The piece rules: where a text may be cut so that the tokenizer gives the same tokens with or without the cut.

use super::normalized::SpaceSides;

/// [`PieceRule::Spaces`]: cut before a space between two non-spaces, or with `newlines` before any space followed by a
/// non-space (and before CJK punctuation after a letter).
pub(super) fn space_pieces(
    text: &str,
    from: usize,
    to: usize,
    cjk_punct: bool,
    newlines: bool,
    f: &mut impl FnMut(usize, usize),
) {
    let bytes = text.as_bytes();
    // One loop over the stops, not a closure passed down: the decision stays inline (a call per stop, a space every
    // five bytes of prose, cost more in saved registers than the decision itself).
    let lo = (from + 1).min(to);
    let mut classes = cjk_punct.then(|| crate::simd::token_stops(bytes, lo, to, newlines));
    let mut spaces = (!cjk_punct).then(|| memchr::memchr_iter(b' ', &bytes[lo..to]));
    let mut start = from;
    loop {
        let i = match (&mut classes, &mut spaces) {
            (Some(stops), _) => stops.next(),
            (None, Some(spaces)) => spaces.next().map(|off| lo + off),
            (None, None) => None,
        };
        let Some(i) = i else { break };
        if let Some(cut) = space_cut(text, to, newlines, i) {
            f(start, cut);
            start = cut;
        }
    }
    f(start, to);
}

/// Where [`space_pieces`] cuts at the stop byte `i` of `text[..to]` (a space, a line break, punctuation), if it does.
#[inline(always)]
fn space_cut(text: &str, to: usize, newlines: bool, i: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    // The characters on either side of byte `i`, read without decoding when they are ASCII (most text's spaces
    // and punctuation sit between ASCII letters).
    let before = |i: usize| match bytes[i - 1] {
        b if b < 0x80 => char::from(b),
        _ => text[..i].chars().next_back().unwrap_or(' '),
    };
    let after = |j: usize| match bytes.get(j).filter(|_| j < to) {
        Some(&b) if b < 0x80 => Some(char::from(b)),
        Some(_) => text[j..to].chars().next(),
        None => None,
    };
    if matches!(bytes[i], b'\n' | b'\r') {
        // The end of a run of line breaks, before a non-space: cl100k and o200k end a token there (their
        // `\s*[\r\n]` and `[\r\n]*` take every break), and start the next one. Not before "/", which o200k
        // keeps with punctuation and breaks before it (`[\r\n/]*`).
        return after(i + 1)
            .is_some_and(|c| !c.is_whitespace() && c != '/')
            .then_some(i + 1);
    }
    let cut = match bytes[i] {
        // With tiktoken's regexes (`newlines`), also the last space of a run of whitespace: `\s+(?!\S)` ends
        // the run before it, and the space starts the next token (indented code, tables, spaces after a line
        // break). Metaspace and Hugging Face's ByteLevel are left to the narrower rule their sample checks.
        b' ' => {
            (newlines || !before(i).is_whitespace())
                && after(i + 1).is_some_and(|c| !c.is_whitespace())
        }
        // ASCII punctuation after a letter or digit starts a token (the letters' token never takes it).
        b if b.is_ascii() => is_letter_before_punct(before(i)),
        // A lead byte of the CJK punctuation (the needles are never continuation bytes).
        _ => {
            is_cjk_punct(text[i..].chars().next().unwrap_or(' '))
                && is_letter_before_punct(before(i))
        }
    };
    cut.then_some(i)
}

/// [`PieceRule::NormalizedSpaces`]: cut before a space that `sides` says the normalizer keeps a space on its own.
pub(super) fn normalized_space_pieces(
    text: &str,
    from: usize,
    to: usize,
    sides: &SpaceSides,
    f: &mut impl FnMut(usize, usize),
) {
    let mut start = from;
    let lo = (from + 1).min(to);
    for off in memchr::memchr_iter(b' ', &text.as_bytes()[lo..to]) {
        let i = lo + off;
        if i + 1 < to && sides.may_cut(text, from, to, i) {
            f(start, i);
            start = i;
        }
    }
    f(start, to);
}

/// CJK punctuation (all of Unicode category P): a token starts at it in byte-level BPE and tiktoken.
pub(super) fn is_cjk_punct(c: char) -> bool {
    matches!(
        c,
        '，' | '。'
            | '、'
            | '！'
            | '？'
            | '：'
            | '；'
            | '（'
            | '）'
            | '「'
            | '」'
            | '『'
            | '』'
            | '《'
            | '》'
            | '【'
            | '】'
    )
}

/// Characters that end a letter or number token in every supported regex: Han, kana, Hangul, ASCII letters and digits.
pub(super) fn is_letter_before_punct(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x3041..=0x3096 | 0x30A1..=0x30FA | 0xAC00..=0xD7A3)
}

/// Whitespace in BERT's sense that every BERT configuration splits on (its normalizer deletes other control
/// characters rather than splitting on them).
pub(super) fn is_bert_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r') || (c as u32 > 0x7F && c != '\u{85}' && c.is_whitespace())
}

/// [`PieceRule::Bert`]: words between whitespace, with ASCII and CJK punctuation and (with `chinese`) Han
/// characters as pieces of their own.
pub(super) fn bert_pieces(
    text: &str,
    from: usize,
    to: usize,
    chinese: bool,
    f: &mut impl FnMut(usize, usize),
) {
    // Only whitespace, punctuation and Han end a word: every other byte is inside one. A word runs from after the
    // last of those to the next.
    let bytes = text.as_bytes();
    let mut word_from = from;
    crate::simd::for_each_bert_stop(bytes, from, to, |i| {
        let b = bytes[i];
        let (len, alone) = if b < 0x80 {
            (1, b.is_ascii_punctuation())
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            if is_bert_space(c) {
                (c.len_utf8(), false)
            } else if is_cjk_punct(c) || (chinese && is_han(c)) {
                (c.len_utf8(), true)
            } else {
                return; // a letter of a word
            }
        };
        if word_from < i {
            f(word_from, i);
        }
        if alone {
            f(i, i + len);
        }
        word_from = i + len;
    });
    if word_from < to {
        f(word_from, to);
    }
}

/// Han characters that BERT's normalizer isolates (a subset of its list).
pub(super) fn is_han(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0xF900..=0xFAFF)
}

#[cfg(test)]
mod tests {
    /// The bytes the rule stops at, as the rule says them: the space, ASCII punctuation but the apostrophe (o200k
    /// keeps "'s" with the word before it), the lead bytes of the CJK punctuation, and the line breaks if asked.
    fn is_stop(b: u8, newlines: bool) -> bool {
        b == b' '
            || (b.is_ascii_punctuation() && b != b'\'')
            || b == 0xE3
            || b == 0xEF
            || (newlines && matches!(b, b'\n' | b'\r'))
    }

    /// BERT's pieces as the rule says them, char by char: words between whitespace, punctuation and (with
    /// `chinese`) Han characters alone.
    fn bert_by_chars(text: &str, chinese: bool) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices() {
            if super::is_bert_space(c) {
                out.extend(start.take().map(|s| (s, i)));
            } else if c.is_ascii_punctuation()
                || super::is_cjk_punct(c)
                || (chinese && super::is_han(c))
            {
                out.extend(start.take().map(|s| (s, i)));
                out.push((i, i + c.len_utf8()));
            } else if start.is_none() {
                start = Some(i);
            }
        }
        out.extend(start.map(|s| (s, text.len())));
        out
    }

    #[test]
    fn bert_pieces_are_those_of_the_rule_read_char_by_char() {
        let samples = [
            "Hello, world! It's 3.14 -- ok?\tTabs\r\nand\u{3000}ideographic spaces\u{a0}nbsp \u{85}nel",
            "中文的句子，日本語です。「引用」！한국어 문장입니다. Ünïcödé wörds; emoji 🙂🙂 end",
            "   leading and trailing   ",
            "",
            "a",
            "...!!!???",
        ];
        let long: String = samples.concat().repeat(5);
        for text in samples.iter().copied().chain([long.as_str()]) {
            for chinese in [false, true] {
                let mut got = Vec::new();
                super::bert_pieces(text, 0, text.len(), chinese, &mut |a, b| got.push((a, b)));
                assert_eq!(
                    got,
                    bert_by_chars(text, chinese),
                    "{text:?} chinese {chinese}"
                );
            }
        }
    }

    #[test]
    fn the_vector_scan_stops_at_every_rule_byte_and_no_other() {
        // Every byte value at every offset of a 64-byte block and of the partial block after it.
        let mut bytes: Vec<u8> = (0..=255u8).cycle().take(256 * 3 + 37).collect();
        for rotate in [0, 1, 63] {
            bytes.rotate_left(rotate);
            for newlines in [false, true] {
                for (from, to) in [(0, bytes.len()), (5, bytes.len() - 3), (70, 71), (9, 9)] {
                    let found: Vec<usize> =
                        crate::simd::token_stops(&bytes, from, to, newlines).collect();
                    let expected: Vec<usize> = (from..to)
                        .filter(|&i| is_stop(bytes[i], newlines))
                        .collect();
                    assert_eq!(found, expected, "{from}..{to}, newlines {newlines}");
                    let mut found = Vec::new();
                    crate::simd::for_each_bert_stop(&bytes, from, to, |i| found.push(i));
                    let bert =
                        |b: u8| b" \t\n\r".contains(&b) || b.is_ascii_punctuation() || b >= 0xC0;
                    let expected: Vec<usize> = (from..to).filter(|&i| bert(bytes[i])).collect();
                    assert_eq!(found, expected, "BERT, {from}..{to}");
                }
            }
        }
    }
}
