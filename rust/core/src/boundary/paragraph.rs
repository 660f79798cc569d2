//! Paragraph boundaries: the end of a run of blank lines ("\n\n", "\r\n  \r\n", ...) and form feeds.
//! The cut falls after the last line break of the run, so the blank lines end the paragraph before them.

use super::{is_blank_byte, Boundary, Level};

pub(super) fn emit(text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
    // One pass over the window for every break and form feed: a search per line costs more than the line.
    let breaks = crate::simd::positions(&text.as_bytes()[from..to], [b'\n', b'\x0c']);
    scan(text, from, to, level, out, breaks);
}

/// The boundaries of `text[from..to]`, given the offsets (from `from`) of its line breaks and form feeds.
fn scan(
    text: &str,
    from: usize,
    to: usize,
    level: Level,
    out: &mut Vec<Boundary>,
    breaks: impl Iterator<Item = usize>,
) {
    let bytes = text.as_bytes();
    // Breaks before `i` were read as part of a run already.
    let mut i = from;
    let mut breaks = breaks.map(|off| from + off).peekable();
    while let Some(nl) = breaks.next() {
        if nl < i {
            continue;
        }
        if bytes[nl] == b'\x0c' {
            // A form feed (page break) ends a paragraph wherever it stands; a following newline joins the break.
            let mut end = nl + 1;
            if bytes.get(end) == Some(&b'\r') && bytes.get(end + 1) == Some(&b'\n') {
                end += 2;
            } else if bytes.get(end) == Some(&b'\n') {
                end += 1;
            }
            if end <= to {
                out.push(Boundary { pos: end, level });
            }
            i = end.min(to);
            continue;
        }
        // Most lines go on with content: no blank line can start here (a blank byte or a line feed would). Nor can
        // one where the next line ends in content (an indented line): told by its last byte, not by reading its
        // indent.
        if bytes.get(nl + 1).is_some_and(|&b| b > b' ')
            || breaks
                .peek()
                .is_some_and(|&next| next > nl + 1 && bytes[next - 1] > b' ')
        {
            continue;
        }
        // Follow the run of blank lines that may start here; `last` is the last newline of the run.
        let mut last = nl;
        let mut blank_lines = 0usize;
        let mut j = nl + 1;
        loop {
            while j < to && is_blank_byte(bytes[j]) && bytes[j] != b'\x0c' {
                j += 1;
            }
            if j < to && bytes[j] == b'\n' {
                blank_lines += 1;
                last = j;
                j += 1;
            } else {
                break;
            }
        }
        // A paragraph that starts with clause or closing punctuation goes on from the one before.
        if blank_lines > 0 && last < to && !super::line::starts_with_pause(&text[last + 1..]) {
            out.push(Boundary {
                pos: last + 1,
                level,
            });
        }
        i = last + 1;
        if i >= to {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        emit(text, 0, text.len(), Level::PARAGRAPH, &mut out);
        out.iter().map(|b| b.pos).collect()
    }

    #[test]
    fn blank_line_runs() {
        assert_eq!(positions("a\n\nb"), vec![3]);
        assert_eq!(positions("a\n \t\n\n\nb"), vec![7]);
        assert_eq!(positions("a\r\n\r\nb"), vec![5]);
        assert_eq!(positions("a\nb\nc"), Vec::<usize>::new());
        assert_eq!(positions("a\x0cb"), vec![2]);
        assert_eq!(positions(""), Vec::<usize>::new());
    }

    #[test]
    fn a_paragraph_of_closing_punctuation_goes_on() {
        assert_eq!(positions("code\n\n. The service"), Vec::<usize>::new());
        assert_eq!(positions("他说\n\n」然后"), Vec::<usize>::new());
        assert_eq!(positions("a\n\n  , b\n\nc"), vec![10]);
    }

    #[test]
    fn millions_of_blank_lines_are_one_boundary() {
        let text = format!("a{}b", "\n".repeat(2_000_000));
        assert_eq!(positions(&text), vec![2_000_001]);
    }
}
