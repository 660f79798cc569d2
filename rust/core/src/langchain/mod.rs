//! LangChain's text splitters, reproduced exactly: the same chunks as langchain-text-splitters 1.1.3 for the same
//! arguments, computed in byte offsets.
//!
//! LangChain's `RecursiveCharacterTextSplitter` picks the first separator found in a text, splits the text with it
//! (`re.split`, the separator kept at the start or end of a piece, or dropped), and merges the pieces greedily:
//! each piece is measured on its own, a chunk's size is the sum of its pieces' sizes plus one separator's size
//! between two pieces, and the overlap is a tail of whole pieces of the chunk before. A piece of `chunk_size` or
//! more is split again with the next separators, or returned as it is when there are none left. Chunks are joined
//! with the separator (or nothing when it is kept), stripped with Python's `str.strip`, and dropped when empty.
//! `CharacterTextSplitter` is the same with one separator and no recursion.
//!
//! The merge rules are LangChain's, quirks included (see `shared/notes/langchain-semantics.md`); this module is
//! not the chunkwise engine and shares no rule with it. What it adds is speed: separators are found with `memchr`
//! or a translated regex ([`pyre`]), pieces are byte ranges, each piece is measured once, and a chunk is a slice of
//! the text unless the separator it is joined with differs from the text between its pieces.
//!
//! A separator pattern that [`pyre`] cannot translate exactly is matched by the caller instead ([`Matches`]: Python's
//! own `re`), which hands back where it matches; splitting, measuring, merging and `start_index` stay here.

mod measure;
pub mod pyre;
mod run;

use measure::char_len;
pub use measure::{CharLen, Measure, TiktokenLen};
use run::Run;

use memchr::memmem;

use crate::error::ChunkError;
use crate::offsets::CharCursor;
pub use crate::tiktoken::specials::{DisallowedSpecial, SpecialTokens};

/// Where `re.split` puts a separator it keeps (LangChain's `keep_separator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Dropped (`False`); chunks are joined with the separator string.
    Drop,
    /// At the start of the piece after it (`True`, `"start"`, any other true value).
    Start,
    /// At the end of the piece before it (`"end"`).
    End,
}

impl Keep {
    /// The names the bindings take (`"none"`, `"start"`, `"end"`), in that order.
    pub const NAMES: [&'static str; 3] = ["none", "start", "end"];

    /// The keep named `name` (one of [`Keep::NAMES`]); the error says what is allowed.
    pub fn named(name: &str) -> Result<Self, String> {
        match name {
            "none" => Ok(Self::Drop),
            "start" => Ok(Self::Start),
            "end" => Ok(Self::End),
            other => Err(format!(
                "keep must be 'none', 'start' or 'end', got {other:?}"
            )),
        }
    }

    /// The name of this keep (see [`Keep::NAMES`]).
    pub fn name(self) -> &'static str {
        match self {
            Self::Drop => "none",
            Self::Start => "start",
            Self::End => "end",
        }
    }
}

/// The byte spans in `hay` of `spans`, the `str` (char) spans a caller's matcher found there (`re.finditer`), which
/// must be in order and inside `hay`.
pub fn byte_spans(
    hay: &str,
    spans: &[(usize, usize)],
    out: &mut Vec<(usize, usize)>,
) -> Result<(), &'static str> {
    let mut cursor = CharCursor::new(hay, hay.is_ascii());
    let chars = if hay.is_ascii() {
        hay.len()
    } else {
        hay.chars().count()
    };
    let mut last = 0;
    for &(a, b) in spans {
        if a < last || b < a || b > chars {
            return Err("matcher.find_all must return ordered spans inside the text");
        }
        last = b;
        out.push((cursor.to_byte(a), cursor.to_byte(b)));
    }
    Ok(())
}

