//! A guard against text that is not code parsed as code (prose in a file misnamed `.py`, `language=` forced on a
//! document): tree-sitter's error recovery over text far from its grammar takes time that grows faster than the
//! text (2 MB of Chinese prose as Python parsed at 0.7 MB/s where 0.25 MB parsed at 1.7 MB/s). Before a long text is
//! parsed whole, a few evenly spaced samples of it are parsed; when most of them are tokens the parser could place
//! nowhere, the text is no code of that language and is not parsed: it is cut at blank lines and lines, with a note.
//! The samples are bounded, so the guard's own work is too; the decision depends on the text alone, so the chunks
//! are the same on every machine.

use tree_sitter::{Node, Parser};

/// A text at most this long (in bytes) is parsed whatever it is: the parse of prose this long takes a fraction of
/// a second, and its time per byte has not grown much yet.
pub const GUARD_BYTES: usize = 128 * 1024;

/// How many samples, and how long each (in bytes, whole lines): at most a quarter of a text just over the guard.
const SAMPLES: usize = 4;
const SAMPLE_BYTES: usize = 8 * 1024;

/// Two measures of a sample, each from which it is no code (see [`Sample`]), taken as the median of the samples:
/// both must say so. Per thousand non-blank bytes, the bytes of tokens the parser placed in no node but an error:
/// code 0 to 110 in the samples of the tests' real files, more where a sample ends inside an unclosed construct (a
/// generated table's array: nearly all of it); prose of the corpus 20 to 830, most over 400. Per ten KB, the error
/// (or missing) nodes: code 0 to 70 (a generated table's array: 1), prose 11 to 460, most over 150.
const NOT_CODE_PER_MILLE: usize = 200;
const NOT_CODE_ERRORS_PER_10K: usize = 80;

/// What a parsed sample shows.
struct Sample {
    /// Bytes of tokens an error node holds directly, per thousand non-blank bytes.
    skipped_per_mille: usize,
    /// Error and missing nodes per 10 KB.
    errors_per_10k: usize,
}

/// Whether `text` is long and most of its samples, parsed by `parser`, are tokens no rule of the grammar takes.
pub(super) fn not_code(parser: &mut Parser, text: &str) -> bool {
    if text.len() <= GUARD_BYTES {
        return false;
    }
    let samples: Vec<Sample> = (0..SAMPLES)
        .filter_map(|i| {
            let at = (text.len() - SAMPLE_BYTES) * i / (SAMPLES - 1);
            let start = if i == 0 {
                0
            } else {
                top_level_after(text, at)?
            };
            let end = crate::offsets::floor_char_boundary(text, start + SAMPLE_BYTES);
            let end = top_level_before(text, start, end).unwrap_or(end);
            Some(measure(parser, &text[start..end]))
        })
        .collect();
    // The medians (the upper one of an even count).
    let median = |key: fn(&Sample) -> usize| {
        let mut values: Vec<usize> = samples.iter().map(key).collect();
        values.sort_unstable();
        values.get(values.len() / 2).copied().unwrap_or(0)
    };
    median(|s| s.skipped_per_mille) >= NOT_CODE_PER_MILLE
        && median(|s| s.errors_per_10k) >= NOT_CODE_ERRORS_PER_10K
}

/// Where the first line at or after `at` starts that follows a blank line and is not indented (where a top-level
/// statement, or a paragraph, starts: a sample that starts inside an array of a generated table or inside a block
/// is no sample of the language), before the next sample's place.
fn top_level_after(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let end = (at + bytes.len() / SAMPLES).min(bytes.len());
    let mut from = at;
    while let Some(i) = memchr::memmem::find(&bytes[from..end], b"\n\n") {
        // Past the whole run of blank lines.
        let mut p = from + i + 2;
        while bytes.get(p) == Some(&b'\n') {
            p += 1;
        }
        if bytes.get(p).is_some_and(|b| !b.is_ascii_whitespace()) {
            return Some(p);
        }
        from = p.min(end);
    }
    None
}

/// The last such line start in `start..end` past the sample's first half, if any: a sample ends at one.
fn top_level_before(text: &str, start: usize, end: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let from = start + (end - start) / 2;
    memchr::memmem::rfind_iter(&bytes[from..end], b"\n\n")
        .map(|i| from + i + 2)
        .find(|&p| bytes.get(p).is_some_and(|b| !b.is_ascii_whitespace()))
}

/// What the parse of `sample` shows.
fn measure(parser: &mut Parser, sample: &str) -> Sample {
    let Some(tree) = parser.parse(sample, None) else {
        parser.reset(); // (a stopped parse, kept to resume: the parser is shared across calls)
        return Sample {
            skipped_per_mille: 0,
            errors_per_10k: 0,
        };
    };
    let (mut skipped, mut errors) = (0, 0);
    let mut stack: Vec<Node<'_>> = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            errors += 1;
        }
        if !node.is_error() && !node.has_error() {
            continue;
        }
        for child in node.children(&mut cursor) {
            if node.is_error() && child.child_count() == 0 {
                skipped += child.end_byte() - child.start_byte();
                errors += usize::from(child.is_missing());
            } else {
                stack.push(child);
            }
        }
    }
    let solid = sample.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    Sample {
        skipped_per_mille: skipped * 1000 / solid.max(1),
        errors_per_10k: errors * 10 * 1024 / sample.len().max(1),
    }
}
