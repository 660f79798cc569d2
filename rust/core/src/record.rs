//! The chunk record: every column a chunk leaves chunkwise with, written once.
//!
//! A chunk leaves in seven shapes (`Chunk` objects and `to_dict`, JSON lines, Arrow, Parquet, the spool, LlamaIndex
//! nodes, LangChain Documents). [`COLUMNS`] is the one table of their columns: a column's name, type, whether a
//! chunk may lack it, which chunkers set it and on which of their chunks, its role (a field of the chunk, a key of
//! its metadata, or a column about the document or the run) and how the exporters carry it. Every list of keys (the
//! keys a caller's metadata may not hold, the columns `chunk_arrow` keeps apart from the caller's, the CLI's fields,
//! the keys the exporters keep out of the embedded text) is read from it; the bindings hand it to Python
//! (`_core.columns()`).

use crate::structure::{ChunkType, CodeSpan};
use crate::{SpanInfo, Strategy};

/// A column's type, as its values are in Python (and as Arrow and Parquet store them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Str,
    /// An integer (Arrow and Parquet: int64).
    Int,
    /// A float.
    Float,
    /// A boolean.
    Bool,
    /// A list of strings.
    StrList,
    /// A list of integers.
    IntList,
    /// The caller's metadata and the chunk's keys: a dict in Python, an object in JSON lines, flattened into the
    /// metadata columns in Arrow and Parquet.
    Map,
}

impl Kind {
    /// The type's name, as Python spells it in an annotation.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Str => "str",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Bool => "bool",
            Kind::StrList => "list[str]",
            Kind::IntList => "list[int]",
            Kind::Map => "dict",
        }
    }
}

/// What a column describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A field of the chunk: an attribute of `Chunk`, a key of `to_dict`.
    Field,
    /// A key the chunker sets in `Chunk.metadata` (a caller's key of the same name is refused, never overwritten).
    Metadata,
    /// The document the chunk comes from, written beside the chunk's fields by a writer (Arrow's `row`, the CLI's
    /// `source`).
    Document,
    /// What a run did: the CLI's `change` against a previous run's output.
    Run,
}

impl Role {
    /// The role's name, as `_core.columns()` gives it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Field => "field",
            Role::Metadata => "metadata",
            Role::Document => "document",
            Role::Run => "run",
        }
    }
}

/// How a table (Parquet) best stores a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// Short values: plain, with min/max statistics a reader can skip row groups by.
    Plain,
    /// Few distinct values (a level's name, a chunk type, a document's source): dictionary-encoded.
    Repeated,
    /// Long texts (a chunk's text, its context, its embedding text): most of the encoding's work, each column
    /// encoded on a thread of its own; no statistics (they would cost a good part of the writing and skip nothing).
    Text,
    /// Hex digits of hashes (ids): an LZ codec without entropy coding saves little of them, so they are stored
    /// uncompressed under those codecs; no statistics.
    Hash,
}

/// Who sets a column: a set of kinds of chunker (see [`Source::chunkers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Every chunker, on every chunk.
    Every,
    /// Every chunker that measures in tokens.
    Tokens,
    /// The structural chunkers: a document's sections, tables and blocks.
    Structure,
    /// The code chunker, and the Markdown chunker on a code block whose fence names a language it knows.
    Code,
    /// The semantic chunker.
    Semantic,
    /// Every chunker, on a paged text (pages given, or form feeds in the text).
    Pages,
    /// AutoChunker: the strategy it chose for the document, and why.
    Strategy,
    /// HierarchicalChunker: the chunk's level and relations.
    Hierarchy,
    /// ElementsChunker: the parsed elements a chunk holds.
    Elements,
}

/// The chunkers made of others (in Python): they carry the keys of the chunkers they run, and their own.
pub const COMPOSITES: [&str; 3] = ["auto", "hierarchical", "elements"];

/// Every chunker, by its name in the record: those of one strategy (run by a core splitter, named as `Strategy`),
/// then the composites.
pub fn chunkers() -> impl Iterator<Item = &'static str> {
    Strategy::NAMES.iter().copied().chain(COMPOSITES)
}

impl Source {
    /// Every source.
    pub const ALL: [Source; 9] = [
        Source::Every,
        Source::Tokens,
        Source::Structure,
        Source::Code,
        Source::Semantic,
        Source::Pages,
        Source::Strategy,
        Source::Hierarchy,
        Source::Elements,
    ];

