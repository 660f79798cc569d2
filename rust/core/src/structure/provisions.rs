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
//! Title: the marker plus the rest of the line when that rest is a heading, else the marker alone ("Article 5"
//! without its "." or ":"). A heading is short (at most 40 characters) and does not end in 。．.！？!?；;：:，,、,
//! or it is in title case (at most 80 characters, the lower-case words short function words, no punctuation but a
//! final ".") and ends in "." or stands alone on its line: "5. Conveying Modified Source Versions.".
//!
//! Guards against prose: decimals need a space and a letter after them (or, after a trailing dot, a CJK ideograph),
//! and "3.5 million" / "1.1 the" (no trailing dot, a lower-case word after) are rejected, as are components over
//! 999 ("2019 年", "2023.10.1"); English keywords followed by a lower-case word without "." or ":" are references
//! ("Article 5 of the Act"); 第 + numeral needs a unit (not 第三方, 第一次) and is a reference when followed by
//! ，、的和与或至到及中所第 or 规定.
//!
//! Plain text wraps wherever the width runs out, so a line may start with a number that belongs to the sentence
//! before it ("... added under section\n7.  This requirement ..."). The numbering tells (see `numbering`):
//! - A marker whose successor follows in its own line after a list connective ("(1) assert copyright on the
//!   software, and (2) offer ...") starts an enumeration run into a sentence: no provision.
//! - A marker that continues a sentence (the line before is full, at least 40 columns, and ends in a letter, digit
//!   or comma) is a provision only when it continues an open list ("(b)" after "(a) ...; and") or opens one that
//!   its next sibling confirms. A keyword there is a reference, never a provision.
//! - An enumeration marker must follow the numbering: the successor of its open sibling ((a)->(b), 1.->2., i->ii,
//!   一->二, 1.2->1.3 or 2.), or a first number (1, a, i, 一, A; 0 for digits) opening a level or restarting a
//!   list. A jump (7. after 5., a level opening at "3)") counts only when the next marker of its family follows it
//!   (an excerpt, a skipped number) or when it is a heading that is a paragraph of its own. Markdown headings are
//!   not checked. "N." lines the scan rejects ("5.  `dpkg` ...") still count in their list's numbering.
//! - Enumerations before the first heading (a keyword, or a marker whose line is its title) belong to a preamble:
//!   when prose paragraphs separate them from that heading, they are closed and do not become its parents.

use memchr::memchr;

use super::{Block, BlockKind, Heading, Structure};
use crate::boundary::{Boundary, Level};

mod numbering;

use numbering::{Follow, Number};

/// One numbered provision: where its heading line starts, its depth in the numbering hierarchy, and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provision {
    /// Byte offset of the start of the line that holds the marker (a cut before the provision falls here).
    pub start: usize,
    /// Byte offset of the first byte of the marker itself (after leading whitespace / markdown '#'s / bullets).
    pub marker: usize,
    /// Byte offset just past the title (marker + heading text), on the same line.
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
    /// "5." followed by text the scan does not take for a heading or a provision ("5.  `dpkg` updates ...",
    /// "5.  9 MiB ..."): a list item all the same, which counts in the numbering of its siblings so that "6."
    /// after it is no jump, and is never a provision.
    Silent,
}

/// A marker found by the line scan, before depths are known.
#[derive(Debug)]
struct Candidate {
    start: usize,
    marker: usize,
    title_end: usize,
    kind: Kind,
    /// Its number (see [`Number`]); lower-case markers are numbered once their style is known.
    number: Number,
    /// The line before it ends mid-sentence: the marker may be a number that a soft wrap put at a line start.
    soft: bool,
    /// Its successor follows in the same line after a list connective: an enumeration run into a sentence.
    inline: bool,
    /// The line holds only the marker and its title: a heading, which closes a preamble's enumerations.
    heading: bool,
    /// The line is a markdown heading.
    atx: bool,
    /// It starts a paragraph (first line, or after a blank line).
    paragraph: bool,
    /// A paragraph without a marker started since the previous candidate.
    prose_before: bool,
}

