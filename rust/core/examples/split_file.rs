//! Splits a file with the default recursive strategy and prints the throughput: `cargo run --release --example
//! split_file -- PATH [SIZE] [STRATEGY] [ENCODING]` (a tiktoken encoding measures in tokens, with a new memo every round). For profiling the
//! core without Python.

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
    // A new splitter (and token memo) every round: the cold case.
    let make = || {
        let mut config = SplitterConfig::new(strategy, size);
        if let Some(encoding) = &encoding {
            let counter = chunkwise_core::TokenCounter::tiktoken(encoding).expect("bad encoding");
            config.tokenizer = Some(std::sync::Arc::new(counter));
            config.unit = chunkwise_core::Unit::Tokens;
        }
        Splitter::new(config).expect("bad config")
    };
    let rounds = 10;
    let mut n = 0;
    let mut elapsed = std::time::Duration::ZERO;
    for _ in 0..rounds {
        let splitter = make();
        let t0 = std::time::Instant::now();
        n = splitter.split(&text).expect("a readable text").len();
        elapsed += t0.elapsed();
    }
    let secs = elapsed.as_secs_f64() / rounds as f64;
    println!(
        "{path}: {n} chunks, {:.1} MB/s",
        text.len() as f64 / secs / 1e6
    );
}
