//! Line boundaries: after the line break that ends a non-blank line (CRLF counts as one break).
//!
//! Not reported:
//! - breaks inside a run of blank lines: that run is one paragraph boundary, and cutting inside it gains nothing;
//! - soft wraps of hard-wrapped prose (a long line that stops mid-sentence, on a letter, digit or comma, and goes on
//!   with a letter): such a break is a word boundary, no stronger, and a sentence end nearby is a far better cut.

use super::chars::{is_cjk, is_closing, is_pause, is_terminator};
use super::{is_blank_byte, Boundary, Level};

/// A line at least this wide (CJK characters count twice, as a terminal shows them) may be a wrapped one.
const WRAP_WIDTH: usize = 40;

pub(super) fn emit(text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
    emit_kind(text, from, to, level, out, false);
}

/// The soft wraps that [`emit`] leaves out, as a separate, weaker level: a wrap keeps lines whole but ends no
/// sentence. A break before clause punctuation is not even that.
pub(super) fn emit_wraps(
    text: &str,
    from: usize,
    to: usize,
    level: Level,
    out: &mut Vec<Boundary>,
) {
    emit_kind(text, from, to, level, out, true);
}

fn emit_kind(
    text: &str,
    from: usize,
    to: usize,
    level: Level,
    out: &mut Vec<Boundary>,
    wraps: bool,
) {
    let bytes = text.as_bytes();
    // The line that holds `from` is measured whole: a window that starts inside it (after a sentence end) must not
    // see a short line where the text has a long, wrapped one. Found when its end is: a text with no break in the
    // range asks nothing.
    let mut line_start = None;
    for nl in crate::simd::positions(&bytes[from..to], [b'\n']) {
        let nl = from + nl;
        let start = *line_start.get_or_insert_with(|| first_line_start(text, from, nl));
        let has_content = bytes[start..nl].iter().any(|&b| !is_blank_byte(b));
        if has_content
            && !starts_with_pause(&text[nl + 1..])
            && is_soft_wrap(text, start, nl) == wraps
        {
            out.push(Boundary { pos: nl + 1, level });
        }
        line_start = Some(nl + 1);
    }
}

/// Where to read the line that holds `from` (and ends at `nl`) from: its start, or a char boundary after it from
/// which the line reads the same to [`emit_kind`]. All that is read of the line is whether it has content and, for
/// a soft wrap, its last char and whether it is [`WRAP_WIDTH`] wide, and more than `4 * WRAP_WIDTH` bytes of it
/// before its trailing whitespace say that it has content and is that wide. So the search for the start goes back
/// a few hundred bytes, not to the start of a line of megabytes for every window opened inside it (which made
/// chunking such a line quadratic); only a line that ends in hundreds of blank bytes is searched to its start.
fn first_line_start(text: &str, from: usize, nl: usize) -> usize {
    const ENOUGH: usize = 4 * WRAP_WIDTH;
    let bytes = text.as_bytes();
    let floor = from.saturating_sub(ENOUGH + 64);
    if let Some(i) = memchr::memrchr(b'\n', &bytes[floor..from]) {
        return floor + i + 1;
    }
    let clipped = crate::offsets::ceil_char_boundary(text, floor);
    if text[clipped..nl].trim_end().len() > ENOUGH {
        return clipped;
    }
    memchr::memrchr(b'\n', &bytes[..floor]).map_or(0, |i| i + 1)
}

/// A line that starts with clause or closing punctuation (man pages wrap before "，") continues the one before; so
/// does a paragraph (". The service ..." after a code block), blank lines between them or not. ASCII quotes are
/// left out: they open as often as they close (a paragraph of dialogue starts with one).
///
/// Text after more than [`MAX_GAP`] bytes of blank lines starts anew, whatever it starts with: every break in a run
/// of blank lines asks this, and reading each time to the end of a run of megabytes made the run quadratic.
pub(crate) fn starts_with_pause(next_line: &str) -> bool {
    let bytes = next_line.as_bytes();
    // Every paragraph and line end asks this, and most lines start with a letter, a digit or an ideograph (lead
    // bytes E4 to E9, EB and EC: U+4000 to U+9FFF and U+B000 to U+CFFF, Han and Hangul), which is neither a pause
    // nor a closing mark; after an indent or blank lines too. (U+A000 to U+AFFF holds the full stops of Lisu, Vai,
    // Bamum...)
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, 0xE4..=0xE9 | 0xEB | 0xEC);
    match bytes.first() {
        None => return false,
        Some(&b) if plain(b) => return false,
        _ => {}
    }
    let mut gap = 0;
    while gap <= MAX_GAP && matches!(bytes.get(gap), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        gap += 1;
    }
    let continues = |c: char| is_pause(c) || (is_closing(c) && !matches!(c, '"' | '\''));
    match bytes.get(gap) {
        None => false,
        Some(_) if gap > MAX_GAP => false,
        Some(&b) if plain(b) => false,
        Some(&b) if b.is_ascii() => continues(char::from(b)),
        Some(_) => next_line[gap..].chars().next().is_some_and(continues),
    }
}

/// The most blank space between a paragraph and text that continues it (see [`starts_with_pause`]).
const MAX_GAP: usize = 1024;

