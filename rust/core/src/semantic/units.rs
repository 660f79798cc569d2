//! The units a semantic chunker embeds: sentences by the engine's own boundaries, so that every cut it makes is
//! one the sentence strategy would make too.

use crate::boundary::{breaks, is_grapheme_boundary, Emitter, Level};

/// Where a paragraph, a line or a sentence ends in `text` (positions `0 < p < text.len()`, sorted, each a grapheme
/// boundary): the cuts of the sentence strategy's strongest level, CJK terminators and line ends included.
pub fn sentence_ends(text: &str) -> Vec<usize> {
    let view = breaks::line_view(text);
    let mut out = Vec::new();
    for emitter in [Emitter::Paragraph, Emitter::Line, Emitter::Sentence] {
        emitter.emit(&view, 0, text.len(), Level::SENTENCE, &mut out);
    }
    let mut ends: Vec<usize> = out.into_iter().map(|b| b.pos).collect();
    ends.sort_unstable();
    ends.dedup();
    // Positions read off a line view may fall inside a multi-byte terminator; the engine drops cuts inside a
    // grapheme cluster the same way.
    ends.retain(|&p| p > 0 && p < text.len() && is_grapheme_boundary(text, p));
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<&str> {
        let mut from = 0;
        let mut out = Vec::new();
        for end in sentence_ends(text).into_iter().chain([text.len()]) {
            out.push(&text[from..end]);
            from = end;
        }
        out
    }

    #[test]
    fn sentences_lines_and_paragraphs_end_units() {
        assert_eq!(
            pieces("One. Two e.g. three!\nA line\n\nPara 3.5 more"),
            // (A blank run ends a paragraph after the line end: a piece of whitespace, no unit.)
            [
                "One. ",
                "Two e.g. three!\n",
                "A line\n",
                "\n",
                "Para 3.5 more"
            ]
        );
        assert_eq!(
            pieces("今天天气很好。我们去公园吧！「好的。」然后"),
            ["今天天气很好。", "我们去公园吧！", "「好的。」", "然后"]
        );
        assert_eq!(
            pieces("日本語の文です。次の文\u{2028}行"),
            ["日本語の文です。", "次の文\u{2028}", "行"]
        );
        assert!(sentence_ends("").is_empty());
        assert!(sentence_ends("no end").is_empty());
    }
}
