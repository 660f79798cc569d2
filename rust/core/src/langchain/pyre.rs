//! Python `re` patterns, translated to `fancy_regex` where the two engines give the same matches.
//!
//! LangChain's separators are Python regular expressions, split with `re.split` and searched with `re.search`. The
//! translation accepts the subset whose meaning is the same in both engines, and says "unsupported" for the rest,
//! so the caller can run Python's own `re` instead of returning a different answer:
//!
//! - literals, escapes of punctuation, `\n \t \r \f \v \a \xhh \uhhhh \Uhhhhhhhh`, `.` (not `\n`), classes of those
//!   with ranges and negation, `\d \D` (Unicode `Nd` in both), `\s \S` (Python's set, which adds U+001C..U+001F to
//!   Rust's), `\A \Z ^ $` (Python's `$` also matches before a final `\n`);
//! - groups `(?:...)`, lookarounds `(?=...) (?!...) (?<=...) (?<!...)`, alternation, greedy and lazy quantifiers
//!   including `{,n}`, and a `{` that is not a quantifier as a literal, as Python reads it;
//! - not: capturing groups (they change what `re.split` returns), `\w \W \b \B` (the word sets differ), flags,
//!   back-references, octal escapes, `\N{...}`, atomic groups and possessive quantifiers.
//!
//! Patterns that can match both an empty and a non-empty string are refused too: Python and Rust resume after an
//! empty match differently. Patterns whose every match is empty (lookarounds alone) are fine.
//!
//! [`translate_separator`] reads the same dialect for the engine's own separators (`RecursiveChunker`), where only
//! where a pattern matches counts: there a group, capturing or named, is just a group.

/// A translated pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    /// The `fancy_regex` pattern.
    pub pattern: String,
    /// The shortest and longest match, in chars (`None`: unbounded).
    pub min: usize,
    /// The longest match, in chars (`None`: unbounded).
    pub max: Option<usize>,
    /// Whether the pattern holds `$` or `\Z` (the end of the text, translated to `\z`, which means the end of
    /// whatever slice it searches).
    pub end_anchor: bool,
}

/// Why a pattern is left to Python.
pub type Unsupported = &'static str;

/// Translates a Python pattern, or says why it is left to Python's `re`.
pub fn translate(pattern: &str) -> Result<Translated, Unsupported> {
    translate_with(pattern, false)
}

/// Translates a Python pattern that only needs to match where Python's does (a separator of the engine): groups,
/// capturing or named, are read as plain groups.
pub fn translate_separator(pattern: &str) -> Result<Translated, Unsupported> {
    translate_with(pattern, true)
}

fn translate_with(pattern: &str, plain_groups: bool) -> Result<Translated, Unsupported> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut parser = Parser {
        chars: &chars,
        pos: 0,
        out: String::with_capacity(pattern.len() * 2),
        plain_groups,
        end_anchor: false,
    };
    let (min, max) = parser.alternation()?;
    if parser.pos != chars.len() {
        // An unbalanced ")": Python raises; let it.
        return Err("unbalanced parenthesis");
    }
    if min == 0 && max != Some(0) {
        return Err("the pattern can match both an empty and a non-empty string");
    }
    Ok(Translated {
        pattern: parser.out,
        min,
        max,
        end_anchor: parser.end_anchor,
    })
}

/// Python's whitespace (`str.isspace`), which `\s` matches: Rust's `\s` plus U+001C..U+001F.
const SPACE_CLASS: &str = r"\s\x{1C}-\x{1F}";

struct Parser<'a> {
    chars: &'a [char],
    pos: usize,
    out: String,
    /// Read `(...)` and `(?P<name>...)` as `(?:...)`.
    plain_groups: bool,
    end_anchor: bool,
}

type Width = (usize, Option<usize>);

