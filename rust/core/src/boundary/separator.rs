//! User separators: a literal string (memchr's memmem) or a regular expression (the `regex` crate: linear time,
//! no look-around). The separator stays with the piece before the cut (`End`, the default) or after it (`Start`).

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
    Regex(regex::Regex),
}

/// One compiled separator.
#[derive(Debug, Clone)]
pub struct Separator {
    source: String,
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
            let re = regex::Regex::new(pattern).map_err(|e| {
                ChunkError::invalid(
                    "separators",
                    format!("separators[{index}] is not a valid regex: {e}"),
                )
            })?;
            if re.is_match("") {
                return Err(ChunkError::invalid(
                    "separators",
                    format!("separators[{index}] ({pattern:?}) matches the empty string"),
                ));
            }
            Matcher::Regex(re)
        } else {
            Matcher::Literal(Box::new(
                memchr::memmem::Finder::new(pattern.as_bytes()).into_owned(),
            ))
        };
        Ok(Self {
            source: pattern.to_owned(),
            matcher,
            keep,
        })
    }

    /// The pattern as the caller gave it.
    pub fn source(&self) -> &str {
        &self.source
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
                for m in re.find_iter(&text[from..to]) {
                    push(from + m.start(), from + m.end());
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
    }
}
