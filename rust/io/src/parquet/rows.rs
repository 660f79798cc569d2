//! The rows of a Parquet output, gathered a piece at a time for the encoder: a builder per column.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use chunkwise_core::record::{key, Role};
use chunkwise_core::{Chunk, Description, SpanInfo};

use super::{Layout, Rows, PIECE_BYTES, PIECE_ROWS};
use crate::describe::MetadataRows;
use crate::{context_sep, hash_id, Changes, Document, Shape};

/// Rows gathered for the encoder: a builder per column the output can have (those it has not are left empty).
#[derive(Debug)]
pub struct RowBuilder<'a> {
    layout: &'a Layout,
    shape: Shape<'a>,
    changes: &'a Changes,
    /// Whether the chunks' descriptions are written (a structural chunker's), else their columns are null.
    described: bool,
    rows: usize,
    text_bytes: usize,
    text: StringBuilder,
    /// The embedding texts, once one differs from its chunk's text (before that, the text column stands for them).
    embedding: Option<StringBuilder>,
    context: StringBuilder,
    source: StringBuilder,
    level: StringBuilder,
    ids: [StringBuilder; 3],
    ints: [Vec<i64>; 4],
    token_count: Int64Builder,
    /// The metadata columns: the strategy, the description's keys, the pages.
    metadata: MetadataRows<i32>,
    change: StringBuilder,
}

impl<'a> RowBuilder<'a> {
    /// An empty piece of rows of `layout`, whose builders are sized at its first row; `described`: whether the
    /// chunks carry a description (a structural chunker's), else the description's columns are null.
    pub fn new(
        layout: &'a Layout,
        shape: Shape<'a>,
        changes: &'a Changes,
        described: bool,
    ) -> Self {
        Self::with_capacity(layout, shape, changes, described, (0, 0))
    }

    /// Builders for `rows` rows of `bytes` bytes of text: sized once, so that they do not grow (and leave freed
    /// buffers of every size behind) piece after piece.
    fn with_capacity(
        layout: &'a Layout,
        shape: Shape<'a>,
        changes: &'a Changes,
        described: bool,
        (rows, bytes): (usize, usize),
    ) -> Self {
        let strings = |per_row: usize| StringBuilder::with_capacity(rows, rows * per_row);
        let ints = || Int64Builder::with_capacity(rows);
        Self {
            layout,
            shape,
            changes,
            described,
            rows: 0,
            text_bytes: 0,
            text: StringBuilder::with_capacity(rows, bytes),
            embedding: None,
            context: strings(0),
            source: strings(0),
            level: strings(10),
            ids: std::array::from_fn(|_| strings(16)),
            ints: std::array::from_fn(|_| Vec::with_capacity(rows)),
            token_count: ints(),
            metadata: MetadataRows::new(
                layout
                    .columns
                    .iter()
                    .filter(|c| c.column().role == Role::Metadata)
                    .map(|&c| (c, true)),
                rows,
            ),
            change: strings(5),
        }
    }

    /// The rows gathered so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Whether the piece is to be handed to the encoder now.
    pub fn is_full(&self) -> bool {
        self.rows >= PIECE_ROWS || self.text_bytes >= PIECE_BYTES
    }

