//! How chunks are measured. The engine only needs two things from a unit: the size of a piece of text, and how far
//! ahead of a chunk start it must look before every candidate end is surely too big.

use std::fmt::Debug;

use crate::error::ChunkError;

/// A unit of chunk size.
///
/// Sizes must be additive over the pieces the engine cuts (size(a + b) == size(a) + size(b) at a boundary); units
/// whose sizes are not (tokens) verify the final counts themselves.
pub trait Sizer: Send + Sync + Debug {
    /// The size of `text` in this unit.
    fn size(&self, text: &str) -> usize;

    /// A byte position in `text` (a char boundary, at most `text.len()`) such that every chunk starting at `start`
    /// and ending past it is larger than `capacity`, with some room to spare for look-ahead.
    fn horizon(&self, text: &str, start: usize, capacity: usize) -> usize;
}

/// Unicode scalar values: the length of a Python `str`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Chars;

/// Extra characters scanned past the capacity: trailing whitespace that trimming removes, and context that
/// sentence rules look at.
const LOOKAHEAD_CHARS: usize = 64;

impl Sizer for Chars {
    #[inline]
    fn size(&self, text: &str) -> usize {
        text.chars().count()
    }

    fn horizon(&self, text: &str, start: usize, capacity: usize) -> usize {
        let mut remaining = capacity.saturating_add(LOOKAHEAD_CHARS);
        let rest = &text.as_bytes()[start..];
        if rest.len() <= remaining {
            return text.len(); // fewer bytes than chars wanted: the whole rest is within reach
        }
        // Count char starts in prefixes of the bytes still needed: each round takes at least a quarter of what is
        // left, so a few vectorised passes find the position.
        let mut pos = 0;
        while remaining > 0 && pos < rest.len() {
            let take = remaining.min(rest.len() - pos);
            remaining -= count_char_starts(&rest[pos..pos + take]);
            pos += take;
        }
        while pos < rest.len() && (rest[pos] as i8) < -0x40 {
            pos += 1; // finish the last char
        }
        start + pos
    }
}

/// The number of bytes that start a UTF-8 sequence (not continuation bytes): the char count of complete text.
#[inline]
fn count_char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// The units a splitter can measure in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Characters (Unicode scalar values, as `len()` of a Python `str`).
    Chars,
}

impl Unit {
    /// Parses a unit name as the caller gives it.
    pub fn parse(name: &str) -> Result<Self, ChunkError> {
        match name {
            "chars" | "characters" => Ok(Unit::Chars),
            other => Err(ChunkError::invalid(
                "unit",
                format!("unit must be 'chars', got {other:?}"),
            )),
        }
    }

    /// The unit's canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
        }
    }

    /// The sizer that measures in this unit.
    pub fn sizer(self) -> Box<dyn Sizer> {
        match self {
            Unit::Chars => Box::new(Chars),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chars_and_horizon() {
        assert_eq!(Chars.size("héllo, 世界"), 9);
        let text = "é".repeat(200);
        let h = Chars.horizon(&text, 0, 10);
        assert_eq!(h, 2 * (10 + LOOKAHEAD_CHARS));
        assert_eq!(Chars.horizon("short", 0, 10), 5);
        let mixed = "a世🙂é".repeat(100);
        let h = Chars.horizon(&mixed, 4, 10);
        assert_eq!(mixed[4..h].chars().count(), 10 + LOOKAHEAD_CHARS);
        assert!(Unit::parse("tokens")
            .unwrap_err()
            .to_string()
            .contains("unit must be"));
    }
}
