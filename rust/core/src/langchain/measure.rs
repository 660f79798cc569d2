//! How LangChain's pieces are measured: its `length_function`, as characters, a token counter, or tiktoken with
//! its special tokens.

use super::{DisallowedSpecial, SpecialTokens};

/// How pieces are measured: LangChain's `length_function`.
pub trait Measure {
    /// Why a length could not be given.
    type Error;
    /// Appends the length of `text[a..b]` for each range to `out`.
    fn measure(
        &mut self,
        text: &str,
        ranges: &[(usize, usize)],
        out: &mut Vec<i64>,
    ) -> Result<(), Self::Error>;
    /// The length of one string (a separator).
    fn measure_str(&mut self, s: &str) -> Result<i64, Self::Error>;
}

/// `len`: Python code points.
#[derive(Debug, Default, Clone, Copy)]
pub struct CharLen;

impl Measure for CharLen {
    type Error = std::convert::Infallible;
    fn measure(
        &mut self,
        text: &str,
        ranges: &[(usize, usize)],
        out: &mut Vec<i64>,
    ) -> Result<(), Self::Error> {
        let (Some(first), Some(last)) = (ranges.first(), ranges.last()) else {
            return Ok(());
        };
        // Pieces come in text order: when all they span is ASCII, a length is a byte count.
        if text.as_bytes()[first.0..last.1].is_ascii() {
            out.extend(ranges.iter().map(|&(a, b)| (b - a) as i64));
        } else {
            out.extend(ranges.iter().map(|&(a, b)| char_len(&text[a..b])));
        }
        Ok(())
    }
    fn measure_str(&mut self, s: &str) -> Result<i64, Self::Error> {
        Ok(char_len(s))
    }
}

/// Code points: bytes that do not continue a UTF-8 sequence.
pub(super) fn char_len(s: &str) -> i64 {
    crate::size::count_chars(s) as i64
}

/// A token counter as the length: exact counts of each piece.
impl Measure for &crate::tokens::TokenCounter {
    type Error = std::convert::Infallible;
    fn measure(
        &mut self,
        text: &str,
        ranges: &[(usize, usize)],
        out: &mut Vec<i64>,
    ) -> Result<(), Self::Error> {
        out.extend(ranges.iter().map(|&(a, b)| self.count(&text[a..b]) as i64));
        Ok(())
    }
    fn measure_str(&mut self, s: &str) -> Result<i64, Self::Error> {
        Ok(self.count(s) as i64)
    }
}

/// A tiktoken counter with tiktoken's `allowed_special` / `disallowed_special`: a piece holding a disallowed special
/// token fails as tiktoken's `encode` raises, an allowed one counts as one token.
#[derive(Debug, Clone, Copy)]
pub struct TiktokenLen<'a> {
    /// The encoding's counter of ordinary text.
    pub counter: &'a crate::tokens::TokenCounter,
    /// The special tokens allowed and disallowed.
    pub specials: &'a SpecialTokens,
}

impl Measure for TiktokenLen<'_> {
    type Error = DisallowedSpecial;
    fn measure(
        &mut self,
        text: &str,
        ranges: &[(usize, usize)],
        out: &mut Vec<i64>,
    ) -> Result<(), Self::Error> {
        for &(a, b) in ranges {
            out.push(self.specials.count(self.counter, &text[a..b])? as i64);
        }
        Ok(())
    }
    fn measure_str(&mut self, s: &str) -> Result<i64, Self::Error> {
        Ok(self.specials.count(self.counter, s)? as i64)
    }
}
