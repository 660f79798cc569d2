//! Lines compared normalized, for telling boilerplate (a site's navigation lines, a PDF's running heads) from
//! content: each line of a text that carries something, as a stable 64-bit key.
//!
//! A line is read case folded (Unicode lower case), every run of digits as one `0` (`Page 3 of 12` and `Page 41 of
//! 12` are one line), every run of whitespace as one space, leading and trailing whitespace dropped. A line without a
//! letter or digit (blank, `---`, `* * *`) carries nothing and has no key. The key is the XXH3 hash of the
//! normalized line's UTF-8, with a seed of its own: the same from run to run and machine to machine, so a document's
//! boilerplate can be part of its fingerprint.
//!
//! Lines are read as Python's `str.splitlines` reads them, and [`edge_lines`] reads only the ones the boilerplate
//! pass asks about: the first and last lines of a text (its middle left unread) or of each of its pages.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::offsets::CharCursor;

/// The seed of line keys (apart from the seeds of chunk ids).
const SEED: u64 = 0x6c69_6e65_6b65_7973;

/// The length of the line break at `bytes[i]` (as Python's `str.splitlines` reads line breaks: `\r\n`, `\n`, `\r`,
/// `\x0b`, `\x0c`, `\x1c` to `\x1e`, U+0085, U+2028, U+2029), or 0.
#[inline]
fn line_break(bytes: &[u8], i: usize) -> usize {
    match bytes[i] {
        b'\r' if bytes.get(i + 1) == Some(&b'\n') => 2,
        b'\n' | b'\r' | 0x0B | 0x0C | 0x1C..=0x1E => 1,
        0xC2 if bytes.get(i + 1) == Some(&0x85) => 2,
        0xE2 if bytes.get(i + 1) == Some(&0x80)
            && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
        {
            3
        }
        _ => 0,
    }
}

/// The length of the line break that ends at `bytes[end]` (the break [`line_break`] reads from its start), or 0.
#[inline]
fn break_before(bytes: &[u8], end: usize) -> usize {
    let before = |n: usize| end.checked_sub(n).map(|i| bytes[i]);
    match before(1) {
        Some(b'\n') if before(2) == Some(b'\r') => 2,
        Some(b'\n' | b'\r' | 0x0B | 0x0C | 0x1C..=0x1E) => 1,
        // 0xC2 and 0xE2 lead a character, so the bytes before them never change what they are.
        Some(0x85) if before(2) == Some(0xC2) => 2,
        Some(0xA8 | 0xA9) if before(2) == Some(0x80) && before(3) == Some(0xE2) => 3,
        _ => 0,
    }
}

/// What a byte is to the normalization of a line of ASCII.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Upper,
    Digit,
    Space,
    Other,
    Break,
    /// A byte of a character beyond ASCII: the line is read by [`normalize_chars`].
    High,
}

const fn class_of(b: u8) -> Class {
    match b {
        b'a'..=b'z' => Class::Letter,
        b'A'..=b'Z' => Class::Upper,
        b'0'..=b'9' => Class::Digit,
        b'\t' | b' ' => Class::Space,
        b'\n' | b'\r' | 0x0B | 0x0C | 0x1C..=0x1E => Class::Break,
        0x80..=0xFF => Class::High,
        _ => Class::Other,
    }
}

const CLASSES: [Class; 256] = {
    let mut table = [Class::Other; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = class_of(b as u8);
        b += 1;
    }
    table
};

