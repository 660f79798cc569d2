//! WordPiece's count of a word, without the tokenizer's pipeline.
//!
//! Through `tokenizers`, a word new to the memo goes through the added-vocabulary split, the normalizer and the
//! pre-tokenizer, each building `NormalizedString`s with their alignments, then WordPiece, which looks up every
//! candidate sub-word from the longest down as a new `String` (`"##" + rest`): microseconds a word, most of the
//! held-out cost of a BERT tokenizer. [`Words::count`] does the same work on a word of one pre-token directly: it
//! normalizes the word a character at a time from a table of what the tokenizer's own normalizer makes of each
//! character, and finds WordPiece's sub-words as the longest prefixes in two tries of the vocabulary (the tokens a
//! word starts with, and those after `##`): the same tokens, hence the same count. Other text is left to the
//! tokenizer.
//!
//! Normalizing a character at a time is what the normalizers allowed here do to a whole word, with two exceptions
//! that the table excludes. BERT's normalizer removes control characters and maps whitespace to a space, puts
//! spaces around Han characters, and (stripping accents) decomposes (NFD) and removes the nonspacing marks, then
//! lowercases, each step character by character (`NormalizedString::lowercase` maps each character with
//! `char::to_lowercase`, without the final sigma's context) but NFD's canonical reordering of combining marks,
//! which moves a mark of non-zero combining class past its neighbours across characters. A character is in the
//! table only if what is left of it holds no such mark: then the only characters reordering can move in a word are
//! nonspacing marks the strip removes, in any order. The table also leaves out every character that is whitespace
//! or punctuation to the pre-tokenizer, before or after normalizing, and those the normalizer turns into such
//! (a Han character becomes a word between spaces), so that a word of table characters is one pre-token, but for
//! punctuation that stays one such character, which the table marks as a word of its own ([`Fate::Alone`]); and
//! characters past the Basic Multilingual Plane, to keep the table small. It is filled 256 characters at a time on
//! first use, by the normalizer and pre-tokenizer themselves.
//!
//! Exactness is tested against `tokenizers` on generated words and on the words of the corpus (`tests` below,
//! `tests/hf_count.rs`, and the token fuzz of the Python tests).

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use serde_json::Value;
use tokenizers::{
    NormalizedString, Normalizer, NormalizerWrapper, OffsetReferential, OffsetType,
    PreTokenizedString, PreTokenizer, PreTokenizerWrapper, Tokenizer,
};
use unicode_normalization_alignments::char::canonical_combining_class;

use super::pieces::is_han;

/// A trie of tokens over their characters: edges in one hash map keyed by `node << 21 | char`, the nodes that end a
/// token marked.
struct Trie {
    edges: FxHashMap<u64, u32>,
    ends: Vec<bool>,
}

impl Trie {
    fn new() -> Self {
        Self {
            edges: FxHashMap::default(),
            ends: vec![false],
        }
    }

    /// Adds `token` unless a word cannot hold it: empty, or with whitespace or ASCII punctuation (the pre-tokenizer
    /// splits at both).
    fn insert(&mut self, token: &str) {
        if token.is_empty()
            || token
                .chars()
                .any(|c| c.is_whitespace() || c.is_ascii_punctuation())
        {
            return;
        }
        let mut node = 0u32;
        for c in token.chars() {
            let next = self.ends.len() as u32;
            node = *self
                .edges
                .entry(u64::from(node) << 21 | u64::from(c))
                .or_insert_with(|| {
                    self.ends.push(false);
                    next
                });
        }
        self.ends[node as usize] = true;
    }

    /// The end of the longest token that `word[from..]` starts with, if any: WordPiece tries the sub-words from the
    /// longest down, a character shorter each time.
    #[inline]
    fn longest(&self, word: &[char], from: usize) -> Option<usize> {
        let mut node = 0u32;
        let mut best = None;
        for (i, &c) in word[from..].iter().enumerate() {
            match self.edges.get(&(u64::from(node) << 21 | u64::from(c))) {
                Some(&next) => node = next,
                None => break,
            }
            if self.ends[node as usize] {
                best = Some(from + i + 1);
            }
        }
        best
    }
}

