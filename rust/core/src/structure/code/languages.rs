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
    /// Whole file names (lower case) that hold the language without an extension saying so (`Gemfile`).
    file_names: &'static [&'static str],
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
    // C, C++, PHP, Bash braces; C# and PHP member lists; Ruby's and Swift's bodies; Kotlin's and Swift's bodies
    "compound_statement",
    "enumerator_list",
    "enum_member_declaration_list",
    "enum_declaration_list",
    "body_statement",
    "enum_class_body",
    "protocol_body",
    "function_body",
    "statements",
];

pub(super) const COMMENTS: &[&str] = &[
    "comment",
    "line_comment",
    "block_comment",
    "html_comment",
    "multiline_comment",
    "marginalia",
];

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
fn c() -> Language {
    tree_sitter_c::LANGUAGE.into()
}
fn cpp() -> Language {
    tree_sitter_cpp::LANGUAGE.into()
}
fn csharp() -> Language {
    tree_sitter_c_sharp::LANGUAGE.into()
}
fn ruby() -> Language {
    tree_sitter_ruby::LANGUAGE.into()
}
fn php() -> Language {
    tree_sitter_php::LANGUAGE_PHP.into()
}
fn kotlin() -> Language {
    tree_sitter_kotlin_ng::LANGUAGE.into()
}
fn swift() -> Language {
    tree_sitter_swift::LANGUAGE.into()
}
fn bash() -> Language {
    tree_sitter_bash::LANGUAGE.into()
}
fn sql() -> Language {
    tree_sitter_sequel::LANGUAGE.into()
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

/// C's definitions, which C++ has too. A function's name is at the end of its declarator chain (`*f(void)`), a
/// typedef's is its declarator; a struct, union or enum counts only with a body (not `struct s x;`).
const C_DEFINITIONS: &[(&str, &str)] = &[
    ("function_definition", "function"),
    ("struct_specifier", "struct"),
    ("union_specifier", "union"),
    ("enum_specifier", "enum"),
    ("type_definition", "typedef"),
];
const CPP_DEFINITIONS: &[(&str, &str)] = &[
    ("function_definition", "function"),
    ("struct_specifier", "struct"),
    ("union_specifier", "union"),
    ("enum_specifier", "enum"),
    ("type_definition", "typedef"),
    ("class_specifier", "class"),
    ("namespace_definition", "namespace"),
    ("linkage_specification", "extern"),
    ("concept_definition", "concept"),
];
/// `#include <stdio.h>`, C's and C++'s.
const C_INCLUDE: (&str, u32) = (r#"(?m)^\s*#\s*include\s*[<"][\w/.+-]+\.h[>"]"#, 2);

/// Every language, in the order detection prefers them on a tie.
pub static LANGUAGES: [Syntax; 16] = [
    Syntax {
        name: "python",
        aliases: &["py", "python3"],
        extensions: &["py", "pyi", "pyw"],
        file_names: &[],
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
        file_names: &[],
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
        file_names: &[],
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
        file_names: &[],
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
        file_names: &[],
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
        file_names: &[],
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
        file_names: &[],
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
    Syntax {
        name: "c",
        aliases: &["h"],
        extensions: &["c", "h"],
        file_names: &[],
        interpreters: &[],
        grammar: c,
        definitions: C_DEFINITIONS,
        wrappers: &[],
        attached: &["comment"],
        assigns_functions: false,
        clues: &[
            C_INCLUDE,
            (
                r"(?m)^\s*(static\s+)?(inline\s+)?(const\s+)?(void|int|char|long|unsigned|double|float|size_t|bool)\s+\**\w+\s*\([^)]*\)\s*\{?\s*$",
                2,
            ),
            (r"(?m)^\s*typedef\s+(struct|enum|union)\b", 2),
            (
                r"\b(malloc|calloc|free|printf|fprintf|memcpy|strlen)\s*\(",
                1,
            ),
            (r"(?m)^\s*#\s*(define|ifndef|endif)\b", 1),
        ],
    },
    Syntax {
        name: "cpp",
        aliases: &["c++", "cxx", "hpp"],
        extensions: &[
            "cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "inl",
        ],
        file_names: &[],
        interpreters: &[],
        grammar: cpp,
        definitions: CPP_DEFINITIONS,
        wrappers: &[("template_declaration", "")],
        attached: &["comment"],
        assigns_functions: false,
        clues: &[
            C_INCLUDE,
            (
                r"(?m)^\s*#\s*include\s*<(iostream|vector|string|memory|map|unordered_map|algorithm|utility|functional|cstdio|cstdlib|cstring|cstdint)>",
                3,
            ),
            (r"\bstd::\w+", 2),
            (r"(?m)^\s*template\s*<", 3),
            (r"(?m)^\s*namespace\s+\w+\s*\{", 2),
            (r"(?m)^\s*(public|private|protected):\s*$", 3),
            (r"\w+::~?\w+\s*\([^)]*\)\s*(const\s*)?\{", 2),
        ],
    },
    Syntax {
        name: "csharp",
        aliases: &["c#", "cs", "c-sharp", "c_sharp"],
        extensions: &["cs", "csx"],
        file_names: &[],
        interpreters: &[],
        grammar: csharp,
        definitions: &[
            ("namespace_declaration", "namespace"),
            ("file_scoped_namespace_declaration", "namespace"),
            ("class_declaration", "class"),
            ("struct_declaration", "struct"),
            ("interface_declaration", "interface"),
            ("enum_declaration", "enum"),
            ("record_declaration", "record"),
            ("delegate_declaration", "delegate"),
            ("method_declaration", "method"),
            ("constructor_declaration", "constructor"),
            ("destructor_declaration", "destructor"),
            ("operator_declaration", "operator"),
            ("property_declaration", "property"),
            ("indexer_declaration", "indexer"),
            ("local_function_statement", "function"),
        ],
        wrappers: &[],
        attached: &["comment"],
        assigns_functions: false,
        clues: &[
            (r"(?m)^\s*using\s+System(\.\w+)*\s*;", 3),
            (r"(?m)^\s*namespace\s+[\w.]+\s*(;|\{|$)", 2),
            (r"\{\s*get\s*;\s*((private\s+|init\s*;|set\s*;)\s*)*\}", 3),
            (r"\bConsole\.Write(Line)?\s*\(", 3),
            (r"\basync\s+Task\b", 2),
            (r"(?m)^\s*\[\w+(\(.*\))?\]\s*$", 1),
        ],
    },
    Syntax {
        name: "ruby",
        aliases: &["rb"],
        extensions: &["rb", "rake", "gemspec", "ru", "rbw"],
        file_names: &[
            "rakefile",
            "gemfile",
            "guardfile",
            "podfile",
            "vagrantfile",
            "brewfile",
        ],
        interpreters: &["ruby", "jruby", "rake"],
        grammar: ruby,
        definitions: &[
            ("module", "module"),
            ("class", "class"),
            ("singleton_class", "class <<"),
            ("method", "def"),
            ("singleton_method", "def"),
        ],
        wrappers: &[],
        attached: &["comment"],
        assigns_functions: false,
        clues: &[
            (r"(?m)^\s*def\s+(self\.)?\w+[?!=]?\s*(\(.*\))?\s*$", 3),
            (
                r"(?m)^\s*(class|module)\s+[A-Z][\w:]*(\s*<\s*[A-Z][\w:]*)?\s*$",
                3,
            ),
            (r"(?m)^\s*require(_relative)?\s+['\x22]", 3),
            (r"\battr_(reader|writer|accessor)\s+:", 3),
            (r"\bdo\s*\|[\w, ]+\|", 2),
            (r"(?m)^\s*end\s*$", 1),
        ],
    },
    Syntax {
        name: "php",
        aliases: &[],
        extensions: &["php", "phtml", "php3", "php4", "php5", "php7", "phps"],
        file_names: &[],
        interpreters: &["php"],
        grammar: php,
        definitions: &[
            ("namespace_definition", "namespace"),
            ("class_declaration", "class"),
            ("interface_declaration", "interface"),
            ("trait_declaration", "trait"),
            ("enum_declaration", "enum"),
            ("function_definition", "function"),
            ("method_declaration", "function"),
        ],
        wrappers: &[],
        attached: &["comment"],
        assigns_functions: false,
        clues: &[
            (r"<\?php\b", 10),
            (r"\$this->\w+", 3),
            (
                r"(?m)^\s*(abstract\s+|final\s+)?(public|private|protected)\s+(static\s+)?function\s+\w+",
                3,
            ),
            (r"(?m)^\s*namespace\s+[\w\\]+\s*;", 2),
            (r"\$\w+\s*=", 1),
        ],
    },
    Syntax {
        name: "kotlin",
        aliases: &["kt", "kts"],
        extensions: &["kt", "kts"],
        file_names: &[],
        interpreters: &["kotlin", "kscript"],
        grammar: kotlin,
        definitions: &[
            // The keyword says which: class, interface.
            ("class_declaration", ""),
            ("object_declaration", "object"),
            ("companion_object", "companion object"),
            ("function_declaration", "fun"),
            ("secondary_constructor", "constructor"),
            ("type_alias", "typealias"),
        ],
        wrappers: &[],
        attached: &["line_comment", "block_comment"],
        assigns_functions: false,
        clues: &[
            (
                r"(?m)^\s*((private|public|internal|protected|override|suspend|inline|operator|open)\s+)*fun\s+(<[^>]*>\s*)?[\w.]+\s*\(",
                3,
            ),
            (
                r"(?m)^\s*import\s+(kotlin|kotlinx|android|androidx|java|javax)\.[\w.*]+\s*$",
                3,
            ),
            (
                r"(?m)^\s*(data|sealed|enum|open|abstract|inner)\s+class\s+\w+",
                2,
            ),
            (r"(?m)^\s*val\s+\w+\s*(:\s*[\w<>?]+\s*)?=", 1),
            (r"(?m)^\s*package\s+[\w.]+\s*$", 1),
        ],
    },
    Syntax {
        name: "swift",
        aliases: &[],
        extensions: &["swift"],
        file_names: &[],
        interpreters: &["swift"],
        grammar: swift,
        definitions: &[
            // The keyword says which: class, struct, enum, extension, actor.
            ("class_declaration", ""),
            ("protocol_declaration", "protocol"),
            ("function_declaration", "func"),
            ("protocol_function_declaration", "func"),
            ("init_declaration", "init"),
            ("deinit_declaration", "deinit"),
            ("subscript_declaration", "subscript"),
            ("typealias_declaration", "typealias"),
        ],
        wrappers: &[],
        attached: &["comment", "multiline_comment"],
        assigns_functions: false,
        clues: &[
            (
                r"(?m)^\s*import\s+(Foundation|UIKit|SwiftUI|Combine|XCTest|AppKit|Dispatch)\s*$",
                3,
            ),
            (r"\bfunc\s+\w+\s*(<[^>]*>)?\s*\((_\s+)?\w+(\s+\w+)?\s*:", 3),
            (r"\b(guard|if)\s+(let|var)\s+\w+", 3),
            (
                r"(?m)^\s*((public|private|fileprivate|internal)\s+)?(protocol|extension)\s+\w+",
                3,
            ),
            (r"\)\s*(async\s+)?(throws\s+)?->\s*[\w\[(]", 1),
        ],
    },
    Syntax {
        name: "bash",
        aliases: &["sh", "shell", "zsh"],
        extensions: &["sh", "bash", "zsh", "ksh", "bats"],
        file_names: &[
            ".bashrc",
            ".bash_profile",
            ".bash_login",
            ".bash_logout",
            ".profile",
            ".zshrc",
            ".zprofile",
            "pkgbuild",
        ],
        interpreters: &["sh", "bash", "zsh", "ksh", "dash", "ash"],
        grammar: bash,
        definitions: &[("function_definition", "function")],
        wrappers: &[],
        attached: &["comment"],
        assigns_functions: false,
        clues: &[
            (r"(?m)^\s*(if|elif|while)\s+\[\[?\s", 3),
            (r"(?m)^\s*(fi|done|esac)\s*$", 3),
            (r"(?m)^\s*(function\s+)?[\w-]+\s*\(\)\s*\{\s*$", 2),
            (r"(?m)^\s*(export|local|readonly)\s+\w+=", 2),
            (r"(?m)^\s*set\s+-[euxo]+", 2),
            (r"\$\{\w+[:#%/}]", 1),
        ],
    },
    Syntax {
        name: "sql",
        aliases: &[],
        extensions: &["sql", "ddl", "pgsql", "psql"],
        file_names: &[],
        interpreters: &[],
        grammar: sql,
        definitions: &[
            ("create_table", "table"),
            ("create_view", "view"),
            ("create_materialized_view", "materialized view"),
            ("create_function", "function"),
            ("create_type", "type"),
            ("create_trigger", "trigger"),
            ("create_schema", "schema"),
        ],
        wrappers: &[("statement", "")],
        attached: &["comment", "marginalia"],
        assigns_functions: false,
        clues: &[
            (
                r"(?im)^\s*create\s+(or\s+replace\s+)?(temp(orary)?\s+)?(table|view|function|index|unique\s+index|procedure|schema|trigger|type|sequence)\b",
                3,
            ),
            (r"(?im)^\s*insert\s+into\b", 3),
            (r"(?im)^\s*(alter|drop)\s+table\b", 3),
            (r"(?im)^\s*select\s+[\w*,. ]+\s+from\s", 2),
            (r"(?i)\bprimary\s+key\b", 2),
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

    /// The language of a file named `path`, from its name (`Gemfile`, `.bashrc`) or its extension (any case), if it
    /// is one of the table's.
    pub fn for_path(path: &str) -> Option<&'static Syntax> {
        let file = path
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(path)
            .to_ascii_lowercase();
        if let Some(s) = LANGUAGES
            .iter()
            .find(|s| s.file_names.contains(&file.as_str()))
        {
            return Some(s);
        }
        let (_, ext) = file.rsplit_once('.')?;
        LANGUAGES.iter().find(|s| s.extensions.contains(&ext))
    }

    /// The language of a file named `path` whose text is `text` (or its first part): by its name, except that a
    /// header (`.h`), C's by its name, is C++ when its content says so (`class ... {`, `std::`, `template <`...).
    pub fn for_file(path: &str, text: Option<&str>) -> Option<&'static Syntax> {
        let by_name = Self::for_path(path)?;
        let header = path
            .rsplit_once('.')
            .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("h"));
        if header {
            if let Some(cpp) = text.and_then(Self::detect).filter(|s| s.name == "cpp") {
                return Some(cpp);
            }
        }
        Some(by_name)
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

    #[test]
    fn the_languages_of_c_to_sql_by_path_and_content() {
        let path = |p: &str| Syntax::for_path(p).map(|s| s.name);
        for (p, name) in [
            ("src/main.c", "c"),
            ("include/list.h", "c"),
            ("src/Shape.cpp", "cpp"),
            ("a/b.HPP", "cpp"),
            ("Program.cs", "csharp"),
            ("lib/app.rb", "ruby"),
            ("Gemfile", "ruby"),
            ("x/Rakefile", "ruby"),
            ("index.php", "php"),
            ("Main.kt", "kotlin"),
            ("build.gradle.kts", "kotlin"),
            ("App.swift", "swift"),
            ("run.sh", "bash"),
            ("/home/u/.bashrc", "bash"),
            ("schema.sql", "sql"),
        ] {
            assert_eq!(path(p), Some(name), "{p}");
        }
        let cpp_header = "#pragma once\n#include <vector>\n\nnamespace geo {\nclass Shape {\npublic:\n    std::vector<int> xs;\n};\n}\n";
        let file = |p: &str, t: Option<&str>| Syntax::for_file(p, t).map(|s| s.name);
        assert_eq!(file("geo/shape.h", Some(cpp_header)), Some("cpp"));
        assert_eq!(
            file("geo/shape.h", Some("#include <stdio.h>\nint f(void);\n")),
            Some("c")
        );
        assert_eq!(file("geo/shape.h", Some("")), Some("c"));
        assert_eq!(file("geo/shape.h", None), Some("c"));
        // Only a header's name gives way to its content.
        assert_eq!(file("geo/shape.c", Some(cpp_header)), Some("c"));
        assert_eq!(file("notes.txt", Some(cpp_header)), None);
        assert_eq!(Syntax::named("C#").unwrap().name, "csharp");
        assert_eq!(Syntax::named("c++").unwrap().name, "cpp");
        assert_eq!(Syntax::named("sh").unwrap().name, "bash");
        let detect = |t: &str| Syntax::detect(t).map(|s| s.name);
        for (text, name) in [
            (
                "#include <stdio.h>\n#include <stdlib.h>\n\nstatic int add(int a, int b)\n{\n    return a + b;\n}\n",
                "c",
            ),
            (
                "#include <vector>\n\nnamespace geo {\ntemplate <typename T>\nT max(T a, T b) { return a; }\n}\n",
                "cpp",
            ),
            (
                "using System;\n\nnamespace Geo\n{\n    public class Shape\n    {\n        public int Size { get; set; }\n    }\n}\n",
                "csharp",
            ),
            (
                "require 'json'\n\nclass Shape < Base\n  attr_reader :size\n\n  def area\n    size * 2\n  end\nend\n",
                "ruby",
            ),
            (
                "<?php\nnamespace App;\n\nclass User {\n    public function name() { return $this->name; }\n}\n",
                "php",
            ),
            (
                "package geo\n\nimport kotlin.math.max\n\ndata class Shape(val n: Int)\n\nfun area(s: Shape): Int {\n    return s.n\n}\n",
                "kotlin",
            ),
            (
                "import Foundation\n\nstruct Shape {\n    func area(scale: Int) -> Int {\n        guard let n = size else { return 0 }\n        return n\n    }\n}\n",
                "swift",
            ),
            (
                "set -euo pipefail\n\nmain() {\n  if [ -z \"$1\" ]; then\n    echo usage\n  fi\n}\n",
                "bash",
            ),
            ("#!/bin/sh\necho hi\n", "bash"),
            ("#!/usr/bin/env ruby\nputs 1\n", "ruby"),
            (
                "CREATE TABLE users (\n  id serial PRIMARY KEY,\n  name text\n);\n\nSELECT id, name FROM users;\n",
                "sql",
            ),
        ] {
            assert_eq!(detect(text), Some(name), "{text}");
        }
    }
}
