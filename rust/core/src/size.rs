//! How chunks are measured: the engine only needs the size of a piece of text.

use std::fmt::Debug;

use crate::error::ChunkError;

/// A unit of chunk size.
///
/// Sizes are additive over the pieces the engine cuts (size(a + b) == size(a) + size(b) at a boundary) when
/// [`Sizer::is_exact_sum`] says so. Other units (tokens) give estimates for look-ahead windows through
/// [`Sizer::prefix_sizes`], and the engine counts every chunk it keeps with [`Sizer::size`], which is exact.
pub trait Sizer: Send + Sync + Debug {
    /// The exact size of `text` in this unit.
    fn size(&self, text: &str) -> usize;

    /// Whether sizes add up exactly over any cut, so that a chunk's size is the sum of its pieces' sizes and needs
    /// no checking.
    fn is_exact_sum(&self) -> bool {
        true
    }

    /// The sizes of `text[start..p]` for each `p` of `ends` (ascending), into `out`, each with whether it is exact
    /// (`size(&text[start..p])`) or an estimate.
    ///
    /// `cache` lives as long as one run of the engine over `text`: a sizer may keep there what the next window
    /// can reuse.
    fn prefix_sizes(
        &self,
        text: &str,
        start: usize,
        ends: &[usize],
        out: &mut Vec<(usize, bool)>,
        cache: &mut SizerCache,
    ) {
        let _ = cache;
        out.clear();
        let (mut at, mut acc) = (start, 0);
        for &p in ends {
            acc += self.size(&text[at..p]);
            at = p;
            out.push((acc, self.is_exact_sum()));
        }
    }

    /// The largest char boundary `p >= start` with `size(&text[start..p]) <= budget`.
    fn advance(&self, text: &str, start: usize, budget: usize) -> usize {
        let mut size = 0;
        for (i, c) in text[start..].char_indices() {
            let at = start + i;
            size += self.size(&text[at..at + c.len_utf8()]);
            if size > budget {
                return at;
            }
        }
        text.len()
    }

    /// Whether the size of ASCII text is its length in bytes (lets the engine skip counting on ASCII windows).
    fn ascii_is_bytes(&self) -> bool {
        false
    }

    /// The exact size of `text[start..end]`, where `start` is the start of the window last measured with
    /// `cache` (see [`Sizer::prefix_sizes`]): a sizer may use what it kept of that window.
    fn size_in_window(&self, text: &str, start: usize, end: usize, cache: &SizerCache) -> usize {
        let _ = cache;
        self.size(&text[start..end])
    }
}

/// What a sizer keeps from one window to the next during one run over a text (see [`Sizer::prefix_sizes`]).
pub type SizerCache = Option<Box<dyn std::any::Any + Send>>;

/// Unicode scalar values: the length of a Python `str`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Chars;

/// The number of `char`s in `text`, with the SIMD instructions the CPU has (chosen at run time). The assembler
/// measures many short pieces of non-ASCII text (60 bytes on average in Chinese); there `str::chars().count()`
/// took 1.5 instructions a byte, a fifth of the split of zh.txt at 512 chars, and this half as many.
#[inline]
pub fn count_chars(text: &str) -> usize {
    bytecount::num_chars(text.as_bytes())
}

impl Sizer for Chars {
    #[inline]
    fn size(&self, text: &str) -> usize {
        count_chars(text)
    }

    fn ascii_is_bytes(&self) -> bool {
        true
    }

    fn advance(&self, text: &str, start: usize, budget: usize) -> usize {
        let rest = &text.as_bytes()[start..];
        if rest.len() <= budget {
            return text.len(); // fewer bytes than the budget in chars: all of it fits
        }
        // Count char starts in prefixes of the bytes still needed: each round takes at least a quarter of what is
        // left, so a few vectorised passes find the position.
        let (mut pos, mut remaining) = (0, budget);
        while remaining > 0 && pos < rest.len() {
            let take = remaining.min(rest.len() - pos);
            remaining -= bytecount::num_chars(&rest[pos..pos + take]);
            pos += take;
        }
        while pos < rest.len() && (rest[pos] as i8) < -0x40 {
            pos += 1; // finish the last char
        }
        start + pos
    }
}

/// The units a splitter can measure in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Characters (Unicode scalar values, as `len()` of a Python `str`).
    Chars,
    /// Tokens of the splitter's tokenizer.
    Tokens,
}

impl Unit {
    /// Parses a unit name as the caller gives it.
    pub fn parse(name: &str) -> Result<Self, ChunkError> {
        match name {
            "chars" | "characters" => Ok(Unit::Chars),
            "tokens" => Ok(Unit::Tokens),
            other => Err(ChunkError::invalid(
                "unit",
                format!("unit must be 'chars' or 'tokens', got {other:?}"),
            )),
        }
    }

    /// The unit's canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Tokens => "tokens",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chars_and_units() {
        assert_eq!(Chars.size("héllo, 世界"), 9);
        let mixed = "a世🙂é".repeat(50);
        for budget in [0, 1, 2, 3, 7, 100, 1000] {
            let p = Chars.advance(&mixed, 1, budget);
            assert_eq!(
                mixed[1..p].chars().count(),
                budget.min(mixed[1..].chars().count())
            );
        }
        // Every length from 0 to past the SIMD widths, from several starting chars, in texts of 1- to 4-byte chars.
        for unit in ["a", "é", "世", "🙂", "a世🙂é\u{301}"] {
            let text = unit.repeat(1200 / unit.len());
            for from in text.char_indices().map(|(i, _)| i).take(6) {
                for end in from..=text.len() {
                    if text.is_char_boundary(end) {
                        let piece = &text[from..end];
                        assert_eq!(
                            count_chars(piece),
                            piece.chars().count(),
                            "{unit:?} {from}..{end}"
                        );
                    }
                }
            }
        }
        assert!(Unit::parse("bytes")
            .unwrap_err()
            .to_string()
            .contains("unit must be"));
    }
}