/// The line before a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Before {
    /// No line (the text starts), or a blank line: the marker starts a paragraph.
    Blank,
    /// A line of text, whose end [`ends_mid_sentence`] reads when a marker follows it (most lines have none after them):
    /// `text[start..end]`, content from `start + content`, `first` when it starts a paragraph.
    Text {
        start: usize,
        end: usize,
        content: usize,
        first: bool,
    },
    /// A fence line, or a provision's heading line: no sentence goes on after it.
    Other,
}

/// All provisions of `text`, in order. Linear in the text length.
pub fn provisions(text: &str) -> Vec<Provision> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    // An open fence: its character and length.
    let mut fence: Option<(u8, usize)> = None;
    let mut before = Before::Blank;
    let mut prose = false;
    let mut start = 0;
    while start < bytes.len() {
        let (end, nl) = line_at(bytes, start);
        let line = &text[start..end];
        let i = skip_spaces(line, 0);
        let blank = i == line.len();
        let mut this = if blank {
            Before::Blank
        } else {
            Before::Text {
                start,
                end,
                content: i,
                first: before == Before::Blank,
            }
        };
        if let Some((ch, len)) = fence {
            if closes_fence(line, i, ch, len) {
                fence = None;
            }
            this = Before::Other;
        } else if let Some(open) = opens_fence(line, i) {
            fence = Some(open);
            this = Before::Other;
        } else if let Some(m) = scan(line, i) {
            let alone = nl + 1 >= bytes.len() || {
                let (next_end, _) = line_at(bytes, nl + 1);
                blank_or_rule(&text[nl + 1..next_end])
            };
            let title = heading_end(line, m.marker_end, m.atx, m.boxed, alone);
            let heading =
                !matches!(m.kind, Kind::Silent) && (title.is_some() || bare(&line[m.marker_end..]));
            let number = numbering::number_of(&line[m.marker..m.marker_end], m.kind);
            found.push(Candidate {
                start,
                marker: start + m.marker,
                title_end: start + title.unwrap_or(m.marker_end),
                kind: m.kind,
                number,
                soft: match before {
                    Before::Text {
                        start,
                        end,
                        content,
                        first,
                    } => ends_mid_sentence(&text[start..end], content, first),
                    _ => false,
                },
                inline: numbering::runs_inline(line, m.marker, m.marker_end, m.kind, &number),
                heading,
                atx: m.atx,
                paragraph: before == Before::Blank,
                prose_before: prose,
            });
            prose = false;
            if heading {
                this = Before::Other;
            } else if let Before::Text { first, .. } = &mut this {
                // A provision's text after its marker is no heading of a paragraph.
                *first = false;
            }
        } else if !blank {
            prose |= before == Before::Blank;
        }
        before = this;
        start = nl + 1;
    }
    assign_depths(text, &found)
}

/// The end of the line that starts at `start` (before its `\n` or `\r\n`) and the position of its `\n` (the text's
/// length for the last line).
fn line_at(bytes: &[u8], start: usize) -> (usize, usize) {
    let nl = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |o| start + o);
    let end = if nl > start && bytes[nl - 1] == b'\r' {
        nl - 1
    } else {
        nl
    };
    (end, nl)
}

