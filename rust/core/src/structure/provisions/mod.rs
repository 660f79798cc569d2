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

mod marker;
mod numbering;

use marker::*;

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

/// Whether `line` starts with a provision marker at article level or below (第X条, "Article 5", "Section 1.01",
/// "§ 101"), as the scan reads markers: what statutes are numbered by, where chapters alone make a book. The
/// numbering is not checked, so a line of running text that starts so counts too.
pub fn starts_with_article(line: &str) -> bool {
    matches!(
        scan(line, skip_spaces(line, 0)),
        Some(Marker { kind: Kind::Fixed(Style::Keyword(rank)), .. }) if rank >= 4
    )
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
