//! What the numbers of enumeration markers say: their values, whether a marker continues the numbering open above
//! it, and whether a marker's successor follows it inside the same line (an enumeration run into a sentence).
//!
//! Plain text wraps lines wherever the width runs out, so a line can start with "7." because a sentence ended in
//! "section 7." and a wrap fell just before it. The numbering is what tells such a line from a provision: a real
//! provision continues the numbering of its siblings or starts a new one.

use super::{Kind, Style};

/// A marker's number: its components for a decimal ("1.2.3" is [1, 2, 3, 0, 0, 0]), else its value in the first
/// place (the letter's place in the alphabet, the roman or Chinese numeral's value).
pub(super) type Number = [u16; 6];

/// How a marker's number relates to the numbering open above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Follow {
    /// The successor of the last item of its style: (b) after (a), 2. after 1., 1.3 after 1.2, 2.1 after 1.4.
    Next,
    /// A first number (1, a, i, 一, A; 0 for digits) opening a new level, a first child (1.1 after 1.), or a list
    /// that starts again at its first number.
    First,
    /// Anything else: 7. after 5., (d) after (a), a level that opens at "3)". An excerpt may start at "(g)": the
    /// next marker of the family confirms it (see [`confirms`]).
    Jump,
}

/// The number of an enumeration marker (`marker`: its text), read from its digits or Chinese numerals. Lower-case
/// markers are numbered by [`lower_number`] once their style is known; keywords have no number.
pub(super) fn number_of(marker: &str, kind: Kind) -> Number {
    let mut number = [0u16; 6];
    match kind {
        Kind::Fixed(Style::Keyword(_)) | Kind::Lower { .. } => {}
        Kind::Silent => {
            number[0] = marker.bytes().fold(0u16, |v, c| {
                if c.is_ascii_digit() {
                    v.saturating_mul(10).saturating_add(u16::from(c - b'0'))
                } else {
                    v
                }
            })
        }
        Kind::Fixed(Style::CnComma | Style::CnParen) => number[0] = cn_value(marker),
        Kind::Fixed(Style::UpperParen) => {
            number[0] = marker
                .bytes()
                .find(u8::is_ascii_uppercase)
                .map_or(0, |c| u16::from(c - b'A') + 1);
        }
        Kind::Fixed(_) => {
            // Digit runs (ASCII or full-width) separated by dots: the scan has checked the shape.
            let mut k = 0;
            let mut in_run = false;
            for c in marker.chars() {
                if let Some(d) = digit_value(c) {
                    number[k] = number[k].saturating_mul(10).saturating_add(d);
                    in_run = true;
                } else if in_run {
                    in_run = false;
                    k += 1;
                    if k == number.len() {
                        break;
                    }
                }
            }
        }
    }
    number
}

/// The number of a lower-case marker read in `style` (a letter or a roman style).
pub(super) fn lower_number(style: Style, letter: u16, roman: u16) -> Number {
    let mut number = [0u16; 6];
    number[0] = if matches!(style, Style::LetterParen | Style::LetterHalf) {
        letter
    } else {
        roman
    };
    number
}

/// How `number` in `style` relates to `open`, the enumeration styles open below the last keyword with the number
/// of their last item (outermost first), and for a decimal to `decimals`, the last decimal of each length.
///
/// A decimal states its whole place in the outline, so it may follow a decimal that is no longer open: "2.3.5."
/// after a list "1." to "11." that closed "2.3.4.", "5." after a keyword that closed "4.".
pub(super) fn follows(
    open: &[(Style, Number)],
    decimals: &[Option<Number>; 6],
    style: Style,
    number: &Number,
) -> Follow {
    if let Style::Decimal(n) = style {
        let n = usize::from(n);
        let parts = &number[..n];
        // Decimals place themselves by their components: the deepest one open is the latest one.
        let latest = open.iter().rev().find_map(|(s, v)| match s {
            Style::Decimal(m) => Some(&v[..usize::from(*m)]),
            _ => None,
        });
        let sibling = decimals[n - 1].as_ref().map(|v| &v[..n]);
        let parent = n
            .checked_sub(2)
            .and_then(|k| decimals[k].as_ref())
            .map(|v| &v[..n - 1]);
        let steps = [latest, sibling, parent].map(|last| last.and_then(|l| outline_step(l, parts)));
        return if steps.contains(&Some(true)) {
            Follow::Next
        } else if steps.contains(&Some(false)) {
            Follow::First
        } else if latest.is_none() {
            // The first decimal below a keyword: its leading components may be the keyword's ("5.1" under
            // "Article 5").
            first_or_jump(is_first(style, parts[n - 1]))
        } else {
            first_or_jump(parts.iter().all(|&p| is_first(style, p)))
        };
    }
    match open.iter().find(|(s, _)| *s == style) {
        Some((_, last)) if is_successor(style, last[0], number[0]) => Follow::Next,
        _ => first_or_jump(is_first(style, number[0])),
    }
}