/// How a separator is found.
#[derive(Debug)]
enum Matcher {
    /// `""`: every char is a piece.
    Chars,
    Literal(memmem::Finder<'static>),
    /// A translated Python pattern; `zero_width` when every match is empty.
    Regex {
        regex: fancy_regex::Regex,
        zero_width: bool,
    },
    /// A pattern matched by the caller ([`Matches`]), for the reason given.
    External(String),
}

/// One separator: its source string (which LangChain also joins chunks with) and its matcher.
#[derive(Debug)]
struct Separator {
    source: String,
    matcher: Matcher,
}

/// Why a split must run in Python instead (the caller falls back to Python's `re` and its own loop).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback(pub String);

/// A split that could not finish: it needs Python, measuring failed, or the caller's matching failed.
#[derive(Debug)]
pub enum Failure<E, F = std::convert::Infallible> {
    /// The split needs Python's own loop.
    Fallback(Fallback),
    /// The length function failed.
    Measure(E),
    /// The caller's matcher failed.
    Match(F),
}

impl<E, F> From<Fallback> for Failure<E, F> {
    fn from(f: Fallback) -> Self {
        Failure::Fallback(f)
    }
}

/// Where the separators Rust does not match itself match: Python's `re.search` and `re.finditer`, as LangChain
/// calls them (the pattern escaped unless it is a regex, wrapped in a group when separators are kept).
pub trait Matches {
    /// Why matching failed (a Python exception, for Python's `re`).
    type Error;
    /// Whether separator `sep` occurs in `hay` (`re.search`).
    fn search(&mut self, sep: usize, hay: &str) -> Result<bool, Self::Error>;
    /// The byte ranges in `hay` of separator `sep`'s matches, in order, appended to `out`; `Ok(false)` when its
    /// pieces are not cut at its matches alone (a pattern with capturing groups of its own, whose captures
    /// `re.split` returns too).
    fn find_all(
        &mut self,
        sep: usize,
        hay: &str,
        out: &mut Vec<(usize, usize)>,
    ) -> Result<bool, Self::Error>;
}

/// No caller to match separators: a separator Rust does not match makes the split a [`Fallback`].
#[derive(Debug, Default, Clone, Copy)]
pub struct NoMatches;

impl Matches for NoMatches {
    type Error = Fallback;
    fn search(&mut self, sep: usize, _: &str) -> Result<bool, Fallback> {
        Err(Fallback(format!("separator {sep} needs Python's re")))
    }
    fn find_all(
        &mut self,
        sep: usize,
        _: &str,
        _: &mut Vec<(usize, usize)>,
    ) -> Result<bool, Fallback> {
        Err(Fallback(format!("separator {sep} needs Python's re")))
    }
}

/// The arguments of a LangChain splitter that decide its chunks.
#[derive(Debug)]
pub struct LangchainSplitter {
    separators: Vec<Separator>,
    keep: Keep,
    chunk_size: i64,
    chunk_overlap: i64,
    strip: bool,
    /// `CharacterTextSplitter`: one split, joined with this string, no recursion.
    character_join: Option<String>,
}

/// One chunk: a slice of the text, or a string of its own when joining changed the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The byte range the chunk was made from (after stripping, for a slice).
    pub start: usize,
    /// The end of that byte range.
    pub end: usize,
    /// The chunk's text when it is not `text[start..end]`.
    pub owned: Option<String>,
}

impl Chunk {
    /// The chunk's text: its own string, or its slice of `text`.
    pub fn text<'a>(&'a self, text: &'a str) -> &'a str {
        self.owned.as_deref().unwrap_or(&text[self.start..self.end])
    }
}

/// The chunks of a text, and the sizes LangChain logs a warning for ("Created a chunk of size ...").
#[derive(Debug, Default)]
pub struct Output {
    /// The chunks, in order.
    pub chunks: Vec<Chunk>,
    /// The size of each chunk longer than `chunk_size`, which LangChain warns about.
    pub warnings: Vec<i64>,
}

impl LangchainSplitter {
    /// A `RecursiveCharacterTextSplitter` (`character_join` `None`) or a `CharacterTextSplitter` (one separator,
    /// chunks joined with `character_join`). Sizes are checked by the Python class, with LangChain's messages.
    /// A pattern that Rust cannot match exactly as Python does is left to the caller's [`Matches`].
    pub fn new(
        separators: &[String],
        is_regex: bool,
        keep: Keep,
        chunk_size: i64,
        chunk_overlap: i64,
        strip: bool,
        character_join: Option<String>,
    ) -> Result<Self, Fallback> {
        if separators.is_empty() {
            return Err(Fallback("no separators".into()));
        }
        let separators = separators
            .iter()
            .map(|s| {
                let matcher = if s.is_empty() {
                    Matcher::Chars
                } else if !is_regex {
                    Matcher::Literal(memmem::Finder::new(s.as_bytes()).into_owned())
                } else {
                    match pyre::translate(s).map_err(str::to_owned).and_then(|t| {
                        fancy_regex::RegexBuilder::new(&t.pattern)
                            .build()
                            .map(|regex| (regex, t.max == Some(0)))
                            .map_err(|e| e.to_string())
                    }) {
                        Ok((regex, zero_width)) => Matcher::Regex { regex, zero_width },
                        Err(why) => Matcher::External(why),
                    }
                };
                Ok(Separator {
                    source: s.clone(),
                    matcher,
                })
            })
            .collect::<Result<Vec<_>, Fallback>>()?;
        Ok(Self {
            separators,
            keep,
            chunk_size,
            chunk_overlap,
            strip,
            character_join,
        })
    }