/// Normalizes the line of ASCII that starts at `bytes[start]` into `out` (cleared first): `Some((end, carries))`,
/// `end` the position of its line break (or the text's end), or `None` at its first byte beyond ASCII (the line is
/// then read by [`normalize_chars`]). The same result as [`normalize_chars`] on an ASCII line, a byte at a time.
fn ascii_line(bytes: &[u8], start: usize, out: &mut Vec<u8>) -> Option<(usize, bool)> {
    out.clear();
    let mut carries = false;
    let mut space = false;
    let mut digits = false;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        let class = CLASSES[b as usize];
        match class {
            Class::Break => return Some((i, carries)),
            Class::High => return None,
            Class::Space => {
                space = !out.is_empty();
                digits = false;
            }
            _ => {
                if space {
                    out.push(b' ');
                    space = false;
                }
                match class {
                    Class::Digit => {
                        carries = true;
                        if !digits {
                            out.push(b'0');
                            digits = true;
                        }
                    }
                    Class::Letter => {
                        // A run of lower-case letters (most of a line) is copied at once.
                        carries = true;
                        digits = false;
                        let run = i;
                        while i + 1 < bytes.len() && CLASSES[bytes[i + 1] as usize] == Class::Letter
                        {
                            i += 1;
                        }
                        out.extend_from_slice(&bytes[run..=i]);
                    }
                    Class::Upper => {
                        carries = true;
                        digits = false;
                        out.push(b | 0x20);
                    }
                    _ => {
                        digits = false;
                        out.push(b);
                    }
                }
            }
        }
        i += 1;
    }
    Some((i, carries))
}

/// Hiragana, katakana, CJK unified ideographs and Hangul syllables: letters without case, neither digits nor
/// spaces (a test checks each against the Unicode tables), so most of a Chinese, Japanese or Korean line is read
/// without them.
#[inline]
fn is_cjk_letter(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}' | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}')
}

/// Writes the normalized form of one line to `out` (cleared first); whether it carries a letter or digit.
fn normalize_chars(line: &str, out: &mut Vec<u8>) -> bool {
    out.clear();
    let mut carries = false;
    let mut space = false;
    let mut digits = false;
    let mut buf = [0u8; 4];
    for c in line.chars() {
        if is_cjk_letter(c) {
            // Kana, CJK ideographs and Hangul syllables (most of a Chinese, Japanese or Korean line): letters, no
            // case, not digits, not spaces; read without the Unicode tables.
            if space {
                out.push(b' ');
                space = false;
            }
            carries = true;
            digits = false;
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        if c.is_whitespace() {
            space = !out.is_empty();
            digits = false;
            continue;
        }
        if space {
            out.push(b' ');
            space = false;
        }
        if c.is_numeric() {
            carries = true;
            if !digits {
                out.push(b'0');
                digits = true;
            }
            continue;
        }
        digits = false;
        if c.is_ascii() {
            carries |= c.is_ascii_alphabetic();
            out.push(c.to_ascii_lowercase() as u8);
        } else {
            carries |= c.is_alphabetic();
            for lower in c.to_lowercase() {
                out.extend_from_slice(lower.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    carries
}

/// Reads the line that starts at `text[start]`: its end (where its break starts, or the text's end) and whether it
/// carries a letter or digit, its normalized form left in `normal`.
fn read_line(text: &str, start: usize, normal: &mut Vec<u8>) -> (usize, bool) {
    let bytes = text.as_bytes();
    ascii_line(bytes, start, normal).unwrap_or_else(|| {
        let mut end = start;
        while end < bytes.len() && line_break(bytes, end) == 0 {
            end += 1;
        }
        // A break is whole characters: `start..end` lies on character boundaries.
        (end, normalize_chars(&text[start..end], normal))
    })
}

/// One line of a text (bytes, its break left out) and its key, when it carries something.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    key: Option<u64>,
}

impl Line {
    fn read(text: &str, start: usize, normal: &mut Vec<u8>) -> Self {
        let (end, carries) = read_line(text, start, normal);
        let key = carries.then(|| xxh3_64_with_seed(normal, SEED));
        Self { start, end, key }
    }
}

/// The lines of a text from its start, as `str.splitlines` reads them (and an empty line after a last break, which
/// carries nothing).
struct Lines<'a> {
    text: &'a str,
    /// Where the next line starts (past the text's end when every line was read).
    next: usize,
    normal: Vec<u8>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str, next: usize) -> Self {
        Self {
            text,
            next,
            normal: Vec::with_capacity(256),
        }
    }
}

impl Iterator for Lines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let bytes = self.text.as_bytes();
        if self.next > bytes.len() {
            return None;
        }
        let line = Line::read(self.text, self.next, &mut self.normal);
        self.next = line.end
            + if line.end < bytes.len() {
                line_break(bytes, line.end)
            } else {
                1
            };
        Some(line)
    }
}

