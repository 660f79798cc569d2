//! Sentence boundaries, scanned in one pass over the bytes (UAX #29's sentence rules cost 60% of a run when this
//! used unicode-segmentation; this scanner keeps the rules that matter for chunking and runs at memory speed):
//!
//! - A terminator run (. ! ? 。 ！ ？ and every other Sentence_Terminal of Unicode: ؟ ۔ । ॥ ։ ። ។ ။ ..., repeated
//!   or mixed: "?!", "。。") with its closing quotes and brackets (」』）”' ...) ends a sentence; the cut falls after them and after the spaces
//!   and the one line break that follow, so closing punctuation stays on the left.
//! - CJK, Khmer and Myanmar terminators cut with or without a following space. The others need whitespace or the end
//!   of the text after them, so "3.5", "example.com/a.b" and "file.Name" never break.
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
    /// The full stops and marks of scripts without spaces (CJK, Khmer, Myanmar): a cut with or without a space.
    Cjk,
    /// "…" and "⋯": a cut only between CJK characters.
    Ellipsis,
}

/// Lead bytes of every terminator: where the emitter looks, every other byte skipped in bulk.
const LEADS: [u8; 15] = [
    b'.', b'!', b'?', 0xD6, 0xD8, 0xDB, 0xDC, 0xDF, 0xE0, 0xE1, 0xE2, 0xE3, 0xEA, 0xEF, 0xF0,
];

