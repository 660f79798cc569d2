//! The tiktoken encodings whose ranks are built in: the one list that the token counter, LangChain's token windows
//! and (through the bindings) the Python layer read.

use tiktoken_rs::CoreBPE;

use super::pieces::Pattern;
use crate::error::ChunkError;

/// A built-in tiktoken encoding.
#[derive(Debug)]
pub struct BuiltIn {
    /// Its name, as tiktoken spells it.
    pub name: &'static str,
    /// The encoding whose ordinary tokens and pre-tokenizer it has: itself, or the one it only adds special tokens
    /// to (p50k_edit adds fill-in-the-middle tokens to p50k_base; gpt2 is r50k_base under its older name).
    pub ordinary: &'static str,
    ranks: fn() -> &'static CoreBPE,
    /// Its pre-tokenizer.
    pattern: Pattern,
}

/// Every built-in encoding, in the order error messages list them.
pub const ENCODINGS: [BuiltIn; 6] = [
    BuiltIn {
        name: "cl100k_base",
        ordinary: "cl100k_base",
        ranks: tiktoken_rs::cl100k_base_singleton,
        pattern: Pattern::Cl100k,
    },
    BuiltIn {
        name: "o200k_base",
        ordinary: "o200k_base",
        ranks: tiktoken_rs::o200k_base_singleton,
        pattern: Pattern::O200k,
    },
    BuiltIn {
        name: "p50k_base",
        ordinary: "p50k_base",
        ranks: tiktoken_rs::p50k_base_singleton,
        pattern: Pattern::R50k,
    },
    BuiltIn {
        name: "p50k_edit",
        ordinary: "p50k_base",
        ranks: tiktoken_rs::p50k_edit_singleton,
        pattern: Pattern::R50k,
    },
    BuiltIn {
        name: "r50k_base",
        ordinary: "r50k_base",
        ranks: tiktoken_rs::r50k_base_singleton,
        pattern: Pattern::R50k,
    },
    BuiltIn {
        name: "gpt2",
        ordinary: "r50k_base",
        ranks: tiktoken_rs::r50k_base_singleton,
        pattern: Pattern::R50k,
    },
];

impl BuiltIn {
    /// The encoding called `name`, or an error on argument `arg` that lists the names.
    pub fn named(arg: &'static str, name: &str) -> Result<&'static BuiltIn, ChunkError> {
        ENCODINGS.iter().find(|e| e.name == name).ok_or_else(|| {
            let names: Vec<String> = ENCODINGS.iter().map(|e| format!("'{}'", e.name)).collect();
            ChunkError::invalid(
                arg,
                format!("{arg} must be one of {}, got {name:?}", names.join(", ")),
            )
        })
    }

    /// Its pre-tokenizer.
    pub(crate) fn pattern(&self) -> Pattern {
        self.pattern
    }

    /// Its ranks (loaded on first use, then shared).
    pub fn ranks(&self) -> &'static CoreBPE {
        (self.ranks)()
    }

    /// Its special tokens (`<|endoftext|>`, ...), sorted.
    pub fn special_tokens(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .ranks()
            .special_tokens()
            .into_iter()
            .map(str::to_owned)
            .collect();
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_special_tokens() {
        let specials = |name| BuiltIn::named("encoding", name).unwrap().special_tokens();
        assert_eq!(specials("gpt2"), ["<|endoftext|>"]);
        assert_eq!(specials("p50k_base"), ["<|endoftext|>"]);
        assert_eq!(
            specials("p50k_edit"),
            [
                "<|endoftext|>",
                "<|fim_middle|>",
                "<|fim_prefix|>",
                "<|fim_suffix|>"
            ]
        );
        assert_eq!(
            specials("cl100k_base"),
            [
                "<|endofprompt|>",
                "<|endoftext|>",
                "<|fim_middle|>",
                "<|fim_prefix|>",
                "<|fim_suffix|>"
            ]
        );
        assert_eq!(specials("o200k_base"), ["<|endofprompt|>", "<|endoftext|>"]);
        let err = BuiltIn::named("encoding_name", "p51k")
            .unwrap_err()
            .to_string();
        assert!(err.contains("encoding_name must be one of 'cl100k_base', 'o200k_base', 'p50k_base', 'p50k_edit', 'r50k_base', 'gpt2', got \"p51k\""), "{err}");
        // Each encoding counts ordinary text as the one it shares its ordinary tokens with.
        let text = "Hello <|fim_prefix|> world, 中文。";
        for e in &ENCODINGS {
            let own = e.ranks().encode_ordinary(text).len();
            let base = BuiltIn::named("encoding", e.ordinary).unwrap().ranks();
            assert_eq!(own, base.encode_ordinary(text).len(), "{}", e.name);
        }
    }
}
