//! A Hugging Face tokenizer.json read for counting: is it usable, which piece rule its pre-tokenizer and normalizer
//! allow, and which added tokens it matches in raw text.

use std::fmt;

use serde_json::Value;

use super::normalized::known_normalizer;
use super::pieces::is_cjk_punct;
use super::PieceRule;
use crate::error::ChunkError;

/// A character no vocabulary holds (a noncharacter); 128 of them make a word longer than WordPiece's
/// `max_input_chars_per_word` (100 by default).
pub(super) const UNKNOWN_CHAR: &str = "\u{10FFFF}";

/// Letters of rare scripts (Gothic, Old Italic, Vai, Cyrillic extended, Linear B, Egyptian): text that reaches the
/// model through any normalizer (BERT's drops private-use and unassigned characters, so those would not) and that
/// few vocabularies hold, so that the model's handling of unknown text is exercised.
pub(super) const RARE_LETTERS: &str =
    " \u{10330}\u{10331} \u{10300} \u{A500}\u{A501} \u{A66E} \u{10000} \u{13000} ";

/// Fails, with Hugging Face's own reason, on a tokenizer.json that `tokenizers` loads but cannot encode text with
/// (a WordPiece vocabulary without its unknown token fails on the first word it does not hold), or that gives no
/// tokens at all: every text would count 0 and make one chunk, however long. Cheap: two short encodings.
pub(super) fn check_usable(tok: &tokenizers::Tokenizer) -> Result<(), ChunkError> {
    use tokenizers::{Model, ModelWrapper};
    let unusable = |e: &dyn fmt::Display| {
        ChunkError::invalid(
            "tokenizer",
            format!("Hugging Face tokenizers cannot encode text with this tokenizer.json: {e}"),
        )
    };
    // WordPiece (past `max_input_chars_per_word`, or on a character it does not hold) and WordLevel (on any word it
    // does not hold) give the unknown token, and fail when their vocabulary lacks it: some text always gets there,
    // whatever the sample below holds. The model is asked directly, as the tokenizer would ask it for that word.
    if let model @ (ModelWrapper::WordPiece(_) | ModelWrapper::WordLevel(_)) = tok.get_model() {
        let word = UNKNOWN_CHAR.repeat(128);
        if model.token_to_id(&word).is_none() {
            model.tokenize(&word).map_err(|e| unusable(&e))?;
        }
    }
    // Other models fail on unknown text only in some configurations (a BPE whose `unk_token` is missing from its
    // vocabulary, a Unigram without `unk_id`), and a byte-level pre-tokenizer never lets such text reach them:
    // the whole pipeline encodes a sample with rare letters, as HF's `encode` would.
    let mut probe = String::from(RULE_SAMPLE);
    probe.push_str(RARE_LETTERS);
    let tokens = tok
        .encode_fast(probe.as_str(), false)
        .map_err(|e| unusable(&e))?;
    if tokens.is_empty() {
        return Err(ChunkError::invalid(
            "tokenizer",
            format!(
                "this tokenizer.json gives no tokens for a sample of {} characters of ordinary text (an empty \
                 vocabulary?): every text would count 0 tokens and become one chunk",
                probe.chars().count()
            ),
        ));
    }
    Ok(())
}

/// The stand-in count of text the tokenizer fails to encode (see [`TokenCounter::try_count`]).
pub(super) fn unencodable_count(text: &str) -> usize {
    text.chars().count()
}

/// Texts that have broken piece rules: the rule check runs on them.
pub(super) const RULE_SAMPLE: &str =
    "Hello world.  Two  spaces, and\ttabs\u{a0}nbsp \u{3000}ideographic space.\n\
\n\nParagraph 2: 12345678901234 numbers 3.14159 and 1,000,000; e.g. U.S.A. it's we'll I'M\n\
   indented line\r\nCRLF line ending \u{0301}combining and caf\u{e9} cafe\u{301}\n\
中文的句子，还有标点。“引号”与（括号）！日本語のテキスト、カタカナ。한국어 문장입니다.\n\
emoji 👨‍👩‍👧 ZWJ 🇫🇷 flags 🙂🙂 and symbols → ≤ € £ ¥ © ™ ½ µ\n\
code: fn main() { let x = a[i] + b->c; } // comment <tag attr=\"v\"> [SEP] <|endoftext|> <s> </s>\n\
trailing spaces   \n    \n\
see docs.\n/usr/bin\n\n# Heading\r\n\r\n- item:\n\t* nested\n)\n(x)\n123\n\n\n   \nend\n";

pub(super) fn model_type(config: &Value) -> String {
    config["model"]["type"].as_str().unwrap_or("?").to_owned()
}