fn first_or_jump(first: bool) -> Follow {
    if first {
        Follow::First
    } else {
        Follow::Jump
    }
}

/// Whether `next`, the next marker of the same family as a marker numbered `number` in `style`, continues it:
/// the numbering goes on after a marker whose own place in it is in doubt.
pub(super) fn confirms(style: Style, number: &Number, next: Kind, next_number: &Number) -> bool {
    match (style, next) {
        (Style::Decimal(n), Kind::Fixed(Style::Decimal(m))) => {
            outline_step(&number[..usize::from(n)], &next_number[..usize::from(m)]).is_some()
        }
        (Style::Decimal(n), Kind::Silent) => {
            outline_step(&number[..usize::from(n)], &next_number[..1]).is_some()
        }
        (Style::LetterParen | Style::LetterHalf, Kind::Lower { letter, .. }) => {
            is_successor(style, number[0], letter)
        }
        (Style::RomanParen | Style::RomanHalf, Kind::Lower { roman, .. }) => roman == number[0] + 1,
        (_, Kind::Fixed(_)) => next_number[0] == number[0].saturating_add(1),
        _ => false,
    }
}

/// Whether `line[marker..marker_end]`, a marker of `kind` numbered `number`, has its successor later in the line
/// right after a list connective ("(1) assert copyright on the software, and (2) offer you this"): the items run
/// on inside one sentence, so neither is a provision. A successor after any other word is a cross-reference
/// ("(a) subject to paragraph (b)") and does not count.
pub(super) fn runs_inline(
    line: &str,
    marker: usize,
    marker_end: usize,
    kind: Kind,
    number: &Number,
) -> bool {
    let text = &line[marker..marker_end];
    let successors: [Option<String>; 2] = match kind {
        Kind::Lower { letter, roman, .. } => [
            (letter > 0 && letter < 26).then(|| char::from(b'a' + letter as u8).to_string()),
            (roman > 0).then(|| roman_string(roman + 1)),
        ],
        Kind::Fixed(Style::UpperParen) => [
            (number[0] < 26).then(|| char::from(b'A' + number[0] as u8).to_string()),
            None,
        ],
        Kind::Fixed(Style::CnComma | Style::CnParen) => [cn_string(number[0] + 1), None],
        Kind::Fixed(Style::DigitComma | Style::DigitParen | Style::DigitHalf) => {
            let wide = text.chars().any(|c| ('０'..='９').contains(&c));
            let digits = (number[0] + 1).to_string();
            let digits = if wide {
                digits
                    .chars()
                    .map(|c| {
                        char::from_u32(u32::from(c) - u32::from('0') + u32::from('０')).unwrap_or(c)
                    })
                    .collect()
            } else {
                digits
            };
            [Some(digits), None]
        }
        Kind::Fixed(_) | Kind::Silent => return false,
    };
    // The marker's brackets or comma around its numeral, kept for the successor.
    let Some(first) = text.find(|c: char| c.is_alphanumeric()) else {
        return false;
    };
    let last = text
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_alphanumeric())
        .map_or(first, |(i, c)| i + c.len_utf8());
    let (open, close) = (&text[..first], &text[last..]);
    successors.into_iter().flatten().any(|numeral| {
        let token = format!("{open}{numeral}{close}");
        line[marker_end..].match_indices(&token).any(|(p, _)| {
            let before = line[..marker_end + p].trim_end();
            before.ends_with([',', ';', '，', '；', '、'])
                || [" and", " or", "\tand", "\tor"]
                    .iter()
                    .any(|w| before.ends_with(w))
        })
    })
}

/// Whether `value` is the successor of `last` in `style`. A letter may skip i, v or x: "(h) ... (i) ... (ii) ...
/// (j)" read the "(i)" as a numeral, so the letters go from h to j.
fn is_successor(style: Style, last: u16, value: u16) -> bool {
    value == last.saturating_add(1)
        || (matches!(style, Style::LetterParen | Style::LetterHalf)
            && value == last.saturating_add(2)
            && matches!(last + 1, 9 | 22 | 24))
}

/// Whether `value` can open a list in `style`: 1 (1, a, i, 一, A), or 0 for digits ("0. Definitions").
fn is_first(style: Style, value: u16) -> bool {
    value == 1
        || (value == 0
            && matches!(
                style,
                Style::Decimal(_) | Style::DigitComma | Style::DigitParen | Style::DigitHalf
            ))
}

