//! What the fuzz targets share: turning fuzz bytes into a configuration and a text, and the invariants every
//! chunking and every parse must keep, checked independently of the code under test where that is cheap (grapheme
//! boundaries from `unicode-segmentation`, char offsets recounted).
//!
//! An input is an 8-byte header (the configuration, see [`Input::decode`]) followed by the text. The text is read as
//! UTF-8; each byte that is not part of a valid sequence stands for one token of [`ALPHABET`], so the mutator reaches
//! the markup and line terminators that matter (`#`, fences, `\r`, U+2028, table pipes, provision markers) with one
//! byte, while seeds cut from real text stay real text.

use std::fmt;

use chunkwise_core::structure::{join, markdown, Structure};
use chunkwise_core::{KeepSeparator, Span, Splitter, SplitterConfig, Strategy, TableFormat};
use unicode_segmentation::UnicodeSegmentation;

/// What an invalid UTF-8 byte of the text stands for: structure, every Unicode line terminator, the characters the
/// boundary rules single out, and multi-byte clusters.
pub const ALPHABET: &[&str] = &[
    "#",
    "# ",
    "## ",
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "\x0b",
    "\x0c",
    "\u{feff}",
    "```",
    "~~~",
    "|",
    "-",
    "- ",
    "*",
    "**",
    "1.",
    "1. ",
    "1)",
    "(1)",
    "(a)",
    "(i)",
    "（一）",
    "一、",
    "第一条",
    "第一章",
    "Article 1",
    "Section 1.01",
    "§ 1",
    "1.1 ",
    "。",
    "」",
    "「",
    "！",
    "、",
    "，",
    ",",
    ":",
    "：",
    ". ",
    "? ",
    " ",
    "    ",
    "\t",
    "\0",
    "é",
    "e\u{301}",
    "👨\u{200d}👩\u{200d}👧",
    "🇫🇷",
    "> ",
    "`",
    "\\",
    "\"",
    "| --- |",
    "|:-:|",
    "---",
    "<div>",
    "\u{3000}",
    "\u{200b}",
    "中",
    "あ",
    "한",
    "word",
    "def ",
    "}",
    "[^1]: ",
    "+++",
    "Title\n===",
];

/// The strategies and their variants the first header byte chooses from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Recursive,
    RecursiveSeparators,
    RecursiveRegex,
    Sentence,
    Paragraph,
    Fixed,
    FixedSnap,
    Markdown,
    Clause,
    TableMarkdown,
    TableCsv,
    TableTsv,
}

const VARIANTS: [Variant; 12] = [
    Variant::Recursive,
    Variant::RecursiveSeparators,
    Variant::RecursiveRegex,
    Variant::Sentence,
    Variant::Paragraph,
    Variant::Fixed,
    Variant::FixedSnap,
    Variant::Markdown,
    Variant::Clause,
    Variant::TableMarkdown,
    Variant::TableCsv,
    Variant::TableTsv,
];

/// Header length in bytes.
pub const HEADER: usize = 8;

/// A decoded fuzz input.
pub struct Input {
    pub variant: Variant,
    pub config: SplitterConfig,
    pub text: String,
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.config;
        write!(
            f,
            "{:?} size={:?} overlap={} min_size={} trim={} snap={} merge_sections={} size_includes_context={} \
             format={:?} rows_per_chunk={:?} separators={:?} regex={} keep={:?}\ntext={:?}",
            self.variant,
            c.size,
            c.overlap,
            c.min_size,
            c.trim,
            c.snap,
            c.merge_sections,
            c.size_includes_context,
            c.table_format,
            c.rows_per_chunk,
            c.separators,
            c.separators_regex,
            c.keep_separator,
            self.text
        )
    }
}

/// The text of `bytes`: valid UTF-8 kept, each other byte replaced by its [`ALPHABET`] token.
pub fn decode_text(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for &b in chunk.invalid() {
            text.push_str(ALPHABET[b as usize % ALPHABET.len()]);
        }
    }
    text
}

