//! Reading one line: is there a provision marker at its start, of which kind, and where does its title end.

use super::*;

/// The fewest columns of a line that a wrap ended: plain text wraps at 65 to 80 columns, and the line a wrap ends
/// early is the rare one whose next word is long.
pub(super) const WRAP: usize = 40;

/// A character two columns wide: CJK ideographs, kana, Hangul, full-width forms.
pub(super) fn is_wide(c: char) -> bool {
    matches!(c, '\u{1100}'..='\u{115F}' | '\u{2E80}'..='\u{A4CF}' | '\u{AC00}'..='\u{D7A3}'
        | '\u{F900}'..='\u{FAFF}' | '\u{FE30}'..='\u{FE4F}' | '\u{FF00}'..='\u{FF60}' | '\u{FFE0}'..='\u{FFE6}')
}

/// A line that leaves the line above it standing alone: blank, or a rule under a heading ("-----", "=====",
/// inside a box of `*`).
pub(super) fn blank_or_rule(line: &str) -> bool {
    line.trim()
        .trim_matches('*')
        .trim()
        .chars()
        .all(|c| matches!(c, '-' | '=' | '~' | '*' | '_'))
}

/// What may follow a marker on a line that is a heading with no title ("Article 6.", "## 1. ##").
pub(super) fn bare(rest: &str) -> bool {
    rest.chars()
        .all(|c| c.is_whitespace() || matches!(c, '.' | ':' | '：' | '*' | '#' | '-' | '–' | '—'))
}

// ---------------------------------------------------------------------------------------------------------------
// The line scan. Every function takes the line (without its line break) and a byte index on a char boundary.

/// A marker on a line, as offsets into the line.
pub(super) struct Marker {
    pub(super) marker: usize,
    pub(super) marker_end: usize,
    pub(super) kind: Kind,
    /// The line is a markdown ATX heading (a closing `#` sequence is no part of the title).
    pub(super) atx: bool,
    /// The line is a row of a box drawn with `*` ("*  6. Disclaimer of Warranty   *"): the closing `*` is no part
    /// of the title.
    pub(super) boxed: bool,
}

