//! How chunks are measured: the engine only needs the size of a piece of text.

use std::fmt::Debug;

use crate::error::ChunkError;

/// A unit of chunk size.
///
/// Sizes must be additive over the pieces the engine cuts (size(a + b) == size(a) + size(b) at a boundary); units
/// whose sizes are not (tokens) verify the final counts themselves.
pub trait Sizer: Send + Sync + Debug {
    /// The size of `text` in this unit.
    fn size(&self, text: &str) -> usize;

    /// Whether the size of ASCII text is its length in bytes (lets the engine skip counting on ASCII windows).
    fn ascii_is_bytes(&self) -> bool {
        false
    }
}

/// Unicode scalar values: the length of a Python `str`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Chars;

impl Sizer for Chars {
    #[inline]
    fn size(&self, text: &str) -> usize {
        text.chars().count()
    }

    fn ascii_is_bytes(&self) -> bool {
        true
    }
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
    fn chars_and_units() {
        assert_eq!(Chars.size("héllo, 世界"), 9);
        assert!(Unit::parse("tokens")
            .unwrap_err()
            .to_string()
            .contains("unit must be"));
    }
}
