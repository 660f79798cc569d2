//! A Hugging Face tokenizer's count of a text without its `Encoding`.
//!
//! `encode_fast(text, false)` runs the added-vocabulary split and the normalizer
//! (`AddedVocabulary::extract_and_normalize`), the pre-tokenizer, the model on each pre-token, then builds an
//! `Encoding` (ids, type ids, token strings, words, offsets, masks) and hands it to the post-processor. Its length
//! is the number of tokens the model gave plus one per added token matched. [`HfCounter::count`] runs the same
//! first three steps with the tokenizer's own objects and sums the tokens instead: the same splits, hence the same
//! count, without the `Encoding` (most of the cost of a short piece).
//!
//! The steps skipped change no length when the counter's tokenizer is built as `TokenCounter::from_hf_json` builds
//! it: truncation and padding are off, and the post-processors of `tokenizers` add nothing when special tokens are
//! not asked for (BERT's and RoBERTa's return the encodings as they are, ByteLevel's only trims offsets, a template
//! keeps its sequence pieces only). A template whose single-sequence form does not hold `$A` exactly once would
//! repeat or drop the text: such a tokenizer, or a post-processor this file does not know, is counted by
//! `encode_fast` itself.

use serde_json::Value;
use tokenizers::{Model, OffsetReferential, OffsetType, PreTokenizer, Tokenizer};

use super::unigram::Unigram;
use super::wordpiece::Words;

/// A tokenizer.json's tokenizer, and whether its count may skip the `Encoding`.
pub(super) struct HfCounter {
    tok: Tokenizer,
    direct: bool,
    /// WordPiece's count of words without the pipeline, where the tokenizer allows it.
    words: Option<Words>,
    /// A Unigram's count of text whose characters its normalizer keeps or replaces alone, without the pipeline,
    /// where the tokenizer allows it.
    unigram: Option<Unigram>,
}

impl HfCounter {
    /// `tok` must have truncation and padding off (the count of a truncated text is not the sum of its tokens).
    pub(super) fn new(tok: Tokenizer, config: &Value) -> Self {
        let direct = tok.get_truncation().is_none()
            && tok.get_padding().is_none()
            && adds_nothing(&config["post_processor"]);
        let words = if direct {
            Words::of(config, &tok)
        } else {
            None
        };
        let unigram = if direct {
            Unigram::of(&tok, config)
        } else {
            None
        };
        Self {
            tok,
            direct,
            words,
            unigram,
        }
    }

    pub(super) fn tokenizer(&self) -> &Tokenizer {
        &self.tok
    }

    /// `encode_fast(text, false).len()`, or HF's error.
    pub(super) fn count(&self, text: &str) -> tokenizers::Result<usize> {
        if !self.direct {
            return Ok(self.tok.encode_fast(text, false)?.len());
        }
        if let Some(n) = self.words.as_ref().and_then(|w| w.count(text)) {
            return Ok(n);
        }
        let tok = &self.tok;
        if let Some(n) = self
            .unigram
            .as_ref()
            .and_then(|u| u.count(text, tok.get_normalizer()))
        {
            return Ok(n);
        }
        let mut pretokenized = tok
            .get_added_vocabulary()
            .extract_and_normalize(tok.get_normalizer(), text);
        if let Some(pre) = tok.get_pre_tokenizer() {
            pre.pre_tokenize(&mut pretokenized)?;
        }
        let model = tok.get_model();
        let mut total = 0;
        // Splits holding tokens are the added tokens matched; the others are what `encode` gives the model.
        for (split, _, tokens) in
            pretokenized.get_splits(OffsetReferential::Original, OffsetType::None)
        {
            total += match tokens {
                Some(tokens) => tokens.len(),
                None => model.tokenize(split)?.len(),
            };
        }
        Ok(total)
    }
}

/// Whether a tokenizer.json's post-processor leaves the length of one sequence's encoding as it is when special
/// tokens are not added.
fn adds_nothing(processor: &Value) -> bool {
    match processor["type"].as_str() {
        None => processor.is_null(),
        Some("BertProcessing" | "RobertaProcessing" | "ByteLevel") => true,
        Some("TemplateProcessing") => processor["single"].as_array().is_some_and(|single| {
            let mut sequences = single.iter().filter(|p| !p["Sequence"].is_null());
            matches!(
                (sequences.next(), sequences.next()),
                (Some(p), None) if p["Sequence"]["id"] == "A"
            )
        }),
        Some("Sequence") => processor["processors"]
            .as_array()
            .is_some_and(|list| list.iter().all(adds_nothing)),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_post_processors_are_skipped() {
        let template = |single: &str| {
            serde_json::from_str::<Value>(&format!(
                r#"{{"type":"TemplateProcessing","single":{single},"pair":[],"special_tokens":{{}}}}"#
            ))
            .unwrap()
        };
        let cls = r#"{"SpecialToken":{"id":"[CLS]","type_id":0}}"#;
        let a = r#"{"Sequence":{"id":"A","type_id":0}}"#;
        let b = r#"{"Sequence":{"id":"B","type_id":0}}"#;
        assert!(adds_nothing(&Value::Null));
        assert!(adds_nothing(&template(&format!("[{cls},{a},{cls}]"))));
        assert!(!adds_nothing(&template(&format!("[{a},{a}]"))));
        assert!(!adds_nothing(&template(&format!("[{cls},{b}]"))));
        assert!(!adds_nothing(&template(&format!("[{cls}]"))));
        let seq = |inner: &str| {
            serde_json::from_str::<Value>(&format!(
                r#"{{"type":"Sequence","processors":[{inner}]}}"#
            ))
            .unwrap()
        };
        assert!(adds_nothing(&seq(
            r#"{"type":"ByteLevel"},{"type":"BertProcessing"}"#
        )));
        assert!(!adds_nothing(&seq(
            r#"{"type":"ByteLevel"},{"type":"Unknown"}"#
        )));
    }
}