/// Finds the marker of a line whose content starts at `i`.
pub(super) fn scan(line: &str, mut i: usize) -> Option<Marker> {
    let b = line.as_bytes();
    let mut atx = false;
    if b.get(i) == Some(&b'#') {
        let n = b[i..].iter().take_while(|&&c| c == b'#').count();
        if n > 6 || !matches!(b.get(i + n), Some(b' ' | b'\t')) {
            return None;
        }
        i = skip_spaces(line, i + n);
        atx = true;
    }
    let mut boxed = false;
    if matches!(b.get(i), Some(b'-' | b'*' | b'+')) && matches!(b.get(i + 1), Some(b' ' | b'\t')) {
        let row = line.trim_end();
        boxed = b[i] == b'*'
            && row.ends_with('*')
            && row[..row.len() - 1].ends_with(char::is_whitespace);
        i = skip_spaces(line, i + 1);
    }
    let marker = skip_emphasis(line, i);
    let (marker_end, kind) = match *b.get(marker)? {
        b'0'..=b'9' => digits(line, marker)?,
        b'(' => parenthesised(line, marker, 1)?,
        b'a'..=b'z' => half_parenthesised(line, marker)?,
        b'A'..=b'Z' => english_keyword(line, marker)?,
        0x80.. => {
            let c = line[marker..].chars().next()?;
            match c {
                '§' => section_sign(line, marker)?,
                '第' => chinese_keyword(line, marker)?,
                '（' => parenthesised(line, marker, c.len_utf8())?,
                _ if is_wide_digit(c) => digits(line, marker)?,
                _ if is_cn_numeral(c) => cn_comma(line, marker)?,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(Marker {
        marker,
        marker_end,
        kind,
        atx,
        boxed,
    })
}

/// "1、", "1)", "1．" (not "1．5") and the decimals "1.", "1.1", "1.1.1", "1.1." (ASCII or full-width digits, except decimals).
pub(super) fn digits(line: &str, i: usize) -> Option<(usize, Kind)> {
    let (end, count) = digit_run(line, i);
    if count <= 3 {
        let rest = &line[end..];
        if rest.starts_with('、') {
            return Some((end + '、'.len_utf8(), Kind::Fixed(Style::DigitComma)));
        }
        if rest.starts_with('．') {
            let after = end + '．'.len_utf8();
            let number = line[after..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || is_wide_digit(c));
            return (!number).then_some((after, Kind::Fixed(Style::Decimal(1))));
        }
        if rest.starts_with(')') && space_or_end(line, end + 1) {
            return Some((end + 1, Kind::Fixed(Style::DigitHalf)));
        }
    }
    decimal(line, i)
}

/// "1." "1.1" "1.1.1" "1.1." with 1 to 6 components of at most 3 digits, followed by a space and a letter (or, after
/// a trailing dot, directly by a CJK ideograph). Without a trailing dot the word after may not be lower case
/// ("3.5 million") nor a Chinese unit of quantity.
pub(super) fn decimal(line: &str, i: usize) -> Option<(usize, Kind)> {
    let b = line.as_bytes();
    let mut j = i;
    let mut components = 0u8;
    loop {
        let n = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 3 {
            return None;
        }
        j += n;
        components += 1;
        if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
            if components == 6 {
                return None;
            }
            j += 1;
        } else {
            break;
        }
    }
    let dot = b.get(j) == Some(&b'.');
    if dot {
        j += 1;
    } else if components == 1 {
        return None;
    }
    let k = skip_emphasis(line, j);
    let after = skip_spaces(line, k);
    if after == k {
        let direct = dot && line[k..].chars().next().is_some_and(is_ideograph);
        return direct.then_some((j, Kind::Fixed(Style::Decimal(components))));
    }
    let c = line[skip_emphasis(line, after)..].chars().next()?;
    if !(c.is_alphabetic() || matches!(c, '"' | '“' | '‘' | '「' | '『' | '《')) {
        return (dot && components == 1).then_some((j, Kind::Silent));
    }
    if !dot && (c.is_ascii_lowercase() || matches!(c, '万' | '亿' | '元')) {
        return None;
    }
    Some((j, Kind::Fixed(Style::Decimal(components))))
}

/// "(1)", "(一)", "(a)", "(ii)", "(A)", with ASCII or full-width brackets; `open` is the opening bracket's length.
/// Latin letters need a space or the end of the line after them ("(s)he" is a word).
pub(super) fn parenthesised(line: &str, i: usize, open: usize) -> Option<(usize, Kind)> {
    let j = i + open;
    let c = line[j..].chars().next()?;
    let (end, kind, latin) = if c.is_ascii_digit() || is_wide_digit(c) {
        let (end, count) = digit_run(line, j);
        if count > 3 {
            return None;
        }
        (end, Kind::Fixed(Style::DigitParen), false)
    } else if is_cn_numeral(c) {
        let (end, count) = cn_numeral_run(line, j);
        if count > 6 {
            return None;
        }
        (end, Kind::Fixed(Style::CnParen), false)
    } else if c.is_ascii_lowercase() {
        let (end, kind) = lower_token(line, j, false)?;
        (end, kind, true)
    } else if c.is_ascii_uppercase() {
        (j + 1, Kind::Fixed(Style::UpperParen), true)
    } else {
        return None;
    };
    let close = if line[end..].starts_with(')') {
        1
    } else if line[end..].starts_with('）') {
        '）'.len_utf8()
    } else {
        return None;
    };
    if latin && !space_or_end(line, end + close) {
        return None;
    }
    Some((end + close, kind))
}

/// "a)", "ii)" followed by a space or the end of the line.
pub(super) fn half_parenthesised(line: &str, i: usize) -> Option<(usize, Kind)> {
    let (end, kind) = lower_token(line, i, true)?;
    (line.as_bytes().get(end) == Some(&b')') && space_or_end(line, end + 1))
        .then_some((end + 1, kind))
}

/// A run of at most 6 lower-case ASCII letters that is a single letter or a roman numeral: (end, kind).
pub(super) fn lower_token(line: &str, i: usize, half: bool) -> Option<(usize, Kind)> {
    let b = line.as_bytes();
    let n = b[i..].iter().take_while(|c| c.is_ascii_lowercase()).count();
    if n == 0 || n > 6 {
        return None;
    }
    let token = &b[i..i + n];
    let (letter, roman) = if n == 1 {
        let roman = match token[0] {
            b'i' => 1,
            b'v' => 5,
            b'x' => 10,
            _ => 0,
        };
        (u16::from(token[0] - b'a') + 1, roman)
    } else {
        (0, roman_value(token)?)
    };
    Some((
        i + n,
        Kind::Lower {
            half,
            letter,
            roman,
        },
    ))
}

/// "Article 5", "ARTICLE IV", "Art. 5", "Section 1.01", "SECTION 2(a)", "Sec. 3", "Chapter 2", "Part II",
/// "Part A", "Schedule 1", followed by an optional "." or ":" and a space or the end of the line.
pub(super) fn english_keyword(line: &str, i: usize) -> Option<(usize, Kind)> {
    let b = line.as_bytes();
    let n = b[i..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let (rank, abbreviated, letters) = match &line[i..i + n] {
        "Part" | "PART" | "Schedule" | "SCHEDULE" => (0, false, true),
        "Chapter" | "CHAPTER" => (2, false, false),
        "Article" | "ARTICLE" => (4, false, false),
        "Art" | "ART" => (4, true, false),
        "Section" | "SECTION" => (5, false, false),
        "Sec" | "SEC" => (5, true, false),
        _ => return None,
    };
    let mut j = i + n;
    if abbreviated {
        if b.get(j) != Some(&b'.') {
            return None;
        }
        j += 1;
    }
    let k = skip_spaces(line, j);
    if k == j {
        return None;
    }
    let end = number_token(line, k, true, letters)?;
    keyword_follows(line, end).then_some((end, Kind::Fixed(Style::Keyword(rank))))
}

/// "§ 101", "§101", "§§ 101-103".
pub(super) fn section_sign(line: &str, i: usize) -> Option<(usize, Kind)> {
    let mut j = i + '§'.len_utf8();
    if line[j..].starts_with('§') {
        j += '§'.len_utf8();
    }
    let end = number_token(line, skip_spaces(line, j), false, false)?;
    keyword_follows(line, end).then_some((end, Kind::Fixed(Style::Keyword(6))))
}

/// The number after an English keyword: digits and what may follow them ("1.01", "2(a)", "101a", "101-103"),
/// a roman numeral (upper or lower case) when `roman`, a single capital when `letter`. Returns its end, trailing
/// dots excluded.
pub(super) fn number_token(line: &str, i: usize, roman: bool, letter: bool) -> Option<usize> {
    let b = line.as_bytes();
    let c = *b.get(i)?;
    if c.is_ascii_digit() {
        let n = b[i..]
            .iter()
            .take(24)
            .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'(' | b')' | b'-'))
            .count();
        let trailing = b[i + 1..i + n]
            .iter()
            .rev()
            .take_while(|&&c| c == b'.')
            .count();
        return Some(i + n - trailing);
    }
    let n = b[i..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let token = &b[i..i + n];
    let ok =
        (roman && roman_value(token).is_some()) || (letter && n == 1 && c.is_ascii_uppercase());
    ok.then_some(i + n)
}

/// After a keyword's number: an optional "." or ":", then a space or the end of the line; without the punctuation
/// the next word may not start in lower case ("Article 5 of the Act" is a reference, not a heading).
pub(super) fn keyword_follows(line: &str, end: usize) -> bool {
    let b = line.as_bytes();
    let punct = matches!(b.get(end), Some(b'.' | b':'));
    let j = skip_emphasis(line, end + usize::from(punct));
    let k = skip_spaces(line, j);
    if k == line.len() {
        return true;
    }
    if k == j {
        return false;
    }
    punct
        || !b
            .get(skip_emphasis(line, k))
            .is_some_and(u8::is_ascii_lowercase)
}

/// 第X编, 第X分编, 第X章, 第X节, 第X条 (X Chinese numerals or digits), with an optional 之X ("第十条之一").
pub(super) fn chinese_keyword(line: &str, i: usize) -> Option<(usize, Kind)> {
    let j = i + '第'.len_utf8();
    let mut end = j;
    let mut count = 0;
    for c in line[j..].chars() {
        if !(is_cn_numeral(c) || c.is_ascii_digit() || is_wide_digit(c)) {
            break;
        }
        count += 1;
        if count > 10 {
            return None;
        }
        end += c.len_utf8();
    }
    if count == 0 {
        return None;
    }
    let rest = &line[end..];
    let (rank, unit) = if rest.starts_with("分编") {
        (1, "分编".len())
    } else {
        match rest.chars().next()? {
            '编' => (0, 3),
            '章' => (2, 3),
            '节' => (3, 3),
            '条' => (4, 3),
            _ => return None,
        }
    };
    end += unit;
    if line[end..].starts_with('之') {
        let (after, n) = cn_numeral_run(line, end + '之'.len_utf8());
        if n > 0 {
            end = after;
        }
    }
    let rest = &line[end..];
    let reference = rest.starts_with("规定")
        || rest.chars().next().is_some_and(|c| {
            matches!(
                c,
                '，' | '、'
                    | ','
                    | '的'
                    | '和'
                    | '与'
                    | '或'
                    | '至'
                    | '到'
                    | '及'
                    | '中'
                    | '所'
                    | '第'
            )
        });
    (!reference).then_some((end, Kind::Fixed(Style::Keyword(rank))))
}

/// 一、 二、 十一、
pub(super) fn cn_comma(line: &str, i: usize) -> Option<(usize, Kind)> {
    let (end, count) = cn_numeral_run(line, i);
    (count <= 6 && line[end..].starts_with('、'))
        .then_some((end + '、'.len_utf8(), Kind::Fixed(Style::CnComma)))
}

/// Where the title ends when the rest of the line after the marker is a heading: short (at most 40 characters) and
/// not ending in sentence or clause punctuation, or in title case (see [`title_case`]) ending in "." or on a line
/// that stands `alone` (a blank line or a rule after it). Trailing spaces, `**`, a markdown closing `#` sequence and the right
/// border of a box stay out.
pub(super) fn heading_end(
    line: &str,
    marker_end: usize,
    atx: bool,
    boxed: bool,
    alone: bool,
) -> Option<usize> {
    let b = line.as_bytes();
    let trim = |e: usize| marker_end.max(line[..e].trim_end().len());
    let mut e = trim(line.len());
    if atx {
        let hashes = b[marker_end..e]
            .iter()
            .rev()
            .take_while(|&&c| c == b'#')
            .count();
        let h = e - hashes;
        if hashes > 0 && (h == marker_end || line[..h].ends_with(char::is_whitespace)) {
            e = trim(h);
        }
    }
    if boxed && e > marker_end && b[e - 1] == b'*' {
        e = trim(e - 1);
    }
    while e >= marker_end + 2 && &b[e - 2..e] == b"**" {
        e = trim(e - 2);
    }
    let core = line[marker_end..e].trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | '.' | ':' | '：' | '-' | '–' | '—')
    });
    let last = core.chars().next_back()?;
    let short = core.chars().filter(|&c| c != '*').take(41).count() <= 40;
    let sentence = matches!(
        last,
        '。' | '．' | '.' | '！' | '？' | '!' | '?' | '；' | ';' | '：' | ':' | '，' | ',' | '、'
    );
    // A line in title case that does not end in "." may be the first line of a wrapped sentence in capitals
    // ("12. IN NO EVENT UNLESS REQUIRED BY APPLICABLE LAW OR AGREED TO IN WRITING"): it is a title only alone.
    let complete = alone || last == '.';
    ((short && !sentence) || (complete && title_case(core))).then_some(e)
}