/// The lines of a text from its end: the same lines as [`Lines`], last first.
struct LinesBack<'a> {
    text: &'a str,
    /// Where the next line (going back) ends, or `None` when the first line was read.
    end: Option<usize>,
    normal: Vec<u8>,
}

impl Iterator for LinesBack<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let bytes = self.text.as_bytes();
        let end = self.end?;
        let mut start = end;
        while start > 0 && break_before(bytes, start) == 0 {
            start -= 1;
        }
        let line = Line::read(self.text, start, &mut self.normal);
        debug_assert_eq!(line.end, end);
        self.end = (start > 0).then(|| start - break_before(bytes, start));
        Some(line)
    }
}

/// The key of each line of `text` that carries a letter or digit, in order (a line repeated gives its key again).
pub fn line_keys(text: &str) -> Vec<u64> {
    Lines::new(text, 0).filter_map(|line| line.key).collect()
}

/// A line of a text that carries a letter or digit and is at an edge of the text or of a page ([`edge_lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeLine {
    /// Where the line starts, in bytes.
    pub start: usize,
    /// Where it ends, in bytes (its line break left out).
    pub end: usize,
    /// Its key (as [`line_keys`] gives it).
    pub key: u64,
    /// Among the first or last `edge` lines of the text that carry something.
    pub text_edge: bool,
    /// Among the first or last `page_edge` lines of its page that carry something.
    pub page_edge: bool,
    /// Whether the next line listed is the text's next line that carries something (none lies between them);
    /// false for the last line listed.
    pub next_to: bool,
}

/// The lines [`edge_lines`] found, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeLines {
    /// The lines, in the text's order.
    pub lines: Vec<EdgeLine>,
    /// How many of `lines` were read from the text's start: the others were read from its end, and the middle
    /// between them was not read.
    pub head: usize,
}

impl EdgeLines {
    /// The lines' `(start, end)` as char offsets (Python `str` indices), given the text's length in chars (a
    /// Python caller knows it): the head's counted from the start, the foot's from the end, never the middle.
    pub fn char_spans(&self, text: &str, chars: usize) -> Vec<(usize, usize)> {
        let ascii = chars == text.len();
        let mut front = CharCursor::new(text, ascii);
        let mut back = CharCursor::new(text, ascii);
        back.set(text.len(), chars);
        self.lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let cursor = if i < self.head { &mut front } else { &mut back };
                (cursor.to_char(line.start), cursor.to_char(line.end))
            })
            .collect()
    }
}

/// The lines of `text` that carry a letter or digit and are among its first or last `edge` such lines, or (with
/// `page_edge` > 0) among the first or last `page_edge` of a page (the pages of a text end at its form feeds), in
/// order. Without pages only the text's head and foot are read: lines from the start until `edge` of them carry
/// something, the same from the end, and past the head only as far as the next line that carries something.
pub fn edge_lines(text: &str, edge: usize, page_edge: usize) -> EdgeLines {
    if page_edge > 0 {
        return paged_edge_lines(text, edge, page_edge);
    }
    let found = |line: &Line| {
        line.key.map(|key| EdgeLine {
            start: line.start,
            end: line.end,
            key,
            text_edge: true,
            page_edge: false,
            next_to: true,
        })
    };
    let mut lines = Vec::new();
    let mut ahead = Lines::new(text, 0);
    while lines.len() < edge {
        let Some(line) = ahead.next() else { break };
        lines.extend(found(&line));
    }
    let head = lines.len();
    let mut foot = Vec::new();
    if head == edge && edge > 0 {
        let front = ahead.next;
        let mut back = LinesBack {
            text,
            end: (front <= text.len()).then_some(text.len()),
            normal: Vec::with_capacity(256),
        };
        let mut reached = front;
        while foot.len() < edge {
            let Some(line) = back.next().filter(|line| line.start >= front) else {
                break;
            };
            reached = line.start;
            foot.extend(found(&line));
        }
        if reached > front {
            // The middle was not read: is there a line that carries something before the foot?
            let between = ahead
                .take_while(|line| line.start < reached)
                .any(|line| line.key.is_some());
            lines[head - 1].next_to = !between;
        }
    }
    lines.extend(foot.into_iter().rev());
    if let Some(last) = lines.last_mut() {
        last.next_to = false;
    }
    EdgeLines { lines, head }
}

