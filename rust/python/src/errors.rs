//! The one place where core errors become Python exceptions.

pub(crate) use chunkwise_core::panic::{guard, tripwire, Panic};
use chunkwise_core::ChunkError;
use pyo3::create_exception;
use pyo3::exceptions::{PyNotImplementedError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

create_exception!(
    chunkwise,
    ChunkingError,
    PyValueError,
    "Bad arguments or input for a chunker; the message names the argument and what is allowed."
);

/// Maps a core error to `chunkwise.ChunkingError`.
pub(crate) fn to_py(err: ChunkError) -> PyErr {
    ChunkingError::new_err(err.to_string())
}

/// A `ChunkingError` saying `message` (bad arguments or input the bindings check themselves).
pub(crate) fn chunking(message: impl Into<String>) -> PyErr {
    ChunkingError::new_err(message.into())
}

/// A plain `ValueError` (the arguments of LangChain's splitters, as LangChain raises them; the command line's).
pub(crate) fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// A `TypeError` saying `message` (see [`wrong_type`] for an argument's type).
pub(crate) fn type_error(message: impl Into<String>) -> PyErr {
    PyTypeError::new_err(message.into())
}

/// What the core cannot do the way Python's LangChain does (Python falls back to its own loop).
pub(crate) fn not_implemented(message: impl Into<String>) -> PyErr {
    PyNotImplementedError::new_err(message.into())
}

/// A list argument (`arg`) that must have one entry per text (`n`) but has `got`.
pub(crate) fn one_per_text(arg: &str, n: usize, got: usize) -> PyErr {
    chunking(format!(
        "{arg} must have one entry per text ({n}), got {got}"
    ))
}

/// A core error about one text of a batch, naming it: "text is not a table" becomes "texts[3] is not a table".
pub(crate) fn batch_error(i: usize, e: ChunkError) -> PyErr {
    let message = e.to_string();
    chunking(match message.strip_prefix("text ") {
        Some(rest) => format!("texts[{i}] {rest}"),
        None => format!("texts[{i}]: {message}"),
    })
}

/// What writing to a sink failed with: the Python exception a file raised as itself, any other error as the
/// `OSError` it is.
pub(crate) fn io_error(e: std::io::Error) -> PyErr {
    match e.downcast::<PyErr>() {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::WriteZero => PyOSError::new_err(e.to_string()),
        Err(e) => PyErr::from(e),
    }
}

/// What writing Parquet rows failed with: the file's own error (a full disk) as the `OSError` it is, a panic of the
/// encoder as an internal error, anything else as a `ChunkingError`.
pub(crate) fn parquet_error(e: chunkwise_io::parquet::Error) -> PyErr {
    use chunkwise_io::parquet::Error;
    match e {
        Error::Io(e) => PyErr::from(e),
        Error::Start(_) => PyOSError::new_err(e.to_string()),
        Error::Panic(p) => internal("writing the Parquet rows", &Panic(p)),
        e => chunking(e.to_string()),
    }
}

/// What reading the texts of Arrow data, or building the Arrow columns, failed with: a `TypeError` for data that
/// is not strings, else a `ChunkingError`.
pub(crate) fn arrow_error(e: chunkwise_io::arrow::Error) -> PyErr {
    match e {
        chunkwise_io::arrow::Error::NotStrings { .. } => type_error(e.to_string()),
        e => chunking(e.to_string()),
    }
}

/// The error for a `str` that cannot become UTF-8 (lone surrogates), naming the argument and the index.
pub(crate) fn unencodable(
    py: Python<'_>,
    arg: &str,
    text: &Bound<'_, PyString>,
    err: PyErr,
) -> PyErr {
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
        "{detail}; chunkwise needs valid Unicode text (clean it first, e.g. \
         text.encode('utf-8', 'replace').decode('utf-8'))"
    ));
    new.set_cause(py, Some(err));
    new
}

/// The error for an argument of the wrong type.
pub(crate) fn wrong_type(arg: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    let name = got
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string());
    PyTypeError::new_err(format!("{arg} must be {expected}, got {name}"))
}

/// A panic caught at the boundary: reported as a ChunkingError rather than crossing into Python. `what` says what
/// was being done ("splitting texts[3]"), `panic` what the panic said and where.
pub(crate) fn internal(what: &str, panic: &Panic) -> PyErr {
    ChunkingError::new_err(format!(
        "internal error in chunkwise while {what}: {}; please report it with the input that caused it",
        panic.0
    ))
}

/// A column of the record that a writer has no value for (a column added to the record and not to the writer).
pub(crate) fn no_field(name: &str) -> PyErr {
    ChunkingError::new_err(format!(
        "internal error in chunkwise: no value for the record's column {name:?}; please report it"
    ))
}

/// Texts shorter than this are worked on with the GIL held: releasing it costs more than the work.
pub(crate) const DETACH_BYTES: usize = 16 * 1024;

/// Runs core work `f` for a Python call: with the GIL released when `release` (only when no Python callback can run
/// in `f`), and a panic caught on this thread and raised as a ChunkingError saying `what` was being done. The one
/// way the bindings call into the core; work that calls back into Python goes through [`run_held`].
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    release: bool,
    what: &str,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let work = || run_held(what, f);
    if release {
        py.detach(work)
    } else {
        work()
    }
}

/// [`run`] with the GIL held, for work that calls Python (whose objects cannot cross into a released section).
pub(crate) fn run_held<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    guard(f).map_err(|p| internal(what, &p))
}

/// Test hook, not API: while armed, splitting a text that holds `marker` panics inside the core call, as a bug
/// would (`None` disarms it). The tests use it to check that a panic becomes a ChunkingError naming the text and
/// prints nothing.
#[pyfunction]
#[pyo3(signature = (marker))]
pub(crate) fn _panic_on(marker: Option<String>) -> PyResult<()> {
    if marker.as_deref() == Some("") {
        return Err(ChunkingError::new_err("marker must not be empty"));
    }
    tripwire::set(marker);
    Ok(())
}

/// [`int_arg`] for a count (a size, a number of rows): from `lo` to `i64::MAX`, as a `usize`.
pub(crate) fn count_arg(arg: &str, value: &Bound<'_, PyAny>, lo: i64) -> PyResult<usize> {
    let n = int_arg(arg, value, lo.max(0))?;
    usize::try_from(n).map_err(|_| {
        ChunkingError::new_err(format!("{arg} must be at most {}, got {n}", usize::MAX))
    })
}

/// An int argument (an `int`, or an object with `__index__` such as a numpy integer; never a `bool`, which is an
/// `int` to Python but a mistake here) from `lo` to `i64::MAX`, or an error naming it and the allowed range.
pub(crate) fn int_arg(arg: &str, value: &Bound<'_, PyAny>, lo: i64) -> PyResult<i64> {
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(wrong_type(arg, "an int", value));
    }
    match value.extract::<i64>() {
        Ok(v) if v >= lo => Ok(v),
        Ok(v) => Err(ChunkingError::new_err(format!(
            "{arg} must be >= {lo}, got {v}"
        ))),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(value.py()) => {
            let got = value.str().map_or_else(|_| "?".into(), |s| s.to_string());
            Err(ChunkingError::new_err(if got.starts_with('-') {
                format!("{arg} must be >= {lo}, got {got}")
            } else {
                format!("{arg} must be at most {} (2**63 - 1), got {got}", i64::MAX)
            }))
        }
        Err(_) => Err(wrong_type(arg, "an int", value)),
    }
}