impl Input {
    /// Header bytes (missing ones read as 0):
    /// 0 variant; 1-2 size (1..=300); 3 overlap (0 below 128, else a fraction of size); 4 min_size (0 below 160);
    /// 5 flags: 1 trim off, 2 merge_sections off, 4 size_includes_context, 8 keep separators at the start;
    /// 6 snap (a fraction of size); 7 rows_per_chunk (0 below 128, else 0..=8).
    pub fn decode(data: &[u8]) -> Self {
        let h = |i: usize| data.get(i).copied().unwrap_or(0) as usize;
        let variant = VARIANTS[h(0) % VARIANTS.len()];
        let size = 1 + (h(1) << 8 | h(2)) % 300;
        let overlap = if h(3) < 128 {
            0
        } else {
            (h(3) - 128) * size / 128
        };
        let min_size = if h(4) < 160 {
            0
        } else {
            (h(4) - 160) * (size + 1) / 96
        };
        let flags = h(5);
        let strategy = match variant {
            Variant::Recursive | Variant::RecursiveSeparators | Variant::RecursiveRegex => {
                Strategy::Recursive
            }
            Variant::Sentence => Strategy::Sentence,
            Variant::Paragraph => Strategy::Paragraph,
            Variant::Fixed | Variant::FixedSnap => Strategy::Fixed,
            Variant::Markdown => Strategy::Markdown,
            Variant::Clause => Strategy::Clause,
            Variant::TableMarkdown | Variant::TableCsv | Variant::TableTsv => Strategy::Table,
        };
        let mut config = SplitterConfig::new(strategy, size);
        config.overlap = overlap;
        config.min_size = min_size;
        config.trim = flags & 1 == 0;
        config.merge_sections = flags & 2 == 0;
        config.size_includes_context = flags & 4 != 0;
        if flags & 8 != 0 {
            config.keep_separator = KeepSeparator::Start;
        }
        match variant {
            Variant::RecursiveSeparators => {
                config.separators =
                    Some(["\n\n", "\n", "。", ". ", " "].map(String::from).to_vec());
            }
            Variant::RecursiveRegex => {
                config.separators = Some(
                    [r"\n\s*\n", r"\r\n|\r|\n", r"[.!?。！？]\s*", r"\s+"]
                        .map(String::from)
                        .to_vec(),
                );
                config.separators_regex = true;
            }
            Variant::FixedSnap if size > 1 => config.snap = (h(6) * size / 256).max(1),
            Variant::TableCsv => config.table_format = TableFormat::Csv,
            Variant::TableTsv => config.table_format = TableFormat::Tsv,
            _ => {}
        }
        if h(7) >= 128 {
            config.rows_per_chunk = Some((h(7) - 128) % 9).filter(|&n| n > 0);
        }
        Input {
            variant,
            config,
            text: decode_text(data.get(HEADER..).unwrap_or_default()),
        }
    }
}

/// Prints the decoded input when `CHUNKWISE_FUZZ_DEBUG` is set (to read a crash artifact: run the target on it).
pub fn debug_print(what: &dyn fmt::Debug) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("CHUNKWISE_FUZZ_DEBUG").is_some()) {
        eprintln!("{what:?}");
    }
}

/// The grapheme cluster boundaries of `text` (`true` at each boundary byte offset, ends included).
pub fn grapheme_boundaries(text: &str) -> Vec<bool> {
    let mut at = vec![false; text.len() + 1];
    for (i, _) in text.grapheme_indices(true) {
        at[i] = true;
    }
    at[text.len()] = true;
    at
}

fn one_grapheme(piece: &str) -> bool {
    piece.graphemes(true).nth(1).is_none()
}