/// Gives each candidate that is a provision its depth (see the module docs) and its title; drops the others.
fn assign_depths(text: &str, found: &[Candidate]) -> Vec<Provision> {
    let ranks = found.iter().fold(0u8, |mask, c| match c.kind {
        Kind::Fixed(Style::Keyword(r)) if !c.soft => mask | 1 << r,
        _ => mask,
    });
    // The next candidate of the same family: the lookahead that confirms a marker whose place is in doubt, and
    // tells "(i)" followed by "(ii)".
    let mut next_of = vec![usize::MAX; found.len()];
    let mut seen = [usize::MAX; FAMILIES];
    for (k, c) in found.iter().enumerate().rev() {
        if let Some(f) = family(c.kind) {
            next_of[k] = seen[f];
            seen[f] = k;
        }
    }
    let mut base = 0usize;
    let mut state = Enumerations {
        stack: Vec::new(),
        decimals: [None; 6],
        preamble: true,
        gap: false,
    };
    let mut out = Vec::with_capacity(found.len());
    for (k, c) in found.iter().enumerate() {
        state.gap |= c.prose_before;
        let next = found.get(next_of[k]);
        let below = match c.kind {
            Kind::Silent => {
                state.count(c.number);
                continue;
            }
            // A keyword that continues a sentence is a reference a wrap put at a line start ("... described
            // in\nSection 3.5."); keywords' numbers are not checked (laws repeal articles, excerpts start anywhere).
            Kind::Fixed(Style::Keyword(_)) if c.soft => continue,
            Kind::Fixed(Style::Keyword(r)) => {
                base = (ranks & ((1u8 << r) - 1)).count_ones() as usize + 1;
                state.stack.clear();
                state.preamble = false;
                Some(0)
            }
            Kind::Fixed(style) => state.place(c, style, c.number, next),
            Kind::Lower {
                half,
                letter,
                roman,
            } => {
                let style = lower_style(&state.stack, half, letter, roman, next.map(|n| n.kind));
                state.place(
                    c,
                    style,
                    numbering::lower_number(style, letter, roman),
                    next,
                )
            }
        };
        let Some(below) = below else {
            continue;
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
            depth: (base + below).min(MAX_DEPTH) as u8,
            title,
        });
    }
    out
}

/// The enumerations open while the provisions are read in order.
struct Enumerations {
    /// The styles open below the last keyword, outermost first, each with the number of its last item.
    stack: Vec<(Style, Number)>,
    /// The last decimal of each length (1 to 6 components), open or not.
    decimals: [Option<Number>; 6],
    /// No heading yet: the enumerations so far belong to a preamble.
    preamble: bool,
    /// Prose paragraphs came since the last provision.
    gap: bool,
}

impl Enumerations {
    /// Places enumeration candidate `c`, read as `style` and `number`, and returns its depth below the last
    /// keyword (1 = directly below it), or `None` when it is no provision; `next` is the next candidate of its
    /// family.
    fn place(
        &mut self,
        c: &Candidate,
        style: Style,
        number: Number,
        next: Option<&Candidate>,
    ) -> Option<usize> {
        if !self.is_provision(c, style, &number, next) {
            // Its paragraph is prose: it separates a preamble's enumerations from what follows.
            self.gap |= c.paragraph;
            return None;
        }
        if self.preamble && c.heading && self.gap {
            // The first heading after prose opens the body: the preamble's enumerations end here.
            self.stack.clear();
        }
        self.preamble &= !c.heading;
        self.gap = false;
        if let Style::Decimal(n) = style {
            self.decimals[usize::from(n) - 1] = Some(number);
        }
        Some(place(&mut self.stack, style, number) + 1)
    }

    /// Whether an enumeration candidate read as `style` and `number` is a provision (the numbering rules of the
    /// module docs).
    fn is_provision(
        &self,
        c: &Candidate,
        style: Style,
        number: &Number,
        next: Option<&Candidate>,
    ) -> bool {
        if c.atx {
            // A markdown heading is a heading by its markup, whatever its number.
            return true;
        }
        if c.inline {
            return false;
        }
        let confirmed =
            || next.is_some_and(|n| numbering::confirms(style, number, n.kind, &n.number));
        match numbering::follows(&self.stack, &self.decimals, style, number) {
            Follow::Next => true,
            Follow::First => !c.soft || confirmed(),
            // A heading that is a paragraph of its own is no wrapped number: documents skip numbers, and the
            // scan misses items ("5.  `dpkg` ...") that a list's numbering counts.
            Follow::Jump => (!c.soft && confirmed()) || (c.heading && c.paragraph),
        }
    }

    /// A silent "N." ([`Kind::Silent`]): the successor of an open "N." moves the numbering on and closes what was
    /// open below it; a first number or the successor of the last "N." is remembered, so that "4." after three
    /// silent items follows them.
    fn count(&mut self, number: Number) {
        let open = self.stack.iter().position(|&(s, _)| s == Style::Decimal(1));
        let follows =
            |last: Option<Number>| last.is_some_and(|l| number[0] == l[0].saturating_add(1));
        if let Some(p) = open.filter(|&p| follows(Some(self.stack[p].1))) {
            self.stack.truncate(p + 1);
            self.stack[p].1 = number;
            self.decimals[0] = Some(number);
        } else if follows(self.decimals[0]) || number[0] <= 1 {
            self.decimals[0] = Some(number);
        }
    }
}

