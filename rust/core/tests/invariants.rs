//! Every strategy, over the sample document, hand-made edge cases and the repository's corpus (tests/data): the
//! invariants that must hold for any input.

mod common;

use chunkwise_core::boundary::is_grapheme_boundary;
use chunkwise_core::{Level, Restart, Span, Splitter, SplitterConfig, Strategy};

/// Every strategy that reads any text (the table strategy reads tables only: see `tables`).
const STRATEGIES: [Strategy; 6] = [
    Strategy::Recursive,
    Strategy::Sentence,
    Strategy::Paragraph,
    Strategy::Fixed,
    Strategy::Markdown,
    Strategy::Clause,
];

fn splitter(strategy: Strategy, size: i64, overlap: i64, trim: bool) -> Splitter {
    splitter_with(strategy, size, overlap, trim, |_| {})
}

fn splitter_with(
    strategy: Strategy,
    size: i64,
    overlap: i64,
    trim: bool,
    more: impl FnOnce(&mut SplitterConfig),
) -> Splitter {
    let mut config = SplitterConfig::new(strategy, size as usize);
    config.overlap = overlap as usize;
    config.trim = trim;
    if strategy == Strategy::Fixed {
        config.snap = size as usize / 4;
    }
    more(&mut config);
    Splitter::new(config).expect("valid config")
}

fn check(text: &str, spans: &[Span], size: usize, overlap: usize, trim: bool) {
    let mut prev: Option<Span> = None;
    for s in spans {
        assert!(
            s.start < s.end && s.end <= text.len(),
            "empty or out of range: {s:?}"
        );
        assert!(
            is_grapheme_boundary(text, s.start) && is_grapheme_boundary(text, s.end),
            "cut in a cluster: {s:?}"
        );
        let piece = &text[s.start..s.end];
        assert_eq!(s.size, piece.chars().count(), "size field");
        let one_cluster =
            unicode_segmentation::UnicodeSegmentation::graphemes(piece, true).count() == 1;
        assert!(
            s.size <= size || one_cluster,
            "chunk of {} > {size}: {piece:?}",
            s.size
        );
        if trim {
            assert_eq!(piece.trim(), piece, "untrimmed chunk");
        }
        if let Some(p) = prev {
            assert!(
                s.start > p.start && s.end > p.end,
                "offsets must increase: {p:?} then {s:?}"
            );
            if s.start < p.end {
                assert!(
                    text[s.start..p.end].chars().count() <= overlap,
                    "overlap too large"
                );
            }
        }
        prev = Some(*s);
    }
    if !trim && overlap == 0 {
        let joined: String = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(
            joined, text,
            "trim=false, overlap=0 must reconstruct the text"
        );
    }
    // Nothing but whitespace is ever left out.
    let mut covered = 0;
    for s in spans {
        if s.start > covered {
            assert!(
                text[covered..s.start].trim().is_empty(),
                "lost text: {:?}",
                &text[covered..s.start]
            );
        }
        covered = covered.max(s.end);
    }
    assert!(text[covered..].trim().is_empty(), "lost tail");
}

fn run_all(text: &str) {
    for strategy in STRATEGIES {
        for (size, overlap) in [(1, 0), (7, 2), (64, 0), (200, 40), (1000, 100)] {
            for trim in [true, false] {
                let spans = splitter(strategy, size, overlap, trim).split(text).unwrap();
                check(text, &spans, size as usize, overlap as usize, trim);
            }
        }
    }
}

#[test]
fn edge_cases() {
    for text in [
        "",
        " ",
        "\n\n\n",
        "éé",
        "e\u{301}e\u{301}e\u{301}",
        "👨\u{200d}👩\u{200d}👧👨\u{200d}👩\u{200d}👧",
        "。」",
        "你好。」世界！",
        "a\r\nb\r\n\r\nc",
        "\r\n\r\n",
        "한국어 문장입니다. 두 번째 문장.",
        "שלום עולם. مرحبا بالعالم؟ done",
        "nul\0byte\0text",
        "Short. Text? Yes!",
    ] {
        run_all(text);
    }
}

#[test]
fn sample_document() {
    let text = include_str!("../../../samples/sample.md");
    run_all(text);
    let spans = splitter(Strategy::Recursive, 200, 0, true)
        .split(text)
        .unwrap();
    // No chunk starts with closing or clause punctuation.
    for s in &spans {
        let first = text[s.start..].chars().next().unwrap();
        assert!(
            !chunkwise_core::boundary::is_pause(first)
                && !chunkwise_core::boundary::is_closing(first)
        );
    }
    assert_eq!(spans.last().unwrap().level, Level::END);
}

#[test]
fn corpus_files() {
    for (_, text) in common::corpus(300_000) {
        let text = text.as_str();
        for strategy in STRATEGIES {
            for (size, overlap) in [(256, 0), (512, 50), (2048, 0)] {
                let spans = splitter(strategy, size, overlap, true).split(text).unwrap();
                check(text, &spans, size as usize, overlap as usize, true);
            }
        }
    }
}

