//! The languages CodeChunker knows: one table, read for parsing (grammar, definitions), for naming (the names and
//! aliases callers give), for detection by file name (extensions) and by content (a shebang, then keywords).

use std::sync::OnceLock;

use regex::Regex;
use tree_sitter::Language;

use crate::error::ChunkError;

/// A language: its grammar (compiled in), its names, and what its syntax tree calls a definition.
#[derive(Debug)]
pub struct Syntax {
    /// The name chunks report (`metadata["language"]`), and the first name callers may give.
    pub name: &'static str,
    /// Other names callers may give.
    aliases: &'static [&'static str],
    /// File name endings (without the dot), lower case.
    extensions: &'static [&'static str],
    /// Words of a shebang line that name the language's interpreter.
    interpreters: &'static [&'static str],
    /// The grammar.
    grammar: fn() -> Language,
    /// Node kinds that are definitions, with the word a symbol path shows before their name.
    pub(super) definitions: &'static [(&'static str, &'static str)],
    /// Node kinds that wrap a definition (a decorated definition, an export), and the field that holds it.
    pub(super) wrappers: &'static [(&'static str, &'static str)],
    /// Node kinds that document or qualify the node after them (comments, attributes): they go with it.
    pub(super) attached: &'static [&'static str],
    /// Functions assigned to names (`const f = () => {}`) are definitions (JavaScript, TypeScript).
    pub(super) assigns_functions: bool,
    /// Patterns that vote for the language when it is detected by content, each with its weight.
    clues: &'static [(&'static str, u32)],
}

/// Node kinds whose children are the pieces of the node holding them (a body, a block): cut between those children
/// as if they were the holder's own. The same names across the grammars, so one list.
pub(super) const BODIES: &[&str] = &[
    "block",
    "statement_block",
    "statement_list",
    "declaration_list",
    "class_body",
    "interface_body",
    "enum_body",
    "enum_body_declarations",
    "enum_variant_list",
    "field_declaration_list",
    "constructor_body",
    "switch_body",
    "switch_block",
    "module_body",
    "annotation_type_body",
    "object_type",
];

pub(super) const COMMENTS: &[&str] = &["comment", "line_comment", "block_comment", "html_comment"];

fn python() -> Language {
    tree_sitter_python::LANGUAGE.into()
}
fn javascript() -> Language {
    tree_sitter_javascript::LANGUAGE.into()
}
fn typescript() -> Language {
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
}
fn tsx() -> Language {
    tree_sitter_typescript::LANGUAGE_TSX.into()
}
fn rust() -> Language {
    tree_sitter_rust::LANGUAGE.into()
}
fn go() -> Language {
    tree_sitter_go::LANGUAGE.into()
}
fn java() -> Language {
    tree_sitter_java::LANGUAGE.into()
}

const JS_DEFINITIONS: &[(&str, &str)] = &[
    ("function_declaration", "function"),
    ("generator_function_declaration", "function*"),
    ("class_declaration", "class"),
    ("method_definition", "method"),
];
const TS_DEFINITIONS: &[(&str, &str)] = &[
    ("function_declaration", "function"),
    ("generator_function_declaration", "function*"),
    ("function_signature", "function"),
    ("class_declaration", "class"),
    ("abstract_class_declaration", "abstract class"),
    ("method_definition", "method"),
    ("method_signature", "method"),
    ("abstract_method_signature", "method"),
    ("interface_declaration", "interface"),
    ("enum_declaration", "enum"),
    ("type_alias_declaration", "type"),
    ("internal_module", "namespace"),
    ("module", "module"),
];
const JS_WRAPPERS: &[(&str, &str)] = &[("export_statement", "declaration")];
const TS_WRAPPERS: &[(&str, &str)] = &[
    ("export_statement", "declaration"),
    ("ambient_declaration", ""),
];
const TS_CLUES: &[(&str, u32)] = &[
    (r"(?m)^\s*(export\s+)?interface\s+\w+", 3),
    (r"(?m)^\s*(export\s+)?type\s+\w+\s*=", 3),
    (r"(?m)^\s*(export\s+)?enum\s+\w+\s*\{", 2),
    (r"\w\s*:\s*(string|number|boolean|void|any|unknown)\b", 2),
    (
        r"(?m)^\s*(public|private|protected|readonly)\s+\w+\s*[:(]",
        1,
    ),
];

