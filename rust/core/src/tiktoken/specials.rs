//! tiktoken's special-token arguments on a count: `len(enc.encode(text, allowed_special=..., disallowed_special=...))`.
//!
//! tiktoken first refuses text holding a disallowed special token (`ValueError`), then encodes each allowed special
//! token found in the text as one token and the text between them as ordinary text. Special tokens are found the
//! way tiktoken's regex finds them: the leftmost, and at one place the first of the alternation (sorted names).

use crate::tokens::TokenCounter;

/// A disallowed special token found in a text: tiktoken raises `ValueError` for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisallowedSpecial(pub String);

impl std::fmt::Display for DisallowedSpecial {
    /// tiktoken's own message (`raise_disallowed_special_token`), with Python's repr of the token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = py_repr(&self.0);
        write!(
            f,
            "Encountered text corresponding to disallowed special token {token}.\n\
             If you want this text to be encoded as a special token, pass it to `allowed_special`, e.g. \
             `allowed_special={{{token}, ...}}`.\n\
             If you want this text to be encoded as normal text, disable the check for this token by passing \
             `disallowed_special=(enc.special_tokens_set - {{{token}}})`.\n\
             To disable this check for all special tokens, pass `disallowed_special=()`.\n"
        )
    }
}

impl std::error::Error for DisallowedSpecial {}

/// Python's `repr` of a special token: single quotes, unless it holds one and no double quote.
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The allowed and the disallowed special tokens of a count, as tiktoken resolves `"all"` and sets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpecialTokens {
    allowed: Vec<String>,
    disallowed: Vec<String>,
}

impl SpecialTokens {
    /// Tokens in any order; empty strings are ignored (they never match in tiktoken either).
    pub fn new(allowed: &[String], disallowed: &[String]) -> Self {
        let sorted = |v: &[String]| {
            let mut v: Vec<String> = v.iter().filter(|s| !s.is_empty()).cloned().collect();
            v.sort();
            v.dedup();
            v
        };
        Self {
            allowed: sorted(allowed),
            disallowed: sorted(disallowed),
        }
    }

    /// Whether the arguments change nothing (`encode_ordinary`).
    pub fn is_empty(&self) -> bool {
        self.allowed.is_empty() && self.disallowed.is_empty()
    }

    /// tiktoken's check: the first disallowed special token in `text`, as an error.
    pub fn check(&self, text: &str) -> Result<(), DisallowedSpecial> {
        match leftmost(&self.disallowed, text, 0) {
            Some((_, token)) => Err(DisallowedSpecial(token.to_owned())),
            None => Ok(()),
        }
    }

    /// The tokens of `text`: checked, then each allowed special token one, the text between them counted.
    pub fn count(&self, counter: &TokenCounter, text: &str) -> Result<usize, DisallowedSpecial> {
        self.check(text)?;
        let (mut total, mut pos) = (0, 0);
        while let Some((at, token)) = leftmost(&self.allowed, text, pos) {
            total += counter.count(&text[pos..at]) + 1;
            pos = at + token.len();
        }
        Ok(total + counter.count(&text[pos..]))
    }
}

/// The leftmost of `tokens` in `text` from `from`, the first listed at one place: `(start, token)`.
fn leftmost<'t>(tokens: &'t [String], text: &str, from: usize) -> Option<(usize, &'t str)> {
    let bytes = text.as_bytes();
    let mut firsts: Vec<u8> = tokens.iter().map(|t| t.as_bytes()[0]).collect();
    firsts.sort_unstable();
    firsts.dedup();
    let at = |i: usize| {
        tokens
            .iter()
            .find(|t| bytes[i..].starts_with(t.as_bytes()))
            .map(|t| (i, t.as_str()))
    };
    let hay = &bytes[from..];
    match *firsts.as_slice() {
        [] => None,
        [a] => memchr::memchr_iter(a, hay).find_map(|i| at(from + i)),
        [a, b] => memchr::memchr2_iter(a, b, hay).find_map(|i| at(from + i)),
        [a, b, c] => memchr::memchr3_iter(a, b, c, hay).find_map(|i| at(from + i)),
        _ => (from..bytes.len()).find_map(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specials(allowed: &[&str], disallowed: &[&str]) -> SpecialTokens {
        let v = |s: &[&str]| s.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        SpecialTokens::new(&v(allowed), &v(disallowed))
    }

    #[test]
    fn allowed_specials_count_one_each() {
        let counter = TokenCounter::tiktoken("cl100k_base").unwrap();
        let s = specials(&["<|endoftext|>"], &[]);
        let text = "a <|endoftext|> b<|endoftext|>";
        let plain = counter.count("a ") + counter.count(" b");
        assert_eq!(s.count(&counter, text).unwrap(), plain + 2);
        // Not allowed and not disallowed: ordinary text.
        let none = specials(&[], &[]);
        assert_eq!(none.count(&counter, text).unwrap(), counter.count(text));
    }

    #[test]
    fn disallowed_special_is_the_leftmost() {
        let counter = TokenCounter::tiktoken("cl100k_base").unwrap();
        let s = specials(&[], &["<|fim_prefix|>", "<|endoftext|>"]);
        let err = s
            .count(&counter, "x <|fim_prefix|> <|endoftext|>")
            .unwrap_err();
        assert_eq!(err.0, "<|fim_prefix|>");
        assert!(err.to_string().starts_with(
            "Encountered text corresponding to disallowed special token '<|fim_prefix|>'.\n"
        ));
        assert_eq!(
            s.count(&counter, "<|endoftext").unwrap(),
            counter.count("<|endoftext")
        );
    }

    #[test]
    fn repr_like_python() {
        assert_eq!(py_repr("<|a|>"), "'<|a|>'");
        assert_eq!(py_repr("it's"), "\"it's\"");
        assert_eq!(py_repr("a'\""), "'a\\'\"'");
    }
}