    /// The source's name, as `_core.columns()` gives it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Source::Every => "every",
            Source::Tokens => "tokens",
            Source::Structure => "structure",
            Source::Code => "code",
            Source::Semantic => "semantic",
            Source::Pages => "pages",
            Source::Strategy => "strategy",
            Source::Hierarchy => "hierarchy",
            Source::Elements => "elements",
        }
    }

    /// The chunkers of this group (by their names in [`chunkers`]), or None for every chunker. A composite is in
    /// a group when it runs chunkers of it: AutoChunker runs the structural and code chunkers, ElementsChunker the
    /// Markdown chunker, HierarchicalChunker any (its levels, whose keys it carries too).
    const fn named(self) -> Option<&'static [&'static str]> {
        match self {
            Source::Every | Source::Tokens | Source::Pages => None,
            Source::Structure => Some(&["markdown", "clause", "table", "auto", "elements"]),
            Source::Code => Some(&["code", "markdown", "auto", "elements"]),
            Source::Semantic => Some(&["semantic"]),
            Source::Strategy => Some(&["auto"]),
            Source::Hierarchy => Some(&["hierarchical"]),
            Source::Elements => Some(&["elements"]),
        }
    }

    /// Whether `chunker` (a name of [`chunkers`]) is of this group.
    pub fn includes(self, chunker: &str) -> bool {
        match self.named() {
            Some(names) => names.contains(&chunker),
            None => chunkers().any(|c| c == chunker),
        }
    }
}

/// Where a column is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Formats(u8);

impl Formats {
    /// `Chunk` (its attributes, `metadata` and `to_dict`).
    pub const CHUNK: Formats = Formats(1);
    /// The command line's JSON lines and Parquet rows (`chunkwise chunk`).
    pub const LINES: Formats = Formats(2);
    /// `chunk_arrow`'s table.
    pub const ARROW: Formats = Formats(4);
    /// Everywhere a chunk goes.
    pub const ALL: Formats = Formats(7);

    /// Whether `self` holds every format of `other`.
    pub const fn has(self, other: Formats) -> bool {
        self.0 & other.0 == other.0
    }

    /// The names of the formats `self` holds, as `chunkwise.record` reads them: "chunk", "lines", "arrow".
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        [
            (Self::CHUNK, "chunk"),
            (Self::LINES, "lines"),
            (Self::ARROW, "arrow"),
        ]
        .into_iter()
        .filter(move |&(f, _)| self.has(f))
        .map(|(_, name)| name)
    }

    const fn or(self, other: Formats) -> Formats {
        Formats(self.0 | other.0)
    }
}

/// One column of the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The column's name: the attribute of `Chunk`, the key of its metadata, the JSON key and the Arrow and
    /// Parquet column.
    pub name: &'static str,
    /// Its values' type.
    pub kind: Kind,
    /// Whether a chunk of a chunker that sets the column may have no value: `None`, or the key absent from its
    /// metadata (see `when`). A writer of a table (Parquet) makes a metadata column nullable anyway: the rows of
    /// the other chunkers have no value.
    pub nullable: bool,
    /// What it describes.
    pub role: Role,
    /// Which groups of chunkers have it: a caller's metadata key of its name is refused by every chunker of these
    /// groups, and their tables (Arrow, Parquet) have its column.
    pub sources: &'static [Source],
    /// The chunkers that set it, where fewer than the groups' (`language`: only the code chunker and the Markdown
    /// chunker's code blocks; the clause and table chunkers have the column, always null).
    pub only: Option<&'static [&'static str]>,
    /// On which of their chunks, in words: the rule the chunkers follow.
    pub when: &'static str,
    /// Where it is written.
    pub formats: Formats,
    /// Its place among `chunk_arrow`'s columns that are not metadata (0-based), for a column Arrow writes.
    pub arrow_at: Option<u8>,
    /// The key the LlamaIndex and LangChain exporters put it under in a node's or Document's metadata (None: not
    /// there, e.g. the text, which is the node's text).
    pub export: Option<&'static str>,
    /// Whether the exporters keep it in the text that is embedded and shown to an LLM: the keys that say what a
    /// chunk means (its title path, its symbol path, its language) stay, those that describe the chunk (offsets,
    /// ids, sizes, rows, scores) are left out.
    pub embedded: bool,
    /// Whether a chunk of a hierarchy level whose own chunker does not set it takes its parent's value: where the
    /// chunk stands in the document (its title path and their levels), which holds for every part of the parent.
    /// Keys of one chunk (its type, rows, lines) are not passed down.
    pub inherited: bool,
    /// How a table stores it.
    pub store: Store,
}

impl Column {
    /// Whether the exporters carry it but keep it out of the embedded text.
    pub fn excluded_from_embedding(&self) -> bool {
        self.export.is_some() && !self.embedded
    }

    /// Whether the output of `chunker` (a name of [`chunkers`]) has the column: in a table, its column; a
    /// caller's key of its name is refused.
    pub fn written_for(&self, chunker: &str) -> bool {
        self.sources.iter().any(|s| s.includes(chunker))
    }