/// The piece rule of a tokenizer.json, from its normalizer, pre-tokenizer and added tokens.
pub(super) fn hf_rule(config: &Value) -> PieceRule {
    let normalizer = &config["normalizer"];
    let pre = &config["pre_tokenizer"];
    let metaspace = is_metaspace(pre);
    if !added_ok(config, metaspace) {
        return PieceRule::Whole;
    }
    match pre["type"].as_str() {
        Some("BertPreTokenizer") => {
            let chinese = normalizer["type"] == "BertNormalizer"
                && normalizer["handle_chinese_chars"].as_bool().unwrap_or(true);
            if char_local(normalizer) {
                PieceRule::Bert { chinese }
            } else {
                PieceRule::Whole
            }
        }
        Some("ByteLevel") if pre["use_regex"].as_bool().unwrap_or(true) && normalizer.is_null() => {
            PieceRule::Spaces { cjk_punct: true }
        }
        _ if metaspace && normalizer.is_null() => PieceRule::Spaces { cjk_punct: false },
        _ if metaspace && known_normalizer(normalizer) => PieceRule::NormalizedSpaces,
        _ => PieceRule::Whole,
    }
}

/// A Metaspace pre-tokenizer ("▁" for spaces, a pre-token starting at each), alone or after a split on
/// whitespace (T5's): a piece that starts with a space starts a pre-token, and gets no "▁" prepended, whatever the
/// prepend scheme.
fn is_metaspace(pre: &Value) -> bool {
    let replaces =
        |p: &Value| p["type"] == "Metaspace" && p["replacement"].as_str().unwrap_or("▁") == "▁";
    match pre["type"].as_str() {
        Some("Metaspace") => replaces(pre) && pre["split"].as_bool().unwrap_or(true),
        Some("Sequence") => matches!(
            pre["pretokenizers"].as_array().map(Vec::as_slice),
            Some([split, meta]) if split["type"] == "WhitespaceSplit" && replaces(meta)
        ),
        _ => false,
    }
}

/// Whether the added tokens let a text be cut where the rule cuts: none holds whitespace or CJK punctuation (a cut
/// would go through it), and none takes in the whitespace after it or matches only as a word. Tokens matched after
/// normalization, or taking in the whitespace before them, are known only with Metaspace: the text they match in is
/// the same either side of a cut before a space (see `SpaceSides`), and what follows a cut starts a pre-token.
fn added_ok(config: &Value, metaspace: bool) -> bool {
    config["added_tokens"].as_array().is_none_or(|tokens| {
        tokens.iter().all(|t| {
            let flag = |k: &str| t[k].as_bool().unwrap_or(false);
            let content = t["content"].as_str().unwrap_or(" ");
            (!flag("lstrip") || metaspace)
                && !flag("rstrip")
                && !flag("single_word")
                && (!flag("normalized") || config["normalizer"].is_null() || metaspace)
                && !content
                    .chars()
                    .any(|c| c.is_whitespace() || is_cjk_punct(c))
                && !content.is_empty()
        })
    })
}

/// Normalizers that change each character on its own (or none): they never join or split words.
pub(super) fn char_local(normalizer: &Value) -> bool {
    match normalizer["type"].as_str() {
        None => normalizer.is_null(),
        Some("BertNormalizer" | "Lowercase" | "StripAccents" | "NFC" | "NFD" | "NFKC" | "NFKD") => {
            true
        }
        Some("Sequence") => normalizer["normalizers"]
            .as_array()
            .is_some_and(|list| list.iter().all(char_local)),
        Some(_) => false,
    }
}

/// The added tokens as one regex, longest first, so that a match is the leftmost-longest as in the tokenizer.
/// The added tokens of a tokenizer.json as one regex, longest first, and the length in bytes of the longest.
pub(super) fn added_tokens_regex(
    config: &Value,
) -> Result<Option<(regex::Regex, usize)>, ChunkError> {
    let mut contents: Vec<&str> = config["added_tokens"]
        .as_array()
        .map(|tokens| {
            tokens
                .iter()
                .filter_map(|t| t["content"].as_str())
                .collect()
        })
        .unwrap_or_default();
    contents.retain(|c| !c.is_empty());
    if contents.is_empty() {
        return Ok(None);
    }
    contents.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    contents.dedup();
    let longest = contents[0].len();
    let pattern = contents
        .iter()
        .map(|c| regex::escape(c))
        .collect::<Vec<_>>()
        .join("|");
    regex::RegexBuilder::new(&pattern)
        .size_limit(64 << 20)
        .build()
        .map(|regex| Some((regex, longest)))
        .map_err(|e| ChunkError::invalid("tokenizer", format!("added tokens: {e}")))
}
