//! `chunkwise._core.render_elements`: a parsed document's elements written as one Markdown text (see
//! `chunkwise_core::structure::elements`), for `ElementsChunker`, with `str` offsets.

use chunkwise_core::structure::elements::{render, CharRange, CharTablePart, Element, ElementKind};
use pyo3::prelude::*;

use crate::errors::{value_error, wrong_type};
use crate::splitter::PySplitter;
use crate::text::collect;

/// An element as `ElementsChunker` hands it over: `(kind, text, level, rows, caption, language)`.
type Item = (
    String,
    String,
    usize,
    Option<Vec<Vec<String>>>,
    Option<String>,
    String,
);

/// The Markdown text of `elements` (each `(kind, text, level, rows, caption, language)`, `kind` one of heading,
/// paragraph, list_item, table, caption, code), with per element its `(start, end)` in the text (None when it has
/// none), and per table written in column groups its parts: `{index: [((start, end), columns), ...]}`. `size` and
/// `splitter` (its unit) decide a wide table's column groups.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn render_elements(
    py: Python<'_>,
    splitter: &Bound<'_, PySplitter>,
    elements: &Bound<'_, PyAny>,
    size: usize,
) -> PyResult<(
    String,
    Vec<Option<CharRange>>,
    Vec<(usize, Vec<CharTablePart>)>,
)> {
    let items: Vec<Item> = collect("elements", elements)?
        .iter()
        .enumerate()
        .map(|(i, e)| {
            e.extract().map_err(|_| {
                wrong_type(
                    &format!("elements[{i}]"),
                    "a (kind, text, level, rows, caption, language) tuple",
                    e,
                )
            })
        })
        .collect::<PyResult<_>>()?;
    let mut parsed = Vec::with_capacity(items.len());
    for (i, (kind, text, level, rows, caption, language)) in items.iter().enumerate() {
        let kind = ElementKind::parse(kind)
            .ok_or_else(|| value_error(format!("elements[{i}]: unknown kind {kind:?}")))?;
        parsed.push(Element {
            kind,
            text,
            level: *level,
            rows: rows.as_ref().map(|r| {
                r.iter()
                    .map(|row| row.iter().map(String::as_str).collect())
                    .collect()
            }),
            caption: caption.as_deref(),
            language,
        });
    }
    let splitter = &splitter.get().inner;
    let (text, ranges) = py.detach(|| {
        let rendered = render(&parsed, size, &|s| splitter.size_of(s));
        let ranges = rendered.char_ranges();
        (rendered.text, ranges)
    });
    Ok((text, ranges.spans, ranges.table_parts))
}
