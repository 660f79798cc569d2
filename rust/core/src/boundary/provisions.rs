//! Numbered provisions of legal and policy text: 第一章, 第五条, （一）, "Article 5", "Section 1.01", "§ 101",
//! "1.1", "(a)", "(ii)". A clause chunker turns their numbering hierarchy into a title path; this file only finds
//! them and says how deep each one sits.
//!
//! A marker counts only at the start of a line, after optional spaces, tabs, U+3000, a markdown heading prefix
//! (`#`s and a space), a list bullet (`- `, `* `, `+ `) and `**`. Fenced code blocks (``` or ~~~) are skipped.
//! Each line is read from its start and most are rejected after a byte or two, so the scan is linear.
//!
//! Depth:
//! - Keyword markers have fixed ranks: 编/Part/Schedule > 分编 > 章/Chapter > 节 > 条/Article > Section > §. The
//!   ranks present in the document are numbered 1, 2, ... outermost first, wherever a provision stands (a 条 that
//!   comes straight after a 章 still sits below the 节 rank when the document has 节 elsewhere).
//! - Enumerations (一、, （一）, 1、, (1), 1), 1., 1.1, (a), a), (i), i), (A)) sit below the last keyword, on a
//!   stack as word processors keep one: a style already on the stack is a sibling there (the stack is popped back
//!   to it); a new style is a child of the top. Decimal numbers place themselves by component count: 1.1 goes below
//!   the deepest shallower decimal on the stack (popping what is above it), or takes the place of deeper ones.
//!   A keyword empties the stack.
//! - Depths deeper than 6 are reported as 6.
//!
//! "(i)", "(v)", "(x)" (and "i)", ...) may be a letter or a roman numeral. They are letters when the letter style of
//! the same bracket form is on the stack with the preceding letter ("(h)", "(u)", "(w)") as its last item, no deeper
//! roman style on the stack ends with the preceding numeral, and the next marker of that bracket form is not the
//! next numeral ("(ii)", "(vi)", "(xi)"). Otherwise they are roman numerals.
//!
//! Title: the marker plus the rest of the line when that rest is a short heading (at most 40 characters, not ending
//! in 。．.！？!?；;：:，,、), else the marker alone ("Article 5" without its "." or ":").
//!
//! Guards against prose: decimals need a space and a letter after them (or, after a trailing dot, a CJK ideograph),
//! and "3.5 million" / "1.1 the" (no trailing dot, a lower-case word after) are rejected, as are components over 999 ("2019 年", "2023.10.1"); English keywords
//! followed by a lower-case word without "." or ":" are references ("Article 5 of the Act"); 第 + numeral needs a
//! unit (not 第三方, 第一次) and is a reference when followed by ，、的和与或至到及中所第 or 规定.

use memchr::memchr;

/// One numbered provision: where its heading line starts, its depth in the numbering hierarchy, and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provision {
    /// Byte offset of the start of the line that holds the marker (a cut before the provision falls here).
    pub start: usize,
    /// Byte offset of the first byte of the marker itself (after leading whitespace / markdown '#'s / bullets).
    pub marker: usize,
    /// Byte offset just past the title (marker + short heading text), on the same line.
    pub title_end: usize,
    /// 1 = outermost level actually present in this document; children are deeper (2, 3, ...).
    pub depth: u8,
    /// The title as it appears in the source, trimmed: e.g. "第三章 环境保护", "第五条", "Article 5. Definitions",
    /// "§ 2", "1.1", "(a)", "（一）". Markdown `**` inside `text[marker..title_end]` is removed.
    pub title: String,
}

/// The deepest depth reported; deeper provisions are reported at this depth.
const MAX_DEPTH: usize = 6;

/// How a marker is numbered, which decides where it sits in the hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// 第X编 ... 第X条, Part ... §: a fixed rank, 0 (outermost) to 6.
    Keyword(u8),
    /// 一、
    CnComma,
    /// （一） or (一)
    CnParen,
    /// 1、
    DigitComma,
    /// (1) or （1）
    DigitParen,
    /// 1)
    DigitHalf,
    /// 1. / 1.1 / 1.1.1: the number of components.
    Decimal(u8),
    /// (a)
    LetterParen,
    /// a)
    LetterHalf,
    /// (i)
    RomanParen,
    /// i)
    RomanHalf,
    /// (A)
    UpperParen,
}