/// A character left out of the table (see the module's text).
const OUT: u32 = u32::MAX;
/// A character that is a word of its own (see [`Fate::Alone`]). (No span is this: spans end below `1 << 24`.)
const ALONE: u32 = u32::MAX - 1;

/// What the normalizer and pre-tokenizer make of a character in a word.
enum Fate<'a> {
    /// It stays in the word as these characters (none: removed).
    Chars(&'a [char]),
    /// Punctuation to the pre-tokenizer (“ ” … – ・, not ASCII): it ends the word before it, is a word of one
    /// character (what the normalizer makes of it), which WordPiece gives one token (that character's or the
    /// unknown one), and starts the word after it. Such characters held a piece together (BERT's rule cuts only at
    /// ASCII and CJK punctuation), and each piece holding one went through the tokenizer's pipeline: a fifth of a
    /// held-out split of Chinese text.
    Alone,
    /// Left to the tokenizer.
    Out,
}

/// What the normalizer makes of 256 consecutive characters: for each, [`OUT`], [`ALONE`] or its characters in
/// `chars`, as `start << 8 | len`.
struct Block {
    spans: Vec<u32>,
    chars: Vec<char>,
}

/// The normalizer's output for each character of the Basic Multilingual Plane that a word may hold, worked out by
/// the tokenizer's own normalizer and pre-tokenizer a block at a time, on first use.
struct Table {
    normalizer: Option<NormalizerWrapper>,
    pre_tokenizer: PreTokenizerWrapper,
    blocks: Vec<OnceLock<Block>>,
    /// Whether a character may be [`Fate::Alone`]: no added token holds a character that is not ASCII, so none can
    /// match across one (and a piece of BERT's rule holds no ASCII punctuation or whitespace).
    alone: bool,
}

impl Table {
    fn new(normalizer: Option<NormalizerWrapper>, pre_tokenizer: PreTokenizerWrapper) -> Self {
        Self {
            normalizer,
            pre_tokenizer,
            blocks: (0..256).map(|_| OnceLock::new()).collect(),
            alone: false,
        }
    }

