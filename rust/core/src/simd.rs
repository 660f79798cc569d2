//! Bytes of a class found 64 at a time: vector compares (the `wide` crate's safe SIMD types) give a bit mask per 64
//! bytes, read with bit operations.
//!
//! Where this pays: the byte sought is dense. Line breaks in prose come every 40 to 60 bytes, and a `memchr` call per
//! break (the iterator's) costs more than the line's own handling; chars are counted for every paragraph, a few
//! hundred bytes each, where a counting call per piece costs as much as the count. For rare bytes `memchr` is faster.

use wide::u8x16;

/// The bit mask of the bytes of `chunk` equal to one of `needles`: bit `i` for `chunk[i]`.
#[inline]
fn mask_eq<const N: usize>(chunk: &[u8; 64], needles: &[u8x16; N]) -> u64 {
    let mut mask = 0u64;
    for k in 0..4 {
        let v = lanes(chunk, k);
        let mut hits = v.cmp_eq(needles[0]);
        for n in &needles[1..] {
            hits |= v.cmp_eq(*n);
        }
        mask |= u64::from(hits.move_mask() as u16) << (16 * k);
    }
    mask
}

/// [`mask_eq`], for any number of needles (none: no bit).
#[inline]
fn mask_any<const N: usize>(chunk: &[u8; 64], needles: &[u8x16; N]) -> u64 {
    if N == 0 {
        0
    } else {
        mask_eq(chunk, needles)
    }
}

/// The bit mask of the bytes of `chunk` that start a char (every byte but UTF-8 continuation bytes, 0x80 to 0xBF).
#[inline]
fn mask_char_starts(chunk: &[u8; 64]) -> u64 {
    let top = u8x16::splat(0xC0);
    let continuation = u8x16::splat(0x80);
    let mut mask = 0u64;
    for k in 0..4 {
        let hits = (lanes(chunk, k) & top).cmp_eq(continuation).move_mask() as u16;
        mask |= u64::from(!hits) << (16 * k);
    }
    mask
}

#[inline]
fn lanes(chunk: &[u8; 64], k: usize) -> u8x16 {
    let mut a = [0u8; 16];
    a.copy_from_slice(&chunk[16 * k..16 * k + 16]);
    u8x16::from(a)
}

/// The 64 bytes of `bytes` from `at`, the end padded with `pad`, and how many of them are the text's.
#[inline]
fn chunk_at(bytes: &[u8], at: usize, pad: u8) -> ([u8; 64], usize) {
    let rest = &bytes[at..];
    let mut chunk = [pad; 64];
    let n = rest.len().min(64);
    chunk[..n].copy_from_slice(&rest[..n]);
    (chunk, n)
}

/// The low `n` bits set (all 64 for `n >= 64`).
#[inline]
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The positions in `from..to` of the bytes of a class, in order: `class` maps 16 bytes to their lanes' hits (all
/// bits set), read 64 bytes at a time. An iterator, not a function taking a closure: a loop over it keeps the
/// caller's handling of each position inline (a space every five bytes of prose), where a closure passed down to the
/// scan was called.
#[derive(Debug, Clone)]
pub(crate) struct ClassPositions<'a, F> {
    /// The bytes up to `to`.
    bytes: &'a [u8],
    /// Where the chunk of `mask` starts.
    base: usize,
    /// The hits of that chunk not yet returned.
    mask: u64,
    class: F,
}

impl<'a, F: Fn(u8x16) -> u8x16> ClassPositions<'a, F> {
    #[inline]
    fn new(bytes: &'a [u8], from: usize, to: usize, class: F) -> Self {
        let mut it = Self {
            bytes: &bytes[..to],
            base: from,
            mask: 0,
            class,
        };
        if from < to {
            it.mask = it.mask_at(from);
        }
        it
    }

    #[inline]
    fn mask_at(&self, at: usize) -> u64 {
        if let Some(chunk) = self.bytes.get(at..at + 64) {
            return self.mask_of(chunk.try_into().expect("64 bytes"));
        }
        // The last, partial chunk: its padding is masked off, whatever its bytes match.
        let (chunk, n) = chunk_at(self.bytes, at, 0);
        self.mask_of(&chunk) & low_bits(n)
    }

    #[inline]
    fn mask_of(&self, chunk: &[u8; 64]) -> u64 {
        let mut mask = 0u64;
        for k in 0..4 {
            mask |= u64::from((self.class)(lanes(chunk, k)).move_mask() as u16) << (16 * k);
        }
        mask
    }
}

