//! Line boundaries: after the line break that ends a non-blank line (CRLF counts as one break). Breaks inside a
//! run of blank lines are not reported: that run is one paragraph boundary, and cutting inside it gains nothing.

use super::{is_blank_byte, Boundary, Level};

pub(super) fn emit(text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
    let bytes = text.as_bytes();
    let mut line_start = from;
    for nl in memchr::memchr_iter(b'\n', &bytes[from..to]) {
        let nl = from + nl;
        let has_content = bytes[line_start..nl].iter().any(|&b| !is_blank_byte(b));
        if has_content {
            out.push(Boundary { pos: nl + 1, level });
        }
        line_start = nl + 1;
    }
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
}