/// Every language, in the order detection prefers them on a tie.
pub static LANGUAGES: [Syntax; 7] = [
    Syntax {
        name: "python",
        aliases: &["py", "python3"],
        extensions: &["py", "pyi", "pyw"],
        interpreters: &["python", "python3", "python2", "pypy", "pypy3"],
        grammar: python,
        definitions: &[
            ("function_definition", "def"),
            ("class_definition", "class"),
        ],
        wrappers: &[("decorated_definition", "definition")],
        attached: &["comment"],
        assigns_functions: false,
        clues: &[
            (r"(?m)^\s*(async\s+)?def\s+\w+\s*\(.*\)\s*(->.*)?:\s*$", 3),
            (r"(?m)^\s*class\s+\w+\s*(\(.*\))?\s*:\s*$", 3),
            (r"(?m)^\s*from\s+[\w.]+\s+import\s+", 2),
            (r"(?m)^\s*import\s+[\w.]+(\s+as\s+\w+)?\s*$", 1),
            (r"(?m)^\s*(elif|except|with)\b.*:\s*$", 1),
            (r"(?m)^\s*@\w+", 1),
        ],
    },
    Syntax {
        name: "rust",
        aliases: &["rs"],
        extensions: &["rs"],
        interpreters: &[],
        grammar: rust,
        definitions: &[
            ("function_item", "fn"),
            ("function_signature_item", "fn"),
            ("impl_item", "impl"),
            ("trait_item", "trait"),
            ("struct_item", "struct"),
            ("enum_item", "enum"),
            ("union_item", "union"),
            ("mod_item", "mod"),
            ("macro_definition", "macro_rules!"),
            ("foreign_mod_item", "extern"),
        ],
        wrappers: &[],
        attached: &["line_comment", "block_comment", "attribute_item"],
        assigns_functions: false,
        clues: &[
            (r"(?m)^\s*(pub(\([\w:]+\))?\s+)?(async\s+)?fn\s+\w+", 3),
            (r"(?m)^\s*impl(<.*>)?\s+\w+", 3),
            (r"(?m)^\s*use\s+\w+(::\w+)+", 2),
            (r"\blet\s+mut\s+\w+", 2),
            (r"(?m)^\s*#\[(derive|cfg|test)", 2),
        ],
    },
    Syntax {
        name: "go",
        aliases: &["golang"],
        extensions: &["go"],
        interpreters: &[],
        grammar: go,
        definitions: &[
            ("function_declaration", "func"),
            ("method_declaration", "func"),
            ("type_declaration", "type"),
        ],
        wrappers: &[],
        attached: &["comment"],
        assigns_functions: false,
        clues: &[
            (r"(?m)^package\s+\w+\s*$", 3),
            (r"(?m)^func\s+(\(\w+\s+\*?\w+\)\s+)?\w+\(", 3),
            (r"\w+\s*:=\s*", 1),
            (r"(?m)^import\s+\(", 2),
        ],
    },
    Syntax {
        name: "java",
        aliases: &[],
        extensions: &["java"],
        interpreters: &[],
        grammar: java,
        definitions: &[
            ("class_declaration", "class"),
            ("interface_declaration", "interface"),
            ("enum_declaration", "enum"),
            ("record_declaration", "record"),
            ("annotation_type_declaration", "@interface"),
            ("method_declaration", "method"),
            ("constructor_declaration", "constructor"),
        ],
        wrappers: &[],
        attached: &["line_comment", "block_comment"],
        assigns_functions: false,
        clues: &[
            (
                r"(?m)^\s*(public|private|protected)\s+(static\s+)?(final\s+)?(class|interface|enum)\s+\w+",
                3,
            ),
            (r"(?m)^import\s+java\.", 3),
            (r"(?m)^package\s+[\w.]+;", 3),
            (r"(?m)^\s*@Override\b", 2),
            (r"\bSystem\.out\.print", 2),
        ],
    },
    Syntax {
        name: "typescript",
        aliases: &["ts"],
        extensions: &["ts", "mts", "cts"],
        interpreters: &["ts-node", "tsx", "deno"],
        grammar: typescript,
        definitions: TS_DEFINITIONS,
        wrappers: TS_WRAPPERS,
        attached: &["comment", "decorator"],
        assigns_functions: true,
        clues: TS_CLUES,
    },
    Syntax {
        name: "tsx",
        aliases: &[],
        extensions: &["tsx"],
        interpreters: &[],
        grammar: tsx,
        definitions: TS_DEFINITIONS,
        wrappers: TS_WRAPPERS,
        attached: &["comment", "decorator"],
        // Never detected by content (its clues are TypeScript's): named, or by the file name.
        assigns_functions: true,
        clues: &[],
    },
    Syntax {
        name: "javascript",
        aliases: &["js", "jsx", "node"],
        extensions: &["js", "mjs", "cjs", "jsx"],
        interpreters: &["node", "nodejs"],
        grammar: javascript,
        definitions: JS_DEFINITIONS,
        wrappers: JS_WRAPPERS,
        attached: &["comment", "decorator"],
        assigns_functions: true,
        clues: &[
            (
                r"(?m)^\s*(export\s+)?(async\s+)?function\s*\*?\s*\w+\s*\(",
                3,
            ),
            (r"\b(const|let|var)\s+\w+\s*=\s*require\(", 3),
            (r"\bmodule\.exports\b", 3),
            (r"=>\s*\{", 1),
            (r"(?m)^\s*import\s+.*\s+from\s+['\x22]", 1),
            (r"\b(const|let)\s+\w+\s*=", 1),
        ],
    },
];

