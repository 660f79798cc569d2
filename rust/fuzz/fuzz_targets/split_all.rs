//! The engine through every strategy: the header picks the strategy and its settings, the rest is the text
//! (see `chunkwise_fuzz::Input::decode`); every invariant of the spans, the structure and the description is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| chunkwise_fuzz::split_all(data));
