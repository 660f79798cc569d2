//! The provision scanner of the clause strategy: provisions in order, each on one line with its marker and title
//! inside that line, depths 1 to 6, titles as the source has them; then the structure built from them.
#![no_main]

use chunkwise_core::size::Chars;
use chunkwise_core::structure::provisions::provisions;
use chunkwise_core::Structure;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = chunkwise_fuzz::decode_text(data);
    chunkwise_fuzz::debug_print(&text);
    let found = provisions(&text);
    for (i, p) in found.iter().enumerate() {
        for (what, pos) in [
            ("start", p.start),
            ("marker", p.marker),
            ("title_end", p.title_end),
        ] {
            assert!(
                pos <= text.len() && text.is_char_boundary(pos),
                "provision {i}: {what} {pos} is not a char boundary: {p:?}"
            );
        }
        assert!(
            p.start <= p.marker && p.marker < p.title_end,
            "provision {i}: start, marker, title end out of order: {p:?}"
        );
        assert!(
            p.start == 0 || text.as_bytes()[p.start - 1] == b'\n',
            "provision {i} does not start a line: {p:?}"
        );
        assert!(
            !text[p.start..p.title_end].contains('\n'),
            "provision {i}: its title runs past its line: {p:?}"
        );
        assert!((1..=6).contains(&p.depth), "provision {i} depth: {p:?}");
        assert_eq!(
            p.title,
            text[p.marker..p.title_end].replace("**", "").trim(),
            "provision {i}: title is not the source's"
        );
        assert!(!p.title.is_empty(), "provision {i}: empty title: {p:?}");
        if let Some(n) = found.get(i + 1) {
            assert!(
                n.start > p.start,
                "provisions out of order: {p:?} then {n:?}"
            );
        }
    }
    let mut s = Structure::from_provisions(&text, &found);
    chunkwise_fuzz::check_structure(&text, &s);
    let capacity = 1 + data.first().map_or(0, |&b| b as usize);
    s.size_includes_context = data.get(1).is_some_and(|b| b & 1 == 1);
    s.seal(&text, &Chars, capacity);
    chunkwise_fuzz::check_structure(&text, &s);
});