    /// Whether a table's column of it may hold nulls. `mixed`: the table holds the rows of several chunkers (the
    /// command line's Parquet, where `--strategy auto` picks one per document), so a metadata column is null in the
    /// rows of the chunkers that do not set it; else the rows of one chunker (`chunk_arrow`). `tokens`: the sizes
    /// are token counts (a column of the chunkers in tokens is then never null). A flag (`context_shortened`: in
    /// the metadata only when true) is false, not null, where a described chunk does not set it.
    pub fn nullable_in(&self, mixed: bool, tokens: bool) -> bool {
        if mixed && self.role == Role::Metadata {
            return true;
        }
        self.nullable && self.kind != Kind::Bool && !(tokens && self.sources == [Source::Tokens])
    }

    /// Whether a table keeps min/max statistics of it: of short values, not of long texts, hashes or lists.
    pub fn ordered(&self) -> bool {
        matches!(self.store, Store::Plain | Store::Repeated)
            && !matches!(self.kind, Kind::StrList | Kind::IntList | Kind::Map)
    }

    /// Whether the chunks of `chunker` may carry it.
    pub fn set_by(&self, chunker: &str) -> bool {
        match self.only {
            Some(only) => only.contains(&chunker),
            None => self.written_for(chunker),
        }
    }
}

const ALL: Formats = Formats::ALL;
const CHUNK: Formats = Formats::CHUNK;
const LINES: Formats = Formats::LINES;
const ARROW: Formats = Formats::ARROW;

/// A column every chunk has, written everywhere.
const fn field(
    name: &'static str,
    kind: Kind,
    arrow_at: u8,
    export: Option<&'static str>,
) -> Column {
    Column {
        name,
        kind,
        nullable: false,
        role: Role::Field,
        sources: &[Source::Every],
        only: None,
        when: "every chunk",
        formats: ALL,
        arrow_at: Some(arrow_at),
        export,
        embedded: false,
        inherited: false,
        store: Store::Plain,
    }
}

/// A key a chunker sets in the chunk's metadata, written everywhere (the exporters under its own name).
const fn key(
    name: &'static str,
    kind: Kind,
    nullable: bool,
    sources: &'static [Source],
    when: &'static str,
    embedded: bool,
) -> Column {
    Column {
        name,
        kind,
        nullable,
        role: Role::Metadata,
        sources,
        only: None,
        when,
        formats: ALL,
        arrow_at: None,
        export: Some(name),
        embedded,
        inherited: false,
        store: Store::Plain,
    }
}

const STRUCTURE: &[Source] = &[Source::Structure];
const STRUCTURE_AND_CODE: &[Source] = &[Source::Structure, Source::Code];
const CODE: &[Source] = &[Source::Code];

