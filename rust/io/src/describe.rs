//! The columns of a chunk's description (title path, headings, type, table rows, language, code keys), row by row:
//! the one row builder of that part of the record, shared by the Arrow batches and the Parquet rows.

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, GenericStringBuilder, Int64Builder, ListBuilder};
use arrow_array::{ArrayRef, OffsetSizeTrait};
use chunkwise_core::{Description, SpanInfo};

use crate::columns::Column;

/// A builder per column of the description (string columns with offsets of type `O`).
#[derive(Debug)]
pub(crate) struct DescriptionRows<O: OffsetSizeTrait> {
    title_path: ListBuilder<GenericStringBuilder<O>>,
    headings: ListBuilder<Int64Builder>,
    chunk_type: GenericStringBuilder<O>,
    /// First row, row past the last, total rows of a table's chunk.
    table_rows: [Int64Builder; 3],
    language: GenericStringBuilder<O>,
    shortened: BooleanBuilder,
    symbol_path: ListBuilder<GenericStringBuilder<O>>,
    /// First and last line of a chunk of code.
    lines: [Int64Builder; 2],
    node_types: ListBuilder<GenericStringBuilder<O>>,
    note: GenericStringBuilder<O>,
}

impl<O: OffsetSizeTrait> DescriptionRows<O> {
    /// Builders sized for `rows` rows (the code columns grow as needed: most chunkers have none).
    pub(crate) fn with_capacity(rows: usize) -> Self {
        Self {
            title_path: ListBuilder::with_capacity(GenericStringBuilder::new(), rows),
            headings: ListBuilder::with_capacity(Int64Builder::new(), rows),
            chunk_type: GenericStringBuilder::with_capacity(rows, rows * 8),
            table_rows: std::array::from_fn(|_| Int64Builder::with_capacity(rows)),
            language: GenericStringBuilder::new(),
            shortened: BooleanBuilder::with_capacity(rows),
            symbol_path: ListBuilder::new(GenericStringBuilder::new()),
            lines: std::array::from_fn(|_| Int64Builder::new()),
            node_types: ListBuilder::new(GenericStringBuilder::new()),
            note: GenericStringBuilder::new(),
        }
    }

    /// Adds the row of a chunk, with its description when its chunker gives one (else: empty title path and
    /// headings, empty type, no context shortened, nulls elsewhere).
    pub(crate) fn push(&mut self, info: Option<(&Description, &SpanInfo)>) {
        let Some((d, s)) = info else {
            self.title_path.append(true);
            self.headings.append(true);
            self.chunk_type.append_value("");
            for b in &mut self.table_rows {
                b.append_null();
            }
            self.language.append_null();
            self.shortened.append_value(false);
            self.code_nulls();
            return;
        };
        // A chunk of source code has its symbol path in place of a title path (as `chunk.metadata` has it); a
        // chunk of a Markdown code block of a known language has both.
        let source_code = s.code.as_ref().is_some_and(|c| c.symbols.is_none());
        for title in d.title_path(s).filter(|_| !source_code) {
            self.title_path.values().append_value(title);
        }
        self.title_path.append(!source_code);
        for &h in s.path.iter().filter(|_| !source_code) {
            self.headings
                .values()
                .append_value(i64::from(d.headings[h].depth));
        }
        self.headings.append(!source_code);
        match &s.code {
            Some(code) => {
                for symbol in d.symbol_path(s) {
                    self.symbol_path.values().append_value(symbol);
                }
                self.symbol_path.append(true);
                self.lines[0].append_value(code.lines.0 as i64);
                self.lines[1].append_value(code.lines.1 as i64);
                for node in &code.node_types {
                    self.node_types.values().append_value(node);
                }
                self.node_types.append(true);
                self.note.append_option(code.note);
            }
            None => self.code_nulls(),
        }
        self.chunk_type.append_value(s.kind.as_str());
        for (k, b) in self.table_rows.iter_mut().enumerate() {
            b.append_option(s.rows.map(|r| [r.0, r.1, r.2][k] as i64));
        }
        self.language
            .append_option(s.language.as_ref().and_then(|l| l.as_deref()));
        self.shortened.append_value(s.context_shortened);
    }

    /// A row of no code: nulls in the code columns.
    fn code_nulls(&mut self) {
        self.symbol_path.append(false);
        for b in &mut self.lines {
            b.append_null();
        }
        self.node_types.append(false);
        self.note.append_null();
    }

    /// The rows gathered, one array per column of the description (the builders are left empty).
    pub(crate) fn finish(&mut self) -> Described {
        let [row_start, row_end, total_rows] = self
            .table_rows
            .each_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef);
        let [start_line, end_line] = self
            .lines
            .each_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef);
        Described([
            Arc::new(self.title_path.finish()),
            Arc::new(self.headings.finish()),
            Arc::new(self.chunk_type.finish()),
            row_start,
            row_end,
            total_rows,
            Arc::new(self.language.finish()),
            Arc::new(self.shortened.finish()),
            Arc::new(self.symbol_path.finish()),
            start_line,
            end_line,
            Arc::new(self.node_types.finish()),
            Arc::new(self.note.finish()),
        ])
    }
}

/// The description's columns of some rows, in the order of `STRUCTURE` then `CODE`.
pub(crate) struct Described([ArrayRef; 13]);

impl Described {
    /// The column of `c`, or `None` for a column that is not the description's.
    pub(crate) fn get(&self, c: Column) -> Option<ArrayRef> {
        let k = match c {
            Column::TitlePath => 0,
            Column::Headings => 1,
            Column::ChunkType => 2,
            Column::RowStart => 3,
            Column::RowEnd => 4,
            Column::TotalRows => 5,
            Column::Language => 6,
            Column::ContextShortened => 7,
            Column::SymbolPath => 8,
            Column::StartLine => 9,
            Column::EndLine => 10,
            Column::NodeTypes => 11,
            Column::Note => 12,
            _ => return None,
        };
        Some(self.0[k].clone())
    }
}
