//! User separators: a literal string (memchr's memmem) or a regular expression in Python's `re` syntax, translated
//! by the LangChain module's translator (`langchain::pyre`, the one copy of it) and matched with `fancy_regex`
//! (look-around included; patterns without it run on the `regex` crate underneath). The separator stays with the
//! piece before the cut (`End`, the default) or after it (`Start`); a pattern whose every match is empty (a
//! look-around alone, such as `(?<=\.)`) cuts at the position it matches.

use super::{Boundary, Level};
use crate::error::ChunkError;

/// Which side of a cut the separator text stays on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepSeparator {
    /// "a. |b": the separator ends the piece before the cut.
    End,
    /// "a|. b": the separator starts the piece after the cut.
    Start,
}

#[derive(Debug, Clone)]
enum Matcher {
    Literal(Box<memchr::memmem::Finder<'static>>),
    Regex(Box<fancy_regex::Regex>),
}

/// One compiled separator.
#[derive(Debug, Clone)]
pub struct Separator {
    matcher: Matcher,
    keep: KeepSeparator,
}

impl Separator {
    /// Compiles a separator. `index` is its position in the caller's list, for error messages.
    pub fn new(
        pattern: &str,
        is_regex: bool,
        keep: KeepSeparator,
        index: usize,
    ) -> Result<Self, ChunkError> {
        if pattern.is_empty() {
            return Err(ChunkError::invalid(
                "separators",
                format!("separators[{index}] is empty; graphemes are always the last resort, so leave it out"),
            ));
        }
        let matcher = if is_regex {
            let refuse = |why: &str| {
                ChunkError::invalid(
                    "separators",
                    format!(
                        "separators[{index}] is not a valid regex for chunkwise ({pattern:?}): {why} (separators \
                         are Python re patterns, see RecursiveChunker)"
                    ),
                )
            };
            let t = crate::langchain::pyre::translate_separator(pattern).map_err(|why| {
                if why.starts_with("the pattern can match both") {
                    ChunkError::invalid(
                        "separators",
                        format!(
                            "separators[{index}] ({pattern:?}) can match the empty string as well as text: make \
                             it match text only, or only positions (a look-around such as (?<=\\.))"
                        ),
                    )
                } else {
                    // The translator's reasons, in the words of a separator's user where they differ.
                    refuse(match why {
                        "escape with a different meaning in Rust" => {
                            "\\w, \\W, \\b, \\B (Python's word characters are not Rust's) and octal or unknown escapes \
                             are not supported"
                        }
                        "named group, flags or other extension" => {
                            "inline flags such as (?i), and (?...) extensions other than groups and look-arounds, \
                             are not supported"
                        }
                        other => other,
                    })
                }
            })?;
            if t.end_anchor {
                // The end of the text is always a cut; inside a window, `\z` would match at the window's end.
                return Err(refuse(
                    "$ and \\Z are not supported (the end of the text is always a cut)",
                ));
            }
            let re = fancy_regex::Regex::new(&t.pattern).map_err(|e| refuse(&e.to_string()))?;
            Matcher::Regex(Box::new(re))
        } else {
            Matcher::Literal(Box::new(
                memchr::memmem::Finder::new(pattern.as_bytes()).into_owned(),
            ))
        };
        Ok(Self { matcher, keep })
    }

    pub(super) fn emit(
        &self,
        text: &str,
        from: usize,
        to: usize,
        level: Level,
        out: &mut Vec<Boundary>,
    ) {
        let mut push = |start: usize, end: usize| {
            let pos = match self.keep {
                KeepSeparator::End => end,
                KeepSeparator::Start => start,
            };
            if pos > from && pos <= to && text.is_char_boundary(pos) {
                out.push(Boundary { pos, level });
            }
        };
        match &self.matcher {
            Matcher::Literal(finder) => {
                let len = finder.needle().len();
                for i in finder.find_iter(&text.as_bytes()[from..to]) {
                    push(from + i, from + i + len);
                }
            }
            Matcher::Regex(re) => {
                // The whole text before `to`, searched from `from`: a look-behind sees what precedes the window.
                let haystack = &text[..to];
                let mut at = from;
                while at <= to {
                    // An error is fancy_regex's backtracking limit, on a pathological pattern and text: the rest of
                    // the window then gets no cut from this separator, and the weaker levels cut it instead.
                    let Ok(Some(m)) = re.find_from_pos(haystack, at) else {
                        break;
                    };
                    push(m.start(), m.end());
                    at = if m.end() > m.start() {
                        m.end()
                    } else {
                        // An empty match: the next search starts one character on.
                        match haystack[m.end()..].chars().next() {
                            Some(c) => m.end() + c.len_utf8(),
                            None => break,
                        }
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(sep: &Separator, text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        sep.emit(text, 0, text.len(), Level::SEPARATOR_BASE, &mut out);
        out.iter().map(|b| b.pos).collect()
    }

    #[test]
    fn literal_and_regex() {
        let lit = Separator::new("--", false, KeepSeparator::End, 0).unwrap();
        assert_eq!(positions(&lit, "a--b--c"), vec![3, 6]);
        let start = Separator::new("--", false, KeepSeparator::Start, 0).unwrap();
        assert_eq!(positions(&start, "a--b--c"), vec![1, 4]);
        let re = Separator::new(r"\n#+ ", true, KeepSeparator::Start, 0).unwrap();
        assert_eq!(positions(&re, "intro\n## A\ntext"), vec![5]);
    }

    #[test]
    fn bad_patterns_name_the_argument() {
        let err = Separator::new("(", true, KeepSeparator::End, 2).unwrap_err();
        assert!(err
            .to_string()
            .starts_with("separators[2] is not a valid regex"));
        assert!(Separator::new("", false, KeepSeparator::End, 0).is_err());
        assert!(Separator::new("a*", true, KeepSeparator::End, 0).is_err());
        for refused in [r"\w+", "(?i)a", r"a$", r"\Z"] {
            assert!(Separator::new(refused, true, KeepSeparator::End, 0).is_err());
        }
    }

    #[test]
    fn python_syntax_and_zero_width_matches() {
        // Look-behind: a cut after each full stop, also one that starts a later window.
        let behind = Separator::new(r"(?<=\.)", true, KeepSeparator::End, 0).unwrap();
        assert_eq!(positions(&behind, "a.b.c"), vec![2, 4]);
        let mut out = Vec::new();
        behind.emit("a.b.c", 2, 5, Level::SEPARATOR_BASE, &mut out);
        assert_eq!(out.iter().map(|b| b.pos).collect::<Vec<_>>(), vec![4]);
        // Look-ahead, at either keep side the same position.
        let ahead = Separator::new(r"(?=#)", true, KeepSeparator::Start, 0).unwrap();
        assert_eq!(positions(&ahead, "x#y#"), vec![1, 3]);
        // Non-ASCII text: empty matches step over whole characters.
        let cjk = Separator::new("(?<=。)", true, KeepSeparator::End, 0).unwrap();
        assert_eq!(positions(&cjk, "你好。世界。"), vec![9, 18]);
        // Groups, capturing or named, are plain groups; `\s` is Python's.
        let group = Separator::new(r"(\n)(?P<h>#+) ", true, KeepSeparator::Start, 0).unwrap();
        assert_eq!(positions(&group, "a\n## b"), vec![1]);
        let space = Separator::new(r"\s", true, KeepSeparator::End, 0).unwrap();
        assert_eq!(positions(&space, "a\x1cb"), vec![2]);
    }
}
