//! `chunkwise._core.line_keys`: the normalized lines of a text as stable keys, for boilerplate
//! (`chunkwise.ingest.boilerplate`).

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{run, wrong_type, DETACH_BYTES};
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
