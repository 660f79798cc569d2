//! Thai, Lao, Khmer and Myanmar text (tests/data, translated messages: see SOURCES.md) is never cut inside a word,
//! at any size. A word is what ICU4X's dictionary segmenter says of the whole file, read here directly and not
//! through the word emitter, whose windows see parts of the text.
//!
//! The positions inside words are also kept in tests/data/dictionary_words.json, for the Python tests (which have
//! no segmenter of their own); `UPDATE_SNAPSHOTS=1 cargo test` rewrites it.

use chunkwise_core::{Splitter, SplitterConfig, Strategy};
use icu_segmenter::options::WordBreakInvariantOptions;
use icu_segmenter::WordSegmenter;
use std::collections::BTreeMap;
use std::path::PathBuf;

const FILES: [&str; 4] = ["th.txt", "lo.txt", "km.txt", "my.txt"];

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

/// Letters and marks of the four scripts (the blocks, as this test reads them).
fn in_scripts(c: char) -> bool {
    matches!(c as u32, 0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x19E0..=0x19FF)
}

/// The byte offsets between two characters of the scripts where the dictionary puts no word boundary.
fn inside_words(text: &str) -> Vec<usize> {
    let segmenter = WordSegmenter::new_dictionary(WordBreakInvariantOptions::default());
    let bounds: std::collections::HashSet<usize> = segmenter.segment_str(text).collect();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    chars
        .windows(2)
        .filter(|w| in_scripts(w[0].1) && in_scripts(w[1].1) && !bounds.contains(&w[1].0))
        .map(|w| w[1].0)
        .collect()
}

#[test]
fn no_cut_inside_a_word() {
    let mut fixture = BTreeMap::new();
    for name in FILES {
        let text = std::fs::read_to_string(data().join(name)).expect("test data");
        let inside = inside_words(&text);
        assert!(inside.len() > 200, "{name}: the words have insides");
        for strategy in [Strategy::Recursive, Strategy::Sentence, Strategy::Clause] {
            for size in (16..=400).step_by(7) {
                let splitter = Splitter::new(SplitterConfig::new(strategy, size)).unwrap();
                let spans = splitter.split(&text).unwrap();
                for s in &spans {
                    for edge in [s.start, s.end] {
                        assert!(
                            inside.binary_search(&edge).is_err(),
                            "{name} {strategy:?} size {size}: cut inside a word at byte {edge}: {:?}|{:?}",
                            &text[s.start..edge],
                            &text[edge..(edge + 12).min(text.len())]
                        );
                    }
                }
            }
        }
        let char_offsets: Vec<usize> = inside.iter().map(|&b| text[..b].chars().count()).collect();
        fixture.insert(name, char_offsets);
    }
    let rendered = serde_json::to_string(&fixture).unwrap() + "\n";
    let path = data().join("dictionary_words.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &rendered).expect("write fixture");
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        rendered == expected,
        "tests/data/dictionary_words.json differs (UPDATE_SNAPSHOTS=1 to accept)"
    );
}
