use super::*;
use crate::{Splitter, SplitterConfig, Strategy};

const PY: &str = "import os\n\n\n# The parser.\nclass Parser:\n    \"\"\"Reads.\"\"\"\n\n    @property\n    def feed(self, data):\n        x = 1\n        return x\n\n\ndef main():\n    pass\n";

fn chunks(text: &str, size: usize, language: Option<&str>) -> Vec<(String, Vec<String>, String)> {
    let mut config = SplitterConfig::new(Strategy::Code, size);
    config.language = language.map(|l| Syntax::named(l).expect("a language"));
    let splitter = Splitter::new(config).expect("valid config");
    let (spans, structure) = splitter.split_structured(text).expect("chunks");
    let d = splitter.describe(text, &spans, &structure.expect("structural"));
    spans
        .iter()
        .zip(&d.chunks)
        .map(|(s, i)| {
            assert!(s.size <= size || text[s.start..s.end].chars().count() == 1);
            let path = i
                .path
                .iter()
                .map(|&h| d.headings[h].title.clone())
                .collect();
            (text[s.start..s.end].to_owned(), path, i.context.clone())
        })
        .collect()
}

#[test]
fn every_grammar_loads_and_parses() {
    for syntax in &LANGUAGES {
        let mut parser = Parser::new();
        parser.set_language(&syntax.language()).expect(syntax.name);
        let tree = parser.parse("x", None).expect(syntax.name);
        assert_eq!(tree.root_node().end_byte(), 1, "{}", syntax.name);
    }
}

#[test]
fn every_kind_the_table_names_is_a_kind_of_its_grammar() {
    for syntax in &LANGUAGES {
        let language = syntax.language();
        let kinds = syntax
            .definitions
            .iter()
            .map(|(k, _)| *k)
            .chain(syntax.wrappers.iter().map(|(k, _)| *k))
            .chain(syntax.attached.iter().copied());
        for kind in kinds {
            assert_ne!(
                language.id_for_node_kind(kind, true),
                0,
                "{}: {kind}",
                syntax.name
            );
        }
    }
}

#[test]
fn definitions_are_symbols_with_signatures_and_levels_by_depth() {
    let s = parse(PY, Syntax::named("python").ok());
    let code = s.code.as_deref().expect("code");
    let labels: Vec<(&str, usize)> = code
        .symbols
        .iter()
        .map(|y| (y.label.as_str(), y.depth))
        .collect();
    assert_eq!(
        labels,
        [("class Parser", 1), ("def feed", 2), ("def main", 1)]
    );
    // The comment above the class and the decorator above the method go with them.
    assert_eq!(&PY[code.symbols[0].range.start..][..13], "# The parser.");
    assert_eq!(&PY[code.symbols[1].range.start..][..9], "@property");
    assert_eq!(
        &PY[code.symbols[1].header.clone()],
        "    def feed(self, data):"
    );
    // Module nodes cut at the strongest level, the class's at the next; no cut between a comment and its node.
    let at = |needle: &str| PY.find(needle).expect(needle);
    let level_at = |pos: usize| s.bounds.iter().find(|b| b.pos == pos).map(|b| b.level);
    assert_eq!(level_at(at("# The parser.")), Some(Level::code(1)));
    assert_eq!(level_at(at("class Parser")), None);
    assert_eq!(level_at(at("def main")), Some(Level::code(1)));
    assert_eq!(level_at(at("    @property")), Some(Level::code(2)));
    assert_eq!(level_at(at("        return x")), Some(Level::code(3)));
}