impl<F: Fn(u8x16) -> u8x16> Iterator for ClassPositions<'_, F> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.base += 64;
            if self.base >= self.bytes.len() {
                return None;
            }
            self.mask = self.mask_at(self.base);
        }
        let bit = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + bit)
    }
}

/// The positions in `bytes` of any of the `needles` (at least one), in order: one pass for all of them (as
/// `memchr::memchr_iter` and its kin).
pub(crate) fn positions<const N: usize>(
    bytes: &[u8],
    needles: [u8; N],
) -> ClassPositions<'_, impl Fn(u8x16) -> u8x16> {
    let needles = needles.map(u8x16::splat);
    ClassPositions::new(bytes, 0, bytes.len(), move |v: u8x16| {
        let mut hits = v.cmp_eq(needles[0]);
        for n in &needles[1..] {
            hits |= v.cmp_eq(*n);
        }
        hits
    })
}

/// The ASCII punctuation among 16 bytes (all lanes set), the apostrophe included or not: four ranges, where `b - lo`,
/// wrapping, is at most `width`.
#[inline]
fn ascii_punctuation(v: u8x16, apostrophe: bool) -> u8x16 {
    let zero = u8x16::splat(0);
    let mut hits = zero;
    for (lo, width) in [(0x21, 0x0E), (0x3A, 0x06), (0x5B, 0x05), (0x7B, 0x03)] {
        hits |= (v - u8x16::splat(lo))
            .saturating_sub(u8x16::splat(width))
            .cmp_eq(zero);
    }
    if apostrophe {
        hits
    } else {
        hits & !v.cmp_eq(u8x16::splat(b'\''))
    }
}

/// `g(i)` for each `i` in `from..to`, in order, whose byte `class` marks (see [`ClassPositions`]).
#[inline]
fn for_each_in_class(
    bytes: &[u8],
    from: usize,
    to: usize,
    class: impl Fn(u8x16) -> u8x16,
    g: impl FnMut(usize),
) {
    ClassPositions::new(bytes, from, to, class).for_each(g);
}

/// The bytes the space piece rule of [`crate::tokens`] stops at: the space, ASCII punctuation but the apostrophe,
/// the lead bytes 0xE3 and 0xEF of CJK punctuation, and with `newlines` the line breaks; their positions in
/// `from..to`, in order.
#[inline]
pub(crate) fn token_stops(
    bytes: &[u8],
    from: usize,
    to: usize,
    newlines: bool,
) -> ClassPositions<'_, impl Fn(u8x16) -> u8x16> {
    let eq = [b' ', 0xE3, 0xEF, b'\n', b'\r'].map(u8x16::splat);
    let eqs = if newlines { 5 } else { 3 };
    ClassPositions::new(bytes, from, to, move |v: u8x16| {
        let mut hits = ascii_punctuation(v, false);
        for n in &eq[..eqs] {
            hits |= v.cmp_eq(*n);
        }
        hits
    })
}

/// The bytes BERT's piece rule of [`crate::tokens`] looks at: ASCII whitespace (space, tab, line breaks), ASCII
/// punctuation, and the lead bytes of characters of two or more bytes (0xC0 and up), which may be whitespace,
/// punctuation or Han. `g(i)` for each such `i` in `from..to`, in order.
#[inline]
pub(crate) fn for_each_bert_stop(bytes: &[u8], from: usize, to: usize, g: impl FnMut(usize)) {
    let eq = [b' ', b'\t', b'\n', b'\r'].map(u8x16::splat);
    let lead = u8x16::splat(0xC0);
    let class = |v: u8x16| {
        let mut hits = ascii_punctuation(v, true) | v.max(lead).cmp_eq(v);
        for n in eq {
            hits |= v.cmp_eq(n);
        }
        hits
    };
    for_each_in_class(bytes, from, to, class, g);
}

/// The number of chars in every prefix of a region of a text, read in constant time: the char starts of each 64
/// bytes as a bit mask, with the count before them.
#[derive(Debug, Default)]
pub(crate) struct CharCounts {
    start: usize,
    end: usize,
    /// Per 64 bytes from `start`: the chars before them (from `start`) and the mask of their char starts.
    chunks: Vec<(usize, u64)>,
}

