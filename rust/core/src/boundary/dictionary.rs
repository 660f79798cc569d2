//! Words of the scripts written without spaces that UAX #29 leaves to a dictionary: Thai, Lao, Khmer and Myanmar.
//! UAX #29 breaks between every two of their characters, so without this a cut at word level falls inside a word.
//! ICU4X's dictionary segmenter (its data compiled in) reads each run of these scripts; the rest of the text never
//! reaches it, so Latin and CJK text cost one byte search more (their word rules are in `word` and `chars`).

use icu_provider::prelude::{
    DataError, DataErrorKind, DataMarker, DataProvider, DataRequest, DataResponse,
};
use icu_segmenter::options::WordBreakOptions;
use icu_segmenter::provider::{
    Baked, SegmenterBreakGraphemeClusterV1, SegmenterBreakWordOverrideV1, SegmenterBreakWordV1,
    SegmenterDictionaryAutoV2, SegmenterDictionaryExtendedV2,
};
use icu_segmenter::WordSegmenter;

/// ICU4X's compiled data without its Chinese and Japanese dictionary, which CJK text never reaches here (CJK words
/// are UAX #29's, one ideograph each) and which would be most of the data linked into the extension: the segmenter
/// asks for it and is told there is none.
struct SoutheastAsian;

impl DataProvider<SegmenterDictionaryAutoV2> for SoutheastAsian {
    fn load(&self, req: DataRequest) -> Result<DataResponse<SegmenterDictionaryAutoV2>, DataError> {
        Err(DataErrorKind::IdentifierNotFound.with_req(SegmenterDictionaryAutoV2::INFO, req))
    }
}

/// The other data the dictionary segmenter reads, as compiled in.
macro_rules! compiled {
    ($($marker:ty),*) => {$(
        impl DataProvider<$marker> for SoutheastAsian {
            fn load(&self, req: DataRequest) -> Result<DataResponse<$marker>, DataError> {
                Baked.load(req)
            }
        }
    )*};
}
compiled!(
    SegmenterDictionaryExtendedV2,
    SegmenterBreakWordV1,
    SegmenterBreakWordOverrideV1,
    SegmenterBreakGraphemeClusterV1
);

thread_local! {
    /// The dictionary segmenter of ICU4X, with the dictionaries of Thai, Lao, Khmer and Myanmar (one per thread:
    /// its data handles are not shared between threads).
    static SEGMENTER: WordSegmenter =
        WordSegmenter::try_new_dictionary_unstable(&SoutheastAsian, WordBreakOptions::default())
            .expect("the data is compiled in, and a missing CJK dictionary is no error");
}

/// How far past the window a run is read on each side, in bytes: enough words (about 60 characters) for the
/// segmenter to settle on those of the whole run, however long the run is, so a long run costs linear time.
const CONTEXT: usize = 192;

/// Thai, Lao, Khmer and Myanmar, with their extensions: the scripts that need a dictionary.
#[inline]
fn is_dictionary_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x19E0..=0x19FF | 0xA9E0..=0xA9FF | 0xAA60..=0xAA7F)
}

/// Whether `bytes` (UTF-8) hold a character of [`is_dictionary_script`], read from the bytes: the test every
/// non-ASCII window of the word emitter pays.
pub(super) fn has_dictionary_script(bytes: &[u8]) -> bool {
    memchr::memchr3_iter(0xE0, 0xE1, 0xEA, bytes).any(|i| {
        let (b1, b2) = (
            bytes.get(i + 1).copied().unwrap_or(0),
            bytes.get(i + 2).copied().unwrap_or(0),
        );
        match bytes[i] {
            0xE0 => matches!(b1, 0xB8..=0xBB),
            0xE1 => {
                matches!(b1, 0x80 | 0x81 | 0x9E | 0x9F)
                    || (b1 == 0x82 && b2 < 0xA0)
                    || (b1 == 0xA7 && b2 >= 0xA0)
            }
            _ => (b1 == 0xA7 || b1 == 0xA9) && b2 >= 0xA0,
        }
    })
}

