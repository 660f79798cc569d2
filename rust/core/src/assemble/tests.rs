//! The engine's edge cases, each with the exact spans it must give. Built through the public splitter: it is the
//! engine with the emitters and levels of a strategy.

use crate::boundary::next_grapheme_boundary;
use crate::{Level, Span, Splitter, SplitterConfig, Strategy};

/// A configuration of `strategy` at `size` chars, changed by `with`.
fn config(
    strategy: Strategy,
    size: usize,
    with: impl FnOnce(&mut SplitterConfig),
) -> SplitterConfig {
    let mut c = SplitterConfig::new(strategy, size);
    with(&mut c);
    c
}

/// The spans of `text`, after checking what holds for every span: a non-empty slice at char boundaries, the size
/// the sizer gives it (chars here), within the size unless it is one grapheme cluster.
fn split(config: SplitterConfig, text: &str) -> Vec<Span> {
    let size = config.size.expect("a size");
    let spans = Splitter::new(config).unwrap().split(text).unwrap();
    for s in &spans {
        assert!(s.start < s.end && s.end <= text.len(), "{s:?}");
        let slice = text.get(s.start..s.end).expect("span on char boundaries");
        assert_eq!(s.size, slice.chars().count(), "{s:?}");
        let one_cluster = next_grapheme_boundary(text, s.start) == s.end;
        assert!(s.size <= size || one_cluster, "{s:?} over {size}");
    }
    spans
}

/// The (start, end) of each span.
fn ranges(spans: &[Span]) -> Vec<(usize, usize)> {
    spans.iter().map(|s| (s.start, s.end)).collect()
}

fn greedy(size: usize) -> SplitterConfig {
    config(Strategy::Recursive, size, |_| {})
}

fn fixed(size: usize) -> SplitterConfig {
    config(Strategy::Fixed, size, |_| {})
}

#[test]
fn empty_text_has_no_chunks() {
    for trim in [true, false] {
        for strategy in [Strategy::Recursive, Strategy::Sentence, Strategy::Fixed] {
            let c = || config(strategy, 4, |c| c.trim = trim);
            assert_eq!(split(c(), ""), [], "{strategy:?} trim={trim}");
        }
    }
    // Nothing but whitespace (and a byte order mark) is no content once trimmed.
    assert_eq!(split(greedy(4), "\u{feff} \n\n\t "), []);
    assert_eq!(split(fixed(4), "\u{feff} \n\n\t "), []);
}

#[test]
fn a_char_is_never_cut() {
    // "é" is two bytes and one unit: at size 1, each is a chunk of its own.
    for c in [greedy(1), fixed(1)] {
        let spans = split(c, "éé");
        assert_eq!(ranges(&spans), [(0, 2), (2, 4)]);
        assert_eq!(spans[1].level, Level::END);
    }
}

#[test]
fn a_grapheme_cluster_is_never_cut() {
    // A family emoji: three people joined by ZWJ, one cluster of five chars (18 bytes). Larger than the size, it is
    // a chunk of its own, never split between its chars.
    let family = "👩\u{200d}👩\u{200d}👧";
    let text = family.repeat(2);
    for c in [greedy(1), greedy(3), fixed(1), fixed(3)] {
        let spans = split(c, &text);
        assert_eq!(ranges(&spans), [(0, 18), (18, 36)]);
        assert_eq!(spans.iter().map(|s| s.size).collect::<Vec<_>>(), [5, 5]);
    }
    // A combining mark stays with its letter, in fixed windows too.
    let spans = split(fixed(2), "e\u{301}e\u{301}e\u{301}");
    assert_eq!(ranges(&spans), [(0, 3), (3, 6), (6, 9)]);
}

#[test]
fn a_closing_quote_stays_with_its_sentence() {
    // "「你好。」" is five chars: the sentence ends after the quote, not after "。", so it fills a chunk of 5
    // exactly. Cut after "。", the chunks would be "「你好。" and "」他走了。".
    let text = "「你好。」他走了。";
    for strategy in [Strategy::Recursive, Strategy::Sentence] {
        let spans = split(config(strategy, 5, |_| {}), text);
        assert_eq!(ranges(&spans), [(0, 15), (15, 27)], "{strategy:?}");
        assert_eq!(spans[0].level, Level::SENTENCE);
    }
}

#[test]
fn crlf_is_never_cut() {
    // "\r\n" is one cluster: at size 3, a cut after "ab\r" moves back before it.
    let text = "ab\r\ncd";
    assert_eq!(ranges(&split(greedy(3), text)), [(0, 2), (4, 6)]);
    assert_eq!(ranges(&split(fixed(3), text)), [(0, 2), (4, 6)]);
    let untrimmed = |strategy| config(strategy, 3, |c| c.trim = false);
    assert_eq!(
        ranges(&split(untrimmed(Strategy::Recursive), text)),
        [(0, 2), (2, 4), (4, 6)]
    );
    assert_eq!(
        ranges(&split(untrimmed(Strategy::Fixed), text)),
        [(0, 2), (2, 5), (5, 6)]
    );
}

#[test]
fn an_overlap_never_emits_a_chunk_again() {
    // After "aaaa bbbb", an overlap of "bbbb" cannot take "cccccccc" along: the chunk from it would end where the
    // first one did, so the next chunk starts after the first instead.
    let overlapping = |size, overlap| config(Strategy::Recursive, size, |c| c.overlap = overlap);
    assert_eq!(
        ranges(&split(overlapping(10, 5), "aaaa bbbb cccccccc")),
        [(0, 9), (10, 18)]
    );
    // Where the next piece fits with the overlap, the overlap is kept.
    assert_eq!(
        ranges(&split(overlapping(10, 5), "aaaa bbbb cc dd")),
        [(0, 9), (5, 15)]
    );
    // Whatever the overlap, every chunk brings new content: starts and ends strictly increase.
    let text = "One two three. Four five, six seven eight nine.\n\nTen elevenandtwelve thirteen. \
                Fourteen fifteen sixteen seventeen, eighteen nineteen twenty.";
    for size in [6, 10, 17, 30] {
        for overlap in 1..size {
            for strategy in [Strategy::Recursive, Strategy::Fixed] {
                let spans = split(config(strategy, size, |c| c.overlap = overlap), text);
                for w in spans.windows(2) {
                    assert!(
                        w[0].start < w[1].start && w[0].end < w[1].end,
                        "{strategy:?} size={size} overlap={overlap}: {w:?}"
                    );
                }
                assert_eq!(spans.last().unwrap().end, text.len());
            }
        }
    }
}

#[test]
fn a_fixed_cut_snaps_back_within_snap() {
    let text = "The cat sat. On the mat it lay.";
    let snapped = |snap| ranges(&split(config(Strategy::Fixed, 18, |c| c.snap = snap), text));
    // No snap: the most chars that fit, here inside "the".
    assert_eq!(snapped(0), [(0, 18), (18, 31)]);
    // The sentence boundary is 5 chars back ("On th"): out of reach of 3; the start of "the" is not.
    assert_eq!(snapped(3), [(0, 15), (16, 31)]);
    // Within 10, the stronger boundary wins over the nearer one.
    assert_eq!(snapped(10), [(0, 12), (13, 31)]);
}
