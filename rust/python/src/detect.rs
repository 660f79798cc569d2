//! `chunkwise._core.detect`: what kind of document a text is, for AutoChunker.

use std::path::PathBuf;

use chunkwise_core::structure::detect::detect as detect_kind;
use chunkwise_core::TableFormat;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{run, wrong_type, DETACH_BYTES};
use crate::text::borrow_str;

/// The kind of the document `text` (named `source`, a file name or path, when known): `(kind, reason, table
/// format, language)`, the kind one of "markdown", "code", "table", "clause", "prose".
#[pyfunction]
#[pyo3(signature = (text, source=None))]
pub(crate) fn detect(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    source: Option<&Bound<'_, PyAny>>,
) -> PyResult<(
    &'static str,
    String,
    Option<&'static str>,
    Option<&'static str>,
)> {
    if !text.is_instance_of::<PyString>() {
        return Err(wrong_type("text", "a str", text));
    }
    let text = borrow_str(py, "text", text)?;
    let name = source.map(source_name).transpose()?;
    let d = run(
        py,
        text.len() >= DETACH_BYTES,
        "detecting the kind of the text",
        || detect_kind(text, name.as_deref()),
    )?;
    Ok((
        d.kind.name(),
        d.reason,
        d.format.map(TableFormat::name),
        d.language,
    ))
}

/// The name of a source: a `str`, or a path (`os.PathLike`), read as text.
fn source_name(source: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = source.cast::<PyString>() {
        return Ok(s.to_string_lossy().into_owned());
    }
    source
        .extract::<PathBuf>()
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|_| wrong_type("source", "a str or a path", source))
}
