//! The Arrow kernel behind `chunkwise.arrow.chunk_arrow`: the texts of an Arrow string column, read from its buffers
//! (no Python `str` per document), split in parallel with the GIL released, and their chunks handed back as Arrow
//! record batches (one row per chunk, built by `chunkwise_io::arrow`) through the Arrow PyCapsule interface.
//!
//! Selecting the text column of a table and repeating the caller's other columns is left to the Python side
//! (pyarrow), which does both without copying the text.

use arrow_array::{ArrayRef, RecordBatch};
use chunkwise_core::ChunkOptions;
use chunkwise_io::arrow::{texts as arrow_texts, Error, Spanned};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use pyo3_arrow::input::AnyArray;

use crate::build;
use crate::errors::{arrow_error, one_per_text, run};
use crate::jsonl::shape;
use crate::splitter::PySplitter;

/// The metadata key that `doc_ids` stand for: a chunk's id is the one `chunk_batch` gives a text whose metadata
/// holds `{"doc_id": value}`.
const DOC_ID_KEY: &str = "doc_id";

/// The chunks of every text of `texts` (an Arrow string, large_string or string_view array, or a stream of them),
/// as an Arrow C stream of record batches, one row per chunk, in a PyCapsule (`pyarrow.table` reads it through an
/// object whose `__arrow_c_stream__` returns it). `doc_ids`: an Arrow string array of the same length, each row's
/// document id (null: none); see `DOC_ID_KEY`. `paged`: number the pages of every text, also of one without a form
/// feed (a document given as pages). `id_key`: the metadata key the `doc_ids` stand for (the command line names
/// documents by `source`). `large`: the text columns `large_string` whatever the input's type. `one`: one record
/// batch, each column one array (the lists of chunks of `chunkwise._engine` are built over them without a copy).
#[pyfunction]
#[pyo3(signature = (splitter, texts, doc_ids=None, paged=false, id_key=DOC_ID_KEY, large=false, one=false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, one each
pub(crate) fn chunk_arrow<'py>(
    py: Python<'py>,
    splitter: &Bound<'py, PySplitter>,
    texts: AnyArray,
    doc_ids: Option<AnyArray>,
    paged: bool,
    id_key: &str,
    large: bool,
    one: bool,
) -> PyResult<Bound<'py, PyCapsule>> {
    let splitter = splitter.get();
    let arrays = read_all("texts", texts)?;
    let (strs, large_input) = strings(py, "texts", &arrays)?;
    let large = large || large_input;
    let ids: Vec<Option<String>> = match doc_ids {
        Some(d) => {
            let arrays = read_all("doc_ids", d)?;
            let (given, _) = strings(py, "doc_ids", &arrays)?;
            if given.len() != strs.len() {
                return Err(one_per_text("doc_ids", strs.len(), given.len()));
            }
            given
                .into_iter()
                .map(|v| v.map(|v| chunkwise_core::chunk::doc_id_of(id_key, v)))
                .collect()
        }
        None => vec![None; strs.len()],
    };
    // A null text has no chunks, and is not split: a chunker that refuses an empty text (a table) takes a null.
    let texts: Vec<&str> = strs.iter().map(|t| t.unwrap_or("")).collect();
    // Spans, not chunks: the chunks are made one at a time as the columns are built (see chunkwise_io::arrow).
    let spanned = splitter.for_all(py, &texts, |i, t, stop| {
        if strs[i].is_none() {
            return Ok(Default::default());
        }
        build::spans(&splitter.inner, t, stop)
    })?;
    let chunks: Vec<Spanned<'_>> = spanned
        .iter()
        .zip(&ids)
        .map(|((spans, structure), id)| Spanned {
            spans,
            structure: structure.as_ref(),
            options: ChunkOptions {
                doc_id: id.as_deref(),
                paged,
            },
        })
        .collect();
    let shape = shape(splitter);
    let batches = run(py, true, "building the Arrow columns", || {
        chunkwise_io::arrow::batches(&texts, &chunks, shape, large, one)
    })?
    .map_err(|e| arrow_error(Error::Building(e)))?;
    capsule(py, batches)
}

/// Every array of an Arrow array or stream of strings (see `chunkwise_io::arrow::texts::string_arrays`).
fn read_all(arg: &'static str, data: AnyArray) -> PyResult<Vec<ArrayRef>> {
    arrow_texts::string_arrays(arg, data.into_reader()?).map_err(arrow_error)
}

/// The texts of the arrays of [`read_all`], borrowed from their buffers and checked with the GIL released (see
/// `chunkwise_io::arrow::texts::texts`).
fn strings<'a>(
    py: Python<'_>,
    arg: &'static str,
    arrays: &'a [ArrayRef],
) -> PyResult<(Vec<Option<&'a str>>, bool)> {
    py.detach(|| arrow_texts::texts(arg, arrays))
        .map_err(arrow_error)
}

/// An Arrow C stream of `batches` (at least one: it carries the schema), in a PyCapsule.
fn capsule(py: Python<'_>, batches: Vec<RecordBatch>) -> PyResult<Bound<'_, PyCapsule>> {
    let schema = batches[0].schema();
    let reader = arrow_array::RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let stream = arrow_array::ffi_stream::FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}
