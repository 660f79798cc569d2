//! The spool of a streamed document's Parquet rows: its chunks' values and texts, written as the stream hands them
//! out and read back once the whole document is chunked, when its rows are written.

use chunkwise_core::Chunk;

/// A streamed chunk as spooled (see [`spool`]): its row's values, and its text.
#[derive(Debug)]
pub struct Record<'b> {
    /// The chunk's index in its document.
    pub index: usize,
    /// The chunk (its byte offsets are those of its text alone).
    pub chunk: Chunk,
    /// The chunk's text, as spooled (UTF-8 unless the spool is damaged).
    pub text: &'b [u8],
}

/// The fixed part of a spooled record: ten little-endian u64 (index, char start and end, size, id, previous and
/// next id, first and last page, text length), the level and the flags of the optional values.
const RECORD_HEAD: usize = 10 * 8 + 2;
const HAS_PREV: u8 = 1;
const HAS_NEXT: u8 = 2;
const HAS_PAGES: u8 = 4;

/// Appends the records of `chunks` (the first of which has index `first` in its document; their texts by
/// `text_of`) to `out`, to be read back ([`Record::read`]) once the whole document is chunked.
pub fn spool<'t>(
    out: &mut Vec<u8>,
    chunks: &[Chunk],
    first: usize,
    text_of: impl Fn(&Chunk) -> &'t str,
) {
    for (k, c) in chunks.iter().enumerate() {
        let text = text_of(c);
        let (page_first, page_last) = c.pages.unwrap_or_default();
        let values = [
            (first + k) as u64,
            c.char_start as u64,
            c.char_end as u64,
            c.size as u64,
            c.id,
            c.prev_id.unwrap_or_default(),
            c.next_id.unwrap_or_default(),
            page_first as u64,
            page_last as u64,
            text.len() as u64,
        ];
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let mut flags = 0;
        for (has, flag) in [
            (c.prev_id.is_some(), HAS_PREV),
            (c.next_id.is_some(), HAS_NEXT),
            (c.pages.is_some(), HAS_PAGES),
        ] {
            if has {
                flags |= flag;
            }
        }
        out.extend_from_slice(&[c.level.0, flags]);
        out.extend_from_slice(text.as_bytes());
    }
}

impl<'b> Record<'b> {
    /// The first record of `data` and the bytes it takes, or `None` when `data` does not hold a whole one.
    pub fn read(data: &'b [u8]) -> Option<(Self, usize)> {
        let head = data.get(..RECORD_HEAD)?;
        let value = |k: usize| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&head[8 * k..8 * k + 8]);
            u64::from_le_bytes(bytes)
        };
        let (level, flags) = (head[RECORD_HEAD - 2], head[RECORD_HEAD - 1]);
        let len = usize::try_from(value(9)).ok()?;
        let text = data.get(RECORD_HEAD..RECORD_HEAD.checked_add(len)?)?;
        let chunk = Chunk {
            start: 0,
            end: len,
            char_start: value(1) as usize,
            char_end: value(2) as usize,
            size: value(3) as usize,
            level: chunkwise_core::Level(level),
            id: value(4),
            prev_id: (flags & HAS_PREV != 0).then(|| value(5)),
            next_id: (flags & HAS_NEXT != 0).then(|| value(6)),
            pages: (flags & HAS_PAGES != 0).then(|| (value(7) as usize, value(8) as usize)),
        };
        Some((
            Self {
                index: value(0) as usize,
                chunk,
                text,
            },
            RECORD_HEAD + len,
        ))
    }
}
