//! Word boundaries (UAX #29). Each CJK ideograph is its own word. Whitespace and trailing punctuation stay with
//! the word before them, and an opening bracket with the word after it, so a piece never starts with "，" or ")".

use super::chars::{is_closing, is_opening, is_pause};
use super::{Boundary, Level};
use unicode_segmentation::UnicodeSegmentation;

pub(super) fn emit(text: &str, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
    let slice = &text[from..to];
    let mut prev_opening = false;
    for (i, word) in slice.split_word_bound_indices() {
        let c = word.chars().next().unwrap_or(' ');
        // A long run of padding does not stay with the word before it: a look-ahead window must see a cut there.
        let padding = c.is_whitespace() && word.len() > super::sentence::MAX_TRAILING_SPACES;
        let attach_left = (c.is_whitespace() && !padding) || is_closing(c) || is_pause(c);
        if i > 0 && !attach_left && !prev_opening {
            out.push(Boundary {
                pos: from + i,
                level,
            });
        }
        prev_opening = word.chars().next_back().is_some_and(is_opening);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        emit(text, 0, text.len(), Level::WORD, &mut out);
        out.iter().map(|b| b.pos).collect()
    }

    #[test]
    fn words() {
        assert_eq!(positions("Hello, world"), vec![7]);
        assert_eq!(positions("a (b) c"), vec![2, 6]);
        assert_eq!(positions("你好，世界"), vec![3, 9, 12]);
        let padded = format!("ab{}cd", " ".repeat(40));
        assert_eq!(positions(&padded), vec![2, 42]);
    }
}
