//! Borrowing a Python `str` as UTF-8 without copying it.
//!
//! CPython keeps a UTF-8 copy of a `str` once asked for it (and ASCII strings are UTF-8 already), so chunking the
//! same text twice, or with two chunkers, encodes it once. `PyUnicode_AsUTF8AndSize` has been in CPython's ABI since
//! 3.3 but only in the limited API since 3.10, so this abi3 (>= 3.9) module declares it itself.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{unencodable, wrong_type};

#[allow(unsafe_code)]
mod raw {
    use super::ffi;
    use std::os::raw::c_char;

    extern "C" {
        pub(super) fn PyUnicode_AsUTF8AndSize(
            unicode: *mut ffi::PyObject,
            size: *mut ffi::Py_ssize_t,
        ) -> *const c_char;
    }
}

/// The UTF-8 text of `obj`, borrowed for as long as `obj` lives; a clear error for a non-`str` or for a `str`
/// holding lone surrogates.
pub(crate) fn borrow_str<'a>(
    py: Python<'_>,
    arg: &str,
    obj: &'a Bound<'_, PyAny>,
) -> PyResult<&'a str> {
    borrow_item(py, || arg.to_owned(), obj)
}

/// [`borrow_str`] for an item of a batch, whose name (`texts[i]`) is made only for an error: formatting it for
/// every item was a tenth of the serial part of `chunk_batch`.
pub(crate) fn borrow_item<'a>(
    py: Python<'_>,
    arg: impl Fn() -> String,
    obj: &'a Bound<'_, PyAny>,
) -> PyResult<&'a str> {
    let s = obj
        .cast::<PyString>()
        .map_err(|_| wrong_type(&arg(), "str", obj))?;
    utf8(s).map_err(|err| unencodable(py, &arg(), s, err))
}

/// The UTF-8 text of `s`, or `None` when it holds lone surrogates (for callers with a path of their own for those).
pub(crate) fn try_utf8<'a>(s: &'a Bound<'_, PyString>) -> Option<&'a str> {
    utf8(s).ok()
}

/// The UTF-8 text of `s`, borrowed for as long as `s` lives, or the error CPython raised.
#[allow(unsafe_code)]
fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (we hold a reference and the GIL); the call returns NULL with an exception set, or
    // a pointer to `size` bytes of valid UTF-8 owned by the object and freed only with it, so borrowing them for
    // the lifetime of `s` is sound.
    unsafe {
        let ptr = raw::PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size);
        if ptr.is_null() {
            return Err(PyErr::fetch(s.py()));
        }
        let bytes = std::slice::from_raw_parts(ptr.cast::<u8>(), size as usize);
        Ok(std::str::from_utf8_unchecked(bytes))
    }
}

/// `s[start:end]` (`str` indices), copied from the string's own storage: much cheaper than decoding the UTF-8
/// slice again, which cost a fifth of `chunk()` on Chinese text.
#[allow(unsafe_code)]
pub(crate) fn substring<'py>(
    s: &Bound<'py, PyString>,
    start: usize,
    end: usize,
) -> PyResult<Bound<'py, PyString>> {
    // SAFETY: `s` is a live `str` and we hold the GIL; the call returns a new reference or NULL with an exception
    // set, which `from_owned_ptr_or_err` turns into an error.
    unsafe {
        let ptr =
            ffi::PyUnicode_Substring(s.as_ptr(), start as ffi::Py_ssize_t, end as ffi::Py_ssize_t);
        Ok(Bound::from_owned_ptr_or_err(s.py(), ptr)?.cast_into_unchecked())
    }
}

/// The items of an iterable of `str`, borrowed as UTF-8.
pub(crate) fn borrow_all<'a>(
    py: Python<'_>,
    arg: &str,
    items: &'a [Bound<'_, PyAny>],
) -> PyResult<Vec<&'a str>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| borrow_item(py, || format!("{arg}[{i}]"), item))
        .collect()
}

/// The items of an iterable of `str` (not a `str` itself, whose items are its characters).
pub(crate) fn collect<'py>(
    arg: &str,
    iterable: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if iterable.is_instance_of::<PyString>() {
        return Err(wrong_type(arg, "a sequence of str, not a single", iterable));
    }
    iterable
        .try_iter()
        .map_err(|_| wrong_type(arg, "an iterable of str", iterable))?
        .collect()
}
