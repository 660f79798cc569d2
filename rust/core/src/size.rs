//! How chunks are measured: the engine only needs the size of a piece of text.

use std::fmt::Debug;
use std::sync::Arc;

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

    /// The sizes of `text[start..p]` for each `p` of `ends` (ascending, but for steps back: the engine asks for
    /// each mark's position and then the end of its content, which can lie before the mark before it), into `out`,
    /// each with whether it is exact
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
            if p < at {
                (at, acc) = (start, 0);
            }
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

    /// Whether sizes add up over a cut at any char boundary, not only at the engine's boundaries: the engine then
    /// counts a piece once and subtracts its trailing whitespace, instead of counting content and whitespace apart.
    fn adds_per_char(&self) -> bool {
        false
    }

    /// Whether the size of a text is its number of chars, so that the engine may count them itself, many
    /// pieces in one pass.
    fn counts_chars(&self) -> bool {
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
    let bytes = text.as_bytes();
    if bytes.len() < 32 {
        // Below one vector (the whitespace after a piece, a short line): counted in place, without the call and
        // the CPU feature check.
        return bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
    }
    bytecount::num_chars(bytes)
}

impl Sizer for Chars {
    #[inline]
    fn size(&self, text: &str) -> usize {
        count_chars(text)
    }

    fn ascii_is_bytes(&self) -> bool {
        true
    }

    fn adds_per_char(&self) -> bool {
        true
    }

