//! Sentence boundaries, scanned in one pass over the bytes (UAX #29's sentence rules cost 60% of a run when this
//! used unicode-segmentation; this scanner keeps the rules that matter for chunking and runs at memory speed):
//!
//! - A terminator run (. ! ? 。 ！ ？ ｡ ． ‼ ⁇ ⁈ ⁉ ؟ । ॥ ۔, repeated or mixed: "?!", "。。") with its closing quotes and
//!   brackets (」』）”' ...) ends a sentence; the cut falls after them and after the spaces and the one line break
//!   that follow, so closing punctuation stays on the left.
//! - CJK terminators cut with or without a following space. The others need whitespace or the end of the text
//!   after them, so "3.5", "example.com/a.b" and "file.Name" never break.
//! - A full stop is not an end after a known abbreviation ("e.g.", "Dr.") or an initial ("J. Smith"), nor "etc."
//!   before a lower-case word ("etc. and"). Technical text starts sentences in lower case ("git diff ..."), so a
//!   lower-case word alone does not rule out a sentence end.
//! - Runs of "…" / "⋯" end a sentence between CJK characters ("等等……然后") and before a space and a capital.
//! - A bare line break is not a sentence end: that is the line emitter's business.

use super::chars::{is_cjk, is_clause_punct, is_closing};
use super::{Boundary, Level};

/// Abbreviations after which a full stop does not end a sentence (as written or capitalised, without the dot).
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "vs", "cf", "al", "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "fig", "no",
    "vol", "pp", "ed", "approx", "inc", "ltd", "co", "corp", "dept", "est", "u.s", "a.m", "p.m",
    "ca", "resp", "viz",
];

/// Spaces after a terminator that still go with the sentence before the cut; a longer run is left to the next piece.
pub(super) const MAX_TRAILING_SPACES: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Needs whitespace after it; "." also checks abbreviations.
    Spaced,
    /// CJK full stops and marks: a cut with or without a space.
    Cjk,
    /// "…" and "⋯": a cut only between CJK characters.
    Ellipsis,
}

/// Lead bytes of every terminator: where the emitter looks, every other byte skipped in bulk.
const LEADS: [u8; 9] = [
    b'.', b'!', b'?', 0xD8, // ؟
    0xDB, // ۔
    0xE0, // । ॥
    0xE2, // … ‼ ⁇ ⁈ ⁉ ⋯
    0xE3, // 。
    0xEF, // ！ ？ ． ｡
];