    /// Adds the row of chunk `c`, whose text is `text` and whose index in its document is `index`, with its
    /// description when its chunker gives one.
    pub fn push(
        &mut self,
        text: &str,
        document: Document<'_>,
        index: usize,
        c: &Chunk,
        info: Option<(&Description, &SpanInfo)>,
    ) {
        if self.rows == 0 {
            *self = Self::with_capacity(
                self.layout,
                self.shape,
                self.changes,
                self.described,
                (PIECE_ROWS, PIECE_BYTES + PIECE_BYTES / 8),
            );
        }
        self.rows += 1;
        self.text_bytes += text.len();
        self.text.append_value(text);
        let context = info.map_or("", |(_, s)| s.context.as_str());
        self.context.append_value(context);
        match info.map(|(_, s)| s) {
            Some(s) if s.embedding.is_some() || !s.context.is_empty() => {
                let embedding = self.embedding_builder();
                match &s.embedding {
                    Some(e) => embedding.append_value(e),
                    None => {
                        use std::fmt::Write;
                        let _ = write!(embedding, "{}{}{text}", s.context, context_sep(s));
                        embedding.append_value("");
                    }
                }
            }
            _ => {
                if let Some(embedding) = &mut self.embedding {
                    embedding.append_value(text);
                }
            }
        }
        self.source.append_value(document.source);
        self.level.append_value(self.shape.level_name(c.level));
        for (b, id) in self.ids.iter_mut().zip([Some(c.id), c.prev_id, c.next_id]) {
            let hex = id.map(hash_id);
            b.append_option(hex.as_ref().and_then(|h| std::str::from_utf8(h).ok()));
        }
        for (v, x) in self
            .ints
            .iter_mut()
            .zip([c.char_start, c.char_end, index, c.size])
        {
            v.push(x as i64);
        }
        self.token_count
            .append_option(self.shape.tokens.then_some(c.size as i64));
        let info = info.filter(|_| self.described);
        self.metadata.push(document.strategy, info, c.pages);
        if self.changes.compared() {
            self.change.append_value(self.changes.change(c.id));
        }
    }

    /// The embedding texts' builder, made (with the texts of the rows before, which were their own embedding
    /// texts) when first needed.
    fn embedding_builder(&mut self) -> &mut StringBuilder {
        let text = &self.text;
        let rows = self.rows - 1;
        self.embedding.get_or_insert_with(|| {
            let mut b = StringBuilder::with_capacity(rows + 1, text.values_slice().len());
            let (offsets, values) = (text.offsets_slice(), text.values_slice());
            for k in 0..rows {
                let (from, to) = (offsets[k] as usize, offsets[k + 1] as usize);
                b.append_value(std::str::from_utf8(&values[from..to]).unwrap_or_default());
            }
            b
        })
    }

    /// The rows gathered as a record batch of the output's schema; the builders are left empty.
    pub fn finish(&mut self) -> Result<Rows, arrow_schema::ArrowError> {
        self.rows = 0;
        self.text_bytes = 0;
        let embedding_is_text = self.embedding.is_none();
        let text: ArrayRef = Arc::new(self.text.finish());
        let embedding: ArrayRef = match self.embedding.take() {
            Some(mut b) => Arc::new(b.finish()),
            None => text.clone(),
        };
        let [id, prev_id, next_id] = self
            .ids
            .each_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef);
        let [start, end, index, size] = self
            .ints
            .each_mut()
            .map(|v| Arc::new(Int64Array::from(std::mem::take(v))) as ArrayRef);
        // Every builder is emptied, whether its column is written or not.
        let metadata = self.metadata.finish();
        let context: ArrayRef = Arc::new(self.context.finish());
        let source: ArrayRef = Arc::new(self.source.finish());
        let level: ArrayRef = Arc::new(self.level.finish());
        let token_count: ArrayRef = Arc::new(self.token_count.finish());
        let change: ArrayRef = Arc::new(self.change.finish());
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.layout.columns.len());
        for &c in &self.layout.columns {
            arrays.push(match c {
                key::TEXT => text.clone(),
                key::START => start.clone(),
                key::END => end.clone(),
                key::SOURCE => source.clone(),
                key::INDEX => index.clone(),
                key::ID => id.clone(),
                key::PREV_ID => prev_id.clone(),
                key::NEXT_ID => next_id.clone(),
                key::LEVEL => level.clone(),
                key::SIZE => size.clone(),
                key::TOKEN_COUNT => token_count.clone(),
                key::CONTEXT => context.clone(),
                key::EMBEDDING_TEXT => embedding.clone(),
                key::CHANGE => change.clone(),
                // A metadata key: its column of the metadata rows (`metadata` itself is never a column: it stands
                // for them).
                c => match self.metadata.slot(c) {
                    Some(at) => metadata[at].2.clone(),
                    None => {
                        return Err(arrow_schema::ArrowError::SchemaError(format!(
                            "no values for the Parquet column {:?}",
                            c.name()
                        )))
                    }
                },
            });
        }
        Ok(Rows {
            batch: RecordBatch::try_new(self.layout.schema.clone(), arrays)?,
            embedding_is_text,
        })
    }
}