    /// What the normalizer and pre-tokenizer make of `c` in a word.
    #[inline]
    fn of(&self, c: char) -> Fate<'_> {
        let code = c as usize;
        let Some(block) = self.blocks.get(code >> 8) else {
            return Fate::Out;
        };
        let block = block.get_or_init(|| self.block(code >> 8));
        match block.spans[code & 0xFF] {
            OUT => Fate::Out,
            ALONE => Fate::Alone,
            span => {
                let start = (span >> 8) as usize;
                block
                    .chars
                    .get(start..start + (span & 0xFF) as usize)
                    .map_or(Fate::Out, Fate::Chars)
            }
        }
    }

    fn block(&self, index: usize) -> Block {
        let mut spans = Vec::with_capacity(256);
        let mut chars = Vec::new();
        for low in 0..256 {
            let c = u32::try_from(index << 8 | low)
                .ok()
                .and_then(char::from_u32);
            let normalized = c
                .and_then(|c| self.normalize(c))
                .filter(|n| n.len() < 256 && chars.len() + n.len() < 1 << 24);
            spans.push(match normalized {
                Some(n) => {
                    let span = (chars.len() as u32) << 8 | n.len() as u32;
                    chars.extend(n);
                    span
                }
                // Asked only of the few characters a word cannot hold (the pre-tokenizer is asked twice more).
                None if c.is_some_and(|c| self.is_alone(c)) => ALONE,
                None => OUT,
            });
        }
        Block { spans, chars }
    }

    /// The normalizer's output for `c` if a word may hold `c` (see the module's text).
    fn normalize(&self, c: char) -> Option<Vec<char>> {
        // Added tokens are matched in the original text too: `c` itself must not be punctuation or whitespace.
        if !self.one_word(&c.to_string()) {
            return None;
        }
        let normalized = match &self.normalizer {
            None => c.to_string(),
            Some(normalizer) => {
                let mut n = NormalizedString::from(c.to_string());
                normalizer.normalize(&mut n).ok()?;
                n.get().to_owned()
            }
        };
        let keeps_mark = normalized
            .chars()
            .any(|c| canonical_combining_class(c) != 0);
        // Removed altogether (a control character, a lone nonspacing mark) is fine: the rest of the word decides.
        (!keeps_mark && (normalized.is_empty() || self.one_word(&normalized)))
            .then(|| normalized.chars().collect())
    }

    /// Whether `c` is [`Fate::Alone`]: not ASCII, and the normalizer makes it one character without a mark that
    /// the pre-tokenizer isolates between letters and next to itself (punctuation, not whitespace), as is `c`.
    fn is_alone(&self, c: char) -> bool {
        if !self.alone || c.is_ascii() {
            return false;
        }
        let normalized = match &self.normalizer {
            None => c.to_string(),
            Some(normalizer) => {
                let mut n = NormalizedString::from(c.to_string());
                if normalizer.normalize(&mut n).is_err() {
                    return false;
                }
                n.get().to_owned()
            }
        };
        let mut chars = normalized.chars();
        let (Some(n), None) = (chars.next(), chars.next()) else {
            return false;
        };
        !n.is_ascii() && canonical_combining_class(n) == 0 && self.isolates(c) && self.isolates(n)
    }

    /// Whether the pre-tokenizer cuts `x{c}{c}x` into `x`, `c`, `c`, `x`.
    fn isolates(&self, c: char) -> bool {
        let text = format!("x{c}{c}x");
        let mut pre = PreTokenizedString::from(text.as_str());
        if self.pre_tokenizer.pre_tokenize(&mut pre).is_err() {
            return false;
        }
        let c = c.to_string();
        let splits = pre.get_splits(OffsetReferential::Original, OffsetType::Byte);
        splits.len() == 4
            && splits
                .iter()
                .map(|(s, _, _)| *s)
                .eq(["x", c.as_str(), c.as_str(), "x"])
    }

    /// Whether the pre-tokenizer keeps `s` twice over as one pre-token: `s` holds no whitespace (removed) and no
    /// punctuation (isolated; a single punctuation mark alone would be one pre-token, two are not).
    fn one_word(&self, s: &str) -> bool {
        let twice = format!("{s}{s}");
        let mut pre = PreTokenizedString::from(twice.as_str());
        if self.pre_tokenizer.pre_tokenize(&mut pre).is_err() {
            return false;
        }
        matches!(
            pre.get_splits(OffsetReferential::Original, OffsetType::Byte)
                .as_slice(),
            [(word, _, _)] if *word == twice
        )
    }
}

/// The longest normalized word [`Words::count`] holds (on the stack); a longer one is left to the tokenizer unless
/// WordPiece takes no word that long.
const WORD_CAP: usize = 128;

/// The words of a WordPiece tokenizer, counted without it (see the module's text).
pub(super) struct Words {
    /// What the normalizer makes of each character a word may hold.
    table: Table,
    /// Tokens a word may start with.
    starts: Trie,
    /// Tokens that continue a word, without their prefix (`##`).
    rests: Trie,
    /// Longer normalized words are one unknown token.
    max_chars: usize,
    /// The normalizer puts spaces around Han characters (BERT's `handle_chinese_chars`): no word holds one with
    /// other characters, so [`Words::count`] leaves such a text to the tokenizer without looking it up in the
    /// table, and counts a Han character alone (a piece of the `bert+han` rule) as one token: the normalizer keeps
    /// it one Han character (NFD maps a compatibility ideograph to its unified one; no case, no mark), the
    /// pre-tokenizer one word, and WordPiece gives a word of one character itself or its unknown token. (Filling
    /// the table's 82 blocks of Han characters, only to find every one left out, was a third of a held-out split
    /// of Chinese or Japanese text, and the tokenizer's count of each new character another fifth.)
    han_alone: bool,
}