/// A heading in title case, such as licences put on a line of its own ("5. Conveying Modified Source Versions.",
/// "4. Inability to Comply Due to Statute or Regulation"): at most 80 characters, no punctuation inside but a
/// final ".", the first letter upper case, and every lower-case word of four letters or more a short function
/// word ("with", "from", ...). A sentence ("The Seller shall sell the Shares.") has lower-case words.
pub(super) fn title_case(core: &str) -> bool {
    const MINOR: [&str; 14] = [
        "with", "from", "into", "onto", "upon", "over", "that", "than", "this", "under", "within",
        "without", "between", "against",
    ];
    let body = core.strip_suffix('.').unwrap_or(core);
    if body.chars().take(81).count() > 80
        || body.contains([
            '.', ',', ';', ':', '!', '?', '。', '，', '；', '：', '！', '？', '、', '．',
        ])
        || !body
            .chars()
            .find(|c| c.is_alphanumeric())
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    {
        return false;
    }
    body.split_whitespace().all(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        !word.starts_with(char::is_lowercase) || word.chars().count() <= 3 || MINOR.contains(&word)
    })
}

/// A line that opens a fenced code block: three or more backticks (no backtick after them) or tildes.
pub(super) fn opens_fence(line: &str, i: usize) -> Option<(u8, usize)> {
    let b = line.as_bytes();
    let ch = *b.get(i)?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = b[i..].iter().take_while(|&&c| c == ch).count();
    (n >= 3 && (ch == b'~' || !b[i + n..].contains(&b'`'))).then_some((ch, n))
}