/// How many families [`family`] tells apart.
const FAMILIES: usize = 9;

/// The family of a marker: the markers that continue one another's numbering (every decimal, whatever its
/// components; "(x)" whether letter or numeral). Keywords have none: their numbers are not checked.
fn family(kind: Kind) -> Option<usize> {
    Some(match kind {
        Kind::Fixed(Style::Keyword(_)) => return None,
        Kind::Fixed(Style::Decimal(_)) | Kind::Silent => 0,
        Kind::Fixed(Style::CnComma) => 1,
        Kind::Fixed(Style::CnParen) => 2,
        Kind::Fixed(Style::DigitComma) => 3,
        Kind::Fixed(Style::DigitParen) => 4,
        Kind::Fixed(Style::DigitHalf) => 5,
        Kind::Fixed(Style::UpperParen) => 6,
        Kind::Fixed(Style::LetterParen | Style::RomanParen) | Kind::Lower { half: false, .. } => 7,
        Kind::Fixed(Style::LetterHalf | Style::RomanHalf) | Kind::Lower { half: true, .. } => 8,
    })
}

/// Puts an enumeration style on the stack and returns its index there (0 = directly below the keyword).
fn place(stack: &mut Vec<(Style, Number)>, style: Style, number: Number) -> usize {
    if let Some(p) = stack.iter().position(|&(s, _)| s == style) {
        stack.truncate(p + 1);
        stack[p].1 = number;
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
    stack.push((style, number));
    stack.len() - 1
}

/// Letter or roman numeral for a lower-case marker (the "(i)" rule of the module docs).
fn lower_style(
    stack: &[(Style, Number)],
    half: bool,
    letter: u16,
    roman: u16,
    next: Option<Kind>,
) -> Style {
    let (letters, romans) = if half {
        (Style::LetterHalf, Style::RomanHalf)
    } else {
        (Style::LetterParen, Style::RomanParen)
    };
    if letter == 0 {
        return romans;
    }
    if roman == 0 {
        return letters;
    }
    let after_letter = stack
        .iter()
        .position(|&(s, v)| s == letters && v[0] + 1 == letter);
    let after_numeral = stack
        .iter()
        .position(|&(s, v)| s == romans && v[0] + 1 == roman);
    let numeral_follows =
        matches!(next, Some(Kind::Lower { letter: 0, roman: r, .. }) if r == roman + 1);
    let is_letter = match (after_letter, after_numeral) {
        (Some(l), Some(r)) => l > r && !numeral_follows,
        (Some(_), None) => !numeral_follows,
        _ => false,
    };
    if is_letter {
        letters
    } else {
        romans
    }
}

/// Whether `line` (its content from `i`) ends mid-sentence, so that a marker on the next line may be a number a
/// wrap put there: the line is full (at least [`WRAP`] columns), its last character (closing quotes and brackets
/// aside) is a letter, digit or comma, and it is no heading (a markdown heading, a line in bold, or a paragraph's
/// first line (`first`) without lower case: "TERMS AND CONDITIONS FOR COPYING, DISTRIBUTION AND MODIFICATION"). A
/// line shorter than the wrap width was not wrapped: it is a heading ("PURCHASE AND SALE") or a paragraph's last
/// line.
fn ends_mid_sentence(line: &str, i: usize, first: bool) -> bool {
    let content = line[i..].trim_end();
    let open = content.trim_end_matches(|c: char| {
        matches!(
            c,
            ')' | ']' | '}' | '"' | '\'' | '”' | '’' | '」' | '』' | '》' | '）' | '】' | '*' | '_'
        )
    });
    let mid = open
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || matches!(c, ',' | '，' | '、'));
    let full = || {
        line[..i + content.len()]
            .chars()
            .map(|c| if is_wide(c) { 2 } else { 1 })
            .scan(0, |columns, w| {
                *columns += w;
                Some(*columns)
            })
            .any(|columns| columns >= WRAP)
    };
    let heading = || {
        content.starts_with('#')
            || (content.starts_with("**") && content.ends_with("**"))
            || (first && !content.chars().any(char::is_lowercase))
    };
    mid && full() && !heading()
}

