//! Sizes in tokens: the piece-and-memo count equals the tokenizer's own count, and every strategy keeps chunks
//! within the size in exact tokens. The built-in tiktoken encodings need no files; the corpus is the repository's
//! tests/data.

mod common;

use std::sync::Arc;

use chunkwise_core::boundary::is_grapheme_boundary;
use chunkwise_core::{CountFn, PieceRule, Splitter, SplitterConfig, Strategy, TokenCounter, Unit};

fn corpus() -> Vec<String> {
    let mut texts = vec![EDGES.to_owned()];
    texts.extend(common::corpus(60_000).into_iter().map(|(_, t)| t));
    texts
}

/// What breaks naive token sums: space runs, digit runs, contractions, CJK with punctuation, emoji, CRLF.
const EDGES: &str = "It's  a test:   12345678901234567890 and 3.14159!!\n\n\
    中文，测试。日本語、テスト！한국어 텍스트.  👨‍👩‍👧‍👦🙂 e\u{301}t\u{e9}\r\n\
    \ttabs\u{a0}and\u{3000}spaces     end.   \n   \n(brackets) [x] {y} <z> \"quotes\" 'single' ... --- ***\n\
    aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n";

/// Random char-boundary ranges of `text`, from a fixed seed.
fn ranges(text: &str, n: usize, max_len: usize) -> Vec<(usize, usize)> {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D ^ text.len() as u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let snap = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    (0..n)
        .map(|_| {
            let a = snap((next() % text.len().max(1) as u64) as usize);
            let b = snap((a + (next() % (max_len as u64 + 1)) as usize).min(text.len()));
            (a, b)
        })
        .collect()
}

#[test]
fn piece_sums_equal_the_tokenizers_own_count() {
    for name in ["cl100k_base", "o200k_base", "r50k_base", "p50k_base"] {
        let counter = TokenCounter::tiktoken(name).unwrap();
        assert_eq!(
            counter.rule(),
            PieceRule::Spaces { cjk_punct: true },
            "{name}: the rule check failed"
        );
        assert_eq!(
            counter.newline_cuts(),
            matches!(name, "cl100k_base" | "o200k_base"),
            "{name}: cuts after line breaks"
        );
        let bpe = match name {
            "cl100k_base" => tiktoken_rs::cl100k_base_singleton(),
            "o200k_base" => tiktoken_rs::o200k_base_singleton(),
            "r50k_base" => tiktoken_rs::r50k_base_singleton(),
            _ => tiktoken_rs::p50k_base_singleton(),
        };
        for text in corpus() {
            for (a, b) in ranges(&text, 300, 3000) {
                let s = &text[a..b];
                let own = bpe.encode_ordinary(s).len();
                assert_eq!(counter.count_direct(s), own, "{name}: {s:?}");
                assert_eq!(counter.count(s), own, "{name}: {s:?}");
            }
        }
    }
}

#[test]
fn unknown_names_are_refused_with_the_list() {
    let err = TokenCounter::tiktoken("cl100k").unwrap_err().to_string();
    assert!(
        err.contains("encoding must be one of") && err.contains("'o200k_base'"),
        "{err}"
    );
}

fn check(splitter: &Splitter, counter: &TokenCounter, text: &str, size: usize, overlap: usize) {
    let spans = splitter.split(text).unwrap();
    let mut prev_end = 0;
    for (i, s) in spans.iter().enumerate() {
        assert!(is_grapheme_boundary(text, s.start) && is_grapheme_boundary(text, s.end));
        let piece = &text[s.start..s.end];
        let exact = counter.count_direct(piece) + counter.specials();
        assert_eq!(s.size, exact, "size field of chunk {i}: {piece:?}");
        let one_cluster =
            unicode_segmentation::UnicodeSegmentation::graphemes(piece, true).count() == 1;
        assert!(exact <= size || one_cluster, "{exact} > {size}: {piece:?}");
        if i > 0 && s.start < prev_end {
            let tail = counter.count_direct(&text[s.start..prev_end]);
            assert!(tail <= overlap, "overlap of {tail} > {overlap}");
        }
        assert!(piece.trim() == piece);
        prev_end = s.end;
    }
    // No content lost.
    let kept: String = spans
        .iter()
        .map(|s| &text[s.start..s.end])
        .collect::<Vec<_>>()
        .concat();
    let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).count();
    if overlap == 0 {
        assert_eq!(strip(&kept), strip(text));
    }
}

#[test]
fn every_strategy_fits_in_exact_tokens() {
    let counter = Arc::new(TokenCounter::tiktoken("cl100k_base").unwrap());
    for strategy in [
        Strategy::Recursive,
        Strategy::Sentence,
        Strategy::Paragraph,
        Strategy::Fixed,
    ] {
        for (size, overlap) in [(64, 0), (200, 20), (16, 4)] {
            let mut config = SplitterConfig::new(strategy, size);
            config.overlap = overlap;
            config.unit = Unit::Tokens;
            config.tokenizer = Some(counter.clone());
            if strategy == Strategy::Fixed {
                config.snap = size / 4;
            }
            let splitter = Splitter::new(config).unwrap();
            for text in corpus() {
                let mut cut = text.len().min(20_000);
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                check(&splitter, &counter, &text[..cut], size, overlap);
            }
        }
    }
}

/// A made-up tokenizer that is not additive at all: one token per two characters of each word.
#[derive(Debug)]
struct HalfWords;

impl CountFn for HalfWords {
    fn count(&self, text: &str) -> usize {
        text.split_whitespace()
            .map(|w| w.chars().count().div_ceil(2))
            .sum()
    }
}