fn add(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    a.zip(b).and_then(|(a, b)| a.checked_add(b))
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn alternation(&mut self) -> Result<Width, Unsupported> {
        let (mut min, mut max) = self.sequence()?;
        while self.eat('|') {
            self.out.push('|');
            let (lo, hi) = self.sequence()?;
            min = min.min(lo);
            max = max.zip(hi).map(|(a, b)| a.max(b));
        }
        Ok((min, max))
    }

    fn sequence(&mut self) -> Result<Width, Unsupported> {
        let (mut min, mut max) = (0usize, Some(0usize));
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let mark = self.out.len();
            let (lo, hi, repeatable) = self.atom()?;
            let (lo, hi) = self.quantifier(mark, lo, hi, repeatable)?;
            min = min.saturating_add(lo);
            max = add(max, hi);
        }
        Ok((min, max))
    }

    /// One atom: its width and whether a quantifier may follow it.
    fn atom(&mut self) -> Result<(usize, Option<usize>, bool), Unsupported> {
        let c = self.peek().ok_or("unexpected end")?;
        self.pos += 1;
        match c {
            '(' => self.group(),
            '[' => {
                self.class()?;
                Ok((1, Some(1), true))
            }
            '.' => {
                self.out.push_str(r"[^\n]");
                Ok((1, Some(1), true))
            }
            '^' => {
                self.out.push_str(r"\A");
                Ok((0, Some(0), false))
            }
            '$' => {
                self.end_anchor = true;
                self.out.push_str(r"(?=\n?\z)");
                Ok((0, Some(0), false))
            }
            '*' | '+' | '?' => Err("nothing to repeat"),
            '{' if self.quantifier_ahead() => Err("nothing to repeat"),
            '\\' => self.escape(),
            c => {
                push_literal(&mut self.out, c);
                Ok((1, Some(1), true))
            }
        }
    }

    fn group(&mut self) -> Result<(usize, Option<usize>, bool), Unsupported> {
        if !self.eat('?') {
            if !self.plain_groups {
                return Err("capturing group");
            }
            return self.group_body("(?:", false, false);
        }
        let kind = self.peek().ok_or("unexpected end")?;
        self.pos += 1;
        let (open, zero_width, behind) = match kind {
            ':' => ("(?:", false, false),
            'P' if self.plain_groups && self.peek() == Some('<') => {
                // `(?P<name>`: the name must be an identifier, as Python requires.
                self.pos += 1;
                let from = self.pos;
                while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    self.pos += 1;
                }
                let first = self.chars.get(from).copied();
                if self.pos == from || first.is_some_and(|c| c.is_ascii_digit()) || !self.eat('>') {
                    return Err("bad character in group name");
                }
                ("(?:", false, false)
            }
            '=' => ("(?=", true, false),
            '!' => ("(?!", true, false),
            '<' => match self.peek() {
                Some('=') => {
                    self.pos += 1;
                    ("(?<=", true, true)
                }
                Some('!') => {
                    self.pos += 1;
                    ("(?<!", true, true)
                }
                _ => return Err("unsupported group"),
            },
            '#' => {
                // A comment: skipped up to the first ")".
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    if c == ')' {
                        return Ok((0, Some(0), false));
                    }
                }
                return Err("unterminated comment");
            }
            _ => return Err("named group, flags or other extension"),
        };
        self.group_body(open, zero_width, behind)
    }

    /// The rest of a group whose opening (`open` in the output) is consumed.
    fn group_body(
        &mut self,
        open: &str,
        zero_width: bool,
        behind: bool,
    ) -> Result<(usize, Option<usize>, bool), Unsupported> {
        self.out.push_str(open);
        let (lo, hi) = self.alternation()?;
        if !self.eat(')') {
            return Err("missing )");
        }
        self.out.push(')');
        if behind && Some(lo) != hi {
            return Err("look-behind of variable width");
        }
        if zero_width {
            Ok((0, Some(0), false))
        } else {
            Ok((lo, hi, true))
        }
    }

    /// Whether a `{m}`, `{m,}`, `{,n}` or `{m,n}` starts at the cursor (Python reads any other `{` as a literal).
    fn quantifier_ahead(&self) -> bool {
        self.parse_braces().is_some()
    }

    /// `({m}, {n})` of a quantifier at the cursor, and its length in chars.
    fn parse_braces(&self) -> Option<(Option<usize>, Option<usize>, bool, usize)> {
        let start = self.pos;
        if self.chars.get(start) != Some(&'{') {
            return None;
        }
        let mut i = start + 1;
        let digits = |i: &mut usize| -> Option<Option<usize>> {
            let from = *i;
            while self.chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
                *i += 1;
            }
            if *i == from {
                return Some(None);
            }
            let s: String = self.chars[from..*i].iter().collect();
            s.parse().ok().map(Some)
        };
        let lo = digits(&mut i)?;
        let comma = self.chars.get(i) == Some(&',');
        let hi = if comma {
            i += 1;
            digits(&mut i)?
        } else {
            lo
        };
        if self.chars.get(i) != Some(&'}') {
            return None;
        }
        if !comma && lo.is_none() {
            return None; // "{}" is a literal in Python
        }
        Some((lo, hi, comma, i + 1 - start))
    }

    fn quantifier(
        &mut self,
        mark: usize,
        lo: usize,
        hi: Option<usize>,
        repeatable: bool,
    ) -> Result<Width, Unsupported> {
        let (qmin, qmax, text) = match self.peek() {
            Some('*') => {
                self.pos += 1;
                (0, None, "*".to_owned())
            }
            Some('+') => {
                self.pos += 1;
                (1, None, "+".to_owned())
            }
            Some('?') => {
                self.pos += 1;
                (0, Some(1), "?".to_owned())
            }
            Some('{') => match self.parse_braces() {
                Some((m, n, comma, len)) => {
                    self.pos += len;
                    let m = m.unwrap_or(0);
                    if n.is_some_and(|n| n < m) {
                        return Err("min repeat greater than max repeat");
                    }
                    let text = match (comma, n) {
                        (false, _) => format!("{{{m}}}"),
                        (true, Some(n)) => format!("{{{m},{n}}}"),
                        (true, None) => format!("{{{m},}}"),
                    };
                    (m, n, text)
                }
                None => return Ok((lo, hi)),
            },
            _ => return Ok((lo, hi)),
        };
        if !repeatable {
            return Err("nothing to repeat");
        }
        // Wrap the atom so the quantifier applies to all of it (a literal escape can be several bytes).
        self.out.insert_str(mark, "(?:");
        self.out.push(')');
        self.out.push_str(&text);
        if self.eat('?') {
            self.out.push('?');
        } else if self.peek() == Some('+') {
            return Err("possessive quantifier");
        }
        if matches!(self.peek(), Some('*' | '+' | '?')) || self.quantifier_ahead() {
            return Err("multiple repeat");
        }
        let min = lo.saturating_mul(qmin);
        let max = match (hi, qmax) {
            (Some(0), _) => Some(0),
            (Some(h), Some(q)) => h.checked_mul(q),
            _ => None,
        };
        Ok((min, max))
    }

    /// An escape outside a class (the `\` is consumed).
    fn escape(&mut self) -> Result<(usize, Option<usize>, bool), Unsupported> {
        let c = self.peek().ok_or("trailing backslash")?;
        self.pos += 1;
        match c {
            'A' => {
                self.out.push_str(r"\A");
                return Ok((0, Some(0), false));
            }
            'Z' => {
                self.end_anchor = true;
                self.out.push_str(r"\z");
                return Ok((0, Some(0), false));
            }
            'd' | 'D' => {
                self.out.push('\\');
                self.out.push(c);
                return Ok((1, Some(1), true));
            }
            's' => {
                self.out.push('[');
                self.out.push_str(SPACE_CLASS);
                self.out.push(']');
                return Ok((1, Some(1), true));
            }
            'S' => {
                self.out.push_str("[^");
                self.out.push_str(SPACE_CLASS);
                self.out.push(']');
                return Ok((1, Some(1), true));
            }
            _ => {}
        }
        let ch = self.char_escape(c, false)?;
        push_literal(&mut self.out, ch);
        Ok((1, Some(1), true))
    }

    /// The char an escape stands for (`c` follows the backslash), inside a class or not.
    fn char_escape(&mut self, c: char, in_class: bool) -> Result<char, Unsupported> {
        Ok(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'f' => '\x0c',
            'v' => '\x0b',
            'a' => '\x07',
            'b' if in_class => '\x08',
            'x' => self.hex(2)?,
            'u' => self.hex(4)?,
            'U' => self.hex(8)?,
            c if c.is_ascii_alphanumeric() => {
                return Err("escape with a different meaning in Rust")
            }
            c => c,
        })
    }

    fn hex(&mut self, n: usize) -> Result<char, Unsupported> {
        let digits = self.chars.get(self.pos..self.pos + n).ok_or("bad escape")?;
        if !digits.iter().all(char::is_ascii_hexdigit) {
            return Err("bad escape");
        }
        let s: String = digits.iter().collect();
        self.pos += n;
        u32::from_str_radix(&s, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or("bad escape")
    }

    /// A class (the `[` is consumed).
    fn class(&mut self) -> Result<(), Unsupported> {
        self.out.push('[');
        if self.eat('^') {
            self.out.push('^');
        }
        let mut first = true;
        loop {
            let c = self.peek().ok_or("unterminated character set")?;
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            self.pos += 1;
            let lo = match c {
                '\\' => {
                    let e = self.peek().ok_or("bad escape")?;
                    self.pos += 1;
                    match e {
                        'd' | 'D' => {
                            self.out.push('\\');
                            self.out.push(e);
                            continue;
                        }
                        's' => {
                            self.out.push_str(SPACE_CLASS);
                            continue;
                        }
                        _ => self.char_escape(e, true)?,
                    }
                }
                c => c,
            };
            // A range "lo-hi", unless the "-" is the last member.
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.pos += 1;
                let h = self.peek().ok_or("bad range")?;
                self.pos += 1;
                let hi = if h == '\\' {
                    let e = self.peek().ok_or("bad escape")?;
                    self.pos += 1;
                    if matches!(e, 'd' | 'D' | 's' | 'S' | 'w' | 'W') {
                        return Err("bad character range");
                    }
                    self.char_escape(e, true)?
                } else {
                    h
                };
                if hi < lo {
                    return Err("bad character range");
                }
                push_class_char(&mut self.out, lo);
                self.out.push('-');
                push_class_char(&mut self.out, hi);
            } else {
                push_class_char(&mut self.out, lo);
            }
        }
        self.out.push(']');
        Ok(())
    }
}

