//! The metadata columns of a table of chunks (the strategy, the description's keys, the pages), row by row: the one
//! row builder of that part of the record, shared by the Arrow batches and the Parquet rows. Which keys a chunk has
//! is `record::chunk_metadata`'s to say; this only stores them, a builder per column by the column's kind.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, GenericStringBuilder, Int64Builder, ListBuilder,
};
use arrow_array::{ArrayRef, OffsetSizeTrait};
use chunkwise_core::record::{self, Key, Kind, Value};
use chunkwise_core::{Description, SpanInfo};

/// A column's builder, by its kind.
#[derive(Debug)]
enum Builder<O: OffsetSizeTrait> {
    Str(GenericStringBuilder<O>),
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    Strs(ListBuilder<GenericStringBuilder<O>>),
    Ints(ListBuilder<Int64Builder>),
}

impl<O: OffsetSizeTrait> Builder<O> {
    fn new(kind: Kind, rows: usize) -> Self {
        match kind {
            Kind::Str | Kind::Map => {
                Builder::Str(GenericStringBuilder::with_capacity(rows, rows * 8))
            }
            Kind::Int => Builder::Int(Int64Builder::with_capacity(rows)),
            Kind::Float => Builder::Float(Float64Builder::with_capacity(rows)),
            Kind::Bool => Builder::Bool(BooleanBuilder::with_capacity(rows)),
            Kind::StrList => Builder::Strs(ListBuilder::with_capacity(
                GenericStringBuilder::new(),
                rows,
            )),
            Kind::IntList => Builder::Ints(ListBuilder::with_capacity(Int64Builder::new(), rows)),
        }
    }

    /// Appends `value` (headings as their titles or depths in `d`).
    fn append(&mut self, d: Option<&Description>, value: Value<'_>) {
        let title = |h: &usize| d.map_or("", |d| d.headings[*h].title.as_str());
        match (self, value) {
            (Builder::Strs(b), Value::Titles(path)) => {
                for h in path {
                    b.values().append_value(title(h));
                }
                b.append(true);
            }
            (Builder::Strs(b), Value::Strs(items)) => {
                for item in items {
                    b.values().append_value(item);
                }
                b.append(true);
            }
            (Builder::Ints(b), Value::Depths(path)) => {
                for &h in path {
                    let depth = d.map_or(0, |d| d.headings[h].depth);
                    b.values().append_value(i64::from(depth));
                }
                b.append(true);
            }
            (Builder::Str(b), Value::Type(t)) => b.append_value(t.as_str()),
            (Builder::Str(b), Value::Str(s)) => b.append_value(s),
            (Builder::Str(b), Value::OptStr(s)) => b.append_option(s),
            (Builder::Int(b), Value::Int(n)) => b.append_value(n as i64),
            (Builder::Bool(b), Value::True) => b.append_value(true),
            // A value of another kind than its column's: the record's test forbids it; stored as missing.
            (b, _) => b.append_absent(true, false),
        }
    }

    /// Appends the row of a chunk without the key: null where the column may be, else the kind's empty value (a
    /// flag: false in a described row).
    fn append_absent(&mut self, nullable: bool, described: bool) {
        match self {
            Builder::Bool(b) if described || !nullable => b.append_value(false),
            Builder::Bool(b) => b.append_null(),
            Builder::Str(b) if nullable => b.append_null(),
            Builder::Str(b) => b.append_value(""),
            Builder::Int(b) if nullable => b.append_null(),
            Builder::Int(b) => b.append_value(0),
            Builder::Float(b) if nullable => b.append_null(),
            Builder::Float(b) => b.append_value(0.0),
            Builder::Strs(b) => b.append(!nullable),
            Builder::Ints(b) => b.append(!nullable),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::Int(b) => Arc::new(b.finish()),
            Builder::Float(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::Strs(b) => Arc::new(b.finish()),
            Builder::Ints(b) => Arc::new(b.finish()),
        }
    }
}

/// The metadata columns of a table, a builder each (string columns with offsets of type `O`).
#[derive(Debug)]
pub(crate) struct MetadataRows<O: OffsetSizeTrait> {
    /// The columns, in the table's order: the key, whether it may be null, its builder.
    columns: Vec<(Key, bool, Builder<O>)>,
    /// For each column of the record, its place in `columns` (or `usize::MAX`: not a column of this table).
    slots: Vec<usize>,
    /// The columns a row has set so far (a bit per place in `columns`).
    set: Vec<bool>,
}

impl<O: OffsetSizeTrait> MetadataRows<O> {
    /// Builders for `keys` (metadata keys, in the order of the table's columns; `nullable` says which may be null),
    /// sized for `rows` rows.
    pub(crate) fn new(keys: impl IntoIterator<Item = (Key, bool)>, rows: usize) -> Self {
        let columns: Vec<_> = keys
            .into_iter()
            .map(|(k, nullable)| (k, nullable, Builder::new(k.column().kind, rows)))
            .collect();
        let mut slots = vec![usize::MAX; record::COLUMNS.len()];
        for (at, (k, _, _)) in columns.iter().enumerate() {
            slots[k.index()] = at;
        }
        let set = vec![false; columns.len()];
        Self {
            columns,
            slots,
            set,
        }
    }

    /// Adds the row of a chunk: the strategy that chose its chunker, its description when its chunker gives one,
    /// its pages when its text is paged. A key of no column here is left out; a column the chunk has no key of
    /// gets a null (or its kind's empty value, where the column may not be null).
    pub(crate) fn push(
        &mut self,
        strategy: Option<(&str, &str)>,
        info: Option<(&Description, &SpanInfo)>,
        pages: Option<(usize, usize)>,
    ) {
        if self.columns.is_empty() {
            return;
        }
        let (d, s) = info.unzip();
        let Self {
            columns,
            slots,
            set,
        } = self;
        set.fill(false);
        record::chunk_metadata(strategy, s, pages, |key, value| {
            let at = slots[key.index()];
            if let Some((_, _, b)) = columns.get_mut(at) {
                b.append(d, value);
                set[at] = true;
            }
        });
        for ((_, nullable, b), &done) in columns.iter_mut().zip(set.iter()) {
            if !done {
                b.append_absent(*nullable, s.is_some());
            }
        }
    }

    /// The rows gathered, a column each, in order (the builders are left empty).
    pub(crate) fn finish(&mut self) -> Vec<(Key, bool, ArrayRef)> {
        self.columns
            .iter_mut()
            .map(|(k, nullable, b)| (*k, *nullable, b.finish()))
            .collect()
    }

    /// The column of `key`, finished: see [`MetadataRows::finish`].
    pub(crate) fn slot(&self, key: Key) -> Option<usize> {
        self.slots
            .get(key.index())
            .copied()
            .filter(|&at| at != usize::MAX)
    }
}
