//! The fields of a JSON line (by the names `--fields` takes) and the columns of a Parquet file, which are those
//! fields with `metadata` flattened into the columns of a chunk's description, code, strategy and pages.

use arrow_schema::DataType;

/// The fields a line can hold, by the names `--fields` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Text,
    Start,
    End,
    Source,
    Index,
    Id,
    PrevId,
    NextId,
    Level,
    Size,
    TokenCount,
    Context,
    EmbeddingText,
    Metadata,
    /// Against a previous run: "added" (to embed) or "kept".
    Change,
}

impl Field {
    pub const ALL: [(&'static str, Field); 15] = [
        ("text", Field::Text),
        ("start", Field::Start),
        ("end", Field::End),
        ("source", Field::Source),
        ("index", Field::Index),
        ("id", Field::Id),
        ("prev_id", Field::PrevId),
        ("next_id", Field::NextId),
        ("level", Field::Level),
        ("size", Field::Size),
        ("token_count", Field::TokenCount),
        ("context", Field::Context),
        ("embedding_text", Field::EmbeddingText),
        ("metadata", Field::Metadata),
        ("change", Field::Change),
    ];

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, f)| f)
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("", |(n, _)| n)
    }
}

/// The fields named by `names`, in order; `change` only when `compared` (against a previous run). The error says
/// which name is wrong and why.
pub fn parse_fields<S: AsRef<str>>(names: &[S], compared: bool) -> Result<Vec<Field>, String> {
    let mut parsed = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let name = name.as_ref();
        let field = Field::parse(name).ok_or_else(|| {
            let known: Vec<_> = Field::ALL.iter().map(|(n, _)| *n).collect();
            format!(
                "fields[{i}]: unknown field {name:?} (known: {})",
                known.join(", ")
            )
        })?;
        if parsed.contains(&field) {
            return Err(format!("fields names {name:?} twice"));
        }
        parsed.push(field);
    }
    if parsed.contains(&Field::Change) && !compared {
        return Err("fields: 'change' needs the ids of a previous run (previous=...)".into());
    }
    Ok(parsed)
}

/// A column of the Parquet output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// A field of the JSON lines, as its own column (all but `metadata`, which stands for several).
    Field(Field),
    TitlePath,
    Headings,
    ChunkType,
    RowStart,
    RowEnd,
    TotalRows,
    Language,
    ContextShortened,
    SymbolPath,
    StartLine,
    EndLine,
    NodeTypes,
    Note,
    Strategy,
    StrategyReason,
    PageStart,
    PageEnd,
}

/// The columns `metadata` stands for: a structural chunker's description (named as `chunk.metadata`'s keys), then a
/// paged document's pages.
pub const STRUCTURE: [Column; 8] = [
    Column::TitlePath,
    Column::Headings,
    Column::ChunkType,
    Column::RowStart,
    Column::RowEnd,
    Column::TotalRows,
    Column::Language,
    Column::ContextShortened,
];
/// A code chunk's description, beyond the structure's columns (`code`).
pub const CODE: [Column; 5] = [
    Column::SymbolPath,
    Column::StartLine,
    Column::EndLine,
    Column::NodeTypes,
    Column::Note,
];
/// The strategy that chose a document's chunker, and why (`strategies`).
pub const STRATEGY: [Column; 2] = [Column::Strategy, Column::StrategyReason];
pub const PAGES: [Column; 2] = [Column::PageStart, Column::PageEnd];

/// Which columns `metadata` stands for in a Parquet file.
#[derive(Debug, Clone, Copy, Default)]
pub struct Metadata {
    /// A structural chunker's description.
    pub structural: bool,
    /// A code chunk's keys (and the description's).
    pub code: bool,
    /// The strategy that chose each document's chunker, and why.
    pub strategies: bool,
}

/// The columns of `fields`, in order, with `metadata` flattened as `metadata` says.
pub fn columns(fields: &[Field], metadata: Metadata) -> Vec<Column> {
    let mut columns = Vec::new();
    for &field in fields {
        match field {
            Field::Metadata => {
                if metadata.strategies {
                    columns.extend(STRATEGY);
                }
                if metadata.structural || metadata.code {
                    columns.extend(STRUCTURE);
                }
                if metadata.code {
                    columns.extend(CODE);
                }
                columns.extend(PAGES);
            }
            f => columns.push(Column::Field(f)),
        }
    }
    columns
}