/// A line that closes the open fence: at least as many of its character, then only spaces.
pub(super) fn closes_fence(line: &str, i: usize, ch: u8, len: usize) -> bool {
    let b = line.as_bytes();
    let n = b[i..].iter().take_while(|&&c| c == ch).count();
    n >= len && line[i + n..].trim().is_empty()
}

/// Skips spaces, tabs, ideographic spaces (U+3000), no-break spaces and byte order marks.
pub(super) fn skip_spaces(line: &str, mut i: usize) -> usize {
    let b = line.as_bytes();
    loop {
        match b.get(i..i + 3) {
            Some([0xE3, 0x80, 0x80] | [0xEF, 0xBB, 0xBF]) => i += 3,
            _ => match b.get(i..i + 2) {
                Some([0xC2, 0xA0]) => i += 2,
                _ => match b.get(i) {
                    Some(b' ' | b'\t') => i += 1,
                    _ => return i,
                },
            },
        }
    }
}

/// Skips a markdown `**`.
pub(super) fn skip_emphasis(line: &str, i: usize) -> usize {
    if line.as_bytes().get(i..i + 2) == Some(b"**") {
        i + 2
    } else {
        i
    }
}

/// Whether `i` is the end of the line or a space (after an optional `**`).
pub(super) fn space_or_end(line: &str, i: usize) -> bool {
    let i = skip_emphasis(line, i);
    i == line.len() || skip_spaces(line, i) > i
}

