//! The piece rules: where a text may be cut so that the tokenizer gives the same tokens with or without the cut.

/// [`PieceRule::Spaces`]: cut before a space between two non-spaces (and before CJK punctuation after a letter).
pub(super) fn space_pieces(
    text: &str,
    from: usize,
    to: usize,
    cjk_punct: bool,
    newlines: bool,
    f: &mut impl FnMut(usize, usize),
) {
    let bytes = text.as_bytes();
    let mut start = from;
    let mut i = from + 1;
    let table = if newlines {
        &NEWLINE_RULE_BYTES
    } else {
        &PUNCT_RULE_BYTES
    };
    while i < to {
        let found = if cjk_punct {
            bytes[i..to].iter().position(|&b| table[b as usize])
        } else {
            memchr::memchr(b' ', &bytes[i..to])
        };
        let Some(off) = found else { break };
        i += off;
        let letter_before = || {
            text[..i]
                .chars()
                .next_back()
                .is_some_and(is_letter_before_punct)
        };
        if matches!(bytes[i], b'\n' | b'\r') {
            // The end of a run of line breaks, before a non-space: cl100k and o200k end a token there (their
            // `\s*[\r\n]` and `[\r\n]*` take every break), and start the next one. Not before "/", which o200k
            // keeps with punctuation and breaks before it (`[\r\n/]*`).
            let next = text[i + 1..to].chars().next();
            if next.is_some_and(|c| !c.is_whitespace() && c != '/') {
                f(start, i + 1);
                start = i + 1;
            }
            i += 1;
            continue;
        }
        let cut = match bytes[i] {
            b' ' => {
                let before = text[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| !c.is_whitespace());
                let after = text[i + 1..to]
                    .chars()
                    .next()
                    .is_some_and(|c| !c.is_whitespace());
                before && after
            }
            // ASCII punctuation after a letter or digit starts a token (the letters' token never takes it).
            b if b.is_ascii() => letter_before(),
            // A lead byte of the CJK punctuation (the needles are never continuation bytes).
            _ => is_cjk_punct(text[i..].chars().next().unwrap_or(' ')) && letter_before(),
        };
        if cut {
            f(start, i);
            start = i;
        }
        i += 1;
    }
    f(start, to);
}

/// The bytes `space_pieces` stops at with punctuation cuts on: the space, ASCII punctuation but the apostrophe
/// (o200k keeps "'s" with the word before it), and the lead bytes of the CJK punctuation.
pub(super) static PUNCT_RULE_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = (b as u8).is_ascii_punctuation() && b != b'\'' as usize;
        b += 1;
    }
    t[b' ' as usize] = true;
    t[0xE3] = true;
    t[0xEF] = true;
    t
};

/// `PUNCT_RULE_BYTES` and the line breaks, for cl100k and o200k.
pub(super) static NEWLINE_RULE_BYTES: [bool; 256] = {
    let mut t = PUNCT_RULE_BYTES;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t
};

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
    let mut start = None;
    for (off, c) in text[from..to].char_indices() {
        let i = from + off;
        if is_bert_space(c) {
            if let Some(s) = start.take() {
                f(s, i);
            }
        } else if c.is_ascii_punctuation() || is_cjk_punct(c) || (chinese && is_han(c)) {
            if let Some(s) = start.take() {
                f(s, i);
            }
            f(i, i + c.len_utf8());
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        f(s, to);
    }
}

/// Han characters that BERT's normalizer isolates (a subset of its list).
pub(super) fn is_han(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0xF900..=0xFAFF)
}