impl Syntax {
    /// The grammar, for a parser.
    pub(super) fn language(&self) -> Language {
        (self.grammar)()
    }

    /// The language named `name` (a name or an alias, any case).
    pub fn named(name: &str) -> Result<&'static Syntax, ChunkError> {
        let lower = name.trim().to_ascii_lowercase();
        LANGUAGES
            .iter()
            .find(|s| s.name == lower || s.aliases.contains(&lower.as_str()))
            .ok_or_else(|| {
                let names: Vec<&str> = LANGUAGES.iter().map(|s| s.name).collect();
                ChunkError::invalid(
                    "language",
                    format!(
                        "language must be 'auto' or one of {}, got {name:?}",
                        names.join(", ")
                    ),
                )
            })
    }

    /// The language of a file named `path`, from its extension (any case), if it is one of the table's.
    pub fn for_path(path: &str) -> Option<&'static Syntax> {
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let (_, ext) = file.rsplit_once('.')?;
        let ext = ext.to_ascii_lowercase();
        LANGUAGES
            .iter()
            .find(|s| s.extensions.contains(&ext.as_str()))
    }

    /// Whether `text` looks like the bytes of a binary file rather than text: a NUL, or more than one control
    /// character in ten (tabs, line breaks and form feeds aside), in its first 8 KB.
    pub fn looks_binary(text: &str) -> bool {
        let head = &text.as_bytes()[..text.len().min(8192)];
        let control = head
            .iter()
            .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | b'\x0c'))
            .count();
        head.contains(&0) || control * 10 > head.len()
    }

    /// The language of `text` by its content: a shebang naming an interpreter, else the language whose keyword
    /// patterns match most often in the first 64 KB (weighted), if any matches at all.
    pub fn detect(text: &str) -> Option<&'static Syntax> {
        if let Some(first) = text.strip_prefix("#!").and_then(|t| t.lines().next()) {
            // "#!/usr/bin/env python3", "#!/usr/bin/node": the interpreter is the last path part of a word.
            let words = first
                .split_whitespace()
                .map(|w| w.rsplit('/').next().unwrap_or(w));
            for word in words {
                if let Some(s) = LANGUAGES.iter().find(|s| s.interpreters.contains(&word)) {
                    return Some(s);
                }
            }
        }
        let head = &text[..crate::offsets::floor_char_boundary(text, text.len().min(1 << 16))];
        let mut best: Option<(u32, &'static Syntax)> = None;
        for (syntax, patterns) in LANGUAGES.iter().zip(clue_patterns()) {
            let score: u32 = patterns
                .iter()
                .map(|(re, weight)| re.find_iter(head).take(50).count() as u32 * weight)
                .sum();
            if score > 0 && best.is_none_or(|(b, _)| score > b) {
                best = Some((score, syntax));
            }
        }
        best.map(|(_, s)| s)
    }
}

