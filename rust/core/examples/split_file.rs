//! Splits a file with the default recursive strategy and prints the throughput: `cargo run --release --example
//! split_file -- PATH [SIZE] [STRATEGY]`. For profiling the core without Python.

use chunkwise_core::{Splitter, SplitterConfig, Strategy};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: split_file PATH [SIZE] [STRATEGY]");
    let size: i64 = args
        .next()
        .map_or(512, |s| s.parse().expect("SIZE must be an integer"));
    let strategy =
        Strategy::parse(&args.next().unwrap_or_else(|| "recursive".into())).expect("bad strategy");
    let text = std::fs::read_to_string(&path).expect("cannot read PATH as UTF-8");
    let splitter = Splitter::new(SplitterConfig::new(strategy, size)).expect("bad config");
    let rounds = 10;
    let t0 = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..rounds {
        n = splitter.split(&text).len();
    }
    let secs = t0.elapsed().as_secs_f64() / rounds as f64;
    println!(
        "{path}: {n} chunks, {:.1} MB/s",
        text.len() as f64 / secs / 1e6
    );
}
