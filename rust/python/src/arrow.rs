//! The Arrow kernel behind `chunkwise.arrow.chunk_arrow`: the texts of an Arrow string column, read from its buffers
//! (no Python `str` per document), split in parallel with the GIL released, and their chunks handed back as Arrow
//! record batches (one row per chunk, built by `chunkwise_io::arrow`) through the Arrow PyCapsule interface.
//!
//! Selecting the text column of a table and repeating the caller's other columns is left to the Python side
//! (pyarrow), which does both without copying the text.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType};
use chunkwise_core::ChunkOptions;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use pyo3_arrow::input::AnyArray;

use crate::batch::batch_error;
use crate::build::Prepared;
use crate::errors::{run, ChunkingError};
use crate::interrupt::Interrupt;
use crate::jsonl::{chunked, shape};
use crate::metadata;
use crate::splitter::PySplitter;

/// The metadata key that `doc_ids` stand for: a chunk's id is the one `chunk_batch` gives a text whose metadata
/// holds `{"doc_id": value}`.
const DOC_ID_KEY: &str = "doc_id";

/// The chunks of every text of `texts` (an Arrow string, large_string or string_view array, or a stream of them),
/// as an Arrow C stream of record batches, one row per chunk, in a PyCapsule (`pyarrow.table` reads it through an
/// object whose `__arrow_c_stream__` returns it). `doc_ids`: an Arrow string array of the same length, each row's
/// document id (null: none); see `DOC_ID_KEY`. `paged`: number the pages of every text, also of one without a form
/// feed (a document given as pages). `id_key`: the metadata key the `doc_ids` stand for (the command line names
/// documents by `source`).
#[pyfunction]
#[pyo3(signature = (splitter, texts, doc_ids=None, paged=false, id_key=DOC_ID_KEY))]
pub(crate) fn chunk_arrow<'py>(
    py: Python<'py>,
    splitter: &Bound<'py, PySplitter>,
    texts: AnyArray,
    doc_ids: Option<AnyArray>,
    paged: bool,
    id_key: &str,
) -> PyResult<Bound<'py, PyCapsule>> {
    let splitter = splitter.get();
    let arrays = read_all("texts", texts)?;
    let (strs, large) = strings(py, "texts", &arrays)?;
    let ids: Vec<Option<String>> = match doc_ids {
        Some(d) => {
            let arrays = read_all("doc_ids", d)?;
            let (given, _) = strings(py, "doc_ids", &arrays)?;
            if given.len() != strs.len() {
                return Err(ChunkingError::new_err(format!(
                    "doc_ids must have one entry per text ({}), got {}",
                    strs.len(),
                    given.len()
                )));
            }
            given
                .into_iter()
                .map(|v| v.map(|v| metadata::doc_id_of(id_key, v)))
                .collect()
        }
        None => vec![None; strs.len()],
    };
    // A null text has no chunks, and is not split: a chunker that refuses an empty text (a table) takes a null.
    let texts: Vec<&str> = strs.iter().map(|t| t.unwrap_or("")).collect();
    let interrupt = Interrupt::new();
    let stop = splitter.stop(&interrupt);
    let prepared = splitter.for_all(py, &texts, &interrupt, |i, t| {
        if strs[i].is_none() {
            return Ok(Prepared::none());
        }
        let options = ChunkOptions {
            doc_id: ids[i].as_deref(),
            paged,
        };
        Prepared::split(&splitter.inner, t, options, &stop)
    })?;
    let prepared = prepared
        .into_iter()
        .enumerate()
        .map(|(i, p)| p.map_err(|e| batch_error(i, e)))
        .collect::<PyResult<Vec<_>>>()?;
    let chunks: Vec<chunkwise_io::Chunked<'_>> = prepared.iter().map(chunked).collect();
    let shape = shape(splitter);
    let batches = run(py, true, "building the Arrow columns", || {
        chunkwise_io::arrow::batches(&texts, &chunks, shape, large)
    })?
    .map_err(|e| ChunkingError::new_err(format!("building the Arrow columns: {e}")))?;
    capsule(py, batches)
}

/// Every array of an Arrow array or stream of strings, in order; string_view arrays as binary_view ones, whose
/// values are read as bytes (a `&str` of a string_view value would be assumed UTF-8 before [`strings`] checks it).
/// Binary and large_binary arrays are taken too (their values are checked as UTF-8 like the others): the command
/// line hands over the bytes of files it read, which a cast to strings would check a second time.
fn read_all(arg: &str, data: AnyArray) -> PyResult<Vec<ArrayRef>> {
    let arrays = data
        .into_reader()?
        .collect::<Result<Vec<_>, ArrowError>>()
        .map_err(|e| {
            ChunkingError::new_err(format!("{arg}: reading the Arrow data failed: {e}"))
        })?;
    arrays
        .into_iter()
        .map(|a| match a.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => {
                Ok(a)
            }
            DataType::Utf8View => {
                Ok(Arc::new(a.as_string_view().clone().to_binary_view()) as ArrayRef)
            }
            other => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{arg} must be Arrow strings (string, large_string or string_view), got {other}"
            ))),
        })
        .collect()
}

/// The texts of the arrays of [`read_all`], borrowed from their buffers (`None` for a null), and whether they are
/// large_string. Each is checked to be UTF-8 (in parallel, with the GIL released): the Arrow C Data Interface hands
/// buffers over unchecked.
fn strings<'a>(
    py: Python<'_>,
    arg: &str,
    arrays: &'a [ArrayRef],
) -> PyResult<(Vec<Option<&'a str>>, bool)> {
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
    let checked = py.detach(|| {
        use rayon::prelude::*;
        raw.par_iter()
            .enumerate()
            .map(|(i, b)| match b {
                None => Ok(None),
                Some(b) => simdutf8::compat::from_utf8(b).map(Some).map_err(|e| (i, e)),
            })
            .collect::<Result<Vec<_>, _>>()
    });
    let texts = checked
        .map_err(|(i, e)| ChunkingError::new_err(format!("{arg}[{i}] is not valid UTF-8: {e}")))?;
    Ok((texts, large))
}

/// The values of a string or binary array (of either offset size) as bytes, from its offsets and data.
fn offset_bytes<'a, T: arrow_array::types::ByteArrayType>(
    arg: &str,
    array: &'a arrow_array::GenericByteArray<T>,
    out: &mut Vec<Option<&'a [u8]>>,
) -> PyResult<()> {
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
        let bytes = data.get(start..end).ok_or_else(|| {
            ChunkingError::new_err(format!(
                "{arg}[{}]: its Arrow offsets point outside the data",
                out.len()
            ))
        })?;
        out.push(Some(bytes));
    }
    Ok(())
}

/// An Arrow C stream of `batches` (at least one: it carries the schema), in a PyCapsule.
fn capsule(py: Python<'_>, batches: Vec<RecordBatch>) -> PyResult<Bound<'_, PyCapsule>> {
    let schema = batches[0].schema();
    let reader = arrow_array::RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let stream = arrow_array::ffi_stream::FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}
