// The corpus reader shared by the integration tests (tests/common/mod.rs) and the core's unit tests
// (src/tiktoken/mod.rs), included by both.

use std::path::PathBuf;

/// The corpus files, in the order the tests read them.
pub(super) const FILES: [&str; 5] = ["en.txt", "zh.txt", "ja.txt", "mixed.md", "code.py"];

/// `tests/data` at the repository root.
pub(super) fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

/// The first `limit` bytes (cut back to a char boundary) of each corpus file.
pub(super) fn corpus(limit: usize) -> Vec<(&'static str, String)> {
    FILES
        .iter()
        .map(|&name| {
            let path = dir().join(name);
            let mut text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("corpus file {}: {e}", path.display()));
            let mut cut = text.len().min(limit);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            (name, text)
        })
        .collect()
}
