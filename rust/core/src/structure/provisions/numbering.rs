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
        Kind::Fixed(Style::CnComma | Style::CnParen) => number[0] = cn_value(marker),
        Kind::Fixed(Style::UpperParen) => {
            number[0] = marker
                .bytes()
                .find(u8::is_ascii_uppercase)
                .map_or(0, |c| u16::from(c - b'A') + 1);
        }
        Kind::Fixed(_) | Kind::Silent => {
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
        (Style::RomanParen | Style::RomanHalf, Kind::Lower { roman, .. }) => {
            roman == number[0].saturating_add(1)
        }
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
    let successor = |numeral: &dyn Fn(&mut Token) -> Option<()>| {
        let mut token = Token::default();
        token.push(open)?;
        numeral(&mut token)?;
        token.push(close)?;
        Some(token)
    };
    let tokens: [Option<Token>; 2] = match kind {
        Kind::Lower { letter, roman, .. } => [
            (letter > 0 && letter < 26)
                .then(|| successor(&|t| t.push_byte(b'a' + letter as u8)))
                .flatten(),
            (roman > 0)
                .then(|| successor(&|t| push_roman(t, roman.saturating_add(1))))
                .flatten(),
        ],
        Kind::Fixed(Style::UpperParen) if number[0] < 26 => {
            [successor(&|t| t.push_byte(b'A' + number[0] as u8)), None]
        }
        Kind::Fixed(Style::CnComma | Style::CnParen) => [
            successor(&|t| push_cn(t, number[0].saturating_add(1))),
            None,
        ],
        Kind::Fixed(Style::DigitComma | Style::DigitParen | Style::DigitHalf) => {
            let wide = text.chars().any(|c| ('０'..='９').contains(&c));
            [
                successor(&|t| push_digits(t, number[0].saturating_add(1), wide)),
                None,
            ]
        }
        Kind::Fixed(_) | Kind::Silent => return false,
    };
    let rest = &line.as_bytes()[marker_end..];
    tokens.iter().flatten().any(|token| {
        memchr::memmem::find_iter(rest, token.as_bytes()).any(|p| {
            let before = line[..marker_end + p].trim_end();
            before.ends_with([',', ';', '，', '；', '、'])
                || [" and", " or", "\tand", "\tor"]
                    .iter()
                    .any(|w| before.ends_with(w))
        })
    })
}

/// A marker to search for, built without allocating (the scan builds one per marker).
struct Token {
    bytes: [u8; 40],
    len: usize,
}

impl Default for Token {
    fn default() -> Self {
        Token {
            bytes: [0; 40],
            len: 0,
        }
    }
}

impl Token {
    fn push(&mut self, s: &str) -> Option<()> {
        let end = self.len + s.len();
        self.bytes
            .get_mut(self.len..end)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Some(())
    }

    fn push_byte(&mut self, b: u8) -> Option<()> {
        *self.bytes.get_mut(self.len)? = b;
        self.len += 1;
        Some(())
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// `value` in ASCII digits, or full-width ones when `wide`.
fn push_digits(token: &mut Token, value: u16, wide: bool) -> Option<()> {
    let mut divisor = 1;
    while value / divisor >= 10 {
        divisor *= 10;
    }
    while divisor > 0 {
        let d = (value / divisor % 10) as u8;
        if wide {
            let mut buf = [0; 4];
            token.push(char::from_u32(u32::from('０') + u32::from(d))?.encode_utf8(&mut buf))?;
        } else {
            token.push_byte(b'0' + d)?;
        }
        divisor /= 10;
    }
    Some(())
}

/// Whether `value` is the successor of `last` in `style`. A letter may skip i, v or x: "(h) ... (i) ... (ii) ...
/// (j)" read the "(i)" as a numeral, so the letters go from h to j.
fn is_successor(style: Style, last: u16, value: u16) -> bool {
    value == last.saturating_add(1)
        || (matches!(style, Style::LetterParen | Style::LetterHalf)
            && value == last.saturating_add(2)
            && matches!(last.saturating_add(1), 9 | 22 | 24))
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

/// `value` (1 to 99) in Chinese numerals, as a list numbers its items: 一, 十, 十一, 二十, 二十一; `None` for
/// other values.
fn push_cn(token: &mut Token, value: u16) -> Option<()> {
    let mut buf = [0; 4];
    let mut digit =
        |token: &mut Token, v: u16| token.push(CN_DIGITS[usize::from(v)].encode_utf8(&mut buf));
    let (tens, ones) = (value / 10, value % 10);
    match tens {
        0 if ones > 0 => {}
        1 => token.push("十")?,
        2..=9 => {
            digit(token, tens)?;
            token.push("十")?;
        }
        _ => return None,
    }
    if ones > 0 {
        digit(token, ones)?;
    }
    Some(())
}

/// `value` (1 to 3999) as a lower-case roman numeral.
fn push_roman(token: &mut Token, value: u16) -> Option<()> {
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
    for (v, symbol) in SYMBOLS {
        while rest >= v {
            token.push(symbol)?;
            rest -= v;
        }
    }
    Some(())
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
            let mut token = Token::default();
            push_cn(&mut token, v).unwrap();
            assert_eq!(cn_value(std::str::from_utf8(token.as_bytes()).unwrap()), v);
        }
        assert_eq!(push_cn(&mut Token::default(), 100), None);
    }

    #[test]
    fn numerals_written_read_back() {
        for v in 1..400 {
            let mut token = Token::default();
            push_roman(&mut token, v).unwrap();
            assert_eq!(super::super::roman_value(token.as_bytes()), Some(v));
        }
        let mut token = Token::default();
        push_digits(&mut token, 120, true).unwrap();
        assert_eq!(token.as_bytes(), "１２０".as_bytes());
        let mut token = Token::default();
        push_digits(&mut token, 7, false).unwrap();
        assert_eq!(token.as_bytes(), b"7");
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