/// Whether the break at `nl` (ending the line that starts at `line_start`) only wraps a sentence.
fn is_soft_wrap(text: &str, line_start: usize, nl: usize) -> bool {
    let line = text[line_start..nl].trim_end();
    let Some(last) = line.chars().next_back() else {
        return false;
    };
    // A line that ends a sentence (most lines of prose) is told before the Unicode tables are read.
    if is_terminator(last) || is_closing(last) {
        return false;
    }
    if !(last.is_alphanumeric() || matches!(last, ',' | '-' | '，' | '、')) {
        return false;
    }
    let next_line = &text[nl + 1..];
    let Some(first) = next_line.chars().next() else {
        return false;
    };
    if !first.is_alphanumeric() || starts_list_item(next_line) {
        return false;
    }
    let mut width = 0;
    for c in line.chars() {
        width += if is_cjk(c) { 2 } else { 1 };
        if width >= WRAP_WIDTH {
            return true;
        }
    }
    false
}

/// "1. item", "12) item", "a. item": a numbered list item, which starts a new line on purpose.
fn starts_list_item(line: &str) -> bool {
    let marker = line
        .bytes()
        .take_while(|b| b.is_ascii_digit())
        .count()
        .max(usize::from(
            line.as_bytes().first().is_some_and(u8::is_ascii_alphabetic),
        ));
    marker > 0
        && marker <= 3
        && matches!(line.as_bytes().get(marker), Some(b'.' | b')'))
        && matches!(line.as_bytes().get(marker + 1), Some(b' ' | b'\t'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        emit(text, 0, text.len(), Level::LINE, &mut out);
        out.iter().map(|b| b.pos).collect()
    }

    #[test]
    fn ends_of_lines() {
        assert_eq!(positions("a\nb\n\n\nc"), vec![2, 4]);
        assert_eq!(positions("a\r\nb"), vec![3]);
        assert_eq!(positions("\n\n"), Vec::<usize>::new());
    }

    #[test]
    fn soft_wraps_are_not_line_ends() {
        let wrapped = "This is a long line of prose that wraps in the\nmiddle of a sentence. It goes on.\nNext";
        assert_eq!(positions(wrapped), vec![81]);
        let list = "Items of the list that follows, numbered so:\n1. first item\n2. second";
        assert_eq!(positions(list), vec![45, 59]);
        let cjk = "中文没有空格所以不能按空格切分句子以句号问号或感叹号结束\n如果一个段落太长";
        assert_eq!(positions(cjk), Vec::<usize>::new());
        assert_eq!(positions("一二三四五六七八\n，九十。\n」end\nok"), vec![45]);
    }

    #[test]
    fn a_window_inside_a_long_line_reads_it_as_from_its_start() {
        // Lines longer than the look-back, with content, CJK, or hundreds of blank bytes before their end: a window
        // opened anywhere inside one finds the boundaries and wraps that a window opened at the line's start finds.
        let lines = [
            "x".repeat(500),
            format!("{}{}", "word ".repeat(60), " ".repeat(400)),
            format!("{}{}", "中".repeat(150), "\u{3000}".repeat(90)),
            format!("Short{}", " ".repeat(600)),
            " ".repeat(700),
            format!("{}，", "长句子".repeat(40)),
            "end of a sentence.".to_string(),
        ];
        let mut texts = Vec::new();
        for (i, a) in lines.iter().enumerate() {
            for b in lines.iter().skip(i) {
                texts.push(format!("{a}\n{b}\nnext line\n{a}"));
            }
        }
        for text in &texts {
            for wraps in [false, true] {
                for from in (0..text.len())
                    .filter(|&p| text.is_char_boundary(p))
                    .step_by(7)
                {
                    let start =
                        memchr::memrchr(b'\n', &text.as_bytes()[..from]).map_or(0, |i| i + 1);
                    let (mut ours, mut whole) = (Vec::new(), Vec::new());
                    emit_kind(text, from, text.len(), Level::LINE, &mut ours, wraps);
                    emit_kind(text, start, text.len(), Level::LINE, &mut whole, wraps);
                    whole.retain(|b| b.pos > from);
                    assert_eq!(ours, whole, "from {from} in {text:?}");
                }
            }
        }
    }

    #[test]
    fn a_window_inside_a_wrapped_line_sees_the_whole_line() {
        let text = "A good cut falls where the author paused, at the end of a sentence. Only when a\nparagraph is long.\nNext";
        let from = text.find("Only").unwrap();
        for (wraps, expected) in [
            (false, vec![text.find("Next").unwrap()]),
            (true, vec![from + 12]),
        ] {
            let mut whole = Vec::new();
            emit_kind(text, 0, text.len(), Level::LINE, &mut whole, wraps);
            let mut window = Vec::new();
            emit_kind(text, from, text.len(), Level::LINE, &mut window, wraps);
            let pos = |v: Vec<Boundary>| v.iter().map(|b| b.pos).collect::<Vec<_>>();
            assert_eq!(pos(whole), expected, "wraps: {wraps}");
            assert_eq!(pos(window), expected, "wraps: {wraps}");
        }
    }

    #[test]
    fn pause_after_blank_lines() {
        assert!(starts_with_pause("\n\n  ，接着"));
        assert!(starts_with_pause(&format!(
            "{}. The service",
            "\n".repeat(MAX_GAP)
        )));
        assert!(!starts_with_pause(&format!(
            "{}. The service",
            "\n".repeat(MAX_GAP + 1)
        )));
        assert!(!starts_with_pause("\n\n\"Quoted\""));
        assert!(!starts_with_pause("\n\n"));
        assert!(starts_with_pause("、次"));
        assert!(!starts_with_pause("次、"));
        // The fast path's characters are neither pauses nor closing marks.
        for c in (0x4000..=0x9FFF)
            .chain(0xB000..=0xCFFF)
            .filter_map(char::from_u32)
        {
            assert!(!is_pause(c) && !is_closing(c), "{c:?}");
        }
    }
}