/// How decimal `next` follows decimal `cur` in an outline: `Some(true)` when it is the successor at some level
/// (1.3 after 1.2, 2. or 2.1 after 1.4), `Some(false)` when it is a first child (1.1 or 1.1.1 after 1.), `None`
/// otherwise (a repeat, a jump, an ancestor).
fn outline_step(cur: &[u16], next: &[u16]) -> Option<bool> {
    let d = cur
        .iter()
        .zip(next)
        .position(|(a, b)| a != b)
        .unwrap_or(cur.len().min(next.len()));
    if d >= next.len() {
        return None;
    }
    let firsts = next[d + 1..].iter().all(|&p| p <= 1);
    if d < cur.len() {
        (next[d] == cur[d].saturating_add(1) && firsts).then_some(true)
    } else {
        (next[d] <= 1 && firsts).then_some(false)
    }
}

fn digit_value(c: char) -> Option<u16> {
    match c {
        '0'..='9' => Some(c as u16 - '0' as u16),
        '０'..='９' => Some(c as u16 - '０' as u16),
        _ => None,
    }
}

const CN_DIGITS: [char; 10] = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// The value of the Chinese numerals in `s`: "十一" 11, "二十" 20, "一百零五" 105; without 十/百/千 the digits
/// are positional ("一〇" 10).
fn cn_value(s: &str) -> u16 {
    let digit = |c: char| match c {
        '〇' | '零' => Some(0u32),
        '两' => Some(2),
        _ => CN_DIGITS.iter().position(|&d| d == c).map(|d| d as u32),
    };
    let unit = |c: char| match c {
        '十' => Some(10u32),
        '百' => Some(100),
        '千' => Some(1000),
        _ => None,
    };
    let mut total = 0u32;
    let mut pending: Option<u32> = None;
    let positional = !s.chars().any(|c| unit(c).is_some());
    for c in s.chars() {
        if let Some(d) = digit(c) {
            pending = Some(if positional {
                pending.unwrap_or(0) * 10 + d
            } else {
                d
            });
        } else if let Some(u) = unit(c) {
            total += pending.unwrap_or(1) * u;
            pending = None;
        }
    }
    u16::try_from(total + pending.unwrap_or(0)).unwrap_or(u16::MAX)
}

/// `value` (1 to 99) in Chinese numerals, as a list numbers its items: 一, 十, 十一, 二十, 二十一.
fn cn_string(value: u16) -> Option<String> {
    let d = |v: u16| CN_DIGITS[usize::from(v)];
    let (tens, ones) = (value / 10, value % 10);
    let mut s = String::new();
    match tens {
        0 if ones > 0 => {}
        1 => s.push('十'),
        2..=9 => {
            s.push(d(tens));
            s.push('十');
        }
        _ => return None,
    }
    if ones > 0 {
        s.push(d(ones));
    }
    Some(s)
}

/// `value` (1 to 3999) as a lower-case roman numeral.
fn roman_string(value: u16) -> String {
    const SYMBOLS: [(u16, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut rest = value.min(3999);
    let mut s = String::new();
    for (v, symbol) in SYMBOLS {
        while rest >= v {
            s.push_str(symbol);
            rest -= v;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_numerals() {
        for (s, v) in [
            ("一", 1),
            ("十", 10),
            ("十一", 11),
            ("二十", 20),
            ("九十九", 99),
            ("一百零五", 105),
            ("两千", 2000),
            ("一〇", 10),
        ] {
            assert_eq!(cn_value(s), v, "{s}");
        }
        for v in 1..100 {
            assert_eq!(cn_value(&cn_string(v).unwrap()), v);
        }
        assert_eq!(cn_string(100), None);
    }

    #[test]
    fn roman_strings_read_back() {
        for v in 1..400 {
            assert_eq!(
                super::super::roman_value(roman_string(v).as_bytes()),
                Some(v)
            );
        }
    }

    #[test]
    fn outline_steps() {
        assert_eq!(outline_step(&[1, 2], &[1, 3]), Some(true));
        assert_eq!(outline_step(&[1, 4], &[2]), Some(true));
        assert_eq!(outline_step(&[1, 4], &[2, 1]), Some(true));
        assert_eq!(outline_step(&[1], &[1, 1]), Some(false));
        assert_eq!(outline_step(&[1], &[1, 1, 1]), Some(false));
        assert_eq!(outline_step(&[5], &[7]), None);
        assert_eq!(outline_step(&[1, 2], &[1]), None);
        assert_eq!(outline_step(&[1, 2], &[1, 2]), None);
        assert_eq!(outline_step(&[1, 2], &[3, 1]), None);
    }
}
