//! What a definition node of the syntax tree is: its body, the word its kind shows, its name, and the nodes of a
//! body the walk cuts between.

use tree_sitter::{Node, TreeCursor};

use super::kinds::{self, Kinds};
use super::languages;
use super::MAX_HEADER;

/// A definition found in the tree.
#[derive(Debug, Clone, Copy)]
pub(super) struct Def<'t> {
    /// Its node (its signature starts where it starts).
    pub(super) node: Node<'t>,
    /// Its body, which is cut at its nodes.
    pub(super) body: Option<Node<'t>>,
    /// Its kind's word.
    pub(super) word: &'static str,
    /// The node of its name when the definition's own node has none (an assigned function).
    pub(super) name: Option<Node<'t>>,
}

/// C and C++ kinds that are definitions only with a body (`struct s { ... }`, not `struct s x;`).
pub(super) const NEEDS_BODY: &[&str] = &[
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "class_specifier",
];

/// The node a definition is cut at: its `body` field; else its first named child that is a body (Kotlin's
/// `class_body`, SQL's `function_body`); else the body of its `type` (C's `typedef struct { ... } name;`).
pub(super) fn body_of(def: Node<'_>) -> Option<Node<'_>> {
    if let Some(body) = def.child_by_field_name("body") {
        return Some(body);
    }
    let mut cursor = def.walk();
    let found = def
        .named_children(&mut cursor)
        .find(|c| languages::BODIES.contains(&c.kind()));
    found.or_else(|| {
        def.child_by_field_name("type")
            .and_then(|t| t.child_by_field_name("body"))
    })
}

/// The keyword of a definition whose kind covers several (Swift's `class_declaration` is also a struct, an enum, an
/// extension; Kotlin's is also an interface): its first anonymous child that is a word.
pub(super) fn keyword(def: Node<'_>, text: &str) -> &'static str {
    const WORDS: &[&str] = &[
        "class",
        "struct",
        "enum",
        "extension",
        "actor",
        "interface",
        "protocol",
        "object",
    ];
    let mut cursor = def.walk();
    let found = def
        .children(&mut cursor)
        .filter(|c| !c.is_named())
        .find_map(|c| {
            let word = text.get(c.start_byte()..c.end_byte())?;
            WORDS.iter().find(|w| **w == word).copied()
        });
    found.unwrap_or("class")
}

/// The named children of `holder`, with the children of its bodies (blocks, class bodies...) in their place, in
/// document order. `cursor` and `stack` are scratch space, kept across calls (a cursor allocates).
pub(super) fn body_children<'t>(
    holder: Node<'t>,
    kinds: &Kinds,
    cursor: &mut TreeCursor<'t>,
    stack: &mut Vec<Node<'t>>,
    out: &mut Vec<Node<'t>>,
) {
    // Nodes still to read, the next one last.
    stack.clear();
    let mut push_children = |node: Node<'t>, stack: &mut Vec<Node<'t>>| {
        let from = stack.len();
        stack.extend(node.named_children(cursor));
        stack[from..].reverse();
    };
    push_children(holder, stack);
    while let Some(node) = stack.pop() {
        if kinds.is(node, kinds::BODY) && node.named_child_count() > 0 {
            push_children(node, stack);
        } else {
            out.push(node);
        }
    }
}

/// A definition's name, with whitespace runs made single spaces: its `name` field (after its receiver, Ruby's
/// `self.make`); the end of its declarator chain (C's `*f(void)`, C++'s `Shape::area`); an impl's type (and trait);
/// its `value` (`extern "C"`, `class << self`); a qualified name (SQL's `public.users`); else the name of its first
/// named child that has one (Go's `type X struct`).
pub(super) fn name_of(def: Node<'_>, text: &str) -> String {
    let of = |n: Node<'_>| collapse(text.get(n.start_byte()..n.end_byte()).unwrap_or_default());
    if let Some(name) = def.child_by_field_name("name") {
        return match def.child_by_field_name("object") {
            Some(object) => format!("{}.{}", of(object), of(name)),
            None => of(name),
        };
    }
    if let Some(mut declarator) = def.child_by_field_name("declarator") {
        // Down the chain (pointer, function, reference declarators) to the identifier; a few hundred at most.
        for _ in 0..MAX_HEADER {
            let kind = declarator.kind();
            let next = declarator.child_by_field_name("declarator").or_else(|| {
                let last = u32::try_from(declarator.named_child_count().checked_sub(1)?).ok()?;
                (kind.ends_with("_declarator") && kind != "function_declarator")
                    .then(|| declarator.named_child(last))
                    .flatten()
            });
            match next {
                Some(n) => declarator = n,
                None => break,
            }
        }
        return of(declarator);
    }
    if let Some(ty) = def.child_by_field_name("type") {
        return match def.child_by_field_name("trait") {
            Some(tr) => format!("{} for {}", of(tr), of(ty)),
            None => of(ty),
        };
    }
    if let Some(value) = def.child_by_field_name("value") {
        return of(value);
    }
    let mut cursor = def.walk();
    let children: Vec<Node<'_>> = def.named_children(&mut cursor).collect();
    if let Some(reference) = children.iter().find(|c| c.kind() == "object_reference") {
        return of(*reference);
    }
    let named = children.iter().find_map(|c| c.child_by_field_name("name"));
    named.map_or(String::new(), of)
}

/// `s` with whitespace runs made single spaces, at most [`MAX_HEADER`] bytes of it.
pub(super) fn collapse(s: &str) -> String {
    let s = &s[..crate::offsets::floor_char_boundary(s, s.len().min(MAX_HEADER))];
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
