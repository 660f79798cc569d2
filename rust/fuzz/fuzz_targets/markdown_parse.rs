//! The Markdown parser alone, against its own invariants, then sealed for a few capacities (the no-cut ranges and
//! the context budget read every part of the structure) and asked for the path at every cut.
#![no_main]

use chunkwise_core::size::Chars;
use chunkwise_core::structure::markdown;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = chunkwise_fuzz::decode_text(data);
    chunkwise_fuzz::debug_print(&text);
    let parsed = markdown::parse(&text);
    chunkwise_fuzz::check_markdown(&text, &parsed);
    let capacity = 1 + data.first().map_or(0, |&b| b as usize);
    for includes_context in [false, true] {
        let mut s = parsed.clone();
        s.size_includes_context = includes_context;
        s.seal(&text, &Chars, capacity);
        chunkwise_fuzz::check_structure(&text, &s);
        for b in &s.bounds {
            let path = s.path_at(b.pos);
            for w in path.windows(2) {
                assert!(
                    s.headings[w[0]].depth < s.headings[w[1]].depth,
                    "path_at({}) {path:?} is not an ancestry",
                    b.pos
                );
            }
        }
    }
});