/// The terminator starting at byte `i`, if any: its kind and length in bytes.
#[inline]
pub(super) fn terminator_at(bytes: &[u8], i: usize) -> Option<(Kind, usize)> {
    let b = bytes[i];
    let next = |k: usize| bytes.get(i + k).copied().unwrap_or(0);
    match b {
        b'.' | b'!' | b'?' => Some((Kind::Spaced, 1)),
        0xD8 if next(1) == 0x9F => Some((Kind::Spaced, 2)),
        0xDB if next(1) == 0x94 => Some((Kind::Spaced, 2)),
        0xE0 if next(1) == 0xA5 && matches!(next(2), 0xA4 | 0xA5) => Some((Kind::Spaced, 3)),
        0xE2 => match (next(1), next(2)) {
            (0x80, 0xA6) | (0x8B, 0xAF) => Some((Kind::Ellipsis, 3)),
            (0x80, 0xBC) | (0x81, 0x87..=0x89) => Some((Kind::Spaced, 3)),
            _ => None,
        },
        0xE3 if next(1) == 0x80 && next(2) == 0x82 => Some((Kind::Cjk, 3)),
        0xEF => match (next(1), next(2)) {
            (0xBC, 0x81) | (0xBC, 0x9F) | (0xBC, 0x8E) | (0xBD, 0xA1) => Some((Kind::Cjk, 3)),
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn emit(text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
    let window = &text.as_bytes()[from..to];
    // Only the lead bytes of terminators are read; ASCII windows only hold ASCII terminators.
    if window.is_ascii() {
        let leads = memchr::memchr3_iter(b'.', b'!', b'?', window);
        runs(text, from, to, level, out, leads.map(|off| from + off));
    } else {
        let leads = crate::simd::positions(window, LEADS);
        runs(text, from, to, level, out, leads.map(|off| from + off));
    }
}

/// The boundaries after the terminator runs of `text[from..to]`, given where their lead bytes may be.
fn runs(
    text: &str,
    from: usize,
    to: usize,
    level: Level,
    out: &mut Vec<Boundary>,
    leads: impl Iterator<Item = usize>,
) {
    let bytes = text.as_bytes();
    // Leads before `i` were read as part of a run already.
    let mut i = from;
    for lead in leads {
        if lead < i {
            continue;
        }
        i = lead;
        let Some((mut kind, len)) = terminator_at(bytes, i) else {
            continue;
        };
        // The whole run: more terminators, then closing quotes and brackets. A run reaching past `to` cuts past it,
        // where nothing is kept: it is not followed further (each window would walk the rest of a long "!!!..." run
        // again, quadratic time).
        let first = i;
        let mut end = i + len;
        while end < bytes.len() && end <= to {
            if let Some((k, l)) = terminator_at(bytes, end) {
                if k == Kind::Cjk {
                    kind = Kind::Cjk;
                } else if kind == Kind::Ellipsis && k == Kind::Spaced {
                    kind = Kind::Spaced;
                }
                end += l;
            } else {
                break;
            }
        }
        while let Some(c) = text[end..]
            .chars()
            .next()
            .filter(|&c| is_closing(c) && end <= to)
        {
            end += c.len_utf8();
        }
        if end > to {
            break;
        }
        i = end;
        if let Some(pos) = cut_after(text, first, end, kind) {
            if pos <= to {
                out.push(Boundary { pos, level });
            }
        }
    }
}

/// Where the sentence whose terminator run is `text[first..end]` ends, or None if it does not end there.
fn cut_after(text: &str, first: usize, end: usize, kind: Kind) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut pos = end;
    // Past MAX_TRAILING_SPACES the run's length does not matter: it is not walked to its end.
    while pos < bytes.len()
        && pos <= end + MAX_TRAILING_SPACES
        && matches!(bytes[pos], b' ' | b'\t')
    {
        pos += 1;
    }
    let spaced = pos > end;
    if pos - end > MAX_TRAILING_SPACES {
        // A long run of padding (a table cell, aligned text): cut before it, where a look-ahead window sees the cut.
        return (kind != Kind::Ellipsis).then_some(end);
    }
    match bytes.get(pos) {
        Some(b'\r') if bytes.get(pos + 1) == Some(&b'\n') => return Some(pos + 2),
        Some(b'\n') => return Some(pos + 1),
        None => return Some(pos),
        _ => {}
    }
    let next = text[pos..].chars().next()?;
    match kind {
        Kind::Cjk => Some(pos),
        Kind::Ellipsis => {
            // "等等……然后" between CJK characters; "… Then" before a capital after a space.
            let before_cjk = text[..first].chars().next_back().is_some_and(is_cjk);
            let cjk = before_cjk
                && !spaced
                && is_cjk(next)
                && !is_closing(next)
                && !is_clause_punct(next);
            (cjk || (spaced && next.is_uppercase())).then_some(pos)
        }
        Kind::Spaced => {
            if !(spaced || next.is_whitespace()) {
                return None; // "3.5", "a.b", "file.Name"
            }
            let full_stop = bytes[first] == b'.' && end == first + 1;
            if full_stop && is_abbreviation(&text[..first]) {
                return None;
            }
            // "etc." ends a sentence before a capital, not before "and".
            if full_stop && next.is_lowercase() && ends_with_word(&text[..first], "etc") {
                return None;
            }
            Some(pos)
        }
    }
}

/// Whether `before` ends with the whole word `word`.
fn ends_with_word(before: &str, word: &str) -> bool {
    before.ends_with(word)
        && !before[..before.len() - word.len()]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
}

/// Whether `word` is `abbrev` (lower case) in lower case or capitalised: "dr", "Dr", "e.g", "E.g".
fn is_spelled_as(word: &str, abbrev: &str) -> bool {
    word.len() == abbrev.len()
        && word
            .chars()
            .zip(abbrev.chars())
            .enumerate()
            .all(|(i, (w, a))| w == a || (i == 0 && w == a.to_ascii_uppercase()))
}

/// Whether the word before a full stop is an abbreviation or an initial.
fn is_abbreviation(before_dot: &str) -> bool {
    let word_start = before_dot
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_alphanumeric() || c == '.')
        .last()
        .map_or(before_dot.len(), |(i, _)| i);
    let word = &before_dot[word_start..];
    let mut chars = word.chars();
    match (chars.next(), chars.next()) {
        (None, _) => false,
        (Some(c), None) => c.is_uppercase(),
        // "Dr." and "dr." but not "DR." or "CA." (an acronym ending a sentence).
        _ => word.len() <= 8 && ABBREVIATIONS.iter().any(|a| is_spelled_as(word, a)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        emit(text, 0, text.len(), Level::SENTENCE, &mut out);
        let mut last = 0;
        let mut v = Vec::new();
        for b in out {
            v.push(&text[last..b.pos]);
            last = b.pos;
        }
        if last < text.len() {
            v.push(&text[last..]);
        }
        v
    }

    #[test]
    fn english() {
        assert_eq!(
            pieces("Hello there. How are you? Fine!"),
            vec!["Hello there. ", "How are you? ", "Fine!"]
        );
        assert_eq!(
            pieces("Pi is 3.14 roughly. Next"),
            vec!["Pi is 3.14 roughly. ", "Next"]
        );
        assert_eq!(
            pieces("Use tools, e.g. Cargo. Done"),
            vec!["Use tools, e.g. Cargo. ", "Done"]
        );
        assert_eq!(
            pieces("Ask Dr. Smith. J. Doe came."),
            vec!["Ask Dr. Smith. ", "J. Doe came."]
        );
        assert_eq!(
            pieces("See www.example.com/a.b for more. Ok"),
            vec!["See www.example.com/a.b for more. ", "Ok"]
        );
    }

    #[test]
    fn line_breaks_alone_are_not_sentence_ends() {
        assert_eq!(
            pieces("a wrapped\nline. Next"),
            vec!["a wrapped\nline. ", "Next"]
        );
        assert_eq!(pieces("Done.\r\nNext one"), vec!["Done.\r\n", "Next one"]);
    }

    #[test]
    fn lower_case_and_runs() {
        assert_eq!(
            pieces("Apples, pears, etc. and more. What?! Yes."),
            vec!["Apples, pears, etc. and more. ", "What?! ", "Yes."]
        );
        assert_eq!(
            pieces("He said \"Go.\" Then left."),
            vec!["He said \"Go.\" ", "Then left."]
        );
        assert_eq!(pieces("file.Name is ok"), vec!["file.Name is ok"]);
        assert_eq!(
            pieces("They trust the CA. This works, etc. Then"),
            vec!["They trust the CA. ", "This works, etc. ", "Then"]
        );
        let padded = format!("量。{}|", " ".repeat(300));
        assert_eq!(pieces(&padded), vec!["量。", &padded["量。".len()..]]);
    }

    #[test]
    fn cjk() {
        assert_eq!(
            pieces("你好。世界！真的？"),
            vec!["你好。", "世界！", "真的？"]
        );
        assert_eq!(
            pieces("他说：「好。」然后走了。"),
            vec!["他说：「好。」", "然后走了。"]
        );
        assert_eq!(pieces("等等……然后呢"), vec!["等等……", "然后呢"]);
        assert_eq!(
            pieces("Wait… This one. And… more"),
            vec!["Wait… ", "This one. ", "And… more"]
        );
        assert_eq!(pieces("日本語です。次の文"), vec!["日本語です。", "次の文"]);
    }

    #[test]
    fn a_window_sees_the_boundaries_of_the_whole_text_up_to_its_end() {
        // The scan of a terminator run stops at the window's end (a long run is not walked again for every window):
        // the boundaries inside a window are still those of the whole text.
        let texts = [
            "!".repeat(300),
            format!("a{}b", "!".repeat(300)),
            format!("{} x", "。".repeat(100)),
            format!("Go{} Then", "!」".repeat(100)),
            format!("x.{} Next. Then", "」".repeat(100)),
            format!("End.{}Next", " ".repeat(40)),
            format!("End.{}Next", "\t ".repeat(8)),
            "Hi!! Ok?! Yes… No. 真的？」好。".repeat(20),
        ];
        for text in &texts {
            for from in (0..text.len())
                .step_by(7)
                .filter(|&i| text.is_char_boundary(i))
            {
                for to in (from..=text.len())
                    .step_by(5)
                    .filter(|&i| text.is_char_boundary(i))
                {
                    let mut window = Vec::new();
                    emit(text, from, to, Level::SENTENCE, &mut window);
                    let mut expected = Vec::new();
                    emit(text, from, text.len(), Level::SENTENCE, &mut expected);
                    expected.retain(|b| b.pos <= to);
                    assert_eq!(window, expected, "{text:?} {from}..{to}");
                }
            }
        }
    }
}