impl Words {
    /// For a tokenizer.json whose pipeline normalizes a word a character at a time: WordPiece with its unknown
    /// token, BERT's pre-tokenizer, no normalizer or BERT's or a lowercasing one, and no added token a word could
    /// hold (one without whitespace or punctuation, as written or normalized); `None` for any other. `tok` is the
    /// tokenizer `config` describes.
    pub(super) fn of(config: &Value, tok: &Tokenizer) -> Option<Self> {
        let model = &config["model"];
        if model["type"] != "WordPiece" || config["pre_tokenizer"]["type"] != "BertPreTokenizer" {
            return None;
        }
        let normalizer = &config["normalizer"];
        let known = match normalizer["type"].as_str() {
            None => normalizer.is_null(),
            Some(kind) => matches!(kind, "BertNormalizer" | "Lowercase"),
        };
        if !known {
            return None;
        }
        let mut table = Table::new(
            tok.get_normalizer().cloned(),
            tok.get_pre_tokenizer()?.clone(),
        );
        let added = config["added_tokens"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        table.alone = added
            .iter()
            .all(|t| t["content"].as_str().is_some_and(str::is_ascii));
        let word_like = |token: &Value| {
            let Some(content) = token["content"].as_str() else {
                return true;
            };
            if table.one_word(content) {
                return true;
            }
            // Normalized tokens are matched in the normalized text.
            let mut normalized = NormalizedString::from(content);
            if let Some(n) = &table.normalizer {
                if n.normalize(&mut normalized).is_err() {
                    return true;
                }
            }
            table.one_word(normalized.get())
        };
        if added.iter().any(word_like) {
            return None;
        }
        let vocab = model["vocab"].as_object()?;
        let unk = model["unk_token"].as_str().unwrap_or("[UNK]");
        if !vocab.contains_key(unk) {
            return None;
        }
        let prefix = model["continuing_subword_prefix"].as_str().unwrap_or("##");
        let max_chars = model["max_input_chars_per_word"]
            .as_u64()
            .map_or(100, |n| usize::try_from(n).unwrap_or(usize::MAX));
        let (mut starts, mut rests) = (Trie::new(), Trie::new());
        for token in vocab.keys() {
            starts.insert(token);
            if let Some(rest) = token.strip_prefix(prefix) {
                rests.insert(rest);
            }
        }
        let han_alone = normalizer["type"] == "BertNormalizer"
            && normalizer["handle_chinese_chars"].as_bool().unwrap_or(true);
        Some(Self {
            table,
            starts,
            rests,
            max_chars,
            han_alone,
        })
    }

    /// The tokenizer's count of `text` (no special tokens) if it is one word of characters in the table; `None` for
    /// any other text.
    pub(super) fn count(&self, text: &str) -> Option<usize> {
        if self.han_alone {
            let mut chars = text.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                if is_han(c) {
                    return Some(1);
                }
            }
        }
        let mut word = ['\0'; WORD_CAP];
        let mut len = 0;
        let mut count = 0;
        // Whether any word or lone character was found: a text the normalizer removes altogether is left to the
        // tokenizer.
        let mut any = false;
        for c in text.chars() {
            if self.han_alone && is_han(c) {
                return None;
            }
            match self.table.of(c) {
                Fate::Chars(normalized) => {
                    for &n in normalized {
                        if let Some(slot) = word.get_mut(len) {
                            *slot = n;
                        }
                        len += 1;
                    }
                }
                Fate::Alone => {
                    count += self.word_count(&word, len)?;
                    count += 1;
                    any = true;
                    len = 0;
                }
                Fate::Out => return None,
            }
        }
        if len == 0 && !any {
            return None;
        }
        Some(count + self.word_count(&word, len)?)
    }

