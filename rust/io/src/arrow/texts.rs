//! The texts of Arrow string columns (`chunk_arrow`'s input), borrowed from their buffers: no copy, no Python `str`
//! per document. The Arrow C Data Interface hands buffers over unchecked, so every value is checked here: its
//! offsets inside the data, its bytes UTF-8.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{ArrowError, DataType};

/// What reading the texts of Arrow data, or building the Arrow output, failed with; `arg` names the argument the
/// data came in.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{arg}: reading the Arrow data failed: {error}")]
    Read {
        arg: &'static str,
        error: ArrowError,
    },
    #[error("{arg} must be Arrow strings (string, large_string or string_view), got {got}")]
    NotStrings { arg: &'static str, got: DataType },
    #[error("{arg}[{index}] is not valid UTF-8: {error}")]
    NotUtf8 {
        arg: &'static str,
        index: usize,
        error: simdutf8::compat::Utf8Error,
    },
    #[error("{arg}[{index}]: its Arrow offsets point outside the data")]
    Offsets { arg: &'static str, index: usize },
    #[error("building the Arrow columns: {0}")]
    Building(ArrowError),
}

/// Every array of an Arrow array or stream of strings (`arrays`, as read), in order; string_view arrays as
/// binary_view ones, whose values are read as bytes (a `&str` of a string_view value would be assumed UTF-8 before
/// [`texts`] checks it). Binary, large_binary and binary_view arrays are taken too (their values are checked as
/// UTF-8 like the others): the command line hands over the bytes of files it read, which a cast to strings would check a second
/// time.
pub fn string_arrays(
    arg: &'static str,
    arrays: impl IntoIterator<Item = Result<ArrayRef, ArrowError>>,
) -> Result<Vec<ArrayRef>, Error> {
    let arrays = arrays
        .into_iter()
        .collect::<Result<Vec<_>, ArrowError>>()
        .map_err(|error| Error::Read { arg, error })?;
    arrays
        .into_iter()
        .map(|a| match a.data_type() {
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView => Ok(a),
            DataType::Utf8View => {
                Ok(Arc::new(a.as_string_view().clone().to_binary_view()) as ArrayRef)
            }
            other => Err(Error::NotStrings {
                arg,
                got: other.clone(),
            }),
        })
        .collect()
}

/// The texts of the arrays of [`string_arrays`], borrowed from their buffers (`None` for a null), and whether they
/// are large_string. Each is checked to be UTF-8, in parallel.
pub fn texts<'a>(
    arg: &'static str,
    arrays: &'a [ArrayRef],
) -> Result<(Vec<Option<&'a str>>, bool), Error> {
    let mut raw: Vec<Option<&'a [u8]>> = Vec::with_capacity(arrays.iter().map(|a| a.len()).sum());
    let mut large = false;
    for array in arrays {
        match array.data_type() {
            DataType::LargeUtf8 => {
                large = true;
                offset_bytes(arg, array.as_string::<i64>(), &mut raw)?;
            }
            DataType::Binary => offset_bytes(arg, array.as_binary::<i32>(), &mut raw)?,
            DataType::LargeBinary => {
                large = true;
                offset_bytes(arg, array.as_binary::<i64>(), &mut raw)?;
            }
            DataType::BinaryView => {
                let view = array.as_binary_view();
                raw.extend((0..view.len()).map(|i| (!view.is_null(i)).then(|| view.value(i))));
            }
            _ => offset_bytes(arg, array.as_string::<i32>(), &mut raw)?,
        }
    }
    use rayon::prelude::*;
    let texts = raw
        .par_iter()
        .enumerate()
        .map(|(index, b)| match b {
            None => Ok(None),
            Some(b) => simdutf8::compat::from_utf8(b)
                .map(Some)
                .map_err(|error| Error::NotUtf8 { arg, index, error }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((texts, large))
}

/// The values of a string or binary array (of either offset size) as bytes, from its offsets and data.
fn offset_bytes<'a, T: arrow_array::types::ByteArrayType>(
    arg: &'static str,
    array: &'a arrow_array::GenericByteArray<T>,
    out: &mut Vec<Option<&'a [u8]>>,
) -> Result<(), Error> {
    let (offsets, data) = (array.value_offsets(), array.value_data());
    for i in 0..array.len() {
        if array.is_null(i) {
            out.push(None);
            continue;
        }
        let (start, end) = (
            arrow_buffer::ArrowNativeType::as_usize(offsets[i]),
            arrow_buffer::ArrowNativeType::as_usize(offsets[i + 1]),
        );
        let bytes = data.get(start..end).ok_or(Error::Offsets {
            arg,
            index: out.len(),
        })?;
        out.push(Some(bytes));
    }
    Ok(())
}
