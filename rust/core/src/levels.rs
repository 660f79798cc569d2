//! A strategy's table of levels: which source reports cuts at which [`Level`], and the name a chunk that ends on
//! such a cut reports. Each strategy writes its table once (see `splitter`); the engine reads the sources, chunks
//! and the bindings read the names.

use crate::boundary::{Emitter, Level};

/// Who reports the cuts of a level.
#[derive(Debug, Clone)]
pub enum Source {
    /// A scanner of running text (blank lines, sentences, words, a user separator...).
    Emitter(Emitter),
    /// The document's structure, as its parser found it once for the whole text (see [`crate::structure`]): the
    /// engine holds it and asks it for its cuts of the level.
    Structure,
}

impl Source {
    /// Whether the source reads prose (sentences, lines, blank lines): it is silenced inside code and tables, and
    /// reads the text's line view.
    pub fn is_prose(&self) -> bool {
        matches!(self, Source::Emitter(e) if e.is_prose())
    }

    /// Whether the source's positions are grapheme boundaries by construction (see [`Emitter::grapheme_safe`]).
    /// The structure's are not: they are byte offsets of lines and blocks, checked like any other.
    pub fn grapheme_safe(&self) -> bool {
        matches!(self, Source::Emitter(e) if e.grapheme_safe())
    }
}

/// The name a chunk reports for the level of the cut it ends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Name {
    /// The end of the text.
    End,
    /// Before a heading or a numbered provision.
    Section,
    /// After a thematic break (`---`).
    ThematicBreak,
    /// Between top-level blocks.
    Block,
    /// Between the items of a top-level list.
    Item,
    /// Between blocks inside a container (a list item, a quote), or between the nodes of a body in code (the
    /// methods of a class, the statements of a function).
    NestedBlock,
    /// Before a top-level definition in a code block, or a node of a module (code).
    Definition,
    /// After a run of blank lines.
    Paragraph,
    /// After a line.
    Line,
    /// Between the data rows of a table.
    Row,
    /// After a sentence.
    Sentence,
    /// After clause punctuation.
    Clause,
    /// At a soft wrap of hard-wrapped text.
    Wrap,
    /// Between words.
    Word,
    /// Between grapheme clusters.
    Grapheme,
    /// At a user separator.
    Separator,
    /// Where a semantic chunker found the meaning to shift.
    Semantic,
}

impl Name {
    /// Every name, in the order of [`Name::index`].
    pub const ALL: [Name; 17] = [
        Name::End,
        Name::Section,
        Name::ThematicBreak,
        Name::Block,
        Name::Item,
        Name::NestedBlock,
        Name::Definition,
        Name::Paragraph,
        Name::Line,
        Name::Row,
        Name::Sentence,
        Name::Clause,
        Name::Wrap,
        Name::Word,
        Name::Grapheme,
        Name::Separator,
        Name::Semantic,
    ];

    /// The name as chunks report it.
    pub fn as_str(self) -> &'static str {
        match self {
            Name::End => "end",
            Name::Section => "section",
            Name::ThematicBreak => "thematic_break",
            Name::Block => "block",
            Name::Item => "item",
            Name::NestedBlock => "nested_block",
            Name::Definition => "definition",
            Name::Paragraph => "paragraph",
            Name::Line => "line",
            Name::Row => "row",
            Name::Sentence => "sentence",
            Name::Clause => "clause",
            Name::Wrap => "wrap",
            Name::Word => "word",
            Name::Grapheme => "grapheme",
            Name::Separator => "separator",
            Name::Semantic => "semantic",
        }
    }

    /// The position of the name in [`Name::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name of an emitter's own level.
    pub fn of(emitter: &Emitter) -> Name {
        match emitter {
            Emitter::Paragraph => Name::Paragraph,
            Emitter::Line => Name::Line,
            Emitter::Wrap => Name::Wrap,
            Emitter::Sentence => Name::Sentence,
            Emitter::Clause => Name::Clause,
            Emitter::Word => Name::Word,
            Emitter::Grapheme => Name::Grapheme,
            Emitter::Separator(_) => Name::Separator,
        }
    }
}

/// One row of a level table: a source, the level it reports its cuts at, and the name of that level.
pub type Row = (Source, Level, Name);

/// A strategy's table of levels.
#[derive(Debug, Clone)]
pub struct Levels {
    rows: Vec<Row>,
    /// The distinct levels of the rows, strongest first.
    order: Vec<Level>,
    /// How many of the strongest levels only the structure reports.
    eager: usize,
}

impl Levels {
    /// The table of `rows`. Rows of one level share its name: a chunk names the level, not the source that found
    /// the cut.
    pub fn new(rows: Vec<Row>) -> Self {
        debug_assert!(
            rows.iter()
                .all(|(_, l, n)| rows.iter().all(|(_, m, o)| l != m || n == o)),
            "two names for one level: {rows:?}"
        );
        let mut order: Vec<Level> = rows.iter().map(|(_, l, _)| *l).collect();
        order.sort_unstable_by(|a, b| b.cmp(a));
        order.dedup();
        let eager = order
            .iter()
            .take_while(|&&l| {
                rows.iter()
                    .filter(|(_, rl, _)| *rl == l)
                    .all(|(s, _, _)| matches!(s, Source::Structure))
            })
            .count();
        Self { rows, order, eager }
    }

    /// Every row, in the order the strategy wrote them.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The distinct levels, strongest first.
    pub fn order(&self) -> &[Level] {
        &self.order
    }

    /// How many of the strongest levels only the structure reports (the engine emits them together, at no cost).
    pub fn eager(&self) -> usize {
        self.eager
    }

    /// The name of a level: [`Name::End`] for the end of the text, else its rows' name. A level no row reports
    /// (no chunk of the strategy ends on it) reads as the floor, [`Name::Grapheme`].
    pub fn name(&self, level: Level) -> Name {
        if level == Level::END {
            return Name::End;
        }
        self.rows
            .iter()
            .find(|(_, l, _)| *l == level)
            .map_or(Name::Grapheme, |(_, _, n)| *n)
    }

    /// Whether any source reads prose (and so needs the text's line view).
    pub fn reads_prose(&self) -> bool {
        self.rows.iter().any(|(s, _, _)| s.is_prose())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_listed_in_index_order() {
        for (i, name) in Name::ALL.iter().enumerate() {
            assert_eq!(name.index(), i);
        }
        let mut strings: Vec<&str> = Name::ALL.iter().map(|n| n.as_str()).collect();
        strings.sort_unstable();
        strings.dedup();
        assert_eq!(strings.len(), Name::ALL.len());
    }

    #[test]
    fn a_table_orders_its_levels_and_names_them() {
        let levels = Levels::new(vec![
            (Source::Structure, Level::heading(1), Name::Section),
            (Source::Structure, Level::PARAGRAPH, Name::Paragraph),
            (
                Source::Emitter(Emitter::Paragraph),
                Level::PARAGRAPH,
                Name::Paragraph,
            ),
            (
                Source::Emitter(Emitter::Grapheme),
                Level::GRAPHEME,
                Name::Grapheme,
            ),
        ]);
        assert_eq!(
            levels.order(),
            [Level::heading(1), Level::PARAGRAPH, Level::GRAPHEME]
        );
        // Only the heading level is the structure's alone.
        assert_eq!(levels.eager(), 1);
        assert_eq!(levels.name(Level::PARAGRAPH), Name::Paragraph);
        assert_eq!(levels.name(Level::END), Name::End);
        assert_eq!(levels.name(Level::WORD), Name::Grapheme);
        assert!(levels.reads_prose());
    }
}