    fn counts_chars(&self) -> bool {
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

/// A sizer (tokens) with a cap on characters: a chunk fits when it holds at most `size` units AND at most
/// `max_chars` characters.
///
/// Tokens put no bound on characters: text a tokenizer counts as nothing (NULs and zero-width spaces under BERT's
/// normalizer, characters a BPE without an unknown token drops) or as one token (WordPiece gives one `[UNK]` to a
/// word past `max_input_chars_per_word`: `"a" * 1_000_000` is 1 token) would become one chunk, however long.
///
/// The engine asks one question, "does this fit in `budget`?", so both limits are one measure: the larger of the
/// inner size and `ceil(chars * size / max_chars)`, which is at most `size` exactly when `chars <= max_chars`. A
/// smaller budget (an overlap, what a context leaves) scales the character cap in proportion. The measure is the
/// inner size wherever the cap does not bind; where it does, [`CharCapped::reported`] gives a chunk its exact inner
/// size back.
#[derive(Debug)]
pub struct CharCapped {
    inner: Arc<dyn Sizer>,
    size: usize,
    max_chars: usize,
}

impl CharCapped {
    /// The default cap, in characters per unit of `size`. On the shared corpus (en, zh, ja, Markdown, Python; three
    /// tokenizers; Recursive and Markdown chunkers; sizes 64 to 1024) the largest chunk held 40 x size characters
    /// (a grid table's padding, at size 64; 17 x at 512, 13 x at 1024): the cap never binds on such text, only on
    /// runs a tokenizer counts as nothing or almost nothing.
    pub const DEFAULT_CHARS_PER_UNIT: usize = 64;

    /// `inner` capped at `max_chars` characters for a chunk of `size` units (`max_chars >= size >= 1`).
    pub fn new(inner: Arc<dyn Sizer>, size: usize, max_chars: usize) -> Result<Self, ChunkError> {
        if max_chars < size || size == 0 {
            return Err(ChunkError::invalid(
                "max_chars",
                format!("max_chars must be >= size ({size}), got {max_chars}"),
            ));
        }
        Ok(Self {
            inner,
            size,
            max_chars,
        })
    }

    /// The sizer under the cap.
    pub fn inner(&self) -> &dyn Sizer {
        self.inner.as_ref()
    }

    /// The size that `chars` characters take in the cap's terms: at most a budget `b` exactly when
    /// `chars <= b * max_chars / size`.
    fn floor(&self, chars: usize) -> usize {
        // In 64 bits when the product fits (always, in practice): the 128-bit division was a few percent of
        // measuring a window of one long word, which has a boundary at every character.
        if let Some(n) = (chars as u64).checked_mul(self.size as u64) {
            return usize::try_from(n.div_ceil(self.max_chars as u64)).unwrap_or(usize::MAX);
        }
        let n = (chars as u128 * self.size as u128).div_ceil(self.max_chars as u128);
        usize::try_from(n).unwrap_or(usize::MAX)
    }

    /// The size a chunk `text` reports, given its capped `measured` size: the inner size, counted again only where
    /// the cap may have decided the measure.
    pub fn reported(&self, text: &str, measured: usize) -> usize {
        if self.floor(count_chars(text)) >= measured {
            self.inner.size(text)
        } else {
            measured
        }
    }
}

impl Sizer for CharCapped {
    fn size(&self, text: &str) -> usize {
        self.inner.size(text).max(self.floor(count_chars(text)))
    }

    fn is_exact_sum(&self) -> bool {
        false
    }

    fn prefix_sizes(
        &self,
        text: &str,
        start: usize,
        ends: &[usize],
        out: &mut Vec<(usize, bool)>,
        cache: &mut SizerCache,
    ) {
        self.inner.prefix_sizes(text, start, ends, out, cache);
        // A text has no more characters than bytes: where the bytes of every prefix are within the inner size, the
        // cap binds nowhere, and no character is counted (ordinary text is a few bytes a token; counting was 7% of a
        // split in tokens).
        if (out.iter().zip(ends)).all(|(slot, &p)| self.floor(p.saturating_sub(start)) <= slot.0) {
            return;
        }
        // The characters of `text[start..p]` for each end, counted from the previous one (an end can lie before
        // the previous one: the engine asks for the trimmed end of each boundary next to the boundary itself).
        let (mut at, mut chars) = (start, 0);
        for (slot, &p) in out.iter_mut().zip(ends) {
            if p >= at {
                chars += count_chars(&text[at..p]);
            } else {
                chars -= count_chars(&text[p..at]);
            }
            at = p;
            // Exact when the inner size is: the larger of two exact sizes is exact.
            slot.0 = slot.0.max(self.floor(chars));
        }
    }

    fn size_in_window(&self, text: &str, start: usize, end: usize, cache: &SizerCache) -> usize {
        self.inner
            .size_in_window(text, start, end, cache)
            .max(self.floor(count_chars(&text[start..end])))
    }

    fn advance(&self, text: &str, start: usize, budget: usize) -> usize {
        let chars = (budget as u128 * self.max_chars as u128) / self.size as u128;
        let by_chars = Chars.advance(text, start, usize::try_from(chars).unwrap_or(usize::MAX));
        // The inner sizer searches no further than the cap: past it nothing fits, and a text that counts (almost)
        // nothing would have it search to the end of the text for every chunk.
        self.inner.advance(&text[..by_chars], start, budget)
    }
}

/// The cap on a chunk's characters when it is measured in tokens (see [`CharCapped`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MaxChars {
    /// [`CharCapped::DEFAULT_CHARS_PER_UNIT`] characters per unit of size, in tokens; no cap in characters.
    #[default]
    Auto,
    /// No cap: a run the tokenizer counts as (almost) nothing may make one chunk of any length.
    Off,
    /// At most this many characters a chunk (tokens only: in characters the size is the cap).
    Limit(usize),
}

/// The units a splitter can measure in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Characters (Unicode scalar values, as `len()` of a Python `str`).
    Chars,
    /// Tokens of the splitter's tokenizer.
    Tokens,
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
        assert!("bytes"
            .parse::<Unit>()
            .unwrap_err()
            .to_string()
            .contains("unit must be"));
    }

    /// One unit per "x"; everything else counts nothing (as NULs do under BERT's normalizer).
    #[derive(Debug)]
    struct OnlyX;

    impl Sizer for OnlyX {
        fn size(&self, text: &str) -> usize {
            text.matches('x').count()
        }
    }

    /// Nothing, and says so for any ends, in any order.
    #[derive(Debug)]
    struct Zero;

    impl Sizer for Zero {
        fn size(&self, _: &str) -> usize {
            0
        }

        fn prefix_sizes(
            &self,
            _: &str,
            _: usize,
            ends: &[usize],
            out: &mut Vec<(usize, bool)>,
            _: &mut SizerCache,
        ) {
            out.clear();
            out.extend(ends.iter().map(|_| (0, true)));
        }
    }

    #[test]
    fn a_char_cap_bounds_what_counts_nothing() {
        let capped = CharCapped::new(Arc::new(OnlyX), 4, 40).unwrap();
        // Fits in 4 exactly when at most 4 "x" and at most 40 chars.
        for (text, fits) in [
            ("x".repeat(4), true),
            ("x".repeat(5), false),
            ("é".repeat(40), true),
            ("é".repeat(41), false),
            (format!("xxxx{}", "-".repeat(36)), true),
            (format!("xxxx{}", "-".repeat(37)), false),
        ] {
            assert_eq!(capped.size(&text) <= 4, fits, "{text:?}");
        }
        // A smaller budget scales the cap: 2 units, 20 chars.
        let text = "-".repeat(100);
        assert_eq!(capped.advance(&text, 0, 2), 20);
        assert_eq!(capped.advance(&text, 90, 4), 100);
        assert_eq!(capped.advance("é".repeat(100).as_str(), 2, 4), 2 + 40 * 2);
        assert_eq!(capped.advance(&format!("xxx{text}"), 0, 2), 2);
        // Prefix sizes are the sizes of the prefixes.
        let text = "ab xx éé  x-y ".repeat(8);
        let ends: Vec<usize> = [5, 7, 9, 12, 30, 41, 60, 60, text.len()]
            .into_iter()
            .filter(|&p| text.is_char_boundary(p))
            .collect();
        let capped = CharCapped::new(Arc::new(OnlyX), 3, 12).unwrap();
        let (mut out, mut cache) = (Vec::new(), None);
        capped.prefix_sizes(&text, 1, &ends, &mut out, &mut cache);
        for (&p, &(size, _)) in ends.iter().zip(&out) {
            assert_eq!(size, capped.size(&text[1..p]), "{p}");
        }
        // The engine may ask for an end before the previous one (a boundary's trimmed end after the boundary
        // before it): the cap's share is still that of each prefix.
        let capped = CharCapped::new(Arc::new(Zero), 1, 2).unwrap();
        let ends = [4, 9, 6, 6, 12, 2];
        capped.prefix_sizes("0123456789abcdef", 0, &ends, &mut out, &mut cache);
        let sizes: Vec<usize> = out.iter().map(|o| o.0).collect();
        assert_eq!(sizes, ends.map(|p| p.div_ceil(2)));
        // A chunk reports its own size, not the cap's.
        let capped = CharCapped::new(Arc::new(OnlyX), 3, 12).unwrap();
        let long = "-".repeat(12);
        assert_eq!(capped.size(&long), 3);
        assert_eq!(capped.reported(&long, 3), 0);
        assert_eq!(capped.reported("xx", 2), 2);
        assert!(CharCapped::new(Arc::new(OnlyX), 4, 3)
            .unwrap_err()
            .to_string()
            .contains("max_chars must be >= size (4), got 3"));
    }

    #[test]
    fn the_engine_cuts_a_run_of_one_token_at_the_char_cap() {
        use crate::assemble::{Assembler, Mode};
        use crate::boundary::{Emitter, Level};
        use crate::levels::{Name, Source};
        use crate::tokens::TokenCounter;
        // WordPiece gives a word it cannot spell one [UNK]: "a" * 100_000 is 1 token, and so is every run of "a".
        let json = r###"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
            "normalizer":null,"pre_tokenizer":{"type":"BertPreTokenizer"},"post_processor":null,"decoder":null,
            "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
            "max_input_chars_per_word":100,"vocab":{"[UNK]":0,"b":1}}}"###;
        let tokens = Arc::new(TokenCounter::from_hf_json(json, false).unwrap());
        let text = "a".repeat(100_000);
        assert_eq!(tokens.count(&text), 1);
        let capped = CharCapped::new(tokens, 16, 16 * 64).unwrap();
        let emitters = [
            (Source::Emitter(Emitter::Word), Level::WORD, Name::Word),
            (
                Source::Emitter(Emitter::Grapheme),
                Level::GRAPHEME,
                Name::Grapheme,
            ),
        ];
        for mode in [
            Mode::Greedy,
            Mode::Fixed {
                snap: 0,
                restart: None,
            },
        ] {
            let engine =
                Assembler::new(&emitters, &[Level::WORD, Level::GRAPHEME], &capped, 16).mode(mode);
            let mut spans = Vec::new();
            engine.run(&text, &mut spans).unwrap();
            assert_eq!(spans.len(), 98, "{mode:?}"); // 100,000 / 1,024
            let mut at = 0;
            for s in &spans {
                assert_eq!(s.start, at);
                assert!(s.end - s.start <= 1024);
                assert_eq!(capped.reported(&text[s.start..s.end], s.size), 1);
                at = s.end;
            }
            assert_eq!(at, text.len());
        }
    }
}