#[test]
fn a_definition_that_fits_stays_whole_and_a_piece_carries_its_signatures() {
    let got = chunks(PY, 70, Some("python"));
    let texts: Vec<&str> = got.iter().map(|c| c.0.as_str()).collect();
    assert!(
        texts.contains(&"@property\n    def feed(self, data):\n        x = 1\n        return x")
    );
    assert!(texts.contains(&"def main():\n    pass"));
    let feed = got
        .iter()
        .find(|c| c.0.starts_with("@property"))
        .expect("feed");
    assert_eq!(feed.1, ["class Parser", "def feed"]);
    assert_eq!(feed.2, "class Parser:");
    // Too small for the method: its statements carry both signatures.
    let small = chunks(PY, 24, Some("python"));
    let ret = small
        .iter()
        .find(|c| c.0.starts_with("x = 1"))
        .expect("the body");
    assert_eq!(ret.2, "class Parser:\n    def feed(self, data):");
}

#[test]
fn errors_unknown_languages_and_deep_nesting_fall_back_to_lines() {
    let broken = "def ok():\n    return 1\n\ndef bad(:\n    = = =\n";
    let s = parse(broken, Syntax::named("python").ok());
    assert!(!s.code.as_deref().expect("code").errors.is_empty());
    assert!(chunks(broken, 12, Some("python"))
        .iter()
        .all(|c| !c.0.is_empty()));
    let s = parse("some words\n\nmore", None);
    assert!(s.bounds.is_empty() && s.code.as_deref().expect("code").language.is_none());
    // A thousand nested blocks: no recursion, cuts only five levels deep.
    let mut deep = String::new();
    for i in 0..1000 {
        deep.push_str(&format!("{}if x{i}:\n", "    ".repeat(i)));
    }
    deep.push_str(&format!("{}pass\n", "    ".repeat(1000)));
    let s = parse(&deep, Syntax::named("python").ok());
    assert!(s.bounds.iter().all(|b| b.level >= Level::code(CUT_DEPTHS)));
    let mut nested = "function f() {".repeat(1000);
    nested.push_str(&"}".repeat(1000));
    let s = parse(&nested, Syntax::named("javascript").ok());
    // (the definitions inside more than MAX_SYMBOL_DEPTH others are no symbols)
    assert_eq!(
        s.code.as_deref().expect("code").symbols.len(),
        MAX_SYMBOL_DEPTH
    );
    assert!(chunks(&nested, 100, Some("js")).len() > 10);
}

#[test]
fn a_comment_between_signature_and_body_goes_with_the_body_not_the_signature() {
    let rb = "module Shop\n  # An item.\n  class Item\n    def a\n      1\n    end\n  end\nend\n";
    let s = parse(rb, Syntax::named("ruby").ok());
    let code = s.code.as_deref().expect("code");
    let headers: Vec<&str> = code.symbols.iter().map(|y| &rb[y.header.clone()]).collect();
    assert_eq!(headers, ["module Shop", "  class Item", "    def a"]);
    // The comment starts the class's piece: the cut falls before it, not between it and the class.
    let at = |needle: &str| rb.find(needle).expect(needle);
    assert!(s.bounds.iter().any(|b| b.pos == at("  # An item.")));
    assert!(!s.bounds.iter().any(|b| b.pos == at("  class Item")));
    let py = "class A:\n    # The x.\n    x = 1\n";
    let s = parse(py, Syntax::named("python").ok());
    let code = s.code.as_deref().expect("code");
    assert_eq!(&py[code.symbols[0].header.clone()], "class A:");
}

#[test]
fn a_definition_below_the_cut_depths_still_stays_whole() {
    // A method of an anonymous class in a method of a nested class: below the levels that cut, still kept whole.
    let body: String = (0..6)
        .map(|i| format!("                    int v{i} = {i};\n"))
        .collect();
    let text = format!(
        "class A {{\n    class B {{\n        Object m() {{\n            return new Runnable() {{\n                public void run() {{\n{body}                }}\n            }};\n        }}\n    }}\n}}\n"
    );
    let run = text.find("public void run").expect("run");
    let end = text[run..].find("\n                }").expect("end") + run + 18;
    let whole = &text[run..end];
    let out = chunks(&text, whole.len() + 20, Some("java"));
    assert!(
        out.iter().any(|(t, _, _)| t.contains(whole)),
        "{:#?}",
        out.iter().map(|(t, _, _)| t).collect::<Vec<_>>()
    );
    let (_, path, _) = out
        .iter()
        .find(|(t, _, _)| t.contains(whole))
        .expect("whole");
    assert_eq!(path.last().map(String::as_str), Some("method run"));
}