fn push_literal(out: &mut String, c: char) {
    if matches!(
        c,
        '\\' | '.'
            | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    ) {
        // Rust's meta characters; other symbols stay bare, as some escapes mean more in Rust (`\<` is a word
        // boundary there).
        out.push('\\');
        out.push(c);
    } else if c.is_control() || c.is_whitespace() {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    } else {
        out.push(c);
    }
}

fn push_class_char(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || (!c.is_ascii() && !c.is_whitespace() && !c.is_control()) {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(p: &str) -> Translated {
        translate(p).unwrap_or_else(|e| panic!("{p:?}: {e}"))
    }

    #[test]
    fn literals_and_classes() {
        assert_eq!(ok("\n\n").pattern, r"\x{A}\x{A}");
        assert_eq!(ok(r"\n#{1,6} ").min, 3);
        assert_eq!(ok(r"\n#{1,6} ").max, Some(8));
        assert_eq!(ok("a{,3}b").max, Some(4));
        assert_eq!(ok("a{x}").min, 4); // "{x}" is a literal
        assert_eq!(ok("[]a-]").min, 1);
        assert_eq!(ok("[^\\s]").min, 1);
        assert_eq!(ok("(?<=。)").max, Some(0));
        assert_eq!(ok(r"\n(?!End\s)").min, 1);
    }

    #[test]
    fn refusals() {
        for p in [
            "(a)", r"\w+", r"\bx", "(?i)a", "a*", "a|", "(?P<x>a)", r"\1", "a**", "(?<=a+)b",
            "[z-a]", ")",
        ] {
            assert!(translate(p).is_err(), "{p:?} should be refused");
        }
    }

    #[test]
    fn matches_like_python() {
        let m = |p: &str, text: &str| {
            let r = fancy_regex::Regex::new(&ok(p).pattern).unwrap();
            let mut out = vec![];
            let mut pos = 0;
            while let Some(found) = r.find_from_pos(text, pos).unwrap() {
                out.push(found.as_str().to_owned());
                pos = found.end().max(found.start() + 1);
                if pos > text.len() {
                    break;
                }
            }
            out
        };
        assert_eq!(m("a$", "a\na\n"), ["a"]);
        assert_eq!(m(r"\s+", "x\x1c\x1dy z"), ["\x1c\x1d", " "]);
        assert_eq!(m("^a", "aa"), ["a"]);
        assert_eq!(m("x{2}", "xxxxx"), ["xx", "xx"]);
        assert_eq!(m(r"[.\]]", "a.b]"), [".", "]"]);
        assert_eq!(m("[[]", "a[b"), ["["]);
        assert_eq!(m("<p", "a <p> b<pre>"), ["<p", "<p"]);
        assert_eq!(m(r"\<p\>", "<p>"), ["<p>"]);
    }
}
