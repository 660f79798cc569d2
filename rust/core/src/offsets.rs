//! Byte offsets (the core's) to Python `str` offsets (code points), advanced incrementally: converting the offsets
//! of all chunks of a text costs one pass over it, and nothing at all for ASCII text.

use crate::span::Span;

/// Converts byte offsets into char offsets; cheapest when consecutive calls move forward.
#[derive(Debug)]
pub struct CharCursor<'a> {
    text: &'a str,
    ascii: bool,
    byte: usize,
    chars: usize,
}

impl<'a> CharCursor<'a> {
    /// A cursor at the start of `text`; `ascii` may be passed when already known (`text.is_ascii()`).
    pub fn new(text: &'a str, ascii: bool) -> Self {
        Self {
            text,
            ascii,
            byte: 0,
            chars: 0,
        }
    }

    /// The char offset of byte offset `byte` (a char boundary).
    pub fn to_char(&mut self, byte: usize) -> usize {
        if self.ascii {
            return byte;
        }
        if byte >= self.byte {
            self.chars += crate::size::count_chars(&self.text[self.byte..byte]);
        } else {
            self.chars -= crate::size::count_chars(&self.text[byte..self.byte]);
        }
        self.byte = byte;
        self.chars
    }

    /// Moves the cursor to byte offset `byte`, which the caller knows to be char offset `chars` (nothing is
    /// counted).
    pub fn set(&mut self, byte: usize, chars: usize) {
        debug_assert!(self.ascii || chars == crate::size::count_chars(&self.text[..byte]));
        self.byte = byte;
        self.chars = chars;
    }

    /// The byte offset of char offset `ch` (at most the text's length in chars).
    pub fn to_byte(&mut self, ch: usize) -> usize {
        if self.ascii {
            return ch;
        }
        if ch >= self.chars {
            let rest = &self.text[self.byte..];
            let step = ch - self.chars;
            self.byte += rest.char_indices().nth(step).map_or(rest.len(), |(i, _)| i);
        } else {
            let head = &self.text[..self.byte];
            let step = self.chars - ch;
            self.byte = head
                .char_indices()
                .rev()
                .nth(step - 1)
                .map_or(0, |(i, _)| i);
        }
        self.chars = ch;
        self.byte
    }
}

/// The char offsets `(start, end)` of every span, in one forward pass for starts and one for ends.
pub fn char_spans(text: &str, spans: &[Span]) -> Vec<(usize, usize)> {
    let ascii = text.is_ascii();
    let mut starts = CharCursor::new(text, ascii);
    let mut ends = CharCursor::new(text, ascii);
    spans
        .iter()
        .map(|s| (starts.to_char(s.start), ends.to_char(s.end)))
        .collect()
}

/// Offset pairs as they cross to Python on the bulk path: native int64 `(start, end)` pairs, one after the other
/// (what numpy reads as an `(n, 2)` int64 array without a copy per value).
pub fn packed(pairs: impl ExactSizeIterator<Item = (usize, usize)>) -> Vec<u8> {
    let mut out = Vec::with_capacity(pairs.len() * 16);
    for (start, end) in pairs {
        out.extend_from_slice(&(start as i64).to_ne_bytes());
        out.extend_from_slice(&(end as i64).to_ne_bytes());
    }
    out
}

/// The [`packed`] pairs of many texts, one after the other, and the number of pairs of each (native int64).
pub fn packed_batch(each: &[Vec<u8>]) -> (Vec<u8>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(each.iter().map(Vec::len).sum());
    let mut counts = Vec::with_capacity(each.len() * 8);
    for o in each {
        offsets.extend_from_slice(o);
        counts.extend_from_slice(&((o.len() / 16) as i64).to_ne_bytes());
    }
    (offsets, counts)
}

/// The last char boundary at or before `pos`.
pub(crate) fn floor_char_boundary(text: &str, mut pos: usize) -> usize {
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    pos
}

/// The first char boundary at or after `pos`.
pub(crate) fn ceil_char_boundary(text: &str, mut pos: usize) -> usize {
    while !text.is_char_boundary(pos) {
        pos += 1;
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::Level;

    #[test]
    fn converts_bytes_to_chars() {
        let text = "aé世🙂b";
        let mut c = CharCursor::new(text, false);
        assert_eq!(c.to_char(0), 0);
        assert_eq!(c.to_char(3), 2);
        assert_eq!(c.to_char(10), 4);
        assert_eq!(c.to_char(1), 1);
        assert_eq!(c.to_char(11), 5);
        let spans = [Span {
            start: 1,
            end: 6,
            level: Level::WORD,
            size: 2,
        }];
        assert_eq!(char_spans(text, &spans), vec![(1, 3)]);
    }

    #[test]
    fn pairs_pack_as_native_int64s_with_a_count_per_text() {
        let one = packed([(0, 3), (3, 7)].into_iter());
        assert_eq!(one.len(), 32);
        let read = |b: &[u8], i: usize| i64::from_ne_bytes(b[8 * i..8 * i + 8].try_into().unwrap());
        assert_eq!(
            (0..4).map(|i| read(&one, i)).collect::<Vec<_>>(),
            [0, 3, 3, 7]
        );
        let (offsets, counts) =
            packed_batch(&[one.clone(), Vec::new(), packed([(1, 2)].into_iter())]);
        assert_eq!(offsets.len(), 48);
        assert_eq!(
            (0..3).map(|i| read(&counts, i)).collect::<Vec<_>>(),
            [2, 0, 1]
        );
    }
}

/// The pages of each span of a paged text (pages separated by form feeds): 1-based, of its first and last byte.
/// None for a text without form feeds, unless `always` (a document given as one page).
pub fn pages(text: &str, spans: &[Span], always: bool) -> Option<Vec<(usize, usize)>> {
    let breaks = page_breaks(text, always)?;
    Some(spans.iter().map(|s| span_pages(&breaks, s)).collect())
}

/// The byte offsets of the form feeds of `text`, when its pages are numbered (it holds one, or `always`).
pub fn page_breaks(text: &str, always: bool) -> Option<Vec<usize>> {
    let breaks: Vec<usize> = memchr::memchr_iter(b'\x0c', text.as_bytes()).collect();
    (always || !breaks.is_empty()).then_some(breaks)
}

/// The pages of the first and last byte of `span`, given the form feeds of [`page_breaks`].
pub fn span_pages(breaks: &[usize], span: &Span) -> (usize, usize) {
    let page = |pos: usize| breaks.partition_point(|&b| b < pos) + 1;
    (
        page(span.start),
        page(span.end.saturating_sub(1).max(span.start)),
    )
}

#[cfg(test)]
mod page_tests {
    use super::*;
    use crate::boundary::Level;

    #[test]
    fn pages_of_spans() {
        let text = "one\x0ctwo\x0c\x0cfour";
        let span = |start, end| Span {
            start,
            end,
            level: Level::END,
            size: 0,
        };
        let got = pages(
            text,
            &[span(0, 3), span(4, 7), span(0, 7), span(10, 14)],
            false,
        );
        assert_eq!(got, Some(vec![(1, 1), (2, 2), (1, 2), (4, 4)]));
        assert_eq!(pages("no breaks", &[span(0, 2)], false), None);
        assert_eq!(pages("no breaks", &[span(0, 2)], true), Some(vec![(1, 1)]));
    }
}