/// A marker's style, or a lower-case one whose style waits for its neighbours.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Fixed(Style),
    /// "(x)" (`half` false) or "x)" (`half` true), x lower case: `letter` is its place in the alphabet when it is a
    /// single letter, `roman` its value when it is a roman numeral (0 when not); at least one is set.
    Lower {
        half: bool,
        letter: u16,
        roman: u16,
    },
}

/// A marker found by the line scan, before depths are known.
#[derive(Debug)]
struct Candidate {
    start: usize,
    marker: usize,
    title_end: usize,
    kind: Kind,
}

/// All provisions of `text`, in order. Linear in the text length.
pub fn provisions(text: &str) -> Vec<Provision> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    // An open fence: its character and length.
    let mut fence: Option<(u8, usize)> = None;
    let mut start = 0;
    while start < bytes.len() {
        let nl = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |o| start + o);
        let end = if nl > start && bytes[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        let line = &text[start..end];
        let i = skip_spaces(line, 0);
        if let Some((ch, len)) = fence {
            if closes_fence(line, i, ch, len) {
                fence = None;
            }
        } else if let Some(open) = opens_fence(line, i) {
            fence = Some(open);
        } else if let Some((marker, title_end, kind)) = scan(line, i) {
            found.push(Candidate {
                start,
                marker: start + marker,
                title_end: start + title_end,
                kind,
            });
        }
        start = nl + 1;
    }
    assign_depths(text, &found)
}

/// Gives each candidate its depth (see the module docs) and its title.
fn assign_depths(text: &str, found: &[Candidate]) -> Vec<Provision> {
    let ranks = found.iter().fold(0u8, |mask, c| match c.kind {
        Kind::Fixed(Style::Keyword(r)) => mask | 1 << r,
        _ => mask,
    });
    // The next lower-case marker of the same bracket form, for "(i)" followed by "(ii)".
    let mut next_lower = vec![usize::MAX; found.len()];
    let mut seen = [usize::MAX; 2];
    for (k, c) in found.iter().enumerate().rev() {
        if let Kind::Lower { half, .. } = c.kind {
            next_lower[k] = seen[half as usize];
            seen[half as usize] = k;
        }
    }
    let mut base = 0usize;
    // Enumeration styles open below the last keyword, each with the value of its last item.
    let mut stack: Vec<(Style, u16)> = Vec::new();
    let mut out = Vec::with_capacity(found.len());
    for (k, c) in found.iter().enumerate() {
        let depth = match c.kind {
            Kind::Fixed(Style::Keyword(r)) => {
                base = (ranks & ((1u8 << r) - 1)).count_ones() as usize + 1;
                stack.clear();
                base
            }
            Kind::Fixed(style) => base + place(&mut stack, style, 0) + 1,
            Kind::Lower {
                half,
                letter,
                roman,
            } => {
                let next = found.get(next_lower[k]).map(|n| n.kind);
                let (style, value) = lower_style(&stack, half, letter, roman, next);
                base + place(&mut stack, style, value) + 1
            }
        };
        let source = &text[c.marker..c.title_end];
        let title = if source.contains("**") {
            source.replace("**", "").trim().to_string()
        } else {
            source.trim().to_string()
        };
        out.push(Provision {
            start: c.start,
            marker: c.marker,
            title_end: c.title_end,
            depth: depth.min(MAX_DEPTH) as u8,
            title,
        });
    }
    out
}

/// Puts an enumeration style on the stack and returns its index there (0 = directly below the keyword).
fn place(stack: &mut Vec<(Style, u16)>, style: Style, value: u16) -> usize {
    if let Some(p) = stack.iter().position(|&(s, _)| s == style) {
        stack.truncate(p + 1);
        stack[p].1 = value;
        return p;
    }
    if let Style::Decimal(n) = style {
        let shallower = stack
            .iter()
            .rposition(|&(s, _)| matches!(s, Style::Decimal(m) if m < n));
        if let Some(p) = shallower {
            stack.truncate(p + 1);
        } else if let Some(p) = stack
            .iter()
            .position(|&(s, _)| matches!(s, Style::Decimal(_)))
        {
            stack.truncate(p);
        }
    }
    stack.push((style, value));
    stack.len() - 1
}