/// Checks the spans of `text` against the invariants of every strategy (unit: chars).
pub fn check_spans(splitter: &Splitter, text: &str, spans: &[Span]) {
    let config = splitter.config();
    let size = config.size.unwrap_or(usize::MAX);
    let overlap = config.overlap;
    let graphemes = grapheme_boundaries(text);
    let mut prev: Option<&Span> = None;
    let mut covered = 0;
    for (i, s) in spans.iter().enumerate() {
        assert!(
            s.start < s.end && s.end <= text.len(),
            "span {i} empty or out of range: {s:?} (text of {} bytes)",
            text.len()
        );
        assert!(
            text.is_char_boundary(s.start) && text.is_char_boundary(s.end),
            "span {i} not on char boundaries: {s:?}"
        );
        assert!(
            graphemes[s.start] && graphemes[s.end],
            "span {i} cuts a grapheme cluster: {s:?} {:?}",
            &text[s.start..s.end]
        );
        let piece = &text[s.start..s.end];
        assert_eq!(s.size, piece.chars().count(), "span {i} size field: {s:?}");
        assert!(
            s.size <= size || one_grapheme(piece),
            "span {i} of {} chars > size {size}: {piece:?}",
            s.size
        );
        if config.trim {
            // Whitespace that starts a cluster (" \u{301}") stays: a chunk never starts inside one.
            let first = piece.graphemes(true).next().unwrap_or("");
            assert_eq!(
                piece.trim_end(),
                piece,
                "span {i} untrimmed at its end: {piece:?}"
            );
            assert!(
                first.chars().count() > 1 || piece.trim_start() == piece,
                "span {i} untrimmed at its start: {piece:?}"
            );
        }
        if let Some(p) = prev {
            assert!(
                s.start > p.start && s.end > p.end,
                "span {i}: offsets must increase: {p:?} then {s:?}"
            );
            if s.start < p.end {
                let shared = text[s.start..p.end].chars().count();
                assert!(
                    shared <= overlap,
                    "spans {} and {i} share {shared} chars > overlap {overlap}: {:?}",
                    i - 1,
                    &text[s.start..p.end]
                );
            }
        }
        // Nothing but whitespace (and a byte order mark that starts the text) is ever left out.
        if s.start > covered {
            let gap = &text[covered..s.start];
            let gap = if covered == 0 {
                gap.trim_start_matches('\u{feff}')
            } else {
                gap
            };
            assert!(gap.trim().is_empty(), "text lost before span {i}: {gap:?}");
        }
        covered = covered.max(s.end);
        let _ = splitter.level_name(s.level);
        prev = Some(s);
    }
    let tail = &text[covered..];
    let tail = if covered == 0 {
        tail.trim_start_matches('\u{feff}')
    } else {
        tail
    };
    assert!(tail.trim().is_empty(), "text lost at the end: {tail:?}");
    if config.trim && text.trim_start_matches('\u{feff}').trim().is_empty() {
        assert!(spans.is_empty(), "chunks of a blank text: {spans:?}");
    }
    if !config.trim && overlap == 0 {
        let joined: String = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(
            joined, text,
            "trim=false, overlap=0 must give the text back"
        );
    }
    // Python's str offsets, counted again (spans start in increasing order).
    let chars = splitter.char_spans(text, spans);
    assert_eq!(chars.len(), spans.len());
    let (mut byte, mut start) = (0, 0);
    for (s, &(a, b)) in spans.iter().zip(&chars) {
        start += text[byte..s.start].chars().count();
        byte = s.start;
        assert_eq!(
            (a, b),
            (start, start + text[s.start..s.end].chars().count()),
            "char_spans of {s:?}"
        );
    }
}

/// Checks what [`Splitter::describe`] says of each span: paths are heading ancestries, table rows are in range, and
/// with `size_includes_context` a context and its text fit the size together.
pub fn check_describe(splitter: &Splitter, text: &str, spans: &[Span], structure: &Structure) {
    let infos = splitter.describe(text, spans, structure).chunks;
    assert_eq!(infos.len(), spans.len(), "one SpanInfo per span");
    let config = splitter.config();
    let size = config.size.unwrap_or(usize::MAX);
    for (i, (s, info)) in spans.iter().zip(&infos).enumerate() {
        for w in info.path.windows(2) {
            assert!(
                w[0] < w[1] && structure.headings[w[0]].depth < structure.headings[w[1]].depth,
                "span {i}: path {:?} is not an ancestry",
                info.path
            );
        }
        if let Some(&last) = info.path.last() {
            assert!(last < structure.headings.len());
            assert!(
                structure.headings[last].start <= s.start,
                "span {i}: path ends with a heading after the span's start"
            );
        }
        if let Some(r) = info.rows {
            assert!(
                r.first <= r.past && r.past <= r.total,
                "span {i}: rows {:?}",
                info.rows
            );
        }
        if config.size_includes_context && !info.context.is_empty() {
            let context = splitter.size_of(&info.context);
            let joint = splitter.size_of(join(info.inline_join));
            let piece = &text[s.start..s.end];
            assert!(
                context + joint + s.size <= size || one_grapheme(piece),
                "span {i}: context ({context}) + join ({joint}) + text ({}) > size {size}: {:?} + {piece:?}",
                s.size,
                info.context
            );
        }
    }
}

