//! A chunk's metadata: the caller's, deep-copied once per text, held in a read-only dict
//! (`chunkwise.chunk.Metadata`, a `dict` subclass defined in Python: with abi3 a `#[pyclass]` cannot extend `dict`).
//! The chunks of a text share the copy's values; nothing is shared with the caller.
//!
//! The copy is made here, not with `copy.deepcopy`, for speed: deepcopy of even a small dict costs as much as
//! splitting a short text, and `chunk_batch` takes one metadata per text. Containers of the common kinds (dict,
//! list, tuple) are copied here and scalars shared (they are immutable); anything else goes to `copy.deepcopy`,
//! which honours its `__deepcopy__`.

use chunkwise_core::chunk::{doc_id_of, DOC_ID_KEYS};
use chunkwise_core::record::{self, Source};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};

use crate::errors::chunking;

/// Nesting deeper than this is copied by `copy.deepcopy`, which also handles a container that holds itself.
const MAX_DEPTH: usize = 32;

/// The `chunkwise.chunk.Metadata` type.
fn metadata_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    TYPE.import(py, "chunkwise.chunk", "Metadata")
}

/// A new, empty read-only metadata dict, to be filled with the `PyDict` C API (which its Python methods do not
/// intercept).
pub(crate) fn new_frozen(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    Ok(metadata_type(py)?.call0()?.cast_into::<PyDict>()?)
}

/// The one empty read-only metadata of the interpreter, for the chunks that have none.
pub(crate) fn empty(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    static EMPTY: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    Ok(EMPTY
        .get_or_try_init(py, || new_frozen(py).map(Bound::unbind))?
        .bind(py)
        .clone())
}

/// A deep copy of `meta`, as a plain dict.
pub(crate) fn deep_copy<'py>(meta: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    match copy_dict(meta, MAX_DEPTH)? {
        Some(d) => Ok(d),
        None => deepcopy(meta.as_any())?
            .cast_into::<PyDict>()
            .map_err(Into::into),
    }
}

/// A read-only dict holding the items of `items` (their values shared, not copied).
pub(crate) fn frozen<'py>(items: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    let m = new_frozen(items.py())?;
    m.update(items.as_mapping())?;
    Ok(m)
}

fn deepcopy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static DEEPCOPY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = value.py();
    DEEPCOPY
        .get_or_try_init(py, || {
            py.import("copy")?.getattr("deepcopy").map(Bound::unbind)
        })?
        .bind(py)
        .call1((value,))
}

/// Whether `value` can be shared as it is: an immutable scalar.
fn is_scalar(value: &Bound<'_, PyAny>) -> bool {
    value.is_none()
        || value.is_exact_instance_of::<PyString>()
        || value.is_exact_instance_of::<PyInt>()
        || value.is_exact_instance_of::<PyBool>()
        || value.is_exact_instance_of::<PyFloat>()
        || value.is_exact_instance_of::<PyBytes>()
}

/// A copy of a dict, or `None` when it nests deeper than `depth`.
fn copy_dict<'py>(d: &Bound<'py, PyDict>, depth: usize) -> PyResult<Option<Bound<'py, PyDict>>> {
    let out = PyDict::new(d.py());
    for (k, v) in d.iter() {
        match copy_value(&v, depth)? {
            Some(v) => out.set_item(k, v)?,
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// A copy of `value` sharing nothing mutable with it, or `None` when it nests deeper than `depth`.
fn copy_value<'py>(value: &Bound<'py, PyAny>, depth: usize) -> PyResult<Option<Bound<'py, PyAny>>> {
    if is_scalar(value) {
        return Ok(Some(value.clone()));
    }
    let Some(depth) = depth.checked_sub(1) else {
        return Ok(None);
    };
    if let Ok(t) = value.cast_exact::<PyTuple>() {
        // A tuple of immutable values is immutable: shared as it is.
        let mut items = Vec::with_capacity(t.len());
        let mut same = true;
        for item in t.iter() {
            let Some(copy) = copy_value(&item, depth)? else {
                return Ok(None);
            };
            same &= copy.is(&item);
            items.push(copy);
        }
        return Ok(Some(if same {
            value.clone()
        } else {
            PyTuple::new(value.py(), items)?.into_any()
        }));
    }
    if let Ok(d) = value.cast_exact::<PyDict>() {
        return Ok(copy_dict(d, depth)?.map(Bound::into_any));
    }
    if let Ok(l) = value.cast_exact::<PyList>() {
        let mut items = Vec::with_capacity(l.len());
        for item in l.iter() {
            let Some(copy) = copy_value(&item, depth)? else {
                return Ok(None);
            };
            items.push(copy);
        }
        return Ok(Some(PyList::new(value.py(), items)?.into_any()));
    }
    deepcopy(value).map(Some)
}

/// Refuses a caller's metadata that holds a key the chunker sets itself (the keys of `source`, set `why`: see
/// `record::reserved`). `arg`: the argument's name, made only for an error.
pub(crate) fn check_keys(
    arg: impl FnOnce() -> String,
    meta: &Bound<'_, PyDict>,
    source: Source,
    why: &str,
) -> PyResult<()> {
    let reserved: Vec<&str> = record::keys(source).collect();
    for key in &reserved {
        if meta.contains(*key)? {
            return Err(chunking(format!(
                "{} has the key '{key}', which the chunker sets itself {why} (the keys {}): rename it",
                arg(),
                reserved.join(", ")
            )));
        }
    }
    Ok(())
}

/// The document id named by the metadata (`doc_id`, `id` or `source`), if any.
pub(crate) fn doc_id(metadata: Option<&Bound<'_, PyDict>>) -> PyResult<Option<String>> {
    if let Some(meta) = metadata {
        for key in DOC_ID_KEYS {
            if let Some(value) = meta.get_item(key)? {
                if !value.is_none() {
                    return Ok(Some(doc_id_of(key, &value.str()?.to_cow()?)));
                }
            }
        }
    }
    Ok(None)
}
