//! Texts given as bytes (the command line reads its files without decoding them), checked as UTF-8 with SIMD.

/// Each of `raw` as text, or `None` where it is not UTF-8 (for the caller to report text by text); checked in
/// parallel.
pub fn texts<'a>(raw: &[&'a [u8]]) -> Vec<Option<&'a str>> {
    use rayon::prelude::*;
    raw.par_iter()
        .map(|b| simdutf8::basic::from_utf8(b).ok())
        .collect()
}

/// The longest start of `bytes` that is UTF-8: what can be judged of a text whose error is someone else's to report.
pub fn prefix(bytes: &[u8]) -> &str {
    match simdutf8::compat::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_that_are_not_utf8_are_none_in_place() {
        let raw: [&[u8]; 4] = [b"plain", "d\u{e9}j\u{e0}".as_bytes(), b"bad \xff byte", b""];
        assert_eq!(texts(&raw), [Some("plain"), Some("déjà"), None, Some("")]);
        assert!(texts(&[]).is_empty());
    }

    #[test]
    fn the_prefix_ends_before_the_first_byte_that_is_not_utf8() {
        assert_eq!(prefix("# Titre é".as_bytes()), "# Titre é");
        assert_eq!(prefix(b"# Title\n\xffrest"), "# Title\n");
        // A character cut at the end is left out whole.
        assert_eq!(prefix(&"ab日".as_bytes()[..4]), "ab");
        assert_eq!(prefix(b"\xff"), "");
    }
}