/// The fewest columns of a line that a wrap ended: plain text wraps at 65 to 80 columns, and the line a wrap ends
/// early is the rare one whose next word is long.
const WRAP: usize = 40;

/// A character two columns wide: CJK ideographs, kana, Hangul, full-width forms.
fn is_wide(c: char) -> bool {
    matches!(c, '\u{1100}'..='\u{115F}' | '\u{2E80}'..='\u{A4CF}' | '\u{AC00}'..='\u{D7A3}'
        | '\u{F900}'..='\u{FAFF}' | '\u{FE30}'..='\u{FE4F}' | '\u{FF00}'..='\u{FF60}' | '\u{FFE0}'..='\u{FFE6}')
}

/// A line that leaves the line above it standing alone: blank, or a rule under a heading ("-----", "=====",
/// inside a box of `*`).
fn blank_or_rule(line: &str) -> bool {
    line.trim()
        .trim_matches('*')
        .trim()
        .chars()
        .all(|c| matches!(c, '-' | '=' | '~' | '*' | '_'))
}

/// What may follow a marker on a line that is a heading with no title ("Article 6.", "## 1. ##").
fn bare(rest: &str) -> bool {
    rest.chars()
        .all(|c| c.is_whitespace() || matches!(c, '.' | ':' | '：' | '*' | '#' | '-' | '–' | '—'))
}

// ---------------------------------------------------------------------------------------------------------------
// The line scan. Every function takes the line (without its line break) and a byte index on a char boundary.

/// A marker on a line, as offsets into the line.
struct Marker {
    marker: usize,
    marker_end: usize,
    kind: Kind,
    /// The line is a markdown ATX heading (a closing `#` sequence is no part of the title).
    atx: bool,
    /// The line is a row of a box drawn with `*` ("*  6. Disclaimer of Warranty   *"): the closing `*` is no part
    /// of the title.
    boxed: bool,
}

/// Finds the marker of a line whose content starts at `i`.
fn scan(line: &str, mut i: usize) -> Option<Marker> {
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
        return (dot && components == 1).then_some((j, Kind::Silent));
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

/// Where the title ends when the rest of the line after the marker is a heading: short (at most 40 characters) and
/// not ending in sentence or clause punctuation, or in title case (see [`title_case`]) ending in "." or on a line
/// that stands `alone` (a blank line or a rule after it). Trailing spaces, `**`, a markdown closing `#` sequence and the right
/// border of a box stay out.
fn heading_end(
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
fn title_case(core: &str) -> bool {
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

/// Finds the numbered provisions of `text` and returns its structure (see [`Structure::from_provisions`]).
pub fn parse(text: &str) -> Structure {
    Structure::from_provisions(text, &provisions(text))
}

impl Structure {
    /// The structure of a legal text from its numbered provisions: each provision a section at its depth, the
    /// numbering hierarchy its title path.
    pub fn from_provisions(text: &str, provisions: &[Provision]) -> Self {
        let mut s = Structure::default();
        let first = provisions.first().map_or(text.len(), |p| p.start);
        let preamble = text[..first].trim_end().len();
        if !text[..preamble].trim_start().is_empty() {
            s.blocks.push(Block {
                range: 0..preamble,
                kind: BlockKind::Text,
                keep_whole: false,
                nested: false,
            });
        }
        for (i, p) in provisions.iter().enumerate() {
            let next = provisions.get(i + 1).map_or(text.len(), |n| n.start);
            let end = p.start + text[p.start..next].trim_end().len();
            s.blocks.push(Block {
                range: p.start..end,
                kind: BlockKind::Clause,
                keep_whole: false,
                nested: false,
            });
            s.bounds.push(Boundary {
                pos: p.start,
                level: Level::heading(p.depth),
            });
            s.headings.push(Heading {
                start: p.start,
                content: p.marker,
                end: p.title_end,
                depth: p.depth,
                title: p.title.clone(),
            });
        }
        s.finish(text);
        s
    }
}

#[cfg(test)]
mod tests;
