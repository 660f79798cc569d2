//! The one place where core errors become Python exceptions.

use chunkwise_core::ChunkError;
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

create_exception!(
    chunkwise,
    ChunkingError,
    PyValueError,
    "Bad arguments or input for a chunker; the message names the argument and what is allowed."
);

/// Maps a core error to `chunkwise.ChunkingError`.
pub fn to_py(err: ChunkError) -> PyErr {
    ChunkingError::new_err(err.to_string())
}

/// The error for a `str` that cannot become UTF-8 (lone surrogates), naming the argument and the index.
pub fn unencodable(py: Python<'_>, arg: &str, text: &Bound<'_, PyString>, err: PyErr) -> PyErr {
    let value = err.value(py);
    let index = value
        .getattr("start")
        .ok()
        .and_then(|s| s.extract::<usize>().ok());
    let detail = match index {
        Some(i) => {
            let code = text
                .get_item(i)
                .ok()
                .and_then(|c| c.call_method0("__repr__").ok())
                .map_or_else(|| "?".to_owned(), |r| r.to_string());
            format!("{arg} holds a lone surrogate {code} at index {i}")
        }
        None => format!("{arg} cannot be encoded as UTF-8"),
    };
    let new = ChunkingError::new_err(format!(
        "{arg}: {detail}; chunkwise needs valid Unicode text (clean it first, e.g. \
         text.encode('utf-8', 'replace').decode('utf-8'))"
    ));
    new.set_cause(py, Some(err));
    new
}

/// The error for an argument of the wrong type.
pub fn wrong_type(arg: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    let name = got
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    PyTypeError::new_err(format!("{arg} must be {expected}, got {name}"))
}

/// A panic caught at the boundary: reported as a ChunkingError rather than crossing into Python.
pub fn internal(what: &str) -> PyErr {
    ChunkingError::new_err(format!(
        "internal error in chunkwise while {what}; please report it with the input that caused it"
    ))
}