#[test]
fn fixed_windows_that_restart() {
    let sample = include_str!("../../../samples/sample.md");
    let corpus = common::corpus(300_000);
    let texts = std::iter::once(sample).chain(corpus.iter().map(|(_, t)| t.as_str()));
    for text in texts {
        for restart in [Restart::Paragraph, Restart::Line] {
            for (size, overlap) in [(7, 2), (256, 0), (512, 50)] {
                for trim in [true, false] {
                    let splitter = splitter_with(Strategy::Fixed, size, overlap, trim, |c| {
                        c.restart = Some(restart);
                    });
                    let spans = splitter.split(text).unwrap();
                    check(text, &spans, size as usize, overlap as usize, trim);
                }
            }
        }
    }
}

#[test]
fn tables() {
    let markdown =
        std::fs::read_to_string(common::dir().join("table.md")).expect("tests/data/table.md");
    let csv: String = std::iter::once("id,name,notes\n".to_owned())
        .chain((0..300).map(|i| format!("{i},\"row {i}\",\"{}\"\n", "word ".repeat(i % 17))))
        .collect();
    let tsv = csv.replace(',', "\t");
    for (format, text) in [("markdown", &markdown), ("csv", &csv), ("tsv", &tsv)] {
        for (size, overlap) in [(1, 0), (40, 0), (200, 40), (1000, 100)] {
            for trim in [true, false] {
                for rows in [0, 3] {
                    let splitter = splitter_with(Strategy::Table, size, overlap, trim, |c| {
                        c.table_format = format.parse().unwrap();
                        c.rows_per_chunk = (rows > 0).then_some(rows);
                    });
                    let spans = splitter.split(text).expect("a table");
                    check(text, &spans, size as usize, overlap as usize, trim);
                }
            }
        }
    }
}

#[test]
fn greedy_prefers_strong_boundaries() {
    let text = "First paragraph here.\n\nSecond one, which is longer. It has two sentences.";
    let s = splitter(Strategy::Recursive, 40, 0, true)
        .split(text)
        .unwrap();
    let pieces: Vec<&str> = s.iter().map(|s| &text[s.start..s.end]).collect();
    assert_eq!(
        pieces,
        [
            "First paragraph here.",
            "Second one, which is longer.",
            "It has two sentences."
        ]
    );
    assert_eq!(s[0].level, Level::PARAGRAPH);
    assert_eq!(s[1].level, Level::SENTENCE);
}

#[test]
fn overlap_is_whole_words() {
    let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
    let s = splitter(Strategy::Recursive, 30, 12, true)
        .split(text)
        .unwrap();
    for w in s.windows(2) {
        let overlap = &text[w[1].start..w[0].end.max(w[1].start)];
        assert!(overlap.is_empty() || text[w[1].start..].starts_with(overlap.trim_start()));
        assert!(
            text[..w[1].start].ends_with(' '),
            "overlap must start at a word"
        );
    }
    assert!(
        s.windows(2).any(|w| w[1].start < w[0].end),
        "some overlap expected"
    );
}

/// Renders chunks one per line: byte span, level and the text with newlines shown.
fn render(splitter: &Splitter, text: &str, spans: &[Span]) -> String {
    spans
        .iter()
        .map(|s| {
            format!(
                "{}..{} {} {:?}\n",
                s.start,
                s.end,
                splitter.level_name(s.level),
                &text[s.start..s.end]
            )
        })
        .collect()
}

/// Snapshots of every strategy on the sample document, invariants checked first. A change in where the cuts fall
/// shows up here as a diff; `UPDATE_SNAPSHOTS=1 cargo test` rewrites the files after review.
#[test]
fn snapshots_of_the_sample_document() {
    let text = include_str!("../../../samples/sample.md");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let cases = [
        ("recursive_200", Strategy::Recursive, 200, 0),
        ("recursive_120_overlap_30", Strategy::Recursive, 120, 30),
        ("sentence_160", Strategy::Sentence, 160, 0),
        ("paragraph_300", Strategy::Paragraph, 300, 0),
        ("fixed_100_snap_25", Strategy::Fixed, 100, 0),
    ];
    for (name, strategy, size, overlap) in cases {
        let splitter = splitter(strategy, size, overlap, true);
        let spans = splitter.split(text).unwrap();
        check(text, &spans, size as usize, overlap as usize, true);
        let rendered = render(&splitter, text, &spans);
        let path = dir.join(format!("{name}.snap"));
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(&path, &rendered).expect("write snapshot");
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            rendered, expected,
            "snapshot {name} differs (UPDATE_SNAPSHOTS=1 to accept)"
        );
    }
}

#[test]
fn batch_equals_one_at_a_time() {
    let text = include_str!("../../../samples/sample.md");
    let docs: Vec<&str> = (0..text.len())
        .step_by(97)
        .filter(|&i| text.is_char_boundary(i))
        .map(|i| &text[i..])
        .collect();
    let splitter = splitter(Strategy::Recursive, 90, 20, true);
    let batch = splitter.split_batch(&docs);
    assert_eq!(batch.len(), docs.len());
    for (doc, spans) in docs.iter().zip(&batch) {
        assert_eq!(spans.as_ref().unwrap(), &splitter.split(doc).unwrap());
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let tables = splitter(Strategy::Table, 100, 0, true);
    let err = tables.split("no table here").unwrap_err().to_string();
    assert!(err.contains("table"), "{err}");
    let batch = tables.split_batch(&["| a |\n|---|\n| 1 |\n", "prose"]);
    assert_eq!(batch[0].as_ref().unwrap().len(), 1);
    assert!(batch[1].is_err());
}