/// Letter or roman numeral for a lower-case marker (the "(i)" rule of the module docs), with the item's value.
fn lower_style(
    stack: &[(Style, u16)],
    half: bool,
    letter: u16,
    roman: u16,
    next: Option<Kind>,
) -> (Style, u16) {
    let (letters, romans) = if half {
        (Style::LetterHalf, Style::RomanHalf)
    } else {
        (Style::LetterParen, Style::RomanParen)
    };
    if letter == 0 {
        return (romans, roman);
    }
    if roman == 0 {
        return (letters, letter);
    }
    let after_letter = stack
        .iter()
        .position(|&(s, v)| s == letters && v + 1 == letter);
    let after_numeral = stack
        .iter()
        .position(|&(s, v)| s == romans && v + 1 == roman);
    let numeral_follows =
        matches!(next, Some(Kind::Lower { letter: 0, roman: r, .. }) if r == roman + 1);
    let is_letter = match (after_letter, after_numeral) {
        (Some(l), Some(r)) => l > r && !numeral_follows,
        (Some(_), None) => !numeral_follows,
        _ => false,
    };
    if is_letter {
        (letters, letter)
    } else {
        (romans, roman)
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The line scan. Every function takes the line (without its line break) and a byte index on a char boundary.

/// Finds the marker of a line whose content starts at `i`: (marker, title end, kind), as offsets into the line.
fn scan(line: &str, mut i: usize) -> Option<(usize, usize, Kind)> {
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
    if matches!(b.get(i), Some(b'-' | b'*' | b'+')) && matches!(b.get(i + 1), Some(b' ' | b'\t')) {
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
    let title_end = heading_end(line, marker_end, atx).unwrap_or(marker_end);
    Some((marker, title_end, kind))
}

/// "1、", "1)", "1．" (not "1．5") and the decimals "1.", "1.1", "1.1.1", "1.1." (ASCII or full-width digits, except decimals).
fn digits(line: &str, i: usize) -> Option<(usize, Kind)> {
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
fn decimal(line: &str, i: usize) -> Option<(usize, Kind)> {
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
        return None;
    }
    if !dot && (c.is_ascii_lowercase() || matches!(c, '万' | '亿' | '元')) {
        return None;
    }
    Some((j, Kind::Fixed(Style::Decimal(components))))
}

/// "(1)", "(一)", "(a)", "(ii)", "(A)", with ASCII or full-width brackets; `open` is the opening bracket's length.
/// Latin letters need a space or the end of the line after them ("(s)he" is a word).
fn parenthesised(line: &str, i: usize, open: usize) -> Option<(usize, Kind)> {
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
fn half_parenthesised(line: &str, i: usize) -> Option<(usize, Kind)> {
    let (end, kind) = lower_token(line, i, true)?;
    (line.as_bytes().get(end) == Some(&b')') && space_or_end(line, end + 1))
        .then_some((end + 1, kind))
}

/// A run of at most 6 lower-case ASCII letters that is a single letter or a roman numeral: (end, kind).
fn lower_token(line: &str, i: usize, half: bool) -> Option<(usize, Kind)> {
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
fn english_keyword(line: &str, i: usize) -> Option<(usize, Kind)> {
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
fn section_sign(line: &str, i: usize) -> Option<(usize, Kind)> {
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
fn number_token(line: &str, i: usize, roman: bool, letter: bool) -> Option<usize> {
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
fn keyword_follows(line: &str, end: usize) -> bool {
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
fn chinese_keyword(line: &str, i: usize) -> Option<(usize, Kind)> {
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
fn cn_comma(line: &str, i: usize) -> Option<(usize, Kind)> {
    let (end, count) = cn_numeral_run(line, i);
    (count <= 6 && line[end..].starts_with('、'))
        .then_some((end + '、'.len_utf8(), Kind::Fixed(Style::CnComma)))
}

/// Where the title ends when the rest of the line after the marker is a short heading: at most 40 characters, not
/// ending in sentence or clause punctuation. Trailing spaces, `**` and a markdown closing `#` sequence stay out.
fn heading_end(line: &str, marker_end: usize, atx: bool) -> Option<usize> {
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
    (short && !sentence).then_some(e)
}

/// A line that opens a fenced code block: three or more backticks (no backtick after them) or tildes.
fn opens_fence(line: &str, i: usize) -> Option<(u8, usize)> {
    let b = line.as_bytes();
    let ch = *b.get(i)?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = b[i..].iter().take_while(|&&c| c == ch).count();
    (n >= 3 && (ch == b'~' || !b[i + n..].contains(&b'`'))).then_some((ch, n))
}

/// A line that closes the open fence: at least as many of its character, then only spaces.
fn closes_fence(line: &str, i: usize, ch: u8, len: usize) -> bool {
    let b = line.as_bytes();
    let n = b[i..].iter().take_while(|&&c| c == ch).count();
    n >= len && line[i + n..].trim().is_empty()
}

/// Skips spaces, tabs, ideographic spaces (U+3000), no-break spaces and byte order marks.
fn skip_spaces(line: &str, mut i: usize) -> usize {
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
fn skip_emphasis(line: &str, i: usize) -> usize {
    if line.as_bytes().get(i..i + 2) == Some(b"**") {
        i + 2
    } else {
        i
    }
}

/// Whether `i` is the end of the line or a space (after an optional `**`).
fn space_or_end(line: &str, i: usize) -> bool {
    let i = skip_emphasis(line, i);
    i == line.len() || skip_spaces(line, i) > i
}

/// A run of ASCII and full-width digits: (end, count).
fn digit_run(line: &str, i: usize) -> (usize, usize) {
    run(line, i, |c| c.is_ascii_digit() || is_wide_digit(c))
}

/// A run of Chinese numerals: (end, count).
fn cn_numeral_run(line: &str, i: usize) -> (usize, usize) {
    run(line, i, is_cn_numeral)
}

/// A run of chars that pass `accept`, stopping after 16 of them (more are no marker): (end, count).
fn run(line: &str, i: usize, accept: impl Fn(char) -> bool) -> (usize, usize) {
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

fn is_wide_digit(c: char) -> bool {
    ('０'..='９').contains(&c)
}

fn is_cn_numeral(c: char) -> bool {
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
fn is_ideograph(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}')
}

/// The value of a roman numeral written in canonical form, all upper or all lower case ("iv", "XII"), 1 to 3999.
fn roman_value(token: &[u8]) -> Option<u16> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The provisions of `text` after checking the invariants every provision keeps.
    fn checked(text: &str) -> Vec<Provision> {
        let found = provisions(text);
        let mut last = None;
        for p in &found {
            assert!(text.is_char_boundary(p.start), "{p:?}");
            assert!(
                p.start == 0 || text.as_bytes()[p.start - 1] == b'\n',
                "{p:?}"
            );
            assert!(last.is_none_or(|l| l < p.start), "{p:?} out of order");
            last = Some(p.start);
            assert!(p.marker >= p.start && p.title_end > p.marker, "{p:?}");
            let line_end =
                memchr(b'\n', &text.as_bytes()[p.start..]).map_or(text.len(), |o| p.start + o);
            assert!(p.title_end <= line_end, "{p:?}");
            assert_eq!(
                p.title,
                text[p.marker..p.title_end].replace("**", "").trim(),
                "{p:?}"
            );
            assert!((1..=6).contains(&p.depth), "{p:?}");
        }
        found
    }

    fn outline(text: &str) -> Vec<(u8, String)> {
        checked(text)
            .into_iter()
            .map(|p| (p.depth, p.title))
            .collect()
    }

    fn expect(text: &str, want: &[(u8, &str)]) {
        let want: Vec<(u8, String)> = want.iter().map(|&(d, t)| (d, t.to_string())).collect();
        assert_eq!(outline(text), want);
    }

    #[test]
    fn chinese_law() {
        let text = "\
中华人民共和国环境保护法

第一章　总则
第一条　为保护和改善环境，防治污染和其他公害，制定本法。
第二条 本法所称环境，是指影响人类生存和发展的各种天然的和经过人工改造的自然因素的总体，包括：
（一）大气、水、海洋；
（二）土地、矿藏、森林。
第二章 监督管理
第一节 一般规定
第三条国家鼓励环境保护产业发展。
第四条 环境保护坚持保护优先、预防为主的原则。
一、总体要求
(一)目标
";
        expect(
            text,
            &[
                (1, "第一章　总则"),
                (3, "第一条"),
                (3, "第二条"),
                (4, "（一）"),
                (4, "（二）"),
                (1, "第二章 监督管理"),
                (2, "第一节 一般规定"),
                (3, "第三条"),
                (3, "第四条"),
                (4, "一、总体要求"),
                (5, "(一)目标"),
            ],
        );
        let found = checked(text);
        assert_eq!(found[0].start, text.find("第一章").unwrap());
        assert_eq!(found[0].marker, found[0].start);
    }

    #[test]
    fn chinese_ranks_and_article_suffix() {
        let text = "第一编 总则\n第一分编 通则\n第一章 一般规定\n第一节 定义\n第1条 合同。\n第二百八十七条之一 补充规定\n";
        expect(
            text,
            &[
                (1, "第一编 总则"),
                (2, "第一分编 通则"),
                (3, "第一章 一般规定"),
                (4, "第一节 定义"),
                (5, "第1条"),
                (5, "第二百八十七条之一 补充规定"),
            ],
        );
        // A law with only 章 and 条: depths 1 and 2.
        expect(
            "第一章 总则\n第一条 内容。\n",
            &[(1, "第一章 总则"), (2, "第一条")],
        );
    }

    #[test]
    fn chinese_enumerations_nest_by_first_appearance() {
        let text =
            "一、总体要求\n（一）指导思想\n1、坚持原则\n（1）细则\n2、加强管理\n二、主要任务\n";
        expect(
            text,
            &[
                (1, "一、总体要求"),
                (2, "（一）指导思想"),
                (3, "1、坚持原则"),
                (4, "（1）细则"),
                (3, "2、加强管理"),
                (1, "二、主要任务"),
            ],
        );
    }

    #[test]
    fn english_contract() {
        let text = "\
ARTICLE I DEFINITIONS
Section 1.01 Defined Terms. As used in this Agreement, the following terms have the meanings set out below:
(a) \"Affiliate\" means any person that controls, is controlled by or is under common control with a party, where
(i) control means the power to direct the management of that person; and
(ii) a person is deemed to control its subsidiaries.
(b) \"Business Day\" means a day on which banks in New York are open.
ARTICLE II
PURCHASE AND SALE
Section 2.01. Sale
(a) The Seller shall sell the Shares.
";
        expect(
            text,
            &[
                (1, "ARTICLE I DEFINITIONS"),
                (2, "Section 1.01"),
                (3, "(a)"),
                (4, "(i)"),
                (4, "(ii)"),
                (3, "(b)"),
                (1, "ARTICLE II"),
                (2, "Section 2.01. Sale"),
                (3, "(a)"),
            ],
        );
    }

    #[test]
    fn letter_i_or_roman_numeral() {
        // After (h), "(i)" is the next letter...
        expect(
            "(g) one;\n(h) two;\n(i) three;\n(j) four.\n",
            &[(1, "(g)"), (1, "(h)"), (1, "(i)"), (1, "(j)")],
        );
        // ...unless "(ii)" follows it.
        expect(
            "(h) the following:\n(i) one;\n(ii) two;\n(j) four.\n",
            &[(1, "(h)"), (2, "(i)"), (2, "(ii)"), (1, "(j)")],
        );
        // Without a preceding (h) it is a numeral; so is (v) after (iv) even with a (u) above it.
        expect("(i) one;\n(ii) two.\n", &[(1, "(i)"), (1, "(ii)")]);
        expect(
            "(u) x:\n(iv) four;\n(v) five;\n(w) y.\n",
            &[(1, "(u)"), (2, "(iv)"), (2, "(v)"), (1, "(w)")],
        );
        // A keyword forgets the letters before it.
        expect(
            "Article 1\n(h) x.\nArticle 2\n(i) y.\n",
            &[(1, "Article 1"), (2, "(h)"), (1, "Article 2"), (2, "(i)")],
        );
        // The half-bracket forms are their own styles, with the same rule.
        expect(
            "a) one\nb) two\n   i) sub\n   ii) sub\nc) three\n",
            &[
                (1, "a) one"),
                (1, "b) two"),
                (2, "i) sub"),
                (2, "ii) sub"),
                (1, "c) three"),
            ],
        );
    }

    #[test]
    fn decimal_numbering() {
        let text = "1. Definitions\n1.1 The Supplier shall deliver the goods within 30 days.\n1.1.1 Goods\n1.2. Services\n2. Payment\n";
        expect(
            text,
            &[
                (1, "1. Definitions"),
                (2, "1.1"),
                (3, "1.1.1 Goods"),
                (2, "1.2. Services"),
                (1, "2. Payment"),
            ],
        );
        // Components order the decimals among themselves, wherever they first appear.
        expect(
            "1.1 Scope\n(a) first\n1.2 Terms\n2. Price\n(a) second\n2.1 Tax\n",
            &[
                (1, "1.1 Scope"),
                (2, "(a) first"),
                (1, "1.2 Terms"),
                (1, "2. Price"),
                (2, "(a) second"),
                (2, "2.1 Tax"),
            ],
        );
        // Below a keyword, and full-width / CJK forms.
        expect(
            "Article 5\n5.1 Scope\n第一条 总则\n1．概述\n2.定义\n",
            &[
                (1, "Article 5"),
                (2, "5.1 Scope"),
                (1, "第一条 总则"),
                (2, "1．概述"),
                (2, "2.定义"),
            ],
        );
    }

    #[test]
    fn us_code_sections() {
        let text = "§ 101. Definitions\nExcept as otherwise provided in this title, the following terms apply.\n§102 Subject matter\n§§ 103-104\n§ 106 of title 17 is cited here.\n";
        expect(
            text,
            &[
                (1, "§ 101. Definitions"),
                (1, "§102 Subject matter"),
                (1, "§§ 103-104"),
            ],
        );
        expect("§ 101.\n", &[(1, "§ 101")]);
    }

    #[test]
    fn english_keywords() {
        let text = "PART II\nCHAPTER 3: Remedies\nArticle 5. Definitions\nArticle 6.\nArt. 7 Scope\nSection 2(a). Notices\nSec. 3\nSchedule A\nArticle 8 The Supplier shall deliver the goods on time, in full and to the agreed place.\n";
        expect(
            text,
            &[
                (1, "PART II"),
                (2, "CHAPTER 3: Remedies"),
                (3, "Article 5. Definitions"),
                (3, "Article 6"),
                (3, "Art. 7 Scope"),
                (4, "Section 2(a). Notices"),
                (4, "Sec. 3"),
                (1, "Schedule A"),
                (3, "Article 8"),
            ],
        );
    }

    #[test]
    fn titles_are_short_headings_only() {
        expect("第五条 国家鼓励环境保护产业发展……。\n", &[(1, "第五条")]);
        expect("第五条 国家鼓励发展，\n", &[(1, "第五条")]);
        expect("1.1 The Supplier shall deliver:\n", &[(1, "1.1")]);
        let long = format!("Article 1 {}\n", "A".repeat(41));
        expect(&long, &[(1, "Article 1")]);
        let fits = format!("Article 1 {}\n", "A".repeat(40));
        expect(&fits, &[(1, fits.trim_end())]);
    }

    #[test]
    fn markdown_markup() {
        let text = "## 第一章 总则 ##\n**第一条** 为了规范合同，制定本法。\n### **Article 5.** Definitions\n- (a) **Term**\n  * (b) next\n#### 1.1 Scope\n";
        let found = checked(text);
        let titles: Vec<&str> = found.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "第一章 总则",
                "第一条",
                "Article 5. Definitions",
                "(a) Term",
                "(b) next",
                "1.1 Scope"
            ]
        );
        assert_eq!(&text[found[0].marker..found[0].title_end], "第一章 总则");
        assert_eq!(&text[found[1].marker..found[1].title_end], "第一条");
        assert_eq!(found[3].start, text.find("- (a)").unwrap());
        assert_eq!(found[3].marker, found[3].start + 2);
    }

    #[test]
    fn prose_is_not_a_provision() {
        let text = "\
2019 年，公司营业收入增长了三成。
2019年公司营业收入增长。
3.5 million people live in the region.
2.5 万元的补贴已经发放。
2023.10.1 release notes
10.1.2023 is a date
12 months later.
第三方机构负责评估。
第一次会议于五月召开。
第三条规定的情形除外。
第三条、第四条的规定同样适用。
e.g. the following
i.e. that one
(e.g. a note)
(s)he said so.
(2019) was a good year.
Article 5 of the Convention applies.
Section 3 shall survive termination.
Part of the problem is scale.
Chapter 11 bankruptcy is common.
Articles 5 and 6 apply.
#1. not a heading
####### 1. too many hashes
1.5kg of flour
1．5公斤面粉
";
        assert_eq!(checked(text), vec![]);
    }

    #[test]
    fn fenced_code_is_skipped() {
        let text = "1. Intro\n```rust\n1. not this\n第一条 也不是\n```\n2. Next\n~~~~\n(a) no\n~~~\n(b) still inside\n~~~~\n3. Last\n```\n第二条 unclosed fence runs to the end\n";
        expect(text, &[(1, "1. Intro"), (1, "2. Next"), (1, "3. Last")]);
        // Inline backticks are no fence.
        expect("```x``` here\n1. Item\n", &[(1, "1. Item")]);
    }

    #[test]
    fn crlf_line_endings() {
        let text = "第一章 总则\r\n第一条 为了规范。\r\n（一）一项\r\n\r\n1. Scope\r\n";
        let found = checked(text);
        let titles: Vec<&str> = found.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["第一章 总则", "第一条", "（一）一项", "1. Scope"]);
        assert_eq!(found[1].start, text.find("第一条").unwrap());
        assert_eq!(found[3].title_end, text.len() - 2);
    }

    #[test]
    fn empty_and_blank_text() {
        assert_eq!(checked(""), vec![]);
        assert_eq!(checked("\n\r\n  \n"), vec![]);
        assert_eq!(checked("第"), vec![]);
        assert_eq!(checked("("), vec![]);
        assert_eq!(checked("§"), vec![]);
        assert_eq!(checked("Article 5 **"), provisions("Article 5 **"));
        expect("\u{feff}第一条 总则", &[(1, "第一条 总则")]);
    }

    #[test]
    fn depth_is_capped() {
        let text =
            "1. A\n1.1 B\n1.1.1 C\n1.1.1.1 D\n1.1.1.1.1 E\n1.1.1.1.1.1 F\n(a) G\n1.1.1.1.1.1.1 H\n";
        expect(
            text,
            &[
                (1, "1. A"),
                (2, "1.1 B"),
                (3, "1.1.1 C"),
                (4, "1.1.1.1 D"),
                (5, "1.1.1.1.1 E"),
                (6, "1.1.1.1.1.1 F"),
                (6, "(a) G"),
            ],
        );
    }

    #[test]
    fn fragments_in_any_order_keep_invariants() {
        // Lines glued from marker pieces by a fixed pseudo-random sequence: no panic, every invariant holds.
        const PIECES: [&str; 30] = [
            "第", "一", "十", "章", "条", "之", "分编", "（", "）", "(", ")", "、", "．", "1", "9",
            ".", "i", "v", "h", "A", "§", "Article ", "Sec. ", "**", "## ", "`", "\u{3000}", " ",
            "\r", "é",
        ];
        let mut state = 0x2545_f491_u32;
        let mut text = String::new();
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            text.push_str(PIECES[state as usize % PIECES.len()]);
            if state % 7 == 0 {
                text.push('\n');
            }
        }
        let found = checked(&text);
        assert!(!found.is_empty());
    }

    #[test]
    fn roman_numerals() {
        assert_eq!(roman_value(b"iv"), Some(4));
        assert_eq!(roman_value(b"XII"), Some(12));
        assert_eq!(roman_value(b"mcmxcix"), Some(1999));
        assert_eq!(roman_value(b"iiii"), None);
        assert_eq!(roman_value(b"ic"), None);
        assert_eq!(roman_value(b"Iv"), None);
        assert_eq!(roman_value(b"ab"), None);
    }

    #[test]
    fn many_lines_run() {
        let mut text = String::new();
        for k in 0..50_000 {
            text.push_str(&format!(
                "第{k}条 内容。\n({}) item\n{}.{} Heading\nplain prose line\n",
                (b'a' + (k % 26) as u8) as char,
                k % 999,
                k % 7
            ));
        }
        let found = checked(&text);
        assert!(found.len() >= 100_000);
        // One very long line of nested brackets and digits.
        let long = "((((1.1.1.".repeat(20_000);
        assert_eq!(checked(&long), vec![]);
    }
}
