//! A model's window: how many tokens the embedding model behind a tokenizer takes, read from the files of its folder
//! (the layout of sentence-transformers and transformers models), so that chunks can be capped at what it embeds.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ChunkError;

/// Where a model folder says how many tokens the model takes, in the order they are read: sentence-transformers
/// truncates at `max_seq_length` (often below what the network could take), transformers at `model_max_length`.
const WINDOW_KEYS: [(&str, &str); 2] = [
    ("sentence_bert_config.json", "max_seq_length"),
    ("tokenizer_config.json", "model_max_length"),
];

/// A `model_max_length` at or above this is transformers' "no limit" placeholder (`int(1e30)`), not a window.
const NO_LIMIT: u64 = 1 << 40;

/// A model's tokenizer and window, read from its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFiles {
    /// The text of its `tokenizer.json`.
    pub tokenizer_json: String,
    /// The most tokens the model takes, its special tokens included.
    pub window: usize,
    /// The file and key the window was read from ("sentence_bert_config.json: max_seq_length").
    pub window_from: String,
}

impl ModelFiles {
    /// Reads a model folder, or a `tokenizer.json` with the model's configuration files beside it. The window is
    /// the first of `max_seq_length` (sentence_bert_config.json) and `model_max_length` (tokenizer_config.json)
    /// found; an error names what is missing when neither gives one.
    pub fn read(path: &Path) -> Result<Self, ChunkError> {
        if !path.exists() {
            return Err(ChunkError::invalid(
                "path",
                format!(
                    "{} does not exist (a model folder, or its tokenizer.json)",
                    path.display()
                ),
            ));
        }
        let (folder, tokenizer) = if path.is_dir() {
            (path.to_path_buf(), path.join("tokenizer.json"))
        } else {
            let folder = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
            (folder, path.to_path_buf())
        };
        let tokenizer_json = std::fs::read_to_string(&tokenizer).map_err(|e| {
            ChunkError::invalid("path", format!("cannot read {}: {e}", tokenizer.display()))
        })?;
        let mut looked = Vec::new();
        for (file, key) in WINDOW_KEYS {
            let at = folder.join(file);
            looked.push(format!("{file} ({key})"));
            let Ok(text) = std::fs::read_to_string(&at) else {
                continue;
            };
            let config: Value = serde_json::from_str(&text).map_err(|e| {
                ChunkError::invalid("path", format!("{} is not valid JSON: {e}", at.display()))
            })?;
            match config.get(key) {
                None | Some(Value::Null) => continue,
                // Too big for an int (int(1e30) reads as a float): the placeholder too.
                Some(v) if v.as_f64().is_some_and(|f| f >= NO_LIMIT as f64) => continue,
                Some(v) => match v.as_u64() {
                    Some(n) if n >= 1 => {
                        return Ok(Self {
                            tokenizer_json,
                            window: usize::try_from(n).unwrap_or(usize::MAX),
                            window_from: format!("{file}: {key}"),
                        })
                    }
                    _ => {
                        return Err(ChunkError::invalid(
                            "path",
                            format!("{}: {key} must be a positive int, got {v}", at.display()),
                        ))
                    }
                },
            }
        }
        Err(ChunkError::invalid(
            "path",
            format!(
                "no window is known for the model in {}: none of {} gives one (pass size= instead)",
                folder.display(),
                looked.join(", ")
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder with these files, removed when dropped.
    struct Folder(PathBuf);

    impl Folder {
        fn new(name: &str, files: &[(&str, &str)]) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("chunkwise-window-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("a temporary folder");
            for (file, text) in files {
                std::fs::write(dir.join(file), text).expect("a file written");
            }
            Self(dir)
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn max_seq_length_comes_first_then_model_max_length() {
        let both = Folder::new(
            "both",
            &[
                ("tokenizer.json", "{}"),
                ("sentence_bert_config.json", r#"{"max_seq_length": 256}"#),
                ("tokenizer_config.json", r#"{"model_max_length": 512}"#),
            ],
        );
        let m = ModelFiles::read(&both.0).expect("a window");
        assert_eq!(
            (m.window, m.window_from.as_str()),
            (256, "sentence_bert_config.json: max_seq_length")
        );
        // The tokenizer.json itself names the folder too.
        assert_eq!(
            ModelFiles::read(&both.0.join("tokenizer.json"))
                .expect("a window")
                .window,
            256
        );
        let transformers = Folder::new(
            "transformers",
            &[
                ("tokenizer.json", "{}"),
                ("tokenizer_config.json", r#"{"model_max_length": 512}"#),
            ],
        );
        assert_eq!(
            ModelFiles::read(&transformers.0).expect("a window").window,
            512
        );
    }

    #[test]
    fn a_missing_window_or_tokenizer_is_an_error_naming_what_is_missing() {
        let placeholder = Folder::new(
            "placeholder",
            &[
                ("tokenizer.json", "{}"),
                (
                    "tokenizer_config.json",
                    r#"{"model_max_length": 1000000000000000019884624838656}"#,
                ),
            ],
        );
        let e = ModelFiles::read(&placeholder.0)
            .expect_err("no window")
            .to_string();
        assert!(
            e.contains("max_seq_length") && e.contains("model_max_length") && e.contains("size="),
            "{e}"
        );
        let bad = Folder::new(
            "bad",
            &[
                ("tokenizer.json", "{}"),
                ("sentence_bert_config.json", r#"{"max_seq_length": "x"}"#),
            ],
        );
        let e = ModelFiles::read(&bad.0)
            .expect_err("not an int")
            .to_string();
        assert!(e.contains("max_seq_length must be a positive int"), "{e}");
        let empty = Folder::new("empty", &[]);
        let e = ModelFiles::read(&empty.0)
            .expect_err("no tokenizer.json")
            .to_string();
        assert!(e.contains("tokenizer.json"), "{e}");
    }
}
