//! The outputs' columns, read from the core's record (`chunkwise_core::record::COLUMNS`): the fields of a JSON line
//! (by the names `--fields` takes), the columns of a Parquet file (those fields with `metadata` flattened into the
//! metadata keys of the chunkers of the run), and their Arrow types. No name of a column is written here.

use arrow_schema::DataType;
use chunkwise_core::record::{self, Formats, Key, Kind, Role, Source};

/// A field of a JSON line, a column of the command line's output: a column of the record.
pub type Field = Key;

/// Whether `key` is a field of the command line's lines (`--fields`): written there, and not a metadata key (those
/// are inside `metadata`).
pub fn is_field(key: Key) -> bool {
    let c = key.column();
    c.formats.has(Formats::LINES) && c.role != Role::Metadata
}

/// The fields a line can hold, in the record's order.
pub fn fields() -> impl Iterator<Item = Field> {
    Key::all().filter(|&k| is_field(k))
}

/// The fields named by `names`, in order; `change` only when `compared` (against a previous run). The error says
/// which name is wrong and why.
pub fn parse_fields<S: AsRef<str>>(names: &[S], compared: bool) -> Result<Vec<Field>, String> {
    let mut parsed = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let name = name.as_ref();
        let field = Key::named(name).filter(|&k| is_field(k)).ok_or_else(|| {
            let known: Vec<_> = fields().map(Key::name).collect();
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
    if parsed.contains(&record::key::CHANGE) && !compared {
        return Err("fields: 'change' needs the ids of a previous run (previous=...)".into());
    }
    Ok(parsed)
}

/// A column of a Parquet output: a field of the lines, or a metadata key `metadata` stands for.
pub type Column = Key;

/// Which chunkers' metadata keys `metadata` stands for in a Parquet file: the pages' always (any text may be
/// paged), and the keys of these groups.
#[derive(Debug, Clone, Copy, Default)]
pub struct Metadata {
    /// A structural chunker's description.
    pub structural: bool,
    /// A code chunk's keys, with the structure's (one schema for every run that describes its chunks, so that the
    /// files of a code run and of a Markdown run concatenate).
    pub code: bool,
    /// The strategy that chose each document's chunker, and why.
    pub strategies: bool,
}

impl Metadata {
    /// The groups of chunkers whose metadata keys are columns.
    fn sources(self) -> impl Iterator<Item = Source> {
        [
            (self.strategies, Source::Strategy),
            (self.structural || self.code, Source::Structure),
            (self.code, Source::Code),
            (true, Source::Pages),
        ]
        .into_iter()
        .filter_map(|(on, s)| on.then_some(s))
    }

    /// Whether `key` is a column `metadata` stands for.
    fn has(self, key: Key) -> bool {
        let c = key.column();
        c.role == Role::Metadata
            && c.formats.has(Formats::LINES)
            && self.sources().any(|s| c.sources.contains(&s))
    }
}

/// The columns of `fields`, in order, with `metadata` flattened as `metadata` says (its keys in the record's order).
pub fn columns(fields: &[Field], metadata: Metadata) -> Vec<Column> {
    let mut columns = Vec::new();
    for &field in fields {
        if field.column().kind == Kind::Map {
            columns.extend(Key::all().filter(|&k| metadata.has(k)));
        } else {
            columns.push(field);
        }
    }
    columns
}

/// The Arrow type of a column of kind `kind`; strings with 64-bit offsets when `large`.
pub fn data_type(kind: Kind, large: bool) -> DataType {
    let string = if large {
        DataType::LargeUtf8
    } else {
        DataType::Utf8
    };
    match kind {
        Kind::Str => string,
        Kind::Int => DataType::Int64,
        Kind::Float => DataType::Float64,
        Kind::Bool => DataType::Boolean,
        Kind::StrList => DataType::new_list(string, true),
        Kind::IntList => DataType::new_list(DataType::Int64, true),
        // Flattened into the metadata columns: never a column of its own.
        Kind::Map => DataType::Null,
    }
}