#[test]
fn a_counter_of_whole_texts_is_exact_too() {
    let counter = Arc::new(TokenCounter::external(Arc::new(HalfWords), "half words"));
    for strategy in [Strategy::Recursive, Strategy::Fixed] {
        let mut config = SplitterConfig::new(strategy, 40);
        config.unit = Unit::Tokens;
        config.tokenizer = Some(counter.clone());
        let splitter = Splitter::new(config).unwrap();
        for text in corpus() {
            let mut cut = text.len().min(8_000);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            check(&splitter, &counter, &text[..cut], 40, 0);
        }
    }
}

#[test]
fn tokens_need_a_tokenizer_and_a_tokenizer_needs_tokens() {
    let mut config = SplitterConfig::new(Strategy::Recursive, 10);
    config.unit = Unit::Tokens;
    let err = Splitter::new(config).unwrap_err().to_string();
    assert!(err.contains("needs a tokenizer"), "{err}");
    let mut config = SplitterConfig::new(Strategy::Recursive, 10);
    config.tokenizer = Some(Arc::new(TokenCounter::tiktoken("gpt2").unwrap()));
    let err = Splitter::new(config).unwrap_err().to_string();
    assert!(err.contains("unit='tokens'"), "{err}");
}

/// A WordPiece that knows only "b": every other word is one `[UNK]`, however long.
const UNK_ONLY: &str = r###"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
    "normalizer":null,"pre_tokenizer":{"type":"BertPreTokenizer"},"post_processor":null,"decoder":null,
    "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
    "max_input_chars_per_word":100,"vocab":{"[UNK]":0,"b":1}}}"###;

#[test]
fn chunks_in_tokens_are_capped_in_characters() {
    use chunkwise_core::size::MaxChars;
    let counter = Arc::new(TokenCounter::from_hf_json(UNK_ONLY, false).unwrap());
    let text = "a".repeat(100_000) + " b b b";
    let build = |max_chars| {
        let mut config = SplitterConfig::new(Strategy::Recursive, 16);
        config.unit = Unit::Tokens;
        config.tokenizer = Some(counter.clone());
        config.max_chars = max_chars;
        Splitter::new(config)
    };
    // The default: 64 characters a token, and each chunk reports its exact count.
    let spans = build(MaxChars::Auto).unwrap().split(&text).unwrap();
    assert_eq!(spans.len(), 98);
    for s in &spans {
        assert!(text[s.start..s.end].chars().count() <= 16 * 64);
        assert_eq!(s.size, counter.count(&text[s.start..s.end]));
    }
    assert_eq!(spans.last().unwrap().size, 4); // "aa…a b b b": one [UNK] and three "b"
    let spans = build(MaxChars::Limit(100)).unwrap().split(&text).unwrap();
    assert!(spans.iter().all(|s| s.end - s.start <= 100));
    assert_eq!(build(MaxChars::Off).unwrap().split(&text).unwrap().len(), 1);
    let err = build(MaxChars::Limit(15)).unwrap_err().to_string();
    assert!(
        err.contains("max_chars must be >= size (16), got 15"),
        "{err}"
    );
    let mut config = SplitterConfig::new(Strategy::Recursive, 16);
    config.max_chars = MaxChars::Limit(100);
    let err = Splitter::new(config).unwrap_err().to_string();
    assert!(
        err.contains("max_chars caps chunks measured in tokens"),
        "{err}"
    );
}

/// Runs with no space (a letter repeated, one long word, digits, punctuation, CJK) and words longer than a chunk,
/// between prose: long pieces are counted from their token ends, kept from window to window, and every chunk still
/// holds what the tokenizer itself counts.
#[test]
fn long_pieces_fit_in_exact_tokens() {
    let prose = &corpus()[1][..3000];
    let words: String = (0..40)
        .map(|i| {
            format!(
                "{} {} ",
                "xyzzy".repeat(10 + 7 * i),
                "-".repeat(100 + 20 * i)
            )
        })
        .collect();
    let runs = [
        "a".repeat(30_000),
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(600),
        "1234567890".repeat(2000),
        "!\"#$%&'()*+,-./:;<=>?@[]^_{|}~".repeat(600),
        "中文的句子還有日本語のテキスト한국어".repeat(400),
        words,
    ];
    for name in ["cl100k_base", "o200k_base", "r50k_base"] {
        let counter = Arc::new(TokenCounter::tiktoken(name).unwrap());
        for (strategy, size, overlap) in [
            (Strategy::Recursive, 16, 0),
            (Strategy::Recursive, 256, 0),
            (Strategy::Recursive, 64, 8),
            (Strategy::Fixed, 100, 10),
        ] {
            let mut config = SplitterConfig::new(strategy, size);
            config.overlap = overlap;
            config.unit = Unit::Tokens;
            config.tokenizer = Some(counter.clone());
            let splitter = Splitter::new(config).unwrap();
            for run in &runs {
                let text = format!("{prose}{run} {prose}");
                check(&splitter, &counter, &text, size, overlap);
            }
        }
    }
}

/// A chunk of a run with no space is as full as its size allows: nothing cut the search for its end short.
#[test]
fn chunks_of_a_run_are_full() {
    let text = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(2000);
    for (name, size) in [("cl100k_base", 256), ("o200k_base", 64), ("r50k_base", 100)] {
        let counter = Arc::new(TokenCounter::tiktoken(name).unwrap());
        let mut config = SplitterConfig::new(Strategy::Recursive, size);
        config.unit = Unit::Tokens;
        config.tokenizer = Some(counter.clone());
        let spans = Splitter::new(config).unwrap().split(&text).unwrap();
        let (last, full) = spans.split_last().unwrap();
        for s in full {
            assert!(s.size + 2 >= size, "{name}: {} of {size} tokens", s.size);
        }
        assert!(last.size <= size);
    }
}