/// The non-ASCII terminators, ranges of code points in order: Unicode's Sentence_Terminal property (tested against
/// ICU4X's copy of it) and the ellipses. Those of scripts written without spaces (CJK, Khmer, Myanmar) cut with or
/// without a space after them; the others, like ".", need one.
const TERMINATORS: &[(u32, u32, Kind)] = &[
    (0x0589, 0x0589, Kind::Spaced),   // ։ Armenian
    (0x061D, 0x061F, Kind::Spaced),   // ؝..؟ Arabic
    (0x06D4, 0x06D4, Kind::Spaced),   // ۔ Arabic
    (0x0700, 0x0702, Kind::Spaced),   // ܀..܂ Syriac
    (0x07F9, 0x07F9, Kind::Spaced),   // ߹ Nko
    (0x0837, 0x0837, Kind::Spaced),   // ࠷ Samaritan
    (0x0839, 0x0839, Kind::Spaced),   // ࠹ Samaritan
    (0x083D, 0x083E, Kind::Spaced),   // ࠽..࠾ Samaritan
    (0x0964, 0x0965, Kind::Spaced),   // ।..॥ Devanagari
    (0x104A, 0x104B, Kind::Cjk),      // ၊..။ Myanmar
    (0x1362, 0x1362, Kind::Spaced),   // ። Ethiopic
    (0x1367, 0x1368, Kind::Spaced),   // ፧..፨ Ethiopic
    (0x166E, 0x166E, Kind::Spaced),   // ᙮ Canadian
    (0x1735, 0x1736, Kind::Spaced),   // ᜵..᜶ Philippine
    (0x17D4, 0x17D5, Kind::Cjk),      // ។..៕ Khmer
    (0x1803, 0x1803, Kind::Spaced),   // ᠃ Mongolian
    (0x1809, 0x1809, Kind::Spaced),   // ᠉ Mongolian
    (0x1944, 0x1945, Kind::Spaced),   // ᥄..᥅ Limbu
    (0x1AA8, 0x1AAB, Kind::Spaced),   // ᪨..᪫ Tai
    (0x1B4E, 0x1B4F, Kind::Spaced),   // ᭎..᭏
    (0x1B5A, 0x1B5B, Kind::Spaced),   // ᭚..᭛ Balinese
    (0x1B5E, 0x1B5F, Kind::Spaced),   // ᭞..᭟ Balinese
    (0x1B7D, 0x1B7F, Kind::Spaced),   // ᭽..᭿ Balinese
    (0x1C3B, 0x1C3C, Kind::Spaced),   // ᰻..᰼ Lepcha
    (0x1C7E, 0x1C7F, Kind::Spaced),   // ᱾..᱿ Ol
    (0x2024, 0x2024, Kind::Spaced),   // ․ One
    (0x2026, 0x2026, Kind::Ellipsis), // … not Sentence_Terminal
    (0x203C, 0x203D, Kind::Spaced),   // ‼..‽ Double
    (0x2047, 0x2049, Kind::Spaced),   // ⁇..⁉ Double
    (0x22EF, 0x22EF, Kind::Ellipsis), // ⋯ not Sentence_Terminal
    (0x2CF9, 0x2CFB, Kind::Spaced),   // ⳹..⳻ Coptic
    (0x2E2E, 0x2E2E, Kind::Spaced),   // ⸮ Reversed
    (0x2E3C, 0x2E3C, Kind::Spaced),   // ⸼ Stenographic
    (0x2E53, 0x2E54, Kind::Spaced),   // ⹓..⹔ Medieval
    (0x2E60, 0x2E61, Kind::Spaced),   // ⹠..⹡
    (0x3002, 0x3002, Kind::Cjk),      // 。 Ideographic
    (0xA4FF, 0xA4FF, Kind::Spaced),   // ꓿ Lisu
    (0xA60E, 0xA60F, Kind::Spaced),   // ꘎..꘏ Vai
    (0xA6F3, 0xA6F3, Kind::Spaced),   // ꛳ Bamum
    (0xA6F7, 0xA6F7, Kind::Spaced),   // ꛷ Bamum
    (0xA876, 0xA877, Kind::Spaced),   // ꡶..꡷ Phags-Pa
    (0xA8CE, 0xA8CF, Kind::Spaced),   // ꣎..꣏ Saurashtra
    (0xA92F, 0xA92F, Kind::Spaced),   // ꤯ Kayah
    (0xA9C8, 0xA9C9, Kind::Spaced),   // ꧈..꧉ Javanese
    (0xAA5D, 0xAA5F, Kind::Spaced),   // ꩝..꩟ Cham
    (0xAAF0, 0xAAF1, Kind::Spaced),   // ꫰..꫱ Meetei
    (0xABEB, 0xABEB, Kind::Spaced),   // ꯫ Meetei
    (0xFE12, 0xFE12, Kind::Cjk),      // ︒ Presentation
    (0xFE15, 0xFE16, Kind::Cjk),      // ︕..︖ Presentation
    (0xFE52, 0xFE52, Kind::Cjk),      // ﹒ Small
    (0xFE56, 0xFE57, Kind::Cjk),      // ﹖..﹗ Small
    (0xFF01, 0xFF01, Kind::Cjk),      // ！ Fullwidth
    (0xFF0E, 0xFF0E, Kind::Cjk),      // ． Fullwidth
    (0xFF1F, 0xFF1F, Kind::Cjk),      // ？ Fullwidth
    (0xFF61, 0xFF61, Kind::Cjk),      // ｡ Halfwidth
    (0x10A56, 0x10A57, Kind::Spaced), // 𐩖..𐩗 Kharoshthi
    (0x10F55, 0x10F59, Kind::Spaced), // 𐽕..𐽙 Sogdian
    (0x10F86, 0x10F89, Kind::Spaced), // 𐾆..𐾉 Old
    (0x11047, 0x11048, Kind::Spaced), // 𑁇..𑁈 Brahmi
    (0x110BE, 0x110C1, Kind::Spaced), // 𑂾..𑃁 Kaithi
    (0x11141, 0x11143, Kind::Spaced), // 𑅁..𑅃 Chakma
    (0x111C5, 0x111C6, Kind::Spaced), // 𑇅..𑇆 Sharada
    (0x111CD, 0x111CD, Kind::Spaced), // 𑇍 Sharada
    (0x111DE, 0x111DF, Kind::Spaced), // 𑇞..𑇟 Sharada
    (0x11238, 0x11239, Kind::Spaced), // 𑈸..𑈹 Khojki
    (0x1123B, 0x1123C, Kind::Spaced), // 𑈻..𑈼 Khojki
    (0x112A9, 0x112A9, Kind::Spaced), // 𑊩 Multani
    (0x113D4, 0x113D5, Kind::Spaced), // 𑏔..𑏕
    (0x1144B, 0x1144C, Kind::Spaced), // 𑑋..𑑌 Newa
    (0x115C2, 0x115C3, Kind::Spaced), // 𑗂..𑗃 Siddham
    (0x115C9, 0x115D7, Kind::Spaced), // 𑗉..𑗗 Siddham
    (0x11641, 0x11642, Kind::Spaced), // 𑙁..𑙂 Modi
    (0x1173C, 0x1173E, Kind::Spaced), // 𑜼..𑜾 Ahom
    (0x11944, 0x11944, Kind::Spaced), // 𑥄 Dives
    (0x11946, 0x11946, Kind::Spaced), // 𑥆 Dives
    (0x11A42, 0x11A43, Kind::Spaced), // 𑩂..𑩃 Zanabazar
    (0x11A9B, 0x11A9C, Kind::Spaced), // 𑪛..𑪜 Soyombo
    (0x11C41, 0x11C42, Kind::Spaced), // 𑱁..𑱂 Bhaiksuki
    (0x11EF7, 0x11EF8, Kind::Spaced), // 𑻷..𑻸 Makasar
    (0x11F43, 0x11F44, Kind::Spaced), // 𑽃..𑽄
    (0x16A6E, 0x16A6F, Kind::Spaced), // 𖩮..𖩯 Mro
    (0x16AF5, 0x16AF5, Kind::Spaced), // 𖫵 Bassa
    (0x16B37, 0x16B38, Kind::Spaced), // 𖬷..𖬸 Pahawh
    (0x16B44, 0x16B44, Kind::Spaced), // 𖭄 Pahawh
    (0x16D6E, 0x16D6F, Kind::Spaced), // 𖵮..𖵯
    (0x16E98, 0x16E98, Kind::Spaced), // 𖺘 Medefaidrin
    (0x1BC9F, 0x1BC9F, Kind::Spaced), // 𛲟 Duployan
    (0x1DA88, 0x1DA88, Kind::Spaced), // 𝪈 Signwriting
];