/// Checks a parsed structure against its own invariants: cuts sorted inside the text, ranges sorted and on char
/// boundaries, headings in order with their line start before their content.
pub fn check_structure(text: &str, s: &Structure) {
    let boundary = |p: usize, what: &str| {
        assert!(
            p <= text.len() && text.is_char_boundary(p),
            "{what} at {p} is not a char boundary of a {}-byte text",
            text.len()
        );
    };
    for w in s.bounds.windows(2) {
        assert!(
            w[0].pos < w[1].pos,
            "bounds not sorted: {:?} then {:?}",
            w[0],
            w[1]
        );
    }
    for b in &s.bounds {
        assert!(b.pos > 0 && b.pos < text.len(), "bound at an edge: {b:?}");
        boundary(b.pos, "bound");
    }
    for (i, v) in s.verbatim.iter().enumerate() {
        assert!(v.start <= v.end, "verbatim {v:?} reversed");
        boundary(v.start, "verbatim start");
        boundary(v.end, "verbatim end");
        if let Some(n) = s.verbatim.get(i + 1) {
            assert!(
                v.end <= n.start,
                "verbatim ranges overlap or are unsorted: {v:?} then {n:?}"
            );
        }
    }
    for w in s.blocks.windows(2) {
        assert!(
            w[0].range.start <= w[1].range.start,
            "blocks not sorted: {:?} then {:?}",
            w[0].range,
            w[1].range
        );
    }
    for b in &s.blocks {
        assert!(b.range.start <= b.range.end, "block {:?} reversed", b.range);
        boundary(b.range.start, "block start");
        boundary(b.range.end, "block end");
    }
    for (i, h) in s.headings.iter().enumerate() {
        assert!((1..=6).contains(&h.depth), "heading {i} depth {}", h.depth);
        assert!(
            h.start <= h.content && h.content <= h.end,
            "heading {i}: start {} content {} end {}",
            h.start,
            h.content,
            h.end
        );
        boundary(h.start, "heading start");
        boundary(h.content, "heading content");
        boundary(h.end, "heading end");
        if let Some(n) = s.headings.get(i + 1) {
            assert!(
                h.end <= n.start,
                "headings {i} and {} overlap or are unsorted: {h:?} then {n:?}",
                i + 1
            );
        }
    }
}

/// The Markdown parser's own invariants besides [`check_structure`]: a heading starts at a line start (after a
/// CommonMark line ending: `\n`, `\r` or `\r\n`), and only indentation comes between that and its content.
pub fn check_markdown(text: &str, s: &Structure) {
    check_structure(text, s);
    for (i, h) in s.headings.iter().enumerate() {
        let before = &text[..h.start];
        assert!(
            before.is_empty() || before.ends_with('\n') || before.ends_with('\r'),
            "heading {i} does not start at a line start: {h:?}"
        );
        let indent = &text[h.start..h.content];
        let indent = if h.start == 0 {
            indent.trim_start_matches('\u{feff}')
        } else {
            indent
        };
        assert!(
            indent.bytes().all(|b| b == b' ' || b == b'\t'),
            "heading {i}: more than indentation before its content: {indent:?}"
        );
    }
    for b in &s.blocks {
        if let chunkwise_core::structure::BlockKind::Table { header, rows, .. } = &b.kind {
            assert!(
                b.range.start <= header.start && header.end <= b.range.end,
                "table header {header:?} outside its block {:?}",
                b.range
            );
            for w in rows.windows(2) {
                assert!(w[0] < w[1], "table rows unsorted: {rows:?}");
            }
        }
    }
}

/// Splits `text` with `splitter` and checks everything: the spans, the structure, the description.
pub fn run(splitter: &Splitter, text: &str) {
    let (spans, structure) = match splitter.split_structured(text) {
        Ok(r) => r,
        Err(e) => {
            // Only a table strategy may refuse a text (it is not a table).
            assert_eq!(
                splitter.config().strategy,
                Strategy::Table,
                "split failed: {e}"
            );
            return;
        }
    };
    check_spans(splitter, text, &spans);
    if let Some(s) = &structure {
        check_structure(text, s);
        check_describe(splitter, text, &spans, s);
    }
    if splitter.config().strategy == Strategy::Markdown {
        check_markdown(text, &markdown::parse(text));
    }
}

/// One decoded input through the engine.
pub fn split_all(data: &[u8]) {
    let input = Input::decode(data);
    debug_print(&input);
    let splitter = Splitter::new(input.config.clone())
        .unwrap_or_else(|e| panic!("the decoder builds valid configurations only: {e}"));
    run(&splitter, &input.text);
}