/// The columns, in the order of the command line's fields (its JSON lines and its Parquet schema), then the
/// metadata keys in the order of the Parquet columns `metadata` stands for.
pub const COLUMNS: &[Column] = &[
    Column {
        store: Store::Text,
        ..field("text", Kind::Str, 2, None)
    },
    field("start", Kind::Int, 3, Some("start_index")),
    field("end", Kind::Int, 4, Some("end_index")),
    Column {
        name: "source",
        kind: Kind::Str,
        nullable: false,
        role: Role::Document,
        sources: &[Source::Every],
        only: None,
        when: "every chunk of the command line: the file it comes from",
        formats: LINES,
        arrow_at: None,
        export: None,
        embedded: false,
        inherited: false,
        store: Store::Repeated,
    },
    field("index", Kind::Int, 1, Some("chunk_index")),
    Column {
        store: Store::Hash,
        ..field("id", Kind::Str, 8, Some("chunk_id"))
    },
    Column {
        nullable: true,
        when: "every chunk but the first of its document",
        store: Store::Hash,
        ..field("prev_id", Kind::Str, 9, Some("prev_chunk_id"))
    },
    Column {
        nullable: true,
        when: "every chunk but the last of its document",
        store: Store::Hash,
        ..field("next_id", Kind::Str, 10, Some("next_chunk_id"))
    },
    Column {
        store: Store::Repeated,
        ..field("level", Kind::Str, 7, Some("level"))
    },
    field("size", Kind::Int, 5, Some("size")),
    Column {
        nullable: true,
        sources: &[Source::Tokens],
        when: "every chunk of a chunker in tokens (None in characters; Arrow has the column only in tokens)",
        ..field("token_count", Kind::Int, 6, Some("token_count"))
    },
    Column {
        when: "every chunk (empty when the chunker adds none)",
        store: Store::Text,
        ..field("context", Kind::Str, 11, Some("context"))
    },
    Column {
        when: "every chunk: what joins the context and the text in the embedding text",
        formats: CHUNK,
        arrow_at: None,
        ..field("context_sep", Kind::Str, 0, None)
    },
    Column {
        when: "every chunk: the context, the separator and the text (the text alone without a context); the \
               LangChain exporter carries it when the chunk has a context",
        store: Store::Text,
        ..field("embedding_text", Kind::Str, 12, Some("embedding_text"))
    },
    Column {
        name: "metadata",
        kind: Kind::Map,
        nullable: false,
        role: Role::Field,
        sources: &[Source::Every],
        only: None,
        when: "every chunk: the caller's metadata and the keys below (Arrow and Parquet: flattened into their \
               columns)",
        formats: CHUNK.or(LINES),
        arrow_at: None,
        export: None,
        embedded: false,
        inherited: false,
        store: Store::Plain,
    },
    Column {
        name: "row",
        kind: Kind::Int,
        nullable: false,
        role: Role::Document,
        sources: &[Source::Every],
        only: None,
        when: "every chunk of chunk_arrow: the row of its document in the input",
        formats: ARROW,
        arrow_at: Some(0),
        export: None,
        embedded: false,
        inherited: false,
        store: Store::Plain,
    },
    Column {
        name: "change",
        kind: Kind::Str,
        nullable: true,
        role: Role::Run,
        sources: &[Source::Every],
        only: None,
        when: "every chunk of the command line with --previous: added or kept",
        formats: LINES,
        arrow_at: None,
        export: None,
        embedded: false,
        inherited: false,
        store: Store::Repeated,
    },
    Column {
        formats: CHUNK.or(LINES),
        store: Store::Repeated,
        ..key(
            "strategy",
            Kind::Str,
            false,
            &[Source::Strategy],
            "every chunk: the kind of document AutoChunker chose",
            false,
        )
    },
    Column {
        formats: CHUNK.or(LINES),
        store: Store::Repeated,
        ..key(
            "strategy_reason",
            Kind::Str,
            false,
            &[Source::Strategy],
            "every chunk: why AutoChunker chose it",
            false,
        )
    },
    // The structure's keys, in the order arrow and the CLI write them.
    Column {
        inherited: true,
        ..key(
            "title_path",
            Kind::StrList,
            false,
            STRUCTURE,
            "every chunk of a structural chunker: the headings above its first line",
            true,
        )
    },
    Column {
        inherited: true,
        ..key(
            "headings",
            Kind::IntList,
            false,
            STRUCTURE,
            "every chunk of a structural chunker: the levels of its title path",
            false,
        )
    },
    Column {
        store: Store::Repeated,
        ..key(
            "chunk_type",
            Kind::Str,
            false,
            STRUCTURE_AND_CODE,
            "every chunk of a structural or code chunker",
            false,
        )
    },
    key(
        "row_start",
        Kind::Int,
        true,
        STRUCTURE,
        "only on a chunk of table rows: its first data row (0-based)",
        false,
    ),
    key(
        "row_end",
        Kind::Int,
        true,
        STRUCTURE,
        "only on a chunk of table rows: past its last data row",
        false,
    ),
    key(
        "total_rows",
        Kind::Int,
        true,
        STRUCTURE,
        "only on a chunk of table rows: the table's data rows",
        false,
    ),
    Column {
        only: Some(&["code", "markdown", "auto", "elements"]),
        store: Store::Repeated,
        ..key(
            "language",
            Kind::Str,
            true,
            STRUCTURE_AND_CODE,
            "every chunk of the code chunker (None for no known language); a Markdown chunk of one code block \
             whose fence names a language",
            true,
        )
    },
    key(
        "context_shortened",
        Kind::Bool,
        true,
        STRUCTURE_AND_CODE,
        "only when true: its context was cut to fit the size",
        false,
    ),
    key(
        "symbol_path",
        Kind::StrList,
        true,
        CODE,
        "every chunk of code: the definitions around its first character",
        true,
    ),
    key(
        "start_line",
        Kind::Int,
        true,
        CODE,
        "every chunk of code: its first line (1-based)",
        false,
    ),
    key(
        "end_line",
        Kind::Int,
        true,
        CODE,
        "every chunk of code: its last line",
        false,
    ),
    key(
        "node_types",
        Kind::StrList,
        true,
        CODE,
        "every chunk of code: the syntax kinds of the outermost nodes that start in it",
        false,
    ),
    Column {
        store: Store::Repeated,
        ..key(
            "note",
            Kind::Str,
            true,
            CODE,
            "only on a chunk of code cut at lines (no known language, a syntax error)",
            false,
        )
    },
    key(
        "page_start",
        Kind::Int,
        true,
        &[Source::Pages, Source::Elements],
        "only on a paged text: the page of its first character (1-based)",
        false,
    ),
    key(
        "page_end",
        Kind::Int,
        true,
        &[Source::Pages, Source::Elements],
        "only on a paged text: the page of its last character",
        false,
    ),
    Column {
        formats: CHUNK,
        ..key(
            "cut_score",
            Kind::Float,
            false,
            &[Source::Semantic],
            "every chunk of the semantic chunker: how sure its cut was",
            false,
        )
    },
    Column {
        formats: CHUNK,
        ..key(
            "cut_mode",
            Kind::Str,
            false,
            &[Source::Semantic],
            "every chunk of the semantic chunker: how its cuts were chosen",
            false,
        )
    },
    Column {
        formats: CHUNK,
        ..key(
            "depth",
            Kind::Int,
            false,
            &[Source::Hierarchy],
            "every chunk: its level (0: the largest)",
            false,
        )
    },
    Column {
        formats: CHUNK,
        ..key(
            "parent_id",
            Kind::Str,
            true,
            &[Source::Hierarchy],
            "every chunk: its parent's id (None at level 0)",
            false,
        )
    },
    Column {
        formats: CHUNK,
        ..key(
            "children_ids",
            Kind::StrList,
            false,
            &[Source::Hierarchy],
            "every chunk: its children's ids (empty at the last level)",
            false,
        )
    },
    Column {
        formats: CHUNK,
        ..key(
            "root_id",
            Kind::Str,
            false,
            &[Source::Hierarchy],
            "every chunk: its level-0 ancestor's id",
            false,
        )
    },
    Column {
        formats: CHUNK,
        ..key(
            "element_indices",
            Kind::IntList,
            false,
            &[Source::Elements],
            "every chunk: the elements it holds text of",
            false,
        )
    },
    Column {
        formats: CHUNK,
        ..key(
            "element_types",
            Kind::StrList,
            false,
            &[Source::Elements],
            "every chunk: their types",
            false,
        )
    },
    Column {
        formats: CHUNK,
        ..key(
            "table_columns",
            Kind::IntList,
            true,
            &[Source::Elements],
            "only on a chunk of a table written in column groups: the columns it shows",
            false,
        )
    },
];

