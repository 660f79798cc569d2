//! Where CodeChunker's time goes on each file, without Python: `cargo run --release --example code_speed -- SIZE
//! LANGUAGE:PATH...`. For each file, the median wall time of many calls (the steps interleaved, round after round)
//! of tree-sitter's parse alone (a new parser each call, and one parser reused), of the syntax walk
//! (`structure::code::parse`: the parse and the walk of its tree), of `Splitter::split` (the spans)
//! and of `Splitter::chunks` (the spans with their description: symbol path, context, lines, node types).
//! `CODE_SPEED_ROUNDS` (200) sets the number of calls; `CODE_SPEED_ONLY=0..4` runs only that step (for a profiler: parse new, parse reused, walk, split, chunks).

use std::time::{Duration, Instant};

use chunkwise_core::structure::code::Syntax;
use chunkwise_core::{ChunkOptions, Splitter, SplitterConfig, Strategy};
use tree_sitter::{Language, Parser};

/// The grammar of a language, from the same crates the chunker compiles in.
fn grammar(name: &str) -> Language {
    match name {
        "python" => tree_sitter_python::LANGUAGE.into(),
        "javascript" => tree_sitter_javascript::LANGUAGE.into(),
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        "rust" => tree_sitter_rust::LANGUAGE.into(),
        "go" => tree_sitter_go::LANGUAGE.into(),
        "java" => tree_sitter_java::LANGUAGE.into(),
        other => panic!("no grammar here for {other}"),
    }
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e6
}

fn main() {
    let mut args = std::env::args().skip(1);
    let size: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .expect("usage: code_speed SIZE LANGUAGE:PATH...");
    let rounds: usize = std::env::var("CODE_SPEED_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let only: Option<usize> = std::env::var("CODE_SPEED_ONLY")
        .ok()
        .and_then(|s| s.parse().ok());
    println!("file\tbytes\tparse_new_us\tparse_reuse_us\twalk_us\tsplit_us\tchunks_us");
    for arg in args {
        let (language, path) = arg.split_once(':').expect("LANGUAGE:PATH");
        let text = std::fs::read_to_string(path).expect("a UTF-8 file");
        let mut config = SplitterConfig::new(Strategy::Code, size);
        config.language = Some(Syntax::named(language).expect("a known language"));
        let syntax = config.language;
        let splitter = Splitter::new(config).expect("a valid config");
        let lang = grammar(language);
        let mut reused = Parser::new();
        reused.set_language(&lang).expect("a loadable grammar");
        let mut steps: [Box<dyn FnMut()>; 5] = [
            Box::new(|| {
                let mut parser = Parser::new();
                parser.set_language(&lang).expect("a loadable grammar");
                drop(parser.parse(&text, None));
            }),
            Box::new(|| drop(reused.parse(&text, None))),
            Box::new(|| drop(chunkwise_core::structure::code::parse(&text, syntax))),
            Box::new(|| drop(splitter.split(&text))),
            Box::new(|| drop(splitter.chunks(&text, ChunkOptions::default()))),
        ];
        let mut times: [Vec<Duration>; 5] = Default::default();
        for _ in 0..rounds {
            for (i, step) in steps.iter_mut().enumerate() {
                if only.is_some_and(|o| o != i) {
                    times[i].push(Duration::ZERO);
                    continue;
                }
                let t = Instant::now();
                step();
                times[i].push(t.elapsed());
            }
        }
        let [a, b, c, d, e] = times.map(median);
        println!(
            "{}\t{}\t{a:.1}\t{b:.1}\t{c:.1}\t{d:.1}\t{e:.1}",
            path.rsplit('/').next().unwrap_or(path),
            text.len()
        );
    }
}