    /// The separators matched by the caller's [`Matches`], each with why Rust does not match it.
    pub fn external_separators(&self) -> Vec<(&str, &str)> {
        self.separators
            .iter()
            .filter_map(|s| match &s.matcher {
                Matcher::External(why) => Some((s.source.as_str(), why.as_str())),
                _ => None,
            })
            .collect()
    }

    /// LangChain's `split_text(text)`, for a splitter whose separators Rust matches all.
    pub fn split<M: Measure>(
        &self,
        text: &str,
        measure: &mut M,
    ) -> Result<Output, Failure<M::Error>> {
        self.split_with(text, measure, &mut NoMatches)
            .map_err(|f| match f {
                Failure::Fallback(f) => Failure::Fallback(f),
                Failure::Measure(e) => Failure::Measure(e),
                Failure::Match(f) => Failure::Fallback(f),
            })
    }

    /// LangChain's `split_text(text)`, the separators Rust does not match matched by `matches`.
    pub fn split_with<M: Measure, X: Matches>(
        &self,
        text: &str,
        measure: &mut M,
        matches: &mut X,
    ) -> Result<Output, Failure<M::Error, X::Error>> {
        let mut run = Run {
            splitter: self,
            text,
            measure,
            matches,
            out: Output::default(),
            sep_lens: vec![None; self.separators.len() + 1],
            pieces: Vec::new(),
        };
        match &self.character_join {
            Some(join) => {
                let pieces = run.pieces_of(0, text.len(), 0)?;
                let mut lens = Vec::with_capacity(pieces.len());
                run.measure
                    .measure(text, &pieces, &mut lens)
                    .map_err(Failure::Measure)?;
                let join_len = run.measure.measure_str(join).map_err(Failure::Measure)?;
                run.merge(&pieces, &lens, join, join_len);
            }
            None => run.split_rec(0, text.len(), 0)?,
        }
        Ok(run.out)
    }
}

/// Python's `str.isspace()`: the whitespace `str.strip()` removes (Rust's `char::is_whitespace` lacks
/// U+001C..U+001F).
pub fn py_isspace(c: char) -> bool {
    matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' ' | '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
        | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// `text[start..end].strip()`, as a byte range.
pub fn py_strip(text: &str, start: usize, end: usize) -> (usize, usize) {
    let s = &text[start..end];
    let lead = s.len() - s.trim_start_matches(py_isspace).len();
    if lead == s.len() {
        return (start, start);
    }
    let trail = s.len() - s.trim_end_matches(py_isspace).len();
    (start + lead, end - trail)
}

/// LangChain's `start_index` for each chunk of `text` (`create_documents`): `text.find(chunk, max(0, offset))`
/// with `offset = previous index + previous chunk's length - chunk_overlap`, in code points; -1 when not found,
/// and carried on as LangChain carries it.
pub fn start_indices(text: &str, chunks: &[Chunk], chunk_overlap: i64) -> Vec<i64> {
    let ascii = text.is_ascii();
    let total_chars = if ascii {
        text.len()
    } else {
        crate::size::count_chars(text)
    } as i64;
    let mut to_char = CharCursor::new(text, ascii);
    let mut to_byte = CharCursor::new(text, ascii);
    let (mut index, mut previous_len) = (0i64, 0i64);
    let mut out = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let needle = chunk.text(text);
        let from = (index + previous_len - chunk_overlap).max(0);
        index = if from > total_chars || (from == total_chars && !needle.is_empty()) {
            -1
        } else {
            let b = to_byte.to_byte(from as usize);
            match memmem::find(&text.as_bytes()[b..], needle.as_bytes()) {
                Some(i) => to_char.to_char(b + i) as i64,
                None => -1,
            }
        };
        out.push(index);
        previous_len = char_len(needle);
    }
    out
}

