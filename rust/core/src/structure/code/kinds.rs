//! What the walk asks of a node kind, looked up by the grammar's kind id: the names of the language table turned
//! into one table per grammar, built once. (A kind's name costs a UTF-8 check and string comparisons on every
//! node; its id, an index.)

use std::sync::OnceLock;

use tree_sitter::Node;

use super::languages::{Syntax, BODIES, COMMENTS, LANGUAGES};

/// Its children are the pieces of the node holding it (a body, a block).
pub(super) const BODY: u8 = 1;
/// A comment.
pub(super) const COMMENT: u8 = 2;
/// It goes with the node after it (a comment, an attribute, a decorator).
pub(super) const ATTACHED: u8 = 4;
/// A node that may assign a function to a name (JavaScript, TypeScript): a declaration, or a statement.
pub(super) const MAY_ASSIGN: u8 = 8;
/// A declaration of variables (of those that may assign a function), not a statement.
pub(super) const DECLARES: u8 = 16;
/// An assignment expression (of a statement that may assign a function).
pub(super) const ASSIGNMENT: u8 = 32;
/// A function as a value (of an assignment).
pub(super) const FUNCTION_VALUE: u8 = 64;
/// A definition, a wrapper of one, or a node that may assign a function: the walk asks more of it.
pub(super) const MAY_DEFINE: u8 = 128;

/// The ids of the fields the walk reads on every statement of JavaScript and TypeScript (a field's name costs a
/// scan of the grammar's field names).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Fields {
    pub(super) name: Option<u16>,
    pub(super) value: Option<u16>,
    pub(super) left: Option<u16>,
    pub(super) right: Option<u16>,
    pub(super) body: Option<u16>,
}

/// The kinds of one grammar, by kind id.
#[derive(Debug, Default)]
pub(super) struct Kinds {
    flags: Vec<u8>,
    /// The word a symbol path shows before a definition's name.
    words: Vec<Option<&'static str>>,
    /// The field that holds the definition a wrapper wraps ("": its first named child).
    fields: Vec<Option<&'static str>>,
    /// The ids of the fields an assigned function is read from.
    pub(super) field_ids: Fields,
}

impl Kinds {
    fn of(syntax: &Syntax) -> Self {
        let language = syntax.language();
        let count = language.node_kind_count();
        let mut kinds = Kinds {
            flags: vec![0; count],
            words: vec![None; count],
            fields: vec![None; count],
            field_ids: Fields::default(),
        };
        let field = |name: &str| language.field_id_for_name(name).map(|id| id.get());
        kinds.field_ids = Fields {
            name: field("name"),
            value: field("value"),
            left: field("left"),
            right: field("right"),
            body: field("body"),
        };
        for id in 0..count {
            let Some(name) = u16::try_from(id)
                .ok()
                .and_then(|id| language.node_kind_for_id(id))
            else {
                continue;
            };
            let mut flags = 0;
            if BODIES.contains(&name) {
                flags |= BODY;
            }
            if COMMENTS.contains(&name) {
                flags |= COMMENT;
            }
            if syntax.attached.contains(&name) {
                flags |= ATTACHED;
            }
            if syntax.assigns_functions {
                flags |= match name {
                    "lexical_declaration" | "variable_declaration" => MAY_ASSIGN | DECLARES,
                    "expression_statement" => MAY_ASSIGN,
                    "assignment_expression" => ASSIGNMENT,
                    "function_expression"
                    | "arrow_function"
                    | "function"
                    | "generator_function" => FUNCTION_VALUE,
                    _ => 0,
                };
            }
            kinds.words[id] = syntax
                .definitions
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, w)| *w);
            kinds.fields[id] = syntax
                .wrappers
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, f)| *f);
            if kinds.words[id].is_some() || kinds.fields[id].is_some() || flags & MAY_ASSIGN != 0 {
                flags |= MAY_DEFINE;
            }
            kinds.flags[id] = flags;
        }
        kinds
    }

    /// The table of `syntax` (one of [`LANGUAGES`]), built on first use.
    pub(super) fn get(syntax: &'static Syntax) -> &'static Kinds {
        static ALL: OnceLock<Vec<Kinds>> = OnceLock::new();
        let all = ALL.get_or_init(|| LANGUAGES.iter().map(Kinds::of).collect());
        let i = LANGUAGES
            .iter()
            .position(|s| std::ptr::eq(s, syntax))
            .unwrap_or(0);
        &all[i]
    }

    /// Whether `node`'s kind has `flag` (one of this module's flags, such as [`COMMENT`]).
    pub(super) fn is(&self, node: Node<'_>, flag: u8) -> bool {
        self.flags
            .get(usize::from(node.kind_id()))
            .is_some_and(|f| f & flag != 0)
    }

    /// The word of the definition `node` is, if it is one.
    pub(super) fn definition(&self, node: Node<'_>) -> Option<&'static str> {
        self.words
            .get(usize::from(node.kind_id()))
            .copied()
            .flatten()
    }

    /// The field that holds the definition `node` wraps, if it wraps one.
    pub(super) fn wrapped(&self, node: Node<'_>) -> Option<&'static str> {
        self.fields
            .get(usize::from(node.kind_id()))
            .copied()
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::Parser;

    #[test]
    fn the_tables_answer_as_the_names_do() {
        let text = "# c\n@d\ndef f():\n    x = 1\n\nclass A:\n    pass\n";
        let syntax = Syntax::named("python").expect("python");
        let mut parser = Parser::new();
        parser.set_language(&syntax.language()).expect("grammar");
        let tree = parser.parse(text, None).expect("tree");
        let kinds = Kinds::get(syntax);
        let mut cursor = tree.walk();
        let mut stack = vec![tree.root_node()];
        let mut seen = 0;
        while let Some(node) = stack.pop() {
            let name = node.kind();
            assert_eq!(kinds.is(node, BODY), BODIES.contains(&name), "{name}");
            assert_eq!(kinds.is(node, COMMENT), COMMENTS.contains(&name), "{name}");
            let word = syntax.definitions.iter().find(|(k, _)| *k == name);
            let field = syntax.wrappers.iter().find(|(k, _)| *k == name);
            assert_eq!(
                kinds.is(node, ATTACHED),
                syntax.attached.contains(&name),
                "{name}"
            );
            assert_eq!(kinds.definition(node), word.map(|w| w.1), "{name}");
            assert_eq!(kinds.wrapped(node), field.map(|f| f.1), "{name}");
            assert_eq!(
                kinds.is(node, MAY_DEFINE),
                word.is_some() || field.is_some() || kinds.is(node, MAY_ASSIGN),
                "{name}"
            );
            stack.extend(node.children(&mut cursor));
            seen += 1;
        }
        assert!(seen > 20);
    }
}
