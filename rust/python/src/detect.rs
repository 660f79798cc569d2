//! `chunkwise._core.detect`: what kind of document a text is, for AutoChunker.

use std::path::PathBuf;

use chunkwise_core::structure::detect::detect as detect_kind;
use chunkwise_core::TableFormat;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::{run, wrong_type, DETACH_BYTES};
use crate::text::borrow_str;

/// The kind of the document `text` (a `str`, or UTF-8 `bytes`; named `source`, a file name or path, when known):
/// `(kind, reason, table format, language)`, the kind one of "markdown", "code", "table", "clause", "prose".
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
    let text = match text.cast::<PyBytes>() {
        // UTF-8 bytes (the command line's files, not decoded): judged up to the first byte that is not UTF-8, the
        // error being the chunker's to report.
        Ok(bytes) => chunkwise_io::utf8::prefix(bytes.as_bytes()),
        Err(_) if text.is_instance_of::<PyString>() => borrow_str(py, "text", text)?,
        Err(_) => return Err(wrong_type("text", "a str (or UTF-8 bytes)", text)),
    };
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