/// LangChain's `TokenTextSplitter` on a built-in tiktoken encoding (`gpt2`, `r50k_base`, `p50k_base`,
/// `p50k_edit`, `cl100k_base`, `o200k_base`): `text` encoded once, with the special tokens in `allowed_special`
/// encoded as such (the caller has already refused disallowed ones, as tiktoken does); windows of `size` tokens
/// starting every `size - overlap` tokens; each decoded with invalid UTF-8 replaced by U+FFFD (tiktoken's
/// `errors="replace"`); empty decodes dropped.
pub fn tiktoken_windows(
    encoding: &str,
    text: &str,
    size: usize,
    overlap: usize,
    allowed_special: &[String],
) -> Result<Vec<String>, ChunkError> {
    let bpe = crate::tiktoken::registry::BuiltIn::named("encoding_name", encoding)?.ranks();
    if size <= overlap {
        return Err(ChunkError::invalid(
            "chunk_size",
            "tokens_per_chunk must be greater than chunk_overlap",
        ));
    }
    let allowed: std::collections::HashSet<&str> =
        allowed_special.iter().map(String::as_str).collect();
    let ids = if allowed.is_empty() {
        bpe.encode_ordinary(text)
    } else {
        bpe.encode(text, &allowed)
            .map_err(|e| ChunkError::invalid("allowed_special", e.to_string()))?
            .0
    };
    let mut out = Vec::new();
    let mut start = 0;
    while start < ids.len() {
        let end = (start + size).min(ids.len());
        let bytes = bpe
            .decode_bytes(&ids[start..end])
            .map_err(|e| ChunkError::invalid("text", e.to_string()))?;
        let decoded = String::from_utf8_lossy(&bytes);
        if !decoded.is_empty() {
            out.push(decoded.into_owned());
        }
        if end == ids.len() {
            break;
        }
        start += size - overlap;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_is_named_and_names_itself() {
        for name in Keep::NAMES {
            assert_eq!(Keep::named(name).unwrap().name(), name);
        }
        assert_eq!(
            Keep::named("both").unwrap_err(),
            "keep must be 'none', 'start' or 'end', got \"both\""
        );
    }

    #[test]
    fn matcher_spans_become_byte_spans_in_order_inside_the_text() {
        let mut out = Vec::new();
        byte_spans("aé😀b", &[(0, 1), (1, 3), (3, 4)], &mut out).unwrap();
        assert_eq!(out, [(0, 1), (1, 7), (7, 8)]);
        for bad in [[(1, 2), (0, 1)], [(2, 1), (2, 2)], [(0, 5), (5, 5)]] {
            assert!(
                byte_spans("aé😀b", &bad, &mut Vec::new()).is_err(),
                "{bad:?}"
            );
        }
    }

    fn split(
        text: &str,
        seps: &[&str],
        regex: bool,
        keep: Keep,
        size: i64,
        overlap: i64,
    ) -> Vec<String> {
        let seps: Vec<String> = seps.iter().map(|s| s.to_string()).collect();
        let s = LangchainSplitter::new(&seps, regex, keep, size, overlap, true, None).unwrap();
        let out = s.split(text, &mut CharLen).unwrap();
        out.chunks.iter().map(|c| c.text(text).to_owned()).collect()
    }

    const DEFAULT: &[&str] = &["\n\n", "\n", " ", ""];

    #[test]
    fn sums_of_piece_lengths() {
        // " abc" is 4 long, so only the first two words fit 7 together.
        let text = "abc abc abc abc";
        assert_eq!(
            split(text, DEFAULT, false, Keep::Start, 7, 0),
            ["abc abc", "abc", "abc"]
        );
    }

    #[test]
    fn oversized_last_level_piece_is_kept_as_is() {
        let text = "ab\n  abcdefghij  ";
        let got = split(text, &["\n"], false, Keep::Start, 5, 0);
        assert_eq!(got, ["ab", "\n  abcdefghij  "]);
    }

    #[test]
    fn last_separator_when_none_matches() {
        let got = split("aaaa bbbb", &["\n\n", "|"], false, Keep::Start, 3, 0);
        assert_eq!(got, ["aaaa bbbb"]);
    }

    #[test]
    fn dropped_separators_rejoined_with_the_source() {
        let got = split("a\n\n\n\nb", &["\n\n"], false, Keep::Drop, 10, 0);
        assert_eq!(got, ["a\n\nb"]);
        let got = split("para one\n\npara two", &[r"\n\n"], true, Keep::Drop, 100, 0);
        assert_eq!(got, ["para one\\n\\npara two"]);
    }

    #[test]
    fn python_whitespace_is_stripped() {
        let got = split("\x1cab\x1f", &[" "], false, Keep::Start, 10, 0);
        assert_eq!(got, ["ab"]);
        assert_eq!(
            py_strip(" \u{3000}x\u{85}", 0, " \u{3000}x\u{85}".len()),
            (4, 5)
        );
    }

    #[test]
    fn overlap_of_whole_pieces() {
        let got = split(
            "one two three four five",
            DEFAULT,
            false,
            Keep::Start,
            10,
            5,
        );
        // As LangChain: " three" (6) + " four" (5) leaves no room for an overlap before "four".
        assert_eq!(got, ["one two", "two three", "four five"]);
    }

    #[test]
    fn lookahead_separators() {
        let got = split("Hi. Ho. Ha.", &[r"(?<=\.) "], true, Keep::Drop, 4, 0);
        assert_eq!(got, ["Hi.", "Ho.", "Ha."]);
    }

    /// A caller's matcher for `\w+`-like separators: runs of ASCII letters (as Python's `re` would report them).
    struct Letters {
        searched: usize,
    }

    impl Matches for Letters {
        type Error = ();
        fn search(&mut self, _: usize, hay: &str) -> Result<bool, ()> {
            self.searched += 1;
            Ok(hay.bytes().any(|b| b.is_ascii_alphabetic()))
        }
        fn find_all(
            &mut self,
            _: usize,
            hay: &str,
            out: &mut Vec<(usize, usize)>,
        ) -> Result<bool, ()> {
            let b = hay.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if b[i].is_ascii_alphabetic() {
                    let start = i;
                    while i < b.len() && b[i].is_ascii_alphabetic() {
                        i += 1;
                    }
                    out.push((start, i));
                } else {
                    i += 1;
                }
            }
            Ok(true)
        }
    }

    #[test]
    fn untranslated_separators_are_matched_by_the_caller() {
        let seps: Vec<String> = [r"\w+", " ", ""].iter().map(|s| s.to_string()).collect();
        let s = LangchainSplitter::new(&seps, true, Keep::Start, 4, 0, true, None).unwrap();
        assert_eq!(
            s.external_separators(),
            [(r"\w+", r"escape with a different meaning in Rust")]
        );
        // Without a caller the split needs Python.
        assert!(matches!(
            s.split("ab cd", &mut CharLen),
            Err(Failure::Fallback(_))
        ));
        let mut letters = Letters { searched: 0 };
        let text = "ab, cdefg; é";
        let out = s.split_with(text, &mut CharLen, &mut letters).unwrap();
        let got: Vec<&str> = out.chunks.iter().map(|c| c.text(text)).collect();
        // As re.split(r"(\w+)") with the separator kept at the start of the next piece: "ab, " and "cdefg; é",
        // both too long, so split again by " " (and "cdefg;" by chars), merged up to 4 chars.
        assert_eq!(got, ["ab,", "cdef", "g;", "é"]);
        assert_eq!(letters.searched, 1);
    }

    #[test]
    fn start_index_like_langchain() {
        let text = "chunk chunk chunk";
        let seps: Vec<String> = DEFAULT.iter().map(|s| s.to_string()).collect();
        let s = LangchainSplitter::new(&seps, false, Keep::Start, 5, 2, true, None).unwrap();
        let out = s.split(text, &mut CharLen).unwrap();
        let texts: Vec<&str> = out.chunks.iter().map(|c| c.text(text)).collect();
        assert_eq!(texts, ["chunk", "chun", "unk", "chun", "unk"]);
        assert_eq!(start_indices(text, &out.chunks, 2), [0, 6, 8, 12, 14]);
    }
}