impl Column {
    pub fn name(self) -> &'static str {
        match self {
            Column::Field(field) => field.name(),
            Column::TitlePath => "title_path",
            Column::Headings => "headings",
            Column::ChunkType => "chunk_type",
            Column::RowStart => "row_start",
            Column::RowEnd => "row_end",
            Column::TotalRows => "total_rows",
            Column::Language => "language",
            Column::ContextShortened => "context_shortened",
            Column::SymbolPath => "symbol_path",
            Column::StartLine => "start_line",
            Column::EndLine => "end_line",
            Column::NodeTypes => "node_types",
            Column::Note => "note",
            Column::Strategy => "strategy",
            Column::StrategyReason => "strategy_reason",
            Column::PageStart => "page_start",
            Column::PageEnd => "page_end",
        }
    }

    /// Its type in a Parquet file (strings with 32-bit offsets).
    pub fn data_type(self) -> DataType {
        match self {
            Column::Field(Field::Start)
            | Column::Field(Field::End)
            | Column::Field(Field::Index)
            | Column::Field(Field::Size)
            | Column::Field(Field::TokenCount)
            | Column::RowStart
            | Column::RowEnd
            | Column::TotalRows
            | Column::StartLine
            | Column::EndLine
            | Column::PageStart
            | Column::PageEnd => DataType::Int64,
            Column::TitlePath | Column::SymbolPath | Column::NodeTypes => {
                DataType::new_list(DataType::Utf8, true)
            }
            Column::Headings => DataType::new_list(DataType::Int64, true),
            Column::ContextShortened => DataType::Boolean,
            _ => DataType::Utf8,
        }
    }

    /// Whether the column can hold nulls: a chunk may have no such value (`token_count` in characters; the
    /// description's columns of a chunker that has none, the code columns of a chunk that is not code, the strategy
    /// of a document no strategy was chosen for).
    pub fn nullable(self, tokens: bool) -> bool {
        match self {
            Column::Field(Field::TokenCount) => !tokens,
            Column::Field(Field::PrevId)
            | Column::Field(Field::NextId)
            | Column::Field(Field::Change)
            | Column::PageStart
            | Column::PageEnd => true,
            c => STRUCTURE.contains(&c) || CODE.contains(&c) || STRATEGY.contains(&c),
        }
    }

    /// Few distinct values: dictionary-encoded.
    pub(crate) fn repeats(self) -> bool {
        matches!(
            self,
            Column::Field(Field::Source)
                | Column::Field(Field::Level)
                | Column::ChunkType
                | Column::Language
                | Column::Note
                | Column::Strategy
                | Column::StrategyReason
                | Column::Field(Field::Change)
        )
    }

    /// Long texts: most of the encoding's work (compressing them), each column encoded on a thread of its own.
    pub(crate) fn heavy(self) -> bool {
        matches!(
            self,
            Column::Field(Field::Text)
                | Column::Field(Field::EmbeddingText)
                | Column::Field(Field::Context)
        )
    }

    /// Hex digits of hashes: an LZ codec without entropy coding (snappy, lz4) saves a seventh of them, for about
    /// a fifth of the CPU the compression of the text costs; stored uncompressed under those codecs.
    pub(crate) fn hashes(self) -> bool {
        matches!(
            self,
            Column::Field(Field::Id) | Column::Field(Field::PrevId) | Column::Field(Field::NextId)
        )
    }

    /// Min/max statistics, where a reader can skip row groups by them: not of the texts and hashes, where they cost
    /// a good part of the writing and skip nothing.
    pub(crate) fn ordered(self) -> bool {
        !matches!(
            self,
            Column::Field(Field::Text)
                | Column::Field(Field::EmbeddingText)
                | Column::Field(Field::Context)
                | Column::Field(Field::Id)
                | Column::Field(Field::PrevId)
                | Column::Field(Field::NextId)
                | Column::TitlePath
                | Column::Headings
                | Column::SymbolPath
                | Column::NodeTypes
                | Column::StrategyReason
        )
    }
}