/// A run of ASCII and full-width digits: (end, count).
pub(super) fn digit_run(line: &str, i: usize) -> (usize, usize) {
    run(line, i, |c| c.is_ascii_digit() || is_wide_digit(c))
}

/// A run of Chinese numerals: (end, count).
pub(super) fn cn_numeral_run(line: &str, i: usize) -> (usize, usize) {
    run(line, i, is_cn_numeral)
}

/// A run of chars that pass `accept`, stopping after 16 of them (more are no marker): (end, count).
pub(super) fn run(line: &str, i: usize, accept: impl Fn(char) -> bool) -> (usize, usize) {
    let mut end = i;
    let mut count = 0;
    for c in line[i..].chars().take(16) {
        if !accept(c) {
            break;
        }
        end += c.len_utf8();
        count += 1;
    }
    (end, count)
}

pub(super) fn is_wide_digit(c: char) -> bool {
    ('０'..='９').contains(&c)
}

pub(super) fn is_cn_numeral(c: char) -> bool {
    matches!(
        c,
        '〇' | '一'
            | '二'
            | '三'
            | '四'
            | '五'
            | '六'
            | '七'
            | '八'
            | '九'
            | '十'
            | '百'
            | '千'
            | '零'
            | '两'
    )
}

/// CJK unified ideographs (the basic block and extension A).
pub(super) fn is_ideograph(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}')
}

/// The value of a roman numeral written in canonical form, all upper or all lower case ("iv", "XII"), 1 to 3999.
pub(super) fn roman_value(token: &[u8]) -> Option<u16> {
    const SYMBOLS: [(u16, &[u8]); 13] = [
        (1000, b"m"),
        (900, b"cm"),
        (500, b"d"),
        (400, b"cd"),
        (100, b"c"),
        (90, b"xc"),
        (50, b"l"),
        (40, b"xl"),
        (10, b"x"),
        (9, b"ix"),
        (5, b"v"),
        (4, b"iv"),
        (1, b"i"),
    ];
    let same_case =
        token.iter().all(u8::is_ascii_lowercase) || token.iter().all(u8::is_ascii_uppercase);
    if token.is_empty() || token.len() > 15 || !same_case {
        return None;
    }
    let digit = |c: u8| match c.to_ascii_lowercase() {
        b'i' => Some(1u16),
        b'v' => Some(5),
        b'x' => Some(10),
        b'l' => Some(50),
        b'c' => Some(100),
        b'd' => Some(500),
        b'm' => Some(1000),
        _ => None,
    };
    let mut sum = 0i32;
    for (k, &c) in token.iter().enumerate() {
        let v = i32::from(digit(c)?);
        match token.get(k + 1).and_then(|&n| digit(n)) {
            Some(next) if i32::from(next) > v => sum -= v,
            _ => sum += v,
        }
    }
    let value = u16::try_from(sum).ok()?;
    // Only the canonical spelling of that value counts ("iiii", "vx", "ic" do not).
    let mut rest = value;
    let mut pos = 0;
    for (v, symbol) in SYMBOLS {
        while rest >= v {
            let end = pos + symbol.len();
            if token
                .get(pos..end)
                .is_none_or(|t| !t.eq_ignore_ascii_case(symbol))
            {
                return None;
            }
            pos = end;
            rest -= v;
        }
    }
    (value > 0 && pos == token.len()).then_some(value)
}