/// The words of `text[from..to]` as (offset in the window, word), covering it: UAX #29 words, and inside runs of
/// [`is_dictionary_script`] the dictionary's words. A run crossing an edge of the window is read past it (up to
/// [`CONTEXT`] bytes), so the window sees the words of the text, not those of a run cut short.
pub(super) fn words(text: &str, from: usize, to: usize) -> Vec<(usize, &str)> {
    use unicode_segmentation::UnicodeSegmentation;
    let mut cuts = Vec::new();
    let push_words = |start: usize, end: usize, cuts: &mut Vec<usize>| {
        cuts.extend(
            text[start..end]
                .split_word_bound_indices()
                .map(|(i, _)| start + i),
        );
    };
    let mut done = from;
    let mut chars = text[from..to].char_indices().map(|(i, c)| (from + i, c));
    while let Some((run_start, _)) = chars.by_ref().find(|&(_, c)| is_dictionary_script(c)) {
        let run_end = chars
            .by_ref()
            .find(|&(_, c)| !is_dictionary_script(c))
            .map_or(to, |(i, _)| i);
        push_words(done, run_start, &mut cuts);
        dictionary_words(text, run_start, run_end, &mut cuts);
        // The character that ended the run (consumed by the search) starts the next stretch.
        done = run_end;
    }
    push_words(done, to, &mut cuts);
    cuts.dedup();
    cuts.push(to);
    cuts.windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| (w[0] - from, &text[w[0]..w[1]]))
        .collect()
}

/// The starts of the dictionary words of the run `text[start..end]` (in the window), the run read on past the
/// window's edges as far as it goes, up to [`CONTEXT`] bytes.
fn dictionary_words(text: &str, start: usize, end: usize, cuts: &mut Vec<usize>) {
    let mut lo = start;
    for c in text[..start]
        .chars()
        .rev()
        .take_while(|&c| is_dictionary_script(c))
    {
        if start - lo >= CONTEXT {
            break;
        }
        lo -= c.len_utf8();
    }
    let hi = end
        + text[end..]
            .chars()
            .take_while(|&c| is_dictionary_script(c))
            .scan(0, |len, c| {
                *len += c.len_utf8();
                (*len <= CONTEXT).then_some(c.len_utf8())
            })
            .sum::<usize>();
    cuts.push(start);
    SEGMENTER.with(|segmenter| {
        cuts.extend(
            segmenter
                .as_borrowed()
                .segment_str(&text[lo..hi])
                .map(|i| lo + i)
                .filter(|&p| p > start && p < end),
        );
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_found_on_their_bytes() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let s = c.encode_utf8(&mut buf);
            assert_eq!(
                has_dictionary_script(s.as_bytes()),
                is_dictionary_script(c),
                "{c:?}"
            );
        }
    }

    #[test]
    fn runs_read_by_the_dictionary() {
        // ICU4X's own example: "ทุกสองสัปดาห์" is three words.
        let text = "ทุกสองสัปดาห์";
        let starts: Vec<usize> = words(text, 0, text.len()).iter().map(|w| w.0).collect();
        assert_eq!(starts, vec![0, 9, 18]);
        // Latin around the run keeps its UAX #29 words.
        let text = "Go ทุกสองสัปดาห์ now";
        let got: Vec<&str> = words(text, 0, text.len()).iter().map(|w| w.1).collect();
        assert_eq!(got, vec!["Go", " ", "ทุก", "สอง", "สัปดาห์", " ", "now"]);
    }

    #[test]
    fn a_window_inside_a_run_sees_the_runs_words() {
        let text = "ทุกสองสัปดาห์";
        // From inside "สอง" to inside "สัปดาห์": the word start between them, nothing cut short.
        let got: Vec<usize> = words(text, 12, 27).iter().map(|w| 12 + w.0).collect();
        assert_eq!(got, vec![12, 18]);
    }
}
