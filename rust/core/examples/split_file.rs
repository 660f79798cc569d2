//! Splits a file with the default recursive strategy and prints the throughput: `cargo run --release --example
//! split_file -- PATH [SIZE] [STRATEGY] [TOKENIZER]` (a tiktoken encoding's name, or a tokenizer.json's path, measures
//! in tokens, with a new memo every round; CHUNKWISE_WARM=1 keeps one memo, filled by a round outside the timing, and
//! CHUNKWISE_HELD_OUT=PATH fills it from another text instead; CHUNKWISE_WARM=1 CHUNKWISE_COUNT=1 times only the counter's count of the whole text). For profiling the core without
//! Python.

use chunkwise_core::{Splitter, SplitterConfig, Strategy};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: split_file PATH [SIZE] [STRATEGY]");
    let size: usize = args
        .next()
        .map_or(512, |s| s.parse().expect("SIZE must be an integer"));
    let strategy: Strategy = args
        .next()
        .map_or(Ok(Strategy::Recursive), |s| s.parse())
        .expect("bad strategy");
    let text = std::fs::read_to_string(&path).expect("cannot read PATH as UTF-8");
    let encoding = args.next();
    let counter = || {
        let encoding = encoding.as_ref()?;
        Some(std::sync::Arc::new(if encoding.ends_with(".json") {
            let json = std::fs::read_to_string(encoding).expect("cannot read the tokenizer.json");
            chunkwise_core::TokenCounter::from_hf_json(&json, false).expect("bad tokenizer.json")
        } else {
            chunkwise_core::TokenCounter::tiktoken(encoding).expect("bad encoding")
        }))
    };
    let warm = std::env::var_os("CHUNKWISE_WARM")
        .is_some()
        .then(counter)
        .flatten();
    // A new splitter every round, and a new token memo unless warm: the cold case.
    let make = || {
        let mut config = SplitterConfig::new(strategy, size);
        if let Some(counter) = warm.clone().or_else(counter) {
            config.tokenizer = Some(counter);
            config.unit = chunkwise_core::Unit::Tokens;
        }
        Splitter::new(config).expect("bad config")
    };
    if let (Some(c), Some(_)) = (&warm, std::env::var_os("CHUNKWISE_PIECES")) {
        // The tokenizer's own count (no memo) of each distinct word of the text with its space: what a new piece
        // costs.
        let mut words: Vec<&str> = text.split_inclusive(' ').collect();
        words.sort_unstable();
        words.dedup();
        let t0 = std::time::Instant::now();
        let n: usize = words.iter().map(|w| c.count_direct(w)).sum();
        let dt = t0.elapsed();
        let bytes: usize = words.iter().map(|w| w.len()).sum();
        println!(
            "{} distinct words, {bytes} bytes, {n} tokens: {:.0} ns a word",
            words.len(),
            dt.as_nanos() as f64 / words.len() as f64
        );
        return;
    }
    if let (Some(c), Some(_)) = (&warm, std::env::var_os("CHUNKWISE_COUNT")) {
        c.count(&text);
        let t0 = std::time::Instant::now();
        let mut n = 0;
        for _ in 0..10 {
            n = c.count(&text);
        }
        println!(
            "count {n}: {:.1} MB/s",
            text.len() as f64 * 10.0 / t0.elapsed().as_secs_f64() / 1e6
        );
        return;
    }
    let rounds: u32 = std::env::var("CHUNKWISE_ROUNDS")
        .map_or(10, |r| r.parse().expect("CHUNKWISE_ROUNDS: an integer"));
    if warm.is_some() {
        // The memo filled once, outside the timing: on this text, or on CHUNKWISE_HELD_OUT's (held-out text).
        let other = std::env::var("CHUNKWISE_HELD_OUT")
            .map(|p| std::fs::read_to_string(p).expect("cannot read CHUNKWISE_HELD_OUT"));
        make()
            .split(other.as_deref().unwrap_or(&text))
            .expect("a readable text");
    }
    let mut n = 0;
    let mut elapsed = std::time::Duration::ZERO;
    for _ in 0..rounds {
        let splitter = make();
        let t0 = std::time::Instant::now();
        n = splitter.split(&text).expect("a readable text").len();
        elapsed += t0.elapsed();
    }
    let secs = elapsed.as_secs_f64() / f64::from(rounds);
    println!(
        "{path}: {n} chunks, {:.1} MB/s",
        text.len() as f64 / secs / 1e6
    );
}