/// [`edge_lines`] with pages: every line is read.
fn paged_edge_lines(text: &str, edge: usize, page_edge: usize) -> EdgeLines {
    // Every line that carries something: its span, its key, its page.
    let mut all: Vec<(usize, usize, u64, usize)> = Vec::new();
    let mut page = 0;
    for line in Lines::new(text, 0) {
        if let Some(key) = line.key {
            all.push((line.start, line.end, key, page));
        }
        if text.as_bytes().get(line.end) == Some(&0x0C) {
            page += 1;
        }
    }
    let mut lines: Vec<EdgeLine> = Vec::new();
    let mut last: Option<usize> = None; // the index in `all` of the last line listed
    let mut first_of_page = 0;
    while first_of_page < all.len() {
        let page = all[first_of_page].3;
        let count = all[first_of_page..]
            .iter()
            .take_while(|line| line.3 == page)
            .count();
        for rank in 0..count {
            let i = first_of_page + rank;
            let text_edge = i < edge || i + edge >= all.len();
            let page_edge = rank < page_edge || rank + page_edge >= count;
            if !(text_edge || page_edge) {
                continue;
            }
            if let (Some(previous), Some(listed)) = (last, lines.last_mut()) {
                listed.next_to = previous + 1 == i;
            }
            let (start, end, key, _) = all[i];
            lines.push(EdgeLine {
                start,
                end,
                key,
                text_edge,
                page_edge,
                next_to: false,
            });
            last = Some(i);
        }
        first_of_page += count;
    }
    let head = lines.len();
    EdgeLines { lines, head }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_case_and_spaces_are_normalized() {
        assert_eq!(line_keys("Page 3 of 12"), line_keys("  page 417   OF\t9 "));
        assert_ne!(line_keys("Page 3 of 12"), line_keys("Page of"));
        assert_eq!(line_keys("ÉCOLE 1"), line_keys("école 2"));
        assert_eq!(line_keys("第3页"), line_keys("第12页"));
    }

    #[test]
    fn lines_without_a_letter_or_digit_have_no_key() {
        assert!(line_keys("").is_empty());
        assert!(line_keys("---\n\n* * *\r\n   ").is_empty());
        assert_eq!(line_keys("a\r\nb\u{2028}a").len(), 3);
        assert_eq!(
            line_keys("a\u{85}b\u{2029}c\u{1E}d\x0be"),
            line_keys("a\nb\nc\nd\ne")
        );
        assert_eq!(line_keys("\u{2027}x\u{84}").len(), 1); // neighbours of the breaks are not breaks
        assert_eq!(
            line_keys("a\r\nb\u{2028}a")[0],
            line_keys("a\r\nb\u{2028}a")[2]
        );
    }

    #[test]
    fn ascii_lines_read_as_the_same_lines_among_other_characters() {
        // A line of ASCII takes the byte path, the same line beside one other character the char path.
        for line in [
            "  Page 3\tof  12 ",
            "Copyright 2026, ACME Inc.",
            "--- 0042 ---",
            "a_b",
            "\x01\x7f",
        ] {
            let mut ascii = Vec::new();
            let mut chars = Vec::new();
            let carries = normalize_chars(line, &mut chars);
            assert_eq!(
                ascii_line(line.as_bytes(), 0, &mut ascii),
                Some((line.len(), carries))
            );
            assert_eq!(ascii, chars, "{line:?}");
        }
    }

    /// The keys read the plain way: split at each break character, each line normalized a character at a time.
    fn reference(text: &str) -> Vec<u64> {
        let breaks = |c: char| {
            matches!(
                c,
                '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{1C}'
                    ..='\u{1E}' | '\u{85}' | '\u{2028}' | '\u{2029}'
            )
        };
        let mut out = Vec::new();
        let mut keys = Vec::new();
        for line in text.split(breaks) {
            if normalize_chars(line, &mut out) {
                keys.push(xxh3_64_with_seed(&out, SEED));
            }
        }
        keys
    }

    #[test]
    fn the_byte_path_gives_the_keys_of_the_plain_reading() {
        let alphabet: Vec<char> = "aZ09 \t\n\r\x0b\x0c\x1c\x1f_-.éÉ٣\u{85}\u{2028}\u{2029}\u{a0}日"
            .chars()
            .collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for case in 0..20_000 {
            let len = case % 24;
            let text: String = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            assert_eq!(line_keys(&text), reference(&text), "{text:?}");
        }
    }

    #[test]
    fn the_cjk_shortcut_reads_as_the_unicode_tables_do() {
        let cjk: Vec<char> = ('\0'..=char::MAX).filter(|&c| is_cjk_letter(c)).collect();
        assert!(cjk.len() > 30_000);
        for c in cjk {
            assert!(
                c.is_alphabetic() && !c.is_numeric() && !c.is_whitespace(),
                "{c:?}"
            );
            assert!(c.to_lowercase().eq([c]), "{c:?}");
        }
    }

    fn is_break(c: char) -> bool {
        matches!(
            c,
            '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{1C}'
                ..='\u{1E}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        )
    }

    /// The lines as `str.splitlines` reads them, the plain way: `(start, end, break)` in bytes (and an empty line
    /// after a last break).
    fn plain_lines(text: &str) -> Vec<(usize, usize, Option<char>)> {
        let mut lines = Vec::new();
        let mut start = 0;
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if is_break(c) {
                let mut next = i + c.len_utf8();
                if c == '\r' && chars.peek().map(|&(_, n)| n) == Some('\n') {
                    chars.next();
                    next += 1;
                }
                lines.push((start, i, Some(c)));
                start = next;
            }
        }
        lines.push((start, text.len(), None));
        lines
    }

    /// [`edge_lines`] the plain way: every line read, each line's place counted among all the text's.
    fn plain_edge_lines(text: &str, edge: usize, page_edge: usize) -> Vec<EdgeLine> {
        let mut normal = Vec::new();
        let mut carrying = Vec::new(); // (start, end, key, page)
        let mut page = 0;
        for (start, end, brk) in plain_lines(text) {
            if normalize_chars(&text[start..end], &mut normal) {
                carrying.push((start, end, xxh3_64_with_seed(&normal, SEED), page));
            }
            page += usize::from(brk == Some('\x0c'));
        }
        let n = carrying.len();
        let mut listed: Vec<(usize, EdgeLine)> = Vec::new();
        for (i, &(start, end, key, page)) in carrying.iter().enumerate() {
            let rank = carrying[..i].iter().filter(|l| l.3 == page).count();
            let count = carrying.iter().filter(|l| l.3 == page).count();
            let text_edge = i < edge || i + edge >= n;
            let page_edge = page_edge > 0 && (rank < page_edge || rank + page_edge >= count);
            if text_edge || page_edge {
                listed.push((
                    i,
                    EdgeLine {
                        start,
                        end,
                        key,
                        text_edge,
                        page_edge,
                        next_to: false,
                    },
                ));
            }
        }
        for k in 1..listed.len() {
            listed[k - 1].1.next_to = listed[k].0 == listed[k - 1].0 + 1;
        }
        listed.into_iter().map(|(_, line)| line).collect()
    }

    fn random_texts(alphabet: &str, count: usize, longest: usize) -> Vec<String> {
        let alphabet: Vec<char> = alphabet.chars().collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        (0..count)
            .map(|case| {
                (0..case % longest)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        alphabet[(state % alphabet.len() as u64) as usize]
                    })
                    .collect()
            })
            .collect()
    }

    const TRICKY: &str =
        "ab9 \n\n\n\r\r\x0b\x0c\x0c\x1c\x1f-é日\u{85}\u{84}\u{2028}\u{2029}\u{2027}";

    #[test]
    fn lines_from_the_end_are_the_lines_from_the_start() {
        for text in random_texts(&format!("{TRICKY}\r\n"), 5_000, 30) {
            let ahead: Vec<(usize, usize, Option<u64>)> = Lines::new(&text, 0)
                .map(|l| (l.start, l.end, l.key))
                .collect();
            let mut back: Vec<(usize, usize, Option<u64>)> = LinesBack {
                text: &text,
                end: Some(text.len()),
                normal: Vec::new(),
            }
            .map(|l| (l.start, l.end, l.key))
            .collect();
            back.reverse();
            assert_eq!(ahead, back, "{text:?}");
            let plain: Vec<(usize, usize)> =
                plain_lines(&text).iter().map(|l| (l.0, l.1)).collect();
            assert_eq!(
                ahead.iter().map(|l| (l.0, l.1)).collect::<Vec<_>>(),
                plain,
                "{text:?}"
            );
        }
    }

    #[test]
    fn edge_lines_are_the_plain_readings() {
        for text in random_texts(&format!("{TRICKY}\r\n\n\nxyz"), 3_000, 80) {
            let chars = text.chars().count();
            for (edge, page_edge) in [
                (0, 0),
                (1, 0),
                (2, 0),
                (3, 0),
                (20, 0),
                (0, 1),
                (2, 1),
                (3, 2),
                (1, 5),
            ] {
                let found = edge_lines(&text, edge, page_edge);
                assert_eq!(
                    found.lines,
                    plain_edge_lines(&text, edge, page_edge),
                    "{text:?} {edge} {page_edge}"
                );
                assert!(found.head <= found.lines.len());
                let spans: Vec<(usize, usize)> = found
                    .lines
                    .iter()
                    .map(|l| {
                        (
                            text[..l.start].chars().count(),
                            text[..l.end].chars().count(),
                        )
                    })
                    .collect();
                assert_eq!(found.char_spans(&text, chars), spans, "{text:?}");
            }
        }
    }

    #[test]
    fn the_head_and_foot_of_a_long_text() {
        let middle = "content\n".repeat(1000);
        let text = format!("é head\r\n\r\nhead 2\n{middle}\u{2028}foot\u{2029}\nlast");
        let found = edge_lines(&text, 2, 0);
        assert_eq!(found.head, 2);
        let spans = found.char_spans(&text, text.chars().count());
        let lines: Vec<String> = spans
            .iter()
            .map(|&(a, b)| text.chars().skip(a).take(b - a).collect())
            .collect();
        assert_eq!(lines, ["é head", "head 2", "foot", "last"]);
        let next_to: Vec<bool> = found.lines.iter().map(|l| l.next_to).collect();
        assert_eq!(next_to, [true, false, true, false]); // the middle carries something
        let blank = text.replace("content", "--");
        let next_to: Vec<bool> = edge_lines(&blank, 2, 0)
            .lines
            .iter()
            .map(|l| l.next_to)
            .collect();
        assert_eq!(next_to, [true, true, true, false]); // nothing between the head and the foot
        assert_eq!(edge_lines("", 20, 0).lines, []);
        assert_eq!(edge_lines("a\nb", 0, 0).lines, []);
    }

    #[test]
    fn keys_are_stable() {
        // The same on every machine and run: a document's fingerprint holds them.
        assert_eq!(
            line_keys("hello world"),
            vec![xxh3_64_with_seed(b"hello world", SEED)]
        );
    }
}