#[test]
fn symbols_nested_past_the_bound_are_dropped_and_paths_stay_short() {
    let n = MAX_SYMBOL_DEPTH + 40;
    let text: String = (0..n)
        .map(|i| format!("function f{i}() {{"))
        .collect::<String>()
        + &"}".repeat(n)
        + "\nfunction after() {}\n";
    let s = parse(&text, Syntax::named("javascript").ok());
    let code = s.code.as_deref().expect("code");
    assert_eq!(code.symbols.len(), MAX_SYMBOL_DEPTH + 1);
    assert_eq!(code.symbols[MAX_SYMBOL_DEPTH - 1].depth, MAX_SYMBOL_DEPTH);
    assert_eq!(code.symbols[MAX_SYMBOL_DEPTH].label, "function after");
    assert_eq!(code.symbols[MAX_SYMBOL_DEPTH].depth, 1);
    let deep = text.find(&format!("function f{}(", n - 1)).expect("deep");
    assert_eq!(code.path_at(deep).len(), MAX_SYMBOL_DEPTH);
    assert_eq!(code.path_at(text.len() - 3), [MAX_SYMBOL_DEPTH]);
}

#[test]
fn a_minified_bundle_is_cut_between_its_modules() {
    // Wrappers alone in their holders use up no level: the object's modules, eight nodes down, are still cut.
    let text = "(()=>{var e={1:(e,t)=>{t.a=1},2:(e,t)=>{t.b=2},3:(e,t)=>{t.c=3}};})();";
    let s = parse(text, Syntax::named("javascript").ok());
    for module in ["2:(e", "3:(e"] {
        let at = text.find(module).expect(module);
        let cut = s.bounds.iter().find(|b| b.pos == at).map(|b| b.level);
        assert!(
            cut.is_some_and(|l| l >= Level::code(CUT_DEPTHS)),
            "{module}: {cut:?}"
        );
    }
    let out = chunks(text, 20, Some("js"));
    assert!(
        out.iter()
            .any(|(t, _, _)| t.starts_with("2:(e,t)=>{t.b=2}")),
        "{out:?}"
    );
}

#[test]
fn long_prose_is_not_parsed_and_long_code_is() {
    let python = Syntax::named("python").ok();
    let sentence =
        "这是一段很长的中文文字，不是代码。It is prose, (not code): no grammar fits it!\n";
    let mut prose = String::new();
    while prose.len() <= GUARD_BYTES + 1000 {
        prose.push_str(sentence);
        prose.push_str(if prose.len().is_multiple_of(3) {
            "\n"
        } else {
            ""
        });
    }
    let s = parse(&prose, python);
    let code = s.code.as_ref().expect("code");
    assert!(code.language.is_none() && code.symbols.is_empty());
    let line = |_: usize| 1;
    assert_eq!(code.span(0, 10, &line).note, Some(NOT_CODE));
    // Short prose is parsed still; long code too, a generated table (an array longer than a sample) included.
    let short = &prose[..crate::offsets::floor_char_boundary(&prose, GUARD_BYTES / 2)];
    assert!(parse(short, python).code.unwrap().language.is_some());
    let table: String = std::iter::once("LOGS = [\n".to_owned())
        .chain((0..30_000).map(|i| format!("    {:.10},\n", f64::from(i) / 7.0)))
        .chain(std::iter::once("]\n".to_owned()))
        .collect();
    let functions = PY.repeat(GUARD_BYTES / PY.len() + 1);
    for text in [table, functions] {
        assert!(text.len() > GUARD_BYTES);
        let s = parse(&text, python);
        assert_eq!(s.code.unwrap().language.map(|l| l.name), Some("python"));
    }
}