/// The column named `name`.
pub fn column(name: &str) -> Option<&'static Column> {
    COLUMNS.iter().find(|c| c.name == name)
}

/// The metadata keys `source` sets, in the table's order.
pub fn keys(source: Source) -> impl Iterator<Item = &'static str> {
    COLUMNS
        .iter()
        .filter(move |c| c.role == Role::Metadata && c.sources.contains(&source))
        .map(|c| c.name)
}

/// The keys a text's chunks get from chunkwise itself, by their sources, each with where they are set (for the
/// error that refuses a caller's metadata holding one: it is refused rather than overwritten in silence).
/// `description`: the text's, when its chunker describes its chunks; `semantic`: the semantic chunker's; `paged`:
/// the chunks are numbered by page.
pub fn reserved(
    description: Option<&crate::Description>,
    semantic: bool,
    paged: bool,
) -> Vec<(Source, &'static str)> {
    let code = description.is_some_and(|d| d.chunks.iter().any(|c| c.code.is_some()));
    [
        (
            description.is_some(),
            Source::Structure,
            "on the chunks of a structural strategy (markdown, clause, table)",
        ),
        (
            code,
            Source::Code,
            "on the chunks of code (the code strategy, a code block of a known language)",
        ),
        (
            semantic,
            Source::Semantic,
            "on the chunks of the semantic strategy",
        ),
        (paged, Source::Pages, "on the chunks of a paged text"),
    ]
    .into_iter()
    .filter(|r| r.0)
    .map(|(_, source, why)| (source, why))
    .collect()
}

