//! `chunkwise._core.line_keys` and `edge_lines`: the normalized lines of a text as stable keys, for boilerplate
//! (`chunkwise.ingest.boilerplate`).

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{count_arg, run, wrong_type, DETACH_BYTES};
use crate::text::borrow_str;

/// The key of each line of `text` that carries a letter or digit, in order: a 64-bit hash of the line case
/// folded, its runs of digits as one `0` and of whitespace as one space (see `chunkwise_core::lines`).
#[pyfunction]
#[pyo3(signature = (text))]
pub(crate) fn line_keys(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if !text.is_instance_of::<PyString>() {
        return Err(wrong_type("text", "a str", text));
    }
    let text = borrow_str(py, "text", text)?;
    run(
        py,
        text.len() >= DETACH_BYTES,
        "reading the lines of the text",
        || chunkwise_core::lines::line_keys(text),
    )
}

/// The lines of an [`edge_lines`] result, by column.
type EdgeColumns = (
    Vec<(usize, usize)>,
    Vec<u64>,
    Vec<bool>,
    Vec<bool>,
    Vec<bool>,
);

/// The lines of `text` that carry a letter or digit and are among its first or last `edge` such lines, or among
/// the first or last `page_edge` of a page (pages end at form feeds; 0: no pages), by column: their `(start, end)` (`str`
/// indices, the line break left out), keys (as `line_keys`), whether each is at an edge of the text, of its page,
/// and whether the next one is the text's next line that carries something (see `chunkwise_core::lines`).
#[pyfunction]
#[pyo3(signature = (text, edge, page_edge))]
pub(crate) fn edge_lines(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    edge: &Bound<'_, PyAny>,
    page_edge: &Bound<'_, PyAny>,
) -> PyResult<EdgeColumns> {
    let edge = count_arg("edge", edge, 0)?;
    let page_edge = count_arg("page_edge", page_edge, 0)?;
    let chars = text
        .cast::<PyString>()
        .map_err(|_| wrong_type("text", "a str", text))?
        .len()?;
    let text = borrow_str(py, "text", text)?;
    // Without pages only the head and foot are read: too little work to release the GIL for.
    let whole = page_edge > 0 && text.len() >= DETACH_BYTES;
    run(py, whole, "reading the lines of the text", || {
        let found = chunkwise_core::lines::edge_lines(text, edge, page_edge);
        let spans = found.char_spans(text, chars);
        let lines = &found.lines;
        (
            spans,
            lines.iter().map(|l| l.key).collect(),
            lines.iter().map(|l| l.text_edge).collect(),
            lines.iter().map(|l| l.page_edge).collect(),
            lines.iter().map(|l| l.next_to).collect(),
        )
    })
}
