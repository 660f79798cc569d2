//! Clause boundaries: CJK clause punctuation (，、；：) anywhere, ASCII , ; : only before a space. The cut falls
//! after the punctuation, any closing quotes and the spaces that follow on the same line.

use super::chars::{is_clause_punct, is_closing};
use super::{Boundary, Level};

pub(super) fn emit(text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
    let slice = &text[from..to];
    let bytes = slice.as_bytes();
    let mut iter = slice.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let ascii = matches!(c, ',' | ';' | ':');
        if !(ascii || is_clause_punct(c)) {
            continue;
        }
        let mut end = i + c.len_utf8();
        while let Some(&(j, d)) = iter.peek() {
            if is_closing(d) {
                end = j + d.len_utf8();
                iter.next();
            } else {
                break;
            }
        }
        let spaces = bytes[end..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if ascii && spaces == 0 {
            continue; // "3,000", "a:b", "http://" are not clause ends
        }
        if spaces <= super::sentence::MAX_TRAILING_SPACES {
            end += spaces; // a long run of padding goes to the next piece, where a look-ahead window sees the cut
        }
        while iter.peek().is_some_and(|&(j, _)| j < end) {
            iter.next();
        }
        out.push(Boundary {
            pos: from + end,
            level,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        emit(text, 0, text.len(), Level::CLAUSE, &mut out);
        out.iter().map(|b| b.pos).collect()
    }

    #[test]
    fn clause_punctuation() {
        assert_eq!(positions("a, b; c: d"), vec![3, 6, 9]);
        assert_eq!(positions("3,000 a:b"), Vec::<usize>::new());
        assert_eq!(positions("你好，世界、再见"), vec![9, 18]);
        assert_eq!(positions("他说：「好」"), vec![9]);
    }
}
