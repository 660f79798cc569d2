//! The engine's output, read by everything after it (char offsets, pages, the structure's description of chunks).

use crate::boundary::Level;

/// A chunk: byte offsets into the text, and the level of the boundary it ends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset past the last byte.
    pub end: usize,
    /// The boundary the chunk ends on ([`Level::END`] at the end of the text).
    pub level: Level,
    /// The chunk's size in the sizer's unit.
    pub size: usize,
}
