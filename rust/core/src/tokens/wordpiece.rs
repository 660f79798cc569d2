//! WordPiece's count of a word of ASCII letters and digits, without the tokenizer's pipeline.
//!
//! Through `tokenizers`, a word new to the memo goes through the added-vocabulary split, the normalizer and the
//! pre-tokenizer, each building `NormalizedString`s with their alignments, then WordPiece, which looks up every
//! candidate sub-word from the longest down as a new `String` (`"##" + rest`): microseconds a word, most of the
//! held-out cost of a BERT tokenizer. For a word of ASCII letters and digits the first three steps do nothing but
//! lowercase it (BERT's normalizer cleans control characters, isolates Han, strips accents and lowercases; its
//! pre-tokenizer splits on whitespace and punctuation), so [`Words::count`] lowercases it itself and finds
//! WordPiece's sub-words as the longest prefixes in two tries of the vocabulary's ASCII tokens: the same tokens,
//! hence the same count. Other text is left to the tokenizer.
//!
//! Exactness is tested against `tokenizers` on generated words and on the words of the corpus (`tests` below, and
//! the token fuzz of the Python tests).

use rustc_hash::FxHashMap;
use serde_json::Value;

/// The symbols of a trie's edges: ASCII letters and digits (a word holds nothing else).
fn symbol(b: u8) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'z' => Some(u32::from(b - b'a') + 10),
        b'A'..=b'Z' => Some(u32::from(b - b'A') + 36),
        _ => None,
    }
}

/// A trie of ASCII tokens: edges in one hash map keyed by `node << 6 | symbol`, the nodes that end a token marked.
#[derive(Default)]
struct Trie {
    edges: FxHashMap<u32, u32>,
    ends: Vec<bool>,
}

impl Trie {
    fn new() -> Self {
        Self {
            edges: FxHashMap::default(),
            ends: vec![false],
        }
    }

    /// Adds `token` if it is all letters and digits (no other token can be a part of such a word).
    fn insert(&mut self, token: &[u8]) {
        let Some(symbols) = token.iter().map(|&b| symbol(b)).collect::<Option<Vec<_>>>() else {
            return;
        };
        if symbols.is_empty() {
            return;
        }
        let mut node = 0u32;
        for s in symbols {
            let next = self.ends.len() as u32;
            node = *self.edges.entry(node << 6 | s).or_insert_with(|| {
                self.ends.push(false);
                next
            });
        }
        self.ends[node as usize] = true;
    }

    /// The end of the longest token that `word[from..]` starts with, if any.
    #[inline]
    fn longest(&self, word: &[u8], from: usize) -> Option<usize> {
        let mut node = 0u32;
        let mut best = None;
        for (i, &b) in word[from..].iter().enumerate() {
            let s = symbol(b)?;
            match self.edges.get(&(node << 6 | s)) {
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

/// The ASCII words of a WordPiece tokenizer, counted without it (see the module's text).
pub(super) struct Words {
    /// Tokens a word may start with.
    starts: Trie,
    /// Tokens that continue a word, without their prefix (`##`).
    rests: Trie,
    /// Longer words are one unknown token.
    max_chars: usize,
    /// The normalizer lowercases.
    lowercase: bool,
}

impl Words {
    /// For a tokenizer.json whose pipeline leaves an ASCII word to WordPiece as it is, or lowercased: WordPiece with
    /// its unknown token, BERT's pre-tokenizer, no normalizer or BERT's or a lowercasing one, and no added token a
    /// word could hold (one of letters and digits only); `None` for any other.
    pub(super) fn of(config: &Value) -> Option<Self> {
        let model = &config["model"];
        if model["type"] != "WordPiece" || config["pre_tokenizer"]["type"] != "BertPreTokenizer" {
            return None;
        }
        let normalizer = &config["normalizer"];
        let lowercase = match normalizer["type"].as_str() {
            None if normalizer.is_null() => false,
            Some("BertNormalizer") => normalizer["lowercase"].as_bool().unwrap_or(true),
            Some("Lowercase") => true,
            _ => return None,
        };
        let added = config["added_tokens"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let word_like = |t: &Value| {
            t["content"]
                .as_str()
                .is_some_and(|c| c.bytes().all(|b| b.is_ascii_alphanumeric()))
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
            starts.insert(token.as_bytes());
            if let Some(rest) = token.strip_prefix(prefix) {
                rests.insert(rest.as_bytes());
            }
        }
        Some(Self {
            starts,
            rests,
            max_chars,
            lowercase,
        })
    }

    /// The tokenizer's count of `text` (no special tokens) if it is one word of ASCII letters and digits; `None`
    /// for any other text.
    pub(super) fn count(&self, text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_alphanumeric) {
            return None;
        }
        if bytes.len() > self.max_chars {
            return Some(1);
        }
        let mut lower = [0u8; 128];
        let word = if self.lowercase && bytes.len() <= lower.len() {
            let lower = &mut lower[..bytes.len()];
            lower.copy_from_slice(bytes);
            lower.make_ascii_lowercase();
            &*lower
        } else if self.lowercase {
            return None;
        } else {
            bytes
        };
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
        "##b":9,"hello":10,"h":11,"##ello":12,"x1":13,"##2":14,"é":15}"###;

    fn hf(config: &Value) -> tokenizers::Tokenizer {
        config.to_string().parse().unwrap()
    }

    #[test]
    fn counts_what_wordpiece_counts() {
        for normalizer in [
            "null",
            r#"{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true}"#,
            r#"{"type":"Lowercase"}"#,
        ] {
            let config = config(VOCAB, normalizer, "");
            let words = Words::of(&config).expect("a WordPiece tokenizer of plain words");
            let tok = hf(&config);
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
            ] {
                let expected = tok.encode(word, false).unwrap().len();
                assert_eq!(
                    words.count(word),
                    Some(expected),
                    "{word:?} with {normalizer}"
                );
            }
            for other in ["", "a b", "é", "a-b", "a\u{1}"] {
                assert_eq!(words.count(other), None, "{other:?}");
            }
        }
    }

    #[test]
    fn only_pipelines_that_leave_ascii_words_alone() {
        assert!(Words::of(&config(VOCAB, r#"{"type":"NFKC"}"#, "")).is_none());
        let added = r#"{"id":16,"content":"abc","single_word":false,"lstrip":false,"rstrip":false,
            "normalized":true,"special":false}"#;
        assert!(Words::of(&config(VOCAB, "null", added)).is_none());
        let special = r#"{"id":0,"content":"[UNK]","single_word":false,"lstrip":false,"rstrip":false,
            "normalized":false,"special":true}"#;
        assert!(Words::of(&config(VOCAB, "null", special)).is_some());
        assert!(Words::of(&config(r#"{"a":0}"#, "null", "")).is_none());
    }
}