    /// WordPiece's count of the normalized word `word[..len]` (of `len` characters, more than `word` holds when it
    /// is longer than [`WORD_CAP`]): none for an empty word, `None` for one too long to hold that WordPiece would
    /// not call unknown.
    fn word_count(&self, word: &[char; WORD_CAP], len: usize) -> Option<usize> {
        if len == 0 {
            return Some(0);
        }
        if len > self.max_chars {
            return Some(1);
        }
        let word = word.get(..len)?;
        let mut count = 0;
        let mut from = 0;
        while from < word.len() {
            let trie = if from == 0 { &self.starts } else { &self.rests };
            match trie.longest(word, from) {
                Some(end) => {
                    count += 1;
                    from = end;
                }
                // No sub-word fits: the whole word is the unknown token.
                None => return Some(1),
            }
        }
        Some(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vocab: &str, normalizer: &str, added: &str) -> Value {
        serde_json::from_str(&format!(
            r###"{{"version":"1.0","truncation":null,"padding":null,"added_tokens":[{added}],
            "normalizer":{normalizer},"pre_tokenizer":{{"type":"BertPreTokenizer"}},"post_processor":null,
            "decoder":null,"model":{{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
            "max_input_chars_per_word":12,"vocab":{vocab}}}}}"###
        ))
        .unwrap()
    }

    const VOCAB: &str = r###"{"[UNK]":0,"un":1,"##aff":2,"##able":3,"una":4,"##ff":5,"a":6,"##a":7,"b":8,
        "##b":9,"hello":10,"h":11,"##ello":12,"x1":13,"##2":14,"é":15,"e":16,"##é":17,"##e":18,"か":19,
        "##か":20,"が":21,"##ﾞ":22,"ｶ":23,"σ":24,"##ς":25,"##σ":26,"i":27,"##i":28,"ﬁ":29,"##\u0307":30,
        "ᄒ":31,"##ᅡ":32,"##ᆫ":33,"한":34}"###;

    const NORMALIZERS: [&str; 5] = [
        "null",
        r#"{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true}"#,
        r#"{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":true,"lowercase":false}"#,
        r#"{"type":"BertNormalizer","clean_text":false,"handle_chinese_chars":false,"strip_accents":false,"lowercase":true}"#,
        r#"{"type":"Lowercase"}"#,
    ];

    fn hf(config: &Value) -> Tokenizer {
        config.to_string().parse().unwrap()
    }

    fn words(config: &Value) -> Option<Words> {
        Words::of(config, &hf(config))
    }

    #[test]
    fn counts_what_wordpiece_counts() {
        for normalizer in NORMALIZERS {
            let config = config(VOCAB, normalizer, "");
            let words = words(&config).expect("a WordPiece tokenizer of plain words");
            let tok = hf(&config);
            let mut native = 0;
            for word in [
                "unaffable",
                "unaff",
                "una",
                "un",
                "aaab",
                "ab",
                "ba",
                "Hello",
                "hello",
                "HELLO",
                "x12",
                "x122",
                "x1222222222222",
                "hellohello",
                "q",
                "aq",
                "a",
                "Unaffable",
                // Accents, precomposed and not, which stripping removes; kana, voiced and half-width.
                "é",
                "É",
                "ée",
                "e\u{301}e",
                "e\u{301}\u{323}",
                "e\u{323}\u{301}",
                "\u{301}a",
                "かが",
                "がか",
                "ｶﾞ",
                "ｶｶﾞ",
                // Sigma: capital, small, final, at the end of a word and inside it.
                "ΣΣ",
                "σΣ",
                "σς",
                "Σσ",
                // Dotted capital I (lowercased to i and a combining dot), ligatures, Hangul (decomposed to jamo).
                "İ",
                "iİ",
                "ﬁ",
                "Ǆ",
                "한",
                "한한",
                "a\u{1}b",
                "\u{1}",
                "a\u{ad}b",
                "éééééééééééé",
                "éééééééééééééé",
                // Punctuation past ASCII, a word of its own between the words it cuts, in the vocabulary or not.
                "“unaffable”",
                "“",
                "““",
                "a…",
                "un–aff",
                "una—",
                "\u{1}“",
                "“\u{1}",
                "«Hello»",
                "かが・か",
                "x1¿x12",
                "éééééééééééééé”é",
            ] {
                let expected = tok.encode(word, false).unwrap().len();
                if let Some(n) = words.count(word) {
                    assert_eq!(n, expected, "{word:?} with {normalizer}");
                    native += 1;
                }
            }
            assert!(
                native >= 30,
                "only {native} words counted natively with {normalizer}"
            );
            for punctuated in ["“unaffable”", "a…", "un–aff", "«Hello»", "かが・か"] {
                assert!(
                    words.count(punctuated).is_some(),
                    "{punctuated:?} with {normalizer}"
                );
            }
            for other in ["", "a b", "a-b", "a.", "🙂", "a\u{3000}b", "“🙂"] {
                assert_eq!(words.count(other), None, "{other:?} with {normalizer}");
            }
        }
    }

    #[test]
    fn a_han_character_alone_is_one_token() {
        // In the vocabulary or not, precomposed or a compatibility ideograph, under each normalizer that isolates
        // Han characters.
        let vocab = VOCAB.replace('}', r###","中":35,"##中":36,"豈":37}"###);
        let han = (0x3400..=0x4DBF)
            .chain(0x4E00..=0x9FFF)
            .chain(0xF900..=0xFAFF)
            .chain((0x20000..=0x2A6DF).step_by(97))
            .filter_map(char::from_u32);
        let han: Vec<String> = han.map(String::from).collect();
        for normalizer in NORMALIZERS
            .iter()
            .filter(|n| n.contains("handle_chinese_chars\":true"))
        {
            let config = config(&vocab, normalizer, "");
            let (words, tok) = (words(&config).unwrap(), hf(&config));
            assert!(words.han_alone);
            let encoded = tok.encode_batch(han.clone(), false).unwrap();
            for (c, e) in han.iter().zip(&encoded) {
                assert_eq!(words.count(c), Some(e.len()), "{c:?} with {normalizer}");
            }
            assert_eq!(words.count("中中"), None);
            assert_eq!(words.count("a中"), None);
        }
    }

    #[test]
    fn leaves_out_what_normalizes_apart() {
        let bert = config(VOCAB, NORMALIZERS[1], "");
        let bert_words = words(&bert).unwrap();
        // Han characters become words of their own (one alone is counted: see the test above); fullwidth space is
        // whitespace once cleaned.
        for other in ["中中", "a中", "a\u{3000}"] {
            assert_eq!(bert_words.count(other), None, "{other:?}");
        }
        // A kept combining mark could be reordered across characters: no stripping, so the mark stays.
        let lower = config(VOCAB, NORMALIZERS[3], "");
        let lower_words = words(&lower).unwrap();
        assert_eq!(lower_words.count("e\u{301}"), None);
        assert_eq!(lower_words.count("İ"), None);
        assert_eq!(lower_words.count("é"), Some(1));
    }

    #[test]
    fn only_pipelines_that_normalize_a_character_at_a_time() {
        assert!(words(&config(VOCAB, r#"{"type":"NFKC"}"#, "")).is_none());
        for content in ["abc", "é", "ｶﾞ"] {
            let added = format!(
                r#"{{"id":40,"content":"{content}","single_word":false,"lstrip":false,"rstrip":false,
                "normalized":true,"special":false}}"#
            );
            assert!(words(&config(VOCAB, "null", &added)).is_none(), "{content}");
        }
        let special = r#"{"id":0,"content":"[UNK]","single_word":false,"lstrip":false,"rstrip":false,
            "normalized":false,"special":true}"#;
        assert!(words(&config(VOCAB, "null", special)).is_some());
        // An added token of punctuation past ASCII could match across a piece's punctuation: it is left to the
        // tokenizer, the rest still counted.
        let quoted = r#"{"id":40,"content":"“”","single_word":false,"lstrip":false,"rstrip":false,
            "normalized":false,"special":true}"#;
        let quoting = words(&config(VOCAB, "null", quoted)).unwrap();
        assert_eq!(quoting.count("a“”b"), None);
        assert_eq!(quoting.count("ab"), Some(2));
        assert!(words(&config(r#"{"a":0}"#, "null", "")).is_none());
    }
}