/// The code files of the tests (and the corpus's code.py when it is beside the repository), with their languages.
fn code_files() -> Vec<(String, &'static str)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let files = [
        ("tests/data/code.py", "python"),
        ("../shared/corpus/code.py", "python"),
        ("tests/data/code/itoa_lib.rs", "rust"),
        ("tests/data/code/task_queue.go", "go"),
        ("tests/data/code/event_store.ts", "typescript"),
        ("tests/data/code/KanbanBoard.tsx", "tsx"),
        ("tests/data/code/nbagg_mpl.js", "javascript"),
    ];
    files
        .iter()
        .filter_map(|(path, language)| {
            let text = std::fs::read_to_string(format!("{root}/{path}")).ok()?;
            Some((text, *language))
        })
        .collect()
}

/// A structure's description with its pieces' kinds numbered in name order (the walk numbers them in the order it
/// meets them, which segments change; the names are what chunks report).
fn described(s: &Structure) -> String {
    let mut s = s.clone();
    if let Some(code) = s.code.as_mut() {
        let mut names = code.kinds.clone();
        names.sort();
        for p in &mut code.pieces {
            let name = &code.kinds[usize::from(p.kind)];
            p.kind = u16::try_from(names.binary_search(name).unwrap()).unwrap();
        }
        code.kinds = names;
    }
    format!("{s:?}")
}

/// Asserts two structures' descriptions are equal, showing where they part.
fn assert_same(got: &str, want: &str, what: &str) {
    if got != want {
        let at = got
            .bytes()
            .zip(want.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        let from = at.saturating_sub(300);
        panic!(
            "{what}: differs at {at}\n got: {}\nwant: {}",
            &got[from..(at + 200).min(got.len())],
            &want[from..(at + 200).min(want.len())]
        );
    }
}

#[test]
fn a_text_parsed_in_segments_has_the_structure_of_the_whole() {
    let files = code_files();
    assert!(files.len() >= 6, "the tests' code files are missing");
    for (text, language) in &files {
        let syntax = Syntax::named(language).ok();
        let (whole, one) = parse_in_segments(text, syntax, usize::MAX);
        assert_eq!(one, 1);
        let whole = described(&whole);
        // A segment at every place one may start, and segments of a few KB.
        for segment in [1, 2_000, 20_000] {
            let (parts, n) = parse_in_segments(text, syntax, segment);
            assert_same(
                &described(&parts),
                &whole,
                &format!("{language}, segments of {segment} bytes"),
            );
            let starts = segment_starts(text, syntax.unwrap()).len();
            if starts > 3 && (segment == 1 || text.len() > 10 * segment) {
                assert!(n > 2, "{language}: {n} segments of {segment} bytes");
            }
        }
    }
}

#[test]
fn a_segment_with_an_error_is_not_cut_and_the_rest_is_parsed_whole() {
    let python = Syntax::named("python").ok();
    // A triple-quoted string holding a line that starts a segment, then a real syntax error.
    let text = format!(
        "{}x = \"\"\"\n\ndef not_a_function():\n\"\"\"\n\n{}def broken(:\n    pass\n\n{}",
        PY.repeat(40),
        PY.repeat(40),
        PY.repeat(40)
    );
    let (whole, _) = parse_in_segments(&text, python, usize::MAX);
    let (parts, n) = parse_in_segments(&text, python, 1);
    assert_same(&described(&parts), &described(&whole), "python with errors");
    assert!(n > 10, "{n}");
    let mut parser = Parser::new();
    parser.set_language(&python.unwrap().language()).unwrap();
    assert!(parser.parse(&text, None).unwrap().root_node().has_error());
}