/// The clue patterns of each language (in the table's order), compiled once.
fn clue_patterns() -> &'static [Vec<(Regex, u32)>] {
    static PATTERNS: OnceLock<Vec<Vec<(Regex, u32)>>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        LANGUAGES
            .iter()
            .map(|s| {
                s.clues
                    .iter()
                    // The patterns are constants of this file, checked by the tests below.
                    .filter_map(|(p, w)| Regex::new(p).ok().map(|re| (re, *w)))
                    .collect()
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_clue_compiles_and_every_name_is_unique() {
        for (s, compiled) in LANGUAGES.iter().zip(clue_patterns()) {
            assert_eq!(s.clues.len(), compiled.len(), "{}", s.name);
        }
        let mut names: Vec<&str> = LANGUAGES
            .iter()
            .flat_map(|s| std::iter::once(s.name).chain(s.aliases.iter().copied()))
            .collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn languages_by_name_path_and_content() {
        assert_eq!(Syntax::named("PY").unwrap().name, "python");
        assert_eq!(Syntax::named("golang").unwrap().name, "go");
        let err = Syntax::named("cobol").unwrap_err().to_string();
        assert!(
            err.starts_with("language must be 'auto' or one of python, rust"),
            "{err}"
        );
        assert_eq!(Syntax::for_path("src/Main.JAVA").unwrap().name, "java");
        assert_eq!(Syntax::for_path(r"C:\x\app.tsx").unwrap().name, "tsx");
        assert!(Syntax::for_path("Makefile").is_none() && Syntax::for_path("a.txt").is_none());
        let detect = |t: &str| Syntax::detect(t).map(|s| s.name);
        assert_eq!(detect("#!/usr/bin/env python3\nprint(1)\n"), Some("python"));
        assert_eq!(detect("#!/usr/bin/node\nx\n"), Some("javascript"));
        assert_eq!(
            detect("import os\n\ndef main():\n    pass\n"),
            Some("python")
        );
        assert_eq!(
            detect("use std::io;\n\nfn main() {\n    let mut x = 1;\n}\n"),
            Some("rust")
        );
        assert_eq!(detect("package main\n\nfunc main() {\n}\n"), Some("go"));
        assert_eq!(
            detect("package a.b;\nimport java.util.List;\npublic class A {}\n"),
            Some("java")
        );
        assert_eq!(
            detect("interface A { x: number }\nexport type B = A;\n"),
            Some("typescript")
        );
        assert_eq!(
            detect("const fs = require('fs');\nfunction f(a) {\n  return a;\n}\n"),
            Some("javascript")
        );
        assert_eq!(detect("Just some words.\n\nAnd more."), None);
        assert!(Syntax::looks_binary("def f():\x00") && Syntax::looks_binary("\x01\x02ab"));
        assert!(!Syntax::looks_binary("def f():\n\tpass\x0c\r\n"));
    }
}