/// A value of a chunk's metadata key, as [`describe`] gives it: headings by their indices into
/// [`Description::headings`] (a writer turns them into titles or depths once per document, not per chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// The titles of these headings (a list of strings).
    Titles(&'a [usize]),
    /// The depths of these headings (a list of integers).
    Depths(&'a [usize]),
    /// A chunk's type (a string).
    Type(ChunkType),
    /// A string.
    Str(&'a str),
    /// A string, or None (`language` of a code block without one, or of no known language).
    OptStr(Option<&'a str>),
    /// An integer.
    Int(usize),
    /// A list of strings.
    Strs(&'a [String]),
    /// True (a flag is set only when true).
    True,
}

/// A metadata key of the record: its column's place in [`COLUMNS`], checked when the program is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key(usize);

impl Key {
    /// The key of the column `name` (a compile error in a const when there is none).
    pub const fn of(name: &str) -> Key {
        let mut i = 0;
        while i < COLUMNS.len() {
            if same(COLUMNS[i].name.as_bytes(), name.as_bytes()) {
                return Key(i);
            }
            i += 1;
        }
        panic!("not a column of the record")
    }

    /// Its place in [`COLUMNS`].
    pub const fn index(self) -> usize {
        self.0
    }

    /// Its column.
    pub const fn column(self) -> &'static Column {
        &COLUMNS[self.0]
    }

    /// Its name.
    pub const fn name(self) -> &'static str {
        COLUMNS[self.0].name
    }

    /// The key of the column named `name`, if there is one.
    pub fn named(name: &str) -> Option<Key> {
        COLUMNS.iter().position(|c| c.name == name).map(Key)
    }

    /// Every column's key, in the table's order.
    pub fn all() -> impl Iterator<Item = Key> {
        (0..COLUMNS.len()).map(Key)
    }
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The columns a writer handles by name, as [`Key`]s (each checked against [`COLUMNS`] when compiled).
pub mod key {
    use super::Key;

    macro_rules! keys {
        ($($name:ident = $column:literal),* $(,)?) => {
            $(
                #[doc = concat!("The column `", $column, "`.")]
                pub const $name: Key = Key::of($column);
            )*
        };
    }

    keys! {
        TEXT = "text",
        START = "start",
        END = "end",
        SOURCE = "source",
        INDEX = "index",
        ID = "id",
        PREV_ID = "prev_id",
        NEXT_ID = "next_id",
        LEVEL = "level",
        SIZE = "size",
        TOKEN_COUNT = "token_count",
        CONTEXT = "context",
        CONTEXT_SEP = "context_sep",
        EMBEDDING_TEXT = "embedding_text",
        METADATA = "metadata",
        ROW = "row",
        CHANGE = "change",
        STRATEGY = "strategy",
        STRATEGY_REASON = "strategy_reason",
        TITLE_PATH = "title_path",
        HEADINGS = "headings",
        CHUNK_TYPE = "chunk_type",
        ROW_START = "row_start",
        ROW_END = "row_end",
        TOTAL_ROWS = "total_rows",
        LANGUAGE = "language",
        CONTEXT_SHORTENED = "context_shortened",
        SYMBOL_PATH = "symbol_path",
        START_LINE = "start_line",
        END_LINE = "end_line",
        NODE_TYPES = "node_types",
        NOTE = "note",
        PAGE_START = "page_start",
        PAGE_END = "page_end",
    }
}

use key::*;

/// The metadata keys a chunk's description gives it, in the order they are set (the order of `Chunk.metadata`):
/// the one place that knows the rules of the structural and code chunkers' keys. A chunk of code (the code
/// chunker): `language` (None for no known language), `symbol_path`, `start_line`, `end_line`, `node_types`,
/// `chunk_type`, `note` (only when cut at lines), `context_shortened` (only when true). Any other described chunk:
/// `title_path`, `headings`, `chunk_type`, the rows only on a chunk of table rows, `language` only on a chunk of one
/// code block, a code block's code keys only when it was parsed as code, `context_shortened` only when true. Every
/// key is a column of [`COLUMNS`] (tested).
pub fn describe<'a>(info: &'a SpanInfo, mut emit: impl FnMut(Key, Value<'a>)) {
    if let Some(code) = info.code.as_ref().filter(|c| c.symbols.is_none()) {
        emit(
            LANGUAGE,
            Value::OptStr(info.language.as_ref().and_then(|l| l.as_deref())),
        );
        code_keys(code, &info.path, &mut emit);
        emit(CHUNK_TYPE, Value::Type(info.kind));
        if let Some(note) = code.note {
            emit(NOTE, Value::Str(note));
        }
        if info.context_shortened {
            emit(CONTEXT_SHORTENED, Value::True);
        }
        return;
    }
    emit(TITLE_PATH, Value::Titles(&info.path));
    emit(HEADINGS, Value::Depths(&info.path));
    emit(CHUNK_TYPE, Value::Type(info.kind));
    if let Some(rows) = info.rows {
        emit(ROW_START, Value::Int(rows.first));
        emit(ROW_END, Value::Int(rows.past));
        emit(TOTAL_ROWS, Value::Int(rows.total));
    }
    if let Some(language) = &info.language {
        emit(LANGUAGE, Value::OptStr(language.as_deref()));
    }
    if let Some(code) = &info.code {
        // A Markdown code block parsed as code: the code chunker's keys too.
        code_keys(code, code.symbols.as_deref().unwrap_or_default(), &mut emit);
        if let Some(note) = code.note {
            emit(NOTE, Value::Str(note));
        }
    }
    if info.context_shortened {
        emit(CONTEXT_SHORTENED, Value::True);
    }
}

/// The metadata keys of a chunk as the outputs write them, in the order `Chunk.metadata` has them: the strategy that
/// chose its chunker and why (AutoChunker, the command line's `--strategy auto`), the keys of its description
/// ([`describe`]), and the pages of a paged text (`page_start`, `page_end`).
pub fn chunk_metadata<'a>(
    strategy: Option<(&'a str, &'a str)>,
    info: Option<&'a SpanInfo>,
    pages: Option<(usize, usize)>,
    mut emit: impl FnMut(Key, Value<'a>),
) {
    if let Some((strategy, reason)) = strategy {
        emit(STRATEGY, Value::Str(strategy));
        emit(STRATEGY_REASON, Value::Str(reason));
    }
    if let Some(info) = info {
        describe(info, &mut emit);
    }
    if let Some((first, last)) = pages {
        emit(PAGE_START, Value::Int(first));
        emit(PAGE_END, Value::Int(last));
    }
}

/// A chunk of code's `symbol_path` (the headings `symbols`), `start_line`, `end_line` and `node_types`.
fn code_keys<'a>(code: &'a CodeSpan, symbols: &'a [usize], emit: &mut impl FnMut(Key, Value<'a>)) {
    emit(SYMBOL_PATH, Value::Titles(symbols));
    emit(START_LINE, Value::Int(code.lines.0));
    emit(END_LINE, Value::Int(code.lines.1));
    emit(NODE_TYPES, Value::Strs(&code.node_types));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_named_in_order() {
        assert!(Formats::ALL.names().eq(["chunk", "lines", "arrow"]));
        assert!(Formats::LINES
            .or(Formats::ARROW)
            .names()
            .eq(["lines", "arrow"]));
        assert_eq!(Formats(0).names().count(), 0);
    }

    #[test]
    fn reserved_keys_follow_what_the_chunks_carry() {
        assert!(reserved(None, false, false).is_empty());
        let sources = |r: Vec<(Source, &str)>| r.into_iter().map(|(s, _)| s).collect::<Vec<_>>();
        assert_eq!(
            sources(reserved(None, true, true)),
            [Source::Semantic, Source::Pages]
        );
        let plain = crate::Description {
            headings: Vec::new(),
            chunks: Vec::new(),
        };
        assert_eq!(
            sources(reserved(Some(&plain), false, false)),
            [Source::Structure]
        );
        assert!(keys(Source::Structure).count() > 0 && keys(Source::Pages).count() == 2);
    }

    #[test]
    fn describe_gives_the_records_keys_with_their_types_and_rules() {
        use crate::{ChunkOptions, Splitter, SplitterConfig};
        let md = "# Guide\n\n## Install\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n```python\ndef f():\n    \
                  return 1\n```\n\nWords.\n";
        let code = "import os\n\n\nclass Parser:\n    def feed(self, data):\n        return data\n";
        let cases = [
            (Strategy::Markdown, md),
            (Strategy::Code, code),
            (
                Strategy::Clause,
                "Article 1. Scope.\n\nArticle 2. Terms apply.\n",
            ),
        ];
        let mut seen = Vec::new();
        for (strategy, text) in cases {
            let splitter = Splitter::new(SplitterConfig::new(strategy, 40)).unwrap();
            let chunks = splitter.chunks(text, ChunkOptions::default()).unwrap();
            let description = chunks
                .description
                .expect("a structural chunker describes its chunks");
            for info in &description.chunks {
                let mut keys = Vec::new();
                describe(info, |key, value| {
                    let (c, key) = (key.column(), key.name());
                    assert_eq!(c.role, Role::Metadata, "{key}");
                    assert!(c.set_by(strategy.name()), "{key} on {}", strategy.name());
                    let kind = match value {
                        Value::Titles(_) | Value::Strs(_) => Kind::StrList,
                        Value::Depths(_) => Kind::IntList,
                        Value::Type(_) | Value::Str(_) | Value::OptStr(_) => Kind::Str,
                        Value::Int(_) => Kind::Int,
                        Value::True => Kind::Bool,
                    };
                    assert_eq!(c.kind, kind, "{key}");
                    if matches!(value, Value::OptStr(None)) {
                        assert!(c.nullable, "{key}");
                    }
                    keys.push(key);
                });
                // Each key once, and the keys every chunk of the chunker has.
                let mut unique = keys.clone();
                unique.sort_unstable();
                unique.dedup();
                assert_eq!(unique.len(), keys.len(), "{keys:?}");
                for c in COLUMNS.iter().filter(|c| {
                    c.role == Role::Metadata
                        && !c.nullable
                        && c.set_by(strategy.name())
                        && !c.sources.contains(&Source::Strategy)
                }) {
                    assert!(
                        keys.contains(&c.name) || strategy == Strategy::Code,
                        "{} missing",
                        c.name
                    );
                }
                assert_eq!(info.rows.is_some(), keys.contains(&"row_start"));
                assert_eq!(info.context_shortened, keys.contains(&"context_shortened"));
                seen.extend(keys);
            }
        }
        for key in [
            "symbol_path",
            "row_start",
            "title_path",
            "language",
            "node_types",
        ] {
            assert!(seen.contains(&key), "{key}");
        }
    }

    #[test]
    fn names_are_unique_and_exports_too() {
        for (i, c) in COLUMNS.iter().enumerate() {
            assert!(
                COLUMNS[..i].iter().all(|d| d.name != c.name),
                "{} twice",
                c.name
            );
            if let Some(e) = c.export {
                assert!(
                    COLUMNS[..i].iter().all(|d| d.export != Some(e)),
                    "{e} twice"
                );
            }
        }
    }

    #[test]
    fn the_structure_keys_start_in_arrow_order_and_include_context_shortened() {
        let keys: Vec<_> = keys(Source::Structure).collect();
        assert_eq!(
            keys,
            [
                "title_path",
                "headings",
                "chunk_type",
                "row_start",
                "row_end",
                "total_rows",
                "language",
                "context_shortened"
            ]
        );
    }

    #[test]
    fn code_keys_are_on_code_and_markdown_fences_only() {
        let code = column("symbol_path").unwrap();
        assert!(code.set_by("code") && code.set_by("markdown") && code.set_by("auto"));
        assert!(!code.set_by("clause") && !code.set_by("recursive") && !code.set_by("table"));
        let keys: Vec<_> = keys(Source::Code).collect();
        assert_eq!(
            keys,
            [
                "chunk_type",
                "language",
                "context_shortened",
                "symbol_path",
                "start_line",
                "end_line",
                "node_types",
                "note"
            ]
        );
    }

    #[test]
    fn rows_only_on_table_chunks_and_shortened_only_when_true() {
        for name in [
            "row_start",
            "row_end",
            "total_rows",
            "context_shortened",
            "note",
        ] {
            let c = column(name).unwrap();
            assert!(c.nullable && c.when.starts_with("only"), "{name}");
        }
        assert!(!column("title_path").unwrap().nullable);
    }

    #[test]
    fn a_child_inherits_where_it_stands_and_nothing_of_one_chunk() {
        // What a hierarchy passes down holds for every part of a parent: set on every chunk of the structural
        // chunkers, never null, and no key of one chunk's kind or extent.
        let inherited: Vec<&str> = COLUMNS
            .iter()
            .filter(|c| c.inherited)
            .map(|c| c.name)
            .collect();
        assert_eq!(inherited, ["title_path", "headings"]);
        for c in COLUMNS.iter().filter(|c| c.inherited) {
            assert!(
                c.role == Role::Metadata && !c.nullable && c.sources == STRUCTURE,
                "{}",
                c.name
            );
            assert!(
                c.when.starts_with("every chunk of a structural chunker"),
                "{}",
                c.name
            );
        }
    }

    #[test]
    fn arrow_places_are_a_permutation() {
        let mut at: Vec<u8> = COLUMNS.iter().filter_map(|c| c.arrow_at).collect();
        at.sort_unstable();
        assert_eq!(at, (0..at.len() as u8).collect::<Vec<_>>());
        assert!(COLUMNS
            .iter()
            .filter(|c| c.arrow_at.is_some())
            .all(|c| c.formats.has(Formats::ARROW) && c.role != Role::Metadata));
    }

    #[test]
    fn what_the_exporters_leave_out_of_the_embedded_text() {
        let out: Vec<_> = COLUMNS
            .iter()
            .filter(|c| c.excluded_from_embedding())
            .map(|c| c.name)
            .collect();
        for name in [
            "start",
            "id",
            "context",
            "start_line",
            "node_types",
            "cut_score",
            "strategy",
            "depth",
            "page_start",
        ] {
            assert!(out.contains(&name), "{name}");
        }
        for name in ["title_path", "symbol_path", "language", "text"] {
            assert!(!out.contains(&name), "{name}");
        }
    }

    #[test]
    fn every_source_names_known_chunkers_and_every_chunker_has_the_fields() {
        for s in Source::ALL {
            for c in s.named().unwrap_or_default() {
                assert!(chunkers().any(|k| k == *c), "{c}");
            }
        }
        assert_eq!(chunkers().count(), 12);
        for chunker in chunkers() {
            assert!(column("text").unwrap().set_by(chunker));
            assert!(column("page_start").unwrap().set_by(chunker));
        }
        assert!(!column("cut_score").unwrap().set_by("recursive"));
        let language = column("language").unwrap();
        assert!(
            language.written_for("clause")
                && !language.set_by("clause")
                && language.set_by("markdown")
        );
        for c in COLUMNS {
            if let Some(only) = c.only {
                assert!(only.iter().all(|name| c.written_for(name)), "{}", c.name);
            }
        }
    }
}