/// The terminator starting at byte `i`, if any: its kind and length in bytes.
#[inline]
pub(super) fn terminator_at(bytes: &[u8], i: usize) -> Option<(Kind, usize)> {
    let b = bytes[i];
    let next = |k: usize| bytes.get(i + k).copied().unwrap_or(0);
    let candidate = match b {
        b'.' | b'!' | b'?' => return Some((Kind::Spaced, 1)),
        // Kana and CJK punctuation (E3) and the fullwidth forms (EF), dense in CJK text, turned down on their bytes.
        0xE3 => next(1) == 0x80 && next(2) == 0x82,
        0xEF => matches!(next(1), 0xB8 | 0xB9 | 0xBC | 0xBD),
        0xD6 | 0xD8 | 0xDB | 0xDC | 0xDF | 0xE0 | 0xE1 | 0xE2 | 0xEA | 0xF0 => true,
        _ => false,
    };
    if !candidate {
        return None;
    }
    let len = match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    };
    let tail = bytes.get(i + 1..i + len)?;
    let cp = tail.iter().fold(u32::from(b) & (0x7F >> len), |cp, &t| {
        (cp << 6) | u32::from(t & 0x3F)
    });
    let at = TERMINATORS.partition_point(|&(_, last, _)| last < cp);
    TERMINATORS
        .get(at)
        .filter(|&&(first, _, _)| first <= cp)
        .map(|&(_, _, kind)| (kind, len))
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
    fn terminators_of_other_scripts() {
        // Devanagari, Arabic, Urdu, Armenian, Ethiopic: a space after them, as after ".".
        assert_eq!(pieces("यह है। वह॥ अब"), vec!["यह है। ", "वह॥ ", "अब"]);
        assert_eq!(pieces("هل هذا؟ نعم"), vec!["هل هذا؟ ", "نعم"]);
        assert_eq!(pieces("یہ ہے۔ وہ"), vec!["یہ ہے۔ ", "وہ"]);
        assert_eq!(pieces("Բարեւ։ Ինչպես"), vec!["Բարեւ։ ", "Ինչպես"]);
        assert_eq!(
            pieces("ሰላም። ደህና፧ አዎ፨ እሺ"),
            vec!["ሰላም። ", "ደህና፧ ", "አዎ፨ ", "እሺ"]
        );
        assert_eq!(pieces("Really‽ Yes"), vec!["Really‽ ", "Yes"]);
        assert_eq!(pieces("a։b"), vec!["a։b"]);
        // Khmer and Myanmar are written without spaces: their stops cut as CJK ones do.
        assert_eq!(pieces("សួស្តី។ខ្ញុំ"), vec!["សួស្តី។", "ខ្ញុំ"]);
        assert_eq!(pieces("မင်္ဂလာပါ။ နေကောင်း"), vec!["မင်္ဂလာပါ။ ", "နေကောင်း"]);
        // Supplementary planes: Brahmi's danda.
        assert_eq!(pieces("𑀅𑁇 𑀆"), vec!["𑀅𑁇 ", "𑀆"]);
    }

    /// Every character of Unicode's Sentence_Terminal property (ICU4X's copy) is a terminator, and every terminator
    /// but the ellipses is one of them.
    #[test]
    fn terminators_are_unicodes_sentence_terminals() {
        use icu_properties::{props::SentenceTerminal, CodePointSetData};
        let unicode = CodePointSetData::new::<SentenceTerminal>();
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let s = c.encode_utf8(&mut buf);
            let ours = terminator_at(s.as_bytes(), 0).filter(|&(_, len)| len == s.len());
            let ellipsis = matches!(ours, Some((Kind::Ellipsis, _)));
            assert_eq!(
                ours.is_some() && !ellipsis,
                unicode.contains(c),
                "{c:?} U+{:04X}",
                c as u32
            );
        }
        assert!(TERMINATORS.windows(2).all(|w| w[0].1 < w[1].0));
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