impl CharCounts {
    /// Counts the chars of `text[start..end]` (both char boundaries), keeping what [`CharCounts::before`] reads.
    pub(crate) fn fill(&mut self, text: &str, start: usize, end: usize) {
        self.fill_finding(text, start, end, [], |_| false);
    }

    /// [`CharCounts::fill`], finding on the way the bytes equal to one of `needles` and asking `found` of each
    /// (with its position in `text`): true, with the counts left partial, as soon as it says yes. One read of the
    /// region for both, while the loads are shared.
    pub(crate) fn fill_finding<const N: usize>(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        needles: [u8; N],
        mut found: impl FnMut(usize) -> bool,
    ) -> bool {
        let bytes = &text.as_bytes()[..end];
        let needles = needles.map(u8x16::splat);
        self.start = start;
        self.end = end;
        self.chunks.clear();
        let mut count = 0;
        let mut at = start;
        while at < end {
            let (mask, mut hits) = match bytes.get(at..at + 64) {
                Some(chunk) => {
                    let chunk: &[u8; 64] = chunk.try_into().expect("64 bytes");
                    (mask_char_starts(chunk), mask_any(chunk, &needles))
                }
                None => {
                    // A continuation byte as padding: it starts no char.
                    let (chunk, n) = chunk_at(bytes, at, 0x80);
                    let keep = low_bits(n);
                    (
                        mask_char_starts(&chunk) & keep,
                        mask_any(&chunk, &needles) & keep,
                    )
                }
            };
            while hits != 0 {
                if found(at + hits.trailing_zeros() as usize) {
                    return true;
                }
                hits &= hits - 1;
            }
            self.chunks.push((count, mask));
            count += mask.count_ones() as usize;
            at += 64;
        }
        self.chunks.push((count, 0));
        false
    }

    /// Whether `a..b` lies in the region counted.
    pub(crate) fn covers(&self, a: usize, b: usize) -> bool {
        self.start <= a && b <= self.end
    }

    /// The number of chars of `text[start..pos]`, for `pos` in the region counted (a char boundary).
    #[inline]
    pub(crate) fn before(&self, pos: usize) -> usize {
        debug_assert!(self.start <= pos && pos <= self.end);
        let off = pos - self.start;
        let (count, mask) = self.chunks[off / 64];
        count + (mask & low_bits(off % 64)).count_ones() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize, seed: u64) -> Vec<u8> {
        let alphabet: &[u8] = b"ab\n\x0c \xe4\xb8\xad\r";
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                alphabet[(x >> 33) as usize % alphabet.len()]
            })
            .collect()
    }

    #[test]
    fn positions_are_memchrs() {
        for n in [0, 1, 15, 63, 64, 65, 127, 128, 129, 1000] {
            for seed in 0..4 {
                let bytes = sample(n, seed);
                let ours: Vec<usize> = positions(&bytes, [b'\n']).collect();
                let theirs: Vec<usize> = memchr::memchr_iter(b'\n', &bytes).collect();
                assert_eq!(ours, theirs, "n={n} seed={seed}");
                let ours: Vec<usize> = positions(&bytes, [b'\n', b'\x0c']).collect();
                let theirs: Vec<usize> = memchr::memchr2_iter(b'\n', b'\x0c', &bytes).collect();
                assert_eq!(ours, theirs, "n={n} seed={seed}");
            }
        }
        let bytes = sample(300, 9);
        let ours: Vec<usize> = positions(&bytes, [b'\n', b'\r', 0xE4]).collect();
        let theirs: Vec<usize> = memchr::memchr3_iter(b'\n', b'\r', 0xE4, &bytes).collect();
        assert_eq!(ours, theirs);
        // Padding never matches, even a zero byte sought.
        assert_eq!(positions(b"a\0b", [0]).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn char_counts_of_every_prefix() {
        let text = "中文,\u{1F600}é x\n".repeat(23);
        for (start, end) in [(0, text.len()), (3, text.len() - 1), (0, 0), (7, 7 + 64)] {
            let (start, end) = (
                crate::offsets::ceil_char_boundary(&text, start),
                crate::offsets::ceil_char_boundary(&text, end),
            );
            let mut counts = CharCounts::default();
            counts.fill(&text, start, end);
            for pos in (start..=end).filter(|&p| text.is_char_boundary(p)) {
                assert_eq!(
                    counts.before(pos),
                    text[start..pos].chars().count(),
                    "{start}..{pos}"
                );
            }
        }
    }
}
